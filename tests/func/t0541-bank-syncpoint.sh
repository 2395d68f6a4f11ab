#!/bin/sh
# The bank check's option syncpoints: the bank's balances read at TiCDC's
# sync points, the upstream at tidb_snapshot = primary_ts and the
# downstream at secondary_ts, on the stored run tests/data/histories/
# bank-clean (accounts 1 and 3 in acc_a, 2 and 4 in acc_b, 100 each; ok
# transfers 1 -> 2 of 10 and 3 -> 4 of 5).
#
# TiDB and TiCDC stand in as tests/func/lib-syncpoint.sh says.
# The balances move between points in transactions, as the bank
# workload's transfers do.
. "$(dirname "$0")/test-lib.sh"
. "$ROOT/tests/func/lib-syncpoint.sh"

test_cluster_setup 'set up a cluster and a fake TiDB in front of each side' fake_tidbs

# run_dir DIR UPPORT DOWNPORT SYNCPOINTS [CHANGEFEED]: the stored run
# bank-clean, its bank check with syncpoints: SYNCPOINTS, attached to the
# SQL nodes at UPPORT and DOWNPORT (changefeed CHANGEFEED, else cf-sp).
run_dir() {
	rm -rf "$1" && cp -R "$DATA/histories/bank-clean" "$1" &&
	echo "    syncpoints: $4" >>"$1/suite.yaml" &&
	cat >"$1/topology.yaml" <<-EOF
	cluster: static
	changefeed:
	  id: "${5:-cf-sp}"
	components:
	  - name: "tidb-up"
	    roles: [upstream]
	    sql: "127.0.0.1:$2"
	  - name: "tidb-down"
	    roles: [downstream]
	    sql: "127.0.0.1:$3"
	EOF
}

# points DIR: "primary secondary up_total/accounts down_total/accounts
# verdict" (or "unread") of each sync point read.
points() {
	perl -MJSON::PP -e '
		my $j = decode_json(do { local $/; <STDIN> });
		for (@{ $j->{checks}[0]{details}{syncpoints} }) {
			print "$_->{primary_ts} $_->{secondary_ts} ", exists $_->{unread}
				? "unread" : "$_->{upstream_total}/$_->{upstream_accounts} " .
				"$_->{downstream_total}/$_->{downstream_accounts} $_->{verdict}", "\n";
		}' <"$1/results.json"
}

# field DIR NAME: the check's NAME (message, numbers) in results.json.
field() {
	perl -MJSON::PP -e '
		my $j = decode_json(do { local $/; <STDIN> });
		print $j->{checks}[0]{$ARGV[0]}, "\n";' "$2" <"$1/results.json"
}

# transfer PORT FROM TO AMOUNT: one transaction on the server at PORT.
transfer() {
	tf=acc_a && [ $(( $2 % 2 )) = 1 ] || tf=acc_b
	tt=acc_a && [ $(( $3 % 2 )) = 1 ] || tt=acc_b
	sql "$1" "BEGIN; UPDATE bank.$tf SET balance = balance - $4 WHERE id = $2;
		UPDATE bank.$tt SET balance = balance + $4 WHERE id = $3; COMMIT"
}

BASE="2 reads saw the total 400; 2 ok transfers and 0 of 0 unknown ones applied fit the final balances, equal downstream (0 unresolved)"
NUMS="reads=2 replica_reads=0 bad_reads=0 transfers=2 failed=1 unknown=0 applied=0 not_applied=0 unresolved=0 downstream_differing=0"

BASE="2 reads saw the total 400; 2 ok transfers and 0 of 0 unknown ones applied fit the final balances, equal downstream (0 unresolved)"
NUMS="reads=2 replica_reads=0 bad_reads=0 transfers=2 failed=1 unknown=0 applied=0 not_applied=0 unresolved=0 downstream_differing=0"

test_expect_success 'the bank, a sync point before each transfer and after the last' '
	sql $UP "CREATE DATABASE bank;
		CREATE TABLE bank.acc_a (id INT PRIMARY KEY, balance BIGINT NOT NULL) WITH SYSTEM VERSIONING;
		CREATE TABLE bank.acc_b (id INT PRIMARY KEY, balance BIGINT NOT NULL) WITH SYSTEM VERSIONING;
		INSERT INTO bank.acc_a VALUES (1, 100), (3, 100);
		INSERT INTO bank.acc_b VALUES (2, 100), (4, 100)" &&
	sync_point &&
	transfer $UP 1 2 10 && sync_point &&
	transfer $UP 3 4 5 && sync_point &&
	test $(wc -l <points) = 3
'

test_expect_success 'syncpoints 0 (the default): no sync point read, as before' '
	run_dir r0 $UPT $DOWNT 0 && check r0 &&
	test $rc = 0 &&
	test "$(field r0 message)" = "$BASE" &&
	test "$(field r0 numbers)" = "$NUMS" &&
	! grep -q syncpoints r0/results.json
'

test_expect_success 'syncpoints 10 with 3 recorded: the total and equal balances at the 3' '
	run_dir r1 $UPT $DOWNT 10 && check r1 &&
	test $rc = 0 &&
	sed -e "s|$| 400/4 400/4 pass|" points >want &&
	points r1 >got && test_cmp want got &&
	set -- $(sed -n 3p points) &&
	test "$(field r1 message)" = "$BASE; the total 400 and equal balances at 3 sync points of changefeed cf-sp, the last at primary_ts $1, secondary_ts $2" &&
	test "$(field r1 numbers)" = "$NUMS syncpoints=3 syncpoints_differing=0 syncpoints_unread=0"
'

test_expect_success 'syncpoints 2: the last 2 only' '
	run_dir r2 $UPT $DOWNT 2 && check r2 &&
	test $rc = 0 &&
	sed -n "2,3p" points | sed -e "s|$| 400/4 400/4 pass|" >want &&
	points r2 >got && test_cmp want got &&
	test "$(field r2 numbers)" = "$NUMS syncpoints=2 syncpoints_differing=0 syncpoints_unread=0"
'

# The table is shared by the changefeeds writing to this downstream (key
# (changefeed, primary_ts), mysql_syncpoint_store.go).
test_expect_success 'no sync point of the changefeed: unknown, saying so' '
	run_dir r3 $UPT $DOWNT 3 other && check r3 &&
	test $rc = 3 &&
	grep -qx "not ok 1 - bank" r3.tap &&
	test "$(field r3 verdict)" = unknown &&
	test "$(field r3 message)" = "syncpoints: no sync point of changefeed other in tidb_cdc.syncpoint_v1 on tidb-down (as other or default/other): none reached yet (sync-point-interval, default 10m)?"
'

# TiCDC accepts a MySQL-compatible downstream with sync points (tiflow
# cdc/sink/validator/validator.go) and records none there.
test_expect_success 'a side that is not TiDB: unknown, saying which' '
	run_dir r4 $UPT $DOWN 3 && check r4 &&
	test $rc = 3 &&
	v=$(sql $DOWN "SELECT VERSION()") &&
	test "$(field r4 message)" = "syncpoints: tidb-down is not TiDB ($v): TiCDC records sync points only in a TiDB downstream" &&
	run_dir r4u $UP $DOWNT 3 && check r4u &&
	test $rc = 3 &&
	test "$(field r4u message)" = "syncpoints: tidb-up is MariaDB, not TiDB: the sync points'"'"' balances are read at TiDB snapshots (tidb_snapshot) on both sides"
'

# TiDB refuses SET tidb_snapshot below GC's safe point with error 8055
# (pingcap/tidb pkg/sessionctx/variable/session.go ErrSnapshotTooOld,
# checked in pkg/executor/set.go): that point unread, the verdict unknown.
test_expect_success 'a point older than the GC safe point: unknown with TiDB'"'"'s message' '
	set -- $(sed -n 2p points) && echo "$1" >gc-safe-point &&
	set -- $(sed -n 1p points) &&
	run_dir r5 $UPT $DOWNT 10 && check r5 &&
	echo 1 >gc-safe-point &&
	test $rc = 3 &&
	echo "$1 $2 unread" >want &&
	sed -n "2,3p" points | sed -e "s|$| 400/4 400/4 pass|" >>want &&
	points r5 >got && test_cmp want got &&
	field r5 message >msg &&
	grep -q "^syncpoints: 1 of 3 sync points of changefeed cf-sp could not be read; first at primary_ts $1, secondary_ts $2: tidb-up: SET @@tidb_snapshot = '"'"'$1'"'"': query failed on '"'"'127.0.0.1:$UPT'"'"': snapshot is older than GC safe point 20[0-9-]* [0-9:.]* [-+][0-9]* [A-Z]* (8055)$" msg
'

# The downstream wrong between two points, right again by the end: only
# the point in between shows it; the balances now are equal.
test_expect_success 'a downstream balance moved only at a past snapshot: fail naming the point and account' '
	transfer $DOWN 1 3 5 && sync_point && transfer $DOWN 3 1 5 &&
	sql $UP "SELECT * FROM bank.acc_a; SELECT * FROM bank.acc_b" >up.rows &&
	sql $DOWN "SELECT * FROM bank.acc_a; SELECT * FROM bank.acc_b" >down.rows &&
	test_cmp up.rows down.rows &&
	run_dir r6 $UPT $DOWNT 2 && check r6 &&
	test $rc = 1 &&
	grep -qx "not ok 1 - bank" r6.tap &&
	set -- $(sed -n 4p points) &&
	printf "%s 400/4 400/4 pass\n%s 400/4 400/4 fail\n" "$(sed -n 3p points)" "$1 $2" >want &&
	points r6 >got && test_cmp want got &&
	test "$(field r6 message)" = "at sync point primary_ts $1, secondary_ts $2: upstream 400 in 4 accounts, downstream 400 in 4 accounts (expected 400 in 4); account 1 (acc_a) is 85 downstream, 90 upstream (1 of 2 sync points of changefeed cf-sp differ)" &&
	test "$(field r6 numbers)" = "$NUMS syncpoints=2 syncpoints_differing=1 syncpoints_unread=0" &&
	perl -MJSON::PP -e "
		my \$j = decode_json(do { local \$/; <STDIN> });
		print JSON::PP->new->canonical->encode(\$j->{checks}[0]{details}{syncpoints}[1]{first_differing}), qq(\n);" <r6/results.json >got &&
	echo "{\"account\":1,\"downstream\":85,\"upstream\":90}" >want && test_cmp want got
'

test_expect_success 'an account missing downstream at a past snapshot: its total and count named' '
	sql $DOWN "DELETE FROM bank.acc_b WHERE id = 4" && sync_point &&
	sql $DOWN "INSERT INTO bank.acc_b VALUES (4, 105)" &&
	run_dir r7 $UPT $DOWNT 1 && check r7 &&
	test $rc = 1 &&
	set -- $(sed -n 5p points) &&
	test "$(field r7 message)" = "at sync point primary_ts $1, secondary_ts $2: upstream 400 in 4 accounts, downstream 295 in 3 accounts (expected 400 in 4); account 4 (acc_b) is missing downstream, 105 upstream (1 of 1 sync points of changefeed cf-sp differ)"
'


# The new TiCDC writes its points under "default/cf-sp" (pingcap/ticdc
# pkg/sink/mysql/mysql_writer_for_syncpoint.go, ChangeFeedID.String() in
# pkg/common/types.go). A transfer there and back between them: the
# balances at each, the final ones as the history has them. Between them,
# points of changefeed other under either form and of cf-sp in keyspace
# ks1: not taken.
test_expect_success 'sync points the new TiCDC wrote: read with the old ones, others'"'"' not taken' '
	transfer $UP 2 3 7 && sync_point new &&
	sync_point old other others && sync_point new other others &&
	sync_point new:ks1 cf-sp others &&
	transfer $UP 3 2 7 && sync_point new &&
	test $(wc -l <points) = 7 &&
	run_dir r8 $UPT $DOWNT 2 && check r8 &&
	test $rc = 0 &&
	sed -n "6,7p" points | sed -e "s|$| 400/4 400/4 pass|" >want &&
	points r8 >got && test_cmp want got &&
	set -- $(sed -n 7p points) &&
	test "$(field r8 message)" = "$BASE; the total 400 and equal balances at 2 sync points of changefeed cf-sp, the last at primary_ts $1, secondary_ts $2" &&
	test "$(field r8 numbers)" = "$NUMS syncpoints=2 syncpoints_differing=0 syncpoints_unread=0" &&
	run_dir r9 $UPT $DOWNT 3 && check r9 &&
	test $rc = 1 &&
	set -- $(sed -n 5p points) &&
	echo "$1 $2 400/4 295/3 fail" >want &&
	sed -n "6,7p" points | sed -e "s|$| 400/4 400/4 pass|" >>want &&
	points r9 >got && test_cmp want got &&
	test "$(field r9 numbers)" = "$NUMS syncpoints=3 syncpoints_differing=1 syncpoints_unread=0"
'

test_expect_success 'changefeed other: its 2 points, one under each form' '
	run_dir r10 $UPT $DOWNT 10 other && check r10 &&
	test $rc = 0 &&
	sed -n "1,2p" others | sed -e "s|$| 400/4 400/4 pass|" >want &&
	points r10 >got && test_cmp want got &&
	test "$(field r10 numbers)" = "$NUMS syncpoints=2 syncpoints_differing=0 syncpoints_unread=0"
'

test_done
