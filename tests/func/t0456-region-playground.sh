#!/bin/sh
# The region fault (faults/region.c) in real runs on --cluster playground:
# `tiup playground` is tests/helpers/fake-tiup.pl, whose pd-server
# (tests/helpers/fake-instance.pl with FAKE_TIUP_REGIONS) is the stateful
# fake PD of t0455, tests/helpers/fake-pd.pl (tikv/pd server/api/
# operator.go, pkg/schedule/handler/handler.go, server/api/region.go), and
# whose tidb-server is a real mariadbd saying it is TiDB 8.5 (VERSION(),
# so that `requires: [tidb]` holds) with its status port's region listing
# (pingcap/tidb pkg/server/handler/tikvhandler/tikv_handler.go
# TableRegions) answered by that PD from the same regions. tichaos finds
# PD's API and TiDB's status port in the instances' command lines, as
# pingcap/tiup components/playground/instance/pd.go (--client-urls) and
# instance/tidb.go (--status, --path: the PD it asks) start them. Checked:
# each op's exact history record, as on the static topology, and nothing
# left running.
. "$(dirname "$0")/test-lib.sh"
. "$ROOT/tests/func/lib-playground.sh"

# Table t (id 100, two regions), the partitioned table p (p0 id 101, p1 id
# 102): the regions of t0455 (its pd_up).
export FAKE_TIUP_REGIONS="--db rg --table t=100/2 --table p=p0:101,p1:102"

# suite NAME: $TRASH/NAME.yaml, 3 s of inserts into t, tables t and p, the
# fault items from stdin.
suite() {
	cat >"$TRASH/$1.yaml" <<EOS
name: $1
duration: 3s
seed: 7
requires: [tidb]
database: rg
tables:
  - name: t
    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
  - name: p
    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
    partition: "RANGE (id) (PARTITION p0 VALUES LESS THAN (1000), PARTITION p1 VALUES LESS THAN MAXVALUE)"
workloads:
  - kind: insert
    tables: t
    rate: 50
faults:
EOS
	cat >>"$TRASH/$1.yaml"
}

# run NAME: run suite NAME on the playground into $TRASH/NAME; TAP in
# NAME.tap (insert counts blanked), the fault's records in NAME.nemesis
# (times blanked); fails when the run did, or left a process or a
# playground's data behind.
run() {
	PATH=$WITH_TIUP "$TICHAOS" run "$TRASH/$1.yaml" --cluster playground \
		--out "$TRASH/$1" >"$TRASH/$1.tap" 2>"$TRASH/$1.err" ||
	{ cat "$TRASH/$1.err" "$TRASH/$1.tap"; return 1; }
	sed -i -e "s/^\(ok 1 - workload 1 insert: \)[0-9]*\( ok, 0 fail, 0 info\)$/\1N\2/" \
		"$TRASH/$1.tap" &&
	grep "\"process\":\"nemesis\"" "$TRASH/$1/history.jsonl" |
		sed -e "s/^{\"time\":[0-9]*,/{/" -e "s/\"took_ms\":[0-9]*/\"took_ms\":N/" \
		    -e "s/,\"fault\":[0-9]*}\$/}/" >"$TRASH/$1.nemesis" &&
	test -z "$(left "$TRASH/$1")" && test -z "$(left "$TIUP_HOME/data")" &&
	test -z "$(ls "$TIUP_HOME/data")"
}

# injected NAME: the fault took effect once.
injected() {
	printf "%s\n" "TAP version 13" "1..2" \
		"ok 1 - workload 1 insert: N ok, 0 fail, 0 info" \
		"ok 2 - fault 1 region: 1 of 1 injected" >"$TRASH/expect.tap" &&
	test_cmp "$TRASH/expect.tap" "$TRASH/$1.tap"
}

# records NAME INVOKE-TARGET VALUE: the fault's two records are the invoke
# and an info with VALUE.
records() {
	printf '{"process":"nemesis","type":"invoke","f":"region"%s}\n{"process":"nemesis","type":"info","f":"region"%s,"value":{%s,"took_ms":N}}\n' \
		"$2" "$2" "$3" >"$TRASH/expect.nemesis" &&
	test_cmp "$TRASH/expect.nemesis" "$TRASH/$1.nemesis"
}

# R ID START END CONF VERSION LEADER STORES: a region as the record says it.
R() {
	printf '{"id":%s,"start_key":"%s","end_key":"%s","conf_ver":%s,"version":%s,"leader_store":%s,"stores":[%s]}' "$@"
}

# The keys of fake-pd.pl's regions (t0455).
T100_1000="7480000000000000FF645F728000000000FF0003E80000000000FA"
T101="7480000000000000FF6500000000000000F8"
T102R="7480000000000000FF665F720000000000FA"
T103="7480000000000000FF6700000000000000F8"
MID="7480000000000000FF64AFB94000000000FB8001F400000000007D"

suite leader <<EOF
  - kind: region
    op: transfer_leader
    tables: t
    at: [1s]
EOF

# Seed 7 draws region 6 of t (leader on store 3) and store 2 of its others,
# as on the static topology (t0455).
test_expect_success 'transfer_leader on the playground: the region drawn, moved, seen in PD' '
	run leader && injected leader &&
	records leader ",\"target\":\"t\"" "\"op\":\"transfer_leader\",\"table\":\"t\",\"region\":6,\"before\":$(R 6 $T100_1000 $T101 5 3 3 1,2,3),\"from_store\":3,\"to_store\":2,\"after\":$(R 6 $T100_1000 $T101 5 3 2 1,2,3)"
'

suite split <<EOF
  - kind: region
    op: split
    tables: t
    at: [1s]
EOF

test_expect_success 'split on the playground: the split key and the new region read back' '
	run split && injected split &&
	records split ",\"target\":\"t\"" "\"op\":\"split\",\"table\":\"t\",\"region\":6,\"before\":$(R 6 $T100_1000 $T101 5 3 3 1,2,3),\"policy\":\"scan\",\"after\":$(R 6 $MID $T101 5 4 3 1,2,3),\"split_key\":\"$MID\",\"new_region\":$(R 1024 $T100_1000 $MID 5 4 3 1,2,3)"
'

suite merge <<EOF
  - kind: region
    op: merge
    tables: p
    at: [1s]
EOF

# Seed 7 draws region 14, p1's; the region after it, 16, is the last one.
test_expect_success 'merge on the playground: a partition'\''s region into the next one' '
	run merge && injected merge &&
	records merge ",\"target\":\"p\"" "\"op\":\"merge\",\"table\":\"p\",\"partition\":\"p1\",\"region\":14,\"before\":$(R 14 $T102R $T103 5 7 1 1,2,3),\"source\":14,\"target\":16,\"target_before\":$(R 16 $T103 "" 5 8 2 1,2,3),\"after\":$(R 16 $T102R "" 5 9 2 1,2,3)"
'

suite scatter <<EOF
  - kind: region
    op: scatter
    at: [1s]
    timeout: 1s
EOF

test_expect_success 'scatter on the playground: the operator ended with SUCCESS, the peers moved' '
	run scatter && injected scatter &&
	records scatter "" "\"op\":\"scatter\",\"table\":\"t\",\"region\":6,\"before\":$(R 6 $T100_1000 $T101 5 3 3 1,2,3),\"status\":\"SUCCESS\",\"after\":$(R 6 $T100_1000 $T101 7 3 3 4,2,3)"
'

test_done
