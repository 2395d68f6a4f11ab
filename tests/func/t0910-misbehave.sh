#!/bin/sh
# Servers that misbehave: one that will not start (its port taken, its
# program missing, its directory not one), one that dies in a run and does
# not come back, one stopped for good (SIGSTOP), replication broken by an
# error downstream. Each ends with a message naming the component (and its
# last log line where it has one), exit 3, never a hang and never a pass.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

# within SECONDS CMD...: CMD's exit code, or 124 when it ran longer.
within() {
	s=$1
	shift
	timeout "$s" "$@"
}

test_expect_success 'a port taken: up names it and up-0 before starting anything, exit 3' '
	base=$(free_port_base) &&
	{ perl -MIO::Socket::INET -e "
		my \$s = IO::Socket::INET->new(LocalAddr => q(127.0.0.1),
			LocalPort => $base, Listen => 1, ReuseAddr => 1) or die;
		sleep 600;" & } && holder=$! && test_track_pid $holder &&
	wait_for_condition 5 "listening $base" &&
	within 120 "$TICHAOS" cluster up --dir "$TRASH/taken" --port-base $base 2>err; code=$?
	kill $holder; test $code = 3 &&
	echo "tichaos: port $base of up-0 is already in use (choose another --port-base)" >expect &&
	test_cmp expect err &&
	test -z "$(cat "$TRASH/taken"/*/tichaos.pid 2>/dev/null)" &&
	for p in 1 2 3; do ! listening $((base + p)) || return 1; done
'

mkdir -p "$TRASH/s"

test_expect_success 'a program that is not there: up names it before it starts anything, exit 2' '
	printf "components:\n  - name: ghost\n    roles: [cdc]\n    start: [/nonexistent/bin/ghostd, --x]\n    pidfile: ghost.pid\n    log: ghost.log\n" \
		>"$TRASH/s/ghost.yaml" &&
	within 60 "$TICHAOS" cluster up --cluster "$TRASH/s/ghost.yaml" 2>err; test $? = 2 &&
	echo "tichaos: 1 of 1 components cannot start as they are: ghost: start: '\''/nonexistent/bin/ghostd'\'' is not there" >expect &&
	test_cmp expect err && test ! -e "$TRASH/s/ghost.pid"
'

test_expect_success 'a cluster directory that is a file: up says so, exit 3' '
	echo not a directory >"$TRASH/file" &&
	within 60 "$TICHAOS" cluster up --dir "$TRASH/file" --port-base auto 2>err; test $? = 3 &&
	grep -q "^tichaos: .*$TRASH/file.*: Not a directory$" err
'

# A server that comes up once: its second start finds no flag and exits.
# Ready when its HTTP port answers (fake-http.pl, run in the same perl,
# so that its command line stays the start command): a process alive for
# an instant is not up, and its second start never answers.
mkdir "$TRASH/s/http"
cat >"$TRASH/s/once.pl" <<EOF
-e "$TRASH/s/flag" or do { print "once: no flag, giving up\\n"; exit 1 };
unlink "$TRASH/s/flag";
open my \$p, "<", "$TRASH/s/port" or die "once: $TRASH/s/port: \$!\\n";
@ARGV = (scalar <\$p> + 0, "$TRASH/s/http", "$TRASH/s/http.log");
do "$ROOT/tests/helpers/fake-http.pl";
die \$@ if \$@;
EOF

test_cluster_setup 'set up a cluster to attach to, with a server that starts once' '
	touch "$TRASH/s/flag" &&
	take_port once_port && echo "$once_port" >"$TRASH/s/port" &&
	{
		cat "$C/topology.yaml" &&
		printf "%s\n" "  - name: \"once\"" "    roles: [kv]" \
			"    start: [\"/usr/bin/perl\", \"$TRASH/s/once.pl\"]" \
			"    http_url: \"http://127.0.0.1:$once_port/\"" \
			"    pidfile: \"$TRASH/s/once.pid\"" "    log: \"$TRASH/s/once.log\""
	} >"$TRASH/t.yaml" &&
	"$TICHAOS" cluster up --cluster "$TRASH/t.yaml" >/dev/null &&
	test_track_pid "$(cat "$TRASH/s/once.pid")"
'

# suite NAME DURATION: inserts (errors ignored: the servers, not the
# workload, are on trial), then the faults and checks on stdin.
suite() {
	{
		insert_suite "$1" "$2" 3 mis 100
		echo "    ignore_errors: true"
		cat
	} >"$TRASH/$1.yaml"
}

suite dies 3s <<EOF
faults:
  - kind: kill
    target: once
    at: [1s]
    down: 1s
EOF

test_expect_success 'a server killed that does not come back: the heal fails naming it, exit 3' '
	within 120 "$TICHAOS" run "$TRASH/dies.yaml" --cluster "$TRASH/t.yaml" --out "$TRASH/r1" >tap 2>err
	{ test $? = 3 &&
	grep -qx "not ok 2 - fault 1 kill: 1 of 1 injected, 0 healed, 1 heals failed" tap &&
	grep -qx "  message: \"once exited while starting; last log line: once: no flag, giving up\"" tap &&
	! grep " - exit " tap; } ||
	{ cat tap err; false; }
'

suite hangs 3s <<EOF
checks:
  - kind: consistency
    sync_timeout: 5s
EOF

test_expect_success 'the upstream stopped for good (SIGSTOP): no hang, no pass, exit 3' '
	up=$(cat "$C/up-0/tichaos.pid") &&
	: >tap2 && : >err2 &&
	{ "$TICHAOS" run "$TRASH/hangs.yaml" --cluster "$T" --out "$TRASH/r2" >tap2 2>err2 & } &&
	run=$! && test_track_pid $run &&
	wait_for_condition 60 "grep -q \"\\\"type\\\":\\\"ok\\\"\" \"$TRASH/r2/history.jsonl\"" &&
	kill -STOP $up &&
	end=$(( $(date +%s) + 300 )) &&
	while alive $run && [ "$(date +%s)" -lt "$end" ]; do sleep 0.2; done
	kill -CONT $up
	! alive $run && { wait $run; test $? = 3; } &&
	grep -qx "not ok 2 - consistency" tap2 &&
	grep -q "^  message: \"up-0: cannot connect to .127.0.0.1:$UP.: " tap2
'

suite crash 10s </dev/null

# A server that dies of itself (a crash, the kernel's OOM killer) is no
# fault's doing: the exit watch says so as it happens, with its last log
# line, and the run fails on it (clusters/exitwatch.c).
test_expect_success 'a server that exits on its own in a run: named as it happens, its exit item fails the run' '
	: >tap4 && : >err4 &&
	{ "$TICHAOS" run "$TRASH/crash.yaml" --cluster "$T" --out "$TRASH/r4" >tap4 2>err4 & } &&
	run=$! && test_track_pid $run &&
	wait_for_condition 60 "grep -q \"\\\"type\\\":\\\"ok\\\"\" \"$TRASH/r4/history.jsonl\"" &&
	down=$(cat "$C/down-0/tichaos.pid") && kill -KILL $down &&
	{ wait $run; test $? = 1; } &&
	grep -Eqx "ok 1 - workload 1 insert: [0-9]+ ok, 0 fail, 0 info" tap4 &&
	grep -Eqx "not ok 2 - exit down-0: down-0 ended on its own 1 time, first [0-9]+\.[0-9]s in \(pid $down\), not ended by tichaos" tap4 &&
	grep -q "warn  down-0 (pid $down) exited on its own, not ended by tichaos; last log line: ." err4 &&
	grep -q "\"f\":\"exited\",.*\"target\":\"down-0\",.*\"value\":{\"pid\":$down,\"last_line\":" "$TRASH/r4/history.jsonl" &&
	test "$(grep -c "\"f\":\"exited\"" "$TRASH/r4/history.jsonl")" = 1 &&
	grep "^not ok 2 - exit down-0: " tap4 >expect &&
	sed "s/^ \"verdict\": \"fail\"/ \"verdict\": \"incomplete\"/" "$TRASH/r4/results.json" >r.json &&
	mv r.json "$TRASH/r4/results.json" &&
	{ "$TICHAOS" report "$TRASH/r4" >tap5 2>err5; test $? = 4; } &&
	grep "^not ok 2 - exit down-0: " tap5 >actual && test_cmp expect actual &&
	"$TICHAOS" cluster up --cluster "$T" >/dev/null ||
	{ cat tap4 err4; false; }
'


suite broken 3s <<EOF
checks:
  - kind: consistency
    sync_timeout: 5s
EOF

# The conflicting row goes upstream while the workload runs, before the
# barrier's finish mark (which the run writes after its workload, in
# tichaos_meta.barrier, with its directory): replication stops on the row,
# the mark never arrives. The check does not wait it out: it compares the
# tables as they are, says they are unsynced and why, and fails on what
# differs.
test_expect_success 'replication broken by an error downstream: compared unsynced, named, exit 1' '
	: >tap3 && : >err3 &&
	{ "$TICHAOS" run "$TRASH/broken.yaml" --cluster "$T" --out "$TRASH/r3" >tap3 2>err3 & } &&
	run=$! && test_track_pid $run &&
	wait_for_condition 60 "grep -q \"\\\"type\\\":\\\"ok\\\"\" \"$TRASH/r3/history.jsonl\"" &&
	sql "$DOWN" "set sql_log_bin = 0; insert into mis.t (id, data) values (1000000, \"in the way\")" &&
	sql "$UP" "insert into mis.t (id, data) values (1000000, \"upstream\")" &&
	{ ! sql "$UP" "select id from tichaos_meta.barrier where run = \"$TRASH/r3\"" 2>/dev/null | grep -q . ||
	{ echo "the row went upstream after the finish mark"; false; }; } &&
	{ wait $run; test $? = 1; } &&
	grep -qx "not ok 2 - consistency" tap3 &&
	grep -Eq "^  message: \"1 of 1 tables differ \(compared unsynced: down-0.s replication stopped on SQL error 1062\); first: mis\.t: [0-9]+ missing, 0 extra, 1 changed \(fix-sql/mis\.t\.sql\)\"$" tap3 &&
	grep -q "^REPLACE INTO .mis.\..t. .*1000000.*upstream" "$TRASH/r3/fix-sql/mis.t.sql" ||
	{ cat tap3; false; }
'

test_done
