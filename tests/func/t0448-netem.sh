#!/bin/sh
# The netem fault (faults/netem.c) on the local cluster's hosts: loss,
# duplicate and rate measured by the fault and by the test, healed and
# measured again; delay where the kernel has netem, refused where it has
# not; SIGINT heals, and what a SIGKILL leaves the next run removes;
# refusals with their exact line.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd tc
need_hosts

# on_host COMPONENT COMMAND: COMMAND in COMPONENT's host (its namespace).
on_host() {
	ip netns exec "tichaos-$B-$1" sh -c "$2"
}

. "$ROOT/tests/func/lib-netem.sh"

# sql_ms QUERY: how long QUERY on up-0 takes from here, its result
# discarded, in milliseconds.
sql_ms() {
	sql_start=$(test_now_ms_)
	mariadb --no-defaults -h"$UPA" -P"$B" -uroot -N -B -e "$1" >/dev/null ||
		return 1
	echo $(( $(test_now_ms_) - sql_start ))
}

test_cluster_setup 'set-up: a cluster on hosts' '
	UPA=$(addr_of "$C" up-0)
' --port-base auto --hosts on

netem_loss_test 'loss and duplicate on cdc: the counters moved by the percentages, healed, no row lost' \
	"$C/topology.yaml" 9s 4s 120

netem_rate_test 'rate on upstream: at most 1mbit measured by the fault and by a query, above it once healed' \
	"$C/topology.yaml" 14s 120 '
	ms=$(sql_ms "SELECT REPEAT(\"x\", 250000)") &&
	echo "250000 bytes in $ms ms while degraded" &&
	test "$ms" -ge 1600' '
	ms=$(sql_ms "SELECT REPEAT(\"x\", 250000)") &&
	echo "250000 bytes in $ms ms once healed" &&
	test "$ms" -lt 1000'

if [ "$NETEM" = yes ]; then
	test_expect_success 'delay on cdc: connects take 90 ms at least, less once healed' '
		suite delay 25s delaydb "target: cdc" "delay: 100ms" "delay_jitter: 10ms" "at: [1s]" "down: 20s" >delay.yaml || return 1
		"$TICHAOS" run delay.yaml --cluster "$C/topology.yaml" --out "$TRASH/r3" >tap 2>err &
		run=$! &&
		test_track_pid $run &&
		wait_for_condition 120 "nemesis_value $TRASH/r3/history.jsonl netem 2>/dev/null | grep -q degraded" &&
		DOWNA=$(addr_of "$C" down-0) &&
		while_held $run "
			start=\$(test_now_ms_) &&
			{ timeout 5 bash -c \"exec 3<>/dev/tcp/$DOWNA/1\" 2>/dev/null; true; } &&
			took=\$(( \$(test_now_ms_) - start ))
		" &&
		wait $run &&
		test "$took" -ge 90 &&
		nemesis_value "$TRASH/r3/history.jsonl" netem >value &&
		echo "{\"delay\":\"100ms\",\"delay_jitter\":\"10ms\",\"degraded\":[{\"component\":\"down-0\",\"connect\":{\"answered\":21,\"of\":21,\"median_us\":N,\"sooner\":0}}]}" >expect &&
		masked median_us <value >actual &&
		test_cmp expect actual &&
		test "$(number median_us <value)" -ge 90000 &&
		nemesis_value "$TRASH/r3/history.jsonl" restore_link >value &&
		test "$(number median_us <value)" -lt 90000 &&
		grep -qx "ok 2 - fault 1 netem: 1 of 1 injected, 1 healed" tap &&
		links >after &&
		test ! -s after
	'
	test_skip "refused where the kernel has no netem" \
		"this kernel has netem"
else
	test_skip "delay on cdc: connects take 90 ms at least, less once healed" \
		"the kernel has no netem queueing discipline (sch_netem)"
	netem_refused_test 'refused where the kernel has no netem: delay, one line, exit 2' \
		"$C/topology.yaml"
fi

# The suite of the interrupt tests: loss and rate on cdc, down long
# enough for a signal.
suite int 30s intdb "target: cdc" "loss: 10" "rate: 1mbit" "at: [1s]" "down: 20s" >"$TRASH/int.yaml"

test_expect_success 'SIGINT while degraded: restored (restore_link recorded), exit 4' '
	"$TICHAOS" run int.yaml --cluster "$C/topology.yaml" --out "$TRASH/r4" >tap 2>err &
	run=$! &&
	test_track_pid $run &&
	wait_for_condition 120 "nemesis_value $TRASH/r4/history.jsonl netem 2>/dev/null | grep -q degraded" &&
	links >during &&
	echo down-0 >expect &&
	test_cmp expect during &&
	kill -INT $run &&
	{ wait $run; code=$?; } &&
	test "$code" = 4 &&
	nemesis_value "$TRASH/r4/history.jsonl" restore_link >value &&
	echo "{\"restored\":[{\"component\":\"down-0\",\"probes\":{\"answered\":200,\"of\":200},\"rate\":{\"bytes\":N,\"ms\":N,\"kbit_per_s\":N}}]}" >expect &&
	masked "bytes|ms|kbit_per_s" <value >actual &&
	test_cmp expect actual &&
	links >after &&
	test ! -s after
'

netem_sigkill_test 'SIGKILL while degraded: the next run restores the link, and says so' \
	"$C/topology.yaml" 30

test_expect_success 'refused (exit 2, one line): no host of its own, no option, down 0, bad values' '
	D="$TRASH/d" &&
	test_cluster_up "$D" --port-base auto --hosts off &&
	suite nohosts 5s nohostsdb "target: cdc" "loss: 10" "at: [1s]" "down: 2s" >nohosts.yaml &&
	"$TICHAOS" run nohosts.yaml --cluster "$D/topology.yaml" --out "$TRASH/r7" >tap 2>all
	test $? = 2 &&
	grep -v "^[0-9:.]* info  " all >err &&
	kline=$(grep -n "kind: netem" nohosts.yaml | cut -d: -f1) &&
	echo "tichaos: nohosts.yaml:$((kline + 1)):13: fault '\''netem'\'': down-0 has no host of its own whose link to degrade (docs/topology.md, Hosts; the local cluster with --hosts on makes them)" >expect &&
	test_cmp expect err &&
	refused() {
		refused_name=$1 &&
		shift &&
		suite "$refused_name" 5s "${refused_name}db" "$@" >"$refused_name.yaml" &&
		"$TICHAOS" validate "$refused_name.yaml" >out 2>err
		test $? = 2
	} &&
	refused none "target: cdc" "at: [1s]" "down: 2s" &&
	echo "tichaos: none.yaml:$kline:5: fault '\''netem'\'' needs at least one of delay, loss, duplicate, reorder, rate" >expect &&
	test_cmp expect err &&
	refused nodown "target: cdc" "loss: 10" "at: [1s]" &&
	echo "tichaos: nodown.yaml:$kline:5: fault '\''netem'\'' needs a '\''down'\'' above 0s: the heal is what restores the link" >expect &&
	test_cmp expect err &&
	refused down0 "target: cdc" "loss: 10" "at: [1s]" "down: 0s" &&
	echo "tichaos: down0.yaml:$kline:5: fault '\''netem'\'' needs a '\''down'\'' above 0s: the heal is what restores the link" >expect &&
	test_cmp expect err &&
	refused fine "target: cdc" "loss: 0.05" "at: [1s]" "down: 2s" &&
	echo "tichaos: fine.yaml:$((kline + 2)):11: loss in fault '\''netem'\'' must be a percentage from 0.1 to 100 in steps of 0.1 (0: none), not 0.05" >expect &&
	test_cmp expect err &&
	refused over "target: cdc" "duplicate: 101" "at: [1s]" "down: 2s" &&
	echo "tichaos: over.yaml:$((kline + 2)):16: duplicate in fault '\''netem'\'' must be a percentage from 0.1 to 100 in steps of 0.1 (0: none), not 101" >expect &&
	test_cmp expect err &&
	refused bytes "target: cdc" "rate: 1mbps" "at: [1s]" "down: 2s" &&
	echo "tichaos: bytes.yaml:$((kline + 2)):11: rate in fault '\''netem'\'': invalid rate '\''1mbps'\'' (a whole number and bit, kbit, mbit or gbit: e.g. '\''500kbit'\'', '\''1mbit'\'')" >expect &&
	test_cmp expect err &&
	refused slow "target: cdc" "rate: 10kbit" "at: [1s]" "down: 2s" &&
	echo "tichaos: slow.yaml:$((kline + 2)):11: rate in fault '\''netem'\'' must be from 100kbit to 1gbit, not 10kbit" >expect &&
	test_cmp expect err &&
	refused wide "target: cdc" "delay: 10ms" "delay_jitter: 10ms" "at: [1s]" "down: 2s" &&
	echo "tichaos: wide.yaml:$((kline + 3)):19: fault '\''netem'\'': '\''delay_jitter'\'' must be below '\''delay'\'' (10ms)" >expect &&
	test_cmp expect err &&
	refused alone "target: cdc" "reorder: 25" "at: [1s]" "down: 2s" &&
	echo "tichaos: alone.yaml:$((kline + 2)):14: fault '\''netem'\'': '\''reorder'\'' needs a '\''delay'\'': netem sends that share at once and delays the rest" >expect &&
	test_cmp expect err
'

test_done
