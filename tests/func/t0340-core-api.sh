#!/bin/sh
# A workload and a fault driven through the core API with no runner
# (tests/helpers/core-drive, linked without runner/; docs/internals.md,
# Layers): the suite loader fed only insert and kill, the plan, a worker
# over the worker API stopped by the run's token, the fault's inject and
# heal, on a real local cluster. The history and the servers must say
# exactly what happened.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

DRIVE="$ROOT/tests/helpers/core-drive"

{
	insert_suite core 30s 1 core 0
	cat <<EOF
faults:
  - kind: kill
    target: up-0
    at: [1s]
EOF
} >"$TRASH/core.yaml"

cat >"$TRASH/other.yaml" <<EOF
tables:
  - name: t
    columns: "id INT PRIMARY KEY"
workloads:
  - kind: dml
    tables: t
EOF

test_cluster_setup 'set up a cluster and the suite'"'"'s table' '
	sql "$UP" "CREATE DATABASE core" &&
	sql "$UP" "CREATE TABLE core.t (id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255))"
'

test_expect_success 'a kind the caller did not feed the core is unknown to it' '
	{ "$DRIVE" workload "$C" "$TRASH/other.yaml" "$TRASH/o.jsonl" 1 2>err; test $? = 1; } &&
	echo "core-drive: $TRASH/other.yaml:5:11: unknown workload kind '"'"'dml'"'"' (see '"'"'tichaos list'"'"')" >expect &&
	test_cmp expect err &&
	test ! -e "$TRASH/o.jsonl"
'

test_expect_success 'the insert workload: 50 inserts, then the token stops it' '
	"$DRIVE" workload "$C" "$TRASH/core.yaml" "$TRASH/w.jsonl" 50 >out 2>err ||
	{ cat err; false; } &&
	ok=$(sed -n "s/^ok=\([0-9]*\) fail=0 info=0$/\1/p" out) &&
	test "$ok" -ge 50 &&
	test "$(grep -c "\"type\":\"ok\",\"f\":\"insert\",\"table\":\"core.t\",\"node\":\"up-0\",\"id\":" "$TRASH/w.jsonl")" = "$ok" &&
	test "$(grep -c "\"type\":\"invoke\",\"f\":\"insert\"" "$TRASH/w.jsonl")" = "$ok" &&
	test "$(sql "$UP" "SELECT COUNT(*) FROM core.t")" = "$ok" &&
	grep "\"type\":\"ok\"" "$TRASH/w.jsonl" | sed -n "s/.*\"id\":\([0-9]*\)}$/\1/p" | sort -n >ids &&
	sql "$UP" "SELECT id FROM core.t ORDER BY id" >rows &&
	test_cmp rows ids
'

test_expect_success 'the kill fault: up-0 killed and restarted, each step in the history with its item' '
	old=$(cat "$C/up-0/tichaos.pid") &&
	"$DRIVE" fault "$C" "$TRASH/core.yaml" "$TRASH/f.jsonl" >out 2>err ||
	{ cat out err; false; } &&
	printf "%s\n" "injected ok 1" "healed ok" >expect &&
	test_cmp expect out &&
	new=$(cat "$C/up-0/tichaos.pid") &&
	test "$new" != "$old" &&
	! alive "$old" &&
	alive "$new" &&
	sed -e "s/^{\"time\":[0-9]*,//" -e "s/\"took_ms\":[0-9]*/\"took_ms\":N/" \
		-e "s/\"ready_ms\":[0-9]*/\"ready_ms\":N/" "$TRASH/f.jsonl" >got &&
	printf "%s\n" \
		"\"process\":\"nemesis\",\"type\":\"invoke\",\"f\":\"kill\",\"target\":\"up-0\",\"fault\":0}" \
		"\"process\":\"nemesis\",\"type\":\"info\",\"f\":\"kill\",\"target\":\"up-0\",\"value\":{\"signal\":\"KILL\",\"killed\":[{\"component\":\"up-0\",\"pid\":$old}],\"took_ms\":N},\"holds\":\"down\",\"fault\":0}" \
		"\"process\":\"nemesis\",\"type\":\"invoke\",\"f\":\"restart\",\"target\":\"up-0\",\"heal\":true,\"fault\":0}" \
		"\"process\":\"nemesis\",\"type\":\"info\",\"f\":\"restart\",\"target\":\"up-0\",\"value\":{\"restarted\":[{\"component\":\"up-0\",\"pid\":$new,\"ready_ms\":N}],\"took_ms\":N},\"heal\":true,\"fault\":0}" >expect &&
	test_cmp expect got &&
	test "$(sql "$UP" "SELECT COUNT(*) FROM core.t")" = "$ok"
'

test_done
