#!/bin/sh
# disk_lose: a power loss of the upstream of the local cluster, its data
# directory on tichaos-diskfs for the run (docs/faults.md). With the
# cluster's own settings (innodb_flush_log_at_trx_commit=2,
# sync_binlog=0) the loss drops the tails of InnoDB's redo log and of
# the binary log, which the replica had already received: restarted,
# the upstream has no more the GTIDs the replica asks for, and the
# progress check names the replica stopped on 1236. With both set to
# flush at every commit, nothing acknowledged is lost (an insert in
# flight may lose its bytes, written and not yet synced): the checks pass.
# The data directory is back in place after the run, nothing mounted,
# no file system left; ^C puts it back; a run killed with SIGKILL leaves
# it placed and the next run on that cluster puts it back, saying so, as
# `cluster down` does; a run on another cluster leaves it be.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

[ -x "$ROOT/diskfs/tichaos-diskfs" ] ||
	{ echo "Bail out! diskfs/tichaos-diskfs is not built (make)"; exit 1; }
[ -c /dev/fuse ] || skip_all "no /dev/fuse on this machine"

# suite NAME DURATION AT [OPTIONS] [ENTRIES]: 200 inserts a second into
# dl.t for DURATION, a disk_lose of up-0 at AT for 1 s; progress and
# consistency checked. OPTIONS: the upstream's server options, as a flow
# mapping; ENTRIES: the fault's `entries` (default ordered).
suite() {
	{
		echo "name: $1"
		[ -z "${4:-}" ] || printf "cluster:\n  local:\n    upstream:\n      options: %s\n" "$4"
		cat <<-EOF
		duration: $2
		seed: 3
		database: dl
		tables:
		  - name: t
		    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
		workloads:
		  - kind: insert
		    tables: t
		    rate: 200
		    ignore_errors: true
		faults:
		  - kind: disk_lose
		    target: up-0
		    at: [$3]
		    down: 1s
		    entries: ${5:-ordered}
		checks:
		  - kind: progress
		    timeout: 20s
		  - kind: consistency
		    sync_timeout: 20s
		EOF
	} >"$TRASH/$1.yaml"
}

# dropped RUN: the paths the loss of RUN dropped writes of, a line each.
dropped() {
	grep "\"type\":\"info\",\"f\":\"disk_lose\"" "$TRASH/$1/history.jsonl" |
	sed -e 's/.*"lost":\[//' -e 's/\]}\].*//' | tr '}' '\n' |
	sed -n 's/.*"path":"\([^"]*\)".*/\1/p'
}

# records DIR: the placement records naming a data directory under DIR
# (runs beside this one place theirs elsewhere).
records() {
	grep -ls "^$1/" "$TICHAOS_STATE_DIR"/disks/*/record
}

# nothing_left DIR: no placement recorded, nothing mounted under DIR.
nothing_left() {
	! records "$1" && ! grep -q " $1/" /proc/mounts
}

suite lossy 10s 4s

test_expect_success 'the cluster as it is: the loss drops the logs tails, the replica stops on 1236' '
	"$TICHAOS" run lossy.yaml --port-base auto --out "$TRASH/lossy" >tap 2>err
	test $? = 1 &&
	grep -qx "ok 2 - fault 1 disk_lose: 1 of 1 injected, 1 healed" tap &&
	grep -qx "not ok 3 - progress" tap &&
	grep -Eq "message: \"1 of 1 replicas not caught up; down-0: .*Got fatal error 1236 from master when reading data from binary log: .Error: connecting slave requested to start from GTID 0-1-[0-9]+, which is not in the master.s binlog." tap &&
	grep -q "\"type\":\"info\",\"f\":\"disk_lose\",\"target\":\"up-0\",\"value\":{\"killed\":\[{\"component\":\"up-0\",\"pid\":[0-9]*}\],\"dropped\":\[{\"component\":\"up-0\",\"files\":[0-9]*,\"bytes\":[0-9]*,\"lost\":\[.*\],\"entries\":0,\"undone\":\[\]}\]" lossy/history.jsonl &&
	dropped lossy >paths &&
	grep -qx "/ib_logfile0" paths && grep -Eqx "/binlog\.[0-9]{6}" paths &&
	grep -q "\"holds\":\"powered_off\"" lossy/history.jsonl &&
	grep -q "\"f\":\"restart\",\"target\":\"up-0\",\"value\":{\"restarted\":\[{\"component\":\"up-0\"" lossy/history.jsonl &&
	grep -q "info  up-0: its data directory on tichaos-diskfs (pid [0-9]*), for the disk faults$" err &&
	test -d lossy/cluster/up-0/data && test ! -e lossy/cluster/up-0/data.tichaos-disk &&
	nothing_left "$TRASH/lossy"
'

suite durable 10s 4s "{ innodb_flush_log_at_trx_commit: 1, sync_binlog: 1 }"

test_expect_success 'both logs flushed at each commit: nothing acknowledged lost, the checks pass' '
	"$TICHAOS" run durable.yaml --port-base auto --out "$TRASH/durable" >tap 2>err ||
	{ cat err tap; false; } &&
	grep -qx "ok 2 - fault 1 disk_lose: 1 of 1 injected, 1 healed" tap &&
	grep -qx "ok 3 - progress: 1 replica running, caught up in [0-9.]*s" tap &&
	acked=$(sed -n "s/^ok 1 - workload 1 insert: \([0-9]*\) ok, 0 fail, .*/\1/p" tap) &&
	info=$(sed -n "s/^ok 1 - workload 1 insert: [0-9]* ok, 0 fail, \([0-9]*\) info, .*/\1/p" tap) &&
	rows=$(sed -n "s/^ok 4 - consistency: 1 tables, \([0-9]*\) rows equal on both sides (sync [0-9.]*s)$/\1/p" tap) &&
	test "$rows" -ge "$acked" && test "$rows" -le $((acked + info)) &&
	nothing_left "$TRASH/durable"
'

suite posix 10s 4s "{ innodb_flush_log_at_trx_commit: 1, sync_binlog: 1 }" posix

test_expect_success 'entries as POSIX has them: the database directory MariaDB made is lost, with its table; it does not start again' '
	"$TICHAOS" run posix.yaml --port-base auto --out "$TRASH/posix" >tap 2>err
	test $? = 1 &&
	grep -qx "not ok 2 - fault 1 disk_lose: 1 of 1 injected, 0 healed, 1 heals failed" tap &&
	grep -q "message: \"up-0 exited while starting: .* \[ERROR\] InnoDB: File ./dl/t.ibd was not found; last log line: .* \[ERROR\] Aborting\"" tap &&
	grep -q "\"entries\":[1-9][0-9]*,\"undone\":\[[^]]*\"made /dl\"" posix/history.jsonl &&
	grep -q "\"undone\":\[[^]]*\"made /dl/t.ibd\"" posix/history.jsonl &&
	nothing_left "$TRASH/posix"
'

test_expect_success 'etcd on it, the page cache kept (bbolt maps its file): a member loses its WAL tail, restarts, rejoins' '
	suite etcdlose 8s 3s && sed -i "s/target: up-0/target: etcd-0/" etcdlose.yaml &&
	"$TICHAOS" run etcdlose.yaml --port-base auto --out "$TRASH/etcd" >tap 2>err ||
	{ cat err tap; false; } &&
	grep -q "info  etcd-0: its data directory on tichaos-diskfs (pid [0-9]*, the page cache kept), for the disk faults$" err &&
	grep -qx "ok 2 - fault 1 disk_lose: 1 of 1 injected, 1 healed" tap &&
	grep -q "\"f\":\"disk_lose\",\"target\":\"etcd-0\",\"value\":{\"killed\":\[{\"component\":\"etcd-0\",\"pid\":[0-9]*}\],\"dropped\":\[{\"component\":\"etcd-0\"" etcd/history.jsonl &&
	grep -q "\"f\":\"restart\",\"target\":\"etcd-0\",\"value\":{\"restarted\":\[{\"component\":\"etcd-0\"" etcd/history.jsonl &&
	nothing_left "$TRASH/etcd"
'

test_cluster_setup 'set up a cluster to attach to'

suite long 60s 60s

# The runs below go to the background, and the shell truncates their
# err there, later than the wait for a line of it may look on a loaded
# machine: emptied first, the file cannot show an earlier run's line
# (the etcd run above places a data directory too).

test_expect_success '^C while placed: the data directory put back before the run ends, exit 4' '
	: >err && : >tap &&
	{ "$TICHAOS" run long.yaml --cluster "$T" --out "$TRASH/int" >tap 2>err & } &&
	run=$! && test_track_pid $run &&
	wait_for_condition 180 "grep -q \"its data directory on tichaos-diskfs\" err" &&
	grep -q " $C/up-0/data fuse" /proc/mounts &&
	kill -INT $run && { wait $run; test $? = 4; } &&
	test -d "$C/up-0/data" && test ! -e "$C/up-0/data.tichaos-disk" &&
	nothing_left "$C" &&
	test "$(sql $UP "SELECT 1")" = 1 ||
	{ echo "--- err"; cat err; echo "--- tap"; cat tap; false; }
'

# killed_while_placed OUT: long.yaml run on the attached cluster into
# $TRASH/OUT, killed with SIGKILL once up-0 is placed; $run its pid, $fs
# the file system's (both tracked, and the mount).
killed_while_placed() {
	: >err && : >tap &&
	{ "$TICHAOS" run long.yaml --cluster "$T" --out "$TRASH/$1" >tap 2>err & } &&
	run=$! && test_track_pid $run &&
	wait_for_condition 180 "grep -q \"its data directory on tichaos-diskfs\" err" &&
	fs=$(sed -n "s/.*up-0: its data directory on tichaos-diskfs (pid \([0-9]*\)).*/\1/p" err) &&
	test_track_pid $fs && test_track_mount "$C/up-0/data" &&
	kill -KILL $run && { wait $run; test $? = 137; }
}

test_expect_success 'SIGKILL while placed: left on tichaos-diskfs; the next run puts it back and says so' '
	killed_while_placed killed &&
	grep -q " $C/up-0/data fuse" /proc/mounts &&
	test "$(records "$C")" &&
	insert_suite next 1s 1 nextdb 10 >next.yaml &&
	"$TICHAOS" run next.yaml --port-base auto --out "$TRASH/other" >tap 2>err ||
	{ cat err tap; false; } &&
	! grep -q "up-0: its data directory back" err &&
	grep -q " $C/up-0/data fuse" /proc/mounts && alive $fs &&
	"$TICHAOS" run next.yaml --cluster "$T" --out "$TRASH/next" >tap 2>err ||
	{ cat err tap; false; } &&
	grep -q "warn  up-0: its data directory back from tichaos-diskfs, where an earlier run left it (its runner, pid $run, is gone)$" err &&
	! alive $fs && test -d "$C/up-0/data" && test ! -e "$C/up-0/data.tichaos-disk" &&
	nothing_left "$C" &&
	test "$(sql $UP "SELECT COUNT(*) FROM nextdb.t")" -gt 0 ||
	{ echo "--- err"; cat err; echo "--- tap"; cat tap; false; }
'

test_expect_success 'SIGKILL while placed, then cluster down: it stops the component and puts the directory back' '
	killed_while_placed killed2 &&
	test "$(records "$C")" &&
	"$TICHAOS" cluster down --dir "$C" >out 2>err ||
	{ cat err out; false; } &&
	grep -q "warn  up-0: its data directory back from tichaos-diskfs, where an earlier run left it (its runner, pid $run, is gone)$" err &&
	! alive $fs && test -d "$C/up-0/data" && test ! -e "$C/up-0/data.tichaos-disk" &&
	test ! -e "$C/up-0/data.tichaos-disk.trash" && nothing_left "$C" &&
	test_cluster_up "$C"
'

# A run killed between starting a component on the placement and writing
# its pidfile (a window of a few ms) leaves it running unrecorded: here
# made for certain by removing the pidfile of the one it started; one
# that had not opened a file there yet is found by its command line. The
# next run inserts on the directory put back; up-0, stopped as the run
# found it by its records, is left stopped.
test_expect_success 'SIGKILL before the pidfile was written: the next run finds the server by its files, stops it, puts the directory back' '
	: >err3k && : >tap &&
	{ "$TICHAOS" run long.yaml --cluster "$T" --out "$TRASH/killed3" >tap 2>err3k & } &&
	run=$! && test_track_pid $run &&
	wait_for_condition 180 "grep -q \"its data directory on tichaos-diskfs\" err3k" &&
	fs=$(sed -n "s/.*up-0: its data directory on tichaos-diskfs (pid \([0-9]*\)).*/\1/p" err3k) &&
	test_track_pid $fs && test_track_mount "$C/up-0/data" &&
	# The pidfile the placement wrote once it started up-0 on it (the
	# one before went with its stop), so that the kill comes after.
	wait_for_condition 60 "test -s $C/up-0/tichaos.pid" &&
	kill -KILL $run && { wait $run; test $? = 137; } &&
	m=$(cat "$C/up-0/tichaos.pid") && test_track_pid $m && alive $m &&
	rm "$C/up-0/tichaos.pid" &&
	# And one started the instant before, that has opened nothing on
	# the mount yet: only its command line names the directory.
	{ bash -c "sleep 120; true" starting --datadir="$C/up-0/data" & } &&
	young=$! && test_track_pid $young &&
	"$TICHAOS" run next.yaml --cluster "$T" --out "$TRASH/next3" >tap 2>err ||
	{ cat err tap; false; } &&
	grep -q "warn  up-0: stopping pid $m, which has files on the tichaos-diskfs an earlier run left (it was started, and not recorded, as that run was killed)$" err &&
	grep -q "warn  up-0: stopping pid $young, which has files on the tichaos-diskfs an earlier run left (it was started, and not recorded, as that run was killed)$" err &&
	! alive $young &&
	grep -q "warn  up-0: its data directory back from tichaos-diskfs, where an earlier run left it (its runner, pid $run, is gone)$" err &&
	! alive $m && ! alive $fs && nothing_left "$C" &&
	grep -q "\"type\":\"ok\",\"f\":\"insert\",\"table\":\"nextdb.t\"" next3/history.jsonl ||
	{ echo "--- m=${m:-} fs=${fs:-} young=${young:-}; alive: $(for p in ${m:-} ${fs:-} ${young:-}; do alive $p && printf "%s " $p; done)";
	  echo "--- killed3 err (tail):"; tail -n 5 err3k;
	  echo "--- err:"; cat err; false; }
'

test_expect_success 'refused at its line: no down; a target without a data directory' '
	suite nodown 5s 1s && sed -i "s/down: 1s/down: 0s/" nodown.yaml &&
	{ "$TICHAOS" validate nodown.yaml 2>err; test $? = 2; } &&
	grep -q "nodown.yaml:[0-9]*:[0-9]*: fault .disk_lose. needs a .down. above 0s: the heal starts the components again$" err &&
	suite etcd 5s 1s && sed -i "s/target: up-0/target: etcd-0/" etcd.yaml &&
	sed -e "s/^cluster: local$/cluster: static/" -e "/^port_base:/d" -e "/data_dir:.*etcd-0/d" "$T" >nodata.yaml &&
	{ "$TICHAOS" run etcd.yaml --cluster nodata.yaml --out "$TRASH/nodata" 2>err; test $? = 2; } &&
	grep -q "etcd.yaml:[0-9]*:13: fault .disk_lose.: etcd-0 needs a data_dir and a start command in the topology$" err &&
	test ! -e "$TRASH/nodata"
'

test_done
