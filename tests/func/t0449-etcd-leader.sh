#!/bin/sh
# etcd on the local cluster's hosts: three members; its Raft leader moved
# by `resign service: etcd` (MoveLeader) and watched by the etcd leader
# watch; suites/etcd_partition.yaml end to end, its partitions overlapping.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd
need_hosts

C="$TRASH/c"

# leader: etcd's leader's name, as etcd-0 sees it.
leader() {
	E=$(addr_of "$C" etcd-0) &&
	id=$(curl -s -X POST "http://$E:$(($(cat "$C/port-base") + 2))/v3/maintenance/status" -d "{}" |
		sed -n "s/.*\"leader\":\"\([0-9]*\)\".*/\1/p") &&
	curl -s -X POST "http://$E:$(($(cat "$C/port-base") + 2))/v3/cluster/member/list" -d "{}" |
		tr "{" "\n" | grep "\"ID\":\"$id\"" | sed -n "s/.*\"name\":\"\([^\"]*\)\".*/\1/p"
}

test_cluster_setup 'on hosts, etcd is three members, each on its own host, one leader' '
	for m in 0 1 2; do
		grep -q "^etcd-$m  *etcd  *[0-9]*  *http://198\.18\.[0-9.]*:$((B + 2 + 2 * m))  *running" "$C.up.out" &&
		test "$(ip netns identify "$(cat "$C/etcd-$m/tichaos.pid")")" = "tichaos-$B-etcd-$m" ||
		return 1
	done &&
	first=$(leader) &&
	case $first in etcd-[012]) ;; *) false ;; esac
' --port-base auto --hosts on

test_expect_success 'resign service etcd, until_back: moved away and back, every move watched' '
	insert_suite mv 5s 3 mvdb 20 >mv.yaml &&
	printf "faults:\n  - kind: resign\n    service: etcd\n    until_back: true\n    at: [1s]\n" >>mv.yaml &&
	"$TICHAOS" run mv.yaml --cluster "$C/topology.yaml" --out "$TRASH/r1" >tap 2>err &&
	grep -qx "ok 2 - fault 1 resign: 1 of 1 injected" tap &&
	info=$(grep "\"type\":\"info\",\"f\":\"resign\"" "$TRASH/r1/history.jsonl") &&
	echo "$info" | grep -Eq "\"value\":\{\"service\":\"etcd\",\"from\":\"$first\",\"rounds\":\[\{\"from\":\"$first\",\"to\":\"(etcd-[012])\",\"ms\":[0-9]+\},\{\"from\":\"etcd-[012]\",\"to\":\"$first\",\"ms\":[0-9]+\}\],\"to\":\"$first\"," &&
	other=$(echo "$info" | sed -e "s/.*\"rounds\":\[{\"from\":\"$first\",\"to\":\"\([^\"]*\)\".*/\1/") &&
	test "$other" != "$first" &&
	grep "\"target\":\"etcd/leader\"" "$TRASH/r1/history.jsonl" |
		sed -e "s/.*\"value\":{\"from\":\([^,]*\),\"to\":\([^,]*\),.*/\1 \2/" >moves &&
	printf "%s\n" "null \"$first\"" "\"$first\" \"$other\"" "\"$other\" \"$first\"" >expect &&
	test_cmp expect moves &&
	test "$(leader)" = "$first"
'

test_expect_success 'resign service etcd on one member: refused before anything starts (exit 2)' '
	D="$TRASH/d" &&
	test_cluster_up "$D" --port-base auto --hosts off &&
	"$TICHAOS" run mv.yaml --cluster "$D/topology.yaml" --out "$TRASH/r2" >tap 2>all
	test $? = 2 &&
	grep -v "^[0-9:.]* info  " all >err &&
	line=$(grep -n "kind: resign" mv.yaml | cut -d: -f1) &&
	echo "tichaos: mv.yaml:$line:5: fault '\''resign'\'' etcd needs an etcd of 2 members at least to move its leader; this one has 1 (the local cluster has 3 on hosts of their own)" >expect &&
	test_cmp expect err
'

test_expect_success 'hold and lease go with an election, not with etcd (exit 2)' '
	insert_suite hold 5s 3 holddb 20 >hold.yaml &&
	printf "faults:\n  - kind: resign\n    service: etcd\n    hold: 2s\n    at: [1s]\n" >>hold.yaml &&
	"$TICHAOS" validate hold.yaml >out 2>err
	test $? = 2 &&
	line=$(grep -n "hold: 2s" hold.yaml | cut -d: -f1) &&
	echo "tichaos: hold.yaml:$line:11: hold in fault '\''resign'\'' needs an etcd election (etcd'\''s leader is moved, not elected by keys)" >expect &&
	test_cmp expect err &&
	sed -e "s/hold: 2s/lease: revoke/" hold.yaml >lease.yaml &&
	"$TICHAOS" validate lease.yaml >out 2>err
	test $? = 2 &&
	echo "tichaos: lease.yaml:$line:12: lease in fault '\''resign'\'' needs a resign through an etcd election (moving etcd'\''s leader deletes no key)" >expect &&
	test_cmp expect err
'

# The cluster's etcd endpoints are every member's (clusters/cluster.h,
# cluster_etcd_url; lib/etcd.h): with the first member killed, a resign
# reads and moves an election through the next one, and the owner
# monitor, whose stream broke with the member, watches on from there, from
# the revision after its last event (runner/nemesis.c, monitor_main).
# etcd-0 stays down to the end of the run, so only the other members can
# have told the monitor. Before, the first member was the only one asked:
# exit 3, "cannot POST", and no owner seen after the kill.
# The candidates campaign as in t0450 (tests/helpers/campaigner), through
# etcd-1.
CAMPAIGNER="$ROOT/tests/helpers/campaigner"

test_expect_success 'M1 and M2 campaign through etcd-1' '
	E="http://$(addr_of "$C" etcd-1):$((B + 4))" || return 1
	"$CAMPAIGNER" "$E" /tichaos-test/members M1 same-lease >camp-M1.log 2>&1 &
	test_track_pid $! &&
	wait_for_condition 10 "grep -q become camp-M1.log" || return 1
	"$CAMPAIGNER" "$E" /tichaos-test/members M2 same-lease >camp-M2.log 2>&1 &
	test_track_pid $! &&
	wait_for_condition 10 "grep -q campaign camp-M2.log"
'

test_expect_success 'etcd-0 killed: the resign goes through the next member, M1 -> M2, the monitor sees it' '
	insert_suite members 6s 3 membersdb 20 >members.yaml &&
	printf "faults:\n  - kind: kill\n    target: etcd-0\n    at: [1s]\n    down: 30s\n" >>members.yaml &&
	printf "  - kind: resign\n    election: /tichaos-test/members\n    at: [3s]\n" >>members.yaml &&
	"$TICHAOS" run members.yaml --cluster "$C/topology.yaml" --out "$TRASH/r3" >tap 2>err ||
	{ cat tap err; false; } &&
	grep -qx "ok 3 - fault 2 resign: 1 of 1 injected" tap &&
	H="$TRASH/r3/history.jsonl" &&
	grep "\"type\":\"info\",\"f\":\"resign\"" "$H" |
		grep -q "\"value\":{\"election\":\"/tichaos-test/members\",\"from\":\"M1\",\"rounds\":\[{\"from\":\"M1\",\"to\":\"M2\",\"ms\":[0-9]*}\],\"to\":\"M2\"," &&
	grep "\"process\":\"monitor\",.*\"target\":\"/tichaos-test/members\"" "$H" |
		sed -e "s/.*\"value\"://" -e "s/,\"to_component.*//" >got &&
	printf "%s\n" "{\"from\":null,\"to\":\"M1\"" "{\"from\":\"M1\",\"to\":\"M2\"" >expect &&
	test_cmp expect got &&
	grep -qx "ok 2 - fault 1 kill: 1 of 1 injected, 1 healed" tap
'

# A member that accepts and never answers (SIGSTOPped: the kernel still
# queues connections to it) costs its timeout once in a process, not on
# every request: the endpoint that answered is asked first from then on
# (lib/etcd.c, prefer). `cluster status` reads three elections; the
# connections etcd-0's listening socket queued while it was stopped are
# counted (ss: Recv-Q), one. Asked first every time, it was three (15 s).
# The hosts' addresses are longer than 127.0.0.1: every state still
# starts under STATE, two spaces after the address (it was one space, or
# none, when the address was 27 characters or more).
queued() {
	ip netns exec "tichaos-$B-etcd-0" ss -ltnH "sport = :$((B + 2))" |
		awk "{ print \$2 }"
}

test_expect_success 'etcd-0 stopped: status reads the elections through the others, etcd-0 asked once' '
	P0=$(cat "$C/etcd-0/tichaos.pid") &&
	A1=$(addr_of "$C" etcd-1) &&
	kill -STOP "$P0" || return 1
	before=$(queued) &&
	wait_for_condition 30 "curl -s -m 2 -X POST http://$A1:$((B + 4))/v3/kv/range -d \"{\\\"key\\\":\\\"eA==\\\"}\" | grep -q revision" &&
	{ "$TICHAOS" cluster status --cluster "$C/topology.yaml" >out 2>err; code=$?; } &&
	after=$(queued)
	ok=$?
	kill -CONT "$P0" &&
	wait_for_condition 30 "curl -s -m 2 http://$(addr_of "$C" etcd-0):$((B + 2))/health | grep -q true" &&
	test "$ok" = 0 &&
	test "$code" = 3 &&
	grep -q "^etcd-0  *etcd  *$P0  *http://[0-9.]*:$((B + 2))  *paused " out &&
	awk "NR == 1 { col = index(\$0, \"STATE\") } /^\$/ { exit }
		NR > 1 && (substr(\$0, col - 2, 3) !~ /^  [a-z]/) { bad++ }
		END { exit bad || NR < 6 }" out &&
	sed -n "/^ELECTION/,\$p" out >got &&
	printf "%-10s %s\n" ELECTION OWNER ddl - autoid - cdc - >expect &&
	test_cmp expect got &&
	test "$after" = $((before + 1))
'

# A lone etcd member of three never answers /health (no quorum): a heal
# that started each killed member and waited for it before the next
# waited a minute for the first, then failed (measured with disk_lose
# pick: all). The members are started together, then waited for.
test_expect_success 'kill pick all of etcd: the three started together, each ready, one record' '
	{ insert_suite allkill 6s 2 allkill 20 && cat <<-EOF; } >"$TRASH/allkill.yaml" &&
	faults:
	  - kind: kill
	    target: etcd
	    pick: all
	    signal: KILL
	    at: [2s]
	    down: 1s
	EOF
	"$TICHAOS" run "$TRASH/allkill.yaml" --cluster "$C/topology.yaml" --out "$TRASH/allkill" >tap 2>err ||
	{ cat err tap; false; } &&
	grep -qx "ok 2 - fault 1 kill: 1 of 1 injected, 1 healed" tap &&
	grep "\"f\":\"restart\"" "$TRASH/allkill/history.jsonl" >rec &&
	for m in 0 1 2; do
		grep -Eq "\{\"component\":\"etcd-$m\",\"pid\":[0-9]+,\"ready_ms\":[0-9]+\}" rec || return 1
	done &&
	test "$(grep -o "\"component\"" rec | wc -l)" = 3 &&
	perl -MJSON::PP -ne "decode_json(\$_)" "$TRASH/allkill/history.jsonl"
'

# TiCDC captures whose PD loses its quorum for longer than their session's
# TTL (10 s) lose the session and reset; a reset that finds the PD without
# a leader ends the server, exit 1: real captures of tiflow v8.1.0 did so
# on three real PDs v8.1.2, two of them killed for 8 s (docs/found.md;
# tests/helpers/fake-cdc.pl models it). The exit watch names each exit as
# it happens and the run fails on them (clusters/exitwatch.c). The
# captures ask etcd-2, which stays up, without a leader, until the two
# others come back.
capture() {
	take_port port
	cat <<-EOF
	  - name: cdc-$1
	    roles: [cdc]
	    http_url: "http://127.0.0.1:$port"
	    start: [perl, "$ROOT/tests/helpers/fake-cdc.pl", --pd, "$2", --addr, "127.0.0.1:$port", --log-file, "$TRASH/cdc-$1.log"]
	    pidfile: "$TRASH/cdc-$1.pid"
	    log: "$TRASH/cdc-$1.log"
	EOF
}

test_expect_success 'captures whose PD has no leader when they reset exit: each named, the run fails' '
	E="http://$(addr_of "$C" etcd-2):$((B + 6))" &&
	{ cat "$C/topology.yaml" && capture 0 "$E" && capture 1 "$E"; } >"$TRASH/cdc.yaml" &&
	"$TICHAOS" cluster up --cluster "$TRASH/cdc.yaml" >/dev/null &&
	test_track_pid "$(cat "$TRASH/cdc-0.pid")" && test_track_pid "$(cat "$TRASH/cdc-1.pid")" &&
	p0=$(cat "$TRASH/cdc-0.pid") && p1=$(cat "$TRASH/cdc-1.pid") &&
	{ insert_suite noleader 55s 2 noleader 20 && cat <<-EOF; } >"$TRASH/noleader.yaml" &&
	faults:
	  - kind: kill
	    target: etcd-0
	    at: [1s]
	    down: 45s
	  - kind: kill
	    target: etcd-1
	    at: [1s]
	    down: 45s
	EOF
	"$TICHAOS" run "$TRASH/noleader.yaml" --cluster "$TRASH/cdc.yaml" --out "$TRASH/nl" >tap 2>err
	code=$?
	test $code = 1 &&
	grep -qx "ok 2 - fault 1 kill: 1 of 1 injected, 1 healed" tap &&
	grep -qx "ok 3 - fault 2 kill: 1 of 1 injected, 1 healed" tap &&
	grep -Eqx "not ok 4 - exit cdc-0: cdc-0 ended on its own 1 time, first [0-9]+\.[0-9]s in \(pid $p0\), not ended by tichaos" tap &&
	grep -Eqx "not ok 5 - exit cdc-1: cdc-1 ended on its own 1 time, first [0-9]+\.[0-9]s in \(pid $p1\), not ended by tichaos" tap &&
	test "$(grep -c "^not ok" tap)" = 2 &&
	for n in 0 1; do
		grep -q "^\[INFO\] \[fake-cdc\] \[[0-9]*\] suicide .*: session done$" "$TRASH/cdc-$n.log" &&
		grep -q "cdc server exits with error: \[PD:tso:ErrGenerateTimestamp\]generate timestamp failed, requested pd is not leader of cluster$" "$TRASH/cdc-$n.log" &&
		grep -Eq "warn  cdc-$n \(pid [0-9]+\) exited on its own, not ended by tichaos; last log line: \[INFO\] \[fake-cdc\] \[[0-9]+\] exit 1$" err ||
		return 1
	done ||
	{ echo "exit $code"; cat tap err; false; }
'

test_expect_success 'suites/etcd_partition.yaml at 60 s passes; the overlapping cuts each heal their own' '
	"$TICHAOS" run "$ROOT/suites/etcd_partition.yaml" --duration 60s --port-base auto \
		--hosts on --out "$TRASH/ep" >tap 2>err || { grep -A12 "^not ok" tap; tail -5 err; false; }
	test "$(grep -c "^ok " tap)" = 7 &&
	grep -qx "ok 2 - fault 1 resign: 3 of 3 injected" tap &&
	grep -qx "ok 3 - fault 2 partition: 3 of 3 injected, 3 healed" tap &&
	grep -qx "ok 4 - fault 3 partition: 2 of 2 injected, 2 healed" tap &&
	H="$TRASH/ep/history.jsonl" &&
	grep "\"type\":\"info\",\"f\":\"rejoin\"" "$H" | grep "\"fault\":1}" | head -n 1 |
		grep -Eq "\"probes\":\{\"unanswered\":[1-9][0-9]*," &&
	grep "\"type\":\"info\",\"f\":\"rejoin\"" "$H" | grep "\"fault\":2}" | head -n 1 |
		grep -q "\"probes\":{\"unanswered\":0,\"answered\":25," &&
	grep -q "\"target\":\"etcd/leader\",\"value\":{\"from\":null,\"to\":\"etcd-[012]\"" "$H"
'

test_done
