#!/bin/sh
# tichaos run over several suites (runner/batch.c): -j runs them side by
# side, each by a tichaos of its own on a cluster of its own; one TAP
# stream with a subtest per suite, one JUnit file with a testsuite per
# suite, the worst exit code; --shard I/N runs each suite of a list on
# exactly one of N machines.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

# The runs go to runs/ under the current directory. Their clusters are
# stopped at the end whatever happened: the pattern is expanded then.
cd "$TRASH" || exit 1
test_clusters="$TRASH/runs/*/2*/cluster"

# suite NAME [EXTRA]: a 3-second suite of inserts and the data check.
suite() {
	insert_suite "$1" 3s 0 "$1" 100
	cat <<EOF
checks:
  - kind: consistency
    sync_timeout: 30s
${2-}
EOF
}

for s in b_one b_two b_three; do
	suite $s >$s.yaml
done

# subtests TAP: each subtest's lines, unindented, into sub.NAME; the
# top-level lines into top.
subtests() {
	perl -e '
		my $name;
		open my $top, ">", "top" or die;
		while (<STDIN>) {
			if (/^# Subtest: (\S+)$/) {
				$name = $1;
				open SUB, ">", "sub.$name" or die;
				next;
			}
			if (defined $name && s/^    //) { print SUB $_; next }
			print $top $_;
		}
	' <"$1"
}

# tap_ok FILE: the TAP in FILE parses, its plan is kept, nothing failed.
tap_ok() {
	perl -MTAP::Parser -e '
		open my $f, "<", $ARGV[0] or die "$ARGV[0]: $!\n";
		my $p = TAP::Parser->new({ tap => do { local $/; <$f> } });
		1 while $p->next;
		die "$ARGV[0]: parse errors: @{[ $p->parse_errors ]}\n"
			if $p->parse_errors;
		die "$ARGV[0]: failed: @{[ $p->failed ]}\n" if $p->failed;
		print $p->tests_run, "\n";
	' "$1"
}

test_expect_success '-j 2 over three suites: one TAP stream, a subtest each' '
	"$TICHAOS" run -j 2 b_one.yaml b_two.yaml b_three.yaml --quiet --results-as-logs work >tap 2>err ||
	{ cat err; false; } &&
	test "$(head -n 2 tap)" = "$(printf "TAP version 13\n1..3")" &&
	subtests tap &&
	test "$(tap_ok top)" = 3 &&
	for s in b_one b_two b_three; do
		test "$(tap_ok sub.$s)" = 2 &&
		grep -Eqx "ok [123] - $s \(exit 0, [0-9]+s\)" top &&
		grep -Eqx "  # run directory: runs/$s/[0-9]{8}-[0-9]{6}-s[0-9]+" top &&
		grep -Eqx "ok 2 - consistency: 1 tables, [0-9]+ rows equal on both sides \(sync [0-9.]+s\)" sub.$s ||
		return 1
	done &&
	prove --exec cat tap >prove.out 2>&1 && grep -q "^Result: PASS" prove.out
'

test_expect_success 'the JUnit file: a testsuite per suite, the counts added up' '
	perl -e "
		local \$/; my \$x = <STDIN>;
		my (\$top) = \$x =~ /(<testsuites [^>]*>)/ or die qq(no testsuites\n);
		\$top =~ /tests=\"6\" failures=\"0\" errors=\"0\" skipped=\"0\"/ or die qq(\$top\n);
		my @s = sort \$x =~ /<testsuite name=\"([^\"]+)\"/g;
		die qq(@s\n) unless qq(@s) eq q(b_one b_three b_two);
		die qq(not one document\n) if (() = \$x =~ /<\?xml/g) != 1;
	" <runs/junit.xml
'

test_expect_success 'each ran on a cluster of its own, in a run directory of its own' '
	for s in b_one b_two b_three; do
		test "$(ls -d runs/$s/2* | wc -l)" = 1 &&
		grep -q "^suite $s, seed [0-9]*, duration 3s: pass$" runs/$s/latest/summary.txt ||
		return 1
	done &&
	ports=$(cat runs/b_*/2*/cluster/port-base | sort -u | wc -l) &&
	test "$ports" = 3
'

# TiCDC's Jenkins keeps only the *.log files of a test's work directory:
# with --results-as-logs each run's files are there, named so.
test_expect_success '--results-as-logs: every file of each run, and the JUnit file, as *.log' '
	test -z "$(find work -type f ! -name "*.log")" &&
	cmp runs/junit.xml work/tichaos-junit.xml.log &&
	for s in b_one b_two b_three; do
		run=$(ls -d runs/$s/2*) && to=work/tichaos-$s/${run##*/} &&
		for f in summary.txt junit.xml report.html results.json history.jsonl suite.yaml topology.yaml; do
			test -f "$run/$f" && cmp "$run/$f" "$to/$f.log" || return 1
		done &&
		cmp "$run/logs/tichaos.log" "$to/logs/tichaos.log" &&
		test "$(cd "$run" && find . -maxdepth 1 -type f ! -name ".*" | wc -l)" = \
			"$(find "$to" -maxdepth 1 -type f | wc -l)" &&
		test ! -e "$to/cluster" || return 1
	done
'

# A suite that cannot run, one that fails its check: the worst code wins,
# and each says why in its subtest and in the JUnit file.
test_expect_success 'a refused suite and a failing one: not ok, exit 2, said' '
	printf "name: broken\nduration: 3s\nbogus: 1\n" >broken.yaml &&
	suite b_fail "  - kind: logscan
    patterns: [\"ready for connections\"]
faults:
  - kind: kill
    target: cdc
    at: [1s]
    down: 1s" >b_fail.yaml &&
	{ "$TICHAOS" run -j 2 broken.yaml b_fail.yaml --quiet --junit jdir/j.xml >tap2 2>err2; test $? = 2; } &&
	subtests tap2 &&
	grep -Eqx "not ok [12] - broken \(exit 2, [0-9]+s\)" top &&
	grep -qx "  # tichaos: broken.yaml:3:1: unknown key .bogus. in suite" top &&
	grep -Eqx "not ok [12] - b_fail \(exit 1, [0-9]+s\)" top &&
	grep -qx "not ok 4 - logscan" sub.b_fail &&
	grep -q "<testsuite name=\"broken\" tests=\"1\" failures=\"0\" errors=\"1\"" jdir/j.xml &&
	grep -q "<error message=\"exit 2\">tichaos: broken.yaml:3:1: unknown key" jdir/j.xml &&
	grep -q "<testsuite name=\"b_fail\" tests=\"4\" failures=\"1\"" jdir/j.xml
'

# Suites that need TiDB are skipped on the local cluster at once: a quick
# way to run many. Over three shards each runs on exactly one.
test_expect_success '--shard I/3 over seven suites: each runs exactly once' '
	for i in 1 2 3 4 5 6 7; do
		printf "name: s%s\nduration: 3s\nrequires: [tidb]\ndatabase: d\ntables:\n  - name: t\n    columns: \"id INT PRIMARY KEY\"\nworkloads:\n  - kind: insert\n    tables: t\n" $i >s$i.yaml || return 1
	done &&
	: >all &&
	for k in 1 2 3; do
		"$TICHAOS" run --shard $k/3 s7.yaml s3.yaml s1.yaml s5.yaml s2.yaml s6.yaml s4.yaml >shard$k 2>err$k ||
		{ cat err$k; return 1; }
		grep -E "^ok [0-9]+ - s[0-9] # SKIP requires tidb$" shard$k | cut -d" " -f4 >>all || return 1
	done &&
	printf "%s\n" s1 s4 s7 >expect && grep -E "^ok [0-9]+ - s" shard1 | cut -d" " -f4 >got && test_cmp expect got &&
	printf "%s\n" s1 s2 s3 s4 s5 s6 s7 >expect && sort all >got && test_cmp expect got &&
	test "$(sed -n 2p shard2)" = "1..2" && test "$(sed -n 2p shard3)" = "1..2"
'


# A CI machine finds its share without running it: the same suites as
# the runs above, a path a line, nothing started or written.
test_expect_success '--shard I/3 --dry-run: the share listed, exit 0, no run' '
	{ ls -R runs 2>/dev/null; echo; } >before &&
	for k in 1 2 3; do
		"$TICHAOS" run --shard $k/3 --dry-run s7.yaml s3.yaml s1.yaml s5.yaml s2.yaml s6.yaml s4.yaml >list$k 2>err$k ||
		{ cat err$k; return 1; }
		test ! -s err$k || return 1
	done &&
	printf "%s\n" s1.yaml s4.yaml s7.yaml >expect && test_cmp expect list1 &&
	printf "%s\n" s2.yaml s5.yaml >expect && test_cmp expect list2 &&
	printf "%s\n" s3.yaml s6.yaml >expect && test_cmp expect list3 &&
	"$TICHAOS" run --shard 5/9 --dry-run s1.yaml s2.yaml >list4 &&
	test ! -s list4 &&
	"$TICHAOS" run -j 2 --dry-run s2.yaml s1.yaml >list5 &&
	printf "%s\n" s1.yaml s2.yaml >expect && test_cmp expect list5 &&
	{ ls -R runs 2>/dev/null; echo; } >after && test_cmp before after
'
# ^C reaches the batch alone (its children run in sessions of their own);
# it passes one SIGINT to each child, which stops its run as a run does.
test_expect_success 'SIGINT: every running suite interrupted once, exit 4, nothing left' '
	sed "s/duration: 3s/duration: 60s/" b_one.yaml | sed "s/b_one/i_one/g" >i_one.yaml &&
	sed "s/duration: 3s/duration: 60s/" b_two.yaml | sed "s/b_two/i_two/g" >i_two.yaml &&
	: >tap3 && : >err3 &&
	{ "$TICHAOS" run -j 2 i_one.yaml i_two.yaml --quiet >tap3 2>err3 & } &&
	batch=$! && test_pids="$test_pids $batch" &&
	wait_for_condition 60 "test -s runs/i_one/latest/history.jsonl && test -s runs/i_two/latest/history.jsonl" &&
	kill -INT "$batch" &&
	{ wait "$batch"; test $? = 4; } &&
	subtests tap3 &&
	grep -Eqx "not ok [12] - i_one \(exit 4, [0-9]+s\)" top &&
	grep -Eqx "not ok [12] - i_two \(exit 4, [0-9]+s\)" top &&
	for s in i_one i_two; do
		grep -q "^suite $s, seed [0-9]*, duration 1m: interrupted$" runs/$s/latest/summary.txt &&
		! grep -q "killing the cluster (SIGKILL)" runs/$s/latest/logs/tichaos.log ||
		return 1
	done &&
	! pgrep -f "$TRASH/runs/i_" >/dev/null &&
	for pid in $(pgrep -f "runs/i_"); do
		test "$(readlink "/proc/$pid/cwd")" != "$(pwd -P)" || return 1
	done
'

test_expect_success 'bad -j, --shard and their combinations (-j with one attached cluster too): exit 2, one line' '
	for args in "-j 0 s1.yaml" "-j x s1.yaml" "--shard 0/3 s1.yaml" "--shard 4/3 s1.yaml" \
		"--shard 1 s1.yaml" "-j 2 --port-base 25000 s1.yaml s2.yaml" \
		"-j 2 --out x s1.yaml" "--junit x.xml s1.yaml"; do
		{ "$TICHAOS" run $args >out 2>err; test $? = 2; } &&
		test "$(wc -l <err)" = 1 && grep -q "^tichaos: run: " err ||
		{ echo "$args:"; cat err; return 1; }
	done &&
	"$TICHAOS" run -j 2 --cluster "$TRASH/t.yaml" s1.yaml s2.yaml >out 2>err
	test $? = 2 &&
	echo "tichaos: run: -j 2 with --cluster $TRASH/t.yaml: the suites would run on that one cluster at once; -j 1 runs them on it one after another" >expect &&
	test_cmp expect err
'

test_done
