#!/bin/sh
# SIGINT and SIGTERM in every phase of a run on the local cluster the run
# starts itself: it stops within 15 s with exit 4, the reports say
# "interrupted", and nothing of it is left: no process whose command line
# names its directory, no port of its cluster listening. A second SIGINT
# kills the cluster at once instead of healing it. A runner killed with
# SIGKILL leaves whole history lines, a report of what they record, and
# servers that the next run beside it stops.
. "$(dirname "$0")/test-lib.sh"

command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] ||
	skip_all "mariadbd is not installed (make deps)"
command -v etcd >/dev/null 2>&1 || skip_all "etcd is not installed (make deps)"

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
	{ cat nerr; false; }
	for p in $pids; do ! alive $p || return 1; done &&
	grep -q "stopped the cluster of $TRASH/killed: its runner (pid $run) is gone" "$TRASH/next/logs/tichaos.log" &&
	nothing_left killed && nothing_left next && test ! -e "$TRASH/killed/runner.pid"
'

test_done
