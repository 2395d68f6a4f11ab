#!/bin/sh
# Reports and replay: results.json is the source of every report; report
# rebuilds them byte for byte; JUnit is well-formed and counts what
# results.json says; replay draws the same plan.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

test_cluster_setup 'set up a cluster to attach to'

cat >"$TRASH/mixed.yaml" <<EOF
name: mixed
duration: 4s
seed: 21
database: rep
tables:
  - name: t_{1..2}
    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
workloads:
  - kind: insert
    tables: t_{1..2}
    rate: 300
faults:
  - kind: tamper
    table: t_1
    delete: 2
    at: [3s]
  - kind: resign
    election: /tichaos-test/nobody
    at: [1s]
checks:
  - kind: consistency
    sync_timeout: 30s
  - kind: logscan
EOF

# field FILE PERL-EXPRESSION: a value of results.json ($r is the object).
field() {
	perl -MJSON::PP -e "my \$r = decode_json(do { local \$/; <STDIN> }); print $2" <"$1"
}

test_expect_success 'a run with a failing check and a fault that did not take effect: exit 1' '
	"$TICHAOS" run "$TRASH/mixed.yaml" --cluster "$T" --out "$TRASH/r1" >tap 2>err
	test $? = 1 &&
	test "$(field "$TRASH/r1/results.json" "\$r->{verdict}")" = fail &&
	test "$(field "$TRASH/r1/results.json" "join q( ), map { \$_->{verdict} } @{\$r->{workloads}}, @{\$r->{faults}}, @{\$r->{checks}}")" = "pass pass error fail pass" &&
	test_cmp tap "$TRASH/r1/report.tap" &&
	{ prove --exec cat "$TRASH/r1/report.tap" >prove.out 2>&1; test $? != 0; } &&
	grep -q "^Result: FAIL" prove.out &&
	grep -q "Failed tests:  3-4" prove.out
'

# Each step of a fault names its item (docs/internals.md, History): the
# tamper is item 0, the resign item 1, whatever their kinds.
test_expect_success 'every nemesis record names its fault item' '
	grep "\"process\":\"nemesis\"" "$TRASH/r1/history.jsonl" |
		sed -n "s/.*\"f\":\"\([a-z]*\)\".*,\"fault\":\([0-9]*\)}\$/\1 \2/p" |
		sort | uniq -c | sed "s/^ *//" >items &&
	printf "%s\n" "2 resign 1" "2 tamper 0" >expect &&
	test_cmp expect items &&
	test "$(grep -c "\"process\":\"nemesis\"" "$TRASH/r1/history.jsonl")" = 4
'

test_expect_success 'the summary was printed and written' '
	grep -q "^suite mixed, seed 21, duration 4s: fail$" "$TRASH/r1/summary.txt" &&
	msg=$(field "$TRASH/r1/results.json" "\$r->{checks}[0]{message}") &&
	test -n "$msg" &&
	grep -qxF "consistency              fail     $msg" "$TRASH/r1/summary.txt" &&
	grep -Eq "^fault 2 resign +error +0 of 1 injected, 1 did not take effect$" "$TRASH/r1/summary.txt" &&
	grep -q "^suite mixed, seed 21, duration 4s: fail$" err
'

test_expect_success 'junit.xml is well formed and counts what results.json says' '
	xmllint --noout "$TRASH/r1/junit.xml" &&
	grep -q "<testsuite name=\"mixed\" tests=\"5\" failures=\"1\" errors=\"1\" skipped=\"0\"" "$TRASH/r1/junit.xml" &&
	test "$(grep -c "<testcase " "$TRASH/r1/junit.xml")" = 5 &&
	test "$(grep -c "<failure type=\"fail\"" "$TRASH/r1/junit.xml")" = 1 &&
	test "$(grep -c "<error type=\"error\"" "$TRASH/r1/junit.xml")" = 1 &&
	grep -q "<property name=\"seed\" value=\"21\"/>" "$TRASH/r1/junit.xml"
'

test_expect_success 'report rebuilds TAP, JUnit and the summary byte for byte' '
	for f in report.tap junit.xml summary.txt; do cp "$TRASH/r1/$f" "$f.before"; done &&
	rm "$TRASH/r1/junit.xml" "$TRASH/r1/summary.txt" &&
	"$TICHAOS" report "$TRASH/r1" >tap2; test $? = 1 &&
	for f in report.tap junit.xml summary.txt; do
		test_cmp "$f.before" "$TRASH/r1/$f" || return 1
	done &&
	test_cmp tap tap2
'

test_expect_success 'report of a directory without results.json: exit 2' '
	mkdir empty &&
	"$TICHAOS" report empty 2>err3; test $? = 2 &&
	grep -q "^tichaos: '\''empty'\'' is not a finished run: " err3
'

test_expect_success 'replay draws the same plan and names the run it replays' '
	"$TICHAOS" replay "$TRASH/r1" --cluster "$T" --out "$TRASH/r2" >tap4 2>err4
	test $? = 1 &&
	test_cmp "$TRASH/r1/plan.json" "$TRASH/r2/plan.json" &&
	test "$(field "$TRASH/r2/results.json" "\$r->{replay_of}")" = "$TRASH/r1"
'

test_expect_success 'replay refuses a run whose plan this build would not draw' '
	sed -e "s/^seed: 21$/seed: 22/" "$TRASH/r1/suite.yaml" >s.yaml &&
	cp s.yaml "$TRASH/r1/suite.yaml" &&
	"$TICHAOS" replay "$TRASH/r1" --cluster "$T" --out "$TRASH/r3" 2>err5; test $? = 2 &&
	echo "tichaos: cannot replay '\''$TRASH/r1'\'': this build draws another plan from its suite.yaml and seed than the one recorded in plan.json" >expect &&
	test_cmp expect err5 && test ! -e "$TRASH/r3"
'

test_expect_success 'a suite the cluster cannot run: TAP SKIP, results and reports say so' '
	sed -e "s/^seed: 21$/seed: 21\nrequires: [tidb]/" "$TRASH/mixed.yaml" >tidb.yaml &&
	"$TICHAOS" run tidb.yaml --cluster "$T" --out "$TRASH/r4" >tap6 &&
	test "$(cat tap6)" = "$(printf "TAP version 13\n1..0 # SKIP requires tidb")" &&
	test "$(field "$TRASH/r4/results.json" "\$r->{verdict} . q( ) . \$r->{skip}")" = "skip requires tidb" &&
	xmllint --noout "$TRASH/r4/junit.xml" &&
	grep -q "skipped=\"5\"" "$TRASH/r4/junit.xml"
'

test_done
