#!/bin/sh
# The netem and clock faults on a static cluster over SSH: the local
# cluster's hosts with an sshd each (cluster up --sshd), driven through
# DIR/ssh-topology.yaml, where netem degrades a host's link with nft and
# tc run there through its connection; loss, duplicate and rate measured
# and healed, delay refused where the kernel has no netem, and what a
# SIGKILLed run leaves the next run removes over SSH, saying so. The
# clock fault restarts a server on its SSH host under libfaketime.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd sshd tc
need_hosts

C="$TRASH/c"
T="$C/ssh-topology.yaml"

# over_ssh HOST COMMAND: COMMAND on HOST through its sshd.
over_ssh() {
	ssh -i "$C/ssh/id_ed25519" -o UserKnownHostsFile="$C/ssh/known_hosts" \
		-o BatchMode=yes "root@$(addr_of "$C" "$1")" "$2"
}

# on_host COMPONENT COMMAND: COMMAND on COMPONENT's host, over SSH.
on_host() {
	over_ssh "$1" "$2"
}

. "$ROOT/tests/func/lib-netem.sh"

test_cluster_setup 'set-up: the hosts with an sshd each, the topology over SSH' '
	test -s "$T"
' --port-base auto --hosts on --sshd

netem_loss_test 'loss and duplicate on cdc over SSH: the table made there, counters by the percentages, healed' \
	"$T" 14s 8s 90

test_expect_success 'rate on upstream over SSH: tbf made there, at most 1mbit out of the host, above it once healed' '
	suite rate 16s ratedb "target: upstream" "rate: 1mbit" "at: [1s]" "down: 8s" >rate.yaml || return 1
	"$TICHAOS" run rate.yaml --cluster "$T" --out "$TRASH/r2" >tap 2>err &
	run=$! &&
	test_track_pid $run &&
	wait_for_condition 90 "nemesis_value $TRASH/r2/history.jsonl netem 2>/dev/null | grep -q degraded" &&
	over_ssh up-0 "tc qdisc show dev eth0" >qdisc &&
	grep -q "^qdisc tbf 7463: root .*rate 1Mbit burst 3028b" qdisc &&
	wait $run &&
	nemesis_value "$TRASH/r2/history.jsonl" netem >value &&
	echo "{\"rate\":\"1mbit\",\"degraded\":[{\"component\":\"up-0\",\"rate\":{\"bytes\":N,\"ms\":N,\"kbit_per_s\":N}}]}" >expect &&
	masked "bytes|ms|kbit_per_s" <value >actual &&
	test_cmp expect actual &&
	kbit=$(number kbit_per_s <value) &&
	test "$kbit" -le 1100 && test "$kbit" -ge 500 &&
	test "$(number ms <value)" -ge 900 &&
	nemesis_value "$TRASH/r2/history.jsonl" restore_link >value &&
	echo "{\"restored\":[{\"component\":\"up-0\",\"rate\":{\"bytes\":N,\"ms\":N,\"kbit_per_s\":N}}]}" >expect &&
	masked "bytes|ms|kbit_per_s" <value >actual &&
	test_cmp expect actual &&
	test "$(number kbit_per_s <value)" -gt 1000 &&
	grep -qx "ok 2 - fault 1 netem: 1 of 1 injected, 1 healed" tap &&
	links >after &&
	test ! -s after
'

if [ "$NETEM" = yes ]; then
	test_skip "refused over SSH where the kernel has no netem" \
		"this kernel has netem"
else
	test_expect_success 'refused over SSH where the kernel has no netem: delay, one line, exit 2' '
		suite nonetem 5s nonetemdb "target: cdc" "delay: 100ms" "delay_jitter: 10ms" "at: [1s]" "down: 2s" >nonetem.yaml &&
		"$TICHAOS" run nonetem.yaml --cluster "$T" --out "$TRASH/r3" >tap 2>all
		test $? = 2 &&
		grep -v "^[0-9:.]* info  " all >err &&
		kline=$(grep -n "kind: netem" nonetem.yaml | cut -d: -f1) &&
		echo "tichaos: nonetem.yaml:$((kline + 2)):12: fault '\''netem'\'': the kernel has no netem queueing discipline (sch_netem), which delay, delay_jitter and reorder need" >expect &&
		test_cmp expect err &&
		test ! -e "$TRASH/r3/history.jsonl" &&
		over_ssh down-0 "tc qdisc show dev lo" >lo &&
		! grep -q netem lo
	'
fi

test_expect_success 'SIGKILL while degraded over SSH: the next run restores the link over SSH, and says so' '
	suite int 45s intdb "target: cdc" "loss: 10" "rate: 1mbit" "at: [1s]" "down: 30s" >int.yaml || return 1
	"$TICHAOS" run int.yaml --cluster "$T" --out "$TRASH/r5" >tap 2>err &
	run=$! &&
	test_track_pid $run &&
	wait_for_condition 90 "nemesis_value $TRASH/r5/history.jsonl netem 2>/dev/null | grep -q degraded" &&
	kill -9 $run &&
	{ wait $run; code=$?; } &&
	test "$code" = 137 &&
	links >left &&
	echo down-0 >expect &&
	test_cmp expect left &&
	insert_suite next 2s 1 nextdb 10 >next.yaml &&
	"$TICHAOS" run next.yaml --cluster "$T" --out "$TRASH/r6" >tap 2>err &&
	grep "warn  " err | sed -e "s/^[0-9:.]* //" >warnings &&
	echo "warn  down-0: removing a degraded link an earlier run left (rate 1Mbit, loss 10.0%)" >expect &&
	test_cmp expect warnings &&
	links >after &&
	test ! -s after &&
	over_ssh down-0 "tc qdisc show dev eth0" >qdisc &&
	grep -q "^qdisc noqueue 0: root" qdisc
'

# The clock fault over SSH: the server restarted on its SSH host under
# libfaketime (found there), its clock read back through SQL.
if command -v faketime >/dev/null 2>&1; then
	test_expect_success 'clock over SSH: up-0 restarted there under libfaketime, +1h measured, healed to 0' '
		{
			insert_suite ck 8s 3 ckdb 50 &&
			printf "    ignore_errors: true\nfaults:\n  - kind: clock\n    target: up-0\n" &&
			printf "    offset: +1h\n    at: [1s]\n    down: 3s\nchecks:\n  - kind: consistency\n"
		} >ck.yaml &&
		"$TICHAOS" run ck.yaml --cluster "$T" --out "$TRASH/r7" >tap 2>err &&
		grep -qx "ok 2 - fault 1 clock: 1 of 1 injected, 1 healed" tap &&
		grep -q "^ok 3 - consistency: " tap &&
		grep "\"type\":\"info\",\"f\":\"clock\"" "$TRASH/r7/history.jsonl" |
			grep -Eq "\"moved\":\[\{\"component\":\"up-0\",\"pid\":[0-9]+,\"skew_ms\":(359[89][0-9]{3}|360[01][0-9]{3})\}\]" &&
		grep "\"type\":\"info\",\"f\":\"reset_clock\"" "$TRASH/r7/history.jsonl" |
			grep -Eq "\"restored\":\[\{\"component\":\"up-0\",\"pid\":[0-9]+,\"skew_ms\":-?[0-9]{1,4}\}\]" &&
		pid=$(cat "$C/up-0/tichaos.pid") &&
		! tr "\0" "\n" <"/proc/$pid/environ" | grep -q "^LD_PRELOAD=.*faketime"
	'
else
	test_skip_missing "clock over SSH: up-0 restarted there under libfaketime, +1h measured, healed to 0" \
		"faketime is not installed (make deps)"
fi

test_expect_success 'down stops every sshd, by its pid, and removes the hosts' '
	pids=$(cat "$C"/ssh/*.pid) &&
	"$TICHAOS" cluster down --dir "$C" >out 2>err &&
	for pid in $pids; do
		! alive "$pid" || return 1
	done &&
	! ip netns list | grep -q "^tichaos-$B-"
'

test_done
