#!/bin/sh
# What a run leaves in runs/ when it does not go as planned (docs/results.md):
# runs/SUITE/latest moves to a run once it is under way, so a refused run
# (exit 2) or one whose start failed (exit 3) leaves it where it was; a
# replay of runs/SUITE/latest records the directory it replayed, not the
# link; a run that stopped before its report still writes results.json,
# summary.txt, junit.xml and report.tap with its verdict and why, which
# runs/index.html lists and --results-as-logs copies as *.log files.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

test_cluster_setup 'set up a cluster to attach to'

insert_suite rec 2s 4 recdb 50 >"$TRASH/rec.yaml"
{
	insert_suite rec 2s 4 recdb 50
	printf "faults:\n  - kind: kill\n    target: down-9\n    at: [1s]\n"
} >"$TRASH/typo.yaml"
printf "components:\n  - name: ghost\n    roles: [upstream]\n    sql: \"127.0.0.1:1\"\n    start: [sh, -c, \"echo no store here; exit 1\"]\n    pidfile: ghost.pid\n    log: ghost.log\n" \
	>"$TRASH/ghost.yaml"

# latest: where runs/rec/latest points.
latest() {
	readlink runs/rec/latest
}

test_expect_success 'a run under way: runs/rec/latest names it' '
	"$TICHAOS" run rec.yaml --cluster "$T" --quiet >tap 2>err &&
	test "$(ls runs/rec | grep -c "^2")" = 1 &&
	first=$(ls runs/rec | grep "^2") &&
	test "$(latest)" = "$first"
'

test_expect_success 'replay of runs/rec/latest: replay_of names the directory replayed, latest the replay' '
	"$TICHAOS" replay runs/rec/latest --cluster "$T" --quiet >tap 2>err &&
	test "$(latest)" != "$first" &&
	second=$(latest) &&
	echo "runs/rec/$first" >expect &&
	perl -MJSON::PP -e "print decode_json(do { local \$/; <STDIN> })->{replay_of}, qq(\n)" \
		<"runs/rec/$second/results.json" >got &&
	test_cmp expect got
'

test_expect_success 'a refused run (exit 2): no directory, latest where it was' '
	"$TICHAOS" run typo.yaml --cluster "$T" --quiet >tap 2>err; test $? = 2 &&
	grep -q "^tichaos: typo.yaml:[0-9]*:[0-9]*: .*down-9" err &&
	test "$(ls runs/rec | grep -c "^2")" = 2 &&
	test "$(latest)" = "$second"
'

test_expect_success 'a start that failed (exit 3): its directory says why in every report; latest where it was' '
	"$TICHAOS" run rec.yaml --cluster ghost.yaml --quiet --results-as-logs ci >tap 2>err; test $? = 3 &&
	why="ghost exited while starting; last log line: no store here" &&
	echo "tichaos: $why" >expect && test_cmp expect err &&
	test "$(latest)" = "$second" &&
	third=$(ls runs/rec | grep "^2" | grep -v -e "^$first\$" -e "^$second\$") &&
	R=runs/rec/$third &&
	echo "error|$why" >expect &&
	perl -MJSON::PP -e "my \$r = decode_json(do { local \$/; <STDIN> }); print qq(\$r->{verdict}|\$r->{aborted}\n)" \
		<"$R/results.json" >got &&
	test_cmp expect got &&
	printf "%s\n" "TAP version 13" "1..1" \
		"ok 1 - workload 1 insert: 0 ok, 0 fail, 0 info # SKIP the run stopped before its workloads" \
		"Bail out! aborted: $why; what was recorded is in $R" >expect &&
	test_cmp expect tap &&
	test_cmp tap "$R/report.tap" &&
	grep -qx "suite rec, seed 4, duration 2s: error" "$R/summary.txt" &&
	grep -qx "aborted: $why" "$R/summary.txt" &&
	grep -q "aborted: $why" "$R/junit.xml" &&
	grep -rlq "aborted: $why" ci/tichaos-rec/ &&
	find ci -type f ! -name "*.log" >not_logs && test ! -s not_logs
'

test_expect_success 'runs/index.html lists the run that errored' '
	"$TICHAOS" report --index runs >out 2>err &&
	grep -q "$third" runs/index.html &&
	grep -q ">error<" runs/index.html
'

test_done
