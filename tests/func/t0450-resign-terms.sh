#!/bin/sh
# resign against candidates that campaign again as TiDB's owner manager
# does (pkg/owner/manager.go in pingcap/tidb: campaignLoop campaigns again
# on the same etcd session once watchOwner sees its key deleted, so the
# new key has the same name and a new create revision — the campaigner's
# same-lease mode). A leadership is a term (key, create revision), so a
# lone candidate's resign is a move A -> A, seen by the fault and by the
# owner monitor. `hold` keeps each new leader in place and verifies it:
# led throughout, an insert succeeded meanwhile — TiDB issue 52600 needs
# B to allocate before A leads again. A round that did not happen so is a
# fault that did not take effect: exit 3.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd etcdctl

CAMPAIGNER="$ROOT/tests/helpers/campaigner"
[ -x "$CAMPAIGNER" ] || { echo "Bail out! $CAMPAIGNER is not built (make unit-tests)"; exit 1; }

C="$TRASH/c"

# campaign NAME PREFIX: a same-lease candidate NAME in election PREFIX;
# returns once it has put its key.
campaign() {
	"$CAMPAIGNER" "$E" "$2" "$1" same-lease >"$TRASH/camp-$1.log" 2>&1 &
	test_track_pid $!
	wait_for_condition 5 "grep -q campaign '$TRASH/camp-$1.log'"
}

# suite NAME WORKLOAD DURATION: NAME.yaml, WORKLOAD on table t for
# DURATION, the resign item from stdin.
suite() {
	{
		cat <<-END
		name: $1
		duration: $3
		seed: 3
		database: terms
		tables:
		  - name: t
		    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
		workloads:
		END
		if [ "$2" = insert ]; then
			printf "  - kind: insert\n    tables: t\n    rate: 100\n"
		else
			printf "  - kind: table_ddl\n    tables: t\n    ops: [truncate]\n"
		fi
		echo "faults:"
		cat
	} >"$TRASH/$1.yaml"
}

# run NAME: run suite NAME on the cluster into $TRASH/NAME; exit in $rc.
run() {
	"$TICHAOS" run "$TRASH/$1.yaml" --cluster "$C/topology.yaml" \
		--out "$TRASH/$1" >"$TRASH/$1.tap" 2>"$TRASH/$1.err"
	rc=$?
}

# resigned NAME: the resign's info or fail record, times as N.
resigned() {
	grep "\"process\":\"nemesis\"" "$TRASH/$1/history.jsonl" |
	grep -v "\"type\":\"invoke\"" |
	sed -e "s/^{\"time\":[0-9]*,//" -e "s/\"ms\":[0-9]*/\"ms\":N/g" \
	    -e "s/\"took_ms\":[0-9]*/\"took_ms\":N/" \
	    -e "s/,\"fault\":[0-9]*}\$/}/"
}

test_cluster_setup 'set up a cluster; solo campaigns alone' '
	E="http://127.0.0.1:$(port_of "$C" etcd-0)" &&
	campaign solo /tichaos-test/solo &&
	wait_for_condition 5 "grep -q become \"$TRASH/camp-solo.log\""
'

suite solo insert 3s <<END
  - kind: resign
    election: /tichaos-test/solo
    at: [1s]
END

test_expect_success 'the only candidate, campaigning again on its lease: a new term, solo -> solo' '
	run solo && test $rc = 0 ||
	{ cat "$TRASH/solo.err"; false; } &&
	echo "\"process\":\"nemesis\",\"type\":\"info\",\"f\":\"resign\",\"target\":\"/tichaos-test/solo\",\"value\":{\"election\":\"/tichaos-test/solo\",\"from\":\"solo\",\"rounds\":[{\"from\":\"solo\",\"to\":\"solo\",\"ms\":N}],\"to\":\"solo\",\"took_ms\":N}}" >expect &&
	resigned solo >got && test_cmp expect got &&
	sed -n "s/^[0-9]* campaign //p" "$TRASH/camp-solo.log" >keys &&
	test "$(wc -l <keys)" = 2 && test "$(sort -u keys | wc -l)" = 1
'

# Between the deletion and the new key there is no owner for a moment:
# the monitor, following the election's events in order, records that too.
test_expect_success 'the monitor records the new term, and that solo names no component' '
	grep "\"process\":\"monitor\"" "$TRASH/solo/history.jsonl" |
		sed -e "s/.*\"value\"://" >got &&
	printf "%s\n" "{\"from\":null,\"to\":\"solo\",\"to_component\":null,\"unmapped\":\"no component is named by it\"}}" \
		"{\"from\":\"solo\",\"to\":null,\"to_component\":null}}" \
		"{\"from\":null,\"to\":\"solo\",\"to_component\":null,\"unmapped\":\"no component is named by it\"}}" >expect &&
	test_cmp expect got
'

test_expect_success 'A and B campaign, A first' '
	campaign A /tichaos-test/hold &&
	wait_for_condition 5 "grep -q become \"$TRASH/camp-A.log\"" &&
	campaign B /tichaos-test/hold
'

suite hold insert 8s <<END
  - kind: resign
    election: /tichaos-test/hold
    until_back: true
    hold: 2s
    at: [1s]
END

# held_ms: at least the hold (how far past it the last read falls is the
# machine's).
test_expect_success 'hold: B leads 2 s and inserts succeed, then A again for 2 s: exit 0' '
	run hold && test $rc = 0 ||
	{ cat "$TRASH/hold.tap" "$TRASH/hold.err"; false; } &&
	resigned hold >got &&
	grep -Eqx "\"process\":\"nemesis\",\"type\":\"info\",\"f\":\"resign\",\"target\":\"/tichaos-test/hold\",\"value\":\{\"election\":\"/tichaos-test/hold\",\"from\":\"A\",\"rounds\":\[\{\"from\":\"A\",\"to\":\"B\",\"ms\":N,\"held_ms\":([2-9][0-9]{3}|[1-9][0-9]{4,}),\"inserts\":[1-9][0-9]*\},\{\"from\":\"B\",\"to\":\"A\",\"ms\":N,\"held_ms\":([2-9][0-9]{3}|[1-9][0-9]{4,}),\"inserts\":[1-9][0-9]*\}\],\"to\":\"A\",\"took_ms\":N\}\}" got &&
	grep -q "^  - kind: resign\$" "$TRASH/hold/suite.yaml" &&
	"$TICHAOS" run "$TRASH/hold.yaml" --dry-run | grep -q "\"hold\": \"2s\""
'

suite cut insert 6s <<END
  - kind: resign
    election: /tichaos-test/hold
    until_back: true
    hold: 20s
    at: [1s]
END

test_expect_success 'a leader that loses the lead during its hold: the round did not happen, exit 3' '
	becomes=$(grep -c become "$TRASH/camp-B.log") &&
	{ "$TICHAOS" run "$TRASH/cut.yaml" --cluster "$C/topology.yaml" \
		--out "$TRASH/cut" >"$TRASH/cut.tap" 2>"$TRASH/cut.err" & } &&
	run=$! && test_track_pid $run &&
	wait_for_condition 30 "test \$(grep -c become \"$TRASH/camp-B.log\") -gt $becomes" &&
	key=$(sed -n "s/^[0-9]* campaign //p" "$TRASH/camp-B.log" | tail -n 1) &&
	etcdctl --endpoints "$E" del "$key" >/dev/null &&
	wait $run; test $? = 3 &&
	grep -Eq "^  message: \"'\''B'\'' led '\''/tichaos-test/hold'\'' for only [0-9]+ms of its 20s hold \(then '\''A'\''\)\"\$" "$TRASH/cut.tap" &&
	grep -qx "not ok 2 - fault 1 resign: 0 of 1 injected, 1 did not take effect" "$TRASH/cut.tap"
'

suite idle ddl 4s <<END
  - kind: resign
    election: /tichaos-test/hold
    until_back: true
    hold: 1s
    at: [1s]
END

test_expect_success 'no insert succeeded while the new leader held: exit 3' '
	run idle && test $rc = 3 &&
	grep -qx "  message: \"no insert succeeded while '\''B'\'' led '\''/tichaos-test/hold'\'' (1s)\"" "$TRASH/idle.tap"
'

test_done
