#!/bin/sh
# The shipped suites end to end on the local cluster (the CI gate):
# smoke, fail_over_ddl_mix cut to 60 s (two cycles), bank, append (its
# known failure on MariaDB declared and shown), and the autoid
# and region suites, which need TiDB and must be skipped here — never
# passed.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

# verdicts DIR: "kind verdict" per item of results.json, in TAP order.
verdicts() {
	perl -MJSON::PP -e '
		my $r = decode_json(do { local $/; <STDIN> });
		print "$_->{name} $_->{verdict}\n"
			for map { @{ $r->{$_} } } qw(workloads faults checks);
	' <"$1/results.json"
}

test_expect_success 'smoke passes: every workload, fault and check' '
	test_clusters="$test_clusters $TRASH/smoke/cluster" &&
	"$ROOT/tichaos" run "$ROOT/suites/smoke.yaml" --port-base auto \
		--out "$TRASH/smoke" >tap 2>err || { tail -5 err; false; }
	verdicts "$TRASH/smoke" >got &&
	printf "%s\n" "workload 1 insert pass" "fault 1 kill pass" \
		"consistency pass" "progress pass" "logscan pass" >expect &&
	test_cmp expect got &&
	test "$(grep -c "^ok " tap)" = 5 &&
	prove --exec "cat" "$TRASH/smoke/report.tap" >prove.out 2>&1 &&
	grep -q "^Result: PASS" prove.out
'

test_expect_success 'fail_over_ddl_mix at 60 s passes: two cycles of a graceful stop, every op' '
	test_clusters="$test_clusters $TRASH/fodm/cluster" &&
	"$ROOT/tichaos" run "$ROOT/suites/fail_over_ddl_mix.yaml" --duration 60s \
		--port-base auto --out "$TRASH/fodm" >tap 2>err || { tail -5 err; false; }
	verdicts "$TRASH/fodm" >got &&
	printf "%s\n" "workload 1 insert pass" "workload 2 table_ddl pass" \
		"workload 3 partition_ddl pass" "fault 1 kill pass" \
		"consistency pass" "progress pass" "logscan pass" >expect &&
	test_cmp expect got &&
	grep -qx "ok 4 - fault 1 kill: 2 of 2 injected, 2 healed" tap &&
	grep "\"type\":\"info\",\"f\":\"kill\"" "$TRASH/fodm/history.jsonl" |
		grep -c "\"signal\":\"TERM\",\"killed\":\[{\"component\":\"down-0\",\"pid\":[0-9]*,\"stop_ms\":[0-9]*,\"terms\":[0-9]*,\"escalated\":false}\]" >n &&
	echo 2 >expect && test_cmp expect n &&
	for op in drop_create truncate drop_add remove_repartition exchange reorganize; do
		grep -q "\"f\":\"$op\"" "$TRASH/fodm/history.jsonl" ||
		{ echo "$op never ran"; return 1; }
	done
'

test_expect_success 'bank passes: the total never changed through two kills of the replica' '
	test_clusters="$test_clusters $TRASH/bank/cluster" &&
	"$ROOT/tichaos" run "$ROOT/suites/bank.yaml" --port-base auto \
		--out "$TRASH/bank" >tap 2>err || { tail -5 err; false; }
	verdicts "$TRASH/bank" >got &&
	printf "%s\n" "workload 1 bank pass" "fault 1 kill pass" "bank pass" \
		"consistency pass" "progress pass" "logscan pass" >expect &&
	test_cmp expect got &&
	grep -qx "ok 2 - fault 1 kill: 2 of 2 injected, 2 healed" tap &&
	reads=$(grep -c "\"type\":\"ok\",\"f\":\"\(replica_\)\?read\"" "$TRASH/bank/history.jsonl") &&
	grep -q "\"type\":\"ok\",\"f\":\"replica_read\"" "$TRASH/bank/history.jsonl" &&
	transfers=$(grep -c "\"type\":\"ok\",\"f\":\"transfer\"" "$TRASH/bank/history.jsonl") &&
	grep -qx "ok 3 - bank: $reads reads saw the total 2000; $transfers ok transfers and 0 of 0 unknown ones applied fit the final balances, equal downstream (0 unresolved)" tap
'

test_expect_success 'append: its known failure on MariaDB shown as known, the lists equal downstream' '
	test_clusters="$test_clusters $TRASH/append/cluster" &&
	"$ROOT/tichaos" run "$ROOT/suites/append.yaml" --port-base auto \
		--out "$TRASH/append" >tap 2>err || { tail -5 err; false; }
	verdicts "$TRASH/append" >got &&
	printf "%s\n" "workload 1 append pass" "fault 1 kill pass" "append fail" \
		"progress pass" "logscan pass" >expect &&
	test_cmp expect got &&
	grep -qx "ok 2 - fault 1 kill: 2 of 2 injected, 2 healed" tap &&
	grep -qx "not ok 3 - append # TODO known failure: MariaDB'\''s REPEATABLE READ is not snapshot isolation: a transaction reads a key from its snapshot, then appends to the key'\''s newer row (docs/checkers.md, append)" tap &&
	grep -q "\"known\": \"MariaDB" "$TRASH/append/results.json" &&
	grep -q "\"downstream_differ\": 0," "$TRASH/append/results.json"
'

test_expect_success 'autoid_leader_switch is skipped on the local cluster, not passed' '
	"$ROOT/tichaos" run "$ROOT/suites/autoid_leader_switch.yaml" --port-base auto \
		--out "$TRASH/autoid" >tap 2>err &&
	test "$(cat tap)" = "$(printf "TAP version 13\n1..0 # SKIP requires tidb")" &&
	test ! -e "$TRASH/autoid/cluster/up-0/data"
'

test_expect_success 'cdc_regions (region faults, TiKV and PD) is skipped on the local cluster' '
	"$ROOT/tichaos" run "$ROOT/suites/cdc_regions.yaml" --port-base auto \
		--out "$TRASH/regions" >tap 2>err &&
	test "$(cat tap)" = "$(printf "TAP version 13\n1..0 # SKIP requires tidb")" &&
	test ! -e "$TRASH/regions/cluster/up-0/data"
'

test_expect_success 'prove runs a suite as a test file: the skip is a skip' '
	prove --exec "$ROOT/tichaos run --port-base auto --quiet" \
		"$ROOT/suites/autoid_leader_switch.yaml" >prove.out 2>&1 &&
	grep -q "autoid_leader_switch.yaml \.* skipped: requires tidb$" prove.out
'

test_done
