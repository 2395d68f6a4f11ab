#!/bin/sh
# disk_slow, disk_error and disk_full on the upstream of the local
# cluster, its data directory on tichaos-diskfs for the run
# (docs/faults.md). Each mode's record says what it did: every read,
# write and sync MariaDB made while it held, how many failed, how long
# they waited. Slowed writes and syncs: the checks pass. MariaDB 10.11
# aborts when a write of its redo log fails (InnoDB's "[FATAL] ...
# pwrite("ib_logfile0") returned -1, operating system error N"), with
# EIO and with ENOSPC alike: the checks then name the replica that
# cannot reach it. The modes' options are refused at their line.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

[ -x "$ROOT/diskfs/tichaos-diskfs" ] ||
	{ echo "Bail out! diskfs/tichaos-diskfs is not built (make)"; exit 1; }
[ -c /dev/fuse ] || skip_all "no /dev/fuse on this machine"

# suite NAME KIND [OPTION...]: 100 inserts a second into dm.t for 8 s;
# fault KIND on up-0 at 2s for 3s with the options given (YAML lines);
# progress and consistency checked.
suite() {
	name=$1 kind=$2
	shift 2
	{
		cat <<-EOF
		name: $name
		duration: 8s
		seed: 3
		database: dm
		tables:
		  - name: t
		    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
		workloads:
		  - kind: insert
		    tables: t
		    rate: 100
		    ignore_errors: true
		faults:
		  - kind: $kind
		    target: up-0
		    at: [2s]
		    down: 3s
		EOF
		for o in "$@"; do echo "    $o"; done
		cat <<-EOF
		checks:
		  - kind: progress
		    timeout: 20s
		  - kind: consistency
		    sync_timeout: 20s
		EOF
	} >"$TRASH/$name.yaml"
}

# counts RUN KIND: "OPS FAILED WAITED_NS" of operation KIND (read,
# write, fsync) in the repair record of RUN.
counts() {
	sed -n "s/.*\"f\":\"repair\",\"target\":\"up-0\",\"value\":{\"modes\":\[{\"component\":\"up-0\",.*\"$2\":{\"ops\":\([0-9]*\),\"failed\":\([0-9]*\),\"waited_ns\":\([0-9]*\)}.*/\1 \2 \3/p" \
		"$TRASH/$1/history.jsonl"
}

suite slow disk_slow "delay: 10ms" "ops: [write, fsync]"

test_expect_success 'disk_slow 10ms on writes and syncs: each waited at least 10 ms, reads not at all; the checks pass' '
	"$TICHAOS" run slow.yaml --port-base auto --out "$TRASH/slow" >tap 2>err ||
	{ cat err tap; false; } &&
	grep -qx "ok 2 - fault 1 disk_slow: 1 of 1 injected, 1 healed" tap &&
	grep -q "\"type\":\"info\",\"f\":\"disk_slow\",\"target\":\"up-0\",\"value\":{\"slowed\":\[{\"component\":\"up-0\",\"mode\":\"slow 10000000 write,fsync\",\"delay\":\"10ms\",\"ops\":\"write,fsync\"}\]" slow/history.jsonl &&
	grep -q "\"holds\":\"disk_slow\"" slow/history.jsonl &&
	set -- $(counts slow write) && test $1 -gt 0 && test $2 = 0 &&
	test $3 -ge $(($1 * 10000000)) &&
	set -- $(counts slow fsync) && test $2 = 0 &&
	test $3 -ge $(($1 * 10000000)) &&
	set -- $(counts slow read) && test $2 = 0 && test $3 = 0 &&
	grep -q "info  up-0: its disk set right: [0-9]* reads, [0-9]* writes, [0-9]* syncs; 0, 0, 0 failed; waited [0-9.]*s$" err &&
	grep -qx "ok 3 - progress: 1 replica running, caught up in [0-9.]*s" tap &&
	grep -q "^ok 4 - consistency: 1 tables, [0-9]* rows equal on both sides" tap &&
	! grep -ls "^$TRASH/slow/" "$TICHAOS_STATE_DIR"/disks/*/record &&
	! grep -q " $TRASH/slow/" /proc/mounts
'

suite error disk_error "percent: 20" "ops: [write]"

test_expect_success 'disk_error 20% of writes: EIO reaches InnoDB, MariaDB aborts, the replica cannot reach it' '
	"$TICHAOS" run error.yaml --port-base auto --out "$TRASH/error" >tap 2>err
	test $? = 1 &&
	grep -qx "ok 2 - fault 1 disk_error: 1 of 1 injected, 1 healed" tap &&
	grep -q "\"value\":{\"failing\":\[{\"component\":\"up-0\",\"mode\":\"error 20 write [0-9]*\",\"percent\":20,\"ops\":\"write\"}\]" error/history.jsonl &&
	set -- $(counts error write) && test $2 -ge 1 && test $2 -le $1 &&
	set -- $(counts error read) && test $2 = 0 &&
	grep -q "\[ERROR\] \[FATAL\] InnoDB: pwrite(\"ib_logfile0\") returned -1, operating system error 5$" error/cluster/up-0/mariadbd.log &&
	grep -q "^not ok 3 - progress$" tap &&
	grep -q "message: \"1 of 1 replicas not caught up; down-0: .*Can.t connect to server" tap
'

suite full disk_full

test_expect_success 'disk_full: the first write fails with ENOSPC, MariaDB aborts on it' '
	"$TICHAOS" run full.yaml --port-base auto --out "$TRASH/full" >tap 2>err
	test $? = 1 &&
	grep -qx "ok 2 - fault 1 disk_full: 1 of 1 injected, 1 healed" tap &&
	grep -q "\"value\":{\"full\":\[{\"component\":\"up-0\",\"mode\":\"full\"}\]" full/history.jsonl &&
	set -- $(counts full write) && test $1 -ge 1 && test $2 = $1 &&
	grep -q "\[ERROR\] \[FATAL\] InnoDB: pwrite(\"ib_logfile0\") returned -1, operating system error 28$" full/cluster/up-0/mariadbd.log &&
	grep -q "^not ok 3 - progress$" tap
'

test_expect_success 'refused at their line: a percentage out of range, no delay, an unknown operation' '
	suite p0 disk_error "percent: 0" &&
	{ "$TICHAOS" validate p0.yaml 2>err; test $? = 2; } &&
	grep -qx "tichaos: p0.yaml:18:14: fault .disk_error.: .percent. must be above 0 and at most 100" err &&
	suite p150 disk_error "percent: 150" &&
	{ "$TICHAOS" validate p150.yaml 2>err; test $? = 2; } &&
	grep -qx "tichaos: p150.yaml:18:14: fault .disk_error.: .percent. must be above 0 and at most 100" err &&
	suite nodelay disk_slow &&
	{ "$TICHAOS" validate nodelay.yaml 2>err; test $? = 2; } &&
	grep -qx "tichaos: nodelay.yaml:14:5: fault .disk_slow. needs .delay." err &&
	suite badop disk_slow "delay: 1ms" "ops: [read, seek]" &&
	{ "$TICHAOS" validate badop.yaml 2>err; test $? = 2; } &&
	grep -qx "tichaos: badop.yaml:19:17: ops in fault .disk_slow.: unknown value .seek. (expected read, write, fsync)" err
'

# A static topology read by a relative path, its paths relative: each is
# the file's directory's. Its data directory "up-0/data" was mounted as
# "./up-0/data" when the file was named "topology.yaml" alone, which
# /proc/mounts never names, and the run aborted (seen on a real TiKV's
# data directory, "kv0").
test_expect_success 'a topology by a relative path, a relative data_dir: placed, slowed, put back' '
	test_cluster_up "$TRASH/c" --port-base auto --hosts off &&
	sed -e "s/^cluster: local$/cluster: static/" -e "/^port_base:/d" \
		-e "/^    \(data_dir\|pidfile\|log\|dir\): /s|\"$TRASH/c/|\"|" \
		"$TRASH/c/topology.yaml" >"$TRASH/c/rel.yaml" &&
	grep -q "^    data_dir: \"up-0/data\"$" "$TRASH/c/rel.yaml" &&
	(cd "$TRASH/c" && "$TICHAOS" run "$TRASH/slow.yaml" --cluster rel.yaml \
		--out "$TRASH/rel" >"$TRASH/tap" 2>"$TRASH/err") ||
	{ cat err tap; false; } &&
	grep -qx "ok 2 - fault 1 disk_slow: 1 of 1 injected, 1 healed" tap &&
	grep -q "info  up-0: its data directory on tichaos-diskfs" err &&
	! grep -q " $TRASH/c/up-0/data " /proc/mounts
'

test_done
