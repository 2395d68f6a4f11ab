#!/bin/sh
# The disk faults on a component of an SSH host: the local cluster
# described as on host "box", reached through a real sshd of the test's
# own. tichaos-diskfs is found, started, asked and unmounted there through
# that one connection; what a killed run left there the next run puts
# back; a host without tichaos-diskfs is refused at the fault's line.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

[ -x "$ROOT/diskfs/tichaos-diskfs" ] ||
	{ echo "Bail out! diskfs/tichaos-diskfs is not built (make)"; exit 1; }
[ -c /dev/fuse ] || skip_all "no /dev/fuse on this machine"

test_sshd_up "$TRASH/sshd"

# accepted: how many SSH connections sshd has let in so far.
accepted() {
	grep -c "Accepted publickey for $SSH_USER" "$TRASH/sshd/sshd.log" || :
}

# nothing_left: up-0's data directory back, nothing beside it, nothing
# mounted there, no placement recorded for it.
nothing_left() {
	test -d "$C/up-0/data" && test ! -e "$C/up-0/data.tichaos-disk" &&
	test ! -e "$C/up-0/data.tichaos-disk.run" &&
	test ! -e "$C/up-0/data.tichaos-disk.trash" &&
	! grep -q " $C/up-0/data " /proc/mounts &&
	! grep -ls "^$C/up-0/data$" "$TICHAOS_STATE_DIR"/disks/*/record
}

test_cluster_setup 'set up: a local cluster, described as on an SSH host' '
	test_ssh_topology "$C/topology.yaml" >"$TRASH/ssh.yaml" &&
	test "$(grep -c "host: \"box\"" "$TRASH/ssh.yaml")" = 3
'

# suite NAME DURATION FAULT: 100 inserts a second into sshdisk.t for
# DURATION under FAULT (a YAML flow mapping) on up-0; progress and
# consistency checked.
suite() {
	{
		insert_suite "$1" "$2" 5 sshdisk 100
		cat <<-EOF
		faults:
		  - $3
		checks:
		  - kind: progress
		    timeout: 20s
		  - kind: consistency
		    sync_timeout: 20s
		EOF
	} >"$TRASH/$1.yaml"
}

suite slow 8s "{ kind: disk_slow, target: up-0, at: [2s], down: 3s, delay: 5ms, ops: [write, fsync] }"

test_expect_success 'disk_slow through SSH: placed on box, every sync waited, the checks pass, put back' '
	before=$(accepted) &&
	"$TICHAOS" run slow.yaml --cluster "$TRASH/ssh.yaml" --out "$TRASH/slow" >tap 2>err ||
	{ cat err tap; false; } &&
	grep -q "info  up-0: its data directory on tichaos-diskfs (pid [0-9]* on host box), for the disk faults$" err &&
	grep -qx "ok 2 - fault 1 disk_slow: 1 of 1 injected, 1 healed" tap &&
	grep -q "\"f\":\"repair\",\"target\":\"up-0\",\"value\":{\"modes\":\[{\"component\":\"up-0\",\"read\":{\"ops\":[0-9]*,\"failed\":0,\"waited_ns\":0},\"write\":{\"ops\":[1-9][0-9]*,\"failed\":0,\"waited_ns\":[1-9][0-9]*},\"fsync\":{\"ops\":[1-9][0-9]*,\"failed\":0,\"waited_ns\":[1-9][0-9]*}}\]" slow/history.jsonl &&
	grep -Eqx "ok 4 - consistency: 1 tables, [0-9]+ rows equal on both sides \(sync [0-9.]+s\)" tap &&
	test $(( $(accepted) - before )) = 1 &&
	nothing_left
'

test_expect_success 'a host without tichaos-diskfs: refused at the fault'\''s line, exit 2, nothing made' '
	mkdir -p "$TRASH/bin" && cp "$TICHAOS" "$TRASH/bin/tichaos" &&
	{ "$TRASH/bin/tichaos" run slow.yaml --cluster "$TRASH/ssh.yaml" --out "$TRASH/none" 2>err; test $? = 2; } &&
	echo "tichaos: slow.yaml:13:32: fault '\''disk_slow'\'': up-0: host box has no tichaos-diskfs (beside tichaos, or on its PATH)" >expect &&
	tail -1 err >last && test_cmp expect last &&
	test ! -e "$TRASH/none" && nothing_left
'

suite long 60s "{ kind: disk_slow, target: up-0, at: [60s], down: 1s, delay: 1ms }"

test_expect_success 'SIGKILL while placed on box: the mount and the record are left there' '
	: >tap && : >err &&
	{ "$TICHAOS" run long.yaml --cluster "$TRASH/ssh.yaml" --out "$TRASH/killed" >tap 2>err & } &&
	run=$! && test_track_pid $run &&
	wait_for_condition 60 "grep -q \"its data directory on tichaos-diskfs\" err" &&
	fs=$(sed -n "s/.*up-0: its data directory on tichaos-diskfs (pid \([0-9]*\) on host box).*/\1/p" err) &&
	test_track_pid $fs && test_track_mount "$C/up-0/data" &&
	kill -KILL $run && { wait $run; test $? = 137; } &&
	grep -q " $C/up-0/data fuse" /proc/mounts && alive $fs &&
	grep -qx "box" "$(grep -ls "^$C/up-0/data$" "$TICHAOS_STATE_DIR"/disks/*/record)" &&
	test -d "$C/up-0/data.tichaos-disk"
'

suite lose 8s "{ kind: disk_lose, target: up-0, at: [3s], down: 1s, entries: ordered }"

test_expect_success 'disk_lose through SSH: the earlier placement undone first; the logs tails dropped, the replica stops on 1236' '
	"$TICHAOS" run lose.yaml --cluster "$TRASH/ssh.yaml" --out "$TRASH/lose" >tap 2>err
	test $? = 1 &&
	grep -q "warn  up-0: its data directory back from tichaos-diskfs, where an earlier run left it (its runner, pid $run, is gone)$" err &&
	! alive $fs &&
	grep -q "info  up-0: its data directory on tichaos-diskfs (pid [0-9]* on host box), for the disk faults$" err &&
	grep -qx "ok 2 - fault 1 disk_lose: 1 of 1 injected, 1 healed" tap &&
	grep -qx "not ok 3 - progress" tap &&
	grep -q "message: \"1 of 1 replicas not caught up; down-0: .*Got fatal error 1236 from master" tap &&
	grep "\"f\":\"disk_lose\"" lose/history.jsonl >rec &&
	grep -q "\"dropped\":\[{\"component\":\"up-0\",\"files\":[1-9][0-9]*,\"bytes\":[1-9][0-9]*,\"lost\":\[.*{\"path\":\"/ib_logfile0\",\"bytes\":[1-9][0-9]*}" rec &&
	grep -q "\"f\":\"restart\",\"target\":\"up-0\",\"value\":{\"restarted\":\[{\"component\":\"up-0\"" lose/history.jsonl &&
	nothing_left || { cat err tap; false; }
'

test_done
