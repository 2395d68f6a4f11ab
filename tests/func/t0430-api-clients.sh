#!/bin/sh
# The HTTP API clients against fake servers (tests/helpers/fake-http.pl)
# answering in the documented shapes of tests/data/http/: TiCDC's
# changefeeds — the changefeed fault (pause, recreate) and what the checks
# say of a changefeed's state —, TiDB's /info/all and PD's members and
# health in `cluster status`. Checked: the exact requests each fake got
# and in which order, the bodies tichaos sent, the TAP, the history and the
# one-line errors of error answers and malformed ones.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

T="$TRASH/topology.yaml"

# serve NAME SET...: (re)start the fake NAME on its port ($port_NAME) with
# a fresh copy of the scenarios tests/data/http/SET... and an empty log.
serve() {
	name=$1
	shift
	eval "port=\$port_$(echo "$name" | tr - _)"
	rm -rf "$TRASH/srv/$name" && mkdir -p "$TRASH/srv/$name" || return 1
	for set in "$@"; do
		cp -R "$DATA/http/$set/." "$TRASH/srv/$name" || return 1
	done
	# A capture is ready once TiCDC lists it at its address.
	case $name in cdc-*)
		test_capture_files "$TRASH/srv/$name" "$name" "$port" || return 1
	esac
	fake_http "$name" "$port" "$TRASH/srv/$name"
}

# requests NAME: what fake NAME was asked, readiness GETs (/, and the
# captures for a capture), its release and the progress line's reads of
# the default changefeed aside. A changefeed fault first asks GET
# .../status, whether TiCDC takes tichaos's credentials (t0435); these
# fakes do not know it (404), which tells nothing.
requests() {
	grep -v -e "^GET /$" -e "^GET /api/v2/changefeeds/tichaos$" \
		-e "^GET /api/v2/captures$" -e "^GET /api/v2/status$" "$TRASH/$1.log"
}

# suite NAME: $TRASH/NAME.yaml, a TiCDC suite of 4 s of inserts with the
# sections read from stdin (faults:, checks:).
suite() {
	{ insert_suite "$1" 4s 7 api 50 && echo "requires: [ticdc]"; } >"$TRASH/$1.yaml"
	cat >>"$TRASH/$1.yaml"
}

# run OUT SUITE [TOPOLOGY]: run the suite into $TRASH/OUT; the exit status
# in $rc, the TAP in OUT.tap (insert counts blanked), stderr in OUT.err,
# the nemesis records in OUT.nemesis (times blanked).
run() {
	"$TICHAOS" run "$TRASH/$2.yaml" --cluster "${3:-$T}" --out "$TRASH/$1" \
		>"$TRASH/$1.tap" 2>"$TRASH/$1.err"
	rc=$?
	sed -i -e "s/^\(ok 1 - workload 1 insert: \)[0-9]*\( ok, 0 fail, 0 info\)$/\1N\2/" \
		"$TRASH/$1.tap"
	grep "\"process\":\"nemesis\"" "$TRASH/$1/history.jsonl" |
		sed -e "s/^{\"time\":[0-9]*,/{/" \
		    -e "s/\"took_ms\":[0-9]*/\"took_ms\":N/" \
		    -e "s/,\"fault\":[0-9]*}\$/}/" >"$TRASH/$1.nemesis"
}

# tap OUT LINE...: the TAP of run OUT is "TAP version 13", the plan for
# the LINEs, then the LINEs.
tap() {
	out=$1
	shift
	printf "%s\n" "TAP version 13" "1..$#" "$@" >"$TRASH/expect.tap" &&
	test_cmp "$TRASH/expect.tap" "$TRASH/$out.tap"
}

# not_injected OUT MESSAGE: the TAP of run OUT says that its one fault did
# not take effect because of MESSAGE.
not_injected() {
	{
		printf "%s\n" "TAP version 13" "1..2" \
			"ok 1 - workload 1 insert: N ok, 0 fail, 0 info" \
			"not ok 2 - fault 1 changefeed: 0 of 1 injected, 0 healed, 1 did not take effect" &&
		diag "$1" "$2"
	} >"$TRASH/expect.tap" && test_cmp "$TRASH/expect.tap" "$TRASH/$1.tap"
}

# diag OUT MESSAGE [VERDICT]: the YAML diagnostics of a failed test point
# of run OUT (verdict error unless said).
diag() {
	printf "%s\n" "  ---" "  verdict: ${3:-error}" "  message: \"$2\"" \
		"  run_dir: \"$TRASH/$1\"" "  seed: 7" \
		"  replay: \"tichaos replay $TRASH/$1\"" "  ..."
}

test_cluster_setup 'set up: a local cluster, a fake TiCDC, a topology with both' '
	take_port port_cdc_0 &&
	serve cdc-0 cdc-changefeed-pause &&
	{
		sed -n "/^components:/,\$p" "$C/topology.yaml" &&
		printf "  - name: \"cdc-0\"\n    roles: [cdc]\n    http_url: \"http://127.0.0.1:%s\"\n" \
			"$port_cdc_0"
	} >"$T" &&
	CDC="http://127.0.0.1:$port_cdc_0"
'

suite pause <<EOF
faults:
  - kind: changefeed
    action: pause
    changefeed: cf1
    at: [1s]
    down: 1s
    timeout: 2s
EOF

test_expect_success 'pause: paused, seen stopped, resumed after down, seen normal' '
	run pause pause && test $rc = 0 &&
	tap pause "ok 1 - workload 1 insert: N ok, 0 fail, 0 info" \
		"ok 2 - fault 1 changefeed: 1 of 1 injected, 1 healed" &&
	printf "%s\n" "GET /api/v2/changefeeds/cf1/status" \
		"GET /api/v2/unsafe/metadata" \
		"POST /api/v2/changefeeds/cf1/pause" \
		"GET /api/v2/changefeeds/cf1" \
		"POST /api/v2/changefeeds/cf1/resume" \
		"GET /api/v2/changefeeds/cf1" >expect &&
	requests cdc-0 >got && test_cmp expect got &&
	printf "{}" >expect &&
	test_cmp expect "$TRASH/srv/cdc-0/POST_api_v2_changefeeds_cf1_resume.body" &&
	test ! -e "$TRASH/srv/cdc-0/POST_api_v2_changefeeds_cf1_pause.body" &&
	cat >expect <<-EOF &&
	{"process":"nemesis","type":"invoke","f":"changefeed","target":"cf1"}
	{"process":"nemesis","type":"info","f":"changefeed","target":"cf1","value":{"changefeed":"cf1","action":"pause","via":"cdc-0","state":"stopped","checkpoint_ts":449555003904131073,"took_ms":N},"holds":"other"}
	{"process":"nemesis","type":"invoke","f":"restore","target":"cf1","heal":true}
	{"process":"nemesis","type":"info","f":"restore","target":"cf1","value":{"changefeed":"cf1","action":"resume","state":"normal","checkpoint_ts":449555004166275074,"took_ms":N},"heal":true}
	EOF
	test_cmp expect pause.nemesis
'

suite recreate <<EOF
faults:
  - kind: changefeed
    action: recreate
    changefeed: cf2
    at: [1s]
    down: 1s
    timeout: 2s
EOF

test_expect_success 'recreate: removed, seen gone, created again from its checkpoint' '
	serve cdc-0 cdc-changefeed-recreate &&
	run recreate recreate && test $rc = 0 &&
	tap recreate "ok 1 - workload 1 insert: N ok, 0 fail, 0 info" \
		"ok 2 - fault 1 changefeed: 1 of 1 injected, 1 healed" &&
	printf "%s\n" "GET /api/v2/changefeeds/cf2/status" \
		"GET /api/v2/unsafe/metadata" \
		"GET /api/v2/changefeeds/cf2" \
		"DELETE /api/v2/changefeeds/cf2" \
		"GET /api/v2/changefeeds/cf2" \
		"POST /api/v2/changefeeds" \
		"GET /api/v2/changefeeds/cf2" >expect &&
	requests cdc-0 >got && test_cmp expect got &&
	printf "{\"changefeed_id\":\"cf2\",\"sink_uri\":\"mysql://root@127.0.0.1:3306/?worker-count=16\",\"start_ts\":449555004166275074}" >expect &&
	test_cmp expect "$TRASH/srv/cdc-0/POST_api_v2_changefeeds.body" &&
	cat >expect <<-EOF &&
	{"process":"nemesis","type":"invoke","f":"changefeed","target":"cf2"}
	{"process":"nemesis","type":"info","f":"changefeed","target":"cf2","value":{"changefeed":"cf2","action":"recreate","state":"normal","checkpoint_ts":449555004166275074,"sink_uri":"mysql://root@127.0.0.1:3306/?worker-count=16","via":"cdc-0","took_ms":N},"holds":"other"}
	{"process":"nemesis","type":"invoke","f":"restore","target":"cf2","heal":true}
	{"process":"nemesis","type":"info","f":"restore","target":"cf2","value":{"changefeed":"cf2","action":"create","start_ts":449555004166275074,"state":"normal","checkpoint_ts":449555029332099073,"took_ms":N},"heal":true}
	EOF
	test_cmp expect recreate.nemesis
'

# The topology's changefeed: its sink_uri (with a password, which TiCDC
# masks in what it shows) is the one it is created again with; `run`
# first checks that it exists.
test_expect_success 'recreate of the topology changefeed: its sink_uri, the password kept out of the run' '
	serve cdc-0 cdc-changefeed-recreate-topology &&
	sed -e "s|^components:|changefeed:\n  id: cf9\n  sink_uri: \"mysql://root:pw9@127.0.0.1:3306/\"\n&|" \
		"$T" >"$TRASH/topo-cf9.yaml" &&
	sed -e "s/cf2/cf9/" "$TRASH/recreate.yaml" >"$TRASH/recreate9.yaml" &&
	run recreate9 recreate9 "$TRASH/topo-cf9.yaml" && test $rc = 0 &&
	tap recreate9 "ok 1 - workload 1 insert: N ok, 0 fail, 0 info" \
		"ok 2 - fault 1 changefeed: 1 of 1 injected, 1 healed" &&
	printf "%s\n" "GET /api/v2/changefeeds/cf9" \
		"GET /api/v2/changefeeds/cf9/status" \
		"GET /api/v2/unsafe/metadata" \
		"GET /api/v2/changefeeds/cf9" \
		"DELETE /api/v2/changefeeds/cf9" \
		"GET /api/v2/changefeeds/cf9" \
		"POST /api/v2/changefeeds" \
		"GET /api/v2/changefeeds/cf9" \
		"GET /api/v2/changefeeds/cf9" >expect &&
	requests cdc-0 >got && test_cmp expect got &&
	printf "{\"changefeed_id\":\"cf9\",\"sink_uri\":\"mysql://root:pw9@127.0.0.1:3306/\",\"start_ts\":449555004166275074}" >expect &&
	test_cmp expect "$TRASH/srv/cdc-0/POST_api_v2_changefeeds.body" &&
	grep -q "\"sink_uri\":\"mysql://root:\*\*\*@127.0.0.1:3306/\"" recreate9.nemesis &&
	! grep -rq "pw9" "$TRASH/recreate9" recreate9.tap recreate9.err
'

test_expect_success 'recreate where TiCDC masks the sink password: not injected, nothing removed' '
	serve cdc-0 cdc-changefeed-pause &&
	sed -e "s/cf2/cf1/" "$TRASH/recreate.yaml" >"$TRASH/recreate1.yaml" &&
	run masked recreate1 && test $rc = 3 &&
	not_injected masked "changefeed cf1: TiCDC masks the password of its sink URI; give the changefeed with its sink_uri in the topology" &&
	printf "%s\n" "GET /api/v2/changefeeds/cf1/status" \
		"GET /api/v2/unsafe/metadata" \
		"GET /api/v2/changefeeds/cf1" >expect &&
	requests cdc-0 >got && test_cmp expect got
'

suite failed <<EOF
faults:
  - kind: changefeed
    action: pause
    changefeed: cf3
    at: [1s]
    down: 500ms
    timeout: 1s
checks:
  - kind: progress
    changefeed: cf3
    timeout: 1s
EOF

FAILED="[CDC:ErrGCTTLExceeded]the checkpoint-ts(449555004166275074) lag of the changefeed(cf3) has exceeded the GC TTL and the changefeed is blocking global GC progression"

test_expect_success 'a changefeed failed after resume: the heal and the progress check say its error' '
	serve cdc-0 cdc-changefeed-failed &&
	run failed failed && test $rc = 1 &&
	{
		printf "%s\n" "TAP version 13" "1..3" \
			"ok 1 - workload 1 insert: N ok, 0 fail, 0 info" \
			"not ok 2 - fault 1 changefeed: 1 of 1 injected, 0 healed, 1 heals failed" &&
		diag failed "changefeed cf3: state failed, not normal, after 1s; error: $FAILED" &&
		echo "not ok 3 - progress" &&
		diag failed "changefeed cf3: state failed, checkpoint_ts 449555004166275074 did not advance; error: $FAILED" fail
	} >expect && test_cmp expect failed.tap &&
	grep -q "lag changefeed cf3 [0-9]*s (failed: \[CDC:ErrGCTTLExceeded\]the checkpoint-ts" \
		"$TRASH/failed/logs/tichaos.log"
'

suite warning <<EOF
checks:
  - kind: progress
    changefeed: cf10
    timeout: 1s
EOF

WARNING="[CDC:ErrReachMaxTry]reach maximum try: 20, error: Error 1105 (HY000): can not get 'tikv_gc_safe_point': Error 1105 (HY000): can not get 'tikv_gc_safe_point'"

# A changefeed that retries a DDL the downstream refuses holds its
# checkpoint in state "warning"; its own GET has no error then, its
# status has the last warning (tiflow cdc v8.1.0 against a TiDB without
# a GC safe point, RECOVER TABLE: docs/found.md).
test_expect_success 'a changefeed stuck on a warning: the progress check says TiCDC'"'"'s last warning' '
	serve cdc-0 cdc-changefeed-warning &&
	run warning warning && test $rc = 1 &&
	{
		printf "%s\n" "TAP version 13" "1..2" \
			"ok 1 - workload 1 insert: N ok, 0 fail, 0 info" \
			"not ok 2 - progress" &&
		diag warning "changefeed cf10: state warning, checkpoint_ts 449555004166275074 did not advance; last_warning: $WARNING" fail
	} >expect && test_cmp expect warning.tap &&
	test "$(requests cdc-0 | sort -u)" = "$(printf "%s\n" "GET /api/v2/changefeeds/cf10" "GET /api/v2/changefeeds/cf10/status")" &&
	test "$(grep -c "^GET /api/v2/changefeeds/cf10/status$" "$TRASH/cdc-0.log")" = 1
'

suite error <<EOF
faults:
  - kind: changefeed
    action: pause
    changefeed: cf4
    at: [1s]
EOF

test_expect_success 'HTTP 500 with TiCDC error_msg: not injected, one line naming the URL' '
	serve cdc-0 cdc-changefeed-error &&
	run error error && test $rc = 3 &&
	not_injected error "POST '\''$CDC/api/v2/changefeeds/cf4/pause'\'': HTTP 500: [CDC:ErrPDEtcdAPIError]etcd api call error: context deadline exceeded" &&
	printf "%s\n" "GET /api/v2/changefeeds/cf4/status" \
		"GET /api/v2/unsafe/metadata" \
		"POST /api/v2/changefeeds/cf4/pause" >expect &&
	requests cdc-0 >got && test_cmp expect got &&
	grep -q "\"type\":\"fail\",\"f\":\"changefeed\",\"target\":\"cf4\",\"error\":\"POST " error.nemesis
'

suite malformed <<EOF
checks:
  - kind: progress
    changefeed: cf5
  - kind: progress
    changefeed: cf6
  - kind: progress
    changefeed: cf7
  - kind: progress
    changefeed: cf8
EOF

test_expect_success 'malformed answers: not JSON, a field missing, wrong types' '
	serve cdc-0 cdc-changefeed-malformed &&
	run malformed malformed && test $rc = 3 &&
	U="GET '\''$CDC/api/v2/changefeeds" &&
	{
		printf "%s\n" "TAP version 13" "1..5" \
			"ok 1 - workload 1 insert: N ok, 0 fail, 0 info" &&
		echo "not ok 2 - progress" &&
		diag malformed "$U/cf5'\'': not JSON ('\''}'\'' expected near end of file)" unknown &&
		echo "not ok 3 - progress" &&
		diag malformed "$U/cf6'\'': no '\''checkpoint_ts'\'' in the answer" unknown &&
		echo "not ok 4 - progress" &&
		diag malformed "$U/cf7'\'': '\''checkpoint_ts'\'' is not an integer >= 0" unknown &&
		echo "not ok 5 - progress" &&
		diag malformed "$U/cf8'\'': '\''error'\'' is not an object" unknown
	} >expect && test_cmp expect malformed.tap
'

# A topology of up-0 with a fake TiDB status port (tidb-0), and one with
# the local etcd too.
OWNER=5c3b6a6e-7d1f-4e0a-9c2b-8f4d2e1a0b37

test_expect_success 'set up: a fake TiDB status port for up-0' '
	take_port port_tidb_0 &&
	UP=$(port_of "$C" up-0) &&
	TIDB="http://127.0.0.1:$port_tidb_0" &&
	printf "%s\n" "components:" "  - name: \"up-0\"" "    roles: [upstream]" \
		"    sql: \"127.0.0.1:$UP\"" "    http_url: \"$TIDB/status\"" \
		>"$TRASH/tidb.yaml" &&
	{
		cat "$TRASH/tidb.yaml" &&
		printf "%s\n" "  - name: \"etcd-0\"" "    roles: [etcd]" \
			"    etcd_url: \"http://127.0.0.1:$(port_of "$C" etcd-0)\""
	} >"$TRASH/tidb-etcd.yaml"
'

# elections TOPOLOGY [ROW...]: `cluster status` on TOPOLOGY exits 0 and
# its election block is these rows ("NAME OWNER").
elections() {
	"$TICHAOS" cluster status --cluster "$1" >"$TRASH/status.out" ||
	{ cat "$TRASH/status.out"; return 1; }
	shift
	{
		printf "%-10s %s\n" ELECTION OWNER &&
		for row in "$@"; do
			printf "%-10s %s\n" "${row%% *}" "${row#* }"
		done
	} >"$TRASH/expect.status" &&
	sed -n "/^ELECTION/,\$p" "$TRASH/status.out" >"$TRASH/got.status" &&
	test_cmp "$TRASH/expect.status" "$TRASH/got.status"
}

test_expect_success 'status without etcd: the DDL owner from /info/all, at its address' '
	serve tidb-0 tidb-info-all &&
	elections "$TRASH/tidb.yaml" "ddl $OWNER (127.0.0.1:4000) [/info/all]" &&
	printf "%s\n" "GET /status" "GET /info/all" >expect &&
	requests tidb-0 >got && test_cmp expect got
'

test_expect_success 'status: the owner at up-0 SQL address is named up-0' '
	sed -i -e "s/\"listening_port\": 4000,/\"listening_port\": $UP,/" \
		"$TRASH/srv/tidb-0/GET_info_all" &&
	elections "$TRASH/tidb.yaml" "ddl $OWNER (up-0) [/info/all]"
'

# A real TiDB on 0.0.0.0 without advertise-address says its host's own
# address (util.GetLocalIP(), the tidb-server command's main.go at cd9c676e9ba4),
# not the topology's 127.0.0.1: the port of one component alone names it.
test_expect_success 'status: the owner at its LAN address, at the SQL port of up-0 alone, is named up-0' '
	sed -i -e "0,/\"ip\": \"127.0.0.1\"/s//\"ip\": \"192.0.2.7\"/" \
		"$TRASH/srv/tidb-0/GET_info_all" &&
	grep -q "\"ip\": \"192.0.2.7\"" "$TRASH/srv/tidb-0/GET_info_all" &&
	elections "$TRASH/tidb.yaml" "ddl $OWNER (up-0) [/info/all]" &&
	sed -i -e "s/\"ip\": \"192.0.2.7\"/\"ip\": \"127.0.0.1\"/" \
		"$TRASH/srv/tidb-0/GET_info_all"
'

test_expect_success 'status with etcd: the election from etcd, /info/all in addition' '
	elections "$TRASH/tidb-etcd.yaml" "ddl -" "ddl $OWNER (up-0) [/info/all]" \
		"autoid -" "cdc -"
'

test_expect_success 'status: an owner is at a component when its whole address matches, not a longer port' '
	command -v etcdctl >/dev/null || { echo "etcdctl is not installed (make deps)"; return 1; }
	E="http://127.0.0.1:$(port_of "$C" etcd-0)" &&
	key=/tidb/cdc/default/__cdc_meta__/owner/22b1 &&
	printf "%s\n" "components:" "  - name: \"up-0\"" "    roles: [upstream]" \
		"    sql: \"127.0.0.1:$UP\"" "  - name: \"etcd-0\"" "    roles: [etcd]" \
		"    etcd_url: \"$E\"" >"$TRASH/sql-etcd.yaml" &&
	etcdctl --endpoints "$E" put "$key" "{\"address\":\"127.0.0.1:${UP}0\"}" >/dev/null &&
	elections "$TRASH/sql-etcd.yaml" "ddl -" "autoid -" \
		"cdc {\"address\":\"127.0.0.1:${UP}0\"}" &&
	etcdctl --endpoints "$E" put "$key" "{\"address\":\"127.0.0.1:$UP\"}" >/dev/null &&
	elections "$TRASH/sql-etcd.yaml" "ddl -" "autoid -" \
		"cdc {\"address\":\"127.0.0.1:$UP\"} (up-0)" &&
	etcdctl --endpoints "$E" del "$key" >/dev/null
'

test_expect_success 'status: a TiDB error answer is one line naming the URL' '
	serve tidb-0 tidb-info-all tidb-info-all-error &&
	elections "$TRASH/tidb.yaml" \
		"ddl ? (GET '\''$TIDB/info/all'\'': HTTP 400: ddl server information not found)"
'

test_expect_success 'status: not JSON, owner_id missing, a port of the wrong type' '
	serve tidb-0 tidb-info-all tidb-info-all-malformed &&
	elections "$TRASH/tidb.yaml" \
		"ddl ? (GET '\''$TIDB/info/all'\'': not JSON ('\''['\'' or '\''{'\'' expected near '\''<'\''))" &&
	elections "$TRASH/tidb.yaml" \
		"ddl ? (GET '\''$TIDB/info/all'\'': no '\''owner_id'\'' in the answer)" &&
	elections "$TRASH/tidb.yaml" \
		"ddl ? (GET '\''$TIDB/info/all'\'': '\''all_servers_info.$OWNER.listening_port'\'' is not an integer >= 0)"
'

# A topology of one fake PD; its data names pd-0 at 127.0.0.1:2379, which
# the tests make its port.
test_expect_success 'set up: a fake PD' '
	take_port port_pd_0 &&
	PD="http://127.0.0.1:$port_pd_0" &&
	printf "%s\n" "components:" "  - name: \"pd-0\"" "    roles: [pd]" \
		"    http_url: \"$PD\"" >"$TRASH/pd.yaml"
'

# pd_status [ROW...]: `cluster status` on the PD topology exits 0 and its
# PD block is these rows ("MEMBER HEALTH URL..." or one line).
pd_status() {
	"$TICHAOS" cluster status --cluster "$TRASH/pd.yaml" >"$TRASH/status.out" ||
	{ cat "$TRASH/status.out"; return 1; }
	{
		printf "%-20s %-10s %s\n" "PD MEMBER" HEALTH "CLIENT URL" &&
		for row in "$@"; do
			case $row in
			"? "*|"health "*) echo "$row" ;;
			*) rest=${row#* }
			   printf "%-20s %-10s %s\n" "${row%% *}" "${rest%% *}" \
				"${rest#* }" ;;
			esac
		done
	} >"$TRASH/expect.status" &&
	sed -n "/^PD MEMBER/,\$p" "$TRASH/status.out" >"$TRASH/got.status" &&
	test_cmp "$TRASH/expect.status" "$TRASH/got.status"
}

# pd_here DIR: pd-0's client URL in the canned answers is the fake's.
pd_here() {
	sed -i -e "s|http://127.0.0.1:2379|$PD|" "$TRASH/srv/pd-0/"GET_pd_api_v1_*
}

test_expect_success 'status: PD members with their health, pd-0 at its component' '
	serve pd-0 pd-members && pd_here &&
	pd_status "pd-0 healthy $PD (pd-0)" "pd-1 unhealthy http://127.0.0.1:2381" &&
	printf "%-10s %s\n" ELECTION OWNER pd pd-0 >expect &&
	sed -n "/^ELECTION/,/^\$/p" status.out | sed "/^\$/d" >got &&
	test_cmp expect got &&
	printf "%s\n" "GET /pd/api/v1/leader" "GET /pd/api/v1/members" \
		"GET /pd/api/v1/health" >expect &&
	requests pd-0 >got && test_cmp expect got
'

test_expect_success 'status: PD errors, each one line naming the URL' '
	serve pd-0 pd-members pd-members-error && pd_here &&
	pd_status "pd-0 ? $PD (pd-0)" "pd-1 ? http://127.0.0.1:2381" \
		"health ? (GET '\''$PD/pd/api/v1/health'\'': HTTP 500: etcdserver: request timed out)" &&
	pd_status "? (GET '\''$PD/pd/api/v1/members'\'': HTTP 500: etcdserver: request timed out)"
'

test_expect_success 'status: a Go panic answered as 500 text: quoted by its first line' '
	serve pd-0 pd-members pd-members-panic && pd_here &&
	pd_status "? (GET '\''$PD/pd/api/v1/members'\'': HTTP 500: PANIC: runtime error: invalid memory address or nil pointer dereference)"
'

test_expect_success 'status: PD answers of the wrong shape: a name missing, health a string' '
	serve pd-0 pd-members pd-members-malformed && pd_here &&
	pd_status "? (GET '\''$PD/pd/api/v1/members'\'': no '\''name'\'' in the answer)" &&
	pd_status "pd-0 ? $PD (pd-0)" "pd-1 ? http://127.0.0.1:2381" \
		"health ? (GET '\''$PD/pd/api/v1/health'\'': '\''health'\'' is not true or false)"
'

test_expect_success 'a changefeed fault needs requires: [ticdc] (validate)' '
	sed -e "/^requires:/d" "$TRASH/pause.yaml" >"$TRASH/noreq.yaml" &&
	"$TICHAOS" validate "$TRASH/noreq.yaml" 2>err; test $? = 2 &&
	echo "tichaos: $TRASH/noreq.yaml:13:5: fault '\''changefeed'\'' needs TiCDC: the suite must say '\''requires: [ticdc]'\''" >expect &&
	test_cmp expect err
'

test_expect_success 'on the local cluster (no TiCDC) the suite is skipped' '
	"$TICHAOS" run "$TRASH/pause.yaml" --out "$TRASH/local" >local.tap 2>local.err &&
	printf "%s\n" "TAP version 13" "1..0 # SKIP requires ticdc" >expect &&
	test_cmp expect local.tap
'

test_done
