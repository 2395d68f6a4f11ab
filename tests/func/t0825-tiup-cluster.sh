#!/bin/sh
# --cluster tiup-cluster:NAME: a deployment of `tiup cluster deploy`
# attached to by its name alone (docs/topology.md): tiup's own record of
# it ($TIUP_HOME/storage/cluster/clusters/NAME/meta.yaml, its ssh/id_rsa,
# as pingcap/tiup pkg/cluster/spec keeps them) read, each instance a
# component on an SSH host (a real sshd of the test's own), under a
# systemd unit named as tiup names it, which restarts it by itself 15 s
# after it ends (tiup's Restart=always, RestartSec=15s). systemd is not
# PID 1 here: `systemctl` on the host is the test's own, over
# tests/helpers/supervise.pl, which behaves as systemd does for such a
# unit, first on the PATH of the cluster key's sessions (its
# authorized_keys line's environment=, which sshd's SetEnv cannot do for
# PATH). The servers are fakes (tests/helpers/fake-instance.pl, as for
# the playground: a real mariadbd for TiDB's SQL), each started by a run
# script of its deploy directory as tiup's scripts/run_*.sh start them.
# tiup's cluster key is RSA: libssh2 1.10 signs with SHA-1, which the
# sshd here is told to accept (docs/topology.md, SSH hosts).
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd
command -v mariadb-install-db >/dev/null 2>&1 ||
	skip_all "mariadb-install-db is not installed (make deps)"

SUP="$ROOT/tests/helpers/supervise.pl"
UNITS="$TRASH/units"
export TIUP_HOME="$TRASH/tiup"
export FAKE_TIUP_HTTP="$DATA/http/playground"
META="$TIUP_HOME/storage/cluster/clusters/c1"

# unit COMP PORT SERVER ARGS...: the deploy directory of COMP-PORT as
# tiup lays it out (bin/SERVER, scripts/run_COMP.sh, log/), its unit
# COMP-PORT.service started under the supervisor.
unit() {
	test_u_=$1-$2
	test_d_=$TRASH/deploy/$test_u_
	test_s_=$3
	shift 3
	mkdir -p "$test_d_/bin" "$test_d_/log" "$test_d_/scripts" "$UNITS/$test_u_.service" &&
	ln -s "$ROOT/tests/helpers/fake-instance.pl" "$test_d_/bin/$test_s_" &&
	{
		echo "#!/bin/bash"
		echo "cd \"$test_d_\" || exit 1"
		echo "exec bin/$test_s_ $* --log-file=\"$test_d_/log/${test_u_%-*}.log\" 2>>\"$test_d_/log/${test_u_%-*}_stderr.log\""
	} >"$test_d_/scripts/run_${test_u_%-*}.sh" &&
	chmod +x "$test_d_/scripts/run_${test_u_%-*}.sh" &&
	{ setsid perl "$SUP" run "$UNITS/$test_u_.service" 15 -- \
		"$test_d_/scripts/run_${test_u_%-*}.sh" >/dev/null 2>&1 & } &&
	test_track_group $!
}

test_expect_success 'set up: sshd, tiup home of cluster c1, its three units running' '
	mkdir -p "$TRASH/sbin" &&
	test_sshd_up "$TRASH/sshd" "PubkeyAcceptedAlgorithms +ssh-rsa" \
		"PermitUserEnvironment PATH" &&
	sed -i -e "s|^|environment=\"PATH=$TRASH/sbin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\" |" \
		"$TRASH/sshd/authorized_keys" &&
	cat >"$TRASH/sbin/systemctl" <<-EOF &&
	#!/bin/sh
	# systemctl as systemd answers it, for the units of the test supervisor.
	case "\$1" in
	show) [ "\$2 \$3 \$4" = "-p MainPID --value" ] || exit 1
	      cat "$UNITS/\$5/main.pid" 2>/dev/null || echo 0 ;;
	stop|start) exec perl "$SUP" "\$1" "$UNITS/\$2" ;;
	*) echo "systemctl: \$1: not here" >&2; exit 1 ;;
	esac
	EOF
	chmod +x "$TRASH/sbin/systemctl" &&
	take_port pp && take_port pq && take_port kp && take_port ks &&
	take_port tp && take_port ts &&
	mkdir -p "$META/ssh" && cp "$SSH_KEY_RSA" "$META/ssh/id_rsa" &&
	cat >"$META/meta.yaml" <<-EOF &&
	user: $SSH_USER
	tidb_version: v8.1.0
	last_ops_ver: |-
	  v1.16.1 tiup
	topology:
	  global:
	    user: $SSH_USER
	    ssh_port: $SSHD_PORT
	    ssh_type: builtin
	    deploy_dir: $TRASH/deploy
	    data_dir: data
	    os: linux
	    arch: amd64
	  monitored:
	    node_exporter_port: 9100
	    blackbox_exporter_port: 9115
	  server_configs:
	    tidb: {}
	    tikv: {}
	    pd: {}
	  tidb_servers:
	  - host: 127.0.0.1
	    ssh_port: $SSHD_PORT
	    port: $tp
	    status_port: $ts
	    deploy_dir: $TRASH/deploy/tidb-$tp
	    log_dir: $TRASH/deploy/tidb-$tp/log
	    arch: amd64
	    os: linux
	  tikv_servers:
	  - host: 127.0.0.1
	    port: $kp
	    status_port: $ks
	  pd_servers:
	  - host: 127.0.0.1
	    name: pd-127.0.0.1-$pp
	    client_port: $pp
	    peer_port: $pq
	EOF
	unit pd "$pp" pd-server --name=pd-1 --client-urls=http://127.0.0.1:$pp \
		--peer-urls=http://127.0.0.1:$pq --data-dir=data &&
	unit tikv "$kp" tikv-server --addr=127.0.0.1:$kp \
		--status-addr=127.0.0.1:$ks --pd=127.0.0.1:$pp --data-dir=data &&
	unit tidb "$tp" tidb-server -P $tp --status=$ts --store=tikv \
		--path=127.0.0.1:$pp &&
	export TICHAOS_KNOWN_HOSTS="$SSH_KNOWN_HOSTS" &&
	wait_for_condition 60 "\"\$TICHAOS\" validate --cluster tiup-cluster:c1 >\"$TRASH/v.out\" 2>&1 && test \$(grep -c \"^ok .*: running, answers\$\" \"$TRASH/v.out\") = 3"
'

test_expect_success 'validate and status: each instance by its unit, on its host, running' '
	"$TICHAOS" validate --cluster tiup-cluster:c1 >out 2>&1 &&
	printf "ok pd-0: running, answers\nok tikv-0: running, answers\nok tidb-0: running, answers\n" >expect &&
	test_cmp expect out &&
	"$TICHAOS" cluster status --cluster tiup-cluster:c1 >status &&
	grep -Eq "^tikv-0 +kv +$(cat "$UNITS/tikv-$kp.service/main.pid") +.*running" status
'

{
	insert_suite tc 25s 1 tcdb 50
	cat <<-END
	faults:
	  - kind: kill
	    target: kv
	    at: [2s]
	    down: 1s
	END
} >"$TRASH/tc.yaml"

test_expect_success 'a run on it by name: a TiKV killed, systemd brings it back, awaited; the topology kept' '
	before=$(cat "$UNITS/tikv-$kp.service/main.pid") &&
	{ "$TICHAOS" run "$TRASH/tc.yaml" --cluster tiup-cluster:c1 --out "$TRASH/r1" >tap 2>err ||
	{ cat tap err; false; }; } &&
	after=$(cat "$UNITS/tikv-$kp.service/main.pid") && test "$after" != "$before" &&
	grep -qx "ok 2 - fault 1 kill: 1 of 1 injected, 1 healed" tap &&
	! grep " - exit " tap &&
	grep -Eq "\"f\":\"restart\",.*\"restarted\":\[\{\"component\":\"tikv-0\",\"pid\":$after,\"ready_ms\":[0-9]+,\"supervisor\":\"restarted\"\}\]" "$TRASH/r1/history.jsonl" &&
	grep -c "^[0-9.]* started " "$UNITS/tikv-$kp.service/journal" >n && test "$(cat n)" = 2 &&
	grep -qx "    pid_command: \"systemctl show -p MainPID --value tikv-$kp.service\"" "$TRASH/r1/topology.yaml" &&
	grep -qx "      stop: \[\"systemctl\", \"stop\", \"tikv-$kp.service\"\]" "$TRASH/r1/topology.yaml" &&
	grep -qx "    log: \"$TRASH/deploy/tikv-$kp/log/tikv.log\"" "$TRASH/r1/topology.yaml" &&
	grep -qx "    data_dir: \"$TRASH/deploy/tikv-$kp/data\"" "$TRASH/r1/topology.yaml" &&
	test -s "$TRASH/r1/logs/tikv-0.log"
'

test_expect_success 'a cluster tiup does not know, and a meta that is not one: one line, exit 2' '
	{ "$TICHAOS" validate --cluster tiup-cluster:nope >out 2>err; test $? = 2; } &&
	grep -qx "tichaos: cannot open '\''$TIUP_HOME/storage/cluster/clusters/nope/meta.yaml'\'': No such file or directory" err &&
	{ "$TICHAOS" validate --cluster "tiup-cluster:a/b" >out 2>err; test $? = 2; } &&
	grep -qx "tichaos: --cluster tiup-cluster:a/b: not a cluster name (letters, digits, - _ and .)" err &&
	mkdir -p "$TIUP_HOME/storage/cluster/clusters/bad" &&
	printf "user: tidb\ntopology:\n  tikv_servers:\n  - port: 20160\n" >"$TIUP_HOME/storage/cluster/clusters/bad/meta.yaml" &&
	{ "$TICHAOS" validate --cluster tiup-cluster:bad >out 2>err; test $? = 2; } &&
	grep -qx "tichaos: $TIUP_HOME/storage/cluster/clusters/bad/meta.yaml:4:5: an instance of tikv_servers needs its host" err
'

test_done
