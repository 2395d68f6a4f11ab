#!/bin/sh
# The region fault (faults/region.c) in real runs on a static topology with
# PD: a real MariaDB as the SQL side of TiDB (its version string says TiDB,
# so that `requires: [tidb]` holds), and tests/helpers/fake-pd.pl standing
# in for PD's API and TiDB's status port, with regions and stores that the
# operators change a little after PD accepted them. The fake follows
# tikv/pd server/api/operator.go and pkg/schedule/handler/handler.go
# (HandleOperatorCreation, AddMergeRegionOperator, ...), server/api/region.go
# and pkg/response/region.go (RegionInfo), and pingcap/tidb
# pkg/server/handler/tikvhandler/tikv_handler.go (TableRegions). Checked:
# each op's exact history record (region ids, stores, keys, the region
# read back), the operator bodies PD got, a merge PD refuses and a change
# PD never shows recorded as fail, a cluster without PD refused, and bad
# options refused with FILE:LINE:COL.
. "$(dirname "$0")/test-lib.sh"
. "$ROOT/tests/func/lib-region.sh"

need mariadbd

T="$TRASH/topology.yaml"
TIDB_VERSION=8.0.11-TiDB-v8.5.0

# pd_up [ARGS]: (re)start the fake PD and TiDB status port with table t
# (id 100, two regions) and the partitioned table p (p0 id 101, p1 id 102,
# one region each; not with PD_NO_P=1), ARGS added; an empty log of its
# requests, $TRASH/pd.log.
# Regions in key order: 2 ("" to t100), 4 and 6 (t's records), 8, 10
# (p0's records), 12, 14 (p1's records), 16 (to the end).
pd_up() {
	if [ -n "${pd_pid:-}" ]; then
		kill -TERM "$pd_pid" 2>/dev/null
		wait "$pd_pid" 2>/dev/null
	fi
	: >"$TRASH/pd.log"
	[ -n "${PD_NO_P:-}" ] || set -- --table p=p0:101,p1:102 "$@"
	perl "$ROOT/tests/helpers/fake-pd.pl" --pd-port "$port_pd" \
		--tidb-port "$port_tidb" --log "$TRASH/pd.log" --db rg \
		--table t=100/2 "$@" \
		>"$TRASH/pd.err" 2>&1 &
	pd_pid=$!
	test_track_pid $pd_pid
	wait_for_condition 10 "listening $port_pd && listening $port_tidb"
}

# run OUT NAME [TOPOLOGY]: run suite NAME into $TRASH/OUT; exit status in
# $rc, TAP in OUT.tap (insert counts blanked), the fault's records in
# OUT.nemesis (times blanked), the operators PD got in OUT.ops.
run() {
	: >"$TRASH/pd.log"
	"$TICHAOS" run "$TRASH/$2.yaml" --cluster "${3:-$T}" --out "$TRASH/$1" \
		>"$TRASH/$1.tap" 2>"$TRASH/$1.err"
	rc=$?
	blank_run "$1"
	{ grep "^PD POST " "$TRASH/pd.log" || :; } >"$TRASH/$1.ops"
}

# injected OUT: exit 0, the fault took effect once.
injected() {
	test $rc = 0 && injected_tap "$1"
}

# not_injected OUT MESSAGE: exit 3, the fault did not take effect because
# of MESSAGE (as the TAP quotes it).
not_injected() {
	test $rc = 3 &&
	printf "%s\n" "TAP version 13" "1..2" \
		"ok 1 - workload 1 insert: N ok, 0 fail, 0 info" \
		"not ok 2 - fault 1 region: 0 of 1 injected, 1 did not take effect" \
		"  ---" "  verdict: error" "  message: \"$2\"" \
		"  run_dir: \"$TRASH/$1\"" "  seed: 7" \
		"  replay: \"tichaos replay $TRASH/$1\"" "  ..." >"$TRASH/expect.tap" &&
	test_cmp "$TRASH/expect.tap" "$TRASH/$1.tap"
}

test_cluster_setup 'set up: MariaDB saying it is TiDB, the fake PD, a topology with both' '
	printf "version=%s\n" "$TIDB_VERSION" >>"$C/up-0/my.cnf" &&
	"$TICHAOS" cluster kill up-0 --dir "$C" --signal TERM &&
	"$TICHAOS" cluster start up-0 --dir "$C" &&
	echo "$TIDB_VERSION" >expect &&
	sql "$UP" "SELECT VERSION()" >got && test_cmp expect got &&
	take_port port_pd && take_port port_tidb && pd_up &&
	{
		echo "components:" &&
		sed -n "/^  - name: \"up-0\"$/,/^  - name:/p" "$C/topology.yaml" | sed "\$d" &&
		printf "    http_url: \"http://127.0.0.1:%s\"\n" "$port_tidb" &&
		printf "  - name: \"pd-0\"\n    roles: [pd]\n    http_url: \"http://127.0.0.1:%s/pd/api/v1/health\"\n" "$port_pd"
	} >"$T" &&
	"$TICHAOS" cluster status --cluster "$T" >out &&
	test "$(grep -c " running" out)" = 2
'

test_expect_success 'the fake answers as PD and TiDB: regions by id and key, refusals, the listing' '
	P="http://127.0.0.1:$port_pd/pd/api/v1" &&
	curl -s "$P/region/id/4" >got &&
	printf "%s" "{\"approximate_columnar_kv_size\":0,\"approximate_keys\":1000,\"approximate_kv_size\":0,\"approximate_size\":1,\"cpu_usage\":0,\"end_key\":\"$T100_1000\",\"epoch\":{\"conf_ver\":5,\"version\":2},\"id\":4,\"leader\":{\"id\":1004,\"role_name\":\"Voter\",\"store_id\":2},\"peers\":[{\"id\":1003,\"role_name\":\"Voter\",\"store_id\":1},{\"id\":1004,\"role_name\":\"Voter\",\"store_id\":2},{\"id\":1005,\"role_name\":\"Voter\",\"store_id\":3}],\"read_bytes\":0,\"read_keys\":0,\"start_key\":\"$T100\",\"written_bytes\":0,\"written_keys\":0}" >expect &&
	test_cmp expect got &&
	curl -s -w " %{http_code}\n" "$P/region/id/99" >got &&
	curl -s -w " %{http_code}\n" "$P/region/key/$T101R?format=hex" | sed "s/.*,\"id\":\([0-9]*\),\"leader\".*\( [0-9]*\)$/\1\2/" >>got &&
	curl -s -w " %{http_code}\n" -d "{\"name\":\"merge-region\",\"source_region_id\":4,\"target_region_id\":8}" "$P/operators" >>got &&
	curl -s -w " %{http_code}\n" -d "{\"name\":\"transfer-leader\",\"region_id\":\"4\",\"to_store_id\":1}" "$P/operators" >>got &&
	curl -s -w " %{http_code}\n" -d "{\"name\":\"transfer-leader\",\"region_id\":4,\"to_store_id\":4}" "$P/operators" >>got &&
	curl -s -w " %{http_code}\n" -d "{\"name\":\"split-region\",\"region_id\":4,\"policy\":\"half\"}" "$P/operators" >>got &&
	curl -s -w " %{http_code}\n" -d "{\"region_id\":4}" "$P/operators" >>got &&
	curl -s -w " %{http_code}\n" "$P/operators/4" >>got &&
	cat >expect <<-EOF &&
	"[PD:region:ErrRegionNotFound]region 99 not found"
	 404
	10 200
	"[PD:region:ErrRegionNotAdjacent]two regions are not adjacent"
	 500
	"missing region id"
	 400
	"region has no voter in store 4"
	 500
	"check policy half is not supported"
	 500
	"missing operator name"
	 400
	"[PD:operator:ErrOperatorNotFound]operator not found"
	 500
	EOF
	test_cmp expect got &&
	curl -s "http://127.0.0.1:$port_tidb/tables/rg/p/regions" | tr -d " \n" |
		sed "s/\"peers\":\[[^]]*\]//g" >got &&
	printf "%s" "[{\"id\":101,\"indices\":[],\"name\":\"p0\",\"record_regions\":[{\"leader\":{\"id\":1013,\"store_id\":2},,\"region_epoch\":{\"conf_ver\":5,\"version\":5},\"region_id\":10}]},{\"id\":102,\"indices\":[],\"name\":\"p1\",\"record_regions\":[{\"leader\":{\"id\":1018,\"store_id\":1},,\"region_epoch\":{\"conf_ver\":5,\"version\":7},\"region_id\":14}]}]" >expect &&
	test_cmp expect got
'

suite leader <<EOF
  - kind: region
    op: transfer_leader
    tables: t
    at: [1s]
EOF

# Seed 7 draws region 6 of t (leader on store 3) and store 2 of its others.
test_expect_success 'transfer_leader: the region drawn, moved to the store drawn, seen in PD' '
	pd_up && run leader leader && injected leader &&
	records leader ",\"target\":\"t\"" "\"op\":\"transfer_leader\",\"table\":\"t\",\"region\":6,\"before\":$(R 6 $T100_1000 $T101 5 3 3 1,2,3),\"from_store\":3,\"to_store\":2,\"after\":$(R 6 $T100_1000 $T101 5 3 2 1,2,3)" info &&
	echo "PD POST /pd/api/v1/operators {\"name\":\"transfer-leader\",\"region_id\":6,\"to_store_id\":2}" >expect &&
	test_cmp expect "$TRASH/leader.ops"
'

test_expect_success 'the same seed draws the same region and store again (replay)' '
	pd_up && run leader2 leader && injected leader2 &&
	test_cmp "$TRASH/leader.nemesis" "$TRASH/leader2.nemesis"
'

suite split <<EOF
  - kind: region
    op: split
    tables: t
    at: [1s]
EOF

# The fake splits at the middle of region 6 (MID): the id keeps the
# right part, 1024 is the left one, both one version up.
test_expect_success 'split: the version went up, the split key and the new region read back' '
	pd_up && run split split && injected split &&
	records split ",\"target\":\"t\"" "\"op\":\"split\",\"table\":\"t\",\"region\":6,\"before\":$(R 6 $T100_1000 $T101 5 3 3 1,2,3),\"policy\":\"scan\",\"after\":$(R 6 $MID $T101 5 4 3 1,2,3),\"split_key\":\"$MID\",\"new_region\":$(R 1024 $T100_1000 $MID 5 4 3 1,2,3)" info &&
	echo "PD POST /pd/api/v1/operators {\"name\":\"split-region\",\"region_id\":6,\"policy\":\"scan\"}" >expect &&
	test_cmp expect "$TRASH/split.ops"
'

sed "s/^    op: split$/    op: split\n    policy: approximate/" "$TRASH/split.yaml" >"$TRASH/approx.yaml"

test_expect_success 'split with policy approximate: PD is asked with that policy' '
	pd_up && run approx approx && injected approx &&
	echo "PD POST /pd/api/v1/operators {\"name\":\"split-region\",\"region_id\":6,\"policy\":\"approximate\"}" >expect &&
	test_cmp expect "$TRASH/approx.ops" &&
	grep -qF "\"policy\":\"approximate\",\"after\":$(R 6 $MID $T101 5 4 3 1,2,3),\"split_key\":\"$MID\"" "$TRASH/approx.nemesis"
'

suite merge <<EOF
  - kind: region
    op: merge
    tables: p
    at: [1s]
EOF

# Seed 7 draws region 14, p1's; the region after it, 16, is the last one.
test_expect_success 'merge: a partition'\''s region into the next one, the source gone' '
	pd_up && run merge merge && injected merge &&
	records merge ",\"target\":\"p\"" "\"op\":\"merge\",\"table\":\"p\",\"partition\":\"p1\",\"region\":14,\"before\":$(R 14 $T102R $T103 5 7 1 1,2,3),\"source\":14,\"target\":16,\"target_before\":$(R 16 $T103 "" 5 8 2 1,2,3),\"after\":$(R 16 $T102R "" 5 9 2 1,2,3)" info &&
	echo "PD POST /pd/api/v1/operators {\"name\":\"merge-region\",\"source_region_id\":14,\"target_region_id\":16}" >expect &&
	test_cmp expect "$TRASH/merge.ops" &&
	grep -q "^PD GET /pd/api/v1/region/id/14$" "$TRASH/pd.log"
'

WHY_MERGE="(PD merges only regions with all the replicas it wants, max-replicas, and no pending or down peer:"
MERGE_REFUSED="POST 'http://127.0.0.1:PORT/pd/api/v1/operators': HTTP 500: [PD:region:ErrRegionAbnormalPeer]region 16 has abnormal peer $WHY_MERGE region 14 has 3 peers, region 16 3)"
test_expect_success 'merge refused by PD (a pending peer): fail with PD'\''s message, exit 3' '
	pd_up --pending 16 && run refused merge &&
	sed -i "s/127\.0\.0\.1:$port_pd/127.0.0.1:PORT/" "$TRASH/refused.nemesis" "$TRASH/refused.tap" &&
	not_injected refused "$MERGE_REFUSED" &&
	records refused ",\"target\":\"p\"" "\"op\":\"merge\",\"table\":\"p\",\"partition\":\"p1\",\"region\":14,\"before\":$(R 14 $T102R $T103 5 7 1 1,2,3),\"source\":14,\"target\":16,\"target_before\":$(R 16 $T103 "" 5 8 2 1,2,3)" fail "$MERGE_REFUSED" &&
	echo "PD POST /pd/api/v1/operators {\"name\":\"merge-region\",\"source_region_id\":14,\"target_region_id\":16}" >expect &&
	test_cmp expect "$TRASH/refused.ops"
'

# A real PD v8.1.2 over one TiKV refused every merge: each region has one
# peer, and PD wants max-replicas, 3.
test_expect_success 'merge refused by PD (one replica, as over one TiKV): why, and the peers; exit 3' '
	pd_up --replicas 1 --stores 1 && run onereplica merge &&
	sed -i "s/127\.0\.0\.1:$port_pd/127.0.0.1:PORT/" "$TRASH/onereplica.nemesis" "$TRASH/onereplica.tap" &&
	msg="POST '"'"'http://127.0.0.1:PORT/pd/api/v1/operators'"'"': HTTP 500: [PD:region:ErrRegionAbnormalPeer]region 14 has abnormal peer $WHY_MERGE region 14 has 1 peer, region 16 1)" &&
	not_injected onereplica "$msg" &&
	records onereplica ",\"target\":\"p\"" "\"op\":\"merge\",\"table\":\"p\",\"partition\":\"p1\",\"region\":14,\"before\":$(R 14 $T102R $T103 5 7 1 1),\"source\":14,\"target\":16,\"target_before\":$(R 16 $T103 "" 5 8 1 1)" fail "$msg"
'

suite scatter <<EOF
  - kind: region
    op: scatter
    at: [1s]
    timeout: 1s
EOF

# Seed 7 over t's, p0's and p1's regions (4, 6, 10, 14) draws 6; the fake
# moves its peer on store 1 to store 4.
test_expect_success 'scatter: the operator ended with SUCCESS, the peers moved' '
	pd_up && run scatter scatter && injected scatter &&
	records scatter "" "\"op\":\"scatter\",\"table\":\"t\",\"region\":6,\"before\":$(R 6 $T100_1000 $T101 5 3 3 1,2,3),\"status\":\"SUCCESS\",\"after\":$(R 6 $T100_1000 $T101 7 3 3 4,2,3)" info &&
	echo "PD POST /pd/api/v1/operators {\"name\":\"scatter-region\",\"region_id\":6}" >expect &&
	test_cmp expect "$TRASH/scatter.ops"
'

# PD refuses to scatter a region it holds hot (written at 1 KiB/s or 32
# keys/s: pkg/schedule/handler/handler.go AddScatterRegionOperator, read
# at v8.1.2), as the inserts of suites/cdc_regions.yaml would make the
# table's: the next region in the listing's order is scattered instead,
# the refusals recorded; with every one hot, it did not take effect.
test_expect_success 'scatter of a hot region: refused by PD, the next region scattered, the refusal recorded' '
	pd_up --hot 6 && run hotone scatter && injected hotone &&
	grep "\"process\":\"nemesis\",\"type\":\"info\",\"f\":\"region\"" "$TRASH/hotone/history.jsonl" >rec &&
	grep -q "\"op\":\"scatter\",\"table\":\"p\",\"partition\":\"p0\",\"region\":10,\"hot_refused\":\[6\],\"before\":" rec &&
	grep -q "\"status\":\"SUCCESS\"" rec &&
	printf "%s\n" "PD POST /pd/api/v1/operators {\"name\":\"scatter-region\",\"region_id\":6}" \
		"PD POST /pd/api/v1/operators {\"name\":\"scatter-region\",\"region_id\":10}" >expect &&
	test_cmp expect "$TRASH/hotone.ops"
'

HOT_ALL="PD refused to scatter each of the 4 regions: \\\"region N is a hot region\\\" (written at its hot threshold)"
test_expect_success 'scatter with every region hot: did not take effect, each refusal recorded' '
	pd_up --hot 4 --hot 6 --hot 10 --hot 14 && run hotall scatter &&
	not_injected hotall "$HOT_ALL" &&
	grep -q "\"op\":\"scatter\",\"hot_refused\":\[6,10,14,4\]" "$TRASH/hotall/history.jsonl" &&
	test "$(wc -l <"$TRASH/hotall.ops")" = 4
'

# PD's scatterer finds the layout it wants is the one there
# (isSameDistribution) and makes no operator, while the API answers 200:
# nothing to move is what happened, at once, not a fault that failed.
test_expect_success 'scatter with nowhere to go: PD makes no operator: nothing_to_move, at once' '
	pd_up --stores 3 && run noscatter scatter && injected noscatter &&
	records noscatter "" "\"op\":\"scatter\",\"table\":\"t\",\"region\":6,\"before\":$(R 6 $T100_1000 $T101 5 3 3 1,2,3),\"nothing_to_move\":true" info &&
	echo "PD POST /pd/api/v1/operators {\"name\":\"scatter-region\",\"region_id\":6}" >expect &&
	test_cmp expect "$TRASH/noscatter.ops" &&
	test "$(grep -c "^PD GET /pd/api/v1/operators/6$" "$TRASH/pd.log")" = 2
'

sed "s/^    at: \[1s\]$/    at: [1s]\n    timeout: 1s/" "$TRASH/split.yaml" >"$TRASH/split1s.yaml"

# TiKV's split check finds no key in a region without keys and sends PD
# nothing; PD's operator stays RUNNING (tikv/pd pkg/schedule/operator/
# step.go, SplitRegion). PD counts no keys in it: nothing to move.
test_expect_success 'split of a region PD counts no keys in: nothing_to_move after the timeout' '
	pd_up --empty 6 && run nokey split1s && injected nokey &&
	records nokey ",\"target\":\"t\"" "\"op\":\"split\",\"table\":\"t\",\"region\":6,\"before\":$(R 6 $T100_1000 $T101 5 3 3 1,2,3),\"policy\":\"scan\",\"after\":$(R 6 $T100_1000 $T101 5 3 3 1,2,3),\"nothing_to_move\":true" info
'

test_expect_success 'a split not seen in a region with keys: fail with what PD shows, exit 3' '
	pd_up --hold && run heldsplit split1s &&
	not_injected heldsplit "region 6: a split (version above 3) not seen within 1s: PD shows version 3" &&
	records heldsplit ",\"target\":\"t\"" "\"op\":\"split\",\"table\":\"t\",\"region\":6,\"before\":$(R 6 $T100_1000 $T101 5 3 3 1,2,3),\"policy\":\"scan\",\"after\":$(R 6 $T100_1000 $T101 5 3 3 1,2,3)" fail "region 6: a split (version above 3) not seen within 1s: PD shows version 3"
'

# A real pd-server with no TiKV store refuses every region read with
# ErrNotBootstrapped (500, whatever the id), seen here by hand.
NOBOOT="GET 'http://127.0.0.1:PORT/pd/api/v1/region/id/6': HTTP 500: [PD:cluster:ErrNotBootstrapped]TiKV cluster not bootstrapped, please start TiKV first"
test_expect_success 'PD with no TiKV store: fail with PD'\''s refusal of the region read, no operator' '
	pd_up --unbootstrapped && run noboot scatter &&
	sed -i "s/127\.0\.0\.1:$port_pd/127.0.0.1:PORT/" "$TRASH/noboot.nemesis" "$TRASH/noboot.tap" &&
	not_injected noboot "$NOBOOT" &&
	records noboot "" "\"op\":\"scatter\",\"table\":\"t\",\"region\":6" fail "$NOBOOT" &&
	test_cmp /dev/null "$TRASH/noboot.ops"
'

test_expect_success 'the fake as that pd-server: / is 404, /pd/api/v1/health its member, an operator a panic' '
	P="http://127.0.0.1:$port_pd" &&
	curl -s -w " %{http_code}\n" "$P/" >got &&
	curl -s -w " %{http_code}\n" "$P/pd/api/v1/health" >>got &&
	curl -s -w " %{http_code}\n" -d "{\"name\":\"scatter-region\",\"region_id\":6}" "$P/pd/api/v1/operators" | head -n 1 >>got &&
	printf "%s\n" "404 page not found" " 404" \
		"[{\"client_urls\":[\"$P\"],\"health\":true,\"member_id\":1,\"name\":\"pd\"}]" " 200" \
		"PANIC: runtime error: invalid memory address or nil pointer dereference" >expect &&
	test_cmp expect got
'

suite hold <<EOF
  - kind: region
    op: transfer_leader
    tables: t
    at: [1s]
    timeout: 1s
EOF

test_expect_success 'an operator PD accepted but never carried out: fail with what PD shows' '
	pd_up --hold && run hold hold &&
	not_injected hold "region 6: its leader on store 2 not seen within 1s: PD shows its leader on store 3" &&
	records hold ",\"target\":\"t\"" "\"op\":\"transfer_leader\",\"table\":\"t\",\"region\":6,\"before\":$(R 6 $T100_1000 $T101 5 3 3 1,2,3),\"from_store\":3,\"to_store\":2,\"after\":$(R 6 $T100_1000 $T101 5 3 3 1,2,3)" fail "region 6: its leader on store 2 not seen within 1s: PD shows its leader on store 3" &&
	grep -q "^PD GET /pd/api/v1/region/id/6$" "$TRASH/pd.log" &&
	test "$(grep -c "^PD GET /pd/api/v1/region/id/6$" "$TRASH/pd.log")" -ge 5
'

sed "s/^    timeout: 1s$/    timeout: 60s/" "$TRASH/hold.yaml" >"$TRASH/holdlong.yaml"

test_expect_success 'the run ends while the change is awaited: the wait ends with it, fail' '
	pd_up --hold && start=$(date +%s) && run holdlong holdlong &&
	test $(($(date +%s) - start)) -lt 30 &&
	not_injected holdlong "region 6: its leader on store 2 not seen before the run ended: PD shows its leader on store 3"
'

NO_TABLE="GET 'http://127.0.0.1:PORT/tables/rg/p/regions': HTTP 400: [schema:1146]Table 'rg.p' doesn't exist"
test_expect_success 'a table TiDB does not know (dropped): fail with TiDB'\''s answer, no operator asked for' '
	PD_NO_P=1 pd_up && run notable scatter &&
	sed -i "s/127\.0\.0\.1:$port_tidb/127.0.0.1:PORT/" "$TRASH/notable.nemesis" "$TRASH/notable.tap" &&
	not_injected notable "$NO_TABLE" &&
	records notable "" "\"op\":\"scatter\"" fail "$NO_TABLE" &&
	test -z "$(grep "^PD " "$TRASH/pd.log" | grep -v "^PD GET /pd/api/v1/health$")"
'

test_expect_success 'a cluster without PD'\''s API: refused before any workload, exit 2' '
	sed "/^  - name: \"pd-0\"$/,\$d" "$T" >"$TRASH/nopd.yaml" &&
	run nopd leader "$TRASH/nopd.yaml"
	test $rc = 2 &&
	line=$(grep -n "kind: region" "$TRASH/leader.yaml" | cut -d: -f1) &&
	echo "tichaos: $TRASH/leader.yaml:$line:5: fault '\''region'\'' needs PD'\''s API: no pd component with an http_url in this cluster" >expect &&
	tail -n 1 "$TRASH/nopd.err" >got && test_cmp expect got &&
	! grep -q "\"f\":\"insert\"" "$TRASH/nopd/history.jsonl"
'

test_expect_success 'on the local cluster (MariaDB, no PD): the suite is skipped' '
	"$TICHAOS" run "$TRASH/leader.yaml" --port-base auto --out "$TRASH/local" >tap 2>err &&
	printf "TAP version 13\n1..0 # SKIP requires tidb\n" >expect && test_cmp expect tap
'

# bad NAME LINE:COL MESSAGE: suite NAME (fault items from stdin, without
# requires: [tidb] when NAME is norequire) is refused by validate, exit 2.
bad() {
	suite "$1" &&
	if [ "$1" = norequire ]; then
		sed -i "/^requires:/d" "$TRASH/$1.yaml"
	fi &&
	"$TICHAOS" validate "$TRASH/$1.yaml" >out 2>err
	test $? = 2 &&
	echo "tichaos: $TRASH/$1.yaml:$2: $3" >expect && test_cmp expect err
}

test_expect_success 'bad options: FILE:LINE:COL, exit 2' '
	bad norequire 16:5 "fault '\''region'\'' needs TiKV and PD: the suite must say '\''requires: [tidb]'\''" <<-EOF &&
	  - kind: region
	    op: split
	    at: [1s]
	EOF
	bad noop 17:5 "fault '\''region'\'' needs '\''op'\''" <<-EOF &&
	  - kind: region
	    at: [1s]
	EOF
	bad badop 18:9 "op in fault '\''region'\'': unknown value '\''move'\'' (expected transfer_leader, split, merge, scatter)" <<-EOF &&
	  - kind: region
	    op: move
	    at: [1s]
	EOF
	bad policy 20:13 "policy in fault '\''region'\'' applies to op split only" <<-EOF &&
	  - kind: region
	    op: merge
	    at: [1s]
	    policy: scan
	EOF
	bad down 20:11 "fault '\''region'\'' has no heal: '\''down'\'' does not apply" <<-EOF &&
	  - kind: region
	    op: merge
	    at: [1s]
	    down: 5s
	EOF
	bad table 19:13 "tables in fault '\''region'\'': no table '\''nosuch'\'' in the suite" <<-EOF
	  - kind: region
	    op: scatter
	    tables: [t, nosuch]
	    at: [1s]
	EOF
'

test_done
