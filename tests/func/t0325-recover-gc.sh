#!/bin/sh
# table_ddl's drop_recover on TiDB waits for TiDB's GC safe point: RECOVER
# TABLE refuses without the row 'tikv_gc_safe_point' of mysql.tidb
# ("can not get 'tikv_gc_safe_point'", pingcap/tidb
# pkg/util/gcutil/gcutil.go GetGCSafePoint), which TiDB's GC worker writes
# on its first tick as GC leader, about a minute after start
# (pkg/store/gcworker/gc_worker.go); a table dropped before then is gone
# for the rest of the run. The SQL side is a real MariaDB whose version
# says TiDB and which holds a mysql.tidb table as TiDB's bootstrap makes it
# (pkg/session/bootstrap.go CreateTiDBTable: VARIABLE_NAME, VARIABLE_VALUE,
# COMMENT). Checked: without the row every drop_recover is skipped with
# the reason and the table is never dropped; with it the DROP and the
# RECOVER are sent (MariaDB refuses RECOVER, so the op fails with its
# error and the table is gone, as on a TiDB without the row).
. "$(dirname "$0")/test-lib.sh"

need mariadbd

C="$TRASH/c"
TIDB_VERSION=8.0.11-TiDB-v8.5.0
WHY="RECOVER TABLE needs TiDB's GC safe point (mysql.tidb tikv_gc_safe_point), not written yet"

cat >"$TRASH/recover.yaml" <<EOF
name: recover
duration: 3s
seed: 5
database: rc
tables:
  - name: t
    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
workloads:
  - kind: table_ddl
    tables: t
    ops: [drop_recover]
    every: 1s
EOF

# run OUT: the suite on the cluster; exit status in $rc, TAP in OUT.tap,
# the drop_recover records (times blanked) in OUT.ops.
run() {
	"$TICHAOS" run "$TRASH/recover.yaml" --cluster "$C/topology.yaml" \
		--out "$TRASH/$1" >"$TRASH/$1.tap" 2>"$TRASH/$1.err"
	rc=$?
	grep "\"f\":\"drop_recover\"" "$TRASH/$1/history.jsonl" |
		sed -e "s/^{\"time\":[0-9]*,//" -e "s/\"process\":[0-9]*,//" \
		>"$TRASH/$1.ops"
}

test_cluster_setup 'set up: MariaDB saying it is TiDB, with mysql.tidb and no safe point' '
	printf "version=%s\n" "$TIDB_VERSION" >>"$C/up-0/my.cnf" &&
	"$TICHAOS" cluster kill up-0 --dir "$C" --signal TERM &&
	"$TICHAOS" cluster start up-0 --dir "$C" &&
	sql "$UP" "CREATE TABLE mysql.tidb (VARIABLE_NAME VARCHAR(64) NOT NULL PRIMARY KEY, VARIABLE_VALUE VARCHAR(1024) DEFAULT NULL, COMMENT VARCHAR(1024))" &&
	echo "$TIDB_VERSION" >expect && sql "$UP" "SELECT VERSION()" >got &&
	test_cmp expect got
'

# Seed 5 plans two ops in the 3 s (at 1 s and 2 s).
test_expect_success 'no safe point yet: every drop_recover skipped with the reason, the table kept' '
	run nogc && test $rc = 0 &&
	test "$(grep -c "\"op\": \"drop_recover\"" "$TRASH/nogc/plan.json")" = 2 &&
	printf "%s\n" "TAP version 13" "1..1" \
		"ok 1 - workload 1 table_ddl: 0 ok, 0 fail, 0 info, 2 skipped ($WHY) # SKIP $WHY" >expect &&
	test_cmp expect "$TRASH/nogc.tap" &&
	test "$(grep -c "\"type\":\"invoke\"" "$TRASH/nogc.ops")" = 2 &&
	test "$(grep -c "\"type\":\"fail\",.*\"error\":\"skipped: $WHY\"" "$TRASH/nogc.ops")" = 2 &&
	echo 0 >expect && sql "$UP" "SELECT COUNT(*) FROM rc.t" >got && test_cmp expect got
'

# The first op's DROP goes through and MariaDB refuses the RECOVER (an
# ambiguous end: info); the second fails at its DROP, the table gone.
test_expect_success 'with the safe point: DROP and RECOVER are sent (MariaDB refuses RECOVER)' '
	sql "$UP" "INSERT INTO mysql.tidb VALUES (\"tikv_gc_safe_point\", \"20261203-12:00:00.000 +0000\", \"\")" &&
	run gc && test $rc = 1 &&
	grep -q "^not ok 1 - workload 1 table_ddl: 0 ok, 1 fail, 1 info$" "$TRASH/gc.tap" &&
	sed -n 2p "$TRASH/gc.ops" | grep -q "^\"type\":\"info\",.*near .RECOVER TABLE .rc.\..t.. at line 1 (1064)" &&
	sed -n 4p "$TRASH/gc.ops" | grep -q "^\"type\":\"fail\",.*Unknown table .rc\.t." &&
	! grep -q "skipped" "$TRASH/gc.ops" &&
	! sql "$UP" "SELECT COUNT(*) FROM rc.t" 2>err &&
	grep -q "Table .rc\.t. doesn.t exist" err
'

test_done
