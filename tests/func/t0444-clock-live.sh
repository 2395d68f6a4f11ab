#!/bin/sh
# clock, method live (the default): the wall clock of a running process
# moved where it stands, without a restart, and put back (docs/faults.md;
# lib/skew.h, as Chaos Mesh's TimeChaos does it). Against a C program
# (MariaDB: NOW() over SQL) and Go programs (Debian's etcd: the Date
# header its net/http writes from time.Now(); tests/helpers/go-probe:
# time.Now() on a thread it had and on one it starts while skewed). The
# same pid before, during and after; the skew measured in the process
# itself and recorded; ^C puts it back; a SIGKILLed run leaves it moved
# and the next run puts it back, saying so; a target that exits while
# skewed; one that another tracer holds is refused before anything
# starts.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd curl perl

# suite NAME TARGET OFFSET DOWN [RATE]: 1 s of inserts, then ... the
# clock of TARGET moved by OFFSET (at RATE) at 1 s for DOWN, the run as
# long as that.
suite() {
	{
		insert_suite "$1" "$(( ${4%s} + 2 ))s" 5 live 20
		cat <<-END
		faults:
		  - kind: clock
		    target: $2
		    offset: "$3"
		${5:+    rate: $5}
		    at: [1s]
		    down: $4
		END
	} >"$TRASH/$1.yaml"
}

# skews RUN F: the skew_ms of each record F (clock, reset_clock) of RUN.
skews() {
	grep "\"type\":\"info\",\"f\":\"$2\"" "$TRASH/$1/history.jsonl" |
	sed -n "s/.*\"skew_ms\":\(-*[0-9]*\).*/\1/p"
}

# moved_and_back RUN COMPONENT PID: RUN's clock fault moved COMPONENT
# (PID) an hour ahead and put it back, live, both records exact, the
# skews measured within 100 ms of +1h and of 0.
moved_and_back() {
	moved=$(skews "$1" clock) && near "$moved" 3600000 100 &&
	back=$(skews "$1" reset_clock) && near "$back" 0 100 &&
	grep -Eq "\"type\":\"info\",\"f\":\"clock\",\"target\":\"$2\",\"value\":\{\"method\":\"live\",\"offset\":\"\+1h\",\"rate\":1,\"moved\":\[\{\"component\":\"$2\",\"pid\":$3,\"skew_ms\":$moved\}\],\"took_ms\":[0-9]+\},\"holds\":\"skewed\",\"fault\":0\}" "$TRASH/$1/history.jsonl" &&
	grep -Eq "\"type\":\"info\",\"f\":\"reset_clock\",.*\"restored\":\[\{\"component\":\"$2\",\"pid\":$3,\"skew_ms\":$back\}\]" "$TRASH/$1/history.jsonl"
}

# near A B MS: |A - B| <= MS.
near() {
	test $(( $1 - $2 )) -le "$3" && test $(( $2 - $1 )) -le "$3"
}

# http_date URL: the Date header of URL's answer, in seconds since 1970.
http_date() {
	d=$(curl -s -o /dev/null -D - "$1" | sed -n "s/^Date: \(.*\)\r$/\1/p") &&
	test -n "$d" && date -d "$d" +%s
}

# probe_now: go-probe's time.Now() in seconds.
probe_now() {
	ns=$(curl -sf "http://127.0.0.1:$probe/now") &&
	echo $((ns / 1000000000))
}

# new_thread_now TIDS: go-probe's time.Now() in seconds, read on a thread
# whose id is not one of TIDS (the threads it had before): each request
# with ?thread=new ends the thread it ran on, so once the idle ones are
# used up the runtime starts a new one.
new_thread_now() {
	for i in $(seq 20); do
		read -r ns tid <<-EOF || return 1
		$(curl -sf "http://127.0.0.1:$probe/now?thread=new")
		EOF
		case " $1 " in
		*" $tid "*) ;;
		*) echo $((ns / 1000000000)); return 0 ;;
		esac
	done
	echo "no new thread in 20 requests" >&2
	return 1
}

# skewed RUN: wait until RUN's history has the clock's info record.
skewed() {
	wait_for_condition 60 "grep -q '\"type\":\"info\",\"f\":\"clock\"' '$TRASH/$1/history.jsonl'"
}

# vdso PID: the bytes of PID's vDSO, as hex.
vdso() {
	perl -e '
		my $pid = shift;
		open my $m, "<", "/proc/$pid/maps" or die;
		my ($lo, $hi) = map { hex } (grep { /\[vdso\]/ } <$m>)[0] =~ /^(\w+)-(\w+)/;
		open my $f, "<:raw", "/proc/$pid/mem" or die;
		sysseek $f, $lo, 0; sysread $f, my $b, $hi - $lo;
		print unpack("H*", $b), "\n"' "$1"
}

test_cluster_setup 'set up a cluster, and go-probe as a component of a topology with it' '
	probe_cluster &&
	E="http://127.0.0.1:$(port_of "$C" etcd-0)"
'

suite up up-0 +1h 3s

test_expect_success 'MariaDB an hour ahead, live: the same pid, moved and back, recorded' '
	pid=$(cat "$C/up-0/tichaos.pid") && vdso $pid >before &&
	"$TICHAOS" run up.yaml --cluster "$T" --out "$TRASH/up" >tap 2>err ||
	{ cat err tap; false; } &&
	grep -qx "ok 2 - fault 1 clock: 1 of 1 injected, 1 healed" tap &&
	moved_and_back up up-0 $pid &&
	test "$(cat "$C/up-0/tichaos.pid")" = $pid &&
	vdso $pid >after && test_cmp before after &&
	test ! -e "$TICHAOS_STATE_DIR"/skews/$pid &&
	now=$(sql "$UP" "SELECT UNIX_TIMESTAMP()") && near "$now" "$(date +%s)" 2
'

suite long up-0 +1h 120s
suite etcd etcd-0 +1h 120s
suite go probe-0 -30m 120s

test_expect_success '^C while MariaDB is skewed: NOW() an hour ahead, then put back, exit 4' '
	pid=$(cat "$C/up-0/tichaos.pid") &&
	: >tap && : >err &&
	{ "$TICHAOS" run long.yaml --cluster "$T" --out "$TRASH/long" >tap 2>err & } &&
	run=$! && test_track_pid $run &&
	skewed long &&
	now=$(sql "$UP" "SELECT UNIX_TIMESTAMP()") && near "$now" $(( $(date +%s) + 3600 )) 2 &&
	kill -INT $run &&
	{ wait $run; test $? = 4; } &&
	back=$(skews long reset_clock) && near "$back" 0 100 &&
	now=$(sql "$UP" "SELECT UNIX_TIMESTAMP()") && near "$now" "$(date +%s)" 2 &&
	test "$(cat "$C/up-0/tichaos.pid")" = $pid
'

suite etcdrun etcd-0 +1h 3s

test_expect_success 'etcd an hour ahead for a whole run: exit 0, the skew measured in it both ways' '
	pid=$(cat "$C/etcd-0/tichaos.pid") &&
	"$TICHAOS" run etcdrun.yaml --cluster "$T" --out "$TRASH/etcdrun" >tap 2>err ||
	{ cat err tap; false; } &&
	grep -qx "ok 2 - fault 1 clock: 1 of 1 injected, 1 healed" tap &&
	moved_and_back etcdrun etcd-0 $pid &&
	test "$(cat "$C/etcd-0/tichaos.pid")" = $pid &&
	d=$(http_date "$E/health") && near "$d" "$(date +%s)" 2
'

test_expect_success 'etcd, a Go program: its Date header an hour ahead, then back' '
	pid=$(cat "$C/etcd-0/tichaos.pid") &&
	: >tap && : >err &&
	{ "$TICHAOS" run etcd.yaml --cluster "$T" --out "$TRASH/etcd" >tap 2>err & } &&
	run=$! && test_track_pid $run &&
	skewed etcd &&
	moved=$(skews etcd clock) && near "$moved" 3600000 100 &&
	d=$(http_date "$E/health") && near "$d" $(( $(date +%s) + 3600 )) 2 &&
	kill -INT $run &&
	{ wait $run; test $? = 4; } &&
	d=$(http_date "$E/health") && near "$d" "$(date +%s)" 2 &&
	test "$(cat "$C/etcd-0/tichaos.pid")" = $pid
'

test_expect_success 'go-probe: time.Now() half an hour behind, on a thread started while skewed too' '
	pid=$(cat probe.pid) &&
	: >tap && : >err &&
	{ "$TICHAOS" run go.yaml --cluster probe.yaml --out "$TRASH/go" >tap 2>err & } &&
	run=$! && test_track_pid $run &&
	skewed go &&
	before=$(ls /proc/$pid/task | tr "\n" " ") &&
	t=$(probe_now) && near "$t" $(( $(date +%s) - 1800 )) 2 &&
	t=$(new_thread_now "$before") && near "$t" $(( $(date +%s) - 1800 )) 2 &&
	kill -INT $run &&
	{ wait $run; test $? = 4; } &&
	t=$(probe_now) && near "$t" "$(date +%s)" 2 &&
	before=$(ls /proc/$pid/task | tr "\n" " ") &&
	t=$(new_thread_now "$before") && near "$t" "$(date +%s)" 2 &&
	test "$(cat probe.pid)" = $pid
'

suite fast probe-0 0s 3s 2

test_expect_success 'go-probe at twice the rate: measured at 2, then 1' '
	"$TICHAOS" run fast.yaml --cluster probe.yaml --out "$TRASH/fast" >tap 2>err ||
	{ cat err tap; false; } &&
	rate=$(grep "\"f\":\"clock\"" fast/history.jsonl | sed -n "s/.*\"measured_rate\":\([0-9.]*\).*/\1/p") &&
	awk -v r="$rate" "BEGIN { exit !(r >= 1.96 && r <= 2.04) }" &&
	rate=$(grep "\"f\":\"reset_clock\"" fast/history.jsonl | sed -n "s/.*\"measured_rate\":\([0-9.]*\).*/\1/p") &&
	awk -v r="$rate" "BEGIN { exit !(r >= 0.98 && r <= 1.02) }"
'

test_expect_success 'SIGKILL while skewed: go-probe stays moved; the next run puts it back and says so' '
	pid=$(cat probe.pid) &&
	: >tap && : >err &&
	{ "$TICHAOS" run go.yaml --cluster probe.yaml --out "$TRASH/killed" >tap 2>err & } &&
	run=$! && test_track_pid $run &&
	skewed killed &&
	kill -KILL $run && { wait $run; test $? = 137; } &&
	test -f "$TICHAOS_STATE_DIR"/skews/$pid &&
	t=$(probe_now) && near "$t" $(( $(date +%s) - 1800 )) 2 &&
	insert_suite next 1s 1 nextdb 10 >next.yaml &&
	"$TICHAOS" run next.yaml --cluster probe.yaml --out "$TRASH/next" >tap 2>err &&
	grep -q "warn  probe-0: its clock put back, which an earlier run left moved (pid $pid; its runner, pid $run, is gone)$" err &&
	test ! -e "$TICHAOS_STATE_DIR"/skews/$pid &&
	t=$(probe_now) && near "$t" "$(date +%s)" 2
'

test_expect_success 'go-probe exits while skewed: the heal says it is gone, its record removed' '
	pid=$(cat probe.pid) &&
	: >tap && : >err &&
	{ "$TICHAOS" run go.yaml --cluster probe.yaml --out "$TRASH/exit" >tap 2>err & } &&
	run=$! && test_track_pid $run &&
	skewed exit &&
	kill -TERM $pid && wait_for_condition 10 "! alive $pid" &&
	kill -INT $run && { wait $run; test $? = 4; } &&
	grep -q "\"type\":\"info\",\"f\":\"reset_clock\",.*\"restored\":\[{\"component\":\"probe-0\",\"pid\":$pid,\"gone\":true}\]" exit/history.jsonl &&
	test ! -e "$TICHAOS_STATE_DIR"/skews/$pid &&
	"$TICHAOS" cluster start probe-0 --cluster probe.yaml &&
	test_track_pid "$(cat probe.pid)"
'

# The other tracer: perl seizing go-probe's main thread (ptrace is system
# call 101 on x86-64, PTRACE_SEIZE 0x4206), which a thread allows one of.
test_expect_success 'a process another tracer holds: refused before anything starts (exit 2)' '
	pid=$(cat probe.pid) &&
	{ perl -e "\$| = 1; syscall(101, 0x4206, $pid, 0, 0) == 0 or die \"seize: \$!\"; print qq(seized\n); sleep 60" >seized & } &&
	tracer=$! && test_track_pid $tracer &&
	wait_for_condition 10 "grep -q seized seized" &&
	{ "$TICHAOS" run go.yaml --cluster probe.yaml --out "$TRASH/traced" >tap 2>err; rc=$?; } &&
	{ kill $tracer; wait $tracer 2>/dev/null; true; } &&
	test $rc = 2 &&
	line=$(sed -n "/^    target: /=" go.yaml) &&
	echo "tichaos: go.yaml:$line:13: fault '"'"'clock'"'"': probe-0: cannot trace pid $pid (thread $pid): Operation not permitted (method live needs ptrace)" >expect &&
	grep "^tichaos: " err >got && test_cmp expect got &&
	test ! -e "$TRASH/traced" &&
	t=$(probe_now) && near "$t" "$(date +%s)" 2
'

test_expect_success 'method restart with library on a live method: refused at its line' '
	suite lib up-0 +1h 3s &&
	sed -i "s|^    offset: .*|&\n    library: /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1|" lib.yaml &&
	{ "$TICHAOS" validate lib.yaml 2>err; test $? = 2; } &&
	line=$(sed -n "/^    library: /=" lib.yaml) &&
	echo "tichaos: lib.yaml:$line:14: library in fault '"'"'clock'"'"' is libfaketime'"'"'s, for method: restart" >expect &&
	test_cmp expect err
'

test_done
