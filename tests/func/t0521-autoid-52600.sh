#!/bin/sh
# TiDB issue 52600 end to end: suites/autoid_leader_switch.yaml, unchanged,
# on two fake TiDB servers whose AUTO_ID_CACHE=1 ids come from a model of
# TiDB's autoid service, elected in the local cluster's real etcd.
#
# Each fake TiDB is tests/helpers/fake-tidb-sql.pl --autoid in front of
# the local cluster's up-0 (its SQL side, MariaDB holding the rows) and
# tests/helpers/fake-autoid on its status port (its autoid service and
# the service's client, in Go on etcd's own client and concurrency
# package). The model follows pingcap/tidb:
# - pkg/autoid_service/autoid.go at 0267517fafcd: the leader's per-table
#   map of ranges (base, end], alloc4Signed taking a range of 4000
#   (batch) and writing its end before handing out any id of it,
#   allocAutoID refusing "not leader" unless IsOwner(), newWithCli's
#   CampaignOwner(10); ownerListener.OnBecomeOwner clearing the map, the
#   fix of pingcap/tidb#52602 (-map reset), or not, the bug (-map keep);
# - pkg/owner/manager.go at 00aaecbd8a05: campaignLoop campaigning
#   under "tidb/autoid/leader" with the server's address, watchOwner
#   returning when the key is deleted, RetireOwner, and the campaign
#   again on the same session;
# - pkg/meta/autoid/autoid_service.go at 057a32a5bfed: a TiDB asks the
#   first-created candidate's address and keeps asking it until an "rpc
#   error" (the refusal), then ResetConn, a backoff of 400 ms, etcd again.
# With the bug the suite exits 1, the ids check naming the id that went
# back and the resigns between; with the fix it passes (exit 0), and the
# run says in one line that TiDB v7.5.2 has the fix.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd etcdctl

FAKE_AUTOID="$ROOT/tests/helpers/fake-autoid/fake-autoid"
[ -x "$FAKE_AUTOID" ] || { echo "Bail out! $FAKE_AUTOID is not built (make unit-tests)"; exit 1; }

T="$TRASH/two-tidbs.yaml"
SUITE="$ROOT/suites/autoid_leader_switch.yaml"
LEADER=tidb/autoid/leader

# stop_tidbs: the fake TiDBs stopped, by pid (SIGTERM: each fake-autoid
# revokes its lease, so it leaves no candidate behind).
stop_tidbs() {
	for p in ${tidb_pids:-}; do
		kill -TERM "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	tidb_pids=
}

# tidbs MAP VERSION: the two fake TiDBs, their autoid service keeping
# (keep: the bug) or clearing (reset: the fix) its map when it becomes the
# leader, saying VERSION. tidb-0's service is started first and leads
# before tidb-1's campaigns; the ids and the schema of a run before are
# gone from etcd. Logs: $TRASH/autoid-MAP-N.log, $TRASH/sql-MAP-N.log.
tidbs() {
	stop_tidbs &&
	etcdctl --endpoints "$E" del --prefix fake-tidb/ >/dev/null &&
	test -z "$(etcdctl --endpoints "$E" get --prefix $LEADER --keys-only)" ||
		return 1
	for i in 0 1; do
		eval "st=\$st_$i sq=\$sq_$i"
		"$FAKE_AUTOID" -etcd "$E" -listen "127.0.0.1:$st" -map "$1" \
			-version "$2" >"$TRASH/autoid-$1-$i.log" 2>&1 &
		tidb_pids="$tidb_pids $!"
		test_track_pid $!
		if [ $i = 0 ]; then
			wait_for_condition 10 "grep -q ' become owner$' '$TRASH/autoid-$1-0.log'"
		else
			wait_for_condition 10 "grep -q ' campaign ' '$TRASH/autoid-$1-1.log'"
		fi || { cat "$TRASH/autoid-$1-$i.log"; return 1; }
		perl "$ROOT/tests/helpers/fake-tidb-sql.pl" --listen "$sq" \
			--to "$UP" --version "$2" --autoid "http://127.0.0.1:$st" \
			2>"$TRASH/sql-$1-$i.log" &
		tidb_pids="$tidb_pids $!"
		test_track_pid $!
		wait_for_condition 5 "listening $sq" || return 1
	done
}

# run OUT: the suite on the two fake TiDBs into $TRASH/OUT; its exit
# status in $rc, the TAP in OUT.tap, stderr in OUT.err.
run() {
	"$TICHAOS" run "$SUITE" --cluster "$T" --out "$TRASH/$1" \
		>"$TRASH/$1.tap" 2>"$TRASH/$1.err"
	rc=$?
}

test_cluster_setup 'set up: a local cluster; a topology of two fake TiDBs and its etcd' '
	E="http://127.0.0.1:$(port_of "$C" etcd-0)" &&
	take_port sq_0 && take_port st_0 && take_port sq_1 && take_port st_1 &&
	{
		for i in 0 1; do
			eval "st=\$st_$i sq=\$sq_$i"
			printf "%s\n" "  - name: \"tidb-$i\"" "    roles: [upstream]" \
				"    sql: \"127.0.0.1:$sq\"" \
				"    http_url: \"http://127.0.0.1:$st/status\""
		done
		printf "%s\n" "  - name: \"etcd-0\"" "    roles: [etcd]" \
			"    etcd_url: \"$E\""
	} >items &&
	{ echo "cluster: static" && echo "components:" && cat items; } >"$T"
'

test_expect_success 'the model: tidb-0 leads, ids from its range through both TiDBs' '
	tidbs keep 8.0.11-TiDB-v7.5.1 &&
	test "$(etcdctl --endpoints "$E" get --prefix $LEADER --print-value-only | head -n 1)" = "127.0.0.1:$st_0" &&
	sql $sq_0 "CREATE DATABASE IF NOT EXISTS m; DROP TABLE IF EXISTS m.t;
		CREATE TABLE m.t (id int primary key auto_increment, k int) AUTO_ID_CACHE=1" &&
	sql $sq_0 "INSERT INTO m.t (k) VALUES (1); SELECT LAST_INSERT_ID()" >got &&
	sql $sq_1 "INSERT INTO \`m\`.\`t\` (\`k\`) VALUES (2)" &&
	sql $sq_1 "INSERT INTO m.t (id, k) VALUES (100, 3)" &&
	sql $UP "SELECT id, k FROM m.t ORDER BY id" >>got &&
	printf "%s\n" 0 "1	1" "2	2" "100	3" >expect &&
	test_cmp expect got &&
	grep -q "rewrite: CREATE TABLE m.t (id int primary key auto_increment, k int) AUTO_ID_CACHE=1 -> CREATE TABLE m.t (id int primary key auto_increment, k int) $" "$TRASH/sql-keep-0.log" &&
	grep -q "rewrite: INSERT INTO \`m\`.\`t\` (\`k\`) VALUES (2) -> INSERT INTO \`m\`.\`t\` (\`id\`, \`k\`) VALUES (2, 2)$" "$TRASH/sql-keep-1.log" &&
	grep -q " alloc4Signed table [0-9]* from base 0 end 0 to base 0 end 4000$" "$TRASH/autoid-keep-0.log" &&
	! grep -q alloc4Signed "$TRASH/autoid-keep-1.log"
'

# The id that went back, X, was handed out by tidb-0 from the range it
# held when it first lost the lead (up to its end, E); the id before it,
# Y, by tidb-1 past E. The message is the ids check's (checkers/ids.c):
# both inserts with their SQL node and time, then what happened between,
# here the resign's two rounds by the leaders' addresses.
test_expect_success 'the bug (-map keep): exit 1, the id that went back and the resigns named' '
	tidbs keep 8.0.11-TiDB-v7.5.1 &&
	run bug &&
	{ test $rc = 1 || { cat bug.tap bug.err; false; }; } &&
	grep -qx "ok 2 - fault 1 resign: 2 of 2 injected" bug.tap &&
	grep -qx "not ok 3 - ids" bug.tap &&
	result bug "\$c->{message}" >msg &&
	grep -Eq "^test\.t: id [0-9]+ \(tidb-[01], invoked [0-9]+\.[0-9]{3}s\) after id [0-9]+ \(tidb-[01], done [0-9]+\.[0-9]{3}s\); between: (.*, )?resign autoid 127\.0\.0\.1:$st_0 -> 127\.0\.0\.1:$st_1 -> 127\.0\.0\.1:$st_0 (at|from) [0-9.]+s" msg ||
	{ cat msg; false; } &&
	x=$(sed -E "s/^test\.t: id ([0-9]+) .*/\1/" msg) &&
	y=$(sed -E "s/.* after id ([0-9]+) .*/\1/" msg) &&
	e=$(sed -n -e "/ retire owner$/q" -e "s/.* alloc4Signed .* end \([0-9]*\)$/\1/p" \
		"$TRASH/autoid-keep-0.log" | tail -n 1) &&
	echo "x=$x y=$y e=$e" && test "$x" -le "$e" && test "$y" -gt "$e" &&
	result bug "\$c->{numbers}" | grep -Eq "^inserts=[0-9]+ violations=[1-9][0-9]* duplicates=0 refused=0$" &&
	test "$(grep -c " this node become owner (map kept)$" "$TRASH/autoid-keep-0.log")" -ge 3
'

# Each server clears its map when it leads: back, tidb-0 takes a new range
# from the end tidb-1 wrote, and no id goes back. TiDB v7.5.2 has the fix,
# and the run says so.
test_expect_success 'the fix (-map reset): exit 0, every id increasing' '
	tidbs reset 8.0.11-TiDB-v7.5.2 &&
	run fix &&
	{ test $rc = 0 || { cat fix.tap fix.err; false; }; } &&
	grep -qx "ok 2 - fault 1 resign: 2 of 2 injected" fix.tap &&
	grep -Eqx "ok 3 - ids: 1 table, [0-9]+ inserts: ids unique and increasing" fix.tap &&
	grep -qx "# tidb-0 runs 8.0.11-TiDB-v7.5.2, which has the fix of TiDB issue 52600 (TiDB v6.5.10, v7.1.5, v7.5.2, v8.1.0): not expected to catch it here" fix.tap &&
	test "$(grep -c " this node become owner (map reset)$" "$TRASH/autoid-reset-0.log")" -ge 3 &&
	awk "/ become owner \\(map reset\\)\$/ { b = 1; next }
		b && / alloc4Signed / { print \$7 \",\" \$9; b = 0 }" \
		"$TRASH/autoid-reset-0.log" >first &&
	test "$(wc -l <first)" -ge 2 && ! grep -v "^0,0$" first
'

# A TiDB restarted campaigns behind its dead process's key, whose lease
# outlives it (60 s, owner.ManagerSessionTTL), as a real TiDB did
# (cd9c676e9ba4, docs/found.md): tidb-0 killed, tidb-1 restarted after
# it, the first resign deletes the dead key and the same server leads
# again, its new process. That is no move away:
# the fault resigns again at once, without its hold, until tidb-1 has led
# and tidb-0 leads again (A -> A, A -> B, B -> A). Inserts waiting on the
# dead leader wait out the client's 5 s (they did on the real TiDB too),
# so each hold is longer than that.
{
	sed -e "s/^duration: .*/duration: 20s/" -e "s/^    hold: .*/    hold: 6s/" \
	    -e "s/^    every: .*//" -e "s/^    count: .*//" \
	    -e "s/^    start_after: .*/    at: [3s]/" \
	    -e "s/^    threads: 4/    threads: 2\n    ignore_errors: true/" "$SUITE"
} >"$TRASH/stale.yaml"

test_expect_success 'a restarted TiDB behind its dead key: A -> A is no move, the resign goes on' '
	tidbs reset 8.0.11-TiDB-v7.5.2 &&
	set -- $tidb_pids && kill -KILL "$1" && kill -TERM "$3" &&
	{ wait "$1" "$3" 2>/dev/null; true; } &&
	for i in 0 1; do
		eval "st=\$st_$i" &&
		"$FAKE_AUTOID" -etcd "$E" -listen "127.0.0.1:$st" -map reset \
			-version 8.0.11-TiDB-v7.5.2 >"$TRASH/autoid-stale-$i.log" 2>&1 &
		tidb_pids="$tidb_pids $!" && test_track_pid $! &&
		wait_for_condition 10 "grep -q \" campaign \" \"$TRASH/autoid-stale-$i.log\"" ||
		return 1
	done &&
	etcdctl --endpoints "$E" get --prefix $LEADER --sort-by=CREATE --order=ASCEND --print-value-only |
		grep . | sed -e "s/127.0.0.1:$st_0/A/" -e "s/127.0.0.1:$st_1/B/" >keys &&
	printf "%s\n" A A B >expect && test_cmp expect keys &&
	"$TICHAOS" run "$TRASH/stale.yaml" --cluster "$T" --out "$TRASH/stale" \
		>stale.tap 2>stale.err
	rc=$? &&
	{ test $rc = 0 || { cat stale.tap stale.err; false; }; } &&
	grep -qx "ok 2 - fault 1 resign: 1 of 1 injected" stale.tap &&
	grep "\"f\":\"resign\"" "$TRASH/stale/history.jsonl" |
		grep -o "{\"from\":\"[^\"]*\",\"to\":\"[^\"]*\",\"ms\":[0-9]*\(,\"held_ms\"\)\?" |
		sed -e "s/\"ms\":[0-9]*/ms/" -e "s/127.0.0.1:$st_0/A/g" -e "s/127.0.0.1:$st_1/B/g" >rounds &&
	printf "%s\n" "{\"from\":\"A\",\"to\":\"A\",ms" \
		"{\"from\":\"A\",\"to\":\"B\",ms,\"held_ms\"" \
		"{\"from\":\"B\",\"to\":\"A\",ms,\"held_ms\"" >expect &&
	test_cmp expect rounds &&
	grep -q " this node become owner (map reset)$" "$TRASH/autoid-stale-0.log"
'

test_done
