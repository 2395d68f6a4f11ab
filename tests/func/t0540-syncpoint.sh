#!/bin/sh
# The syncpoint check: the tables compared at TiCDC's sync points, the
# upstream read at primary_ts and the downstream at secondary_ts.
#
# TiDB and TiCDC stand in as tests/func/lib-syncpoint.sh says.
# tichaos check runs the check on a run directory made here: a suite
# and a topology whose SQL nodes are the two fakes. Table big (1000 rows,
# 10 chunks of 100) makes every chunk, bound and bisection be read at the
# snapshot.
. "$(dirname "$0")/test-lib.sh"
. "$ROOT/tests/func/lib-syncpoint.sh"

test_cluster_setup 'set up a cluster and a fake TiDB in front of each side' fake_tidbs

# run_dir DIR UPPORT DOWNPORT [CHECK OPTION LINES]: a run directory whose
# suite has one syncpoint check (changefeed cf-sp).
run_dir() {
	mkdir -p "$1" &&
	cat >"$1/topology.yaml" <<-EOF &&
	cluster: static
	changefeed:
	  id: "cf-sp"
	components:
	  - name: "tidb-up"
	    roles: [upstream]
	    sql: "127.0.0.1:$2"
	  - name: "tidb-down"
	    roles: [downstream]
	    sql: "127.0.0.1:$3"
	EOF
	cat >"$1/suite.yaml" <<-EOF
	name: sp
	duration: 1s
	seed: 1
	database: sp
	tables:
	  - name: t
	    columns: "id INT PRIMARY KEY, v INT"
	workloads:
	  - kind: insert
	    tables: [t]
	checks:
	  - kind: syncpoint
	    chunk_rows: 100
	    threads: 2
	${4:-}
	EOF
}

# points DIR: "primary secondary verdict" of each point compared.
points() {
	perl -MJSON::PP -e '
		my $j = decode_json(do { local $/; <STDIN> });
		print "$_->{primary_ts} $_->{secondary_ts} $_->{verdict}\n"
			for @{ $j->{checks}[0]{details}{points} };' <"$1/results.json"
}

test_expect_success 'the fake TiDB: TiDB in VERSION(), tidb_current_ts 0 outside a transaction' '
	sql $UPT "SELECT VERSION()" >v && grep -q TiDB v &&
	test "$(sql $UPT "SELECT @@tidb_current_ts")" = 0 &&
	test "$(tso $UPT)" -gt $(( $(date +%s) * 1000 << 18 ))
'

# A changefeed without enable-sync-point never runs CreateSyncTable
# (tiflow cdc/syncpointstore/mysql_syncpoint_store.go): no table at all.
test_expect_success 'no tidb_cdc.syncpoint_v1 downstream: unknown, saying so' '
	sql $UP "CREATE DATABASE sp; CREATE TABLE sp.t (id INT PRIMARY KEY, v INT) WITH SYSTEM VERSIONING;
		CREATE TABLE sp.big (id INT PRIMARY KEY, v INT) WITH SYSTEM VERSIONING;
		INSERT INTO sp.big SELECT seq, seq FROM sp.seq_1_to_1000" &&
	run_dir r0 $UPT $DOWNT && check r0 &&
	test $rc = 3 &&
	grep -qx "not ok 1 - syncpoint" r0.tap &&
	grep -qF "  message: \"tidb-down has no tidb_cdc.syncpoint_v1: changefeed cf-sp records no sync points (enable-sync-point) (query failed on '\''127.0.0.1:$DOWNT'\'': Table '\''tidb_cdc.syncpoint_v1'\'' doesn'\''t exist (1146))\"" r0.tap &&
	grep -qx "  verdict: unknown" r0.tap
'

test_expect_success 'three sync points with changes between them' '
	sql $UP "INSERT INTO sp.t VALUES (1, 1), (2, 2), (3, 3)" &&
	sync_point &&
	sql $UP "UPDATE sp.t SET v = 20 WHERE id = 2; INSERT INTO sp.t VALUES (4, 4);
		DELETE FROM sp.big WHERE id > 900; UPDATE sp.big SET v = -id WHERE id <= 50" &&
	sync_point &&
	sql $UP "DELETE FROM sp.t WHERE id = 1; UPDATE sp.t SET v = 30 WHERE id = 3" &&
	sync_point &&
	test $(wc -l <points) = 3
'

# The table is shared by every changefeed writing to this downstream (key
# (changefeed, primary_ts), mysql_syncpoint_store.go): others' rows are
# not this changefeed's points.
test_expect_success 'a sync point of another changefeed only: unknown, saying so' '
	run_dir r1 $UPT $DOWNT "    changefeed: other" && check r1 &&
	test $rc = 3 &&
	grep -qx "  message: \"no sync point of changefeed other in tidb_cdc.syncpoint_v1 on tidb-down (as other or default/other): none reached yet (sync-point-interval, default 10m)?\"" r1.tap
'

test_expect_success 'equal at each of the last 2 sync points: pass, those 2 compared' '
	run_dir r2 $UPT $DOWNT "    syncpoints: 2" && check r2 &&
	test $rc = 0 &&
	sed -n "2,3p" points | sed -e "s/$/ pass/" >want &&
	points r2 >got && test_cmp want got &&
	set -- $(sed -n 3p points) &&
	grep -qx "ok 1 - syncpoint: equal at 2 sync points of changefeed cf-sp; the last at primary_ts $1, secondary_ts $2: 2 tables, 903 rows equal" r2.tap
'

test_expect_success 'syncpoints: 10 with 3 recorded compares the 3, each at its own rows' '
	run_dir r3 $UPT $DOWNT "    syncpoints: 10" && check r3 &&
	test $rc = 0 &&
	sed -e "s/$/ pass/" points >want &&
	points r3 >got && test_cmp want got &&
	perl -MJSON::PP -e "
		my \$j = decode_json(do { local \$/; <STDIN> });
		print join(q( ), map { join(q(,), map { \$_->{up_rows} . q(/) .
			\$_->{down_rows} . q(/) . \$_->{chunks} } @{ \$_->{tables} }) }
			@{ \$j->{checks}[0]{details}{points} }), qq(\n);" <r3/results.json >got &&
	echo "1000/1000/10,3/3/1 900/900/9,4/4/1 900/900/9,3/3/1" >want && test_cmp want got
'

# TiDB refuses SET tidb_snapshot below GC's safe point with error 8055
# (pingcap/tidb pkg/sessionctx/variable/session.go ErrSnapshotTooOld,
# checked in pkg/executor/set.go): the point is unknown, TiDB's words kept.
test_expect_success 'a snapshot older than the GC safe point: unknown with TiDB'\''s message' '
	set -- $(sed -n 2p points) && echo "$1" >gc-safe-point &&
	set -- $(sed -n 1p points) &&
	run_dir r4 $UPT $DOWNT "    syncpoints: 10" && check r4 &&
	echo 1 >gc-safe-point &&
	test $rc = 3 &&
	printf "%s unknown\n" "$(sed -n 1p points)" >want &&
	sed -n "2,3p" points | sed -e "s/$/ pass/" >>want &&
	points r4 >got && test_cmp want got &&
	grep -q "^  message: \"1 of 3 sync points of changefeed cf-sp could not be read; first at primary_ts $1, secondary_ts $2: tidb-up: SET @@tidb_snapshot = '\''$1'\'': query failed on '\''127.0.0.1:$UPT'\'': snapshot is older than GC safe point 20[0-9-]* [0-9:.]* [-+][0-9]* [A-Z]* (8055)\"$" r4.tap &&
	grep -qx "  verdict: unknown" r4.tap
'

# A real tidb-server (8f2630e53d5d on unistore, by hand) whose GC worker
# never wrote its safe point refuses every snapshot: 1105.
test_expect_success 'no GC safe point at all: unknown with TiDB'\''s 1105' '
	rm gc-safe-point &&
	run_dir r4b $UPT $DOWNT "    syncpoints: 1" && check r4b &&
	echo 1 >gc-safe-point &&
	test $rc = 3 &&
	set -- $(tail -n 1 points) &&
	grep -q "^  message: \"1 of 1 sync points of changefeed cf-sp could not be read; first at primary_ts $1, secondary_ts $2: tidb-up: SET @@tidb_snapshot = '\''$1'\'': query failed on '\''127.0.0.1:$UPT'\'': can not get '\''tikv_gc_safe_point'\'' (1105)\"$" r4b.tap
'

# The downstream wrong for a while between two points, right again by
# the end: only the point in between can show it; the current tables (and
# so the consistency check) are equal.
test_expect_success 'a row changed downstream only at a past snapshot: fail at that point, with the key' '
	sql $DOWN "UPDATE sp.t SET v = 99 WHERE id = 2; UPDATE sp.big SET v = 7 WHERE id = 555" &&
	sync_point &&
	sql $DOWN "UPDATE sp.t SET v = 20 WHERE id = 2; UPDATE sp.big SET v = 555 WHERE id = 555" &&
	sql $UP "SELECT * FROM sp.t ORDER BY id; SELECT * FROM sp.big ORDER BY id" >up.rows &&
	sql $DOWN "SELECT * FROM sp.t ORDER BY id; SELECT * FROM sp.big ORDER BY id" >down.rows &&
	test_cmp up.rows down.rows &&
	run_dir r5 $UPT $DOWNT "    syncpoints: 2" && check r5 &&
	test $rc = 1 &&
	set -- $(sed -n 4p points) &&
	printf "%s pass\n%s fail\n" "$(sed -n 3p points)" "$1 $2" >want &&
	points r5 >got && test_cmp want got &&
	grep -qxF "  message: \"1 of 2 sync points of changefeed cf-sp differ; first at primary_ts $1, secondary_ts $2: 2 of 2 tables differ; first: sp.big: 0 missing, 0 extra, 1 changed (first changed: \\\"id=555\\\")\"" r5.tap &&
	grep -qx "  numbers: \"points=2 differing=1 unknown=0\"" r5.tap &&
	perl -MJSON::PP -e "
		my \$j = decode_json(do { local \$/; <STDIN> });
		for my \$t (@{ \$j->{checks}[0]{details}{points}[1]{tables} }) {
			print join(q(,), @{ \$t->{changed_keys} }), q( ),
				join(q(,), @{ \$t->{rows}[0]{up} }), q( ),
				join(q(,), @{ \$t->{rows}[0]{down} }), qq(\n);
		}" <r5/results.json >got &&
	printf "id=555 555,555 555,7\nid=2 2,20 2,99\n" >want && test_cmp want got &&
	! test -e r5/fix-sql
'

# The new TiCDC names the changefeed in the column by its keyspace and
# name, "default/cf-sp" (pingcap/ticdc pkg/sink/mysql/
# mysql_writer_for_syncpoint.go, ChangeFeedID.String() in
# pkg/common/types.go); the old one by its id alone. Another changefeed's
# points, under either form, and cf-sp's of another keyspace lie between
# the two new ones: none of them is taken.
test_expect_success 'sync points the new TiCDC wrote (default/cf-sp): read with the old ones, in order' '
	sql $UP "UPDATE sp.t SET v = 40 WHERE id = 4" &&
	sync_point new &&
	sync_point old other others && sync_point new other others &&
	sync_point new:ks1 cf-sp others &&
	sql $UP "INSERT INTO sp.t VALUES (5, 5); UPDATE sp.big SET v = 0 WHERE id = 1" &&
	sync_point new &&
	test $(wc -l <points) = 6 && test $(wc -l <others) = 3 &&
	sql $DOWNT "SELECT changefeed FROM tidb_cdc.syncpoint_v1 ORDER BY primary_ts" >got &&
	printf "cf-sp\ncf-sp\ncf-sp\ncf-sp\ndefault/cf-sp\nother\ndefault/other\nks1/cf-sp\ndefault/cf-sp\n" >want &&
	test_cmp want got &&
	run_dir r8 $UPT $DOWNT "    syncpoints: 2" && check r8 &&
	test $rc = 0 &&
	sed -n "5,6p" points | sed -e "s/$/ pass/" >want &&
	points r8 >got && test_cmp want got &&
	set -- $(sed -n 6p points) &&
	grep -qx "ok 1 - syncpoint: equal at 2 sync points of changefeed cf-sp; the last at primary_ts $1, secondary_ts $2: 2 tables, 904 rows equal" r8.tap &&
	run_dir r9 $UPT $DOWNT "    syncpoints: 3" && check r9 &&
	test $rc = 1 &&
	set -- $(sed -n 4p points) &&
	printf "%s fail\n" "$1 $2" >want &&
	sed -n "5,6p" points | sed -e "s/$/ pass/" >>want &&
	points r9 >got && test_cmp want got &&
	grep -qx "  numbers: \"points=3 differing=1 unknown=0\"" r9.tap
'

test_expect_success 'changefeed other: its points under either form, not cf-sp'\''s' '
	run_dir r10 $UPT $DOWNT "    changefeed: other
    syncpoints: 10" && check r10 &&
	test $rc = 0 &&
	sed -n "1,2p" others | sed -e "s/$/ pass/" >want &&
	points r10 >got && test_cmp want got &&
	set -- $(sed -n 2p others) &&
	grep -qx "ok 1 - syncpoint: equal at 2 sync points of changefeed other; the last at primary_ts $1, secondary_ts $2: 2 tables, 903 rows equal" r10.tap
'

test_expect_success 'a point of the same name in another keyspace only: unknown, saying so' '
	sync_point new:ks1 lone others &&
	run_dir r11 $UPT $DOWNT "    changefeed: lone" && check r11 &&
	test $rc = 3 &&
	grep -qx "  message: \"no sync point of changefeed lone in tidb_cdc.syncpoint_v1 on tidb-down (as lone or default/lone): none reached yet (sync-point-interval, default 10m)?\"" r11.tap
'

test_expect_success 'the topology names keyspace ks1: its point is read, ks1/lone' '
	run_dir r12 $UPT $DOWNT "    changefeed: lone" &&
	sed -i "s/^changefeed:\$/ticdc:\n  keyspace: \"ks1\"\nchangefeed:/" r12/topology.yaml &&
	grep -qx "  keyspace: \"ks1\"" r12/topology.yaml &&
	check r12 && test $rc = 0 &&
	set -- $(tail -n 1 others) &&
	echo "$1 $2 pass" >want && points r12 >got && test_cmp want got
'

# On a MySQL-compatible downstream that is not TiDB, TiCDC accepts the
# changefeed (tiflow cdc/sink/validator/validator.go) but its "select
# @@tidb_current_ts" fails (mysql_syncpoint_store.go): nothing to read.
test_expect_success 'a downstream that is not TiDB: skipped, saying why' '
	run_dir r6 $UPT $DOWN && check r6 &&
	test $rc = 0 &&
	v=$(sql $DOWN "SELECT VERSION()") &&
	grep -qx "ok 1 - syncpoint # SKIP tidb-down is not TiDB ($v): TiCDC records sync points only in a TiDB downstream" r6.tap
'

test_expect_success 'an upstream that is not TiDB: skipped, saying why' '
	run_dir r7 $UP $DOWNT && check r7 &&
	test $rc = 0 &&
	grep -qx "ok 1 - syncpoint # SKIP tidb-up is MariaDB, not TiDB: sync points are read at TiDB snapshots (tidb_snapshot) on both sides" r7.tap
'

test_done
