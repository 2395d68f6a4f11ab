#!/bin/sh
# Supervised components (docs/topology.md, supervisor): a real etcd run by
# tests/helpers/supervise.pl, which behaves as systemd does a unit with
# Restart=always and RestartSec (as tiup cluster deploys every server;
# its comments cite systemd.service(5) and systemd's service.c for each
# behaviour), here with a delay of 3 s. tichaos never starts a copy of
# its own beside the supervisor's: a kill is waited for as the new pid
# the supervisor starts; a kill whose down outlasts the delay holds the
# unit stopped through the supervisor's stop and starts it through its
# start; an exit of its own is still one, though the supervisor brings
# it back; `cluster stop` and `start` go through the supervisor.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

S="$TRASH/sup"
SUP="$ROOT/tests/helpers/supervise.pl"
T2="$TRASH/sup.yaml"

test_cluster_setup 'set up: a cluster, and an etcd under a supervisor that restarts it 3 s after it ends' '
	take_port sc && take_port sp && mkdir -p "$S" &&
	{ setsid perl "$SUP" run "$S" 3 -- etcd --name s0 \
		--data-dir "$S/data" \
		--listen-client-urls "http://127.0.0.1:$sc" \
		--advertise-client-urls "http://127.0.0.1:$sc" \
		--listen-peer-urls "http://127.0.0.1:$sp" \
		--initial-advertise-peer-urls "http://127.0.0.1:$sp" \
		--initial-cluster "s0=http://127.0.0.1:$sp" \
		>>"$S/etcd.log" 2>&1 & } &&
	test_track_group $! &&
	sed -e "s/^cluster: local$/cluster: static/" -e "/^port_base:/d" \
		"$T" >"$T2" &&
	cat >>"$T2" <<-EOF &&
	  - name: sup-0
	    etcd_url: "http://127.0.0.1:$sc"
	    pid_command: "cat $S/main.pid"
	    log: "$S/etcd.log"
	    supervisor:
	      restart_sec: 3s
	      stop: [perl, "$SUP", stop, "$S"]
	      start: [perl, "$SUP", start, "$S"]
	EOF
	wait_for_condition 60 "\"\$TICHAOS\" validate --cluster \"$T2\" 2>&1 | grep -qx \"ok sup-0: running, answers\""
'

# journal_since N: the supervisor's journal after its first N lines,
# without the times.
journal_since() {
	tail -n "+$(($1 + 1))" "$S/journal" | sed -e "s/^[0-9.]* //"
}

# restarted RUN: the restart record's "restarted" member, ready_ms as N.
restarted() {
	grep "\"type\":\"info\",\"f\":\"restart\"" "$TRASH/$1/history.jsonl" |
	sed -e "s/.*\"restarted\":\(\[[^]]*\]\).*/\1/" \
	    -e "s/\"ready_ms\":[0-9]*/\"ready_ms\":N/"
}

{
	insert_suite short 8s 1 sup 50
	cat <<-END
	faults:
	  - kind: kill
	    target: sup-0
	    at: [1s]
	    down: 1s
	END
} >"$TRASH/short.yaml"

test_expect_success 'a kill shorter than its delay: the supervisor restarts it, awaited, no copy started' '
	before=$(cat "$S/main.pid") && n=$(wc -l <"$S/journal") &&
	{ "$TICHAOS" run "$TRASH/short.yaml" --cluster "$T2" --out "$TRASH/r1" >tap 2>err ||
	{ cat tap err; false; }; } &&
	after=$(cat "$S/main.pid") && test "$after" != "$before" &&
	grep -qx "ok 2 - fault 1 kill: 1 of 1 injected, 1 healed" tap &&
	! grep " - exit " tap &&
	grep -q "\"f\":\"kill\",.*\"value\":{\"signal\":\"KILL\",\"killed\":\[{\"component\":\"sup-0\",\"pid\":$before}\],\"took_ms\":[0-9]*}" "$TRASH/r1/history.jsonl" &&
	echo "[{\"component\":\"sup-0\",\"pid\":$after,\"ready_ms\":N,\"supervisor\":\"restarted\"}]" >expect &&
	restarted r1 >actual && test_cmp expect actual &&
	printf "exited %s 9, restart in 3 s\nrestarting\nstarted %s\n" "$before" "$after" >expect &&
	journal_since "$n" >actual && test_cmp expect actual
'

{
	insert_suite long 12s 1 sup 50
	cat <<-END
	faults:
	  - kind: kill
	    target: sup-0
	    at: [1s]
	    down: 6s
	END
} >"$TRASH/long.yaml"

test_expect_success 'a kill longer than its delay: held stopped through the supervisor for its down, then started through it' '
	before=$(cat "$S/main.pid") && n=$(wc -l <"$S/journal") &&
	{ "$TICHAOS" run "$TRASH/long.yaml" --cluster "$T2" --out "$TRASH/r2" >tap 2>err ||
	{ cat tap err; false; }; } &&
	after=$(cat "$S/main.pid") && test "$after" != "$before" &&
	grep -qx "ok 2 - fault 1 kill: 1 of 1 injected, 1 healed" tap &&
	! grep " - exit " tap &&
	grep -q "\"f\":\"kill\",.*\"value\":{\"signal\":\"KILL\",\"killed\":\[{\"component\":\"sup-0\",\"pid\":$before}\],\"held\":\[\"sup-0\"\],\"took_ms\":[0-9]*}" "$TRASH/r2/history.jsonl" &&
	echo "[{\"component\":\"sup-0\",\"pid\":$after,\"ready_ms\":N,\"supervisor\":\"started\"}]" >expect &&
	restarted r2 >actual && test_cmp expect actual &&
	printf "exited %s 9, restart in 3 s\nstop\nstopped\nstart\nstarted %s\n" "$before" "$after" >expect &&
	journal_since "$n" >actual && test_cmp expect actual &&
	held=$(tail -n "+$((n + 1))" "$S/journal" |
		awk "/ stop\$/ { s = \$1 } / start\$/ { print int(\$1 - s) }") &&
	test "$held" -ge 4
'

insert_suite alone 10s 1 sup 50 >"$TRASH/alone.yaml"

test_expect_success 'an exit of its own is one, though its supervisor brings it back' '
	: >tap && : >err && n=$(wc -l <"$S/journal") &&
	{ "$TICHAOS" run "$TRASH/alone.yaml" --cluster "$T2" --out "$TRASH/r3" >tap 2>err & } &&
	run=$! && test_track_pid $run &&
	wait_for_condition 60 "grep -q \"\\\"type\\\":\\\"ok\\\"\" \"$TRASH/r3/history.jsonl\"" &&
	pid=$(cat "$S/main.pid") && kill -KILL $pid &&
	{ wait $run; test $? = 1; } &&
	grep -Eqx "not ok 2 - exit sup-0: sup-0 ended on its own 1 time, first [0-9]+\.[0-9]s in \(pid $pid\), not ended by tichaos" tap &&
	wait_for_condition 30 "journal_since $n | grep -q \"^started \"" &&
	printf "exited %s 9, restart in 3 s\nrestarting\n" "$pid" >expect &&
	journal_since "$n" | head -n 2 >actual && test_cmp expect actual ||
	{ cat tap err; false; }
'

# As `systemctl start` of a unit waiting to restart waits for that
# restart, `cluster start` of one just killed starts no copy of its own.
test_expect_success 'cluster kill, then start: through the supervisor, one process' '
	wait_for_condition 60 "\"\$TICHAOS\" validate --cluster \"$T2\" 2>&1 | grep -qx \"ok sup-0: running, answers\"" &&
	before=$(cat "$S/main.pid") && n=$(wc -l <"$S/journal") &&
	"$TICHAOS" cluster kill sup-0 --cluster "$T2" &&
	! alive "$before" &&
	"$TICHAOS" cluster start sup-0 --cluster "$T2" &&
	after=$(cat "$S/main.pid") && alive "$after" &&
	printf "exited %s 9, restart in 3 s\nstart\nrestarting\nstarted %s\n" "$before" "$after" >expect &&
	journal_since "$n" >actual && test_cmp expect actual &&
	"$TICHAOS" validate --cluster "$T2" >out 2>&1 &&
	grep -qx "ok sup-0: running, answers" out
'

{
	insert_suite skew 5s 1 sup 50
	cat <<-END
	faults:
	  - kind: clock
	    target: sup-0
	    method: restart
	    offset: 1h
	    at: [1s]
	    down: 1s
	END
} >"$TRASH/skew.yaml"

test_expect_success 'a fault that restarts its target itself refuses a supervised one, before any fault' '
	{ "$TICHAOS" run "$TRASH/skew.yaml" --cluster "$T2" --out "$TRASH/r6" >out 2>err; test $? = 2; } &&
	grep -qx "tichaos: $TRASH/skew.yaml:14:13: fault '\''clock'\'': sup-0 is started by its supervisor, and method restart starts it under libfaketime itself (method live moves it where it runs)" err &&
	! grep -q "\"f\":\"clock\"" "$TRASH/r6/history.jsonl"
'

# A supervisor that does not restart it (stopped here): the heal waits
# its delay and the cluster's timeout, then names it.
sed -e "s/^cluster: static$/&\ntimeout: 5s/" "$T2" >"$TRASH/short-timeout.yaml"

test_expect_success 'a supervisor that does not bring it back: the heal fails naming it, exit 3' '
	sup=$(cat "$S/supervisor.pid") && kill -STOP "$sup" &&
	"$TICHAOS" run "$TRASH/short.yaml" --cluster "$TRASH/short-timeout.yaml" --out "$TRASH/r7" >tap 2>err
	rc=$? && kill -CONT "$sup" &&
	test "$rc" = 3 &&
	grep -qx "not ok 2 - fault 1 kill: 1 of 1 injected, 0 healed, 1 heals failed" tap &&
	grep -Eqx "  message: \"sup-0: its supervisor did not start it again within 8s \(its delay 3s, then the cluster.s timeout\); last log line: .*\"" tap &&
	wait_for_condition 30 "\"\$TICHAOS\" validate --cluster \"$T2\" 2>&1 | grep -qx \"ok sup-0: running, answers\"" ||
	{ kill -CONT "$sup"; cat tap err; false; }
'

# bad NAME SUPERVISOR...: a topology of one component under `supervisor:`
# with the lines given, and a pid source unless SUPERVISOR says nopid.
bad() {
	test_bad_=$1
	shift
	{
		echo "components:"
		echo "  - name: s"
		echo "    etcd_url: \"http://127.0.0.1:1\""
		[ "$1" = nopid ] && shift || echo "    pid_command: \"echo 0\""
		[ "$1" = start ] && shift && echo "    start: [etcd]"
		echo "    supervisor:"
		for test_l_ in "$@"; do
			echo "      $test_l_"
		done
	} >"$test_bad_.yaml"
}

test_expect_success 'a supervisor that cannot be: one line each, at its place, exit 2' '
	: >err &&
	bad both start "restart_sec: 1s" "stop: [a]" "start: [b]" &&
	bad nopid nopid "restart_sec: 1s" "stop: [a]" "start: [b]" &&
	bad nodelay "stop: [a]" "start: [b]" &&
	bad when "restart_sec: soon" "stop: [a]" "start: [b]" &&
	bad typo "restart_sec: 1s" "stop: [a]" "start: [b]" "restart: 1s" &&
	bad empty "restart_sec: 1s" "stop: []" "start: [b]" &&
	for f in both nopid nodelay when typo empty; do
		{ "$TICHAOS" validate --cluster $f.yaml >/dev/null 2>>err; test $? = 2; } || return 1
	done &&
	cat >expect <<-\EOF &&
	tichaos: both.yaml:7:7: component '\''s'\'': its supervisor starts it; give its start there, not start
	tichaos: nopid.yaml:5:7: component '\''s'\'': a supervised component needs a pid source (pid_command, pidfile or status_pid): its restart is told by a new pid
	tichaos: nodelay.yaml:6:7: supervisor needs restart_sec
	tichaos: when.yaml:6:20: restart_sec must be a duration such as 15s
	tichaos: typo.yaml:9:7: unknown key '\''restart'\'' in supervisor (did you mean '\''start'\''?)
	tichaos: empty.yaml:7:13: supervisor stop must be a non-empty list (an argv: program and arguments)
	EOF
	test_cmp expect err
'

test_expect_success 'validate: a supervisor whose start is not there' '
	bad gone "restart_sec: 1s" "stop: [/nonexistent/systemctl, stop, s]" \
		"start: [/nonexistent/systemctl, start, s]" &&
	{ "$TICHAOS" validate --cluster gone.yaml >out 2>err; test $? = 2; } &&
	grep -qx "tichaos: gone.yaml: s: supervisor start: '\''/nonexistent/systemctl'\'' is not there" err
'

test_done
