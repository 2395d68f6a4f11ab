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

netem_rate_test 'rate on upstream over SSH: tbf made there, at most 1mbit out of the host, above it once healed' \
	"$T" 16s 90

if [ "$NETEM" = yes ]; then
	test_skip "refused over SSH where the kernel has no netem" \
		"this kernel has netem"
else
	netem_refused_test 'refused over SSH where the kernel has no netem: delay, one line, exit 2' \
		"$T"
fi

suite int 45s intdb "target: cdc" "loss: 10" "rate: 1mbit" "at: [1s]" "down: 30s" >"$TRASH/int.yaml"

netem_sigkill_test 'SIGKILL while degraded over SSH: the next run restores the link over SSH, and says so' \
	"$T" 90

# The clock fault over SSH: the server restarted on its SSH host under
# libfaketime (found there), its clock read back through SQL.
if command -v faketime >/dev/null 2>&1; then
	test_expect_success 'clock over SSH: up-0 restarted there under libfaketime, +1h measured, healed to 0' '
		{
			insert_suite ck 8s 3 ckdb 50 &&
			printf "    ignore_errors: true\nfaults:\n  - kind: clock\n    method: restart\n    target: up-0\n" &&
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
