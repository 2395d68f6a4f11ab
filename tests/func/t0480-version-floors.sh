#!/bin/sh
# Version floors (docs/topology.md): a run against a server too old for
# what it uses says which feature is missing and refuses to start (exit 2,
# the cluster left as it was, no run directory), instead of failing later
# on a 404 or a resign that times out. The fakes answer as the servers do
# (tests/helpers/fake-http.pl): TiCDC's GET /api/v2/status "version" is
# version.ReleaseVersion, "v6.5.10" (pingcap/tiflow cdc/api/v2/status.go);
# a TiCDC before 6.6 has no /api/v2 at all (404, Go's "404 page not
# found"); TiDB's GET /status "version" is MySQL's version, then
# "-TiDB-", then TiDB's (pingcap/tidb pkg/server/http_status.go).
# The same answers tell whether the servers have the fix of the bug a
# suite catches (catches:): TiDB issue 52600's fix is in v6.5.10, v7.1.5,
# v7.5.2 and v8.1.0 (its release notes; 8.1.0 from master), so v7.5.2 and
# v8.5.0 have it, v7.5.1 and v8.0.0 (a line between) do not.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

C="$TRASH/c"

# topology NAME ITEMS: $TRASH/NAME.yaml, the local cluster's components
# and the items read from stdin.
topology() {
	{ sed -n "/^components:/,\$p" "$C/topology.yaml" && cat; } >"$TRASH/$1.yaml"
}

# refused RUN TOPOLOGY SUITE MESSAGE: the run is refused with MESSAGE:
# exit 2, the one line on stderr, no run directory.
refused() {
	"$TICHAOS" run "$TRASH/$3.yaml" --cluster "$TRASH/$2.yaml" \
		--out "$TRASH/$1" --quiet >"$1.tap" 2>"$1.err"
	code=$?
	test $code = 2 || { echo "exit $code"; cat "$1.err"; return 1; }
	echo "tichaos: $4" >expect && tail -n 1 "$1.err" | test_cmp expect - &&
	{ test ! -e "$TRASH/$1" || { echo "left: $(ls "$TRASH/$1")"; false; }; }
}

{ insert_suite plain 2s 3 floors 50; } >"$TRASH/plain.yaml"
{
	insert_suite autoid 2s 3 floors 50
	cat <<-EOF
	faults:
	  - kind: resign
	    service: autoid
	    at: [1s]
	EOF
} >"$TRASH/autoid.yaml"

test_cluster_setup 'set up: a local cluster; a TiCDC 6.5, one without /api/v2, TiDB 6.1 and 7.5' '
	take_port p_old && take_port p_none && take_port p_tidb61 && take_port p_tidb75 &&
	mkdir old none tidb61 tidb75 &&
	test_capture_files old x $p_old &&
	sed -i "s/v8\.5\.0/v6.5.10/" old/GET_api_v2_status &&
	printf "200 application/json\n{\"connections\":0,\"version\":\"8.0.11-TiDB-v6.1.0\",\"git_hash\":\"x\"}\n" >tidb61/GET_status &&
	printf "200 application/json\n{\"connections\":0,\"version\":\"8.0.11-TiDB-v7.5.0\",\"git_hash\":\"x\"}\n" >tidb75/GET_status &&
	fake_http old $p_old "$TRASH/old" && fake_http none $p_none "$TRASH/none" &&
	fake_http tidb61 $p_tidb61 "$TRASH/tidb61" && fake_http tidb75 $p_tidb75 "$TRASH/tidb75" &&
	printf "  - name: cdc-0\n    roles: [cdc]\n    http_url: \"http://127.0.0.1:%s\"\n" $p_old | topology old &&
	printf "  - name: cdc-0\n    roles: [cdc]\n    http_url: \"http://127.0.0.1:%s\"\n" $p_none | topology none &&
	printf "  - name: tidb-0\n    roles: [upstream]\n    http_url: \"http://127.0.0.1:%s/status\"\n" $p_tidb61 | topology tidb61 &&
	printf "  - name: tidb-0\n    roles: [upstream]\n    http_url: \"http://127.0.0.1:%s/status\"\n" $p_tidb75 | topology tidb75
'

test_expect_success 'TiCDC 6.5: refused by name and release, nothing run' '
	refused o old plain "cdc-0 runs TiCDC v6.5.10: tichaos needs TiCDC >= 6.6 (its Open API v2, cdc/api/v2 in pingcap/tiflow)" &&
	! grep -q "^POST" "$TRASH/old.log"
'

test_expect_success 'a TiCDC without /api/v2: refused at once, not after the readiness timeout' '
	refused n none plain "cdc-0: GET '\''http://127.0.0.1:$p_none/api/v2/captures'\'': HTTP 404: 404 page not found: no Open API v2; tichaos needs TiCDC >= 6.6 (cdc/api/v2 in pingcap/tiflow)" &&
	test "$(grep -c "^GET /api/v2/captures$" "$TRASH/none.log")" = 1 ||
	{ cat "$TRASH/none.log" n.err; false; }
'

test_expect_success 'a resign of the autoid leader on TiDB 6.1: refused at its line' '
	refused a tidb61 autoid "$TRASH/autoid.yaml:14:14: service autoid in fault '\''resign'\'' needs TiDB >= 6.4 (the autoid service, pkg/autoid_service/autoid.go in pingcap/tidb): tidb-0 runs 8.0.11-TiDB-v6.1.0"
'

# Past the floors the run reaches its resign, which finds no autoid
# leader: nothing campaigns for it in the local cluster's etcd (exit 3).
test_expect_success 'on TiDB 7.5 the same suite passes the floors (and runs to its resign)' '
	"$TICHAOS" run "$TRASH/autoid.yaml" --cluster "$TRASH/tidb75.yaml" \
		--out "$TRASH/a75" --quiet >a75.tap 2>a75.err
	code=$? &&
	echo "code $code" && test $code = 3 &&
	test -d "$TRASH/a75" && ! grep -q "needs TiDB" a75.err &&
	grep -q "^GET /status$" "$TRASH/tidb75.log" &&
	grep -qx "not ok 2 - fault 1 resign: 0 of 1 injected, 1 did not take effect" a75.tap &&
	grep -qx "  message: \"no owner in election '\''tidb/autoid/leader'\''\"" a75.tap
'

# tidb_at NAME VERSION: a fake TiDB whose GET /status says VERSION, on a
# port of its own, and $TRASH/NAME.yaml, the local cluster with it as
# tidb-0 (and, given a third argument, a second fake as tidb-1).
tidb_at() {
	take_port p && mkdir -p "$1" &&
	printf "200 application/json\n{\"connections\":0,\"version\":\"8.0.11-TiDB-%s\",\"git_hash\":\"x\"}\n" "$2" >"$1/GET_status" &&
	fake_http "$1" $p "$TRASH/$1" &&
	printf "  - name: tidb-0\n    roles: [upstream]\n    http_url: \"http://127.0.0.1:%s/status\"\n" $p >"$1.topo" &&
	if [ -n "${3:-}" ]; then
		sed "s/tidb-0/tidb-1/" "$3.topo" >>"$1.topo"
	fi &&
	topology "$1" <"$1.topo"
}

{
	insert_suite catch 2s 3 floors 50
	cat <<-EOF
	catches:
	  bug: "TiDB issue 52600"
	  server: tidb
	  fixed_in: [v6.5.10, v7.1.5, v7.5.2, v8.1.0]
	EOF
} >"$TRASH/catch.yaml"

test_expect_success 'set up: TiDB v7.5.1, v7.5.2, v8.0.0, v8.5.0, and v7.5.2 beside v7.5.1; two builds of master' '
	tidb_at t751 v7.5.1 && tidb_at t752 v7.5.2 && tidb_at t800 v8.0.0 &&
	tidb_at t850 v8.5.0 && tidb_at mixed v7.5.2 t751 &&
	tidb_at t810a v8.1.0-alpha-83-g3fff0f2529 &&
	tidb_at t820a v8.2.0-alpha-12-gabcdef0123
'

# fixed_run NAME TOPOLOGY VERSION: the suite on TOPOLOGY passes, and says
# in one line, everywhere, that tidb-0 (at VERSION) has the fix.
fixed_run() {
	"$TICHAOS" run "$TRASH/catch.yaml" --cluster "$TRASH/$2.yaml" \
		--out "$TRASH/$1" >"$1.tap" 2>"$1.err"
	code=$?
	test $code = 0 || { echo "exit $code"; cat "$1.err" "$1.tap"; return 1; }
	line="tidb-0 runs 8.0.11-TiDB-$3, which has the fix of TiDB issue 52600 (TiDB v6.5.10, v7.1.5, v7.5.2, v8.1.0): not expected to catch it here" &&
	sed -n 3p "$1.tap" >got && echo "# $line" >expect && test_cmp expect got &&
	test "$(grep -c "^#" "$1.tap")" = 1 &&
	grep -q "^ok 1 - workload 1 insert: " "$1.tap" &&
	test "$(grep -c " warn  $line\$" "$1.err")" = 1 &&
	grep -qxF "fixed: $line" "$TRASH/$1/summary.txt" &&
	grep -qF "\"fixed\": \"$line\"" "$TRASH/$1/results.json" &&
	grep -qF "<property name=\"fixed\" value=\"$line\"/>" "$TRASH/$1/junit.xml" &&
	grep -qF "<p>Fixed: $line</p>" "$TRASH/$1/report.html" &&
	"$TICHAOS" validate "$TRASH/$1/suite.yaml" >/dev/null &&
	grep -qx "  fixed_in: \[v6.5.10, v7.1.5, v7.5.2, v8.1.0\]" "$TRASH/$1/suite.yaml"
}

# caught_run NAME TOPOLOGY: the suite on TOPOLOGY passes with no such line.
caught_run() {
	"$TICHAOS" run "$TRASH/catch.yaml" --cluster "$TRASH/$2.yaml" \
		--out "$TRASH/$1" >"$1.tap" 2>"$1.err"
	code=$?
	test $code = 0 || { echo "exit $code"; cat "$1.err" "$1.tap"; return 1; }
	! grep -q "^#" "$1.tap" && ! grep -q "which has the fix" "$1.err" &&
	! grep -q "^fixed:" "$TRASH/$1/summary.txt" &&
	! grep -q "\"fixed\"" "$TRASH/$1/results.json"
}

test_expect_success 'TiDB v7.5.2, the fix of its line: said in one line, the run goes on' '
	fixed_run c752 t752 v7.5.2 &&
	grep -q "^GET /status$" "$TRASH/t752.log"
'

test_expect_success 'TiDB v8.5.0, a line newer than every fixed one: said the same' '
	fixed_run c850 t850 v8.5.0
'

test_expect_success 'TiDB v7.5.1, before its line'\''s fix: no line, the bug can show' '
	caught_run c751 t751 &&
	grep -q "tidb-0 runs 8.0.11-TiDB-v7.5.1, before the fix of TiDB issue 52600$" "$TRASH/c751/logs/tichaos.log"
'

test_expect_success 'TiDB v8.0.0, a line between the fixed ones that never had it: no line' '
	caught_run c800 t800 &&
	grep -q "tidb-0 runs 8.0.11-TiDB-v8.0.0, before the fix of TiDB issue 52600$" "$TRASH/c800/logs/tichaos.log"
'

# TiDB's master between releases says the next release with "-alpha":
# the build 52600 was reported on was v8.1.0-alpha-83-g3fff0f2529, before
# the fix that v8.1.0 carries; a build of master on the way to v8.1.0 may
# or may not hold it. Past v8.1.0's branch, master has it.
test_expect_success 'TiDB v8.1.0-alpha (the report'\''s build): may not have the fix, no line' '
	caught_run c810a t810a &&
	grep -q "tidb-0 runs 8.0.11-TiDB-v8.1.0-alpha-83-g3fff0f2529, a build from before v8.1.0, the first of its line with the fix of TiDB issue 52600: it may not have it$" "$TRASH/c810a/logs/tichaos.log"
'

test_expect_success 'TiDB v8.2.0-alpha, master after v8.1 branched with the fix: said' '
	fixed_run c820a t820a v8.2.0-alpha-12-gabcdef0123
'

test_expect_success 'v7.5.2 beside v7.5.1: one server can still show it, no line' '
	caught_run cmix mixed &&
	grep -q "tidb-1 runs 8.0.11-TiDB-v7.5.1, before the fix of TiDB issue 52600$" "$TRASH/cmix/logs/tichaos.log"
'

test_done
