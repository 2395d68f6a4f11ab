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
#   restarted once too often waits 20 s, unlisted, and tichaos says so.
. "$(dirname "$0")/test-lib.sh"

command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] ||
	skip_all "mariadbd is not installed (make deps)"
command -v etcd >/dev/null 2>&1 || skip_all "etcd is not installed (make deps)"
command -v etcdctl >/dev/null 2>&1 || skip_all "etcdctl is not installed (make deps)"

C="$TRASH/c"
T="$TRASH/topology.yaml"
OWNER=/tidb/cdc/default/__cdc_meta__/owner

# capture N: the fake capture cdc-N's topology item; it registers once
# $TRASH/hold-cdc-N exists.
capture() {
	eval "port=\$port_$1"
	cat <<-EOF
	  - name: cdc-$1
	    roles: [cdc]
	    http_url: "http://127.0.0.1:$port"
	    start: [perl, "$ROOT/tests/helpers/fake-cdc.pl", --pd, "$E", --addr, "127.0.0.1:$port", --log-file, "$TRASH/cdc-$1.log", --hold, "$TRASH/hold-cdc-$1"]
	    pidfile: "$TRASH/cdc-$1.pid"
	    log: "$TRASH/cdc-$1.log"
	EOF
}

# ids N: the capture ids cdc-N has had, in order.
ids() {
	sed -n "s/.*init capture //p" "$TRASH/cdc-$1.log"
}

# owner_key: the owner's key in the election (the lowest create revision).
owner_key() {
	etcdctl --endpoints "$E" get --prefix "$OWNER/" -w json |
		perl -MJSON::PP -MMIME::Base64 -e '
			my $d = decode_json(join "", <STDIN>);
			my ($k) = sort { $a->{create_revision} <=> $b->{create_revision} } @{$d->{kvs} // []};
			print decode_base64($k->{key}), "\n" if $k;'
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

test_expect_success 'set up: a local cluster; cdc-0, a capture, owns' '
	test_cluster_up "$C" &&
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
	{ cat err; false; }
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
	{ cat err "$TRASH/cdc-0.log" "$TRASH/cdc-1.log"; false; }
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

test_done
