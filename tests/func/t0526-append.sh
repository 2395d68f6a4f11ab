#!/bin/sh
# The append workload and check (Elle's list-append; docs/checkers.md,
# append) on the local cluster's real MariaDB 10.11: its REPEATABLE READ
# lets a transaction read a key from its snapshot and then append to the
# key's newer version (an UPDATE reads the latest row), which snapshot
# isolation forbids (first committer wins): G-single cycles, found and
# explained, while the same history passes as read committed. With every
# read locking (for_update), InnoDB's locks serialize the transactions:
# no anomaly even as serializable. `tichaos check` judges the stored
# history the same again; a history it cannot read is said with its line.
# checkers/elle.c's cases of each anomaly, planted: tests/unit/t-elle.c.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

test_cluster_setup 'set up a cluster to attach to'

# suite NAME FOR_UPDATE CHECKS...: 8 s of the append workload over three
# tables, and an append check of each model named.
suite() {
	test_n_=$1 && test_fu_=$2 && shift 2 &&
	{
		cat <<-END
		name: $test_n_
		duration: 8s
		seed: 3
		database: $test_n_
		tables:
		  - name: a_{1..3}
		    columns: "id INT PRIMARY KEY, v TEXT"
		workloads:
		  - kind: append
		    tables: a_{1..3}
		    keys: 6
		    threads: 4
		    for_update: $test_fu_
		checks:
		END
		for test_m_ in "$@"; do
			printf "  - kind: append\n    model: %s\n" "$test_m_"
		done
	} >"$TRASH/$test_n_.yaml"
}

suite rr false snapshot-isolation read-committed

test_expect_success 'MariaDB REPEATABLE READ: G-single, forbidden under snapshot isolation, allowed under read committed' '
	{ "$TICHAOS" run "$TRASH/rr.yaml" --cluster "$T" --out "$TRASH/rr" >tap 2>err; test $? = 1; } ||
	{ cat tap err; false; } &&
	ok=$(sed -n "s/^ok 1 - workload 1 append: \([0-9]*\) ok, 0 fail, 0 info\(, [0-9]* refused\)\{0,1\}\$/\1/p" tap) &&
	test -n "$ok" &&
	grep -qx "not ok 2 - append" tap &&
	grep -Eqx "  message: \"G-single [0-9]+, which snapshot-isolation forbids; first G-single: T\(line [0-9]+, process [0-3]\) -\(rw key [0-9]+: read without [0-9]+\)-> .*-> T\(line [0-9]+, process [0-3]\)\"" tap &&
	grep -Eqx "ok 3 - append: $ok ok, [0-9]+ failed, 0 unknown transactions over [0-9]+ keys: no anomaly read-committed forbids \(allowed: G-single [0-9]+(, G2-item [0-9]+)?\)" tap &&
	grep -q "\"f\":\"txn\",.*\"value\":{\"txn\":\[\[\"append\",[1-6],[0-9]*\]" "$TRASH/rr/history.jsonl" &&
	grep -q "\"type\":\"ok\",\"f\":\"txn\",.*\[\"r\",[1-6],\[[0-9,]*\]\]" "$TRASH/rr/history.jsonl"
'

test_expect_success 'report.html draws the first forbidden cycle, its steps in results.json' '
	n=$(sed -n "s/.*\"cycle_length\": \([0-9]*\),.*/\1/p" "$TRASH/rr/results.json" | head -n 1) &&
	test -n "$n" &&
	grep -q "<h4>G-single: the first cycle, $n transactions (ww blue, wr green, rw red)</h4>" "$TRASH/rr/report.html" &&
	test "$(grep -c "class=\"ellecycle\"" "$TRASH/rr/report.html")" = 1 &&
	test "$(grep -c "marker-end=\"url(#elle-arrow)\"" "$TRASH/rr/report.html")" = "$n" &&
	grep -q "\"edge\": \"rw\"" "$TRASH/rr/results.json"
'

test_expect_success 'tichaos check: the stored history judged the same' '
	grep "^not ok 2 - \|^ok 3 - \|^  message: \"G-single" tap |
		sed -e "s/^\(not \)\{0,1\}ok [0-9]* /\1ok N /" >expect &&
	test "$(wc -l <expect)" = 3 &&
	{ "$TICHAOS" check "$TRASH/rr" >tap2 2>err2; test $? = 1; } &&
	grep "^not ok 1 - \|^ok 2 - \|^  message: \"G-single" tap2 |
		sed -e "s/^\(not \)\{0,1\}ok [0-9]* /\1ok N /" >actual &&
	test_cmp expect actual
'

suite locked true serializable

test_expect_success 'every read locking: InnoDB serializes them, no anomaly as serializable' '
	"$TICHAOS" run "$TRASH/locked.yaml" --cluster "$T" --out "$TRASH/locked" >tap 2>err ||
	{ cat tap err; false; } &&
	grep -Eqx "ok 2 - append: [0-9]+ ok, [0-9]+ failed, 0 unknown transactions over [0-9]+ keys: no anomaly serializable forbids" tap
'

test_expect_success 'the lists at the end: read upstream as a last transaction, equal downstream' '
	grep -q "\"downstream_differ\": 0," "$TRASH/locked/results.json" &&
	grep -Eq "\"barrier_ms\": [0-9]+," "$TRASH/locked/results.json"
'

test_expect_success 'a list the downstream lost an element of: the key, both lists, failed' '
	sql "$DOWN" "SET SESSION sql_log_bin = 0; UPDATE locked.a_1 SET v = SUBSTRING_INDEX(v, \",\", 1) WHERE id = 1" &&
	up=$(sql "$UP" "SELECT v FROM locked.a_1 WHERE id = 1") &&
	first=${up%%,*} &&
	{ "$TICHAOS" check "$TRASH/locked" >tap4 2>err4; test $? = 1; } &&
	grep -qx "not ok 1 - append" tap4 &&
	grep -Eqx "  message: \"1 of [0-9]+ keys differ downstream; first: key 1: downstream \[$first\], upstream \[$first [0-9 .]+\]; the history: [0-9]+ ok, [0-9]+ failed, 0 unknown transactions over [0-9]+ keys: no anomaly serializable forbids\"" tap4 &&
	sql "$DOWN" "SET SESSION sql_log_bin = 0; UPDATE locked.a_1 SET v = \"$up\" WHERE id = 1"
'

test_expect_success 'a history whose transaction is unreadable: its line, verdict unknown, exit 3' '
	cp -R "$TRASH/locked" "$TRASH/bad" &&
	n=$(grep -n "\"type\":\"invoke\",\"f\":\"txn\"" "$TRASH/bad/history.jsonl" | sed -n "5s/:.*//p") &&
	sed -i -e "${n}s/\"txn\":\[/\"txn\":[[\"swap\",1,2],/" "$TRASH/bad/history.jsonl" &&
	rm -f "$TRASH/bad/results.json" &&
	{ "$TICHAOS" check "$TRASH/bad" >tap3 2>err3; test $? = 3; } &&
	grep -qx "not ok 1 - append" tap3 &&
	grep -qx "  verdict: unknown" tap3 &&
	grep -qFx "  message: \"history.jsonl:$n: a txn whose value is no list of [\\\"append\\\", KEY, VALUE] and [\\\"r\\\", KEY, LIST] operations\"" tap3
'

test_done
