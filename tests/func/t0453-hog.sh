#!/bin/sh
# hog: busy processes beside a component for `down`, pinned to the CPUs
# it may run on, then killed (docs/faults.md). The history names each hog
# and says the component is "starved"; the report draws it so; ^C kills
# the hogs with the heal; a SIGKILLed run leaves them spinning, and the
# next run kills them and says so (the fault's sweep).
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd taskset

test_cluster_setup 'set up a cluster to attach to'

# suite NAME DURATION DOWN [WORKERS]: inserts for DURATION; down-0
# starved at 1 s for DOWN by WORKERS hogs (default: its CPUs').
suite() {
	{
		insert_suite "$1" "$2" 7 hog 50
		cat <<-END
		faults:
		  - kind: hog
		    target: downstream
		    at: [1s]
		    down: $3
		${4:+    workers: $4}
		checks:
		  - kind: consistency
		    sync_timeout: 60s
		END
	} >"$TRASH/$1.yaml"
}

# hogs RUN: the pids of the hogs of RUN's first injection, one a line.
hogs() {
	nemesis_value "$TRASH/$1/history.jsonl" hog |
	sed -n 's/.*"hogs":\[\([0-9,]*\)\].*/\1/p' | tr , '\n'
}

# hogging NAME SIGNAL: run suite NAME (20 s, down-0 starved from 1 s for
# 15 s by one hog) in the background; once its hog spins, send the run
# SIGNAL and wait for it: its exit code in $code, its hog's pid in $h.
hogging() {
	suite "$1" 20s 15s 1 &&
	"$TICHAOS" run "$1.yaml" --cluster "$T" --out "$TRASH/$1" >tap 2>err &
	run=$! &&
	test_track_pid $run &&
	wait_for_condition 120 "nemesis_value $TRASH/$1/history.jsonl hog | grep -q hogs" &&
	h=$(hogs "$1") &&
	test_track_pid $h &&
	alive $h &&
	kill -"$2" $run &&
	{ wait $run; code=$?; }
}

# cpus PID: the CPUs PID may run on, as taskset lists them.
cpus() {
	taskset -pc "$1" | sed -e 's/.*: //'
}

# ncpus PID: how many CPUs PID may run on.
ncpus() {
	sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" "/proc/$1/status" |
	tr , '\n' | awk -F- '{ n += NF == 2 ? $2 - $1 + 1 : 1 } END { print n }'
}

# utime PID: the clock ticks PID ran in user mode.
utime() {
	sed -e 's/.*) //' "/proc/$1/stat" | cut -d" " -f12
}

test_expect_success 'two workers beside down-0: named, pinned to its CPUs, spinning, then gone' '
	suite two 6s 3s 2 &&
	"$TICHAOS" run two.yaml --cluster "$T" --out "$TRASH/two" >tap 2>err &
	run=$! &&
	test_track_pid $run &&
	wait_for_condition 120 "nemesis_value $TRASH/two/history.jsonl hog | grep -q hogs" &&
	target=$(nemesis_value "$TRASH/two/history.jsonl" hog |
		 sed -n "s/.*\"component\":\"down-0\",\"pid\":\([0-9]*\).*/\1/p") &&
	alive $target &&
	hogs two >h &&
	test "$(wc -l <h)" = 2 &&
	for h in $(cat h); do
		alive $h &&
		test "$(cpus $h)" = "$(cpus $target)" &&
		test -f "$TICHAOS_STATE_DIR"/hogs/$h &&
		wait_for_condition 10 "test \$(utime $h) -gt 0" || return 1
	done &&
	wait $run &&
	for h in $(cat h); do
		! alive $h && test ! -e "$TICHAOS_STATE_DIR"/hogs/$h || return 1
	done &&
	grep -q "\"type\":\"info\",\"f\":\"hog\",.*\"holds\":\"starved\"" two/history.jsonl &&
	grep "\"f\":\"relieve\"" two/history.jsonl >heal &&
	test "$(grep -c "\"heal\":true" heal)" = 2 &&
	grep -Eq "\"stopped\":\[\{\"component\":\"down-0\",\"hogs\":2,\"cpu_ms\":[0-9]+\}\]" heal
'

test_expect_success 'workers 0: one hog for every CPU down-0 may run on' '
	suite all 4s 1s &&
	"$TICHAOS" run all.yaml --cluster "$T" --out "$TRASH/all" >tap 2>err &&
	target=$(nemesis_value "$TRASH/all/history.jsonl" hog |
		 sed -n "s/.*\"pid\":\([0-9]*\),\"hogs\".*/\1/p") &&
	test "$(hogs all | wc -l)" = "$(ncpus $target)" &&
	for h in $(hogs all); do ! alive $h || return 1; done
'

test_expect_success 'report.html draws down-0 starved of CPU' '
	grep -q "class=\"[a-z ]*s-starved\"" two/report.html &&
	grep -q "CPU-starved" two/report.html &&
	grep -q "starved of CPU" two/report.html
'

test_expect_success '^C while the hogs spin: the heal kills them, recorded, exit 4' '
	hogging int INT &&
	test "$code" = 4 &&
	! alive $h &&
	test ! -e "$TICHAOS_STATE_DIR"/hogs/$h &&
	grep -q "\"f\":\"relieve\".*\"heal\":true" int/history.jsonl
'

test_expect_success 'SIGKILL while the hogs spin: the next run kills them and says so' '
	hogging killed KILL &&
	test "$code" = 137 &&
	alive $h &&
	test -f "$TICHAOS_STATE_DIR"/hogs/$h &&
	insert_suite next 1s 1 nextdb 10 >next.yaml &&
	"$TICHAOS" run next.yaml --cluster "$T" --out "$TRASH/next" >tap 2>err &&
	grep -q "warn  down-0: killing a CPU hog an earlier run left (pid $h; its runner, pid $run, is gone)$" err &&
	! alive $h &&
	test ! -e "$TICHAOS_STATE_DIR"/hogs/$h
'

test_expect_success 'a hog without down is refused at its line' '
	insert_suite nodown 2s 1 nd 10 >nodown.yaml &&
	printf "faults:\n  - kind: hog\n    target: cdc\n    at: [1s]\n" >>nodown.yaml &&
	{ "$TICHAOS" validate nodown.yaml >out 2>err; test $? = 2; } &&
	test "$(cat err)" = "tichaos: nodown.yaml:13:5: fault '"'"'hog'"'"' needs a '"'"'down'"'"' above 0s"
'

test_done
