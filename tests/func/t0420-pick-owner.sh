#!/bin/sh
# kill pick: owner asks TiCDC which capture owns (GET /api/v2/captures,
# is_owner) and kills that one, then restarts it. The captures are fake
# TiCDC servers (tests/helpers/fake-http.pl) that tichaos itself starts,
# kills and restarts as components of a described cluster.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

FAKE="$ROOT/tests/helpers/fake-http.pl"

test_cluster_setup 'set up a cluster and two fake TiCDC captures' '
	P0=$(free_port_base $((B + 100))) &&
	P1=$((P0 + 1)) &&
	for n in 0 1; do
		mkdir -p "$TRASH/cdc-$n" || return 1
		cat >"$TRASH/cdc-$n/GET_api_v2_captures" <<-EOF || return 1
		200 application/json
		{"items": [{"id": "a", "is_owner": false, "address": "127.0.0.1:$P0", "cluster_id": "default"},
		 {"id": "b", "is_owner": true, "address": "127.0.0.1:$P1", "cluster_id": "default"}], "total": 2}
		EOF
		echo "200 application/json" >"$TRASH/cdc-$n/GET_api_v2_status" &&
		echo "{\"version\": \"v8.5.0\", \"id\": \"$n\", \"pid\": 0}" >>"$TRASH/cdc-$n/GET_api_v2_status" ||
		return 1
	done &&
	{
		cat "$C/topology.yaml" &&
		for n in 0 1; do
			port=$((P0 + n))
			cat <<-EOF
			  - name: "cdc-$n"
			    roles: [cdc]
			    http_url: "http://127.0.0.1:$port"
			    start: ["perl", "$FAKE", "$port", "$TRASH/cdc-$n", "$TRASH/cdc-$n.log"]
			    pidfile: "$TRASH/cdc-$n.pid"
			    log: "$TRASH/cdc-$n.out"
			EOF
		done
	} >"$TRASH/topo.yaml" &&
	"$TICHAOS" cluster up --cluster "$TRASH/topo.yaml" >up.out 2>&1 &&
	test_track_pid "$(cat "$TRASH/cdc-0.pid")" &&
	test_track_pid "$(cat "$TRASH/cdc-1.pid")" &&
	grep -Eq "^cdc-1 +cdc +[0-9]+ +http://127.0.0.1:$P1 +running" up.out
'

{
	insert_suite owner 4s 1 own 100
	cat <<EOF
faults:
  - kind: kill
    target: cdc
    pick: owner
    at: [1s]
    down: 1s
EOF
} >"$TRASH/owner.yaml"

test_expect_success 'pick: owner kills the capture TiCDC names, and restarts it' '
	old=$(cat "$TRASH/cdc-1.pid") &&
	"$TICHAOS" run "$TRASH/owner.yaml" --cluster "$TRASH/topo.yaml" --out "$TRASH/r" >tap 2>err ||
	{ cat err; false; } &&
	grep -qx "ok 2 - fault 1 kill: 1 of 1 injected, 1 healed" tap &&
	grep "\"process\":\"nemesis\"" "$TRASH/r/history.jsonl" >nemesis &&
	grep "\"type\":\"info\",\"f\":\"kill\"" nemesis |
		grep -q "\"killed\":\[{\"component\":\"cdc-1\",\"pid\":$old}\]" &&
	grep "\"type\":\"info\",\"f\":\"restart\"" nemesis |
		grep -q "\"restarted\":\[{\"component\":\"cdc-1\"" &&
	new=$(cat "$TRASH/cdc-1.pid") && test "$new" != "$old" && alive "$new" &&
	test_track_pid "$new" &&
	! alive "$old" &&
	grep -q "^GET /api/v2/captures$" "$TRASH/cdc-0.log"
'

test_expect_success 'without an owner named, pick: owner did not take effect: exit 3' '
	for n in 0 1; do
		sed -i -e "s/\"is_owner\": true/\"is_owner\": false/" "$TRASH/cdc-$n/GET_api_v2_captures" || return 1
	done &&
	"$TICHAOS" run "$TRASH/owner.yaml" --cluster "$TRASH/topo.yaml" --out "$TRASH/r2" >tap2 2>err2
	test $? = 3 &&
	grep -qx "not ok 2 - fault 1 kill: 0 of 1 injected, 0 healed, 1 did not take effect" tap2 &&
	grep -qx "  message: \"pick owner: no TiCDC capture named an owner among the targets\"" tap2
'

{
	insert_suite progress 2s 1 own 100
	cat <<EOF
checks:
  - kind: progress
    timeout: 3s
    changefeed: CF
EOF
} >"$TRASH/progress.yaml"

# changefeed ID "STATE CHECKPOINT"...: the n-th GET of changefeed ID gets
# the n-th pair, as TiCDC's Open API answers it; progress-ID.yaml checks it.
changefeed() {
	id=$1 n=0
	shift
	sed -e "s/changefeed: CF/changefeed: $id/" "$TRASH/progress.yaml" \
		>"$TRASH/progress-$id.yaml" || return 1
	for s in "$@"; do
		n=$((n + 1))
		printf '200 application/json\n{"id": "%s", "state": "%s", "checkpoint_ts": %s}\n' \
			"$id" "${s% *}" "${s#* }" >"$TRASH/cdc-0/GET_api_v2_changefeeds_$id.$n" || return 1
	done
}

test_expect_success 'progress on TiCDC: the changefeed is normal and its checkpoint advances' '
	# read once by the last progress line, then twice by the check
	changefeed cf1 "normal 449000000000000000" "normal 449000000000000000" \
		"normal 449000000000000001" &&
	"$TICHAOS" run "$TRASH/progress-cf1.yaml" --cluster "$TRASH/topo.yaml" --out "$TRASH/r3" >tap3 2>err3 ||
	{ cat err3; false; } &&
	grep -qx "ok 2 - progress: changefeed cf1 normal, checkpoint advanced" tap3 &&
	grep -Eq "info  progress 2s/2s  [0-9]+ ops/s  errors 0  faults 0 active  lag down-0 [0-9]+s  lag changefeed cf1 [0-9]+s$" "$TRASH/r3/logs/tichaos.log" &&
	test "$(grep -c "^GET /api/v2/changefeeds/cf1$" "$TRASH/cdc-0.log")" = 3
'

test_expect_success 'progress on TiCDC: a stuck changefeed fails with its state' '
	changefeed cf2 "warning 449000000000000000" &&
	"$TICHAOS" run "$TRASH/progress-cf2.yaml" --cluster "$TRASH/topo.yaml" --out "$TRASH/r4" >tap4 2>err4
	test $? = 1 &&
	grep -qx "not ok 2 - progress" tap4 &&
	grep -qx "  message: \"changefeed cf2: state warning, checkpoint_ts 449000000000000000 did not advance\"" tap4
'

# The consistency barrier on TiCDC: past the mark row, the changefeed's
# checkpoint_ts must reach the mark's TSO (MariaDB has no
# @@tidb_last_txn_info, so the local clock's). The topology names the
# changefeed; a check's `changefeed` overrides it.
sed -e "s/^components:/changefeed:\n  id: cfb\n&/" "$TRASH/topo.yaml" >"$TRASH/topo-cf.yaml"
{
	insert_suite barrier 1s 1 own 50
	cat <<EOF
checks:
  - kind: consistency
    sync_timeout: 2s
EOF
} >"$TRASH/barrier.yaml"
NOW_MS=$(perl -MTime::HiRes=time -e 'printf "%d", time * 1000')
BEHIND=$(( (NOW_MS - 60000) << 18 ))
AHEAD=$(( (NOW_MS + 3600000) << 18 ))

# feed ID N STATE CHECKPOINT: the N-th GET of changefeed ID.
feed() {
	printf '200 application/json\n{"id": "%s", "state": "%s", "checkpoint_ts": %s}\n' \
		"$1" "$3" "$4" >"$TRASH/cdc-0/GET_api_v2_changefeeds_$1.$2"
}

test_expect_success 'barrier on TiCDC: waits for the checkpoint to pass the finish mark' '
	# read once by the last progress line, then by the barrier until ahead
	feed cfb 1 normal $BEHIND && feed cfb 2 normal $BEHIND && feed cfb 3 normal $AHEAD &&
	"$TICHAOS" run "$TRASH/barrier.yaml" --cluster "$TRASH/topo-cf.yaml" --out "$TRASH/r5" >tap5 2>err5 ||
	{ cat err5; false; } &&
	grep -Eqx "ok 2 - consistency: 1 tables, [0-9]+ rows equal on both sides \(sync [0-9.]+s\)" tap5 &&
	test "$(grep -c "^GET /api/v2/changefeeds/cfb$" "$TRASH/cdc-0.log")" = 3 &&
	perl -MJSON::PP -e "
		my \$d = decode_json(do { local \$/; <STDIN> })->{checks}[0]{details};
		print join(q( ), @{\$d}{qw(changefeed mark_ts_from checkpoint_ts)}), qq(\n);
		exit !(\$d->{mark_ts} > $BEHIND && \$d->{mark_ts} < $AHEAD);
	" <"$TRASH/r5/results.json" >actual &&
	echo "cfb clock $AHEAD" >expect && test_cmp expect actual
'

# The barrier asks again and again until its timeout: the progress line's
# read and at least two of its own (how many fit in 2 s is the machine's).
test_expect_success 'barrier on TiCDC: a checkpoint that stays behind is unknown, with the lag, exit 3' '
	feed cfs 1 normal $BEHIND &&
	sed -e "s/    sync_timeout: 2s/&\n    changefeed: cfs/" "$TRASH/barrier.yaml" >"$TRASH/barrier-s.yaml" &&
	"$TICHAOS" run "$TRASH/barrier-s.yaml" --cluster "$TRASH/topo-cf.yaml" --out "$TRASH/r6" >tap6 2>err6
	test $? = 3 &&
	grep -qx "not ok 2 - consistency" tap6 &&
	grep -Eqx "  message: \"sync timed out after 2s: changefeed cfs \(state normal\) checkpoint_ts $BEHIND is 6[0-9]\.[0-9]s behind the finish mark.s clock [0-9]+\"" tap6 &&
	test "$(grep -c "^GET /api/v2/changefeeds/cfs$" "$TRASH/cdc-0.log")" -ge 3
'

# A changefeed the topology names with a sink_uri and TiCDC does not know
# is created before the run (POST /api/v2/changefeeds); its sink URI, which
# holds a password, is written nowhere.
test_expect_success 'a missing changefeed is created, its sink password kept out of the run' '
	sed -e "s|^components:|changefeed:\n  id: cfnew\n  sink_uri: \"mysql://root:pw9@127.0.0.1:3306/\"\n&|" \
		"$TRASH/topo.yaml" >"$TRASH/topo-new.yaml" &&
	printf "400 application/json\n{\"error_msg\": \"changefeed not exists\", \"error_code\": \"CDC:ErrChangeFeedNotExists\"}\n" \
		>"$TRASH/cdc-0/GET_api_v2_changefeeds_cfnew.1" &&
	feed cfnew 2 normal $AHEAD &&
	printf "200 application/json\n{\"id\": \"cfnew\", \"state\": \"normal\"}\n" \
		>"$TRASH/cdc-0/POST_api_v2_changefeeds" &&
	"$TICHAOS" run "$TRASH/barrier.yaml" --cluster "$TRASH/topo-new.yaml" --out "$TRASH/r7" >tap7 2>err7 ||
	{ cat err7; false; } &&
	grep -Eqx "ok 2 - consistency: .*" tap7 &&
	printf "{\"changefeed_id\":\"cfnew\",\"sink_uri\":\"mysql://root:pw9@127.0.0.1:3306/\"}" >expect &&
	test_cmp expect "$TRASH/cdc-0/POST_api_v2_changefeeds.body" &&
	test "$(grep -c "^POST /api/v2/changefeeds$" "$TRASH/cdc-0.log")" = 1 &&
	grep -q "created changefeed cfnew (cdc-0)" "$TRASH/r7/logs/tichaos.log" &&
	grep -qx "  sink_uri: \"mysql://root:\*\*\*@127.0.0.1:3306/\"" "$TRASH/r7/topology.yaml" &&
	! grep -rq "pw9" "$TRASH/r7" tap7 err7
'

test_expect_success 'a changefeed TiCDC refuses to create: exit 3 with both answers, TiCDC'\''s error_msg' '
	sed -e "s/cfnew/cfbad/g" "$TRASH/topo-new.yaml" >"$TRASH/topo-bad.yaml" &&
	printf "400 application/json\n{\"error_msg\": \"sink uri invalid\", \"error_code\": \"CDC:ErrSinkURIInvalid\"}\n" \
		>"$TRASH/cdc-0/POST_api_v2_changefeeds" &&
	"$TICHAOS" run "$TRASH/barrier.yaml" --cluster "$TRASH/topo-bad.yaml" --out "$TRASH/r8" >tap8 2>err8
	test $? = 3 &&
	echo "tichaos: changefeed cfbad: not found (GET '\''http://127.0.0.1:$P1/api/v2/changefeeds/cfbad'\'': HTTP 404: 404 page not found), and creating it failed: POST '\''http://127.0.0.1:$P0/api/v2/changefeeds'\'': HTTP 400: sink uri invalid" >expect &&
	tail -n 1 err8 | test_cmp expect -
'

test_expect_success 'cluster down stops the captures it started' '
	pids="$(cat "$TRASH/cdc-0.pid") $(cat "$TRASH/cdc-1.pid")" &&
	"$TICHAOS" cluster down --cluster "$TRASH/topo.yaml" &&
	for p in $pids; do ! alive "$p" || return 1; done
'

test_done
