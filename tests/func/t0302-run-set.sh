#!/bin/sh
# run --set SECTION.KIND.OPTION=VALUE (docs/suite-format.md, Options from
# the command line): an option of every item of a kind set as if the
# suite said it, which --dry-run's plan shows; a value that is wrong is
# said as the suite's would be, naming --set; a set that names nothing
# is refused; -j passes it to every suite's run. t0523 runs the shipped
# fail_over_ddl_mix with TiCDC's own diff_config.toml so.
. "$(dirname "$0")/test-lib.sh"

cat >s.yaml <<-\EOF
name: s
duration: 20s
seed: 7
database: s
tables:
  - name: t
    columns: "id INT PRIMARY KEY"
workloads:
  - kind: insert
    tables: t
faults:
  - kind: kill
    target: cdc
    at: [2s]
    down: 1s
  - kind: pause
    target: upstream
    at: [4s]
    down: 1s
  - kind: kill
    target: upstream
    at: [10s]
    down: 1s
checks:
  - kind: progress
EOF

# events: the plan's events, "fault at_ns heal_at_ns" a line.
events() {
	sed -n 's/.*{"at_ns": \([0-9]*\), "fault": \([0-9]*\), "heal_at_ns": \([0-9]*\).*/\2 \1 \3/p'
}

test_expect_success 'an option set and one added, on every item of the kind, as the plan shows' '
	"$TICHAOS" run s.yaml --dry-run --set faults.kill.down=5s \
		--set faults.kill.signal=TERM >plan &&
	events <plan >actual &&
	printf "0 2000000000 7000000000\n1 4000000000 5000000000\n2 10000000000 15000000000\n" >expect &&
	test_cmp expect actual &&
	test "$(grep -c "\"kind\": \"kill\", .*\"down\": \"5s\", .*\"signal\": \"TERM\"" plan)" = 2 &&
	grep -q "\"kind\": \"pause\", .*\"down\": \"1s\"" plan
'

test_expect_success 'a value is YAML: a list replaces a list' '
	"$TICHAOS" run s.yaml --dry-run --set "faults.pause.at=[3s, 6s]" >plan &&
	events <plan >actual &&
	printf "0 2000000000 3000000000\n1 3000000000 4000000000\n1 6000000000 7000000000\n2 10000000000 11000000000\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'what cannot be set: one line each, exit 2, nothing run' '
	: >err &&
	for a in faults.kill faults.kill.down= nope.kill.down=1s \
		checks.consistency.diff_config=x faults.kill.down=soon \
		faults.kill.downn=1s "faults.kill.at=[1s"; do
		{ "$TICHAOS" run s.yaml --dry-run --set "$a" >out 2>>err; test $? = 2; } &&
		test ! -s out || return 1
	done &&
	cat >expect <<-\EOF &&
	tichaos: --set '\''faults.kill'\'': expected SECTION.KIND.OPTION=VALUE, as in checks.consistency.diff_config=FILE
	tichaos: --set '\''faults.kill.down='\'': no value
	tichaos: --set '\''nope.kill.down=1s'\'': no section '\''nope'\'' (workloads, faults or checks)
	tichaos: s.yaml: --set '\''checks.consistency.diff_config=x'\'': the suite has no check of kind '\''consistency'\''
	tichaos: s.yaml: down in fault '\''kill'\'': invalid duration '\''soon'\'' (use e.g. '\''500ms'\'', '\''15s'\'', '\''2m'\'', '\''1h'\'') (set by --set)
	tichaos: s.yaml: unknown key '\''downn'\'' in fault '\''kill'\'' (did you mean '\''down'\''?) (set by --set)
	tichaos: --set:2:1: did not find expected '\'','\'' or '\'']'\'' while parsing a flow sequence that started at line 1, column 1
	EOF
	test_cmp expect err
'

test_expect_success 'with -j, each suite run gets the sets' '
	sed -e "s/^name: s$/name: s2/" s.yaml >s2.yaml &&
	{ "$TICHAOS" run -j 1 s.yaml s2.yaml --set faults.kill.down=soon >out 2>err; test $? = 2; } &&
	grep -qx "not ok 1 - s (exit 2, [0-9.]*s)" out &&
	grep -qx "not ok 2 - s2 (exit 2, [0-9.]*s)" out &&
	test "$(grep -c "^  # tichaos: s2\{0,1\}\.yaml: down in fault .kill.: invalid duration .soon. .* (set by --set)$" out)" = 2
'

test_done
