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
. "$ROOT/tests/func/lib-region.sh"

# Table t (id 100, two regions), the partitioned table p (p0 id 101, p1 id
# 102): the regions of t0455 (its pd_up).
export FAKE_TIUP_REGIONS="--db rg --table t=100/2 --table p=p0:101,p1:102"

# run NAME: run suite NAME on the playground into $TRASH/NAME; TAP in
# NAME.tap (insert counts blanked), the fault's records in NAME.nemesis
# (times blanked); fails when the run did, or left a process or a
# playground's data behind.
run() {
	PATH=$WITH_TIUP "$TICHAOS" run "$TRASH/$1.yaml" --cluster playground \
		--out "$TRASH/$1" >"$TRASH/$1.tap" 2>"$TRASH/$1.err" ||
	{ cat "$TRASH/$1.err" "$TRASH/$1.tap"; return 1; }
	blank_run "$1" &&
	test -z "$(left "$TRASH/$1")" && test -z "$(left "$TIUP_HOME/data")" &&
	test -z "$(ls "$TIUP_HOME/data")"
}

suite leader <<EOF
  - kind: region
    op: transfer_leader
    tables: t
    at: [1s]
EOF

# Seed 7 draws region 6 of t (leader on store 3) and store 2 of its others,
# as on the static topology (t0455).
test_expect_success 'transfer_leader on the playground: the region drawn, moved, seen in PD' '
	run leader && injected_tap leader &&
	records leader ",\"target\":\"t\"" "\"op\":\"transfer_leader\",\"table\":\"t\",\"region\":6,\"before\":$(R 6 $T100_1000 $T101 5 3 3 1,2,3),\"from_store\":3,\"to_store\":2,\"after\":$(R 6 $T100_1000 $T101 5 3 2 1,2,3)"
'

suite split <<EOF
  - kind: region
    op: split
    tables: t
    at: [1s]
EOF

test_expect_success 'split on the playground: the split key and the new region read back' '
	run split && injected_tap split &&
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
	run merge && injected_tap merge &&
	records merge ",\"target\":\"p\"" "\"op\":\"merge\",\"table\":\"p\",\"partition\":\"p1\",\"region\":14,\"before\":$(R 14 $T102R $T103 5 7 1 1,2,3),\"source\":14,\"target\":16,\"target_before\":$(R 16 $T103 "" 5 8 2 1,2,3),\"after\":$(R 16 $T102R "" 5 9 2 1,2,3)"
'

suite scatter <<EOF
  - kind: region
    op: scatter
    at: [1s]
    timeout: 1s
EOF

test_expect_success 'scatter on the playground: the operator ended with SUCCESS, the peers moved' '
	run scatter && injected_tap scatter &&
	records scatter "" "\"op\":\"scatter\",\"table\":\"t\",\"region\":6,\"before\":$(R 6 $T100_1000 $T101 5 3 3 1,2,3),\"status\":\"SUCCESS\",\"after\":$(R 6 $T100_1000 $T101 7 3 3 4,2,3)"
'

test_done
