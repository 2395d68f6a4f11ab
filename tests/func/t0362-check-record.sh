#!/bin/sh
# tichaos check RUN_DIR never weakens a verdict the run recorded
# (docs/results.md, "Checked again"): a run that failed its consistency
# check (a tamper) on its own cluster, which the run stopped. Checked
# again without its servers, the recorded failure stands, said on stderr,
# in the TAP and in every report, exit 1; shrink still finds it failed.
# With the servers up again, the check's own verdict is printed and kept
# beside the recorded one: a failure again replaces it, a pass after the
# fix SQL stands beside the failure, which the run directory keeps.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

R=$TRASH/r
{
	insert_suite tampered 4s 9 tampered 50
	cat <<EOF
faults:
  - kind: tamper
    table: t
    delete: 2
    at: [2s]
checks:
  - kind: consistency
    sync_timeout: 30s
EOF
} >"$TRASH/tampered.yaml"

# checks DIR: "verdict|by|rechecks" of DIR's first check, each recheck
# "by verdict".
checks() {
	result "$1" 'join "|", $c->{verdict}, $c->{by} // "-",
		join ",", map { "$_->{by} $_->{verdict}" } @{ $c->{rechecks} // [] }'
}

test_expect_success 'a run on its own cluster fails its consistency check (tamper), exit 1' '
	{ "$TICHAOS" run "$TRASH/tampered.yaml" --port-base auto --out "$R" --quiet >tap 2>err; test $? = 1; } &&
	grep -qx "not ok 3 - consistency" tap &&
	echo "fail|-|" >expect && checks "$R" >got && test_cmp expect got &&
	test ! -e "$R/cluster/up-0/tichaos.pid" || ! alive "$(cat "$R/cluster/up-0/tichaos.pid")"
'

test_expect_success 'checked again without its servers: the failure stands, said, exit 1' '
	{ "$TICHAOS" check "$R" >tap2 2>err2; test $? = 1; } &&
	grep -q "info  the run'\''s cluster is not up (up-0: cannot connect to " err2 &&
	grep -q "warn  check 1 consistency: not checked again (needs the cluster, which is not running); the recorded verdict stands: fail$" err2 &&
	grep -qx "not ok 1 - consistency" tap2 &&
	grep -Eqx "# checked again [0-9T:-]+Z: skip: needs the cluster, which is not running" tap2 &&
	tail -n 1 tap2 | grep -q "^# checked again " &&
	echo "fail|-|check skip" >expect && checks "$R" >got && test_cmp expect got &&
	grep -q "^consistency  *fail " "$R/summary.txt" &&
	grep -Eq "^ {34}checked again [0-9T:-]+Z: skip: " "$R/summary.txt" &&
	grep -q "failures=\"1\"" "$R/junit.xml" &&
	grep -q "<i>checked again .*: skip: " "$R/report.html" &&
	grep -qx "not ok 3 - consistency" "$R/report.tap" &&
	test "$(perl -MJSON::PP -e "print decode_json(do { local \$/; <STDIN> })->{verdict}" <"$R/results.json")" = fail
'

test_expect_success 'shrink still finds the run failed (and stops at its budget)' '
	"$TICHAOS" shrink "$R" --budget 0s >out 2>errs
	code=$? &&
	echo "tichaos: the budget was spent before the whole plan ran" >expect &&
	{ test $code = 3 && tail -n 1 errs | test_cmp expect -; } ||
	{ echo "exit $code"; cat out errs; false; }
'

test_expect_success 'its cluster up again: the failure found again replaces the recorded one, exit 1' '
	"$TICHAOS" cluster up --dir "$R/cluster" >up.out 2>&1 &&
	test_clusters="$test_clusters $R/cluster" &&
	{ "$TICHAOS" check "$R" >tap3 2>err3; test $? = 1; } &&
	! grep -q "recorded verdict stands" err3 &&
	grep -qx "not ok 1 - consistency" tap3 &&
	echo "fail|check|check skip,run fail" >expect && checks "$R" >got && test_cmp expect got &&
	result "$R" "\$c->{details}{tables}[0]{missing}" >missing && echo 2 >expect && test_cmp expect missing
'

test_expect_success 'the fix SQL applied: the check passes (exit 0), the run keeps its failure beside' '
	DOWN=$(port_of "$R/cluster" down-0) &&
	mariadb --no-defaults -h127.0.0.1 -P"$DOWN" -uroot <"$R/fix-sql/tampered.t.sql" &&
	"$TICHAOS" check "$R" >tap4 2>err4 &&
	grep -Eqx "ok 1 - consistency: 1 tables, [0-9]+ rows equal on both sides \(sync [0-9.]+s\)" tap4 &&
	grep -q "warn  check 1 consistency: pass now; the run directory keeps the recorded fail, this verdict beside it$" err4 &&
	echo "fail|check|check skip,run fail,check pass" >expect && checks "$R" >got && test_cmp expect got &&
	grep -qx "not ok 3 - consistency" "$R/report.tap" &&
	grep -Eqx "# checked again [0-9T:-]+Z: pass: 1 tables, [0-9]+ rows equal on both sides \(sync [0-9.]+s\)" "$R/report.tap" &&
	grep -Eqx "# the run, at [0-9T:-]+Z: fail: .*" "$R/report.tap" &&
	grep -q "failures=\"1\"" "$R/junit.xml" &&
	grep -q "<system-out>checked again .*: pass: 1 tables" "$R/junit.xml" &&
	grep -q "<i>checked again .*: pass: 1 tables" "$R/report.html" &&
	"$TICHAOS" report "$R" >/dev/null 2>&1; test $? = 1
'

test_done
