#!/bin/sh
# A described cluster over SSH: the local cluster's servers, reached
# through a real sshd of the test's own (its host keys, a user key,
# known_hosts), as if they ran on another machine. Status, kill, start, a
# run with a kill fault and log collection all go through that sshd; a
# host key that is not the server's is refused.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

test_sshd_up "$TRASH/sshd"

# accepted: how many SSH connections sshd has let in so far.
accepted() {
	grep -c "Accepted publickey for $SSH_USER" "$TRASH/sshd/sshd.log" || :
}

test_cluster_setup 'set up: a local cluster, described as on an SSH host' '
	test_ssh_topology "$C/topology.yaml" >"$TRASH/ssh.yaml" &&
	test "$(grep -c "host: \"box\"" "$TRASH/ssh.yaml")" = 3
'

test_expect_success 'status through SSH: every component running, by its pidfile' '
	before=$(accepted) &&
	"$TICHAOS" cluster status --cluster "$TRASH/ssh.yaml" >out &&
	for n in up-0 down-0 etcd-0; do
		grep -Eq "^$n .* $(cat "$C/$n/tichaos.pid") .* running" out || return 1
	done &&
	test $(( $(accepted) - before )) = 1
'

test_expect_success 'kill and start through SSH: a new pid, started detached' '
	old=$(cat "$C/down-0/tichaos.pid") &&
	"$TICHAOS" cluster kill down-0 --cluster "$TRASH/ssh.yaml" &&
	! alive "$old" &&
	"$TICHAOS" cluster start down-0 --cluster "$TRASH/ssh.yaml" &&
	new=$(cat "$C/down-0/tichaos.pid") && test_track_pid "$new" &&
	test "$new" != "$old" && alive "$new" &&
	test "$(ps -o sid= -p "$new" | tr -d " ")" = "$new" &&
	"$TICHAOS" cluster status --cluster "$TRASH/ssh.yaml" >out &&
	grep -Eq "^down-0 .* $new .* running" out
'

{
	insert_suite sshkill 6s 5 sshdb 100
	cat <<EOF
faults:
  - kind: kill
    target: cdc
    at: [2s]
    down: 1s
checks:
  - kind: consistency
    sync_timeout: 60s
  - kind: logscan
EOF
} >"$TRASH/kill.yaml"

test_expect_success 'a run with a kill fault through SSH: killed, restarted, equal, logs back' '
	old=$(cat "$C/down-0/tichaos.pid") && before=$(accepted) &&
	"$TICHAOS" run "$TRASH/kill.yaml" --cluster "$TRASH/ssh.yaml" --out "$TRASH/r" >tap 2>err
	code=$?
	new=$(cat "$C/down-0/tichaos.pid") && test_track_pid "$new" &&
	{ test $code = 0 || { cat err tap; false; }; } &&
	grep -qx "ok 2 - fault 1 kill: 1 of 1 injected, 1 healed" tap &&
	grep -Eqx "ok 3 - consistency: 1 tables, [0-9]+ rows equal on both sides \(sync [0-9.]+s\)" tap &&
	grep "\"f\":\"kill\"" "$TRASH/r/history.jsonl" |
		grep -q "\"killed\":\[{\"component\":\"down-0\",\"pid\":$old}\]" &&
	! alive "$old" && alive "$new" &&
	grep -q "ready for connections" "$TRASH/r/logs/down-0.log" &&
	test $(( $(accepted) - before )) = 1
'

test_expect_success 'check on the run directory: its topology keeps the host' '
	grep -q "^hosts:" "$TRASH/r/topology.yaml" &&
	"$TICHAOS" check "$TRASH/r" >tap2 2>err2 || { cat err2; false; }
	grep -Eqx "ok 1 - consistency: 1 tables, [0-9]+ rows equal on both sides \(sync [0-9.]+s\)" tap2
'

test_expect_success 'a host key that is not the server'\''s: refused, named, exit 3' '
	ssh-keygen -q -t ed25519 -N "" -f "$TRASH/other" &&
	echo "[127.0.0.1]:$SSHD_PORT $(cut -d" " -f1,2 "$TRASH/other.pub")" >"$TRASH/bad_known_hosts" &&
	sed -e "s|known_hosts: .*|known_hosts: $TRASH/bad_known_hosts|" "$TRASH/ssh.yaml" >"$TRASH/bad.yaml" &&
	"$TICHAOS" cluster status --cluster "$TRASH/bad.yaml" >out 2>err; test $? = 3 &&
	fp=$(ssh-keygen -l -f "$TRASH/sshd/host_ed25519_key.pub" | cut -d" " -f2) &&
	echo "tichaos: ssh '\''$SSH_USER@127.0.0.1:$SSHD_PORT'\'': host key mismatch: the ssh-ed25519 key of '\''[127.0.0.1]:$SSHD_PORT'\'' in '\''$TRASH/bad_known_hosts'\'' differs from the server'\''s $fp" >expect &&
	test_cmp expect err &&
	test ! -s out
'

test_expect_success 'insecure_host_key: true lets the same file through' '
	sed -e "s|^      known_hosts: .*|&\n      insecure_host_key: true|" "$TRASH/bad.yaml" >"$TRASH/insecure.yaml" &&
	"$TICHAOS" cluster status --cluster "$TRASH/insecure.yaml" >out &&
	test "$(grep -c " running" out)" = 3
'

test_done
