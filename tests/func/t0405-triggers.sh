#!/bin/sh
# Faults fired by the history (docs/faults.md, Triggers): `on: ddl` kills
# the downstream right after the first truncate that completes once the
# fault is armed, `after` later; `on: ddl_applied` when the downstream
# shows a partition DDL (the DDL watch); `on: heal` pauses the upstream when
# another fault's heal completes. The invoke names the record that fired
# it, and so does report.html's window of it; plan.json says which events
# are armed; replay draws the same plan and fires the same way; shrink
# keeps a triggered fault with what fires it; an armed fault whose record
# never comes is counted and said; bad combinations are refused at their
# line.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

test_cluster_setup 'set up a cluster to attach to'

# suite NAME FAULTS...: 6 s of inserts into p and a truncate of one of
# p's partitions (or the partition op $OPS) every 700 ms; FAULTS are the
# lines of its faults.
suite() {
	test_suite_name_=$1
	shift
	{
		cat <<-END
		name: $test_suite_name_
		duration: 6s
		seed: 5
		database: trig
		tables:
		  - name: p
		    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
		    partition: "RANGE (id) (PARTITION p0 VALUES LESS THAN (100), PARTITION p1 VALUES LESS THAN MAXVALUE)"
		workloads:
		  - kind: insert
		    tables: p
		    rate: 50
		    ignore_errors: true
		  - kind: partition_ddl
		    tables: p
		    ops: [${OPS:-truncate}]
		    every: 700ms
		    ignore_errors: true
		faults:
		END
		printf '%s\n' "$@"
	} >"$TRASH/$test_suite_name_.yaml"
}

# invoke RUN F: the invoke record of fault F in RUN's history.
invoke() {
	grep "\"process\":\"nemesis\",\"type\":\"invoke\",\"f\":\"$2\"" \
		"$TRASH/$1/history.jsonl" | head -n 1
}

# num RECORD KEY: the first number of KEY in RECORD.
num() {
	printf '%s\n' "$1" | sed -n "s/^[^\"]*\(\"[^\"]*\"[^\"]*\)*\"$2\":\([0-9]*\).*/\2/p" |
	head -n 1
}

# events DIR: the events of DIR/plan.json, "at_ns kind on" a line (on:
# "-" when the event has none).
events() {
	perl -MJSON::PP -e '
		local $/; open my $f, "<", "$ARGV[0]/plan.json" or die "$!\n";
		print "$_->{at_ns} $_->{kind} ", $_->{on} // "-", "\n"
			for @{ decode_json(<$f>)->{events} };
	' "$1"
}

# first_after RUN NS: the time of the first truncate completed at or
# after NS.
first_after() {
	grep '"type":"ok","f":"truncate"' "$TRASH/$1/history.jsonl" |
	sed -n 's/^{"time":\([0-9]*\),.*/\1/p' |
	awk -v at="$2" '$1 >= at { print; exit }'
}

# fired RUN F: the invoke of fault F in RUN in $rec, its time in $at, the
# time of the record that fired it in $ev; that record is the first
# truncate at or after 2 s.
fired() {
	rec=$(invoke "$1" "$2") &&
	at=$(printf "%s\n" "$rec" | sed -n "s/^{\"time\":\([0-9]*\),.*/\1/p") &&
	ev=$(printf "%s\n" "$rec" | sed -n "s/.*\"event\":{\"time\":\([0-9]*\),.*/\1/p") &&
	test "$ev" = "$(first_after "$1" 2000000000)"
}

test_expect_success 'on: ddl: the kill comes right after the first truncate once armed, and says so' '
	suite ddl "  - kind: kill" "    target: downstream" "    at: [2s]" \
		"    down: 1s" "    on: ddl" "    on_ops: [truncate]" &&
	"$TICHAOS" run ddl.yaml --cluster "$T" --out "$TRASH/ddl" >tap 2>err &&
	fired ddl kill &&
	test "$at" -ge "$ev" &&
	printf "%s\n" "$rec" | grep -q "\"value\":{\"trigger\":{\"on\":\"ddl\",\"event\":{\"time\":$ev,\"process\":[0-9]*,\"f\":\"truncate\",\"table\":\"trig.p\"},\"after_ns\":0,\"late_ns\":[0-9]*}}" &&
	grep -q "\"fault\": 0, \"kind\": \"kill\", \"on\": \"ddl\", \"op\": \"kill\", \"choice\"" ddl/plan.json &&
	grep -q "^ok [0-9]* - fault 1 kill: 1 of 1 injected, 1 healed$" tap &&
	grep -q "; fired by truncate trig.p at [0-9]*\.[0-9][0-9][0-9]s</title>" ddl/report.html
'

test_expect_success 'after: 300ms: the kill comes 300 ms or more after the truncate' '
	suite after "  - kind: kill" "    target: downstream" "    at: [2s]" \
		"    down: 1s" "    on: ddl" "    after: 300ms" &&
	"$TICHAOS" run after.yaml --cluster "$T" --out "$TRASH/after" >tap 2>err &&
	fired after kill &&
	test "$at" -ge $((ev + 300000000)) &&
	printf "%s\n" "$rec" | grep -q "\"after_ns\":300000000," &&
	grep -q "; fired by truncate trig.p at [0-9.]*s, +300ms</title>" after/report.html
'

# A pause of the upstream, not a kill of down-0: the drop_add cycle adds
# p1 back at once, and down-0 killed while it runs that ADD PARTITION runs
# it again after its restart and stops on 1481 (MAXVALUE can only be used
# in last partition definition: the partition is already there), which
# stopped every test after this one once on a loaded machine.
test_expect_success 'on: ddl_applied: the pause comes when down-0 shows the partition dropped' '
	OPS=drop_add suite applied "  - kind: pause" "    target: upstream" \
		"    at: [2s]" "    down: 500ms" "    on: ddl_applied" &&
	"$TICHAOS" run applied.yaml --cluster "$T" --out "$TRASH/applied" >tap 2>err &&
	grep "\"process\":\"monitor\",\"type\":\"info\",\"f\":\"ddl_applied\"" applied/history.jsonl >seen &&
	grep -q "\"table\":\"trig.p\",\"node\":\"down-0\",\"value\":{\"partitions\":\"p0\"}" seen &&
	first=$(sed -n "s/^{\"time\":\([0-9]*\),.*/\1/p" seen |
		awk "\$1 >= 2000000000 { print; exit }") &&
	rec=$(invoke applied pause) &&
	printf "%s\n" "$rec" | grep -q "\"trigger\":{\"on\":\"ddl_applied\",\"event\":{\"time\":$first,\"process\":\"monitor\",\"f\":\"ddl_applied\",\"table\":\"trig.p\"}" &&
	grep -q "^ok [0-9]* - fault 1 pause: 1 of 1 injected, 1 healed$" tap
'

# The replica's SQL thread runs the DROP PARTITION for tens of ms: the
# watch sees it in the processlist, and the pause of the upstream comes
# meanwhile. Not a kill of down-0: killed while it runs the DDL, it runs
# it again after its restart and stops on 1508, the failure of
# suites/found/replica_partition_ddl_rerun.yaml (seen under load), and
# the tests after this one share its replication.
test_expect_success 'on: ddl_running: the pause comes when down-0 runs the drop' '
	OPS=drop_add suite running "  - kind: pause" "    target: upstream" \
		"    at: [2s]" "    down: 500ms" "    on: ddl_running" \
		"    on_ops: [drop_add]" &&
	"$TICHAOS" run running.yaml --cluster "$T" --out "$TRASH/running" >tap 2>err &&
	grep "\"process\":\"monitor\",\"type\":\"info\",\"f\":\"ddl_running\"" running/history.jsonl >seen &&
	grep -q "\"table\":\"trig.p\",\"node\":\"down-0\",\"value\":{\"op\":\"drop_add\",\"query\":\"ALTER TABLE \`trig\`.\`p\` DROP PARTITION \`p1\`\"}" seen &&
	first=$(sed -n "s/^{\"time\":\([0-9]*\),.*/\1/p" seen |
		awk "\$1 >= 2000000000 { print; exit }") &&
	rec=$(invoke running pause) &&
	printf "%s\n" "$rec" | grep -q "\"trigger\":{\"on\":\"ddl_running\",\"event\":{\"time\":$first,\"process\":\"monitor\",\"f\":\"ddl_running\",\"table\":\"trig.p\"}" &&
	grep -q "^ok [0-9]* - fault 1 pause: 1 of 1 injected, 1 healed$" tap
'

test_expect_success 'on: heal: the pause comes when the kill is healed' '
	suite heal "  - kind: kill" "    target: downstream" "    at: [1s]" \
		"    down: 1s" "  - kind: pause" "    target: upstream" \
		"    on: heal" "    down: 500ms" &&
	"$TICHAOS" run heal.yaml --cluster "$T" --out "$TRASH/heal" >tap 2>err &&
	restart=$(grep "\"process\":\"nemesis\",\"type\":\"info\",\"f\":\"restart\"" heal/history.jsonl) &&
	rt=$(printf "%s\n" "$restart" | sed -n "s/^{\"time\":\([0-9]*\),.*/\1/p") &&
	rec=$(invoke heal pause) &&
	printf "%s\n" "$rec" | grep -q "\"trigger\":{\"on\":\"heal\",\"event\":{\"time\":$rt,\"process\":\"nemesis\",\"f\":\"restart\",\"target\":\"downstream\",\"fault\":0}" &&
	grep -q "^ok [0-9]* - fault 2 pause: 1 of 1 injected, 1 healed$" tap
'

test_expect_success 'replay: the same plan, fired the same way' '
	"$TICHAOS" replay ddl --cluster "$T" --out "$TRASH/ddl-again" >tap 2>err &&
	test_cmp ddl/plan.json ddl-again/plan.json &&
	fired ddl-again kill
'

# The tamper is fired by a truncate: shrink keeps both, the DDL that
# fires it among the seven, and the pauses go.
test_expect_success 'shrink keeps the triggered tamper and the DDL that fires it, over the whole run' '
	cat >shrinkme.yaml <<-\EOF &&
	name: shrinkme
	duration: 4s
	seed: 3
	database: trigshrink
	tables:
	  - name: t
	    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
	  - name: p
	    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
	    partition: "RANGE (id) (PARTITION p0 VALUES LESS THAN (100), PARTITION p1 VALUES LESS THAN MAXVALUE)"
	workloads:
	  - kind: insert
	    tables: t
	    rate: 100
	  - kind: partition_ddl
	    tables: p
	    ops: [truncate]
	    every: 500ms
	faults:
	  - kind: pause
	    target: upstream
	    at: [500ms, 2500ms]
	    down: 100ms
	  - kind: tamper
	    table: t
	    delete: 3
	    at: [1s]
	    on: ddl
	checks:
	  - kind: consistency
	    sync_timeout: 30s
	EOF
	{ "$TICHAOS" run shrinkme.yaml --cluster "$T" --out "$TRASH/s" --quiet >tap 2>err; test $? = 1; } &&
	invoke s tamper | grep -q "\"trigger\":{\"on\":\"ddl\"" &&
	"$TICHAOS" shrink "$TRASH/s" --cluster "$T" --tries 1 >out 2>err ||
	{ cat err; false; } &&
	grep -q "^$TRASH/s/shrink/smallest: 2 of 10 events over 4s fail consistency " out &&
	events s/shrink/smallest >kept &&
	test "$(wc -l <kept)" = 2 &&
	grep -qx "1000000000 tamper ddl" kept &&
	ddl=$(sed -n "s/ partition_ddl -$//p" kept) &&
	test "$ddl" -ge 1000000000 &&
	grep -q "\"duration_ns\": 4000000000" s/shrink/smallest/plan.json
'

test_expect_success 'a record that never comes: counted, said, no injection' '
	suite never "  - kind: kill" "    target: downstream" "    on: ddl" \
		"    on_ops: [exchange]" "    down: 1s" &&
	"$TICHAOS" run never.yaml --cluster "$T" --out "$TRASH/never" >tap 2>err &&
	grep -q "^ok [0-9]* - fault 1 kill: 0 of 1 injected, 0 healed, 1 never fired (no ddl record came once armed)$" tap &&
	grep -q "\"unfired\": 1" never/results.json &&
	! grep -q "\"process\":\"nemesis\"" never/history.jsonl
'

test_expect_success 'on_ops without on: ddl, after without on: refused at their lines' '
	suite bad1 "  - kind: kill" "    target: downstream" "    on: heal" \
		"    on_ops: [truncate]" &&
	{ "$TICHAOS" validate bad1.yaml 2>err; test $? = 2; } &&
	test "$(cat err)" = "tichaos: bad1.yaml:23:13: on_ops in fault '"'"'kill'"'"' needs '"'"'on: ddl'"'"' or '"'"'on: ddl_running'"'"'" &&
	suite bad2 "  - kind: kill" "    target: downstream" "    at: [1s]" \
		"    after: 1s" &&
	{ "$TICHAOS" validate bad2.yaml 2>err; test $? = 2; } &&
	test "$(cat err)" = "tichaos: bad2.yaml:23:12: after in fault '"'"'kill'"'"' needs '"'"'on'"'"'"
'

test_done
