#!/bin/sh
# The command skeleton: version, help, list, and one-line usage errors.
. "$(dirname "$0")/test-lib.sh"

test_expect_success '--version prints the version' '
	"$TICHAOS" --version >out &&
	grep -Eq "^tichaos [0-9]+\.[0-9]+\.[0-9]+$" out
'

test_expect_success '--help lists every command' '
	"$TICHAOS" --help >out &&
	for c in run validate cluster check replay report list help; do
		grep -q "^  $c " out || { echo "missing $c"; return 1; }
	done
'

test_expect_success 'no arguments: usage on stderr, exit 2' '
	"$TICHAOS" >out 2>err; test $? = 2 &&
	test ! -s out && grep -q "^usage: tichaos COMMAND" err
'

test_expect_success 'help run shows the run synopsis and its options' '
	"$TICHAOS" help run >out &&
	head -n 1 out | grep -q "^usage: tichaos run SUITE.yaml\.\.\." &&
	for o in --cluster --duration --seed --out --keep-cluster --port-base --quiet \
		--repeat --until-fail --budget; do
		grep -q -- "$o" out || { echo "missing $o"; return 1; }
	done
'

test_expect_success 'run --help is help run' '
	"$TICHAOS" help run >a && "$TICHAOS" run --help >b && test_cmp a b
'

test_expect_success 'an unknown command: one line, exit 2' '
	"$TICHAOS" frobnicate >out 2>err; test $? = 2 &&
	echo "tichaos: unknown command '\''frobnicate'\'' (see '\''tichaos --help'\'')" >expect &&
	test_cmp expect err && test ! -s out
'

test_expect_success 'an unknown option: one line, exit 2' '
	"$TICHAOS" run --no-such-flag suites/x.yaml >out 2>err; test $? = 2 &&
	echo "tichaos: run: unknown option '\''--no-such-flag'\'' (see '\''tichaos help run'\'')" >expect &&
	test_cmp expect err
'

test_expect_success 'an unknown global option: one line, exit 2' '
	"$TICHAOS" --frob >out 2>err; test $? = 2 &&
	echo "tichaos: unknown option '\''--frob'\'' (see '\''tichaos --help'\'')" >expect &&
	test_cmp expect err
'

test_expect_success 'an option without its value: one line, exit 2' '
	"$TICHAOS" run x.yaml --seed >out 2>err; test $? = 2 &&
	echo "tichaos: run: option '\''--seed'\'' needs a value" >expect &&
	test_cmp expect err
'

test_expect_success 'a bad duration is a usage error' '
	"$TICHAOS" run x.yaml --duration 15 2>err; test $? = 2 &&
	echo "tichaos: run: --duration: invalid duration '\''15'\'' (missing unit: use ms, s, m or h)" >expect &&
	test_cmp expect err
'

test_expect_success 'a bad port base is a usage error' '
	"$TICHAOS" cluster status --port-base 80 2>err; test $? = 2 &&
	echo "tichaos: cluster: --port-base: number '\''80'\'' is out of range (1024..65527)" >expect &&
	test_cmp expect err
'

test_expect_success 'help of an unknown command: exit 2' '
	"$TICHAOS" help frobnicate 2>err; test $? = 2 &&
	echo "tichaos: help: unknown command '\''frobnicate'\''" >expect &&
	test_cmp expect err
'

test_expect_success 'cluster with an unknown action: exit 2' '
	"$TICHAOS" cluster sideways 2>err; test $? = 2 &&
	echo "tichaos: cluster: unknown action '\''sideways'\'' (expected up, down, status, kill, start, pause or continue)" >expect &&
	test_cmp expect err
'

test_expect_success 'list prints every registry with its one-line docs' '
	"$TICHAOS" list >out &&
	grep -q "^clusters:$" out && grep -q "^workloads:$" out &&
	grep -q "^faults:$" out && grep -q "^checkers:$" out &&
	grep -Eq "^  local +MariaDB upstream" out &&
	grep -Eq "^  static +the components described by a topology file" out
'

test_expect_success 'list takes no arguments' '
	"$TICHAOS" list extra 2>err; test $? = 2 &&
	echo "tichaos: list: takes no arguments" >expect && test_cmp expect err
'

test_done
