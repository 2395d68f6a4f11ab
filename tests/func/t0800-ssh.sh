#!/bin/sh
# lib/ssh against a real sshd: exit codes and signals, stdout / stderr /
# stdin, quoting, key types, host key checks, timeouts, connection reuse.
. "$(dirname "$0")/test-lib.sh"

EXEC="$ROOT/tests/helpers/ssh-exec"
[ -x "$EXEC" ] || { echo "Bail out! $EXEC is not built (make unit-tests)"; exit 1; }

# A strict server first (OpenSSH's defaults: no ssh-rsa signatures), then
# the one most tests use, which also takes the RSA signatures libssh2 1.10
# makes.
test_sshd_up "$TRASH/strict" || { echo "Bail out! sshd did not start"; exit 1; }
STRICT_PORT=$SSHD_PORT STRICT_KEY_RSA=$SSH_KEY_RSA
STRICT_KNOWN_HOSTS=$SSH_KNOWN_HOSTS
test_sshd_up "$TRASH/sshd" "PubkeyAcceptedAlgorithms +ssh-rsa" ||
	{ echo "Bail out! sshd did not start"; exit 1; }
NAME="$SSH_USER@127.0.0.1:$SSHD_PORT"

# run [OPTIONS] COMMAND...: ssh-exec on the test server.
run() {
	"$EXEC" --port "$SSHD_PORT" --user "$SSH_USER" --key "$SSH_KEY" \
		--known-hosts "$SSH_KNOWN_HOSTS" "$@"
}

# fingerprint PUBFILE: "SHA256:..." as ssh-keygen prints it.
fingerprint() {
	ssh-keygen -l -f "$1" | cut -d" " -f2
}

test_expect_success 'a command runs; its stdout comes back' '
	run 127.0.0.1 "echo hello; echo world" >out 2>err &&
	printf "hello\nworld\n" >expect && test_cmp expect out &&
	test_cmp /dev/null err
'

test_expect_success 'exit codes come back' '
	run 127.0.0.1 "exit 3"; test $? = 3 &&
	run 127.0.0.1 "exit 255"; test $? = 255 &&
	run 127.0.0.1 true
'

test_expect_success 'killed by SIGTERM: 143' '
	run 127.0.0.1 "kill -TERM \$\$" >out 2>err; test $? = 143 &&
	test_cmp /dev/null err
'

test_expect_success 'killed by SIGKILL: 137' '
	run 127.0.0.1 "kill -KILL \$\$"; test $? = 137
'

test_expect_success 'stdout and stderr stay apart' '
	run 127.0.0.1 "echo out1; echo err1 >&2; echo out2; echo err2 >&2; exit 5" \
		>out 2>err; test $? = 5 &&
	printf "out1\nout2\n" >expect && test_cmp expect out &&
	printf "err1\nerr2\n" >expect && test_cmp expect err
'

test_expect_success 'stdin is passed and closed' '
	printf "line one\nline two\n" >in &&
	run --stdin in 127.0.0.1 "cat; echo end" >out &&
	printf "line one\nline two\nend\n" >expect && test_cmp expect out
'

test_expect_success 'a large stdin and stdout at once (no deadlock)' '
	seq 1 300000 >in &&
	run --stdin in 127.0.0.1 "cat; seq 1 300000 >&2" >out 2>err &&
	test_cmp in out && test_cmp in err
'

test_expect_success 'a command that does not read its stdin' '
	run --stdin in 127.0.0.1 "echo ignored" >out &&
	echo ignored >expect && test_cmp expect out
'

test_expect_success 'a quoted argv round-trips byte for byte' '
	nl="
" &&
	run --argv 127.0.0.1 printf "%s|" "" "it'\''s" "a  b" "\$(id)" \
		"\`id\`" "\$HOME" "x${nl}y" "*" "-n" "\\\\" "é" >out &&
	printf "%s|" "" "it'\''s" "a  b" "\$(id)" "\`id\`" "\$HOME" \
		"x${nl}y" "*" "-n" "\\\\" "é" >expect &&
	test_cmp expect out
'

test_expect_success 'an RSA key works' '
	"$EXEC" --port "$SSHD_PORT" --user "$SSH_USER" --key "$SSH_KEY_RSA" \
		--known-hosts "$SSH_KNOWN_HOSTS" 127.0.0.1 "echo rsa" >out &&
	echo rsa >expect && test_cmp expect out &&
	grep -q "Accepted publickey for $SSH_USER .*: RSA " "$TRASH/sshd/sshd.log"
'

test_expect_success 'an RSA key on a server that refuses ssh-rsa: says why' '
	"$EXEC" --port "$STRICT_PORT" --user "$SSH_USER" --key "$STRICT_KEY_RSA" \
		--known-hosts "$STRICT_KNOWN_HOSTS" 127.0.0.1 true 2>err; test $? = 255 &&
	echo "ssh-exec: ssh '\''$SSH_USER@127.0.0.1:$STRICT_PORT'\'': authentication failed for user '\''$SSH_USER'\'' with key '\''$STRICT_KEY_RSA'\'' (libssh2 1.10.0 signs RSA keys with ssh-rsa (SHA-1), which OpenSSH 8.8 and later refuse by default: use an ed25519 key or add ssh-rsa to the server'\''s PubkeyAcceptedAlgorithms)" >expect &&
	test_cmp expect err
'

test_expect_success 'a key the server does not know: authentication failed' '
	ssh-keygen -q -t ed25519 -N "" -f other_key &&
	"$EXEC" --port "$SSHD_PORT" --user "$SSH_USER" --key other_key \
		--known-hosts "$SSH_KNOWN_HOSTS" 127.0.0.1 true >out 2>err; test $? = 255 &&
	echo "ssh-exec: ssh '\''$NAME'\'': authentication failed for user '\''$SSH_USER'\'' with key '\''other_key'\''" >expect &&
	test_cmp expect err && test_cmp /dev/null out
'

test_expect_success 'a key file that does not exist' '
	"$EXEC" --port "$SSHD_PORT" --user "$SSH_USER" --key no_such_key \
		--known-hosts "$SSH_KNOWN_HOSTS" 127.0.0.1 true 2>err; test $? = 255 &&
	echo "ssh-exec: ssh '\''$NAME'\'': cannot use key '\''no_such_key'\'': Unable to extract public key from private key file: Unable to open private key file (LIBSSH2_ERROR_FILE -16)" >expect &&
	test_cmp expect err
'

test_expect_success 'an unknown host key (empty known_hosts)' '
	: >empty_known_hosts &&
	run --known-hosts empty_known_hosts 127.0.0.1 true 2>err; test $? = 255 &&
	echo "ssh-exec: ssh '\''$NAME'\'': host key unknown: no ssh-ed25519 key of '\''[127.0.0.1]:$SSHD_PORT'\'' in '\''empty_known_hosts'\'' (the server'\''s is $(fingerprint "$TRASH/sshd/host_ed25519_key.pub"))" >expect &&
	test_cmp expect err
'

test_expect_success 'a known_hosts file that does not exist: unknown too' '
	run --known-hosts no_such_file 127.0.0.1 true 2>err; test $? = 255 &&
	grep -q "^ssh-exec: ssh '\''$NAME'\'': host key unknown: " err
'

test_expect_success 'the key of port 22 does not stand for another port' '
	echo "127.0.0.2 $(cut -d" " -f1,2 "$TRASH/sshd/host_ed25519_key.pub")" >other_host &&
	echo "[127.0.0.1]:1$SSHD_PORT $(cut -d" " -f1,2 "$TRASH/sshd/host_ed25519_key.pub")" >>other_host &&
	run --known-hosts other_host 127.0.0.1 true 2>err; test $? = 255 &&
	grep -q "host key unknown" err
'

test_expect_success 'a changed host key: mismatch' '
	ssh-keygen -q -t ed25519 -N "" -f impostor &&
	echo "[127.0.0.1]:$SSHD_PORT $(cut -d" " -f1,2 impostor.pub)" >changed &&
	run --known-hosts changed 127.0.0.1 true 2>err; test $? = 255 &&
	echo "ssh-exec: ssh '\''$NAME'\'': host key mismatch: the ssh-ed25519 key of '\''[127.0.0.1]:$SSHD_PORT'\'' in '\''changed'\'' differs from the server'\''s $(fingerprint "$TRASH/sshd/host_ed25519_key.pub")" >expect &&
	test_cmp expect err
'

test_expect_success '--insecure accepts the changed key' '
	run --known-hosts changed --insecure 127.0.0.1 "echo in" >out &&
	echo in >expect && test_cmp expect out
'

test_expect_success 'hashed known_hosts entries (ssh-keygen -H) match' '
	cp "$SSH_KNOWN_HOSTS" hashed &&
	ssh-keygen -q -H -f hashed >/dev/null 2>&1 && ! grep -q 127.0.0.1 hashed &&
	run --known-hosts hashed 127.0.0.1 "echo hashed" >out &&
	echo hashed >expect && test_cmp expect out
'

test_expect_success 'comments, markers and unknown key types are skipped' '
	{
		echo "# a comment" &&
		echo "@cert-authority *.example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEu4Ox0nBmH5l6pXh9sC0W1N3vZq3Jb2bGmC7gA4Kq6e" &&
		echo "[127.0.0.1]:$SSHD_PORT sk-ssh-ed25519@openssh.com AAAAGnNrLXNzaC1lZDI1NTE5QG9wZW5zc2guY29tAAAAIA" &&
		echo "" &&
		cat "$SSH_KNOWN_HOSTS"
	} >mixed &&
	run --known-hosts mixed 127.0.0.1 "echo mixed" >out &&
	echo mixed >expect && test_cmp expect out
'

test_expect_success 'a closed port: connection refused' '
	port=$(free_port_base) &&
	"$EXEC" --port "$port" --user "$SSH_USER" --key "$SSH_KEY" \
		--known-hosts "$SSH_KNOWN_HOSTS" 127.0.0.1 true 2>err; test $? = 255 &&
	echo "ssh-exec: ssh '\''$SSH_USER@127.0.0.1:$port'\'': cannot connect: Connection refused" >expect &&
	test_cmp expect err
'

# Cut short: over before the command itself could have ended (30 s), on
# a machine of any speed.
test_expect_success 'a command past --timeout: an error, before the command ends' '
	start=$(date +%s) &&
	run --timeout 1s 127.0.0.1 "echo started; sleep 30" >out 2>err; test $? = 255 &&
	test $(( $(date +%s) - start )) -lt 30 &&
	echo started >expect && test_cmp expect out &&
	echo "ssh-exec: ssh '\''$NAME'\'': '\''echo started; sleep 30'\'' did not finish within 1s" >expect &&
	test_cmp expect err
'

test_expect_success 'ten commands on one connection' '
	grep -c "Accepted publickey" "$TRASH/sshd/sshd.log" >before &&
	run --repeat 10 127.0.0.1 "echo \$SSH_CONNECTION" >out &&
	test $(wc -l <out) = 10 && test $(sort -u out | wc -l) = 1 &&
	test $(grep -c "Accepted publickey" "$TRASH/sshd/sshd.log") = $(( $(cat before) + 1 ))
'

# The first command's shell outlives its connection: it notes its pid and
# becomes the sleep, which the file's end kills.
test_expect_success 'a timeout drops the connection; the next command reconnects' '
	run --repeat 2 --timeout 1s 127.0.0.1 \
		"echo \$SSH_CONNECTION; test -e $TRASH/flag1 || { touch $TRASH/flag1; echo \$\$ >$TRASH/sleeper1; exec sleep 30; }" \
		>out 2>err &&
	test_track_pid "$(cat "$TRASH/sleeper1")" &&
	test $(wc -l <out) = 2 && test $(sort -u out | wc -l) = 2 &&
	grep -c "did not finish within 1s" err >count && echo 1 >expect &&
	test_cmp expect count
'

# What the first run printed may die with its session, so each run notes
# its connection on this side too (conns2); the second one's comes back.
test_expect_success 'a connection killed during a command: an error, then a new one' '
	run --repeat 2 127.0.0.1 \
		"echo \$SSH_CONNECTION >>$TRASH/conns2; echo \$SSH_CONNECTION; test -e $TRASH/flag2 || { touch $TRASH/flag2; kill -9 \$PPID; sleep 1; }" \
		>out 2>err &&
	test $(wc -l <"$TRASH/conns2") = 2 &&
	test $(sort -u "$TRASH/conns2" | wc -l) = 2 &&
	tail -n 1 "$TRASH/conns2" >expect && tail -n 1 out >got &&
	test_cmp expect got &&
	test $(wc -l <err) = 1 &&
	grep "^ssh-exec: ssh '\''$NAME'\'': connection lost while running '\''echo \$SSH_CONNECTION >>$TRASH/conns2; echo \$SSH_CONNECTION; test -e $TRASH/flag2 || { touch $TRASH/flag2; kill -9 \$PPID; sleep 1; }'\'': .* (LIBSSH2_ERROR_SOCKET_[A-Z]* -[0-9]*)\$" err
'

# The first run's shell leaves a job behind that waits for the client to
# have the run's result (--ran), kills the session, waits until it is
# gone and says so (dead3); the client starts the next run only then
# (--wait-for): decided by events, whatever the load.
test_expect_success 'a connection that died between commands is reopened quietly' '
	run --repeat 3 --ran "$TRASH/ran3" --wait-for "$TRASH/dead3" 127.0.0.1 \
		"echo \$SSH_CONNECTION; test -e $TRASH/flag3 || { touch $TRASH/flag3; (until test -e $TRASH/ran3; do sleep 0.01; done; kill -9 \$PPID; while kill -0 \$PPID; do sleep 0.01; done; touch $TRASH/dead3) >/dev/null 2>&1 & }" \
		>out 2>err &&
	test $(wc -l <out) = 3 && test $(sort -u out | wc -l) = 2 &&
	test_cmp /dev/null err
'

test_done
