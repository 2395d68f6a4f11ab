#!/bin/sh
# tichaos beside TiCDC's own integration tests (docs/ci.md): a cluster
# laid out as their scripts lay it out, suites/fail_over_ddl_mix.yaml
# run on it with the shipped topologies/ticdc-integration.yaml and a
# sync-diff configuration of theirs, the results found by a collector of
# *.log files, as their Jenkins keeps them.
#
# The layout (pingcap/ticdc tests/integration_tests/_utils/test_prepare
# and run_cdc_server): two upstream TiDBs (UP_TIDB_PORT,
# UP_TIDB_OTHER_PORT), a downstream TiDB (DOWN_TIDB_PORT), PD
# (UP_PD_PORT_1), two captures at CDC_PORT and a second port, each
# started as `$CDC_BINARY server --log-file $WORK_DIR/cdcN.log --log-level
# debug --data-dir ... --cluster-id default --addr ... --pd ...` with
# GO_FAILPOINTS in its environment and its stdout appended to
# $WORK_DIR/stdoutN.log. Here, from a per-run block of ports, the
# TiDBs are tests/helpers/fake-tidb-sql.pl in front of the local
# cluster's MariaDB (the downstream one recording its DDL jobs as a
# TiDB does), PD's etcd is the local cluster's real etcd, and the
# captures are tests/helpers/fake-cdc.pl started by that command line,
# their sink the model of TiCDC's MySQL sink with its fix (-marker pre,
# t0522), from up-0 to the downstream TiDB.
. "$(dirname "$0")/test-lib.sh"

need mariadbd mariadb-binlog etcd etcdctl

SINK="$ROOT/tests/helpers/fake-cdc-sink/fake-cdc-sink"
[ -x "$SINK" ] || { echo "Bail out! $SINK is not built (make unit-tests)"; exit 1; }

TOPOLOGY="$ROOT/topologies/ticdc-integration.yaml"

# run_cdc_server N PORT: capture N as their script starts it.
run_cdc_server() {
	GO_FAILPOINTS= "$CDC_BINARY" server --log-file "$WORK_DIR/cdc$1.log" \
		--log-level debug --data-dir "$WORK_DIR/cdc_data$1" \
		--cluster-id default --addr "127.0.0.1:$2" \
		--pd "http://127.0.0.1:$UP_PD_PORT_1" \
		>>"$WORK_DIR/stdout$1.log" 2>&1 &
	test_track_pid $!
}

# fake_tidb PORT TO [ARGS]: a fake TiDB on PORT in front of 127.0.0.1:TO.
fake_tidb() {
	port=$1 && to=$2 && shift 2 &&
	{ perl "$ROOT/tests/helpers/fake-tidb-sql.pl" --listen "$port" --to "$to" "$@" \
		2>>"$WORK_DIR/tidb-$port.log" & } &&
	test_track_pid $! &&
	wait_for_condition 5 "listening $port"
}

test_cluster_setup 'set up: their layout on a block of ports, the captures started as their script does' '
	WORK_DIR="$TRASH/tidb_cdc_test/tichaos" && mkdir -p "$WORK_DIR" &&
	take_port UP_TIDB_PORT && take_port UP_TIDB_OTHER_PORT &&
	take_port DOWN_TIDB_PORT && take_port CDC_PORT && take_port CDC_PORT_1 &&
	UP_PD_PORT_1=$(port_of "$C" etcd-0) &&
	CDC_BINARY="$ROOT/tests/helpers/fake-cdc.pl" &&
	FAKE_CDC_SINK="$SINK -up 127.0.0.1:$UP -down 127.0.0.1:$DOWN_TIDB_PORT -marker pre" &&
	FAKE_CDC_SINK_STATUS="$WORK_DIR/changefeed.json" &&
	export WORK_DIR UP_TIDB_PORT UP_TIDB_OTHER_PORT DOWN_TIDB_PORT CDC_PORT \
		CDC_PORT_1 UP_PD_PORT_1 CDC_BINARY FAKE_CDC_SINK FAKE_CDC_SINK_STATUS &&
	sql $DOWN "STOP SLAVE; RESET SLAVE ALL; DROP DATABASE IF EXISTS tidb_cdc" &&
	etcdctl --endpoints "http://127.0.0.1:$UP_PD_PORT_1" del --prefix /tidb/cdc/ >/dev/null &&
	fake_tidb "$UP_TIDB_PORT" "$UP" && fake_tidb "$UP_TIDB_OTHER_PORT" "$UP" &&
	fake_tidb "$DOWN_TIDB_PORT" "$DOWN" --ddl-jobs tidb_fake &&
	run_cdc_server 0 "$CDC_PORT" &&
	wait_for_condition 120 "grep -q \"restart from ts\" \"$WORK_DIR/cdc0.log\"" &&
	run_cdc_server 1 "$CDC_PORT_1" &&
	# cdc-1 starts in the background, as their script starts it: its
	# running is awaited (a loaded machine starts it late), not assumed.
	wait_for_condition 120 "\"$TICHAOS\" cluster status --cluster \"$TOPOLOGY\" >status 2>err &&
		grep -Eq \"^cdc-1 +cdc +[0-9]+ +http://127.0.0.1:$CDC_PORT_1 +running\" status" ||
	{ cat status err; false; } &&
	grep -Eq "^cdc-0 +cdc +[0-9]+ +http://127.0.0.1:$CDC_PORT +running" status
'

# Their conf/diff_config.toml for consistent_fail_over_ddl_mix
# (test-lib's diff_config_toml), its ports and output-dir this run's.
# The shipped suite, given it by --set, as docs/ci.md's command does.
diff_config_toml "$UP_TIDB_PORT" "$DOWN_TIDB_PORT" "$WORK_DIR/sync_diff/output" 4 \
	"\"test.*\"" >"$WORK_DIR/diff_config.toml"

test_expect_success 'fail_over_ddl_mix on their layout: two captures stopped and started again, the tables equal' '
	mkdir -p "$TRASH/cov" &&
	{ OUT_DIR="$TRASH/cov" TEST_NAME=t0523 "$TICHAOS" run "$ROOT/suites/fail_over_ddl_mix.yaml" \
		--cluster "$TOPOLOGY" --duration 60s \
		--set checks.consistency.diff_config="$WORK_DIR/diff_config.toml" \
		--out "$TRASH/run" --results-as-logs "$WORK_DIR" >tap 2>err ||
	{ cat tap; tail -20 err; false; }; } &&
	grep -qx "    diff_config: \"$WORK_DIR/diff_config.toml\"" "$TRASH/run/suite.yaml" &&
	test -d "$WORK_DIR/sync_diff/output" &&
	grep -Eqx "ok [0-9]+ - fault 1 kill: 2 of 2 injected, 2 healed" tap &&
	grep -Eqx "ok [0-9]+ - consistency: [0-9]+ tables, [0-9]+ rows equal on both sides \(sync [0-9.]+s\)" tap &&
	grep -Eqx "ok [0-9]+ - logscan: .*" tap &&
	grep "\"f\":\"restart\"" "$TRASH/run/history.jsonl" | grep -c "\"type\":\"info\"" >n &&
	test "$(cat n)" = 2
'

# run_cdc_server gives a cdc.test -test.coverprofile (with OUT_DIR, as
# their framework exports it): a capture tichaos started again carries
# it, named by its start, before the subcommand; their own start did not.
test_expect_success 'the restarts as their script makes them: GO_FAILPOINTS, a log of its own each, a coverage profile' '
	for port in "$CDC_PORT" "$CDC_PORT_1"; do
		pid=$(curl -s "http://127.0.0.1:$port/api/v2/status" |
			sed -n "s/.*\"pid\":\([0-9]*\).*/\1/p") &&
		test -n "$pid" && test_track_pid "$pid" &&
		tr "\0" "\n" </proc/$pid/environ | grep -qx "GO_FAILPOINTS=" &&
		tr "\0" "\n" </proc/$pid/cmdline >argv &&
		if n=$(sed -n "s|^$WORK_DIR/cdc\([01]-[12]\)\.log\$|\1|p" argv) && test -n "$n"; then
			test "$(grep -x -B 1 server argv | head -n 1)" = "-test.coverprofile=$TRASH/cov/cov.t0523.tichaos-cdc$n.out"
		else
			! grep -q "^-test\." argv
		fi || return 1
	done &&
	ls "$WORK_DIR" | grep -E "^cdc[01]-[12]\.log$" >restarted &&
	test "$(wc -l <restarted)" = 2 &&
	grep -q "^    log: \"$WORK_DIR/cdc0-{start}.log\"$" "$TRASH/run/topology.yaml"
'

test_expect_success 'a *.log collector of WORK_DIR finds the results, the captures logs and the fix SQL dir' '
	find "$WORK_DIR" -name "*.log" >collected &&
	run=$(find "$WORK_DIR" -mindepth 2 -maxdepth 2 -type d -path "*/tichaos-fail_over_ddl_mix/*") &&
	test -n "$run" &&
	for f in summary.txt.log report.html.log junit.xml.log results.json.log history.jsonl.log \
		logs/tichaos.log; do
		grep -qx "$run/$f" collected || { echo "not collected: $f"; return 1; }
	done &&
	while read -r f; do
		n=${f#cdc} && n=${n%%-*} &&
		grep -qx "$run/logs/cdc-$n.${f%.log}.log" collected || { echo "not collected: $f"; return 1; }
	done <restarted &&
	cmp "$TRASH/run/summary.txt" "$run/summary.txt.log" &&
	test -d "$WORK_DIR/sync_diff/output/fix-on-mysql1"
'

test_expect_success 'stop the captures (SIGTERM, by their pids): what tichaos started writes its coverage' '
	for c in 0 1; do
		OUT_DIR="$TRASH/cov" TEST_NAME=t0523 "$TICHAOS" cluster kill cdc-$c --signal TERM --cluster "$TOPOLOGY" || return 1
	done &&
	ls "$TRASH/cov" >profiles &&
	test -s profiles &&
	while read -r f; do
		n=${f#cov.t0523.tichaos-cdc} && n=${n%.out} &&
		grep -qx "cdc$n.log" restarted &&
		test "$(cat "$TRASH/cov/$f")" = "mode: atomic" || { echo "not a restart: $f"; return 1; }
	done <profiles
'

# A capture that ends on its own (kill -9 from outside: a crash) is named
# by the exit watch with its pid, read from TiCDC's API as their layout
# has no pidfile, and the last line of its log: the newest of its
# cdc1-{start}.log, which `cluster start` made, not this run. The run
# lasts long enough that a loaded machine's first insert comes well
# before its end (a 6 s run failed once under ASan at load 20, how was
# not kept).
test_expect_success 'a capture that exits on its own in a run: named, the last line of its newest log' '
	for c in 0 1; do "$TICHAOS" cluster start cdc-$c --cluster "$TOPOLOGY" >/dev/null || return 1; done &&
	pid1=$(curl -s "http://127.0.0.1:$CDC_PORT_1/api/v2/status" | sed -n "s/.*\"pid\":\([0-9]*\).*/\1/p") &&
	pid0=$(curl -s "http://127.0.0.1:$CDC_PORT/api/v2/status" | sed -n "s/.*\"pid\":\([0-9]*\).*/\1/p") &&
	test -n "$pid0" && test -n "$pid1" && test_track_pid "$pid0" && test_track_pid "$pid1" &&
	insert_suite crash 20s 4 test 20 >"$TRASH/crash.yaml" &&
	{ "$TICHAOS" run "$TRASH/crash.yaml" --cluster "$TOPOLOGY" --out "$TRASH/crash" >tap 2>err & } &&
	run=$! && test_track_pid $run &&
	wait_for_condition 60 "grep -q \"\\\"type\\\":\\\"ok\\\"\" \"$TRASH/crash/history.jsonl\"" &&
	kill -KILL "$pid1" &&
	{ wait $run; test $? = 1; } &&
	grep -Eqx "not ok 2 - exit cdc-1: cdc-1 ended on its own 1 time, first [0-9]+\.[0-9]s in \(pid $pid1\), not ended by tichaos" tap &&
	test "$(grep -c "^not ok" tap)" = 1 &&
	newest=$(ls -t "$WORK_DIR"/cdc1-*.log | head -n 1) &&
	tail -n 1 "$newest" | sed "s/[[:space:]]*\$//" >expect &&
	perl -MJSON::PP -e "local \$/; my \$r = decode_json(<STDIN>); print \$r->{exits}[0]{details}{last_line}, qq(\\n)" \
		<"$TRASH/crash/results.json" >actual &&
	test_cmp expect actual ||
	{ cat tap err; false; }
'

test_done
