#!/bin/sh
# Component operations the faults build on: kill with a signal and wait,
# start again with the same argv, pause and continue.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

test_cluster_setup 'set up' '
	sql "$UP" "create database o; create table o.t (id int primary key)"
'

test_expect_success 'kill cdc (down-0): gone when the command returns' '
	old=$(cat "$C/down-0/tichaos.pid") &&
	"$TICHAOS" cluster kill down-0 --dir "$C" &&
	! alive "$old" &&
	"$TICHAOS" cluster status --dir "$C" >out; test $? = 3 &&
	grep -Eq "^down-0 .* stopped " out
'

test_expect_success 'rows written while cdc is down arrive after start' '
	sql "$UP" "insert into o.t values (1), (2), (3)" &&
	"$TICHAOS" cluster start down-0 --dir "$C" &&
	new=$(cat "$C/down-0/tichaos.pid") &&
	test "$new" != "$old" && alive "$new" &&
	grep -q -- "--defaults-file=$C/down-0/my.cnf" "/proc/$new/cmdline" &&
	wait_for_condition 10 "test \"\$(sql $DOWN \"select count(*) from o.t\")\" = 3"
'

test_expect_success 'kill a stopped component: exit 3, says so' '
	"$TICHAOS" cluster kill down-0 --dir "$C" &&
	"$TICHAOS" cluster kill down-0 --dir "$C" 2>err; test $? = 3 &&
	echo "tichaos: down-0 is not running" >expect && test_cmp expect err &&
	"$TICHAOS" cluster start down-0 --dir "$C"
'

test_expect_success 'start a running component: exit 3, says so' '
	"$TICHAOS" cluster start up-0 --dir "$C" 2>err; test $? = 3 &&
	echo "tichaos: up-0 is already running" >expect && test_cmp expect err
'

test_expect_success 'kill --signal TERM stops etcd-0 cleanly' '
	old=$(cat "$C/etcd-0/tichaos.pid") &&
	"$TICHAOS" cluster kill etcd-0 --signal TERM --dir "$C" &&
	! alive "$old" &&
	"$TICHAOS" cluster start etcd-0 --dir "$C" &&
	alive "$(cat "$C/etcd-0/tichaos.pid")"
'

test_expect_success 'pause up-0: stopped state, status says paused, SQL hangs' '
	pid=$(cat "$C/up-0/tichaos.pid") &&
	"$TICHAOS" cluster pause up-0 --dir "$C" &&
	test "$(sed -e "s/.*) //" "/proc/$pid/stat" | cut -c1)" = T &&
	"$TICHAOS" cluster status --dir "$C" >out; test $? = 3 &&
	grep -Eq "^up-0 .* paused " out &&
	! timeout 2 mariadb --no-defaults -h127.0.0.1 -P"$UP" -uroot -e "select 1" >/dev/null 2>&1
'

test_expect_success 'continue up-0: it answers again' '
	"$TICHAOS" cluster continue up-0 --dir "$C" &&
	test "$(sed -e "s/.*) //" "/proc/$pid/stat" | cut -c1)" != T &&
	test "$(sql "$UP" "select 1")" = 1 &&
	"$TICHAOS" cluster status --dir "$C" >/dev/null
'

test_expect_success 'an unknown component: exit 2' '
	"$TICHAOS" cluster kill cdc-9 --dir "$C" 2>err; test $? = 2 &&
	echo "tichaos: cluster: no component '\''cdc-9'\'' in the cluster" >expect &&
	test_cmp expect err
'

test_expect_success 'an unknown signal: exit 2' '
	"$TICHAOS" cluster kill up-0 --signal USR9 --dir "$C" 2>err; test $? = 2 &&
	echo "tichaos: cluster: --signal: unknown signal '\''USR9'\'' (expected KILL, TERM, INT, QUIT or HUP)" >expect &&
	test_cmp expect err
'

# A described cluster whose one component is a plain program: the same
# operations work through a topology file, with no endpoints to check.
mkdir -p "$TRASH/s"
cat >"$TRASH/s/topology.yaml" <<EOF
components:
  - name: sleeper
    roles: [cdc]
    start: [sleep, "600"]
    pidfile: sleeper.pid
    log: sleeper.log
EOF

test_expect_success 'a topology component: start, pause, continue, kill' '
	T="$TRASH/s/topology.yaml" &&
	"$TICHAOS" cluster up --cluster "$T" >out &&
	pid=$(cat "$TRASH/s/sleeper.pid") && test_track_pid "$pid" &&
	alive "$pid" &&
	grep -Eq "^sleeper +cdc +$pid +- +running" out &&
	"$TICHAOS" cluster pause sleeper --cluster "$T" &&
	"$TICHAOS" cluster status --cluster "$T" >out; test $? = 3 &&
	grep -Eq "^sleeper .* paused " out &&
	"$TICHAOS" cluster continue sleeper --cluster "$T" &&
	"$TICHAOS" cluster kill sleeper --cluster "$T" --signal TERM &&
	! alive "$pid" &&
	"$TICHAOS" cluster start sleeper --cluster "$T" &&
	pid2=$(cat "$TRASH/s/sleeper.pid") && test_track_pid "$pid2" &&
	test "$pid2" != "$pid" &&
	"$TICHAOS" cluster down --cluster "$T" &&
	! alive "$pid2" && test ! -e "$TRASH/s/sleeper.pid"
'

# A topology whose start changed while its server ran (etcd given one
# more flag): the pidfile names a live process of the same program that
# does not run the new command. Starting another would fail on its
# ports and write over the pidfile, losing the one that runs.
test_expect_success 'a pidfile naming the same program run otherwise: start and down refuse, the pidfile kept, exit 3' '
	T="$TRASH/s/topology.yaml" &&
	"$TICHAOS" cluster start sleeper --cluster "$T" &&
	pid=$(cat "$TRASH/s/sleeper.pid") && test_track_pid "$pid" &&
	sed -e "s/start: \[sleep, \"600\"\]/start: [sleep, \"601\"]/" "$T" >"$TRASH/s/changed.yaml" &&
	grep -q "\"601\"" "$TRASH/s/changed.yaml" &&
	{ "$TICHAOS" cluster start sleeper --cluster "$TRASH/s/changed.yaml" 2>err; test $? = 3; } &&
	echo "tichaos: sleeper: its pidfile '\''$TRASH/s/sleeper.pid'\'' names pid $pid, which runs '\''sleep 600'\'', not its start command: a server started otherwise, or before the topology changed; stop it first (its pid), or mend the topology" >expect &&
	test_cmp expect err &&
	test "$(cat "$TRASH/s/sleeper.pid")" = "$pid" && alive "$pid" &&
	{ "$TICHAOS" cluster down --cluster "$TRASH/s/changed.yaml" 2>err; test $? = 3; } &&
	test_cmp expect err &&
	test "$(cat "$TRASH/s/sleeper.pid")" = "$pid" && alive "$pid" &&
	"$TICHAOS" cluster kill sleeper --cluster "$T" && ! alive "$pid" &&
	echo "$$" >"$TRASH/s/sleeper.pid" &&
	"$TICHAOS" cluster start sleeper --cluster "$T" &&
	pid=$(cat "$TRASH/s/sleeper.pid") && test_track_pid "$pid" && test "$pid" != "$$" &&
	"$TICHAOS" cluster kill sleeper --cluster "$T"
'

# A real TiDB bootstrapping on a fresh TiKV under load took longer than
# the 60 s a start may take by default: `timeout` gives another.
test_expect_success 'timeout: a start that never gets ready gives up after it, says it, stops it; a bad one: exit 2' '
	cat >"$TRASH/s/slow.yaml" <<-EOF &&
	timeout: 2s
	components:
	  - name: slow
	    start: [sleep, "600"]
	    http_url: "http://127.0.0.1:1/status"
	    pidfile: slow.pid
	    log: slow.log
	EOF
	{ "$TICHAOS" cluster up --cluster "$TRASH/s/slow.yaml" >out 2>err; test $? = 3; } &&
	grep -q "^tichaos: slow not ready after 2s: cannot GET '\''http://127.0.0.1:1/status'\''" err &&
	test ! -e "$TRASH/s/slow.pid" &&
	printf "timeout: 0s\ncomponents:\n  - name: x\n" >"$TRASH/s/bad.yaml" &&
	"$TICHAOS" cluster status --cluster "$TRASH/s/bad.yaml" 2>err; test $? = 2 &&
	echo "tichaos: $TRASH/s/bad.yaml:1:10: timeout must be a duration of 1s or more (60s, 5m)" >expect &&
	test_cmp expect err
'

# tiup starts PD, then TiKV, then TiDB; a real TiDB started beside its
# PDs before they answered exited at once (FATAL "get TSO failed"). Here
# the "PD" answers only a second after its start, the "TiKV" exits unless
# the PD answers when it starts, and the last one unless the TiKV got
# that far within 60 s: cluster up starts them rank by rank.
test_expect_success 'cluster up: PD first and ready, then TiKV, then the rest' '
	take_port pdport &&
	mkdir -p "$TRASH/o/srv" && printf "200\nok\n" >"$TRASH/o/srv/GET_health" &&
	cat >"$TRASH/o/pd.pl" <<-\EOF &&
	sleep 1;
	do shift;
	die $@ if $@;
	EOF
	cat >"$TRASH/o/kv.pl" <<-\EOF &&
	use IO::Socket::INET;
	IO::Socket::INET->new("127.0.0.1:$ARGV[0]") or exit 1;
	open my $f, ">", "$ARGV[1]/kv-started" or die;
	sleep 600;
	EOF
	cat >"$TRASH/o/late.pl" <<-\EOF &&
	for (1 .. 600) { last if -e "$ARGV[0]/kv-started"; select undef, undef, undef, 0.1 }
	-e "$ARGV[0]/kv-started" or exit 1;
	sleep 600;
	EOF
	cat >"$TRASH/o/topology.yaml" <<-EOF &&
	components:
	  - name: late
	    start: [perl, "$TRASH/o/late.pl", "$TRASH/o"]
	    pidfile: late.pid
	  - name: kv-0
	    roles: [kv]
	    start: [perl, "$TRASH/o/kv.pl", "$pdport", "$TRASH/o"]
	    pidfile: kv.pid
	  - name: pd-0
	    roles: [pd]
	    http_url: "http://127.0.0.1:$pdport/health"
	    start: [perl, "$TRASH/o/pd.pl", "$ROOT/tests/helpers/fake-http.pl", "$pdport", "$TRASH/o/srv", "$TRASH/o/pd.log"]
	    pidfile: pd.pid
	EOF
	{ "$TICHAOS" cluster up --cluster "$TRASH/o/topology.yaml" >out 2>err || { cat err; false; }; } &&
	for n in pd kv late; do
		test -s "$TRASH/o/$n.pid" &&
		test_track_pid "$(cat "$TRASH/o/$n.pid")" && alive "$(cat "$TRASH/o/$n.pid")" || return 1
	done &&
	"$TICHAOS" cluster down --cluster "$TRASH/o/topology.yaml" &&
	test ! -e "$TRASH/o/pd.pid"
'

test_expect_success 'a topology with a typo: file:line:col and a suggestion, exit 2' '
	printf "components:\n  - name: x\n    rolse: [cdc]\n" >"$TRASH/s/bad.yaml" &&
	"$TICHAOS" cluster status --cluster "$TRASH/s/bad.yaml" 2>err; test $? = 2 &&
	echo "tichaos: $TRASH/s/bad.yaml:3:5: unknown key '\''rolse'\'' in component (did you mean '\''roles'\''?)" >expect &&
	test_cmp expect err
'

test_expect_success 'a topology with an unknown role: exit 2' '
	printf "components:\n  - name: x\n    roles: [cdcc]\n" >"$TRASH/s/bad.yaml" &&
	"$TICHAOS" cluster status --cluster "$TRASH/s/bad.yaml" 2>err; test $? = 2 &&
	echo "tichaos: $TRASH/s/bad.yaml:3:13: unknown role '\''cdcc'\'' (did you mean '\''cdc'\''?)" >expect &&
	test_cmp expect err
'

test_expect_success 'a component name that a suite could not name, or a role: exit 2' '
	printf "components:\n  - name: \"up 0\"\n    roles: [cdc]\n" >"$TRASH/s/bad.yaml" &&
	"$TICHAOS" cluster status --cluster "$TRASH/s/bad.yaml" 2>err; test $? = 2 &&
	echo "tichaos: $TRASH/s/bad.yaml:2:11: component name: '\''up 0'\'' is not a role or a component name (1 to 64 letters, digits, '\''_'\'', '\''-'\'', '\''.'\'' and '\'':'\'')" >expect &&
	test_cmp expect err &&
	printf "components:\n  - name: cdc\n    roles: [cdc]\n" >"$TRASH/s/bad.yaml" &&
	"$TICHAOS" cluster status --cluster "$TRASH/s/bad.yaml" 2>err; test $? = 2 &&
	echo "tichaos: $TRASH/s/bad.yaml:2:11: component name: a role'\''s name cannot name one component" >expect &&
	test_cmp expect err
'

test_expect_success 'a topology changefeed: a typo in it, or no id: exit 2' '
	printf "changefeed:\n  id: cf\n  sink_url: x\ncomponents:\n  - name: x\n" >"$TRASH/s/bad.yaml" &&
	"$TICHAOS" cluster status --cluster "$TRASH/s/bad.yaml" 2>err; test $? = 2 &&
	echo "tichaos: $TRASH/s/bad.yaml:3:3: unknown key '\''sink_url'\'' in changefeed (did you mean '\''sink_uri'\''?)" >expect &&
	test_cmp expect err &&
	printf "changefeed:\n  sink_uri: \"mysql://d\"\ncomponents:\n  - name: x\n" >"$TRASH/s/bad.yaml" &&
	"$TICHAOS" cluster status --cluster "$TRASH/s/bad.yaml" 2>err; test $? = 2 &&
	echo "tichaos: $TRASH/s/bad.yaml:2:3: changefeed needs an id" >expect &&
	test_cmp expect err
'

# bad_topology NAME EXPECTED: the topology in $TRASH/s/NAME.yaml is
# refused, exit 2, with exactly "tichaos: FILE:EXPECTED".
bad_topology() {
	"$TICHAOS" cluster status --cluster "$TRASH/s/$1.yaml" 2>err; test $? = 2 &&
	echo "tichaos: $TRASH/s/$1.yaml:$2" >expect &&
	test_cmp expect err
}

test_expect_success 'SSH hosts: every mistake in a host or its use, file:line:col' '
	printf "hosts:\n  - name: db\n    ssh: {address: h, user: u}\ncomponents:\n  - name: x\n" >"$TRASH/s/nokey.yaml" &&
	bad_topology nokey "3:10: ssh needs a key (or agent: true)" &&
	printf "hosts:\n  - name: db\n    ssh: {address: h, user: u, key: k, prot: 22}\ncomponents:\n  - name: x\n" >"$TRASH/s/typo.yaml" &&
	bad_topology typo "3:40: unknown key '\''prot'\'' in ssh (did you mean '\''port'\''?)" &&
	printf "hosts:\n  - name: db\n    ssh: {address: h, user: u, key: k, port: 70000}\ncomponents:\n  - name: x\n" >"$TRASH/s/port.yaml" &&
	bad_topology port "3:46: port must be a port number" &&
	printf "hosts:\n  - name: local\n    ssh: {address: h, user: u, key: k}\ncomponents:\n  - name: x\n" >"$TRASH/s/local.yaml" &&
	bad_topology local "2:11: '\''local'\'' is this machine: name SSH hosts otherwise" &&
	printf "hosts:\n  - name: db\n    ssh: {address: h, user: u, key: k}\n  - name: db\n    ssh: {address: h, user: u, key: k}\ncomponents:\n  - name: x\n" >"$TRASH/s/dup.yaml" &&
	bad_topology dup "4:5: duplicate host name '\''db'\''" &&
	printf "hosts:\n  - name: db\n    ssh: {address: h, user: u, key: k}\ncomponents:\n  - name: x\n    host: dbb\n" >"$TRASH/s/unknown.yaml" &&
	bad_topology unknown "6:11: unknown host '\''dbb'\'' (hosts: are named under hosts:, or '\''local'\'')" &&
	printf "hosts:\n  - name: db\n    ssh: {address: h, user: u, key: k}\ncomponents:\n  - name: x\n    host: db\n    pidfile: x.pid\n" >"$TRASH/s/relative.yaml" &&
	bad_topology relative "7:14: pidfile must be an absolute path on an SSH host" &&
	printf "components:\n  - name: x\n    pidfile: x.pid\n    pid_command: pgrep x\n" >"$TRASH/s/two.yaml" &&
	bad_topology two "2:5: component '\''x'\'': give one pid source (pidfile, pid_command or status_pid), not 2" &&
	printf "components:\n  - name: x\n    status_pid: yes\n" >"$TRASH/s/bool.yaml" &&
	bad_topology bool "3:17: status_pid must be true or false" &&
	printf "components:\n  - name: x\n    status_pid: true\n" >"$TRASH/s/nourl.yaml" &&
	bad_topology nourl "3:17: status_pid needs the component'\''s http_url"
'

# TiCDC's run_cdc_server starts a capture under GO_FAILPOINTS, its log
# named anew at each start (--logsuffix "0-$count"); their test_prepare
# exports the ports it uses (UP_TIDB_PORT and the rest), with defaults.
cat >"$TRASH/s/numbered.yaml" <<'EOF'
components:
  - name: numbered
    roles: [cdc]
    start: [sleep, "60{start}"]
    env: { GO_FAILPOINTS: "a/b=return(true)", TICHAOS_T: "${TICHAOS_T_VALUE:-fallback}" }
    pidfile: numbered.pid
    log: "numbered-{start}.log"
EOF

test_expect_success 'env, ${VAR:-default}, {start}: the environment, the number of each start in argv and log' '
	T="$TRASH/s/numbered.yaml" &&
	TICHAOS_T_VALUE= "$TICHAOS" cluster start numbered --cluster "$T" &&
	pid=$(cat "$TRASH/s/numbered.pid") && test_track_pid "$pid" &&
	test "$(tr "\0" " " </proc/$pid/cmdline)" = "sleep 601 " &&
	tr "\0" "\n" </proc/$pid/environ >env1 &&
	grep -qx "GO_FAILPOINTS=a/b=return(true)" env1 && grep -qx "TICHAOS_T=fallback" env1 &&
	test -e "$TRASH/s/numbered-1.log" &&
	"$TICHAOS" cluster status --cluster "$T" >out &&
	grep -Eq "^numbered +cdc +$pid +- +running" out &&
	"$TICHAOS" cluster kill numbered --cluster "$T" && ! alive "$pid" &&
	TICHAOS_T_VALUE=given "$TICHAOS" cluster start numbered --cluster "$T" &&
	pid=$(cat "$TRASH/s/numbered.pid") && test_track_pid "$pid" &&
	test "$(tr "\0" " " </proc/$pid/cmdline)" = "sleep 601 " &&
	tr "\0" "\n" </proc/$pid/environ | grep -qx "TICHAOS_T=given" &&
	"$TICHAOS" cluster kill numbered --cluster "$T" && ! alive "$pid"
'

# run_cdc_server passes -test.coverprofile=$OUT_DIR/cov.$TEST_NAME.$pid.out
# to a cdc.test only: an argument given where a variable says so.
cat >"$TRASH/s/cover.yaml" <<'EOF'
components:
  - name: cover
    roles: [cdc]
    start: [perl, -e, "sleep 600", --, "${T0140_OUT:+-test.coverprofile=${T0140_OUT}/cov.${T0140_NAME:-tichaos}.{start}.out}", "${T0140_NOPE:-}", "${T0140_NOPE:-d-${T0140_OUT:-none}}", "$${x}"]
    pidfile: cover.pid
EOF

test_expect_success '${VAR:+WORD}, nested: an argument there only where its variable is set; one left empty left out' '
	T="$TRASH/s/cover.yaml" &&
	T0140_OUT=/o T0140_NAME=n "$TICHAOS" cluster start cover --cluster "$T" &&
	pid=$(cat "$TRASH/s/cover.pid") && test_track_pid "$pid" &&
	test "$(tr "\0" " " </proc/$pid/cmdline)" = "perl -e sleep 600 -- -test.coverprofile=/o/cov.n.1.out d-/o \${x} " &&
	T0140_OUT=/o T0140_NAME=n "$TICHAOS" cluster kill cover --cluster "$T" && ! alive "$pid" &&
	T0140_OUT= "$TICHAOS" cluster start cover --cluster "$T" &&
	pid=$(cat "$TRASH/s/cover.pid") && test_track_pid "$pid" &&
	test "$(tr "\0" " " </proc/$pid/cmdline)" = "perl -e sleep 600 -- d-none \${x} " &&
	T0140_OUT= "$TICHAOS" cluster kill cover --cluster "$T" && ! alive "$pid" &&
	printf "components:\n  - name: x\n    start: [sleep, \"\${T0140_OUT:+1\"]\n" >"$TRASH/s/open.yaml" &&
	bad_topology open "3:20: '\''\${T0140_OUT:+1'\'': write \${NAME}, \${NAME:-DEFAULT} or \${NAME:+WORD} for an environment variable, \$\${ for \${"
'

test_expect_success 'a run restarts it twice: starts 1 and 2, each log its own, all collected' '
	{
		sed -n "/^components:/,\$p" "$C/topology.yaml" | sed "1d" >comps &&
		sed -n "1,/^components:/p" "$C/topology.yaml" &&
		cat comps && sed -n "/^  - name: numbered/,\$p" "$TRASH/s/numbered.yaml" |
			sed -e "s|numbered.pid|$TRASH/s/numbered.pid|" -e "s|\"numbered-{start}.log\"|\"$TRASH/s/numbered-{start}.log\"|"
	} >"$TRASH/s/both.yaml" &&
	{ insert_suite restart 6s 1 rs 10 && cat <<-EOF; } >"$TRASH/s/restart.yaml" &&
	faults:
	  - kind: kill
	    target: numbered
	    at: [1s, 3s]
	    down: 1s
	EOF
	rm -f "$TRASH"/s/numbered-*.log &&
	"$TICHAOS" cluster start numbered --cluster "$TRASH/s/both.yaml" &&
	first=$(cat "$TRASH/s/numbered.pid") && test_track_pid "$first" &&
	echo "the first start" >>"$TRASH/s/numbered-1.log" &&
	{ "$TICHAOS" run "$TRASH/s/restart.yaml" --cluster "$TRASH/s/both.yaml" --out "$TRASH/rs" >tap 2>err ||
	{ cat err tap; false; }; } &&
	grep -qx "ok 2 - fault 1 kill: 2 of 2 injected, 2 healed" tap &&
	pid=$(cat "$TRASH/s/numbered.pid") && test_track_pid "$pid" &&
	test "$(tr "\0" " " </proc/$pid/cmdline)" = "sleep 602 " &&
	test -e "$TRASH/s/numbered-2.log" &&
	grep -q "^    log: \"$TRASH/s/numbered-{start}.log\"$" "$TRASH/rs/topology.yaml" &&
	grep -q "^    logs: \[\"$TRASH/s/numbered-\*.log\"\]$" "$TRASH/rs/topology.yaml" &&
	grep -q "^    env: {GO_FAILPOINTS: \"a/b=return(true)\", TICHAOS_T: \"fallback\"}$" "$TRASH/rs/topology.yaml" &&
	"$TICHAOS" cluster kill numbered --cluster "$TRASH/s/both.yaml"
'

test_expect_success 'an unset ${VAR} without a default, {start} in a directory, a bad env name: file:line:col, exit 2' '
	printf "components:\n  - name: x\n    start: [sleep, \"\${TICHAOS_UNSET_X}\"]\n" >"$TRASH/s/unset.yaml" &&
	bad_topology unset "3:20: the environment variable '\''TICHAOS_UNSET_X'\'' is not set (\${TICHAOS_UNSET_X:-DEFAULT} gives a default)" &&
	printf "components:\n  - name: x\n    log: \"/x/{start}/a.log\"\n" >"$TRASH/s/dir.yaml" &&
	bad_topology dir "3:10: log: {start} only in the file'\''s name" &&
	printf "components:\n  - name: x\n    env: { 1X: y }\n" >"$TRASH/s/env.yaml" &&
	bad_topology env "3:12: env: '\''1X'\'' is no variable name"
'

test_expect_success 'a pid command: the pid it prints is the component' '
	sleep 600 & spid=$! && test_track_pid $spid &&
	printf "components:\n  - name: s\n    roles: [cdc]\n    pid_command: \"echo %s\"\n" $spid >"$TRASH/s/pidcmd.yaml" &&
	"$TICHAOS" cluster status --cluster "$TRASH/s/pidcmd.yaml" >out &&
	grep -Eq "^s +cdc +$spid +- +running" out &&
	"$TICHAOS" cluster kill s --cluster "$TRASH/s/pidcmd.yaml" &&
	! alive $spid &&
	"$TICHAOS" cluster status --cluster "$TRASH/s/pidcmd.yaml" >out; test $? = 3 &&
	grep -Eq "^s +cdc +- +- +stopped" out
'

test_expect_success 'status_pid: TiCDC names its pid in GET /api/v2/status' '
	sleep 600 & spid=$! && test_track_pid $spid &&
	port=$(free_port_base) && mkdir -p "$TRASH/cdc" &&
	printf "200 application/json\n{\"version\": \"v8.5.0\", \"id\": \"c1\", \"pid\": %s, \"is_owner\": true, \"liveness\": 0}\n" \
		$spid >"$TRASH/cdc/GET_api_v2_status" &&
	printf "200 application/json\n{\"items\": [{\"id\": \"c1\", \"is_owner\": true, \"address\": \"127.0.0.1:%s\"}], \"total\": 1}\n" \
		$port >"$TRASH/cdc/GET_api_v2_captures" &&
	{ perl "$ROOT/tests/helpers/fake-http.pl" $port "$TRASH/cdc" "$TRASH/cdc.log" 2>"$TRASH/cdc.err" & } &&
	fake=$! && test_track_pid $fake &&
	wait_for_condition 5 "listening $port" &&
	printf "components:\n  - name: cdc-0\n    roles: [cdc]\n    http_url: \"http://127.0.0.1:%s/\"\n    status_pid: true\n" \
		$port >"$TRASH/s/statuspid.yaml" &&
	"$TICHAOS" cluster status --cluster "$TRASH/s/statuspid.yaml" >out &&
	grep -Eq "^cdc-0 +cdc +$spid +http://127.0.0.1:$port/ +running" out &&
	"$TICHAOS" cluster pause cdc-0 --cluster "$TRASH/s/statuspid.yaml" &&
	test "$(sed -e "s/.*) //" "/proc/$spid/stat" | cut -c1)" = T &&
	"$TICHAOS" cluster continue cdc-0 --cluster "$TRASH/s/statuspid.yaml" &&
	"$TICHAOS" cluster kill cdc-0 --cluster "$TRASH/s/statuspid.yaml" &&
	! alive $spid &&
	test "$(grep -c "^GET /api/v2/status$" "$TRASH/cdc.log")" -ge 4
'

test_expect_success 'a missing topology file: exit 2' '
	"$TICHAOS" cluster status --cluster "$TRASH/none.yaml" 2>err; test $? = 2 &&
	echo "tichaos: cannot open '\''$TRASH/none.yaml'\'': No such file or directory" >expect &&
	test_cmp expect err
'

test_done
