#!/bin/sh
# The partition fault on a cluster whose components all listen on
# 127.0.0.1 (lib/netcls.h): each component's processes in a class of
# net_cls, a table of nftables per host dropping what the other side's
# classes send to it, by port and by connection label; measured from
# inside the classes and from outside, healed and measured again. A
# component restarted during a cut joins its class; SIGINT heals; what a
# SIGKILL leaves the next run removes; `cluster down` removes the classes.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd
why=$(netcls_missing) && skip_machine "$why"

. "$ROOT/tests/func/lib-partition.sh"

# tables: the components of the cluster with a table of cuts.
tables() {
	for comp in up-0 down-0 etcd-0; do
		nft list tables | grep -qx "table inet $P$comp" && echo "$comp"
	done
	return 0
}

# from COMPONENT PORT: a TCP connect to 127.0.0.1:PORT from a process of
# COMPONENT's class ("-": of none) is answered within 2 s.
from() {
	if [ "$1" = - ]; then
		timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$2" 2>/dev/null
	else
		sh -c 'echo $$ >"$1/cgroup.procs" &&
			exec timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$2"' \
			sh "$(netcls_root)/$P$1" "$2" 2>/dev/null
	fi
}

# in_class PID COMPONENT: process PID is in COMPONENT's class.
in_class() {
	grep -q "net_cls[^:]*:/$P$2\$" "/proc/$1/cgroup"
}

# label_drops COMPONENT: packets its table dropped by connection label.
label_drops() {
	nft list table inet "$P$1" |
		sed -n "s/.* ct label [0-9]* counter packets \([0-9]*\) .*/\1/p" |
		awk '{ n += $1 } END { print n + 0 }'
}

test_cluster_setup 'set-up: a cluster on 127.0.0.1' '
	P=$(class_prefix "$C") &&
	test "$(cat "$C/hosts")" = "off"
' --port-base auto --hosts off

test_expect_success 'cdc cut off from the rest: sides, cuts and probes recorded, the open replication cut, healed, no row lost' '
	suite cut 34s cutdb "target: cdc" "at: [1s]" "down: 30s" >cut.yaml || return 1
	"$TICHAOS" run cut.yaml --cluster "$C/topology.yaml" --out "$TRASH/r1" >tap 2>err &
	run=$! && test_track_pid $run &&
	wait_for_condition 120 "nemesis_value $TRASH/r1/history.jsonl partition | grep -q probes" &&
	while_held $run '\''
		tables >during &&
		printf "%s\n" up-0 down-0 etcd-0 >expect &&
		test_cmp expect during &&
		in_class "$(cat "$C/down-0/tichaos.pid")" down-0 &&
		in_class "$(cat "$C/up-0/tichaos.pid")" up-0 &&
		wait_for_condition 10 "test \$(label_drops down-0) -gt 0" &&
		! from down-0 "$B" && ! from down-0 "$((B + 2))" &&
		! from up-0 "$((B + 1))" &&
		from etcd-0 "$B" && from down-0 "$((B + 1))" && from - "$B" && from - "$((B + 1))"
	'\'' &&
	wait $run &&
	echo "{\"shape\":\"one\",\"direction\":\"both\",\"sides\":[[\"down-0\"],[\"up-0\",\"etcd-0\"]],\"cuts\":[{\"host\":\"up-0\",\"drops\":[\"down-0\"]},{\"host\":\"down-0\",\"drops\":[\"up-0\",\"etcd-0\"]},{\"host\":\"etcd-0\",\"drops\":[\"down-0\"]}],\"probes\":{\"unanswered\":4,\"answered\":5,\"ms\":MS}}" >expect &&
	nemesis_value "$TRASH/r1/history.jsonl" partition | sed -e "s/\"ms\":[0-9]*/\"ms\":MS/" >actual &&
	test_cmp expect actual &&
	echo "{\"rejoined\":[\"up-0\",\"down-0\",\"etcd-0\"],\"probes\":{\"unanswered\":0,\"answered\":9,\"ms\":MS}}" >expect &&
	nemesis_value "$TRASH/r1/history.jsonl" rejoin | sed -e "s/\"ms\":[0-9]*/\"ms\":MS/" >actual &&
	test_cmp expect actual &&
	grep -qx "ok 2 - fault 1 partition: 1 of 1 injected, 1 healed" tap &&
	grep -q "^ok 3 - consistency: 1 tables, [0-9]* rows equal on both sides" tap &&
	grep -qx "ok 4 - progress: 1 replica running, caught up in [0-9.]*s" tap &&
	tables >after &&
	test ! -s after &&
	from down-0 "$B"
'

test_expect_success 'direction in: only the target drops, TCP stops both ways' '
	suite in 32s indb "target: cdc" "direction: in" "at: [1s]" "down: 30s" >in.yaml || return 1
	"$TICHAOS" run in.yaml --cluster "$C/topology.yaml" --out "$TRASH/r2" >tap 2>err &
	run=$! && test_track_pid $run &&
	wait_for_condition 120 "nemesis_value $TRASH/r2/history.jsonl partition | grep -q probes" &&
	while_held $run '\''
		echo down-0 >expect && tables >during && test_cmp expect during &&
		! from down-0 "$B" && ! from up-0 "$((B + 1))" && from up-0 "$((B + 2))"
	'\'' &&
	wait $run &&
	echo "{\"shape\":\"one\",\"direction\":\"in\",\"sides\":[[\"down-0\"],[\"up-0\",\"etcd-0\"]],\"cuts\":[{\"host\":\"down-0\",\"drops\":[\"up-0\",\"etcd-0\"]}],\"probes\":{\"unanswered\":4,\"answered\":5,\"ms\":MS}}" >expect &&
	nemesis_value "$TRASH/r2/history.jsonl" partition | sed -e "s/\"ms\":[0-9]*/\"ms\":MS/" >actual &&
	test_cmp expect actual &&
	grep -qx "ok 2 - fault 1 partition: 1 of 1 injected, 1 healed" tap &&
	grep -q "^ok 3 - consistency: " tap
'

test_expect_success 'a component restarted during a cut joins its class: the cut holds for it' '
	{
		suite rs 34s rsdb "target: etcd-0" "at: [1s]" "down: 30s" | sed "/^checks:/,\$d" &&
		printf "  - kind: kill\n    target: etcd-0\n    at: [3s]\n    down: 1s\n" &&
		printf "checks:\n  - kind: consistency\n"
	} >rs.yaml &&
	old=$(cat "$C/etcd-0/tichaos.pid") || return 1
	"$TICHAOS" run rs.yaml --cluster "$C/topology.yaml" --out "$TRASH/r3" >tap 2>err &
	run=$! && test_track_pid $run &&
	wait_for_condition 120 "grep -q \"\\\"type\\\":\\\"info\\\",\\\"f\\\":\\\"restart\\\"\" $TRASH/r3/history.jsonl" &&
	while_held $run '\''
		new=$(cat "$C/etcd-0/tichaos.pid") && test "$new" != "$old" &&
		in_class "$new" etcd-0 && ! from etcd-0 "$B" && from - "$((B + 2))"
	'\'' &&
	wait $run &&
	grep -qx "ok 2 - fault 1 partition: 1 of 1 injected, 1 healed" tap &&
	grep -qx "ok 3 - fault 2 kill: 1 of 1 injected, 1 healed" tap &&
	grep -q "^ok 4 - consistency: " tap
'

partition_sigint_test r4 3 9

test_expect_success 'SIGKILL during a cut: the next run removes what was left, and says so' '
	"$TICHAOS" run int.yaml --cluster "$C/topology.yaml" --out "$TRASH/r5" >tap 2>err &
	run=$! &&
	wait_for_condition 120 "nemesis_value $TRASH/r5/history.jsonl partition | grep -q probes" &&
	kill -9 $run &&
	{ wait $run; code=$?; } &&
	test "$code" = 137 &&
	tables >left &&
	printf "%s\n" up-0 down-0 etcd-0 >expect &&
	test_cmp expect left &&
	! from down-0 "$B" &&
	insert_suite next 2s 1 nextdb 10 >next.yaml &&
	"$TICHAOS" run next.yaml --cluster "$C/topology.yaml" --out "$TRASH/r6" >tap 2>err &&
	grep -q "warn  removed a partition an earlier run left on the loopback (nftables $P[a-z0-9-]* $P[a-z0-9-]* $P[a-z0-9-]*)$" err &&
	tables >after &&
	test ! -s after &&
	! ls "$(netcls_root)" | grep -q "^$P" &&
	grep -q "^ok 1 - workload 1 insert: [0-9]* ok, 0 fail, 0 info$" tap
'

# both_cut: while both clusters are cut (t0451 "two clusters"): E's own
# replication, not cut, carries a row; C's cut holds; other classes.
both_cut() {
	sql "$BE" "CREATE DATABASE probe; CREATE TABLE probe.t (id INT PRIMARY KEY); INSERT INTO probe.t VALUES (7)" &&
	wait_for_condition 30 "test \"\$(sql $((BE + 1)) \"SELECT id FROM probe.t\" 2>/dev/null)\" = 7" &&
	test "$(tables | wc -l)" = 3 &&
	! from down-0 "$B" &&
	test "$(cat "$(netcls_root)/${P}down-0/net_cls.classid")" != \
		"$(cat "$(netcls_root)/${Q}down-0/net_cls.classid")"
}

test_expect_success 'two clusters cut at once: each cut keeps to its own cluster (classes of their own)' '
	E="$TRASH/e" &&
	test_cluster_up "$E" --port-base auto --hosts off &&
	BE=$(cat "$E/port-base") && Q=$(class_prefix "$E") &&
	suite both 34s bothdb "target: cdc" "at: [1s]" "down: 30s" >both.yaml &&
	suite other 34s otherdb "target: etcd-0" "at: [1s]" "down: 30s" >other.yaml ||
	return 1
	"$TICHAOS" run both.yaml --cluster "$C/topology.yaml" --out "$TRASH/r9" >tap 2>err &
	run=$! && test_track_pid $run
	"$TICHAOS" run other.yaml --cluster "$E/topology.yaml" --out "$TRASH/r10" >tap2 2>err2 &
	run2=$! && test_track_pid $run2 &&
	wait_for_condition 120 "nemesis_value $TRASH/r9/history.jsonl partition | grep -q probes" &&
	while_held $run '\''
		wait_for_condition 120 "nemesis_value $TRASH/r10/history.jsonl partition | grep -q probes" &&
		while_held $run2 both_cut
	'\'' &&
	wait $run && wait $run2 &&
	grep -qx "ok 2 - fault 1 partition: 1 of 1 injected, 1 healed" tap &&
	grep -qx "ok 2 - fault 1 partition: 1 of 1 injected, 1 healed" tap2 &&
	grep -qx "ok 4 - progress: 1 replica running, caught up in [0-9.]*s" tap &&
	grep -qx "ok 4 - progress: 1 replica running, caught up in [0-9.]*s" tap2 &&
	tables >after && test ! -s after &&
	"$TICHAOS" cluster down --dir "$E" &&
	! ls "$(netcls_root)" | grep -q "^$Q"
'

test_expect_success 'cluster down: the classes go' '
	suite short 4s shortdb "target: cdc" "at: [1s]" "down: 1s" >short.yaml &&
	"$TICHAOS" run short.yaml --cluster "$C/topology.yaml" --out "$TRASH/r7" >tap 2>err &&
	ls "$(netcls_root)" | grep "^$P" >classes &&
	printf "%s\n" "${P}down-0" "${P}etcd-0" "${P}up-0" >expect &&
	test_cmp expect classes &&
	"$TICHAOS" cluster down --dir "$C" &&
	! ls "$(netcls_root)" | grep -q "^$P"
'

test_expect_success 'refused (exit 2, one line): a cluster of one component' '
	D="$TRASH/d" &&
	test_cluster_up "$D" --port-base auto --hosts off &&
	awk "/^  - name: \"(down|etcd)-0\"/ { skip = 1; next } /^  - name:/ { skip = 0 } !skip" \
		"$D/topology.yaml" >one.yaml &&
	test "$(grep -c "^  - name:" one.yaml)" = 1 &&
	suite alone 5s alonedb "shape: halves" "at: [1s]" "down: 2s" >alone.yaml &&
	"$TICHAOS" run alone.yaml --cluster one.yaml --out "$TRASH/r8" >tap 2>all
	test $? = 2 &&
	grep -v "^[0-9:.]* info  " all >err &&
	kline=$(grep -n "kind: partition" alone.yaml | cut -d: -f1) &&
	echo "tichaos: alone.yaml:$kline:5: fault '\''partition'\'' needs two components at least; this cluster has 1" >expect &&
	test_cmp expect err
'

test_done
