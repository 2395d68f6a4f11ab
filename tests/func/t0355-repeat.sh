#!/bin/sh
# tichaos run --repeat N and --until-fail (runner/repeat.c): one suite run
# again and again, each run by a tichaos of its own with a seed of its
# own (with --seed S: S, then splitmix64's outputs from S modulo 10^12);
# one TAP stream with a subtest per run, the plan and a summary at the
# end; the runs that did not pass kept whole, of those that passed only
# the last; --until-fail stops at the first run that does not pass,
# --budget starts none once spent, ^C stops the run going and the
# repeat; bad values are one line, exit 2.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

test_cluster_setup 'set up a cluster for the runs to attach to'

# The runs go to runs/ under the current directory.
cd "$TRASH" || exit 1

# seeds BASE N: the seeds of runs 1..N from BASE, computed here from the
# documented function (docs/suite-format.md, seed), not by tichaos.
seeds() {
	perl -MMath::BigInt -e '
		my ($base, $n) = @ARGV;
		my $m = Math::BigInt->new(2)->bpow(64);
		my $g = Math::BigInt->from_hex("9e3779b97f4a7c15");
		print "$base\n";
		for my $i (2 .. $n) {
			my $z = (Math::BigInt->new($base) + ($i - 1) * $g) % $m;
			$z = (($z ^ ($z >> 30)) * Math::BigInt->from_hex("bf58476d1ce4e5b9")) % $m;
			$z = (($z ^ ($z >> 27)) * Math::BigInt->from_hex("94d049bb133111eb")) % $m;
			$z = ($z ^ ($z >> 31)) % 1000000000000;
			print $z == 0 ? 1 : $z, "\n";
		}
	' "$1" "$2"
}

# top TAP: the top-level lines of a repeat's TAP stream, each run's
# duration and run directory's time stamp as N and STAMP.
top() {
	grep -v "^    " "$1" |
	sed -E -e "s/ \(exit ([0-9]), [0-9]+s\)$/ (exit \1, Ns)/" \
		-e "s|/[0-9]{8}-[0-9]{6}-s|/STAMP-s|"
}

# dirs SUITE: the run directories of SUITE left, by seed, and latest's.
dirs() {
	for d in runs/$1/2*; do
		echo "${d##*-s}"
	done
	echo "latest ${1}: $(readlink "runs/$1/latest" | sed "s/.*-s//")"
}

# events SEED: the events the flaky suite's plan holds for SEED, and of
# them those due in its first 1.5s, well before its end: "1/1".
events() {
	"$TICHAOS" run flaky.yaml --seed "$1" --dry-run |
	perl -MJSON::PP -e '
		my @e = @{decode_json(do { local $/; <STDIN> })->{events}};
		print scalar(@e), "/", scalar(grep { $_->{at_ns} < 1500000000 } @e), "\n";
	'
}

insert_suite r_pass 2s 0 rp 100 >pass.yaml
cat >>pass.yaml <<EOF
checks:
  - kind: consistency
    sync_timeout: 30s
EOF

# A tamper inserts a row downstream, so the check fails, when it is due
# before the end: at 1s plus a jitter up to 3s, in a 2s run, drawn from
# the seed; whether a seed's plan holds it, its dry run says.
insert_suite r_flaky 2s 0 rf 100 >flaky.yaml
cat >>flaky.yaml <<EOF
faults:
  - kind: tamper
    table: t
    insert: 1
    at: [1s]
    jitter: 3s
checks:
  - kind: consistency
    sync_timeout: 30s
EOF

test_expect_success '--dry-run --repeat lists the seeds of --seed S: S, then the series' '
	"$TICHAOS" run pass.yaml --repeat 4 --seed 7 --dry-run >out &&
	seeds 7 4 | awk "{ print \"iteration \" NR \": seed \" \$0 }" >expect &&
	test_cmp expect out &&
	sed -n 2p out | grep -qx "iteration 2: seed 600892374487"
'

test_expect_success 'a suite fixing its seed is the base of the series; --seed overrides it' '
	sed "s/^seed: 0$/seed: 7/" pass.yaml >fixed.yaml &&
	"$TICHAOS" run fixed.yaml --repeat 4 --dry-run >out &&
	test_cmp expect out &&
	"$TICHAOS" run fixed.yaml --repeat 2 --seed 8 --dry-run >out &&
	seeds 8 2 | awk "{ print \"iteration \" NR \": seed \" \$0 }" >expect &&
	test_cmp expect out
'

test_expect_success '--repeat 3 --seed 7: three runs with the series, one TAP stream, exit 0' '
	"$TICHAOS" run pass.yaml --repeat 3 --seed 7 --cluster "$T" --quiet >tap 2>err ||
	{ cat err; false; } &&
	set -- $(seeds 7 3) &&
	{
		echo "TAP version 13"
		i=0
		for s in "$@"; do
			i=$((i + 1))
			echo "# Subtest: r_pass seed $s"
			echo "ok $i - r_pass seed $s (exit 0, Ns)"
			echo "  # run directory: runs/r_pass/STAMP-s$s"
			test $i = 1 ||
			echo "  # run directory removed: runs/r_pass/STAMP-s$prev (a later run passed too)"
			prev=$s
		done
		echo "1..3"
		echo "# repeat: 3 runs, 0 failed; failing seeds: none"
	} >expect &&
	top tap >got && test_cmp expect got &&
	test "$(grep -c "^    ok 2 - consistency: 1 tables, [0-9]* rows equal on both sides" tap)" = 3 &&
	prove --exec cat tap >prove.out 2>&1 && grep -q "^Result: PASS" prove.out
'

test_expect_success 'of runs that all passed only the last directory is left, latest names it' '
	set -- $(seeds 7 3) &&
	printf "%s\n" "$3" "latest r_pass: $3" >expect &&
	dirs r_pass >got && test_cmp expect got &&
	grep -q "^suite r_pass, seed $3, duration 2s: pass$" runs/r_pass/latest/summary.txt
'

test_expect_success 'the JUnit file: a testsuite per run, named with its seed' '
	set -- $(seeds 7 3) &&
	perl -e "
		local \$/; my \$x = <STDIN>;
		my (\$top) = \$x =~ /(<testsuites [^>]*>)/ or die qq(no testsuites\n);
		\$top =~ /tests=\"6\" failures=\"0\" errors=\"0\" skipped=\"0\"/ or die qq(\$top\n);
		my @s = \$x =~ /<testsuite name=\"([^\"]+)\"/g;
		die qq(@s\n) unless join(q(,), @s) eq q(r_pass seed $1,r_pass seed $2,r_pass seed $3);
	" <runs/junit.xml
'

# The first base whose runs 1..3 draw no tamper, a tamper (not so late
# that the run could end before it), no tamper.
test_expect_success 'a base seed whose second run alone draws the tamper' '
	base= &&
	for b in $(seq 1 200); do
		set -- $(seeds $b 3) &&
		if test "$(events $1) $(events $2) $(events $3)" = "0/0 1/1 0/0"; then
			base=$b && break
		fi
	done &&
	test -n "$base" && echo "$base" >base
'

flaky_tap() {
	set -- $(seeds "$(cat base)" 3)
	echo "TAP version 13"
	echo "# Subtest: r_flaky seed $1"
	echo "ok 1 - r_flaky seed $1 (exit 0, Ns)"
	echo "  # run directory: runs/r_flaky/STAMP-s$1"
	echo "# Subtest: r_flaky seed $2"
	echo "not ok 2 - r_flaky seed $2 (exit 1, Ns)"
	echo "  # run directory: runs/r_flaky/STAMP-s$2"
}

test_expect_success '--repeat 3: pass, fail, pass: all three run, exit 1, the failing seed named' '
	"$TICHAOS" run flaky.yaml --repeat 3 --seed "$(cat base)" --cluster "$T" --quiet >tap 2>err
	test $? = 1 &&
	set -- $(seeds "$(cat base)" 3) &&
	{
		flaky_tap
		echo "# Subtest: r_flaky seed $3"
		echo "ok 3 - r_flaky seed $3 (exit 0, Ns)"
		echo "  # run directory: runs/r_flaky/STAMP-s$3"
		echo "  # run directory removed: runs/r_flaky/STAMP-s$1 (a later run passed too)"
		echo "1..3"
		echo "# repeat: 3 runs, 1 failed; failing seeds: $2"
	} >expect &&
	top tap >got && test_cmp expect got &&
	grep -qx "    not ok 3 - consistency" tap &&
	{ prove --exec cat tap >prove.out 2>&1; test $? != 0; } &&
	grep -q "^Result: FAIL" prove.out
'

test_expect_success 'the failing run and the last that passed are left; the first pass went' '
	set -- $(seeds "$(cat base)" 3) &&
	printf "%s\n" "$2" "$3" "latest r_flaky: $3" >expect &&
	dirs r_flaky >got && test_cmp expect got
'

test_expect_success '--until-fail stops at the failing run, exit 1; latest names it' '
	mkdir hunt && cp flaky.yaml hunt/ && cd hunt &&
	"$TICHAOS" run flaky.yaml --repeat 3 --until-fail --seed "$(cat ../base)" --cluster "$T" --quiet >tap 2>err
	rc=$? && cd .. && test $rc = 1 &&
	set -- $(seeds "$(cat base)" 3) &&
	{
		flaky_tap
		echo "1..2"
		echo "# repeat: 2 runs, 1 failed; failing seeds: $2"
		echo "# repeat: stopped: run 2 failed (--until-fail)"
	} >expect &&
	top hunt/tap >got && test_cmp expect got &&
	(cd hunt && dirs r_flaky) >got &&
	printf "%s\n" "$1" "$2" "latest r_flaky: $2" >expect &&
	test_cmp expect got
'

test_expect_success 'the failing run is whole: its history, results, reports and logs' '
	d=hunt/runs/r_flaky/latest &&
	for f in suite.yaml plan.json history.jsonl results.json report.tap junit.xml summary.txt report.html logs/tichaos.log; do
		test -s "$d/$f" || { echo "missing $f"; return 1; }
	done &&
	set -- $(seeds "$(cat base)" 3) &&
	grep -qx "suite r_flaky, seed $2, duration 2s: fail" "$d/summary.txt" &&
	test "$(grep -c "\"f\":\"tamper\"" "$d/history.jsonl")" = 2 &&
	grep -qx "not ok 3 - consistency" "$d/report.tap"
'

# On a local cluster of its own, a suite that always fails: --until-fail
# alone stops at its first run, which keeps its cluster's data as any
# failing run does, its cluster stopped. (timeout: --until-fail alone
# that did not stop would run on.)
test_expect_success '--until-fail alone, a local cluster: the first run fails, kept with its data' '
	mkdir local && cd local &&
	test_clusters="$test_clusters $TRASH/local/runs/*/2*/cluster" &&
	sed -e "/^    jitter:/d" -e "s/^name: r_flaky/name: r_fail/" ../flaky.yaml >fail.yaml &&
	timeout -s INT 300 "$TICHAOS" run fail.yaml --until-fail --seed 9 --port-base auto --quiet >tap 2>err
	rc=$? && cd .. && test $rc = 1 &&
	{
		echo "TAP version 13"
		echo "# Subtest: r_fail seed 9"
		echo "not ok 1 - r_fail seed 9 (exit 1, Ns)"
		echo "  # run directory: runs/r_fail/STAMP-s9"
		echo "1..1"
		echo "# repeat: 1 run, 1 failed; failing seeds: 9"
		echo "# repeat: stopped: run 1 failed (--until-fail)"
	} >expect &&
	top local/tap >got && test_cmp expect got &&
	d=local/runs/r_fail/latest &&
	grep -Eqx "cluster data: [0-9]+ MB in cluster/\*/data, kept: the run did not pass" "$d/summary.txt" &&
	for c in up-0 down-0 etcd-0; do
		test -d "$d/cluster/$c/data" || { echo "$c/data gone"; return 1; }
	done &&
	! pgrep -f "$TRASH/local/runs/" >/dev/null
'

test_expect_success '--until-fail --budget 1s: one run starts, none after it, exit 0' '
	mkdir budget && cp pass.yaml budget/ && cd budget &&
	"$TICHAOS" run pass.yaml --until-fail --budget 1s --cluster "$T" --quiet >tap 2>err
	rc=$? && cd .. && test $rc = 0 &&
	s=$(sed -n "s/^ok 1 - r_pass seed \([0-9]*\) .*/\1/p" budget/tap) &&
	test -n "$s" &&
	{
		echo "TAP version 13"
		echo "# Subtest: r_pass seed $s"
		echo "ok 1 - r_pass seed $s (exit 0, Ns)"
		echo "  # run directory: runs/r_pass/STAMP-s$s"
		echo "1..1"
		echo "# repeat: 1 run, 0 failed; failing seeds: none"
		echo "# repeat: stopped: the budget of 1s is spent"
	} >expect &&
	top budget/tap >got && test_cmp expect got &&
	test "$(ls -d budget/runs/r_pass/2*)" = "budget/runs/r_pass/$(readlink budget/runs/r_pass/latest)"
'

test_expect_success 'a suite skipped here ends --until-fail at once: every run would skip' '
	printf "name: r_skip\nduration: 2s\nrequires: [tidb]\ndatabase: d\ntables:\n  - name: t\n    columns: \"id INT PRIMARY KEY\"\nworkloads:\n  - kind: insert\n    tables: t\n" >skip.yaml &&
	timeout -s INT 120 "$TICHAOS" run skip.yaml --until-fail --seed 5 --cluster "$T" --quiet >tap 2>err ||
	{ cat err; false; } &&
	{
		echo "TAP version 13"
		echo "# Subtest: r_skip seed 5"
		echo "ok 1 - r_skip seed 5 # SKIP requires tidb"
		echo "  # run directory: runs/r_skip/STAMP-s5"
		echo "1..1"
		echo "# repeat: 1 run, 0 failed, 1 skipped; failing seeds: none"
		echo "# repeat: stopped: run 1 was skipped, and so would every run be"
	} >expect &&
	top tap >got && test_cmp expect got
'

# ^C reaches the repeat alone (its runs are in sessions of their own); it
# passes it on to the run going, which stops as a run does, and starts
# no other. The second run is interrupted once it drives (its history).
test_expect_success 'SIGINT in the second run: it is interrupted, no third starts, exit 4' '
	mkdir int && cp pass.yaml int/ && cd int &&
	: >tap && : >err &&
	{ "$TICHAOS" run pass.yaml --until-fail --seed 3 --duration 8s --cluster "$T" --quiet >tap 2>err & } &&
	pid=$! && test_track_pid $pid && cd .. &&
	set -- $(seeds 3 2) &&
	wait_for_condition 60 "grep -q \"^ok 1 - \" int/tap" &&
	wait_for_condition 60 "test -s int/runs/r_pass/latest/history.jsonl && readlink int/runs/r_pass/latest | grep -q -- -s$2\$" &&
	kill -INT $pid &&
	{ wait $pid; test $? = 4; } &&
	{
		echo "TAP version 13"
		echo "# Subtest: r_pass seed $1"
		echo "ok 1 - r_pass seed $1 (exit 0, Ns)"
		echo "  # run directory: runs/r_pass/STAMP-s$1"
		echo "# Subtest: r_pass seed $2"
		echo "not ok 2 - r_pass seed $2 (exit 4, Ns)"
		echo "  # run directory: runs/r_pass/STAMP-s$2"
		echo "1..2"
		echo "# repeat: 2 runs, 0 failed, 1 interrupted; failing seeds: none"
		echo "# repeat: stopped: interrupted"
	} >expect &&
	top int/tap | grep -v "^  # [^r]" >got && test_cmp expect got &&
	(cd int && dirs r_pass) >got &&
	printf "%s\n" "$1" "$2" "latest r_pass: $2" >expect && test_cmp expect got &&
	grep -q "^suite r_pass, seed $2, duration 8s: interrupted$" int/runs/r_pass/latest/summary.txt &&
	for p in $(pgrep -f "run pass.yaml"); do
		test "$(readlink "/proc/$p/cwd")" != "$(cd int && pwd -P)" || return 1
	done
'

test_expect_success 'bad values and combinations: exit 2, one line each' '
	while read -r args; do
		{ "$TICHAOS" run $args >out 2>err; test $? = 2; } &&
		test "$(wc -l <err)" = 1 && grep -q "^tichaos: run: " err &&
		test ! -s out ||
		{ echo "$args:"; cat err; return 1; }
	done <<-EOF &&
	pass.yaml --repeat 0
	pass.yaml --repeat x
	pass.yaml --repeat 100001
	pass.yaml --budget 1s
	pass.yaml --until-fail --budget 0s
	pass.yaml --until-fail --budget 5
	pass.yaml --repeat 2 -j 2
	pass.yaml --repeat 2 --shard 1/2
	pass.yaml fixed.yaml --repeat 2
	pass.yaml --repeat 2 --out x
	pass.yaml --until-fail --keep-cluster
	pass.yaml --repeat 2 --dry-run
	pass.yaml --until-fail --seed 3 --dry-run
	EOF
	"$TICHAOS" run pass.yaml --repeat 0 2>err
	echo "tichaos: run: --repeat: number '\''0'\'' is out of range (1..100000)" >expect &&
	test_cmp expect err &&
	"$TICHAOS" run pass.yaml --budget 1s 2>err
	echo "tichaos: run: --budget bounds --repeat or --until-fail" >expect &&
	test_cmp expect err &&
	"$TICHAOS" run pass.yaml fixed.yaml --repeat 2 2>err
	echo "tichaos: run: --repeat runs one suite, not -j, --shard or several suites" >expect &&
	test_cmp expect err &&
	"$TICHAOS" run pass.yaml --repeat 2 --dry-run 2>err
	echo "tichaos: run: --dry-run --repeat: the seeds are drawn as each run starts; --seed (or the suite'\''s seed:) fixes them" >expect &&
	test_cmp expect err
'

test_expect_success 'a suite that does not load: its error, one line, exit 2, no run' '
	printf "name: broken\nduration: 3s\nbogus: 1\n" >broken.yaml &&
	"$TICHAOS" run broken.yaml --repeat 2 >out 2>err
	test $? = 2 &&
	echo "tichaos: broken.yaml:3:1: unknown key '\''bogus'\'' in suite" >expect &&
	test_cmp expect err && test ! -s out && test ! -e runs/broken
'

test_done
