#!/bin/sh
# The partition fault (faults/partition.c) on the local cluster's hosts:
# cuts made, measured from inside the hosts and from outside, healed and
# measured again; SIGINT heals, and what a SIGKILL leaves the next run
# removes. On 127.0.0.1 (hosts off): t0451.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd
need_hosts

. "$ROOT/tests/func/lib-partition.sh"

# tcp_from COMPONENT ADDR PORT: a TCP connect from COMPONENT's host to
# ADDR:PORT is answered within 2 s.
tcp_from() {
	ip netns exec "tichaos-$B-$1" timeout 2 \
		bash -c "exec 3<>/dev/tcp/$2/$3" 2>/dev/null
}

# tables: the namespaces of the cluster that hold a tichaos nft table.
tables() {
	for comp in up-0 down-0 etcd-0 etcd-1 etcd-2; do
		ip netns exec "tichaos-$B-$comp" nft list tables 2>/dev/null |
			grep -q "inet tichaos" && echo "$comp"
	done
	return 0
}

test_cluster_setup 'set-up: a cluster on hosts' '
	UPA=$(addr_of "$C" up-0) && DOWNA=$(addr_of "$C" down-0) &&
	E0=$(addr_of "$C" etcd-0) && E1=$(addr_of "$C" etcd-1) &&
	E2=$(addr_of "$C" etcd-2)
' --port-base auto --hosts on

test_expect_success 'cdc cut off from the rest: sides, cuts and probes recorded, healed, no row lost' '
	suite cut 34s cutdb "target: cdc" "at: [1s]" "down: 30s" >cut.yaml || return 1
	"$TICHAOS" run cut.yaml --cluster "$C/topology.yaml" --out "$TRASH/r1" >tap 2>err &
	run=$! &&
	test_track_pid $run &&
	wait_for_condition 120 "grep -q \"\\\"f\\\":\\\"partition\\\"\" $TRASH/r1/history.jsonl 2>/dev/null && nemesis_value $TRASH/r1/history.jsonl partition | grep -q probes" &&
	while_held $run '\''
		tables >during &&
		printf "%s\n" up-0 down-0 etcd-0 etcd-1 etcd-2 >expect &&
		test_cmp expect during &&
		! tcp_from down-0 "$UPA" "$B" &&
		tcp_from etcd-0 "$UPA" "$B" &&
		tcp_from down-0 "$DOWNA" "$((B + 1))"
	'\'' &&
	wait $run &&
	echo "{\"shape\":\"one\",\"direction\":\"both\",\"sides\":[[\"down-0\"],[\"up-0\",\"etcd-0\",\"etcd-1\",\"etcd-2\"]],\"cuts\":[{\"host\":\"up-0\",\"drops\":[\"down-0\"]},{\"host\":\"down-0\",\"drops\":[\"up-0\",\"etcd-0\",\"etcd-1\",\"etcd-2\"]},{\"host\":\"etcd-0\",\"drops\":[\"down-0\"]},{\"host\":\"etcd-1\",\"drops\":[\"down-0\"]},{\"host\":\"etcd-2\",\"drops\":[\"down-0\"]}],\"probes\":{\"unanswered\":8,\"answered\":17,\"ms\":MS}}" >expect &&
	nemesis_value "$TRASH/r1/history.jsonl" partition | sed -e "s/\"ms\":[0-9]*/\"ms\":MS/" >actual &&
	test_cmp expect actual &&
	echo "{\"rejoined\":[\"up-0\",\"down-0\",\"etcd-0\",\"etcd-1\",\"etcd-2\"],\"probes\":{\"unanswered\":0,\"answered\":25,\"ms\":MS}}" >expect &&
	nemesis_value "$TRASH/r1/history.jsonl" rejoin | sed -e "s/\"ms\":[0-9]*/\"ms\":MS/" >actual &&
	test_cmp expect actual &&
	grep -qx "ok 2 - fault 1 partition: 1 of 1 injected, 1 healed" tap &&
	grep -q "^ok 3 - consistency: 1 tables, [0-9]* rows equal on both sides" tap &&
	grep -q "partition cdc (down-0 | up-0 etcd-0 etcd-1 etcd-2), [0-9.]*s to [0-9.]*s" "$TRASH/r1/report.html" &&
	tables >after &&
	test ! -s after
'

test_expect_success 'the probe across the cut waits out probe_timeout' '
	ms=$(nemesis_value "$TRASH/r1/history.jsonl" partition | sed -e "s/.*\"ms\":\([0-9]*\).*/\1/") &&
	test "$ms" -ge 1000
'

test_expect_success 'direction in: only the target drops, TCP stops both ways' '
	suite in 6s indb "target: down-0" "direction: in" "at: [1s]" "down: 2s" >in.yaml &&
	"$TICHAOS" run in.yaml --cluster "$C/topology.yaml" --out "$TRASH/r2" >tap 2>err &&
	echo "{\"shape\":\"one\",\"direction\":\"in\",\"sides\":[[\"down-0\"],[\"up-0\",\"etcd-0\",\"etcd-1\",\"etcd-2\"]],\"cuts\":[{\"host\":\"down-0\",\"drops\":[\"up-0\",\"etcd-0\",\"etcd-1\",\"etcd-2\"]}],\"probes\":{\"unanswered\":8,\"answered\":17,\"ms\":MS}}" >expect &&
	nemesis_value "$TRASH/r2/history.jsonl" partition | sed -e "s/\"ms\":[0-9]*/\"ms\":MS/" >actual &&
	test_cmp expect actual
'

test_expect_success 'bridge: two sides cut, the one between reaches both' '
	suite bridge 6s bridgedb "shape: bridge" "at: [1s]" "down: 2s" >bridge.yaml &&
	"$TICHAOS" run bridge.yaml --cluster "$C/topology.yaml" --out "$TRASH/r3" >tap 2>err &&
	nemesis_value "$TRASH/r3/history.jsonl" partition >value &&
	h="\"[a-z]+-[0-9]\"" &&
	cut="\{\"host\":$h,\"drops\":\[$h,$h\]\}" &&
	grep -Eq "^\{\"shape\":\"bridge\",\"direction\":\"both\",\"sides\":\[\[$h,$h\],\[$h\],\[$h,$h\]\],\"cuts\":\[$cut,$cut,$cut,$cut\],\"probes\":\{\"unanswered\":8,\"answered\":17," value &&
	grep -qx "ok 2 - fault 1 partition: 1 of 1 injected, 1 healed" tap
'

test_expect_success 'ring: each host reaches its neighbours, not the two across' '
	suite ring 6s ringdb "shape: ring" "at: [1s]" "down: 2s" >ring.yaml &&
	"$TICHAOS" run ring.yaml --cluster "$C/topology.yaml" --out "$TRASH/rr" >tap 2>err &&
	nemesis_value "$TRASH/rr/history.jsonl" partition >value &&
	h="\"[a-z]+-[0-9]\"" &&
	cut="\{\"host\":$h,\"drops\":\[$h,$h\]\}" &&
	grep -Eq "^\{\"shape\":\"ring\",\"direction\":\"both\",\"cuts\":\[$cut,$cut,$cut,$cut,$cut\],\"probes\":\{\"unanswered\":10,\"answered\":15," value &&
	grep -qx "ok 2 - fault 1 partition: 1 of 1 injected, 1 healed" tap
'

test_expect_success 'halves: a seed draws the same sides again' '
	suite halves 6s halvesdb "shape: halves" "at: [1s]" "down: 2s" >halves.yaml &&
	"$TICHAOS" run halves.yaml --cluster "$C/topology.yaml" --out "$TRASH/r4" >tap 2>err &&
	"$TICHAOS" run halves.yaml --cluster "$C/topology.yaml" --out "$TRASH/r5" >tap 2>err &&
	nemesis_value "$TRASH/r4/history.jsonl" partition | sed -e "s/,\"probes\".*//" >a &&
	nemesis_value "$TRASH/r5/history.jsonl" partition | sed -e "s/,\"probes\".*//" >b &&
	test_cmp a b &&
	h="\"[a-z]+-[0-9]\"" &&
	grep -Eq "\"sides\":\[\[$h,$h\],\[$h,$h,$h\]\]" a
'

partition_sigint_test r6 5 25

test_expect_success 'SIGKILL during a cut: the next run removes what was left, and says so' '
	"$TICHAOS" run int.yaml --cluster "$C/topology.yaml" --out "$TRASH/r7" >tap 2>err &
	run=$! &&
	test_track_pid $run &&
	wait_for_condition 120 "nemesis_value $TRASH/r7/history.jsonl partition 2>/dev/null | grep -q probes" &&
	kill -9 $run &&
	{ wait $run; code=$?; } &&
	test "$code" = 137 &&
	tables >left &&
	printf "%s\n" up-0 down-0 etcd-0 etcd-1 etcd-2 >expect &&
	test_cmp expect left &&
	insert_suite next 2s 1 nextdb 10 >next.yaml &&
	"$TICHAOS" run next.yaml --cluster "$C/topology.yaml" --out "$TRASH/r8" >tap 2>err &&
	grep -q "warn  down-0: removing a partition an earlier run left (it dropped what came from $UPA $E0 $E1 $E2)$" err &&
	grep -q "warn  up-0: removing a partition an earlier run left (it dropped what came from $DOWNA)$" err &&
	tables >after &&
	test ! -s after
'

test_expect_success 'a run killed in a cut on a cluster of its own: the next run takes its hosts down' '
	mkdir -p "$TRASH/runs" || return 1
	"$TICHAOS" run int.yaml --port-base auto --hosts on --out "$TRASH/runs/a" >tap 2>err &
	run=$! &&
	test_track_pid $run &&
	wait_for_condition 60 "nemesis_value $TRASH/runs/a/history.jsonl partition 2>/dev/null | grep -q probes" &&
	A=$(cat "$TRASH/runs/a/cluster/port-base") &&
	ip netns list | grep -q "^tichaos-$A-down-0" &&
	kill -9 $run &&
	wait $run
	insert_suite next 1s 1 nextdb 10 >next.yaml &&
	"$TICHAOS" run next.yaml --port-base auto --out "$TRASH/runs/b" >tap 2>err &&
	grep -q "warn  stopped the cluster of $TRASH/runs/a: its runner (pid $run) is gone" err &&
	! ip netns list | grep -q "^tichaos-$A-" &&
	! ls /sys/class/net | grep -q "^tc[bv]$A"
'

test_expect_success 'suites/partition_cdc.yaml at 60 s passes: two cuts of the cdc role, every check' '
	"$TICHAOS" run "$ROOT/suites/partition_cdc.yaml" --duration 60s --port-base auto \
		--hosts on --out "$TRASH/pcdc" >tap 2>err || { tail -5 err; false; }
	grep -qx "ok 4 - fault 1 partition: 2 of 2 injected, 2 healed" tap &&
	test "$(grep -c "^ok " tap)" = 7 &&
	test "$(grep -c "\"type\":\"info\",\"f\":\"rejoin\".*\"unanswered\":0,\"answered\":25" "$TRASH/pcdc/history.jsonl")" = 2
'

test_expect_success 'refused (exit 2, one line): a shape too big, bad options' '
	suite nohosts 5s nohostsdb "target: cdc" "at: [1s]" "down: 2s" >nohosts.yaml &&
	kline=$(grep -n "kind: partition" nohosts.yaml | cut -d: -f1) &&
	awk "/^  - name: \"etcd-[12]\"/ { skip = 1; next } /^  - name:/ { skip = 0 } !skip" \
		"$C/topology.yaml" >three.yaml &&
	test "$(grep -c "^  - name:" three.yaml)" = 3 &&
	"$TICHAOS" run ring.yaml --cluster three.yaml --out "$TRASH/r10" >tap 2>all
	test $? = 2 &&
	grep -v "^[0-9:.]* info  " all >err &&
	echo "tichaos: ring.yaml:$((kline + 1)):12: fault '\''partition'\'': shape ring needs 5 hosts at least; this cluster has 3" >expect &&
	test_cmp expect err &&
	suite v1 5s v1db "at: [1s]" "down: 2s" >v1.yaml &&
	"$TICHAOS" validate v1.yaml >out 2>err
	test $? = 2 &&
	echo "tichaos: v1.yaml:$kline:5: fault '\''partition'\'' with shape one needs a '\''target'\'': the side cut off from the rest" >expect &&
	test_cmp expect err &&
	suite v2 5s v2db "shape: halves" "target: cdc" "at: [1s]" "down: 2s" >v2.yaml &&
	"$TICHAOS" validate v2.yaml >out 2>err
	test $? = 2 &&
	echo "tichaos: v2.yaml:$((kline + 2)):13: fault '\''partition'\'': '\''target'\'' goes with shape one; shape halves splits every host" >expect &&
	test_cmp expect err &&
	suite v5 5s v5db "shape: halves" "pick: all" "at: [1s]" "down: 2s" >v5.yaml &&
	"$TICHAOS" validate v5.yaml >out 2>err
	test $? = 2 &&
	echo "tichaos: v5.yaml:$((kline + 2)):11: fault '\''partition'\'': '\''pick'\'' goes with shape one; shape halves splits every host" >expect &&
	test_cmp expect err &&
	suite v3 5s v3db "shape: halves" "direction: in" "at: [1s]" "down: 2s" >v3.yaml &&
	"$TICHAOS" validate v3.yaml >out 2>err
	test $? = 2 &&
	echo "tichaos: v3.yaml:$((kline + 2)):16: fault '\''partition'\'': '\''direction'\'' goes with shape one" >expect &&
	test_cmp expect err &&
	suite v4 5s v4db "target: cdc" "at: [1s]" >v4.yaml &&
	"$TICHAOS" validate v4.yaml >out 2>err
	test $? = 2 &&
	echo "tichaos: v4.yaml:$kline:5: fault '\''partition'\'' needs a '\''down'\'' above 0s: the heal is what joins the hosts again" >expect &&
	test_cmp expect err
'

test_done
