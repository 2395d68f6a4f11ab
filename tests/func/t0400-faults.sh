#!/bin/sh
# Faults on real servers: kill and restart the cdc role, pause a server,
# move etcd elections with resign, tamper with the downstream; each one
# verified, healed, and told exactly in the history.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

CAMPAIGNER="$ROOT/tests/helpers/campaigner"
[ -x "$CAMPAIGNER" ] || { echo "Bail out! $CAMPAIGNER is not built (make unit-tests)"; exit 1; }

test_cluster_setup 'set up a cluster to attach to'
E="http://127.0.0.1:$(port_of "$C" etcd-0)"

# nemesis RUN F TYPE: the nemesis records of F with TYPE, one per line.
nemesis() {
	grep "\"process\":\"nemesis\"" "$1/history.jsonl" |
	grep "\"type\":\"$3\"" | grep "\"f\":\"$2\""
}

suite() {
	name=$1
	shift
	cat >"$TRASH/$name.yaml" <<EOF
name: $name
duration: ${DURATION:-8s}
seed: 3
database: f
tables:
  - name: t_{1..2}
    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
workloads:
  - kind: insert
    tables: t_{1..2}
    rate: 400
    ignore_errors: true
faults:
EOF
	cat >>"$TRASH/$name.yaml"
}

suite kill <<EOF
  - kind: kill
    target: cdc
    every: 2s
    start_after: 1s
    count: 3
    down: 1s
EOF

test_expect_success 'kill cdc three times during inserts: 3 kills, 3 restarts' '
	"$TICHAOS" run "$TRASH/kill.yaml" --cluster "$T" --out "$TRASH/r1" >tap 2>err ||
	{ cat err; false; } &&
	grep -qx "ok 2 - fault 1 kill: 3 of 3 injected, 3 healed" tap &&
	test "$(nemesis "$TRASH/r1" kill info | wc -l)" = 3 &&
	test "$(nemesis "$TRASH/r1" restart info | wc -l)" = 3 &&
	test "$(nemesis "$TRASH/r1" kill info | grep -c "\"component\":\"down-0\"")" = 3
'

test_expect_success 'each kill took the pid the previous restart gave: all distinct' '
	nemesis "$TRASH/r1" kill info | sed -e "s/.*\"pid\":\([0-9]*\).*/\1/" >killed &&
	nemesis "$TRASH/r1" restart info | sed -e "s/.*\"pid\":\([0-9]*\).*/\1/" >restarted &&
	test "$(sort -u killed restarted | wc -l)" = 4 &&
	test "$(sed -n 2,3p killed)" = "$(sed -n 1,2p restarted)" &&
	test "$(tail -n 1 restarted)" = "$(cat "$C/down-0/tichaos.pid")"
'

test_expect_success 'replication caught up after the kills: same rows both sides' '
	for t in t_1 t_2; do
		want=$(sql "$UP" "select count(*), sum(id) from f.$t") &&
		test "${want%%	*}" -gt 100 &&
		wait_for_condition 30 "test \"\$(sql $DOWN \"select count(*), sum(id) from f.$t\")\" = \"$want\"" || return 1
	done
'

test_expect_success 'the attached cluster is left running' '
	"$TICHAOS" cluster status --cluster "$T" >/dev/null
'

DURATION=12s suite pause <<EOF
  - kind: pause
    target: up-0
    at: [1s]
    down: 7s
EOF

test_expect_success 'pause the upstream past the clients timeout: info, then recovery' '
	"$TICHAOS" run "$TRASH/pause.yaml" --cluster "$T" --out "$TRASH/r2" >tap 2>err ||
	{ cat err; false; } &&
	grep -qx "ok 2 - fault 1 pause: 1 of 1 injected, 1 healed" tap &&
	nemesis "$TRASH/r2" pause info | grep -q "\"paused\":\[{\"component\":\"up-0\"" &&
	nemesis "$TRASH/r2" continue info | grep -q "\"continued\":\[{\"component\":\"up-0\"" &&
	cont=$(nemesis "$TRASH/r2" continue info | sed -e "s/^{\"time\":\([0-9]*\).*/\1/") &&
	grep "\"f\":\"insert\"" "$TRASH/r2/history.jsonl" | grep -c "\"type\":\"info\"" >infos &&
	test "$(cat infos)" -ge 1 &&
	grep "\"type\":\"ok\",\"f\":\"insert\"" "$TRASH/r2/history.jsonl" |
		sed -e "s/^{\"time\":\([0-9]*\).*/\1/" |
		awk -v c="$cont" "\$1 > c { n++ } END { exit !(n > 100) }" &&
	test "$(sed -e "s/.*) //" "/proc/$(cat "$C/up-0/tichaos.pid")/stat" | cut -c1)" != T
'

"$CAMPAIGNER" "$E" /tichaos-test/el A >"$TRASH/A.log" 2>&1 &
A=$!
test_track_pid $A
wait_for_condition 5 "grep -q become $TRASH/A.log"
"$CAMPAIGNER" "$E" /tichaos-test/el B >"$TRASH/B.log" 2>&1 &
B=$!
test_track_pid $B
wait_for_condition 5 "grep -q campaign $TRASH/B.log"

DURATION=4s suite back <<EOF
  - kind: resign
    election: /tichaos-test/el
    at: [1s]
    until_back: true
EOF

test_expect_success 'resign until_back moves the leadership A -> B (-> B) -> A' '
	"$TICHAOS" run "$TRASH/back.yaml" --cluster "$T" --out "$TRASH/r3" >tap 2>err ||
	{ cat err; false; } &&
	grep -qx "ok 2 - fault 1 resign: 1 of 1 injected" tap &&
	nemesis "$TRASH/r3" resign info >info &&
	grep -q "\"from\":\"A\",\"rounds\":\[{\"from\":\"A\",\"to\":\"B\",\"ms\":[0-9]*}" info &&
	grep -q "{\"from\":\"B\",\"to\":\"A\",\"ms\":[0-9]*}\],\"to\":\"A\"" info &&
	test "$(grep -c become "$TRASH/A.log")" -ge 2
'

# The monitor's owner changes, one per line: "FROM TO" (null: no owner).
owners() {
	grep "\"process\":\"monitor\"" "$1/history.jsonl" |
	perl -MJSON::PP -ne "
		my \$v = decode_json(\$_)->{value};
		print join(q( ), map { \$_ // q(null) }
			@{\$v}{qw(from to to_component)}), qq(\\n);
	"
}

test_expect_success 'the monitor saw every owner, however brief: A, B, A' '
	owners "$TRASH/r3" >owners &&
	head -n 1 owners | grep -qx "null A null" &&
	! grep -v " null\$" owners &&
	awk "NR > 1 && \$1 != prev { bad = 1 } { prev = \$2 } END { exit bad }" owners &&
	awk "\$2 != \"null\" && \$2 != last { print \$2; last = \$2 }" owners |
		tr "\n" " " >leaders &&
	test "$(cat leaders)" = "A B A "
'

DURATION=3s suite revoke <<EOF
  - kind: resign
    election: /tichaos-test/el
    lease: revoke
    at: [1s]
EOF

test_expect_success 'resign with lease: revoke moves it once: A -> B' '
	"$TICHAOS" run "$TRASH/revoke.yaml" --cluster "$T" --out "$TRASH/r4" >tap 2>err ||
	{ cat err; false; } &&
	nemesis "$TRASH/r4" resign info | grep -q "\"from\":\"A\",\"rounds\":\[{\"from\":\"A\",\"to\":\"B\",\"ms\":[0-9]*}\],\"to\":\"B\""
'

DURATION=3s suite nobody <<EOF
  - kind: resign
    election: /tichaos-test/nobody
    at: [1s]
EOF

test_expect_success 'resign of an election without owner did not take effect: exit 3' '
	"$TICHAOS" run "$TRASH/nobody.yaml" --cluster "$T" --out "$TRASH/r5" >tap 2>err
	test $? = 3 &&
	grep -qx "not ok 2 - fault 1 resign: 0 of 1 injected, 1 did not take effect" tap &&
	grep -qx "  message: \"no owner in election '\''/tichaos-test/nobody'\''\"" tap &&
	nemesis "$TRASH/r5" resign fail | grep -q "\"error\":\"no owner in election '\''/tichaos-test/nobody'\''\"" &&
	grep -qx "tichaos: a fault did not take effect, a heal failed or a check could not decide (see the TAP diagnostics)" err
'

DURATION=4s suite tamper <<EOF
  - kind: tamper
    table: t_1
    delete: 7
    update: 3
    insert: 2
    at: [3s]
EOF

test_expect_success 'tamper changes exactly the recorded keys downstream' '
	"$TICHAOS" run "$TRASH/tamper.yaml" --cluster "$T" --out "$TRASH/r6" >tap 2>err ||
	{ cat err; false; } &&
	nemesis "$TRASH/r6" tamper info >info &&
	deleted=$(sed -e "s/.*\"deleted\":\[\([0-9,]*\)\].*/\1/" info) &&
	updated=$(sed -e "s/.*\"updated\":\[\([0-9,]*\)\].*/\1/" info) &&
	inserted=$(sed -e "s/.*\"inserted\":\[\([0-9,]*\)\].*/\1/" info) &&
	test "$(echo "$deleted" | tr , "\n" | wc -l)" = 7 &&
	test "$(echo "$updated" | tr , "\n" | wc -l)" = 3 &&
	test "$(echo "$inserted" | tr , "\n" | wc -l)" = 2 &&
	wait_for_condition 20 "test \"\$(sql $DOWN \"select count(*) from f.t_1 where id in ($inserted)\")\" = 2" &&
	up=$(sql "$UP" "select count(*) from f.t_1") &&
	wait_for_condition 20 "test \"\$(sql $DOWN \"select count(*) from f.t_1\")\" = $((up - 7 + 2))" &&
	test "$(sql "$UP" "select count(*) from f.t_1 where id in ($deleted)")" = 7 &&
	test "$(sql "$DOWN" "select count(*) from f.t_1 where id in ($deleted)")" = 0 &&
	test "$(sql "$DOWN" "select count(*) from f.t_1 where id in ($updated) and data = \"tampered\"")" = 3 &&
	test "$(sql "$UP" "select count(*) from f.t_1 where id in ($updated) and data = \"tampered\"")" = 0 &&
	test "$(sql "$UP" "select count(*) from f.t_1 where id in ($inserted)")" = 0
'

DURATION=30s suite interrupted <<EOF
  - kind: kill
    target: down-0
    at: [1s]
    down: 60s
EOF

test_expect_success 'SIGINT during the down time: healed, exit 4' '
	"$TICHAOS" run "$TRASH/interrupted.yaml" --cluster "$T" --out "$TRASH/r7" >tap 2>err &
	run=$! && test_track_pid $run &&
	wait_for_condition 20 "grep -q \"\\\"f\\\":\\\"kill\\\".*\\\"type\\\":\\\"info\\\"\" $TRASH/r7/history.jsonl 2>/dev/null || grep -q \"\\\"type\\\":\\\"info\\\",\\\"f\\\":\\\"kill\\\"\" $TRASH/r7/history.jsonl" &&
	kill -INT $run &&
	{ wait $run; test $? = 4; } &&
	nemesis "$TRASH/r7" restart info | grep -q "\"component\":\"down-0\"" &&
	"$TICHAOS" cluster status --cluster "$T" >/dev/null
'

test_done
