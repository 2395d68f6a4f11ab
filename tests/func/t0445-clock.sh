#!/bin/sh
# clock: a SQL server restarted under libfaketime (Debian's faketime) for
# `down`, its clock verified by its own SELECT NOW(6), then restarted on
# the real clock and verified again (docs/faults.md). Ahead and behind;
# the history says the skew measured each time; replication and the
# checks go on; a target without SQL is refused before anything starts.
. "$(dirname "$0")/test-lib.sh"

command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] ||
	skip_all "mariadbd is not installed (make deps)"
command -v etcd >/dev/null 2>&1 || skip_all "etcd is not installed (make deps)"
command -v faketime >/dev/null 2>&1 || skip_all "faketime is not installed (make deps)"

C="$TRASH/c"
T="$C/topology.yaml"

# suite NAME OFFSET TARGET: 8 s of inserts (the restarts of up-0 break
# some: errors ignored); the clock of TARGET moved by OFFSET at 1 s for
# 3 s; consistency and progress checked.
suite() {
	{
		insert_suite "$1" 8s 5 clk 100
		echo "    ignore_errors: true"
		cat <<-END
		faults:
		  - kind: clock
		    target: $3
		    offset: "$2"
		    at: [1s]
		    down: 3s
		checks:
		  - kind: consistency
		    sync_timeout: 60s
		  - kind: progress
		END
	} >"$TRASH/$1.yaml"
}

# skews RUN F: the skew_ms of each record F (clock, reset_clock) of RUN.
skews() {
	grep "\"type\":\"info\",\"f\":\"$2\"" "$TRASH/$1/history.jsonl" |
	sed -n "s/.*\"skew_ms\":\(-*[0-9]*\).*/\1/p"
}

# near A B MS: |A - B| <= MS.
near() {
	test $(( $1 - $2 )) -le "$3" && test $(( $2 - $1 )) -le "$3"
}

test_expect_success 'set up a cluster' '
	test_cluster_up "$C" &&
	UP=$(port_of "$C" up-0)
'

suite ahead +1h up-0

test_expect_success 'an hour ahead: measured, healed, measured again; checks pass' '
	old=$(cat "$C/up-0/tichaos.pid") &&
	"$TICHAOS" run "$TRASH/ahead.yaml" --cluster "$T" --out "$TRASH/a" >tap 2>err ||
	{ cat err; false; } &&
	grep -Eqx "ok 1 - workload 1 insert: [0-9]+ ok, [0-9]+ fail, [0-9]+ info, errors ignored" tap &&
	grep -qx "ok 2 - fault 1 clock: 1 of 1 injected, 1 healed" tap &&
	grep -q "^ok 3 - consistency: 1 tables, [0-9]* rows equal on both sides" tap &&
	grep -q "^ok 4 - progress: 1 replica running" tap &&
	moved=$(skews a clock) && near "$moved" 3600000 2000 &&
	back=$(skews a reset_clock) && near "$back" 0 2000 &&
	grep -q "\"type\":\"info\",\"f\":\"clock\",\"target\":\"up-0\",\"value\":{\"offset\":\"+1h\",\"rate\":1,\"moved\":\[{\"component\":\"up-0\",\"pid\":[0-9]*,\"skew_ms\":$moved}\],\"took_ms\":[0-9]*},\"fault\":0}" "$TRASH/a/history.jsonl" &&
	new=$(cat "$C/up-0/tichaos.pid") && test "$new" != "$old" &&
	alive "$new" && ! grep -q faketime "/proc/$new/environ" &&
	now=$(sql "$UP" "SELECT UNIX_TIMESTAMP()") && near "$now" "$(date +%s)" 2
'

suite behind -30m up-0

test_expect_success 'half an hour behind' '
	"$TICHAOS" run "$TRASH/behind.yaml" --cluster "$T" --out "$TRASH/b" >tap 2>err ||
	{ cat err; false; } &&
	grep -qx "ok 2 - fault 1 clock: 1 of 1 injected, 1 healed" tap &&
	moved=$(skews b clock) && near "$moved" -1800000 2000 &&
	back=$(skews b reset_clock) && near "$back" 0 2000
'

suite long +1h up-0
sed -i -e "s/^duration: 8s/duration: 60s/" -e "s/down: 3s/down: 50s/" "$TRASH/long.yaml"

# ^C while the clock is moved: the heal puts it back before the run ends
# (docs/reliability.md), exit 4.
test_expect_success 'SIGINT while the clock is moved: put back, then exit 4' '
	{ "$TICHAOS" run "$TRASH/long.yaml" --cluster "$T" --out "$TRASH/l" >tap 2>err & } &&
	run=$! && test_track_pid $run &&
	wait_for_condition 60 "grep -q \"\\\"type\\\":\\\"info\\\",\\\"f\\\":\\\"clock\\\"\" \"$TRASH/l/history.jsonl\"" &&
	kill -INT $run &&
	{ wait $run; test $? = 4; } &&
	back=$(skews l reset_clock) && near "$back" 0 2000 &&
	pid=$(cat "$C/up-0/tichaos.pid") && alive "$pid" &&
	! grep -q faketime "/proc/$pid/environ" &&
	now=$(sql "$UP" "SELECT UNIX_TIMESTAMP()") && near "$now" "$(date +%s)" 2
'

suite nosql +1h etcd-0

test_expect_success 'a target that serves no SQL is refused before anything starts (exit 2)' '
	{ "$TICHAOS" run "$TRASH/nosql.yaml" --cluster "$T" --out "$TRASH/n" >tap 2>err; test $? = 2; } &&
	grep -q "nosql.yaml:[0-9]*:[0-9]*: fault .clock.: etcd-0 serves no SQL, so its clock cannot be read back (SELECT NOW(6))" err &&
	test ! -e "$TRASH/n"
'

test_expect_success 'an offset that is no duration, and no down: one line each (exit 2)' '
	suite bad "+1 hour" up-0 &&
	{ "$TICHAOS" validate "$TRASH/bad.yaml" 2>err; test $? = 2; } &&
	grep -q "bad.yaml:[0-9]*:[0-9]*: offset in fault .clock.: .* (e.g. +1h, -30m)" err &&
	suite zero "+1h" up-0 && sed -i "s/down: 3s/down: 0s/" "$TRASH/zero.yaml" &&
	{ "$TICHAOS" validate "$TRASH/zero.yaml" 2>err; test $? = 2; } &&
	grep -q "fault .clock. needs a .down. above 0s" err
'

test_done
