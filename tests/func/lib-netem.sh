# Sourced by the netem fault's tests after test-lib.sh, one body for each
# way to reach the hosts (as git's t5559 sources t5551): t0448 on the
# local cluster's hosts from here (ip netns exec), t0452 over their sshd.
# The test file defines, before sourcing this:
#   on_host COMPONENT COMMAND   COMMAND run on COMPONENT's host
#   $B                          the cluster's port base (once set up)
# and calls netem_loss_test, netem_rate_test, netem_refused_test and
# netem_sigkill_test after its set-up.

# Whether the kernel has tc's netem: a namespace of our own with one on
# its loopback.
netem_ns_=tichaos-netem-$$
ip netns add "$netem_ns_" || skip_machine "a network namespace cannot be made here"
if tc -n "$netem_ns_" qdisc add dev lo root netem >/dev/null 2>&1; then
	NETEM=yes
else
	NETEM=no
fi
ip netns delete "$netem_ns_"

# suite NAME DURATION DB FAULT-LINES...: inserts at 50/s, the fault, the
# consistency and progress checks.
suite() {
	insert_suite "$1" "$2" 5 "$3" 50
	shift 3
	echo "faults:"
	echo "  - kind: netem"
	for opt_ in "$@"; do
		echo "    $opt_"
	done
	printf 'checks:\n  - kind: consistency\n  - kind: progress\n'
}

# masked: stdin with every number that follows a member named in $1
# (a|b|c) as N.
masked() {
	sed -E "s/\"($1)\":[0-9]+/\"\\1\":N/g"
}

# number MEMBER: the number of the first "MEMBER":N on stdin.
number() {
	grep -o "\"$1\":[0-9]*" | head -n 1 | cut -d: -f2
}

# links: the hosts of the cluster whose link is degraded (a table netdev
# tichaos_link, or a root qdisc 7463:), as each host says.
links() {
	for comp in up-0 down-0 etcd-0; do
		{ on_host "$comp" "nft list tables" 2>/dev/null |
			grep -q "^table netdev tichaos_link$" ||
		  on_host "$comp" "tc qdisc show dev eth0" 2>/dev/null |
			grep -q " 7463: root"; } && echo "$comp"
	done
	return 0
}

# netem_loss_held: while the loss holds (its run frozen): down-0's link
# alone degraded, by its table of rules.
netem_loss_held() {
	links >during &&
	echo down-0 >expect &&
	test_cmp expect during &&
	on_host down-0 "nft list table netdev tichaos_link" |
		sed -n -e "s/^[[:space:]]*//" -e "s/packets [0-9]* bytes [0-9]*/packets N bytes N/p" >rules &&
	cat >expect <<-\EOF &&
	meta mark 0x74630001 counter packets N bytes N accept
	counter packets N bytes N
	numgen random mod 1000 < 100 counter packets N bytes N drop
	numgen random mod 1000 < 50 counter packets N bytes N meta mark set 0x74630001 dup to "eth0" meta mark set 0x00000000
	EOF
	test_cmp expect rules
}

# netem_loss_test DESCRIPTION TOPOLOGY DURATION DOWN WAIT: loss 10% and
# duplicate 5% on cdc for DOWN of a run of DURATION on TOPOLOGY, the
# degraded state awaited for at most WAIT seconds: the table made on
# down-0's host, the counters moved by the percentages, healed, no row
# lost.
netem_loss_test() {
	netem_topology_=$2 netem_duration_=$3 netem_down_=$4 netem_wait_=$5
	test_expect_success "$1" '
	suite lossy $netem_duration_ lossdb "target: cdc" "loss: 10" "duplicate: 5" "at: [1s]" "down: $netem_down_" >lossy.yaml || return 1
	"$TICHAOS" run lossy.yaml --cluster "$netem_topology_" --out "$TRASH/r1" >tap 2>err &
	run=$! &&
	test_track_pid $run &&
	wait_for_condition $netem_wait_ "nemesis_value $TRASH/r1/history.jsonl netem 2>/dev/null | grep -q degraded" &&
	while_held $run netem_loss_held &&
	wait $run &&
	nemesis_value "$TRASH/r1/history.jsonl" netem >value &&
	echo "{\"loss\":10,\"duplicate\":5,\"degraded\":[{\"component\":\"down-0\",\"probes\":{\"answered\":N,\"of\":600},\"loss\":{\"sent\":N,\"dropped\":N},\"duplicate\":{\"sent\":N,\"duplicated\":N}}]}" >expect &&
	masked "answered|sent|dropped|duplicated" <value >actual &&
	test_cmp expect actual &&
	sent=$(number sent <value) && dropped=$(number dropped <value) &&
	test "$sent" -ge 600 &&
	test $((dropped * 100)) -ge $((sent * 5)) &&
	test $((dropped * 100)) -le $((sent * 20)) &&
	passed=$(sed -e "s/.*\"duplicate\":{\"sent\":\([0-9]*\).*/\1/" value) &&
	duplicated=$(number duplicated <value) &&
	test "$passed" = $((sent - dropped)) &&
	test $((duplicated * 100)) -ge $((passed * 2)) &&
	test $((duplicated * 100)) -le $((passed * 10)) &&
	echo "{\"restored\":[{\"component\":\"down-0\",\"probes\":{\"answered\":200,\"of\":200}}]}" >expect &&
	nemesis_value "$TRASH/r1/history.jsonl" restore_link >actual &&
	test_cmp expect actual &&
	grep -qx "ok 2 - fault 1 netem: 1 of 1 injected, 1 healed" tap &&
	grep -q "^ok 3 - consistency: 1 tables, [0-9]* rows equal on both sides" tap &&
	links >after &&
	test ! -s after
'
}

# netem_rate_test DESCRIPTION TOPOLOGY DURATION WAIT [WHILE [HEALED]]:
# rate 1mbit on upstream for 8 s of a run of DURATION on TOPOLOGY, the
# degraded state awaited for at most WAIT seconds: tbf made on up-0's
# host, at most 1mbit measured by the fault, above it once healed.
# WHILE and HEALED, more of the test, run while the link is degraded
# and once the run has healed it.
netem_rate_test() {
	netem_topology_=$2 netem_duration_=$3 netem_wait_=$4
	netem_while_=${5:-:} netem_healed_=${6:-:}
	test_expect_success "$1" '
	suite rate $netem_duration_ ratedb "target: upstream" "rate: 1mbit" "at: [1s]" "down: 8s" >rate.yaml || return 1
	"$TICHAOS" run rate.yaml --cluster "$netem_topology_" --out "$TRASH/r2" >tap 2>err &
	run=$! &&
	test_track_pid $run &&
	wait_for_condition $netem_wait_ "nemesis_value $TRASH/r2/history.jsonl netem 2>/dev/null | grep -q degraded" &&
	while_held $run '\''
		on_host up-0 "tc qdisc show dev eth0" >qdisc &&
		grep -q "^qdisc tbf 7463: root .*rate 1Mbit burst 3028b" qdisc &&
		eval "$netem_while_"
	'\'' &&
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
	eval "$netem_healed_" &&
	links >after &&
	test ! -s after
	'
}

# netem_refused_test DESCRIPTION TOPOLOGY: where the kernel has no netem,
# a delay on TOPOLOGY is refused before the run starts, in one line,
# exit 2, and down-0's host is left without one.
netem_refused_test() {
	netem_topology_=$2
	test_expect_success "$1" '
	suite nonetem 5s nonetemdb "target: cdc" "delay: 100ms" "delay_jitter: 10ms" "at: [1s]" "down: 2s" >nonetem.yaml &&
	"$TICHAOS" run nonetem.yaml --cluster "$netem_topology_" --out "$TRASH/r3" >tap 2>all
	test $? = 2 &&
	grep -v "^[0-9:.]* info  " all >err &&
	kline=$(grep -n "kind: netem" nonetem.yaml | cut -d: -f1) &&
	echo "tichaos: nonetem.yaml:$((kline + 2)):12: fault '\''netem'\'': the kernel has no netem queueing discipline (sch_netem), which delay, delay_jitter and reorder need" >expect &&
	test_cmp expect err &&
	test ! -e "$TRASH/r3/history.jsonl" &&
	on_host down-0 "tc qdisc show dev lo" >lo &&
	! grep -q netem lo
	'
}

# netem_sigkill_test DESCRIPTION TOPOLOGY WAIT: the run of $TRASH/int.yaml
# (loss and rate on cdc) on TOPOLOGY SIGKILLed once degraded (awaited for
# at most WAIT seconds) leaves down-0's link degraded; the next run
# removes it, and says so.
netem_sigkill_test() {
	netem_topology_=$2 netem_wait_=$3
	test_expect_success "$1" '
	"$TICHAOS" run int.yaml --cluster "$netem_topology_" --out "$TRASH/r5" >tap 2>err &
	run=$! &&
	test_track_pid $run &&
	wait_for_condition $netem_wait_ "nemesis_value $TRASH/r5/history.jsonl netem 2>/dev/null | grep -q degraded" &&
	kill -9 $run &&
	{ wait $run; code=$?; } &&
	test "$code" = 137 &&
	links >left &&
	echo down-0 >expect &&
	test_cmp expect left &&
	insert_suite next 2s 1 nextdb 10 >next.yaml &&
	"$TICHAOS" run next.yaml --cluster "$netem_topology_" --out "$TRASH/r6" >tap 2>err &&
	grep "warn  " err | sed -e "s/^[0-9:.]* //" >warnings &&
	echo "warn  down-0: removing a degraded link an earlier run left (rate 1Mbit, loss 10.0%)" >expect &&
	test_cmp expect warnings &&
	links >after &&
	test ! -s after &&
	on_host down-0 "tc qdisc show dev eth0" >qdisc &&
	grep -q "^qdisc noqueue 0: root" qdisc
	'
}
