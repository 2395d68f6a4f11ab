#!/bin/sh
# tichaos run: a 10-second run of every table and partition DDL op with
# inserts on the local cluster; the run directory, the plan and the history
# must tell exactly what happened, and agree with the database.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

SUITE="$DATA/suites/ddl-mix.yaml"
R="$TRASH/run"
summary() { cat "$TRASH/summary"; }
count() { summary | awk -v k="$1 $2 $3" '$1" "$2" "$3 == k { print $4 }'; }
total() { summary | awk -v f="$1" -v t="$2" '$1 == f && $2 == t { n += $4 } END { print n + 0 }'; }

test_expect_success 'the run passes and writes TAP for every workload' '
	test_clusters="$test_clusters $R/cluster" &&
	"$TICHAOS" run "$SUITE" --port-base auto --out "$R" --keep-cluster >tap 2>err ||
	{ cat err; false; } &&
	test "$(head -n 2 tap)" = "$(printf "TAP version 13\n1..3")" &&
	grep -Eq "^ok 1 - workload 1 insert: [0-9]+ ok, [0-9]+ fail, 0 info(, errors ignored)?$" tap &&
	grep -Eq "^ok 2 - workload 2 table_ddl: [0-9]+ ok, 0 fail, 0 info, [0-9]+ skipped \(RECOVER TABLE needs TiDB\)$" tap &&
	grep -Eq "^ok 3 - workload 3 partition_ddl: [0-9]+ ok, [0-9]+ fail, 0 info(, errors ignored)?$" tap &&
	test_cmp tap "$R/report.tap"
'

# The last status line, written once the workers stopped: later than the
# duration when a DDL under way takes a while to return (a loaded
# machine), and its lag "?" when the replica has none to tell at that
# moment (Seconds_Behind_Master NULL while its IO thread reconnects). One
# or the other failed it with a real cluster loading the machine beside.
test_expect_success 'the run directory holds the contract files' '
	for f in suite.yaml topology.yaml plan.json history.jsonl report.tap logs/tichaos.log; do
		test -s "$R/$f" || { echo "missing $f"; return 1; }
	done &&
	grep -q "seed 12, duration 10s" "$R/logs/tichaos.log" &&
	grep -Eq "info  ddl-mix 1[0-9]s/10s  [0-9]+ ops/s  errors [0-9]+  faults 0 active  lag down-0 ([0-9]+s|\?)$" "$R/logs/tichaos.log"
'

test_expect_success 'suite.yaml is the suite as run: it reproduces plan.json byte for byte' '
	"$TICHAOS" validate "$R/suite.yaml" &&
	grep -qx "seed: 12" "$R/suite.yaml" &&
	"$TICHAOS" run "$R/suite.yaml" --dry-run >replayed.json &&
	test_cmp "$R/plan.json" replayed.json
'

test_expect_success 'the history is well formed: every invoke completed once' '
	perl "$TEST_DIR/history-summary.pl" "$R/history.jsonl" >"$TRASH/summary"
'

# ran_plan WORKLOAD: the DDL worker of workload WORKLOAD (0-based, as in
# plan.json) invoked its planned ops in their order, op and table, and
# none that was not planned: the history's sequence is the plan's, or its
# start when the run ended before the worker caught up with a schedule its
# ops outlasted (each may take longer than `every`).
ran_plan() {
	perl -MJSON::PP -e "
		my (\$w, \$plan, \$hist, \$res) = @ARGV;
		local \$/; open my \$f, q(<), \$plan or die;
		my @want = map { qq(\$_->{op} mix.\$_->{table}) }
			grep { defined \$_->{workload} && \$_->{workload} == \$w }
			@{decode_json(<\$f>)->{events}};
		open \$f, q(<), \$res or die;
		my \$proc = decode_json(<\$f>)->{workloads}[\$w]{processes}[0];
		open \$f, q(<), \$hist or die; local \$/ = qq(\\n);
		my @got = map { qq(\$_->{f} \$_->{table}) }
			grep { \$_->{process} eq \$proc && \$_->{type} eq q(invoke) }
			map { decode_json(\$_) } <\$f>;
		die qq(nothing invoked\\n) unless @got;
		die qq(more invoked than planned\\n) if @got > @want;
		for my \$i (0 .. \$#got) {
			die qq(op \$i: planned \$want[\$i], invoked \$got[\$i]\\n)
				if \$got[\$i] ne \$want[\$i];
		}
		print scalar(@got), qq( of ), scalar(@want), qq(\\n);
	" "$1" "$R/plan.json" "$R/history.jsonl" "$R/results.json"
}

test_expect_success 'each DDL worker ran its plan in order, nothing else' '
	ran_plan 1 && ran_plan 2
'

test_expect_success 'every DDL op succeeded at least once (exchange may fail)' '
	for op in drop_create truncate drop_add remove_repartition reorganize; do
		test "$(total "$op" ok)" -gt 0 || { echo "$op never ok"; return 1; }
	done
'

test_expect_success 'drop_recover is skipped on MariaDB, with the reason, never run' '
	test "$(total drop_recover fail)" = "$(total drop_recover invoke)" &&
	grep "\"f\":\"drop_recover\"" "$R/history.jsonl" | grep "\"type\":\"fail\"" >skips &&
	! grep -v "\"error\":\"skipped: RECOVER TABLE needs TiDB\"" skips
'

test_expect_success 'exchange fails as expected: rows outside the partition' '
	test "$(total exchange fail)" -gt 0 &&
	grep "\"f\":\"exchange\"" "$R/history.jsonl" | grep -q "does not match the partition"
'

UP=$(port_of "$R/cluster" up-0)
DOWN=$(port_of "$R/cluster" down-0)

test_expect_success 'insert-only tables: ok inserts = rows upstream, ids exactly' '
	for t in plain_1 plain_2; do
		ok=$(count insert ok "mix.$t") &&
		rows=$(sql "$UP" "select count(*) from mix.$t") &&
		test "$ok" -gt 100 && test "$ok" = "$rows" ||
		{ echo "$t: $ok ok inserts, $rows rows"; return 1; }
		IDS_OF="mix.$t" IDS_OUT=hist.ids perl "$TEST_DIR/history-summary.pl" "$R/history.jsonl" >/dev/null &&
		sql "$UP" "select id from mix.$t order by id" >db.ids &&
		test_cmp hist.ids db.ids || return 1
	done
'

test_expect_success 'the TAP counts equal the history counts' '
	ok=$(total insert ok) &&
	grep -q "^ok 1 - workload 1 insert: $ok ok," tap
'

test_expect_success 'the downstream caught up with the insert-only tables' '
	for t in plain_1 plain_2; do
		want=$(sql "$UP" "select count(*), sum(id) from mix.$t") &&
		wait_for_condition 30 "test \"\$(sql $DOWN \"select count(*), sum(id) from mix.$t\")\" = \"$want\"" || return 1
	done
'

test_expect_success '--keep-cluster left it running, its data kept and said' '
	grep -Eqx "cluster data: [0-9]+ MB in cluster/\*/data, kept: the cluster keeps running" "$R/summary.txt" &&
	grep -Eqx " \"cluster_data\": \"[0-9]+ MB in cluster/\\*/data, kept: the cluster keeps running\"" "$R/results.json"
'

test_expect_success '--keep-cluster left it running; cluster down stops it' '
	"$TICHAOS" cluster status --dir "$R/cluster" >/dev/null &&
	"$TICHAOS" cluster down --dir "$R/cluster" &&
	"$TICHAOS" cluster status --dir "$R/cluster" >/dev/null; test $? = 3
'

test_expect_success 'without --keep-cluster nothing is left running' '
	"$TICHAOS" run "$SUITE" --port-base auto --out "$TRASH/run2" --duration 2s >tap2 2>err2 &&
	test_clusters="$test_clusters $TRASH/run2/cluster" &&
	for p in "$TRASH"/run2/cluster/*/tichaos.pid; do
		test ! -e "$p" || { echo "$p left"; return 1; }
	done &&
	! pgrep -f "$TRASH/run2/" >/dev/null
'

# A run that passed leaves its logs, configuration and reports, not its
# data (135 MB for a short run); it says how much went, and where.
test_expect_success 'a run that passed removes its cluster data, keeps the logs' '
	grep -Eqx "cluster data: [0-9]+ MB in cluster/\*/data, removed: the run passed \(--keep-data keeps it\)" "$TRASH/run2/summary.txt" &&
	grep -Eq "^cluster data: [0-9]+ MB in cluster/\*/data, removed" err2 &&
	for c in up-0 down-0 etcd-0; do
		test ! -e "$TRASH/run2/cluster/$c/data" || { echo "$c/data left"; return 1; }
	done &&
	test -s "$TRASH/run2/cluster/up-0/mariadbd.log" &&
	test -s "$TRASH/run2/cluster/down-0/my.cnf" &&
	test -s "$TRASH/run2/logs/tichaos.log" && test -s "$TRASH/run2/history.jsonl"
'

test_expect_success '--keep-data: a run that passed keeps them' '
	"$TICHAOS" run "$SUITE" --port-base auto --out "$TRASH/run4" --duration 2s --keep-data >tap4 2>err4 &&
	test_clusters="$test_clusters $TRASH/run4/cluster" &&
	grep -Eqx "cluster data: [0-9]+ MB in cluster/\*/data, kept: --keep-data" "$TRASH/run4/summary.txt" &&
	for c in up-0 down-0 etcd-0; do
		test -d "$TRASH/run4/cluster/$c/data" || return 1
	done
'

# On a terminal the progress is a bar drawn in place, and a log line
# never shares a line with it: the bar is cleared first, drawn after.
test_expect_success 'on a terminal: a progress bar, log lines on lines of their own' '
	{
		insert_suite tty 4s 0 tty 200 &&
		printf "faults:\n  - kind: kill\n    target: cdc\n    at: [1500ms]\n    down: 1s\n"
	} >tty.yaml &&
	script -qec "\"$TICHAOS\" run tty.yaml --port-base auto --out \"$TRASH/run5\"" /dev/null >tty.out 2>&1 &&
	test_clusters="$test_clusters $TRASH/run5/cluster" &&
	grep -Eq "tty \[#*\.*\] [123]s/4s  [0-9]+ ops/s  errors [0-9]+  faults [01] active  lag down-0" tty.out &&
	# a fault logged while the bar was shown: cleared, then drawn again
	grep -q "$(printf "\033\\[K\r\033\\[K")[0-9:.]* info  fault kill cdc" tty.out &&
	perl -e "
		local \$/; my \$t = <STDIN>; my (\$n, \$bad) = (0, 0);
		while (\$t =~ /(.{0,4})\d\d:\d\d:\d\d\.\d{3} (?:info|warn|error) /sg) {
			\$n++;
			\$bad++ unless \$1 =~ /(?:^|\n|\r\e\[K)\z/;
		}
		die qq(\$bad of \$n log lines after other text\n) if \$bad || \$n < 5;
	" <tty.out
'

# plan EVENTS-FILE: the plan's events, one per line, from its events:.
events() {
	sed -n "/\"events\": \[/,\$p" "$1" | grep "\"at_ns\""
}

test_expect_success '--duration changes how many cycles fit, never their times' '
	"$TICHAOS" run "$SUITE" --dry-run --duration 20s >p20 &&
	"$TICHAOS" run "$SUITE" --dry-run --duration 5s >p5 &&
	events "$R/plan.json" | sed -e "s/,\$//" >e10 &&
	events p20 | sed -e "s/,\$//" >e20 &&
	events p5 | sed -e "s/,\$//" >e5 &&
	test "$(wc -l <e20)" -gt "$(wc -l <e10)" &&
	head -n "$(wc -l <e10)" e20 >first && test_cmp e10 first &&
	! grep -Eq "\"at_ns\": (1[0-9]|[2-9][0-9])[0-9]{9}," first &&
	head -n "$(wc -l <e5)" e10 >first && test_cmp e5 first &&
	! grep -Eq "\"at_ns\": ([5-9]|[1-9][0-9])[0-9]{9}," e5
'

test_expect_success 'another seed gives another plan; no seed gives a fresh one' '
	"$TICHAOS" run "$SUITE" --dry-run --seed 13 >p13 &&
	! cmp -s p13 "$R/plan.json" &&
	sed -e "/^seed:/d" "$SUITE" >noseed.yaml &&
	"$TICHAOS" run noseed.yaml --dry-run >pa &&
	"$TICHAOS" run noseed.yaml --dry-run >pb &&
	! cmp -s pa pb &&
	grep -Eq "\"seed\": [1-9][0-9]*," pa
'

test_expect_success 'a suite that requires tidb is skipped on the local cluster' '
	sed -e "s/^seed: 12$/seed: 12\nrequires: [tidb]/" "$SUITE" >tidb.yaml &&
	"$TICHAOS" run tidb.yaml --port-base auto --out "$TRASH/run3" >tap3 2>err3 &&
	test "$(cat tap3)" = "$(printf "TAP version 13\n1..0 # SKIP requires tidb")" &&
	test ! -e "$TRASH/run3/cluster/up-0/tichaos.pid"
'

test_expect_success 'an existing --out directory is refused' '
	"$TICHAOS" run "$SUITE" --out "$R" 2>err4; test $? = 2 &&
	echo "tichaos: run directory '\''$R'\'' already exists" >expect &&
	test_cmp expect err4
'

test_done
