#!/bin/sh
# TiCDC captures as tiflow's behave (tests/helpers/fake-cdc.pl: a capture
# registered and campaigning in the local cluster's real etcd, serving the
# Open API v2; its header cites pingcap/tiflow cdc/capture/capture.go,
# cdc/api/v2 and cdc/api/middleware/middleware.go for each behaviour).
# Checked:
# - a capture is ready once /api/v2/captures lists it at its address, not
#   when its HTTP server first answers (a restart is waited for so);
# - resign via etcd (its owner key deleted): the capture kills itself and
#   comes back under a new id, so until_back is told by address;
# - resign via http, the default for cdc: the owner hands over and keeps
#   its id;
# - tiflow's restart rate limit (rate.NewLimiter(0.05, 2)): a capture
#   restarted once too often waits 20 s, unlisted, and tichaos says so;
# - TiCDC's new architecture (fake-cdc.pl --newarch: pingcap/ticdc
#   server/module_election.go, coordinator/coordinator.go): the same
#   status, "is-new-arch" in its capture info; resign via etcd refused
#   before anything starts, via http a resign; its coordinator, its key
#   deleted, goes on until another capture's id is first, alone for good.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd etcdctl

T="$TRASH/topology.yaml"
OWNER=/tidb/cdc/default/__cdc_meta__/owner

# capture N [ARG]: the fake capture cdc-N's topology item, ARG (--newarch)
# added to its command; it registers once $TRASH/hold-cdc-N exists.
capture() {
	eval "port=\$port_$1"
	cat <<-EOF
	  - name: cdc-$1
	    roles: [cdc]
	    http_url: "http://127.0.0.1:$port"
	    start: [perl, "$ROOT/tests/helpers/fake-cdc.pl", --pd, "$E", --addr, "127.0.0.1:$port", --log-file, "$TRASH/cdc-$1.log", --hold, "$TRASH/hold-cdc-$1"${2:+, $2}]
	    pidfile: "$TRASH/cdc-$1.pid"
	    log: "$TRASH/cdc-$1.log"
	EOF
}

# ids N: the capture ids cdc-N has had, in order.
ids() {
	sed -n "s/.*init capture //p" "$TRASH/cdc-$1.log"
}

# owner_key [rev]: the owner's key in the election (the lowest create
# revision), with rev its create revision after it.
owner_key() {
	etcdctl --endpoints "$E" get --prefix "$OWNER/" -w json |
		perl -MJSON::PP -MMIME::Base64 -e '
			my $d = decode_json(join "", <STDIN>);
			my ($k) = sort { $a->{create_revision} <=> $b->{create_revision} } @{$d->{kvs} // []};
			print decode_base64($k->{key}), $ARGV[0] ? " $k->{create_revision}" : "", "\n" if $k;' "${1:-}"
}

# suite NAME VIA: 12 s of inserts; at 1 s a resign of TiCDC's owner via
# VIA (empty: the default), until the first owner leads again, each new
# owner holding for 2 s (the monitor maps each term to its capture while
# that capture is still listed: a capture whose key is deleted at once
# restarts under a new id before anyone could ask TiCDC who it was).
suite() {
	{
		insert_suite "$1" 12s 5 caps 50
		echo "faults:"
		echo "  - kind: resign"
		echo "    service: cdc"
		[ -z "$2" ] || echo "    via: $2"
		echo "    until_back: true"
		echo "    hold: 2s"
		echo "    at: [1s]"
	} >"$TRASH/$1.yaml"
}

# nemesis RUN: the resign's result record, times and insert counts as N.
nemesis() {
	grep "\"process\":\"nemesis\",\"type\":\"info\"" "$TRASH/$1/history.jsonl" |
		sed -e "s/^{\"time\":[0-9]*,/{/" -e "s/\"ms\":[0-9]*/\"ms\":N/g" \
		    -e "s/\"took_ms\":[0-9]*/\"took_ms\":N/" \
		    -e "s/\"held_ms\":[0-9]*,\"inserts\":[1-9][0-9]*/\"held_ms\":N,\"inserts\":N/g" \
		    -e "s/,\"fault\":[0-9]*}\$/}/"
}

test_cluster_setup 'set up: a local cluster; cdc-0, a capture, owns' '
	E="http://127.0.0.1:$(port_of "$C" etcd-0)" &&
	take_port port_0 && take_port port_1 &&
	{ sed -n "/^components:/,\$p" "$C/topology.yaml" && capture 0 && capture 1; } >"$T" &&
	touch "$TRASH/hold-cdc-0" &&
	"$TICHAOS" cluster start cdc-0 --cluster "$T" &&
	test_track_pid "$(cat "$TRASH/cdc-0.pid")" &&
	grep -q "become owner $(ids 0)" "$TRASH/cdc-0.log"
'

test_expect_success 'a capture is ready when TiCDC lists it, not when it first answers' '
	"$TICHAOS" cluster start cdc-1 --cluster "$T" >start.out 2>&1 &
	starter=$! &&
	wait_for_condition 10 "test -s \"$TRASH/cdc-1.pid\" && listening $port_1" &&
	test_track_pid "$(cat "$TRASH/cdc-1.pid")" &&
	"$TICHAOS" cluster status --cluster "$T" >out 2>err
	test $? = 3 &&
	grep -Eq "^cdc-1 .* not-ready" out &&
	grep -Fq " warn  cdc-1: GET '\''http://127.0.0.1:$port_1/api/v2/captures'\'': HTTP 503: [CDC:ErrServerIsNotReady]cdc server is not ready" err &&
	alive $starter && ! grep -q "init capture" "$TRASH/cdc-1.log" &&
	touch "$TRASH/hold-cdc-1" &&
	wait $starter &&
	test "$(ids 1 | wc -l)" = 1 &&
	"$TICHAOS" cluster status --cluster "$T" >out &&
	grep -Eq "^cdc-0 .* running" out && grep -Eq "^cdc-1 .* running" out
'

suite etcd etcd

test_expect_success 'resign via etcd: each owner deleted comes back as a new capture; until_back by address' '
	old0=$(ids 0) && old1=$(ids 1) &&
	"$TICHAOS" run "$TRASH/etcd.yaml" --cluster "$T" --out "$TRASH/etcd" >tap 2>err ||
	{ cat err; false; } &&
	new0=$(ids 0 | tail -n 1) && new1=$(ids 1 | tail -n 1) &&
	test "$(ids 0 | wc -l)" = 2 && test "$new0" != "$old0" &&
	test "$(ids 1 | wc -l)" = 2 && test "$new1" != "$old1" &&
	grep -q "suicide $old0: owner key deleted" "$TRASH/cdc-0.log" &&
	grep -q "suicide $old1: owner key deleted" "$TRASH/cdc-1.log" &&
	echo "{\"process\":\"nemesis\",\"type\":\"info\",\"f\":\"resign\",\"target\":\"cdc\",\"value\":{\"election\":\"$OWNER\",\"from\":\"cdc-0\",\"rounds\":[{\"from\":\"cdc-0\",\"to\":\"cdc-1\",\"ms\":N,\"held_ms\":N,\"inserts\":N},{\"from\":\"cdc-1\",\"to\":\"cdc-0\",\"ms\":N,\"held_ms\":N,\"inserts\":N}],\"to\":\"cdc-0\",\"took_ms\":N}}" >expect &&
	nemesis etcd >got && test_cmp expect got &&
	grep "\"process\":\"monitor\"" "$TRASH/etcd/history.jsonl" |
		sed -e "s/.*\"to\":\(.*\)}}$/\1/" | grep -vx "null,\"to_component\":null" >got &&
	printf "%s\n" "\"$old0\",\"to_component\":\"cdc-0\"" \
		"\"$old1\",\"to_component\":\"cdc-1\"" \
		"\"$new0\",\"to_component\":\"cdc-0\"" >expect &&
	test_cmp expect got ||
	{ cat "$TRASH/cdc-0.log" "$TRASH/cdc-1.log"; grep monitor "$TRASH/etcd/history.jsonl"; false; }
'

suite http ""

test_expect_success 'resign via http (the default): the owner hands over and keeps its id' '
	before0=$(ids 0) && before1=$(ids 1) &&
	"$TICHAOS" run "$TRASH/http.yaml" --cluster "$T" --out "$TRASH/http" >tap 2>err ||
	{ cat err "$TRASH/cdc-0.log" "$TRASH/cdc-1.log"; false; } &&
	test "$(ids 0)" = "$before0" && test "$(ids 1)" = "$before1" &&
	id0=$(ids 0 | tail -n 1) && id1=$(ids 1 | tail -n 1) &&
	grep -q "resign $id0" "$TRASH/cdc-0.log" && grep -q "resign $id1" "$TRASH/cdc-1.log" &&
	echo "{\"process\":\"nemesis\",\"type\":\"info\",\"f\":\"resign\",\"target\":\"cdc\",\"value\":{\"election\":\"$OWNER\",\"from\":\"cdc-0\",\"rounds\":[{\"from\":\"cdc-0\",\"to\":\"cdc-1\",\"ms\":N,\"held_ms\":N,\"inserts\":N},{\"from\":\"cdc-1\",\"to\":\"cdc-0\",\"ms\":N,\"held_ms\":N,\"inserts\":N}],\"to\":\"cdc-0\",\"took_ms\":N}}" >expect &&
	nemesis http >got && test_cmp expect got &&
	grep -q "become owner $id0" "$TRASH/cdc-0.log"
'

# Each deletion of the owner's key restarts that capture; the other owns.
# tiflow's limiter lets a capture restart at once twice (its start is the
# first), then once every 20 s: within a few deletions one of the two
# waits, and while it waits it is not listed. Each deletion waits for the
# deleted capture's fate (back under a new id, or rate limited) and for an
# owner again.
test_expect_success 'a capture restarted too often waits 20 s, unlisted: not ready, and said so' '
	i=0 limited= &&
	while [ -z "$limited" ] && [ $i -lt 6 ]; do
		key=$(owner_key) && test -n "$key" &&
		id=$(etcdctl --endpoints "$E" get --print-value-only "$key") &&
		who=$(grep -l "init capture $id" "$TRASH/cdc-0.log" "$TRASH/cdc-1.log" |
			sed "s/.*\(cdc-[01]\)\.log/\1/") &&
		n=$(grep -c "init capture" "$TRASH/$who.log") &&
		etcdctl --endpoints "$E" del "$key" >/dev/null &&
		wait_for_condition 10 "grep -q \"rate limited\" \"$TRASH/$who.log\" ||
			test \$(grep -c \"init capture\" \"$TRASH/$who.log\") -gt $n" &&
		if grep -q "rate limited" "$TRASH/$who.log"; then
			limited=$who
		fi &&
		wait_for_condition 10 "test -n \"\$(owner_key)\"" || return 1
		i=$((i + 1))
	done &&
	test -n "$limited" &&
	grep -Eq "rate limited: wait [0-9]+ ms" "$TRASH/$limited.log" &&
	eval "port=\$port_${limited#cdc-}" &&
	other=$(test $limited = cdc-0 && echo 1 || echo 0) &&
	eval "other_port=\$port_$other" &&
	"$TICHAOS" cluster status --cluster "$T" >out 2>err
	test $? = 3 &&
	grep -Eq "^$limited .* not-ready" out &&
	grep -Fq " warn  $limited: GET '\''http://127.0.0.1:$port/api/v2/captures'\'' lists no capture at its address (it lists 127.0.0.1:$other_port)" err ||
	{ cat out err "$TRASH/cdc-0.log" "$TRASH/cdc-1.log"; false; }
'

# TiCDC's new architecture: one cdc binary runs either (pingcap/ticdc
# cmd/cdc/server/server.go, --newarch), and the new one will not start
# beside old captures (server/server.go validCheck): cdc-0 and cdc-1 stop
# first (SIGTERM: their keys go), then cdc-2 and cdc-3 start --newarch.
T2="$TRASH/topology-newarch.yaml"
test_expect_success 'the new architecture: status as tiflow'"'"'s, "is-new-arch" in its capture info' '
	"$TICHAOS" cluster kill cdc-0 --signal TERM --cluster "$T" &&
	"$TICHAOS" cluster kill cdc-1 --signal TERM --cluster "$T" &&
	wait_for_condition 10 "test -z \"\$(etcdctl --endpoints $E get --prefix /tidb/cdc/default/__cdc_meta__/ --keys-only)\"" &&
	take_port port_2 && take_port port_3 &&
	{ sed -n "/^components:/,\$p" "$C/topology.yaml" &&
	  capture 2 --newarch && capture 3 --newarch; } >"$T2" &&
	touch "$TRASH/hold-cdc-2" "$TRASH/hold-cdc-3" &&
	"$TICHAOS" cluster start cdc-2 --cluster "$T2" &&
	test_track_pid "$(cat "$TRASH/cdc-2.pid")" &&
	grep -q "become owner $(ids 2)" "$TRASH/cdc-2.log" &&
	"$TICHAOS" cluster start cdc-3 --cluster "$T2" &&
	test_track_pid "$(cat "$TRASH/cdc-3.pid")" &&
	curl -s "http://127.0.0.1:$port_2/api/v2/status" |
		perl -MJSON::PP -e "my \$s = decode_json(join q(), <STDIN>);
			print join(q(,), sort keys %\$s), q( ), (\$s->{is_owner} ? 1 : 0), qq(\n)" >got &&
	echo "cluster_id,git_hash,id,is_owner,liveness,pid,version 1" >expect &&
	test_cmp expect got &&
	etcdctl --endpoints "$E" get --print-value-only \
		"/tidb/cdc/default/__cdc_meta__/capture/$(ids 3)" >info &&
	grep -q "\"is-new-arch\":true" info &&
	grep -q "\"address\":\"127.0.0.1:$port_3\"" info
'

# nosuite NAME VIA LEASE: 5 s of inserts, a resign of TiCDC's owner via
# VIA at 1 s, with lease LEASE when given.
nosuite() {
	{
		insert_suite "$1" 5s 5 caps 50
		echo "faults:"
		echo "  - kind: resign"
		echo "    service: cdc"
		echo "    via: $2"
		[ -z "${3:-}" ] || echo "    lease: $3"
		echo "    at: [1s]"
	} >"$1.yaml"
}

# server/module_election.go in pingcap/ticdc: the coordinator watches no
# owner key. Nothing starts: no run directory, the owner's term and the
# captures as they were.
test_expect_success 'resign cdc via etcd on the new architecture: refused before anything starts (exit 2)' '
	before=$(owner_key rev) && test -n "$before" &&
	lines2=$(wc -l <"$TRASH/cdc-2.log") && lines3=$(wc -l <"$TRASH/cdc-3.log") &&
	for lease in "" revoke; do
		nosuite ne etcd $lease &&
		"$TICHAOS" run ne.yaml --cluster "$T2" --out "$TRASH/ne" >tap 2>all
		test $? = 2 &&
		grep -v "^[0-9:.]* info  " all >err &&
		line=$(grep -n "via: etcd" ne.yaml | cut -d: -f1) &&
		echo "tichaos: ne.yaml:$line:10: via: etcd in fault '"'"'resign'"'"' cdc needs TiCDC'"'"'s old architecture: cdc-2 runs the new one, whose coordinator does not step down when its owner key is deleted (server/module_election.go in pingcap/ticdc); use via: http" >expect &&
		test_cmp expect err &&
		! test -e "$TRASH/ne" || return 1
	done &&
	test "$(owner_key rev)" = "$before" &&
	test "$(ids 2 | wc -l)" = 1 && test "$(ids 3 | wc -l)" = 1 &&
	! sed -n "$((lines2 + 1)),\$p" "$TRASH/cdc-2.log" | grep -Eq "resign|suicide|coordinator stop" &&
	! sed -n "$((lines3 + 1)),\$p" "$TRASH/cdc-3.log" | grep -Eq "resign|suicide|coordinator stop"
'

# api/v2/coordinator.go ResignOwner stops the coordinator, which resigns
# its key and campaigns again (campaignCoordinator) as the same capture.
test_expect_success 'resign cdc via http on the new architecture: the coordinator hands over, same ids' '
	nosuite nh http &&
	"$TICHAOS" run nh.yaml --cluster "$T2" --out "$TRASH/nh" >tap 2>err ||
	{ cat err "$TRASH/cdc-2.log" "$TRASH/cdc-3.log"; false; } &&
	test "$(ids 2 | wc -l)" = 1 && test "$(ids 3 | wc -l)" = 1 &&
	grep -q "resign $(ids 2)" "$TRASH/cdc-2.log" &&
	grep -q "become owner $(ids 3)" "$TRASH/cdc-3.log" &&
	echo "{\"process\":\"nemesis\",\"type\":\"info\",\"f\":\"resign\",\"target\":\"cdc\",\"value\":{\"election\":\"$OWNER\",\"from\":\"cdc-2\",\"rounds\":[{\"from\":\"cdc-2\",\"to\":\"cdc-3\",\"ms\":N}],\"to\":\"cdc-3\",\"took_ms\":N}}" >expect &&
	nemesis nh >got && test_cmp expect got
'

# What the refusal spares: the coordinator's key deleted, the next
# capture is elected at once, and the old coordinator stops only when its
# node manager reads the other's id first (coordinator/coordinator.go);
# alone, it coordinates on with no key, and nobody campaigns. cdc-3 can
# read cdc-2's key before cdc-2 logs its win: the test waits for both.
test_expect_success 'the new coordinator'"'"'s key deleted: on until another owns; alone, on with no key' '
	id2=$(ids 2) && id3=$(ids 3) &&
	key=$(owner_key) && test "$(etcdctl --endpoints "$E" get --print-value-only "$key")" = "$id3" &&
	etcdctl --endpoints "$E" del "$key" >/dev/null &&
	wait_for_condition 10 "grep -q \"coordinator stop $id3: $id2 owns\" \"$TRASH/cdc-3.log\"" &&
	wait_for_condition 10 "test \$(grep -c \"become owner $id2\" \"$TRASH/cdc-2.log\") = 2" &&
	! grep -q suicide "$TRASH/cdc-3.log" && test "$(ids 3)" = "$id3" &&
	wait_for_condition 10 "test \$(grep -c \"campaign $OWNER/\" \"$TRASH/cdc-3.log\") = 2" &&
	"$TICHAOS" cluster kill cdc-3 --signal TERM --cluster "$T2" &&
	key=$(owner_key) && test "$(etcdctl --endpoints "$E" get --print-value-only "$key")" = "$id2" &&
	etcdctl --endpoints "$E" del "$key" >/dev/null &&
	curl -s "http://127.0.0.1:$port_2/api/v2/captures" >got && echo >>got &&
	echo "{\"items\":[{\"address\":\"127.0.0.1:$port_2\",\"cluster_id\":\"default\",\"id\":\"$id2\",\"is_owner\":true}],\"total\":1}" >expect &&
	test_cmp expect got &&
	test -z "$(owner_key)" &&
	! grep -Eq "suicide|coordinator stop" "$TRASH/cdc-2.log" ||
	{ cat got "$TRASH/cdc-2.log" "$TRASH/cdc-3.log"; false; }
'

# pingcap/ticdc serves its own failpoint API in every build
# (api/v2/failpoint.go), not tiflow's /debug/fail/: a capture of it (here
# cdc-3, not the coordinator) gets its failpoint there, found by its GET
# /debug/failpoints, and the heal DELETEs it from there.
test_expect_success 'a failpoint on a new-architecture capture: POST /debug/failpoints, listed, then DELETEd' '
	{
		insert_suite fpnew 4s 5 caps 20
		printf "faults:\n  - kind: failpoint\n    target: cdc-3\n    name: github.com/pingcap/ticdc/x/fp\n    term: return(true)\n    at: [1s]\n    down: 1s\n"
	} >fpnew.yaml &&
	"$TICHAOS" run fpnew.yaml --cluster "$T2" --out "$TRASH/fpnew" >tap 2>err
	code=$?
	# The run starts the captures the tests before left stopped.
	for n in 2 3; do test_track_pid "$(cat "$TRASH/cdc-$n.pid")"; done &&
	{ test $code = 0 || { cat err tap; false; }; } &&
	grep -qx "ok 2 - fault 1 failpoint: 1 of 1 injected, 1 healed" tap &&
	grep -q "\"enabled\":\[{\"component\":\"cdc-3\",\"api\":\"/debug/failpoints\",\"read_back\":\"return(true)\"}\]" fpnew/history.jsonl &&
	grep -q "POST /debug/failpoints: 200" "$TRASH/cdc-3.log" &&
	grep -q "DELETE /debug/failpoints: 200" "$TRASH/cdc-3.log" &&
	test "$(curl -s "http://127.0.0.1:$port_3/debug/failpoints")" = "[]"
'

# One cdc binary runs either architecture, chosen where it starts: the
# flag, else TICDC_NEWARCH=true in its environment (cmd/cdc/server/
# server.go isNewArchEnabled). TiCDC's own tests export TICDC_NEWARCH
# (tests/integration_tests/run.sh); a capture tichaos restarts where it
# is not set comes back as tiflow's, beside captures of the new one. The
# restart says so and fails its heal; with it set, the capture keeps its
# architecture. cdc-4 and cdc-5 are started with it, their start with no
# flag.
T4="$TRASH/topology-env.yaml"
test_expect_success 'a capture restarted without TICDC_NEWARCH: both architectures, the heal fails' '
	"$TICHAOS" cluster kill cdc-2 --signal TERM --cluster "$T2" &&
	"$TICHAOS" cluster kill cdc-3 --signal TERM --cluster "$T2" &&
	wait_for_condition 10 "test -z \"\$(etcdctl --endpoints $E get --prefix /tidb/cdc/default/__cdc_meta__/capture --keys-only)\"" &&
	take_port port_4 && take_port port_5 &&
	{ sed -n "/^components:/,\$p" "$C/topology.yaml" &&
	  capture 4 && capture 5; } >"$T4" &&
	touch "$TRASH/hold-cdc-4" "$TRASH/hold-cdc-5" &&
	for n in 4 5; do
		TICDC_NEWARCH=true "$TICHAOS" cluster start cdc-$n --cluster "$T4" &&
		test_track_pid "$(cat "$TRASH/cdc-$n.pid")" || return 1
	done &&
	etcdctl --endpoints "$E" get --prefix /tidb/cdc/default/__cdc_meta__/capture --print-value-only |
		grep -c "\"is-new-arch\":true" >got && echo 2 >expect && test_cmp expect got &&
	{
		insert_suite arch 4s 5 caps 20
		printf "faults:\n  - kind: kill\n    target: cdc-5\n    signal: TERM\n    at: [1s]\n    down: 1s\n"
	} >arch.yaml &&
	(unset TICDC_NEWARCH; "$TICHAOS" run arch.yaml --cluster "$T4" --out "$TRASH/arch" >tap 2>err)
	test $? = 3 &&
	test_track_pid "$(cat "$TRASH/cdc-5.pid")" &&
	grep -qx "not ok 2 - fault 1 kill: 1 of 1 injected, 0 healed, 1 heals failed" tap &&
	grep -qF "  message: \"TiCDC runs both architectures after the restart: cdc-5 the old one (tiflow), cdc-4 the new one: a capture started without the --newarch or TICDC_NEWARCH=true it had (cmd/cdc/server/server.go in pingcap/ticdc)\"" tap &&
	! grep " - exit " tap ||
	{ cat tap err; false; }
'

test_expect_success 'with TICDC_NEWARCH=true where tichaos runs, the restarted capture keeps the new one' '
	"$TICHAOS" cluster kill cdc-5 --signal TERM --cluster "$T4" &&
	TICDC_NEWARCH=true "$TICHAOS" cluster start cdc-5 --cluster "$T4" &&
	test_track_pid "$(cat "$TRASH/cdc-5.pid")" &&
	TICDC_NEWARCH=true "$TICHAOS" run arch.yaml --cluster "$T4" --out "$TRASH/arch2" >tap 2>err
	code=$?
	test_track_pid "$(cat "$TRASH/cdc-5.pid")" &&
	{ test $code = 0 || { cat tap err; false; }; } &&
	grep -qx "ok 2 - fault 1 kill: 1 of 1 injected, 1 healed" tap &&
	etcdctl --endpoints "$E" get --prefix /tidb/cdc/default/__cdc_meta__/capture --print-value-only |
		grep -c "\"is-new-arch\":true" >got && echo 2 >expect && test_cmp expect got
'

test_done
