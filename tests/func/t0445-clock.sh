#!/bin/sh
# clock, method restart: a SQL server restarted under libfaketime
# (Debian's faketime) for `down`, its clock verified by its own SELECT
# NOW(6), then restarted on the real clock and verified again
# (docs/faults.md). Ahead and behind;
# the history says the skew measured each time; replication and the
# checks go on; a target without SQL is refused before anything starts.
# At a rate: the clock measured running that fast, and at 1 once healed.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd faketime

C="$TRASH/c"
T="$C/topology.yaml"

# suite NAME OFFSET TARGET [RATE]: 8 s of inserts (the restarts of up-0
# break some: errors ignored); the clock of TARGET moved by OFFSET (and
# run at RATE) at 1 s for 3 s; consistency and progress checked.
suite() {
	{
		insert_suite "$1" 8s 5 clk 100
		echo "    ignore_errors: true"
		cat <<-END
		faults:
		  - kind: clock
		    method: restart
		    target: $3
		    offset: "$2"
		${4:+    rate: $4}
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

# field RUN F KEY: KEY's number in each record F (clock, reset_clock) of
# RUN: skew_ms, measured_rate, took_ms.
field() {
	grep "\"type\":\"info\",\"f\":\"$2\"" "$TRASH/$1/history.jsonl" |
	sed -n "s/.*\"$3\":\(-*[0-9.]*\).*/\1/p"
}

# within X LO HI: LO <= X <= HI, as decimals.
within() {
	awk -v x="$1" -v lo="$2" -v hi="$3" "BEGIN { exit !(x >= lo && x <= hi) }"
}

# rate_of PORT: how fast the clock of the server at PORT runs against
# ours, read twice about 0.5 s apart, printed as LOW HIGH: the server's
# time between its readings over the longest and the shortest interval
# ours can have run between them (each reading is bracketed by our
# clock).
rate_of() {
	a0=$(date +%s.%N) && s0=$(sql "$1" "SELECT UNIX_TIMESTAMP(NOW(6))") &&
	b0=$(date +%s.%N) && sleep 0.5 &&
	a1=$(date +%s.%N) && s1=$(sql "$1" "SELECT UNIX_TIMESTAMP(NOW(6))") &&
	b1=$(date +%s.%N) &&
	awk -v s0="$s0" -v s1="$s1" -v a0="$a0" -v b0="$b0" -v a1="$a1" \
		-v b1="$b1" "BEGIN { print (s1 - s0) / (b1 - a0), (s1 - s0) / (a1 - b0) }"
}

# near A B MS: |A - B| <= MS.
near() {
	test $(( $1 - $2 )) -le "$3" && test $(( $2 - $1 )) -le "$3"
}

test_cluster_setup 'set up a cluster'

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
	grep -q "\"type\":\"info\",\"f\":\"clock\",\"target\":\"up-0\",\"value\":{\"method\":\"restart\",\"offset\":\"+1h\",\"rate\":1,\"moved\":\[{\"component\":\"up-0\",\"pid\":[0-9]*,\"skew_ms\":$moved}\],\"took_ms\":[0-9]*},\"holds\":\"skewed\",\"fault\":0}" "$TRASH/a/history.jsonl" &&
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

suite fast +1h up-0 2

# The offset holds when the server starts, and grows by a second a second
# from there: the first reading is up to the restart's length (took_ms)
# past it.
test_expect_success 'twice as fast: measured at 2, healed to the real clock at 1' '
	"$TICHAOS" run "$TRASH/fast.yaml" --cluster "$T" --out "$TRASH/f" >tap 2>err ||
	{ cat err; false; } &&
	grep -qx "ok 2 - fault 1 clock: 1 of 1 injected, 1 healed" tap &&
	grep -q "^ok 3 - consistency: 1 tables, [0-9]* rows equal on both sides" tap &&
	test "$(grep -c "\"f\":\"clock\",\"target\":\"up-0\",\"value\":{\"method\":\"restart\",\"offset\":\"+1h\",\"rate\":2,\"moved\":\[{\"component\":\"up-0\",\"pid\":[0-9]*,\"skew_ms\":[0-9]*,\"measured_rate\":[0-9.]*}\]" "$TRASH/f/history.jsonl")" = 1 &&
	moved=$(skews f clock) && took=$(field f clock took_ms) &&
	test "$moved" -ge $((3600000 - 2000)) &&
	test "$moved" -le $((3600000 + took + 2000)) &&
	within "$(field f clock measured_rate)" 1.9 2.1 &&
	back=$(skews f reset_clock) && near "$back" 0 2000 &&
	within "$(field f reset_clock measured_rate)" 0.95 1.05 &&
	pid=$(cat "$C/up-0/tichaos.pid") && alive "$pid" &&
	! grep -q faketime "/proc/$pid/environ" &&
	now=$(sql "$UP" "SELECT UNIX_TIMESTAMP()") && near "$now" "$(date +%s)" 2 &&
	rate_of "$UP" >rate && read -r low high <rate &&
	# 2% more either way, as tichaos allows
	within 1 "$(awk "BEGIN { print $low * 0.98 }")" "$(awk "BEGIN { print $high * 1.02 }")"
'

suite long +1h up-0
sed -i -e "s/^duration: 8s/duration: 60s/" -e "s/down: 3s/down: 50s/" "$TRASH/long.yaml"

# ^C while the clock is moved: the heal puts it back before the run ends
# (docs/reliability.md), exit 4.
test_expect_success 'SIGINT while the clock is moved: put back, then exit 4' '
	: >tap && : >err &&
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

# bad_rate NAME RATE: validate a suite whose clock fault has RATE; what
# it says is in NAME.err, the line of that rate in $line.
bad_rate() {
	suite "$1" +1h up-0 "$2" &&
	{ "$TICHAOS" validate "$TRASH/$1.yaml" 2>"$1.err"; test $? = 2; } &&
	line=$(sed -n "/^  - kind: clock/,\$ { /^    rate: /= }" "$TRASH/$1.yaml") &&
	test -n "$line"
}

q="'"

test_expect_success 'a rate of 0, -1 or abc: one line each at the rate (exit 2)' '
	bad_rate zero 0 &&
	echo "tichaos: $TRASH/zero.yaml:$line:11: rate in fault ${q}clock${q} must be a number from 0.01 to 100, not 0" >expect &&
	test_cmp expect zero.err &&
	bad_rate minus -1 &&
	echo "tichaos: $TRASH/minus.yaml:$line:11: rate in fault ${q}clock${q} must be a number >= 0, not ${q}-1${q}" >expect &&
	test_cmp expect minus.err &&
	bad_rate word abc &&
	echo "tichaos: $TRASH/word.yaml:$line:11: rate in fault ${q}clock${q} must be a number >= 0, not ${q}abc${q}" >expect &&
	test_cmp expect word.err &&
	bad_rate huge 101 &&
	echo "tichaos: $TRASH/huge.yaml:$line:11: rate in fault ${q}clock${q} must be a number from 0.01 to 100, not 101" >expect &&
	test_cmp expect huge.err
'

test_expect_success 'an offset of 0 at rate 1 is refused (exit 2)' '
	suite still 0s up-0 &&
	{ "$TICHAOS" validate "$TRASH/still.yaml" 2>err; test $? = 2; } &&
	grep -q "still.yaml:[0-9]*:[0-9]*: offset in fault .clock.: an offset of 0 at rate 1 moves nothing (e.g. +1h, -30m)" err
'

suite slow 0s up-0 0.5

# From the real time, half as fast: the clock falls behind by half a
# second a second from the server's start.
test_expect_success 'an offset of 0 at rate 0.5: measured at 0.5, healed at 1' '
	"$TICHAOS" run "$TRASH/slow.yaml" --cluster "$T" --out "$TRASH/s" >tap 2>err ||
	{ cat err; false; } &&
	grep -qx "ok 2 - fault 1 clock: 1 of 1 injected, 1 healed" tap &&
	grep -q "\"f\":\"clock\",\"target\":\"up-0\",\"value\":{\"method\":\"restart\",\"offset\":\"0s\",\"rate\":0.5,\"moved\":" "$TRASH/s/history.jsonl" &&
	moved=$(skews s clock) && took=$(field s clock took_ms) &&
	test "$moved" -ge $((-took / 2 - 2000)) && test "$moved" -le 2000 &&
	within "$(field s clock measured_rate)" 0.45 0.55 &&
	back=$(skews s reset_clock) && near "$back" 0 2000 &&
	within "$(field s reset_clock measured_rate)" 0.95 1.05
'

# A library that preloads but moves no clock: libc itself.
suite unmoved +1h up-0
sed -i "s|^    offset: .*|&\n    library: $(ls /lib/*-linux-gnu/libc.so.6 /lib64/libc.so.6 2>/dev/null | head -n 1)|" "$TRASH/unmoved.yaml"

test_expect_success 'a clock that did not move: not ok, the restart healed at once, 0 active' '
	grep -q "^    library: /" "$TRASH/unmoved.yaml" &&
	"$TICHAOS" run "$TRASH/unmoved.yaml" --cluster "$T" --out "$TRASH/u" >tap 2>err
	test $? = 3 &&
	grep -qx "not ok 2 - fault 1 clock: 0 of 1 injected, 1 healed, 1 did not take effect" tap &&
	grep -Eqx "  message: \"up-0.s clock is -?[0-9]+ms off ours, not 3600000ms \(within 2000ms\): libfaketime does not move a program that reads the kernel.s clock directly \(Go\)\"" tap &&
	grep -q "\"type\":\"info\",\"f\":\"reset_clock\"" "$TRASH/u/history.jsonl" &&
	grep -Eq "info  unmoved 8s/8s  [0-9]+ ops/s  errors [0-9]+  faults 0 active" "$TRASH/u/logs/tichaos.log"
'

test_done
