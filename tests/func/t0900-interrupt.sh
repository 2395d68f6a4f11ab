#!/bin/sh
# SIGINT and SIGTERM in every phase of a run on the local cluster the run
# starts itself: it stops within 15 s with exit 4, the reports say
# "interrupted", and nothing of it is left: no process whose command line
# names its directory, no port of its cluster listening. A second SIGINT
# kills the cluster at once instead of healing it. A runner killed with
# SIGKILL leaves whole history lines, a report of what they record, and
# servers that the next run beside it stops. `tichaos cluster up`
# interrupted (local cluster, fake playground) stops what it started, by
# pid, and exits 4; what ran before it keeps running.
. "$(dirname "$0")/test-lib.sh"

need mariadbd mariadb-install-db etcd

# suite NAME DURATION: $TRASH/NAME.yaml, inserts for DURATION, the fault
# and check items from stdin.
suite() {
	{
		insert_suite "$1" "$2" 9 intr 200
		cat
	} >"$TRASH/$1.yaml"
}

# start OUT SUITE: run SUITE in the background into $TRASH/OUT, on a
# local cluster of its own; its pid in $run.
start() {
	"$TICHAOS" run "$TRASH/$2.yaml" --out "$TRASH/$1" --port-base auto \
		>"$TRASH/$1.tap" 2>"$TRASH/$1.err" &
	run=$!
	test_track_pid $run
	# If the run itself cannot, the file's end stops its servers.
	test_clusters="$test_clusters $TRASH/$1/cluster"
}

# stopped OUT: the run ended within 15 s with exit 4.
stopped() {
	end=$(( $(date +%s) + 15 ))
	while alive $run && [ "$(date +%s)" -lt "$end" ]; do
		sleep 0.1
	done
	! alive $run || { echo "run $1 still running after 15 s"; return 1; }
	wait $run
	code=$?
	test $code = 4 || { echo "run $1: exit $code"; cat "$TRASH/$1.err"; return 1; }
}

# nothing_left OUT: no process names the run directory, no port of its
# cluster listens.
nothing_left() {
	for f in /proc/[0-9]*/cmdline; do
		if { tr '\0' ' ' <"$f"; } 2>/dev/null | grep -q "$TRASH/$1/"; then
			echo "left running: $f: $(tr '\0' ' ' <"$f")"
			return 1
		fi
	done
	base=$(cat "$TRASH/$1/cluster/port-base" 2>/dev/null) || return 0
	for p in 0 1 2 3; do
		! listening $((base + p)) || { echo "port $((base + p)) listens"; return 1; }
	done
}

# hold_lock OUT KIND FILE: take a write lock of KIND (fcntl or flock) on
# FILE (created when missing) in a process of our own (perl), the lock a
# second server on the same data would hold, and keep it until that
# process is killed; its pid in $holder (killed when the file ends).
# Returns once the lock is held. The struct flock is packed as on LP64
# Linux (x86_64, aarch64): short type, short whence, off_t start, off_t
# len, pid_t pid; start 0, len 0: the whole file.
hold_lock() {
	perl -MFcntl=:DEFAULT,:flock,:seek -e '
		my ($kind, $file) = @ARGV;
		open my $fh, "+>>", $file or die "cannot open $file: $!\n";
		if ($kind eq "fcntl") {
			my $lock = pack("s s x4 q q i x4", F_WRLCK, SEEK_SET, 0, 0, 0);
			fcntl($fh, F_SETLK, $lock) or die "cannot lock $file: $!\n";
		} else {
			flock($fh, LOCK_EX | LOCK_NB) or die "cannot flock $file: $!\n";
		}
		$| = 1;
		print "locked\n";
		sleep;
	' "$2" "$3" >"$TRASH/$1.lock" 2>&1 &
	holder=$!
	test_track_pid $holder
	wait_for_condition 10 "test -s \"$TRASH/$1.lock\" || ! alive $holder" &&
	grep -qx locked "$TRASH/$1.lock" || { cat "$TRASH/$1.lock"; return 1; }
}

# unlock: end the process holding the lock (hold_lock).
unlock() {
	kill -TERM $holder && { wait $holder; test $? = 143; }
}

# interrupted OUT: the results say interrupted; the TAP bails out.
interrupted() {
	grep -q "\"verdict\": *\"interrupted\"" "$TRASH/$1/results.json" &&
	tail -n 1 "$TRASH/$1.tap" | grep -qx "Bail out! interrupted by a signal; what was recorded is in $TRASH/$1" ||
	{ echo "$1: not reported as interrupted:"; cat "$TRASH/$1.tap" "$TRASH/$1.err"; tail -5 "$TRASH/$1/results.json"; false; }
}

# history_has OUT PATTERN: a line of OUT's history matches.
history_has() {
	grep -q "$2" "$TRASH/$1/history.jsonl" 2>/dev/null
}

suite long 60s </dev/null

# The run's cluster is held in its start: etcd-0's directory is made before
# the MariaDB data are initialised (seconds), etcd-0 is started after; etcd
# opens its database (member/snap/db) under an flock and waits as long as
# another process holds it, without answering. The lock taken, the run
# cannot get past waiting for etcd-0 (it cannot have been before: etcd-0
# would hold the lock itself).
test_expect_success 'SIGINT while the cluster starts: stopped, torn down, exit 4' '
	start start long &&
	wait_for_condition 20 "test -d \"$TRASH/start/cluster/etcd-0\"" &&
	mkdir -p -m 700 "$TRASH/start/cluster/etcd-0/data/member/snap" &&
	hold_lock start flock "$TRASH/start/cluster/etcd-0/data/member/snap/db" &&
	wait_for_condition 60 "test -s \"$TRASH/start/cluster/etcd-0/tichaos.pid\"" &&
	kill -INT $run &&
	stopped start && unlock && interrupted start && nothing_left start &&
	grep -Eqx "tichaos: interrupted while waiting for (up-0|down-0|etcd-0)" "$TRASH/start.err" &&
	test ! -e "$TRASH/start/history.jsonl"
'

test_expect_success 'SIGTERM while the workload runs: stopped, torn down, exit 4' '
	start work long &&
	wait_for_condition 60 "history_has work \"\\\"type\\\":\\\"ok\\\"\"" &&
	kill -TERM $run &&
	stopped work && interrupted work && nothing_left work &&
	history_has work "\"type\":\"ok\"" &&
	test "$(tail -c 1 "$TRASH/work/history.jsonl" | od -An -c | tr -d " ")" = "\\n"
'

suite down 60s <<EOF
faults:
  - kind: kill
    target: cdc
    at: [1s]
    down: 50s
EOF

test_expect_success 'SIGINT in a fault'\''s down time: healed, then torn down, exit 4' '
	start down down &&
	wait_for_condition 60 "history_has down \"\\\"type\\\":\\\"info\\\",\\\"f\\\":\\\"kill\\\"\"" &&
	kill -INT $run &&
	stopped down && interrupted down && nothing_left down &&
	history_has down "\"type\":\"info\",\"f\":\"restart\"" &&
	! grep -q "interrupted twice" "$TRASH/down/logs/tichaos.log"
'

# The heal is held: down-0 is down (the kill's record is written once it is
# gone); while another process holds an fcntl lock on its Aria control
# file, the mariadbd the heal starts logs "Can't lock aria control file
# ... Will retry for 30 seconds" and waits there, not ready. The second
# SIGINT comes while the first one's heal waits for it.
test_expect_success 'a second SIGINT kills the cluster instead of healing it' '
	start twice down &&
	wait_for_condition 60 "history_has twice \"\\\"type\\\":\\\"info\\\",\\\"f\\\":\\\"kill\\\"\"" &&
	D="$TRASH/twice/cluster/down-0" &&
	hold_lock twice fcntl "$D/data/aria_log_control" &&
	size=$(wc -c <"$D/mariadbd.log") &&
	kill -INT $run &&
	wait_for_condition 30 "tail -c +$((size + 1)) \"$D/mariadbd.log\" | grep -q \"Can.t lock aria control file\"" &&
	kill -INT $run &&
	stopped twice && unlock && interrupted twice && nothing_left twice &&
	grep -q "interrupted twice: killing the cluster (SIGKILL)" "$TRASH/twice/logs/tichaos.log" &&
	history_has twice "\"type\":\"fail\",\"f\":\"restart\",\"target\":\"cdc\",\"error\":\"interrupted while waiting for down-0\""
'

suite barrier 3s <<EOF
checks:
  - kind: consistency
    sync_timeout: 120s
EOF

test_expect_success 'SIGINT while the barrier waits: unknown, interrupted, exit 4' '
	start barrier barrier &&
	wait_for_condition 60 "test -s \"$TRASH/barrier/cluster/port-base\" && history_has barrier \"\\\"type\\\":\\\"ok\\\"\"" &&
	UP=$(cat "$TRASH/barrier/cluster/port-base") && DOWN=$((UP + 1)) &&
	sql $DOWN "stop slave sql_thread" &&
	# The barrier writes its finish mark upstream, then waits for it
	# downstream, where it cannot come.
	wait_for_condition 30 "test \"\$(sql $UP \"select count(*) from tichaos_meta.barrier\")\" = 1" &&
	kill -INT $run &&
	stopped barrier && interrupted barrier && nothing_left barrier &&
	grep -q "interrupted while waiting for down-0 to sync" "$TRASH/barrier/results.json"
'

suite short 2s </dev/null

test_expect_success 'SIGKILL: whole history lines; report counts them; the next run stops the orphans' '
	start killed long &&
	wait_for_condition 60 "history_has killed \"\\\"type\\\":\\\"ok\\\"\"" &&
	# Killed while the history is being written: after a later flush.
	size=$(wc -c <"$TRASH/killed/history.jsonl") &&
	wait_for_condition 10 "test \$(wc -c <\"$TRASH/killed/history.jsonl\") -gt $size" &&
	kill -KILL $run && { wait $run; test $? = 137; } &&
	pids=$(cat "$TRASH/killed/cluster"/*/tichaos.pid) &&
	for p in $pids; do alive $p || return 1; done &&
	test "$(tail -c 1 "$TRASH/killed/history.jsonl" | od -An -c | tr -d " ")" = "\\n" &&
	perl -MJSON::PP -ne "decode_json(\$_)" "$TRASH/killed/history.jsonl" &&
	ok=$(grep -c "\"type\":\"ok\"" "$TRASH/killed/history.jsonl") &&
	"$TICHAOS" report "$TRASH/killed" >rtap; test $? = 4 &&
	grep -qx "ok 1 - workload 1 insert: $ok ok, 0 fail, 0 info" rtap &&
	tail -n 1 rtap | grep -Eqx "Bail out! incomplete: the run did not finish: counted from history.jsonl, up to [0-9]+\.[0-9]s of 1m; no check ran \($TRASH/killed\)" &&
	"$TICHAOS" report "$TRASH/killed" >rtap2; test $? = 4 && test_cmp rtap rtap2 &&
	"$TICHAOS" run "$TRASH/short.yaml" --out "$TRASH/next" --port-base auto >ntap 2>nerr ||
	{ cat nerr; false; } &&
	for p in $pids; do ! alive $p || return 1; done &&
	grep -q "stopped the cluster of $TRASH/killed: its runner (pid $run) is gone" "$TRASH/next/logs/tichaos.log" &&
	nothing_left killed && nothing_left next && test ! -e "$TRASH/killed/runner.pid"
'

# up_start DIR ARGS...: `tichaos cluster up --dir DIR ARGS` in the
# background, stdout in DIR.out, stderr in DIR.err; its pid in $up. A
# local cluster left in DIR is brought down when the file ends.
up_start() {
	d=$1
	shift
	"$TICHAOS" cluster up --dir "$d" "$@" >"$d.out" 2>"$d.err" &
	up=$!
	test_track_pid $up
	test_clusters="$test_clusters $d"
}

# up_stopped DIR: the `cluster up` in $up ended within 30 s with exit 4,
# and the last line of its stderr is its only "tichaos:" line.
up_stopped() {
	wait_for_condition 30 "! alive $up" ||
	{ echo "cluster up still running after 30 s"; cat "$1.err"; return 1; }
	wait $up
	code=$?
	test $code = 4 || { echo "cluster up: exit $code"; cat "$1.err"; return 1; }
	test "$(grep -c "^tichaos: " "$1.err")" = 1 &&
	tail -n 1 "$1.err" | grep -q "^tichaos: " || { cat "$1.err"; return 1; }
}

# pid_in FILE: the pid FILE holds is running.
pid_in() {
	p=$(cat "$1" 2>/dev/null) && [ -n "$p" ] && alive "$p"
}

# pids_in DIR NAME...: DIR/NAME.pid names a running pid, for every NAME.
pids_in() {
	d=$1
	shift
	for n in "$@"; do
		pid_in "$d/$n.pid" || return 1
	done
}

# gone PIDS...: none of them is running.
gone() {
	for p in "$@"; do
		! alive "$p" || { echo "pid $p still running: $(tr '\0' ' ' <"/proc/$p/cmdline")"; return 1; }
	done
}

# procs_under DIR: processes whose command line names DIR/.
procs_under() {
	for f in /proc/[0-9]*/cmdline; do
		{ tr '\0' ' ' <"$f"; } 2>/dev/null | grep -q "$1/" &&
			echo "${f%/cmdline}: $(tr '\0' ' ' <"$f" 2>/dev/null)"
	done
}

# procs_in DIR: processes whose working directory is in DIR (also once
# DIR is removed): a fake instance's servers name no path.
procs_in() {
	for f in /proc/[0-9]*/cwd; do
		case "$(readlink "$f" 2>/dev/null)" in
		"$1"/*) echo "${f%/cwd}: $(tr '\0' ' ' <"${f%/cwd}/cmdline" 2>/dev/null)" ;;
		esac
	done
}

# up_nothing_left DIR: no process names the local cluster DIR, no port
# of it listens, no pidfile is left.
up_nothing_left() {
	left=$(procs_under "$1")
	test -z "$left" || { echo "left running: $left"; return 1; }
	base=$(cat "$1/port-base") &&
	for p in 0 1 2 3; do
		! listening $((base + p)) || { echo "port $((base + p)) listens"; return 1; }
	done &&
	test -z "$(ls "$1"/*/tichaos.pid 2>/dev/null)"
}

# up_held DIR OUT: once `cluster up` (up_start) made DIR's etcd-0
# directory, hold etcd's database lock (as the first test of this file
# does) so that the up cannot get past waiting for etcd-0; returns once
# all three servers were started (their pidfiles name running pids).
up_held() {
	wait_for_condition 30 "test -d \"$1/etcd-0\" || ! alive $up" &&
	mkdir -p -m 700 "$1/etcd-0/data/member/snap" &&
	hold_lock "$2" flock "$1/etcd-0/data/member/snap/db" &&
	wait_for_condition 60 "pid_in \"$1/up-0/tichaos.pid\" && pid_in \"$1/down-0/tichaos.pid\" && pid_in \"$1/etcd-0/tichaos.pid\" || ! alive $up" &&
	alive $up || { echo "cluster up ended early"; cat "$1.err"; return 1; }
}

test_expect_success 'cluster up, SIGTERM while it starts: what it started is stopped, exit 4' '
	D="$TRASH/cu-term" &&
	up_start "$D" --port-base auto &&
	up_held "$D" cu-term &&
	pids=$(cat "$D"/*/tichaos.pid) && test "$(echo $pids | wc -w)" = 3 &&
	kill -TERM $up &&
	up_stopped "$D" && unlock &&
	tail -n 1 "$D.err" | grep -Eqx "tichaos: interrupted while waiting for (up-0|down-0|etcd-0): stopped what this .cluster up. started; nothing of the cluster in .$D. runs" &&
	gone $pids && up_nothing_left "$D" && test ! -s "$D.out"
'

# A second signal before any stop: every server is killed at once
# (SIGKILL), none is sent TERM first. Both signals wait while `cluster
# up` is stopped (SIGSTOP), so that both are seen before it stops
# anything.
test_expect_success 'cluster up, a second signal: every server killed at once, exit 4' '
	D="$TRASH/cu-twice" &&
	up_start "$D" --port-base auto -v &&
	up_held "$D" cu-twice &&
	pids=$(cat "$D"/*/tichaos.pid) &&
	kill -STOP $up && kill -TERM $up && kill -INT $up && kill -CONT $up &&
	up_stopped "$D" && unlock &&
	for c in up-0 down-0 etcd-0; do
		grep -Eq " debug $c \(pid [0-9]+\) is gone after signal 9$" "$D.err" ||
		{ echo "$c: not killed"; cat "$D.err"; return 1; }
	done &&
	! grep -Eq "is gone after signal 15|did not stop on TERM" "$D.err" &&
	tail -n 1 "$D.err" | grep -q "^tichaos: interrupted while waiting for .*: stopped what this .cluster up. started; nothing of the cluster in .$D. runs$" &&
	gone $pids && up_nothing_left "$D"
'

# What ran before the up keeps running: down-0 killed, the up that starts
# it again is held in down-0's start (an fcntl lock on its Aria control
# file: mariadbd waits for it, not ready), then stopped.
test_expect_success 'cluster up, SIGINT: only what it started is stopped; what ran before keeps running' '
	D="$TRASH/cu-kept" &&
	test_cluster_up "$D" &&
	up0=$(cat "$D/up-0/tichaos.pid") && etcd0=$(cat "$D/etcd-0/tichaos.pid") &&
	killed=$(cat "$D/down-0/tichaos.pid") &&
	"$TICHAOS" cluster kill down-0 --dir "$D" &&
	# Its locks go with its last thread, after its leader is a zombie
	# (a thread in an fsync on a busy disk can take seconds): once it
	# is reaped, none is left.
	wait_for_condition 120 "test ! -e /proc/$killed" &&
	hold_lock cu-kept fcntl "$D/down-0/data/aria_log_control" &&
	size=$(wc -c <"$D/down-0/mariadbd.log") &&
	up_start "$D" &&
	wait_for_condition 60 "tail -c +$((size + 1)) \"$D/down-0/mariadbd.log\" | grep -q \"Can.t lock aria control file\" || ! alive $up" &&
	down0=$(cat "$D/down-0/tichaos.pid") && alive "$down0" &&
	kill -INT $up &&
	up_stopped "$D" && unlock &&
	tail -n 1 "$D.err" | grep -Eqx "tichaos: interrupted while waiting for down-0: stopped what this .cluster up. started; running before it, left running: etcd-0, up-0" &&
	gone $down0 && test ! -e "$D/down-0/tichaos.pid" &&
	alive $up0 && alive $etcd0 &&
	test "$(cat "$D/up-0/tichaos.pid")" = $up0 &&
	test "$(cat "$D/etcd-0/tichaos.pid")" = $etcd0 &&
	{ "$TICHAOS" cluster status --dir "$D" >st; test $? = 3; } &&
	grep -Eq "^up-0 .* running" st && grep -Eq "^etcd-0 .* running" st &&
	grep -Eq "^down-0 .* stopped" st
'

# catches PID SIG: PID has a handler of its own for signal number SIG (1
# to 32: SigCgt's low 32 bits).
catches() {
	mask=$(sed -n "s/^SigCgt:[[:space:]]*//p" "/proc/$1/status" 2>/dev/null) &&
	[ -n "$mask" ] && [ $(( 0x${mask#????????} >> ($2 - 1) & 1 )) = 1 ]
}

# A cluster that was up before: the up is held in its wait for readiness
# (down-0's replication is stopped), and a signal there or anywhere
# before it stops nothing.
test_expect_success 'cluster up on a cluster up before, SIGTERM: nothing stopped, exit 4' '
	D="$TRASH/cu-was-up" &&
	test_cluster_up "$D" &&
	pids=$(cat "$D"/*/tichaos.pid) &&
	sql $(port_of "$D" down-0) "STOP SLAVE SQL_THREAD" &&
	up_start "$D" &&
	wait_for_condition 30 "catches $up 15 || ! alive $up" &&
	kill -TERM $up &&
	up_stopped "$D" &&
	tail -n 1 "$D.err" | grep -Eqx "tichaos: interrupted while waiting for (up-0|down-0|etcd-0): this .cluster up. started nothing; the cluster in .$D. keeps running" &&
	for p in $pids; do alive $p || { echo "pid $p is gone"; return 1; }; done &&
	test "$(cat "$D"/*/tichaos.pid)" = "$pids" &&
	sql $(port_of "$D" down-0) "START SLAVE SQL_THREAD"
'

# The fake playground (tests/func/t0820-playground.sh): tiup and its
# instances. TiDB's GET /status answers 404 here: an answer (the first
# wait passes it), but never ready, so once both playgrounds and every
# instance answer and the changefeed is made, the up waits at tidb-0 for
# good. A fake TiDB's mariadbd goes up to 0.1 s after its instance
# (fake-instance.pl's watchdog): tichaos waits for the instances, the
# test for what they leave.
PG="$TRASH/pg"
export TIUP_HOME="$PG/tiup-home"
export FAKE_TIUP_BIN="$PG/fake-bin"
export FAKE_TIUP_HTTP="$PG/http"
FAKE_TIUP_PORT=$(free_port_base) && export FAKE_TIUP_PORT
mkdir -p "$TIUP_HOME" "$FAKE_TIUP_BIN" "$PG/path" &&
cp -R "$DATA/http/playground" "$FAKE_TIUP_HTTP" &&
rm "$FAKE_TIUP_HTTP/tidb/GET_status"
for p in pd-server tikv-server tidb-server cdc; do
	ln -s "$ROOT/tests/helpers/fake-instance.pl" "$FAKE_TIUP_BIN/$p"
done
ln -s "$ROOT/tests/helpers/fake-tiup.pl" "$PG/path/tiup"
WITH_TIUP="$PG/path:$PATH"
# Whatever the test leaves running goes by its pidfiles.
trap '[ -d "$PG/c" ] && PATH=$WITH_TIUP "$TICHAOS" cluster down --cluster playground --dir "$PG/c" >/dev/null 2>&1; test_cleanup' EXIT

test_expect_success 'cluster up on a playground, SIGTERM: tiup and every instance stopped, exit 4' '
	D="$PG/c"
	PATH=$WITH_TIUP "$TICHAOS" cluster up --cluster playground --dir "$D" >"$D.out" 2>"$D.err" &
	up=$! && test_track_pid $up &&
	names="playground pd-0 tikv-0 tidb-0 cdc-0 playground-down down-pd-0 down-tikv-0 down-0" &&
	wait_for_condition 120 "grep -q \"created changefeed tichaos\" \"$D.err\" || ! alive $up" &&
	pids_in "$D" $names &&
	alive $up || { echo "cluster up ended early"; cat "$D.err"; return 1; }
	pids=$(cat "$D"/*.pid) && test "$(echo $pids | wc -w)" = 9 &&
	: >"$TIUP_HOME/clean.log" &&
	kill -TERM $up &&
	up_stopped "$D" &&
	tail -n 1 "$D.err" | grep -Eqx "tichaos: interrupted while waiting for tidb-0: stopped what this .cluster up. started; nothing of the cluster in .$D. runs" &&
	gone $pids && test -z "$(ls "$D"/*.pid 2>/dev/null)" &&
	wait_for_condition 5 "test -z \"\$(procs_under \"$TIUP_HOME/data\")\$(procs_in \"$TIUP_HOME/data\")\"" ||
	{ procs_under "$TIUP_HOME/data"; procs_in "$TIUP_HOME/data"; return 1; }
	test -z "$(procs_under "$D")" &&
	test -z "$(ls "$TIUP_HOME/data")" &&
	test "$(sed "s/tichaos-[0-9a-f]*/TAG/" "$TIUP_HOME/clean.log")" = "clean TAG
clean TAG-down"
'

test_done
