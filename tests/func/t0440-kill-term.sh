#!/bin/sh
# kill with signal TERM is a graceful stop, waited for, as TiCDC's
# integration tests stop a capture (tests/integration_tests/_utils/
# kill_cdc_pid in pingcap/tiflow: TERM, again every 0.5 s while the process
# lives, at most 10 s). A server that stops on TERM: its record says how
# long the stop took, one or more TERMs, not escalated (within 10 s). A process that
# ignores TERM: TERM at 0 and at 500 ms, then KILL at term_wait (1 s),
# escalated; both are restarted after `down`.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

T="$TRASH/topology.yaml"

# suite NAME TARGET WAIT: 6 s of inserts; a TERM of TARGET at 1 s,
# restarted after 2 s, waiting at most WAIT for the exit.
suite() {
	{
		insert_suite "$1" 6s 3 term 100
		cat <<-END
		faults:
		  - kind: kill
		    target: $2
		    signal: TERM
		    term_wait: $3
		    at: [1s]
		    down: 2s
		END
	} >"$TRASH/$1.yaml"
}

# killed RUN: the "killed" member of the kill's info record, the stop's
# milliseconds as N.
killed() {
	grep "\"type\":\"info\",\"f\":\"kill\"" "$TRASH/$1/history.jsonl" |
	sed -e "s/.*\"killed\":\(\[[^]]*\]\).*/\1/" -e "s/\"stop_ms\":[0-9]*/\"stop_ms\":N/g"
}

# stop_ms RUN: the stop's milliseconds.
stop_ms() {
	grep "\"type\":\"info\",\"f\":\"kill\"" "$TRASH/$1/history.jsonl" |
	sed -e "s/.*\"stop_ms\":\([0-9]*\).*/\1/"
}

cat >"$TRASH/stubborn.yaml.part" <<END
  - name: stubborn
    roles: [cdc]
    start: [perl, -e, '\$SIG{TERM} = q(IGNORE); sleep 600']
    pidfile: $TRASH/stubborn.pid
    log: $TRASH/stubborn.log
END

test_cluster_setup 'set up: a cluster, and a topology with a process that ignores TERM' '
	{
		sed -n "/^components:/,\$p" "$C/topology.yaml" &&
		cat "$TRASH/stubborn.yaml.part"
	} >"$T" &&
	"$TICHAOS" cluster start stubborn --cluster "$T" &&
	test_track_pid "$(cat "$TRASH/stubborn.pid")"
'

suite graceful down-0 10s

test_expect_success 'a server that stops on TERM: stopped gracefully, not escalated, restarted' '
	{ "$TICHAOS" run "$TRASH/graceful.yaml" --cluster "$T" --out "$TRASH/g" >tap 2>err ||
	{ cat tap err; false; }; } &&
	pid=$(sed -n "s/.*\"component\":\"down-0\",\"pid\":\([0-9]*\).*/\1/p" "$TRASH/g/history.jsonl" | head -n 1) &&
	killed g >got &&
	grep -Eqx "\[\{\"component\":\"down-0\",\"pid\":$pid,\"stop_ms\":N,\"terms\":[1-9][0-9]*,\"escalated\":false\}\]" got &&
	grep -q "\"type\":\"info\",\"f\":\"restart\",\"target\":\"down-0\"" "$TRASH/g/history.jsonl" &&
	grep -qx "ok 2 - fault 1 kill: 1 of 1 injected, 1 healed" tap &&
	grep -q "Shutdown complete" "$C/down-0/mariadbd.log" &&
	! grep " - exit " tap
'

suite stubborn stubborn 1s

test_expect_success 'a process that ignores TERM: two TERMs 500ms apart, KILL at term_wait, escalated' '
	old=$(cat "$TRASH/stubborn.pid") &&
	{ "$TICHAOS" run "$TRASH/stubborn.yaml" --cluster "$T" --out "$TRASH/s" >tap 2>err ||
	{ cat tap err; false; }; } &&
	echo "[{\"component\":\"stubborn\",\"pid\":$old,\"stop_ms\":N,\"terms\":2,\"escalated\":true}]" >expect &&
	killed s >got && test_cmp expect got &&
	test "$(stop_ms s)" -ge 1000 &&
	! alive "$old" &&
	new=$(cat "$TRASH/stubborn.pid") && test "$new" != "$old" && alive "$new" &&
	test_track_pid "$new" &&
	grep -qx "ok 2 - fault 1 kill: 1 of 1 injected, 1 healed" tap
'

test_done
