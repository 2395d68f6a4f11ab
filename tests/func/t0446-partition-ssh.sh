#!/bin/sh
# The local cluster's hosts over SSH (cluster up --sshd): an sshd in each
# host's namespace and DIR/ssh-topology.yaml; the same servers driven as a
# static cluster over SSH, where the partition fault makes its cuts with
# nft on the hosts through their sshd and probes from them; what a killed
# run left the next run removes over SSH too.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd sshd
need_hosts

C="$TRASH/c"
T="$C/ssh-topology.yaml"

# over_ssh HOST COMMAND: COMMAND on HOST through its sshd.
over_ssh() {
	ssh -i "$C/ssh/id_ed25519" -o UserKnownHostsFile="$C/ssh/known_hosts" \
		-o BatchMode=yes "root@$(addr_of "$C" "$1")" "$2"
}

test_cluster_setup 'up --sshd: an sshd in each host, and the topology over SSH' '
	grep -q "info  sshd on every host; the cluster over SSH: $T$" "$C.up.out" &&
	for h in up-0 down-0 etcd-0 etcd-1 etcd-2; do
		pid=$(cat "$C/ssh/$h.pid") &&
		test "$(ip netns identify "$pid")" = "tichaos-$B-$h" &&
		grep -q "^  - name: \"$h\"$" "$T" ||
		return 1
	done &&
	test "$(grep -c "^      address: \"198\.18\.[0-9.]*\"$" "$T")" = 5 &&
	test "$(over_ssh down-0 "ip -4 -o addr show dev eth0" | awk "{print \$4}")" = "$(addr_of "$C" down-0)/28"
' --port-base auto --hosts on --sshd

# The hosts share this machine'"'"'s root, whose bash sources ~/.bashrc for a
# command over SSH unless SHLVL is set: the sshd sets SHLVL=1, which the
# shell (bash: one more) reports.
test_expect_success 'a command over SSH runs without the machine'"'"'s ~/.bashrc: SHLVL set by the sshd' '
	case $(getent passwd root | cut -d: -f7) in
	*/bash) want=2 ;;
	*) want=1 ;;
	esac &&
	grep -qx "SetEnv SHLVL=1" "$C/ssh/sshd_config" &&
	test "$(over_ssh up-0 "echo \$SHLVL")" = "$want"
'

test_expect_success 'status and kill/start over SSH land in the hosts' '
	"$TICHAOS" cluster status --cluster "$T" >out 2>err &&
	test "$(grep -c " running " out)" = 5 &&
	"$TICHAOS" cluster kill down-0 --cluster "$T" >out 2>err &&
	"$TICHAOS" cluster start down-0 --cluster "$T" >out 2>err &&
	test "$(ip netns identify "$(cat "$C/down-0/tichaos.pid")")" = "tichaos-$B-down-0"
'

cat >"$TRASH/cut.yaml" <<EOF
$(insert_suite cut 8s 5 cutdb 50)
faults:
  - kind: partition
    target: cdc
    at: [1s]
    down: 3s
checks:
  - kind: consistency
  - kind: progress
EOF

test_expect_success 'a partition over SSH: cut by nft on the hosts, probed from them, healed' '
	"$TICHAOS" run "$TRASH/cut.yaml" --cluster "$T" --out "$TRASH/r1" >tap 2>err ||
	{ cat err; false; } &&
	echo "{\"shape\":\"one\",\"direction\":\"both\",\"sides\":[[\"down-0\"],[\"up-0\",\"etcd-0\",\"etcd-1\",\"etcd-2\"]],\"cuts\":[{\"host\":\"up-0\",\"drops\":[\"down-0\"]},{\"host\":\"down-0\",\"drops\":[\"up-0\",\"etcd-0\",\"etcd-1\",\"etcd-2\"]},{\"host\":\"etcd-0\",\"drops\":[\"down-0\"]},{\"host\":\"etcd-1\",\"drops\":[\"down-0\"]},{\"host\":\"etcd-2\",\"drops\":[\"down-0\"]}],\"probes\":{\"unanswered\":8,\"answered\":17,\"ms\":MS}}" >expect &&
	nemesis_value "$TRASH/r1/history.jsonl" partition | sed -e "s/\"ms\":[0-9]*/\"ms\":MS/" >actual &&
	test_cmp expect actual &&
	nemesis_value "$TRASH/r1/history.jsonl" rejoin | grep -q "\"unanswered\":0,\"answered\":25," &&
	grep -qx "ok 2 - fault 1 partition: 1 of 1 injected, 1 healed" tap &&
	grep -q "^ok 3 - consistency: 1 tables, [0-9]* rows equal on both sides" tap &&
	! over_ssh down-0 "nft list tables" | grep -q tichaos
'

test_expect_success 'SIGKILL in a cut over SSH: the next run removes it over SSH, and says so' '
	sed -e "s/down: 3s/down: 30s/; s/^duration: 8s/duration: 40s/" "$TRASH/cut.yaml" >long.yaml || return 1
	"$TICHAOS" run long.yaml --cluster "$T" --out "$TRASH/r2" >tap 2>err &
	run=$! &&
	test_track_pid $run &&
	wait_for_condition 90 "nemesis_value $TRASH/r2/history.jsonl partition 2>/dev/null | grep -q probes" &&
	kill -9 $run &&
	{ wait $run; code=$?; } &&
	test "$code" = 137 &&
	over_ssh down-0 "nft list table inet tichaos" | grep -q "saddr" &&
	insert_suite next 2s 1 nextdb 10 >next.yaml &&
	"$TICHAOS" run next.yaml --cluster "$T" --out "$TRASH/r3" >tap 2>err &&
	grep -q "warn  down-0: removing a partition an earlier run left (it dropped what came from $(addr_of "$C" up-0) $(addr_of "$C" etcd-0) $(addr_of "$C" etcd-1) $(addr_of "$C" etcd-2))$" err &&
	! over_ssh down-0 "nft list tables" | grep -q tichaos
'

test_expect_success 'down stops every sshd, by its pid, and removes the hosts' '
	pids=$(cat "$C"/ssh/*.pid) &&
	"$TICHAOS" cluster down --dir "$C" >out 2>err &&
	for pid in $pids; do
		! alive "$pid" || return 1
	done &&
	! ip netns list | grep -q "^tichaos-$B-"
'

test_expect_success '--sshd without hosts: one line, exit 2' '
	"$TICHAOS" cluster up --dir "$TRASH/d" --port-base auto --hosts off --sshd >out 2>err
	test $? = 2 &&
	echo "tichaos: --sshd needs hosts of their own (hosts off was asked for)" >expect &&
	test_cmp expect err
'

test_done
