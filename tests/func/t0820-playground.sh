#!/bin/sh
# --cluster playground: tichaos starts `tiup playground` (upstream, with
# the suite's hints, and a downstream one), finds the instances below it,
# creates the changefeed, restarts what a fault killed (the playground
# does not) and stops everything by pid. tiup and the TiDB servers cannot
# run here: tests/helpers/fake-tiup.pl starts fake instances under the
# servers' names and flags (tests/helpers/fake-instance.pl: a real mariadbd
# for TiDB's SQL, fake-http.pl with tests/data/http/playground/ for the
# HTTP APIs). Without tiup: one line saying how to install it, exit 3.
# The downstream playground is started with --port-offset, which tiup's
# playground component has since v1.16.1 (pingcap/tiup#2453); `tiup
# playground` runs the newest one installed, and `tiup playground
# --version` says which (cobra's "tiup version 1.16.1 tiup", pingcap/tiup
# components/playground/main.go): an older one is refused before anything
# starts, exit 2, as a server too old is (t0480). The fake's playground is
# v1.16.1 unless $FAKE_TIUP_PLAYGROUND says otherwise.
. "$(dirname "$0")/test-lib.sh"
. "$ROOT/tests/func/lib-playground.sh"

C="$TRASH/c"

test_expect_success 'without tiup: one line saying how to install it, exit 3, nothing made' '
	PATH=/usr/bin:/bin "$TICHAOS" cluster up --cluster playground --dir "$TRASH/none" >out 2>err
	test $? = 3 &&
	echo "tichaos: tiup is not on PATH: install it with: curl --proto '\''=https'\'' --tlsv1.2 -sSf https://tiup-mirrors.pingcap.com/install.sh | sh (https://docs.pingcap.com/tidb/stable/tiup-overview), or use --cluster local or a topology file" >expect &&
	test_cmp expect err && test ! -s out && test ! -e "$TRASH/none"
'

test_expect_success 'a bad version is a usage error' '
	PATH=$WITH_TIUP "$TICHAOS" cluster up --cluster "playground:v8;rm" --dir "$TRASH/none" 2>err
	test $? = 2 &&
	echo "tichaos: --cluster playground:v8;rm: a version is letters, digits and . - _ + (playground:v8.5.0)" >expect &&
	test_cmp expect err
'

{ insert_suite pgold 2s 7 pgolddb 50; echo "requires: [ticdc]"; } >"$TRASH/old.yaml"

test_expect_success 'playground v1.16.0 refuses --port-offset; tichaos refuses it first: exit 2, nothing started' '
	FAKE_TIUP_PLAYGROUND=v1.16.0 PATH=$WITH_TIUP tiup playground --db 1 --pd 1 --kv 1 --ticdc 0 \
		--tiflash 0 --port-offset 10000 --without-monitor --tag probe >out 2>err
	test $? = 1 && echo "Error: unknown flag: --port-offset" >expect && test_cmp expect out &&
	msg="tichaos: tiup'\''s playground is v1.16.0: tichaos needs playground >= v1.16.1 (its --port-offset for the downstream playground, pingcap/tiup components/playground/main.go); update it with '\''tiup update playground'\''" &&
	FAKE_TIUP_PLAYGROUND=v1.16.0 PATH=$WITH_TIUP "$TICHAOS" cluster up --cluster playground --dir "$TRASH/old" >out 2>err
	test $? = 2 && echo "$msg" >expect && test_cmp expect err && test ! -s out &&
	test ! -e "$TRASH/old" && test ! -e "$TIUP_HOME/data" &&
	FAKE_TIUP_PLAYGROUND=v1.16.0 PATH=$WITH_TIUP "$TICHAOS" run "$TRASH/old.yaml" --cluster playground \
		--out "$TRASH/rold" --quiet >tap 2>err
	test $? = 2 && tail -n 1 err >got && test_cmp expect got &&
	test ! -e "$TRASH/rold" && test ! -e "$TIUP_HOME/data" && test -z "$(left "$TRASH/rold")"
'

test_expect_success 'a playground older than v1.4.0 (no --version): refused the same way' '
	FAKE_TIUP_PLAYGROUND=v1.3.7 PATH=$WITH_TIUP "$TICHAOS" cluster up --cluster playground --dir "$TRASH/old" 2>err
	test $? = 2 &&
	echo "tichaos: tiup'\''s playground is older than v1.4.0 (it has no --version): tichaos needs playground >= v1.16.1 (its --port-offset for the downstream playground, pingcap/tiup components/playground/main.go); update it with '\''tiup update playground'\''" >expect &&
	test_cmp expect err && test ! -e "$TRASH/old" && test ! -e "$TIUP_HOME/data"
'

test_expect_success 'a playground that fails: its last line, exit 3, nothing left' '
	FAKE_TIUP_FAIL=1 PATH=$WITH_TIUP "$TICHAOS" cluster up --cluster playground --dir "$TRASH/fail" 2>err
	test $? = 3 &&
	echo "tichaos: playground exited while starting; last log line: Error: cannot start the playground: fake failure" >expect &&
	tail -n 1 err >got && test_cmp expect got &&
	test -z "$(left "$TRASH/fail")"
'

test_expect_success 'a changefeed that cannot be created: exit 3, every instance stopped' '
	cp -R "$FAKE_TIUP_HTTP" "$TRASH/http-bad" &&
	printf "500 application/json\n{\"error_msg\":\"[CDC:ErrPDEtcdAPIError]etcd api call error\",\"error_code\":\"CDC:ErrPDEtcdAPIError\"}\n" \
		>"$TRASH/http-bad/cdc/POST_api_v2_changefeeds" &&
	rm "$TRASH/http-bad/cdc/POST_api_v2_changefeeds.run" &&
	FAKE_TIUP_HTTP="$TRASH/http-bad" PATH=$WITH_TIUP "$TICHAOS" cluster up --cluster playground --dir "$TRASH/bad" 2>err
	test $? = 3 &&
	tail -n 1 err | grep -q "^tichaos: changefeed tichaos: not found (GET .*/api/v2/changefeeds/tichaos.: HTTP 400: .*), and creating it failed: POST .http://127.0.0.1:[0-9]*/api/v2/changefeeds.: HTTP 500: \[CDC:ErrPDEtcdAPIError\]etcd api call error$" &&
	test -z "$(left "$TRASH/bad")" && test -z "$(left "$TIUP_HOME/data")" &&
	test -z "$(ls "$TRASH/bad"/*.pid 2>/dev/null)" && test -z "$(ls "$TIUP_HOME/data")"
'

# tiup_args DIR UP DOWN: the two playgrounds of the cluster in DIR ran
# `tiup playground` with UP and DOWN before "--without-monitor --tag";
# their tag in $tag.
tiup_args() {
	tag=$(sed -n "s/.*\"--tag\", \"\(tichaos-[0-9a-f]*\)\"\]$/\1/p" "$1/topology.yaml") &&
	echo "playground $2 --without-monitor --tag $tag" >expect &&
	test_cmp expect "$TIUP_HOME/data/$tag/args" &&
	echo "playground $3 --without-monitor --tag $tag-down" >expect &&
	test_cmp expect "$TIUP_HOME/data/$tag-down/args"
}

test_expect_success 'up on playground v1.16.1: both playgrounds, their instances found, the changefeed created' '
	PATH=$WITH_TIUP "$TICHAOS" cluster up --cluster playground:v8.5.0 --dir "$C" >out 2>err ||
	{ cat err; false; } &&
	for n in playground pd-0 tikv-0 tidb-0 cdc-0 playground-down down-pd-0 down-tikv-0 down-0; do
		grep -Eq "^$n .* running" out || { echo "no $n"; cat out; return 1; }
	done &&
	test "$(grep -c " running" out)" = 9 &&
	tiup_args "$C" "v8.5.0 --db 1 --pd 1 --kv 1 --ticdc 1 --tiflash 0" \
		"v8.5.0 --db 1 --pd 1 --kv 1 --ticdc 0 --tiflash 0 --port-offset 10000" &&
	grep -Eq "^tidb-0 +upstream .* 127\.0\.0\.1:[0-9]+ " out &&
	grep -Eq "^down-0 +downstream " out &&
	grep -Eq "^cdc-0 +cdc " out &&
	cdc="$TIUP_HOME/data/$tag/ticdc-0" &&
	printf "GET /api/v2/captures\nGET /api/v2/status\nGET /api/v2/changefeeds/tichaos\nPOST /api/v2/changefeeds\n" >expect &&
	grep -v "^GET /$" "$cdc/requests.log" | sort -u | sort -r >got && sort -r expect >want && test_cmp want got &&
	down=$(sed -n "s/^down-0 .* 127\.0\.0\.1:\([0-9]*\) .*/\1/p" out) &&
	printf "{\"changefeed_id\":\"tichaos\",\"sink_uri\":\"mysql://root@127.0.0.1:%s/\"}" "$down" >expect &&
	test_cmp expect "$cdc/http/POST_api_v2_changefeeds.body"
'

test_expect_success 'the topology: each instance by its command line, restartable' '
	grep -q "^changefeed:" "$C/topology.yaml" &&
	grep -q "sink_uri: \"mysql://root@127.0.0.1:" "$C/topology.yaml" &&
	pid=$(cat "$C/cdc-0.pid") &&
	tr "\0" " " <"/proc/$pid/cmdline" | grep -q "/cdc server --addr=127.0.0.1:" &&
	grep -q "ticdc-0/ticdc.log\"$" "$C/topology.yaml" &&
	sql "$(sed -n "s/^tidb-0 .* 127\.0\.0\.1:\([0-9]*\) .*/\1/p" out)" "SELECT 1" >got &&
	echo 1 >expect && test_cmp expect got
'

# The playground's note of the exit ("ticdc-0 quit: ...", on its stdout,
# $C/playground.log) is the last thing it does about it: status after it
# sees what the playground left.
test_expect_success 'kill: the playground does not restart it; start does, same command line' '
	old=$(cat "$C/cdc-0.pid") && cmd=$(tr "\0" " " <"/proc/$old/cmdline") &&
	size=$(wc -c <"$C/playground.log") &&
	PATH=$WITH_TIUP "$TICHAOS" cluster kill cdc-0 --cluster playground --dir "$C" &&
	! alive "$old" &&
	wait_for_condition 10 "tail -c +$((size + 1)) \"$C/playground.log\" | grep -qx \"ticdc-0 quit: signal: killed\"" &&
	PATH=$WITH_TIUP "$TICHAOS" cluster status --cluster playground --dir "$C" >st; test $? = 3 &&
	grep -Eq "^cdc-0 .* stopped" st &&
	PATH=$WITH_TIUP "$TICHAOS" cluster start cdc-0 --cluster playground --dir "$C" &&
	new=$(cat "$C/cdc-0.pid") && test "$new" != "$old" && alive "$new" &&
	test "$(tr "\0" " " <"/proc/$new/cmdline")" = "$cmd" &&
	PATH=$WITH_TIUP "$TICHAOS" cluster status --cluster playground --dir "$C" >st &&
	test "$(grep -c " running" st)" = 9
'

test_expect_success 'down: every process gone by pid, tiup clean for both tags' '
	pids=$(cat "$C"/*.pid) && : >"$TIUP_HOME/clean.log" &&
	PATH=$WITH_TIUP "$TICHAOS" cluster down --cluster playground --dir "$C" &&
	for p in $pids; do ! alive "$p" || { echo "pid $p alive"; return 1; }; done &&
	test -z "$(left "$TIUP_HOME/data")" &&
	printf "clean %s\nclean %s-down\n" "$tag" "$tag" >expect &&
	test_cmp expect "$TIUP_HOME/clean.log" &&
	test ! -e "$TIUP_HOME/data/$tag" && test ! -e "$TIUP_HOME/data/$tag-down"
'

# A developer's own servers: tiup playground's --db.binpath and its like
# (pingcap/tiup components/playground/main.go), named as they were built
# (TiCDC's integration tests build `cdc.test`).
mkdir -p "$TRASH/mine" &&
ln -s "$ROOT/tests/helpers/fake-instance.pl" "$TRASH/mine/tidb-server-dev" &&
ln -s "$ROOT/tests/helpers/fake-instance.pl" "$TRASH/mine/cdc.test" &&
printf '#!/bin/sh\n' >"$TRASH/mine/not-exec" && chmod 644 "$TRASH/mine/not-exec"

test_expect_success 'own binaries: each playground runs them (no TiCDC downstream), found by their names, restarted as they ran' '
	M=$TRASH/mc &&
	(cd "$TRASH" && PATH=$WITH_TIUP "$TICHAOS" cluster up \
		--cluster "playground:v8.5.0,db=mine/tidb-server-dev,ticdc=$TRASH/mine/cdc.test" \
		--dir "$M" >out 2>err) || { cat "$TRASH/err"; false; }
	test "$(grep -c " running" out)" = 9 &&
	tiup_args "$M" "v8.5.0 --db 1 --pd 1 --kv 1 --ticdc 1 --tiflash 0 --db.binpath $TRASH/mine/tidb-server-dev --ticdc.binpath $TRASH/mine/cdc.test" \
		"v8.5.0 --db 1 --pd 1 --kv 1 --ticdc 0 --tiflash 0 --port-offset 10000 --db.binpath $TRASH/mine/tidb-server-dev" &&
	for n in tidb-0 down-0; do
		tr "\0" " " <"/proc/$(cat "$M/$n.pid")/cmdline" | grep -q "perl $TRASH/mine/tidb-server-dev -P " ||
		{ echo "$n:"; tr "\0" " " <"/proc/$(cat "$M/$n.pid")/cmdline"; return 1; }
	done &&
	old=$(cat "$M/cdc-0.pid") && cmd=$(tr "\0" " " <"/proc/$old/cmdline") &&
	echo "$cmd" | grep -q "perl $TRASH/mine/cdc.test server --addr=" &&
	PATH=$WITH_TIUP "$TICHAOS" cluster kill cdc-0 --cluster playground --dir "$M" &&
	PATH=$WITH_TIUP "$TICHAOS" cluster start cdc-0 --cluster playground --dir "$M" &&
	new=$(cat "$M/cdc-0.pid") && test "$new" != "$old" &&
	test "$(tr "\0" " " <"/proc/$new/cmdline")" = "$cmd" &&
	PATH=$WITH_TIUP "$TICHAOS" cluster down --cluster playground --dir "$M" &&
	test -z "$(left "$TIUP_HOME/data/$tag")"
'

test_expect_success 'own binaries: one not there, not executable, unknown or twice: one line, exit 2, nothing started' '
	for c in "db=$TRASH/mine/nope:db=$TRASH/mine/nope: no such file" \
		"kv=$TRASH/mine/not-exec:kv=$TRASH/mine/not-exec: not an executable file" \
		"tidb=$TRASH/mine/cdc.test:'\''tidb=$TRASH/mine/cdc.test'\'': expected each of db=PATH, kv=PATH, pd=PATH, ticdc=PATH once at most (the servers'\'' binaries)" \
		"db=$TRASH/mine/cdc.test,db=$TRASH/mine/cdc.test:'\''db=$TRASH/mine/cdc.test'\'': expected each of db=PATH, kv=PATH, pd=PATH, ticdc=PATH once at most (the servers'\'' binaries)"; do
		arg=${c%%:*} msg=${c#*:} &&
		{ PATH=$WITH_TIUP "$TICHAOS" cluster up --cluster "playground,$arg" --dir "$TRASH/badbin" >out 2>err; test $? = 2; } &&
		echo "tichaos: --cluster playground,$arg: $msg" >expect &&
		test_cmp expect err && test ! -e "$TRASH/badbin" || { echo "$arg:"; cat err; return 1; }
	done
'

{
	insert_suite pgkill 8s 7 pgdb 50
	cat <<EOF
requires: [ticdc]
cluster: { captures: 2 }
faults:
  - kind: kill
    target: cdc
    pick: one
    at: [2s, 5s]
    down: 1s
checks:
  - kind: consistency
    sync_timeout: 60s
  - kind: ids
  - kind: logscan
    patterns: ['panic']
EOF
} >"$TRASH/pg.yaml"

test_expect_success 'a suite on the playground: hints, kills healed by tichaos, data replicated, all stopped' '
	: >"$TIUP_HOME/clean.log" &&
	PATH=$WITH_TIUP "$TICHAOS" run "$TRASH/pg.yaml" --cluster playground --out "$TRASH/r1" >tap 2>err ||
	{ cat err tap; false; } &&
	grep -qx "ok 2 - fault 1 kill: 2 of 2 injected, 2 healed" tap &&
	n=$(sed -n "s/^ok 1 - workload 1 insert: \([0-9]*\) ok, 0 fail, 0 info$/\1/p" tap) &&
	test "$n" -gt 100 &&
	grep -Eqx "ok 3 - consistency: 1 tables, $n rows equal on both sides \(sync [0-9.]+s\)" tap &&
	grep -qx "ok 4 - ids: 1 table, $n inserts: ids unique and increasing" tap &&
	grep -q "^ok 5 - logscan: " tap &&
	test "$(grep -c "\"f\":\"kill\".*\"killed\":\[{\"component\":\"cdc-[01]\",\"pid\":[0-9]*}\]" "$TRASH/r1/history.jsonl")" = 2 &&
	grep -q "\"--ticdc\", \"2\", \"--tiflash\", \"0\", \"--without-monitor\"" "$TRASH/r1/topology.yaml" &&
	test "$(grep -c "^  - name: \"cdc-[01]\"$" "$TRASH/r1/topology.yaml")" = 2 &&
	test -z "$(left "$TIUP_HOME/data")" && test -z "$(left "$TRASH/r1")" &&
	test "$(sed "s/tichaos-[0-9a-f]*/TAG/" "$TIUP_HOME/clean.log")" = "clean TAG
clean TAG-down
clean TAG
clean TAG-down" && test -z "$(ls "$TIUP_HOME/data")"
'

{
	insert_suite pgclock 6s 7 pgclockdb 50
	echo "requires: [ticdc]"
	echo "faults:"
	for n in pd-0 tidb-0 cdc-0; do
		printf "  - kind: clock\n    target: %s\n    offset: +1h\n    at: [1s]\n    down: 2s\n" $n
	done
} >"$TRASH/clock.yaml"

# The live clock skew (docs/faults.md) of PD, TiDB and TiCDC where the
# playground runs them: each process moved where it stands and put back.
test_expect_success 'live clock skews on the playground: PD, TiDB and TiCDC an hour ahead and back, same pids' '
	PATH=$WITH_TIUP "$TICHAOS" run "$TRASH/clock.yaml" --cluster playground --out "$TRASH/rclock" >tap 2>err ||
	{ cat err tap; false; } &&
	for i in 1 2 3; do
		grep -qx "ok $((i + 1)) - fault $i clock: 1 of 1 injected, 1 healed" tap || return 1
	done &&
	for n in pd-0 tidb-0 cdc-0; do
		grep "\"type\":\"info\",\"f\":\"clock\",\"target\":\"$n\"" "$TRASH/rclock/history.jsonl" >moved &&
		pid=$(sed -En "s/.*\"moved\":\[\{\"component\":\"$n\",\"pid\":([0-9]+),\"skew_ms\":(35999[0-9]{2}|36000[0-9]{2})\}\].*/\1/p" moved) &&
		test -n "$pid" &&
		grep "\"type\":\"info\",\"f\":\"reset_clock\",\"target\":\"$n\"" "$TRASH/rclock/history.jsonl" |
		grep -Eq "\"restored\":\[\{\"component\":\"$n\",\"pid\":$pid,\"skew_ms\":-?[0-9]{1,2}\}\]" ||
		{ echo "$n:"; cat moved; return 1; }
	done &&
	test -z "$(left "$TIUP_HOME/data")" && test -z "$(ls "$TICHAOS_STATE_DIR"/skews 2>/dev/null)"
'

{
	insert_suite pgpart 8s 7 pgpartdb 50
	cat <<EOF
requires: [ticdc]
faults:
  - kind: partition
    shape: halves
    at: [2s]
    down: 3s
checks:
  - kind: consistency
    sync_timeout: 60s
EOF
} >"$TRASH/part.yaml"

# Seven hosts: every instance with a port (lib/netcls.h); the `tiup
# playground` processes have none. Halves: 3 against 4, 24 of the 7 * 6
# probes between them across the cut, the 7 from tichaos answered.
if why=$(netcls_missing); then
	test_skip "a partition on the playground: instances told apart by class, cut, probed, healed, nothing left" "$why"
else
	test_expect_success 'a partition on the playground: instances told apart by class, cut, probed, healed, nothing left' '
	PATH=$WITH_TIUP "$TICHAOS" run "$TRASH/part.yaml" --cluster playground --out "$TRASH/r3" >tap 2>err ||
	{ cat err tap; false; } &&
	grep -qx "ok 2 - fault 1 partition: 1 of 1 injected, 1 healed" tap &&
	grep -q "^ok 3 - consistency: 1 tables, [0-9]* rows equal on both sides" tap &&
	nemesis_value "$TRASH/r3/history.jsonl" partition >value &&
	sed -e "s/.*\"sides\":\[\[\([^]]*\)\],\[\([^]]*\)\]\].*/\1,\2/" -e "s/\"//g" value |
		tr , "\n" | sort >hosts &&
	printf "%s\n" cdc-0 down-0 down-pd-0 down-tikv-0 pd-0 tidb-0 tikv-0 >expect &&
	test_cmp expect hosts &&
	grep -Eq "\"sides\":\[\[(\"[a-z0-9-]*\",?){3}\],\[(\"[a-z0-9-]*\",?){4}\]\]" value &&
	grep -q "\"probes\":{\"unanswered\":24,\"answered\":25," value &&
	nemesis_value "$TRASH/r3/history.jsonl" rejoin | grep -q "\"probes\":{\"unanswered\":0,\"answered\":49," &&
	P=$(class_prefix "$TRASH/r3/cluster") &&
	! nft list tables | grep -q "inet $P" &&
	! ls "$(netcls_root)" | grep -q "^$P" &&
	test -z "$(left "$TRASH/r3")"
'
fi

sed -e "s/^duration: 8s$/duration: 60s/" -e "s/^name: pgkill$/name: pglong/" \
	-e "/^faults:/,/^checks:/{/^checks:/!d}" "$TRASH/pg.yaml" >"$TRASH/long.yaml"

test_expect_success 'a runner killed with SIGKILL: the next run beside it stops its playground' '
	PATH=$WITH_TIUP "$TICHAOS" run "$TRASH/long.yaml" --cluster playground --out "$TRASH/r2/killed" >/dev/null 2>&1 &
	run=$! && test_track_pid $run &&
	wait_for_condition 120 "grep -q \"\\\"type\\\":\\\"ok\\\"\" \"$TRASH/r2/killed/history.jsonl\"" &&
	kill -KILL $run && { wait $run; test $? = 137; } &&
	pids=$(cat "$TRASH/r2/killed/cluster"/*.pid) &&
	test "$(echo $pids | wc -w)" = 10 &&
	for p in $pids; do alive $p || { echo "$p not running"; return 1; }; done &&
	sed -e "s/^duration: 8s$/duration: 2s/" -e "/^faults:/,/^checks:/{/^checks:/!d}" "$TRASH/pg.yaml" >"$TRASH/short.yaml" &&
	PATH=$WITH_TIUP "$TICHAOS" run "$TRASH/short.yaml" --cluster playground --out "$TRASH/r2/next" >tap 2>err ||
	{ cat err tap; false; } &&
	for p in $pids; do ! alive $p || { echo "$p alive"; return 1; }; done &&
	grep -q "stopped the cluster of $TRASH/r2/killed: its runner (pid $run) is gone" "$TRASH/r2/next/logs/tichaos.log" &&
	test -z "$(left "$TRASH/r2")" && test -z "$(left "$TIUP_HOME/data")"
'

test_done
