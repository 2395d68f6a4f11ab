#!/bin/sh
# The harness itself: a file that skips for want of a server or a tool
# (need, skip_all) fails under CI (CI=true), where `make test` has
# installed them all; a skip for what the kernel cannot do (skip_machine)
# stays a skip; test_skip_missing fails its test point under CI.
. "$(dirname "$0")/test-lib.sh"

# inner BODY: a test file of its own, $TRASH/inner.sh, sourcing the
# harness, then BODY. It is run from $TRASH/t/func, so the harness takes
# $TRASH for the tree: the tichaos there is a link to the one built.
mkdir -p "$TRASH/t/func" && ln -s "$TICHAOS" "$TRASH/tichaos" ||
	{ echo "Bail out! cannot make $TRASH/t/func"; exit 1; }
inner() {
	printf '. "%s/test-lib.sh"\n%s\n' "$TEST_DIR" "$1" >"$TRASH/t/func/inner.sh"
}

test_expect_success 'need: a missing server skips the file off CI' '
	inner "need sh tichaos-no-such-server" &&
	(unset CI; sh "$TRASH/t/func/inner.sh") >out; test $? = 0 &&
	echo "1..0 # SKIP tichaos-no-such-server is not installed (make deps)" >expect &&
	test_cmp expect out
'

test_expect_success 'need: the same file fails under CI=true, saying why' '
	CI=true sh "$TRASH/t/func/inner.sh" >out; test $? = 1 &&
	printf "%s\n" "1..1" "not ok 1 - skipped: tichaos-no-such-server is not installed (make deps) (CI=true runs every test)" >expect &&
	test_cmp expect out
'

test_expect_success 'need: what is installed goes on, under CI=true too' '
	inner "need sh; test_done" &&
	CI=true sh "$TRASH/t/func/inner.sh" >out; test $? = 0 &&
	echo "1..0" >expect &&
	test_cmp expect out
'

test_expect_success 'skip_machine: a skip under CI=true too' '
	inner "skip_machine \"this kernel has no net_cls controller\"" &&
	CI=true sh "$TRASH/t/func/inner.sh" >out; test $? = 0 &&
	echo "1..0 # SKIP this kernel has no net_cls controller" >expect &&
	test_cmp expect out
'

test_expect_success 'test_skip_missing: a skip off CI, a failed point under CI=true' '
	inner "test_skip_missing \"clock over SSH\" \"faketime is not installed (make deps)\"; test_done" &&
	(unset CI; sh "$TRASH/t/func/inner.sh") >out; test $? = 0 &&
	printf "%s\n" "ok 1 - clock over SSH # SKIP faketime is not installed (make deps)" "1..1" >expect &&
	test_cmp expect out &&
	CI=true sh "$TRASH/t/func/inner.sh" >out; test $? = 1 &&
	printf "%s\n" "not ok 1 - clock over SSH: skipped: faketime is not installed (make deps) (CI=true runs every test)" "1..1" >expect &&
	test_cmp expect out
'

test_done
