#!/bin/sh
# The append check's option syncpoints: every key's list read at TiCDC's
# sync points, the upstream at tidb_snapshot = primary_ts and the
# downstream at secondary_ts; the two must be equal, and no transaction
# of the history may be in the downstream's snapshot in part (TiCDC
# applies an upstream transaction whole at a sync point, or not at all).
# On the stored run tests/data/histories/append-clean (T1 appends 1 to
# key 1 and 2 to key 2; T2 appends 3 to key 1).
#
# TiDB and TiCDC stand in as tests/func/lib-syncpoint.sh says.
. "$(dirname "$0")/test-lib.sh"
. "$ROOT/tests/func/lib-syncpoint.sh"

test_cluster_setup 'set up a cluster and a fake TiDB in front of each side' fake_tidbs

# run_dir DIR SYNCPOINTS: the stored run append-clean, its append check
# with syncpoints: SYNCPOINTS, attached to the fake TiDBs (changefeed
# cf-sp).
run_dir() {
	rm -rf "$1" && cp -R "$DATA/histories/append-clean" "$1" &&
	echo "    syncpoints: $2" >>"$1/suite.yaml" &&
	cat >"$1/topology.yaml" <<-EOF
	cluster: static
	changefeed:
	  id: "cf-sp"
	components:
	  - name: "tidb-up"
	    roles: [upstream]
	    sql: "127.0.0.1:$UPT"
	  - name: "tidb-down"
	    roles: [downstream]
	    sql: "127.0.0.1:$DOWNT"
	EOF
}

# field DIR NAME: the check's NAME (message, verdict) in results.json.
field() {
	perl -MJSON::PP -e '
		my $j = decode_json(do { local $/; <STDIN> });
		print $j->{checks}[0]{$ARGV[0]}, "\n";' "$2" <"$1/results.json"
}

# points DIR: "primary secondary keys differ straddled verdict" of each
# sync point read.
points() {
	perl -MJSON::PP -e '
		my $j = decode_json(do { local $/; <STDIN> });
		print "$_->{primary_ts} $_->{secondary_ts} $_->{keys} $_->{differ} $_->{straddled} $_->{verdict}\n"
			for @{ $j->{checks}[0]{details}{syncpoints} };' <"$1/results.json"
}

BASE="3 ok, 0 failed, 0 unknown transactions over 2 keys: no anomaly snapshot-isolation forbids"

test_expect_success 'the lists as the history made them, a sync point after each transaction' '
	sql $UP "CREATE DATABASE append;
		CREATE TABLE append.l_a (id INT PRIMARY KEY, v TEXT) WITH SYSTEM VERSIONING;
		CREATE TABLE append.l_b (id INT PRIMARY KEY, v TEXT) WITH SYSTEM VERSIONING;
		BEGIN; INSERT INTO append.l_a VALUES (1, \"1\");
		INSERT INTO append.l_b VALUES (2, \"2\"); COMMIT" &&
	sync_point &&
	sql $UP "UPDATE append.l_a SET v = CONCAT(v, \",3\") WHERE id = 1" &&
	sync_point &&
	test $(wc -l <points) = 2
'

test_expect_success 'syncpoints 10 with 2 recorded: equal lists, no transaction straddling' '
	run_dir r1 10 && check r1 &&
	test $rc = 0 || { cat r1.tap r1.err; false; }
	sed -e "s|$| 2 0 0 pass|" points >want &&
	points r1 >got && test_cmp want got &&
	set -- $(sed -n 2p points) &&
	test "$(field r1 message)" = "$BASE; equal lists and no transaction straddling at 2 sync points of changefeed cf-sp, the last at primary_ts $1, secondary_ts $2"
'

# The downstream with T1 applied in part at a point, whole again by the
# end: only that point shows it.
test_expect_success 'a transaction in part downstream at a sync point: straddled, named with its appends' '
	sql $DOWN "SET SESSION sql_log_bin = 0; DELETE FROM append.l_b WHERE id = 2" &&
	sync_point &&
	sql $DOWN "SET SESSION sql_log_bin = 0; INSERT INTO append.l_b VALUES (2, \"2\")" &&
	run_dir r2 1 && check r2 &&
	test $rc = 1 &&
	grep -qx "not ok 1 - append" r2.tap &&
	set -- $(sed -n 3p points) &&
	echo "$1 $2 2 1 1 fail" >want && points r2 >got && test_cmp want got &&
	test "$(field r2 message)" = "at sync point primary_ts $1, secondary_ts $2: T(line 2, process 0) straddles it: 1 of its 2 appends downstream (1 to key 1 there, 2 to key 2 not); key 2: downstream [], upstream [2] (1 of 1 sync points of changefeed cf-sp fail); the history: $BASE"
'

test_expect_success 'syncpoints on a side that is not TiDB: unknown, saying which' '
	run_dir r3 1 && sed -i -e "s/127.0.0.1:$DOWNT/127.0.0.1:$DOWN/" r3/topology.yaml &&
	check r3 && test $rc = 3 &&
	v=$(sql $DOWN "SELECT VERSION()") &&
	test "$(field r3 message)" = "syncpoints: tidb-down is not TiDB ($v): TiCDC records sync points only in a TiDB downstream"
'

test_done
