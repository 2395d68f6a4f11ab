#!/bin/sh
# resign `via: http` (and PD's resign, always HTTP) against fake TiDB, PD
# and TiCDC servers: tests/helpers/fake-http.pl answering with the real
# servers' shapes from tests/data/http/. The local cluster's etcd holds the
# elections, with campaigners standing in for the owner managers. Checked:
# which servers are asked and in which order, and what the TAP, the exit
# status and the history say when they answer success, "not the owner",
# an error, or nothing.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd etcdctl

CAMPAIGNER="$ROOT/tests/helpers/campaigner"
[ -x "$CAMPAIGNER" ] || { echo "Bail out! $CAMPAIGNER is not built (make unit-tests)"; exit 1; }

C="$TRASH/c"
T="$TRASH/topology.yaml"
DDL=/tidb/ddl/fg/owner
CDC=/tidb/cdc/default/__cdc_meta__/owner

# serve NAME SET: (re)start the fake server NAME on its port with a fresh
# copy of tests/data/http/SET and an empty log $TRASH/NAME.log. Before any
# resign answer it notes NAME in $TRASH/order; before a 200 it also
# deletes NAME's key in its election when NAME campaigns ($TRASH/camp-NAME
# .log), as the real server resigns its election before it answers, and
# waits (up to 5 s) until NAME has campaigned again: TiDB's owner manager
# does so at once, on the watch of its key, the campaigner within tens of
# milliseconds, polling; a resign that came in between would find NAME
# not yet a candidate, and until_back would go round once more
# (tidb-0 -> tidb-0) on a busy machine.
serve() {
	eval "port=\$port_$(echo "$1" | tr - _)"
	rm -rf "$TRASH/srv/$1" &&
	mkdir -p "$TRASH/srv" && cp -R "$DATA/http/$2" "$TRASH/srv/$1" || return 1
	# A capture is ready once TiCDC lists it at its address.
	case $1 in cdc-*)
		test_capture_files "$TRASH/srv/$1" "$1" "$port" || return 1
	esac
	for f in "$TRASH/srv/$1"/POST_*; do
		echo "echo $1 >>'$TRASH/order'" >"$f.run"
		if head -n 1 "$f" | grep -q "^200" && [ -e "$TRASH/camp-$1.log" ]; then
			cat >>"$f.run" <<-EOF
			n=\$(grep -c ' campaign ' '$TRASH/camp-$1.log')
			key=\$(sed -n 's/^[0-9]* campaign //p' '$TRASH/camp-$1.log' | tail -n 1)
			etcdctl --endpoints '$E' del "\$key" >/dev/null
			i=0
			while [ \$(grep -c ' campaign ' '$TRASH/camp-$1.log') -le \$n ] && [ \$i -lt 250 ]; do
				sleep 0.02
				i=\$((i + 1))
			done
			EOF
		fi
	done
	fake_http "$1" "$port" "$TRASH/srv/$1"
}

# campaign NAME PREFIX: a candidate NAME in election PREFIX; returns once
# it has put its key.
campaign() {
	"$CAMPAIGNER" "$E" "$2" "$1" >"$TRASH/camp-$1.log" 2>&1 &
	test_track_pid $!
	wait_for_condition 5 "grep -q campaign '$TRASH/camp-$1.log'"
}

# suite NAME: $TRASH/NAME.yaml, 2 s of inserts at 100/s with the fault
# items read from stdin (2 s, not 4: eight runs stay well under a minute).
suite() {
	{ insert_suite "$1" 2s 7 rh 100 && echo "faults:"; } >"$TRASH/$1.yaml"
	cat >>"$TRASH/$1.yaml"
}

# run OUT SUITE [ARGS]: run suite SUITE on the topology into $TRASH/OUT,
# the fakes' logs and $TRASH/order emptied first; the exit status in $rc,
# the TAP in OUT.tap (insert counts blanked), stderr in OUT.err, the
# nemesis records in OUT.nemesis (times blanked).
run() {
	out=$1 name=$2
	shift 2
	for n in tidb-0 tidb-1 pd-0 cdc-0; do
		: >"$TRASH/$n.log"
	done
	rm -f "$TRASH/order"
	"$TICHAOS" run "$TRASH/$name.yaml" --cluster "$T" --out "$TRASH/$out" "$@" \
		>"$TRASH/$out.tap" 2>"$TRASH/$out.err"
	rc=$?
	sed -i -e "s/^\(ok 1 - workload 1 insert: \)[0-9]*\( ok, 0 fail, 0 info\)$/\1N\2/" \
		"$TRASH/$out.tap"
	grep "\"process\":\"nemesis\"" "$TRASH/$out/history.jsonl" |
		sed -e "s/^{\"time\":[0-9]*,/{/" -e "s/\"ms\":[0-9]*/\"ms\":N/g" \
		    -e "s/\"took_ms\":[0-9]*/\"took_ms\":N/" \
		    -e "s/,\"fault\":[0-9]*}\$/}/" >"$TRASH/$out.nemesis"
}

# fetch METHOD URL: "STATUS CONTENT-TYPE", then the body, as a client sees
# them.
fetch() {
	perl -MHTTP::Tiny -e '
		my $r = HTTP::Tiny->new(no_proxy => ["127.0.0.1"])->request(@ARGV);
		print "$r->{status} $r->{headers}{q(content-type)}\n$r->{content}\n";
	' "$@"
}

# requests NAME: what fake NAME was asked besides the readiness GETs
# (and a capture's release).
requests() {
	# Readiness checks and the progress line's changefeed reads aside.
	grep -v -e "^GET /$" -e "^GET /api/v2/changefeeds/" \
		-e "^GET /api/v2/captures$" -e "^GET /api/v2/status$" "$TRASH/$1.log"
}

# injected OUT: the run exited 0; its TAP says the fault took effect.
injected() {
	test $rc = 0 &&
	printf "%s\n" "TAP version 13" "1..2" \
		"ok 1 - workload 1 insert: N ok, 0 fail, 0 info" \
		"ok 2 - fault 1 resign: 1 of 1 injected" >"$TRASH/expect.tap" &&
	test_cmp "$TRASH/expect.tap" "$TRASH/$1.tap"
}

# not_injected OUT MESSAGE: the run exited 3; its TAP says the fault did
# not take effect because of MESSAGE (as JSON quotes it), and stderr ends
# saying so.
not_injected() {
	test $rc = 3 &&
	printf "%s\n" "TAP version 13" "1..2" \
		"ok 1 - workload 1 insert: N ok, 0 fail, 0 info" \
		"not ok 2 - fault 1 resign: 0 of 1 injected, 1 did not take effect" \
		"  ---" "  verdict: error" "  message: \"$2\"" \
		"  run_dir: \"$TRASH/$1\"" "  seed: 7" \
		"  replay: \"tichaos replay $TRASH/$1\"" "  ..." >"$TRASH/expect.tap" &&
	test_cmp "$TRASH/expect.tap" "$TRASH/$1.tap" &&
	echo "tichaos: a fault did not take effect, a heal failed or a check could not decide (see the TAP diagnostics)" \
		>"$TRASH/expect.err" &&
	tail -n 1 "$TRASH/$1.err" | test_cmp "$TRASH/expect.err" -
}

# fakes: the topology's items for the fake servers.
fakes() {
	for n in tidb-0:upstream tidb-1:upstream pd-0:pd cdc-0:cdc; do
		eval "port=\$port_$(echo "${n%%:*}" | tr - _)"
		printf '  - name: "%s"\n    roles: [%s]\n    http_url: "%s"\n' \
			"${n%%:*}" "${n#*:}" "http://127.0.0.1:$port"
	done
}

test_cluster_setup 'set up: a local cluster, fakes, a topology with both' '
	E="http://127.0.0.1:$(port_of "$C" etcd-0)" &&
	take_port port_tidb_0 && take_port port_tidb_1 &&
	take_port port_pd_0 && take_port port_cdc_0 &&
	# The fake TiDBs serve no /info/all: status says what the last said.
	NO_INFO_ALL="GET '\''http://127.0.0.1:$port_tidb_1/info/all'\'': HTTP 404: 404 page not found" &&
	serve tidb-0 tidb-not-owner && serve tidb-1 tidb-owner &&
	serve pd-0 pd-leader && serve cdc-0 cdc-owner &&
	{ sed -n "/^components:/,\$p" "$C/topology.yaml" && fakes; } >"$T" &&
	"$TICHAOS" cluster status --cluster "$T" >out &&
	test "$(grep -c " running " out)" = 7 &&
	printf "%-10s %s\n" ELECTION OWNER ddl - ddl "? ($NO_INFO_ALL)" \
		autoid - cdc - pd pd-0 >expect &&
	sed -n "/^ELECTION/,/^\$/p" out | sed "/^\$/d" >got && test_cmp expect got &&
	serve pd-0 pd-leader &&	# its leader sequence from the start again
	: >"$TRASH/tidb-0.log" && : >"$TRASH/tidb-1.log"	# and no /info/all
'

test_expect_success 'the fake answers from its files, logs, 404s the rest' '
	U="http://127.0.0.1:$port_tidb_1" && rm -f order &&
	fetch POST "$U/ddl/owner/resign" >got &&
	fetch GET "$U/" >>got &&
	fetch GET "$U/status?x=1" >>got &&
	printf "%s\n" "200 application/json" "\"success!\"" \
		"200 text/plain; charset=utf-8" "ok" \
		"404 text/plain; charset=utf-8" "404 page not found" "" >expect &&
	test_cmp expect got &&
	printf "%s\n" "POST /ddl/owner/resign" "GET /status" >expect &&
	requests tidb-1 >got && test_cmp expect got &&
	echo tidb-1 >expect && test_cmp expect order
'

test_expect_success 'the fake plays a sequence; the last answer repeats' '
	serve tidb-0 tidb-not-owner-then-owner && rm -f order &&
	U="http://127.0.0.1:$port_tidb_0/ddl/owner/resign" &&
	fetch POST "$U" >got && fetch POST "$U" >>got && fetch POST "$U" >>got &&
	printf "%s\n" "400 text/plain; charset=utf-8" \
		"This node is not a owner, can'\''t be resigned" \
		"200 application/json" "\"success!\"" \
		"200 application/json" "\"success!\"" >expect &&
	test_cmp expect got &&
	printf "%s\n" tidb-0 tidb-0 tidb-0 >expect && test_cmp expect order
'

# The DDL election: tidb-1 owns it, tidb-0 is the next candidate.
test_expect_success 'campaigners for the DDL owner: tidb-1, then tidb-0' '
	campaign tidb-1 $DDL &&
	wait_for_condition 5 "grep -q become \"$TRASH/camp-tidb-1.log\"" &&
	campaign tidb-0 $DDL
'

test_expect_success 'status names the owner of each election' '
	campaign "127.0.0.1:$port_tidb_0" tidb/autoid/leader &&
	"$TICHAOS" cluster status --cluster "$T" >out &&
	printf "%-10s %s\n" ELECTION OWNER ddl tidb-1 ddl "? ($NO_INFO_ALL)" \
		autoid "127.0.0.1:$port_tidb_0 (tidb-0)" cdc - pd pd-0 >expect &&
	sed -n "/^ELECTION/,/^\$/p" out | sed "/^\$/d" >got && test_cmp expect got &&
	serve pd-0 pd-leader
'

suite ddl <<EOF
  - kind: resign
    service: ddl
    via: http
    at: [1s]
EOF

suite back <<EOF
  - kind: resign
    service: ddl
    via: http
    until_back: true
    at: [1s]
EOF

# tidb-1 resigns, then tidb-0, which was not the owner the first time.
test_expect_success 'until_back via http: tidb-1 -> tidb-0 -> tidb-1, three POSTs' '
	serve tidb-0 tidb-not-owner-then-owner && serve tidb-1 tidb-owner &&
	run back back && injected back &&
	cat >expect <<-EOF &&
	{"process":"nemesis","type":"invoke","f":"resign","target":"ddl"}
	{"process":"nemesis","type":"info","f":"resign","target":"ddl","value":{"election":"$DDL","from":"tidb-1","rounds":[{"from":"tidb-1","to":"tidb-0","ms":N},{"from":"tidb-0","to":"tidb-1","ms":N}],"to":"tidb-1","took_ms":N}}
	EOF
	test_cmp expect back.nemesis &&
	printf "%s\n" tidb-0 tidb-1 tidb-0 >expect && test_cmp expect order &&
	printf "%s\n" "POST /ddl/owner/resign" "POST /ddl/owner/resign" >expect &&
	requests tidb-0 >got && test_cmp expect got &&
	echo "POST /ddl/owner/resign" >expect &&
	requests tidb-1 >got && test_cmp expect got
'

test_expect_success 'ddl via http: tidb-0 is not the owner, tidb-1 resigns: exit 0' '
	serve tidb-0 tidb-not-owner && serve tidb-1 tidb-owner &&
	run ddl ddl && injected ddl
'

test_expect_success 'ddl via http: the history has the invoke and the move tidb-1 -> tidb-0' '
	cat >expect <<-EOF &&
	{"process":"nemesis","type":"invoke","f":"resign","target":"ddl"}
	{"process":"nemesis","type":"info","f":"resign","target":"ddl","value":{"election":"$DDL","from":"tidb-1","rounds":[{"from":"tidb-1","to":"tidb-0","ms":N}],"to":"tidb-0","took_ms":N}}
	EOF
	test_cmp expect ddl.nemesis &&
	grep "\"process\":\"monitor\"" ddl/history.jsonl |
		sed -e "s/.*\"value\":\(.*\)}$/\1/" >owners &&
	printf "%s\n" "{\"from\":null,\"to\":\"tidb-1\",\"to_component\":\"tidb-1\"}" \
		"{\"from\":\"tidb-1\",\"to\":\"tidb-0\",\"to_component\":\"tidb-0\"}" >expect &&
	test_cmp expect owners
'

test_expect_success 'ddl via http: POST /ddl/owner/resign on tidb-0, then on tidb-1, nothing else' '
	printf "%s\n" tidb-0 tidb-1 >expect && test_cmp expect order &&
	echo "POST /ddl/owner/resign" >expect &&
	requests tidb-0 >got && test_cmp expect got &&
	requests tidb-1 >got && test_cmp expect got &&
	! requests pd-0 && ! requests cdc-0
'

# TiDB answers 400 (not 500) when it is not the owner; the message quotes
# the last server's answer.
test_expect_success 'ddl via http: no tidb is the owner: exit 3, the last 400 quoted' '
	serve tidb-0 tidb-not-owner && serve tidb-1 tidb-not-owner &&
	run ddl-none ddl &&
	msg="resign via http: no server resigned: tidb-0: POST '\''http://127.0.0.1:$port_tidb_0/ddl/owner/resign'\'': HTTP 400: This node is not a owner, can'\''t be resigned; tidb-1: POST '\''http://127.0.0.1:$port_tidb_1/ddl/owner/resign'\'': HTTP 400: This node is not a owner, can'\''t be resigned" &&
	not_injected ddl-none "$msg" &&
	cat >expect <<-EOF &&
	{"process":"nemesis","type":"invoke","f":"resign","target":"ddl"}
	{"process":"nemesis","type":"fail","f":"resign","target":"ddl","error":"$msg","value":{"election":"$DDL","from":"tidb-0","rounds":[],"to":"tidb-0","took_ms":N}}
	EOF
	test_cmp expect ddl-none.nemesis &&
	printf "%s\n" tidb-0 tidb-1 >expect && test_cmp expect order
'

suite pd <<EOF
  - kind: resign
    service: pd
    at: [1s]
EOF

test_expect_success 'pd: pd-0 answers 200: exit 0, one POST /pd/api/v1/leader/resign' '
	run pd pd && injected pd &&
	cat >expect <<-EOF &&
	{"process":"nemesis","type":"invoke","f":"resign","target":"pd"}
	{"process":"nemesis","type":"info","f":"resign","target":"pd","value":{"service":"pd","from":"pd-0","to":"pd-1","took_ms":N}}
	EOF
	test_cmp expect pd.nemesis &&
	printf "%s\n" "GET /pd/api/v1/leader" "POST /pd/api/v1/leader/resign" \
		"GET /pd/api/v1/leader" >expect &&
	requests pd-0 >got && test_cmp expect got &&
	echo pd-0 >expect && test_cmp expect order &&
	! requests tidb-0 && ! requests tidb-1 && ! requests cdc-0
'

test_expect_success 'pd: pd-0 answers 500: exit 3, its JSON error quoted' '
	serve pd-0 pd-error &&
	run pd-error pd &&
	msg="resign via http: no server resigned: pd-0: POST '\''http://127.0.0.1:$port_pd_0/pd/api/v1/leader/resign'\'': HTTP 500: \\\"no valid pd to transfer etcd leader\\\"" &&
	not_injected pd-error "$msg" &&
	cat >expect <<-EOF &&
	{"process":"nemesis","type":"invoke","f":"resign","target":"pd"}
	{"process":"nemesis","type":"fail","f":"resign","target":"pd","error":"$msg","value":{"took_ms":N}}
	EOF
	test_cmp expect pd-error.nemesis &&
	printf "%s\n" "GET /pd/api/v1/leader" "POST /pd/api/v1/leader/resign" >expect &&
	requests pd-0 >got && test_cmp expect got
'

suite cdc <<EOF
  - kind: resign
    service: cdc
    via: http
    at: [1s]
EOF
# 4 s: the monitor records the new owner from etcd's watch, which it
# stops reading when the run ends; under ASan on a loaded machine 1 s
# after the resign was once not enough for its record.
sed -i -e "s/^duration: 2s$/duration: 4s/" "$TRASH/cdc.yaml"

# via: http still reads the owner from the election first and checks the
# move there: with no candidate in TiCDC's election nothing is asked.
test_expect_success 'cdc via http, no owner in the election: exit 3, cdc-0 never asked' '
	run cdc-none cdc &&
	msg="no owner in election '\''$CDC'\''" &&
	not_injected cdc-none "$msg" &&
	cat >expect <<-EOF &&
	{"process":"nemesis","type":"invoke","f":"resign","target":"cdc"}
	{"process":"nemesis","type":"fail","f":"resign","target":"cdc","error":"$msg","value":{"took_ms":N}}
	EOF
	test_cmp expect cdc-none.nemesis &&
	! requests cdc-0 && test ! -e order
'

# The new owner's value (cdc-1, no component's name) is looked up in
# TiCDC's captures (docs/faults.md) twice: by the fault, which tells
# owners by the capture they stand for, when it reads the new owner (once:
# cdc-0's key is gone when the fake answers), and by the monitor, when it
# records it. The fake lists one capture, cdc-0 (it is ready so): cdc-1
# maps to nothing, null. Before the POST, cdc-0 was asked its captures
# only as the readiness check of the run's start.
test_expect_success 'cdc via http, cdc-0 owns, cdc-1 waits: {} from cdc-0, the owner moves' '
	campaign cdc-0 $CDC &&
	wait_for_condition 5 "grep -q become \"$TRASH/camp-cdc-0.log\"" &&
	campaign cdc-1 $CDC &&
	serve cdc-0 cdc-owner &&
	run cdc cdc && injected cdc &&
	cat >expect <<-EOF &&
	{"process":"nemesis","type":"invoke","f":"resign","target":"cdc"}
	{"process":"nemesis","type":"info","f":"resign","target":"cdc","value":{"election":"$CDC","from":"cdc-0","rounds":[{"from":"cdc-0","to":"cdc-1","ms":N}],"to":"cdc-1","took_ms":N}}
	EOF
	test_cmp expect cdc.nemesis &&
	printf "%s\n" "POST /api/v2/owner/resign" "GET /api/v2/captures" \
		"GET /api/v2/captures" >expect &&
	sed -n "/^POST/,\$p" "$TRASH/cdc-0.log" |
		grep -v "^GET /api/v2/changefeeds/" >got && test_cmp expect got &&
	requests cdc-0 | grep -c "^POST" >got && echo 1 >expect && test_cmp expect got &&
	grep "\"process\":\"monitor\"" cdc/history.jsonl |
		sed -e "s/.*\"value\":\(.*\)}$/\1/" >owners &&
	printf "%s\n" "{\"from\":null,\"to\":\"cdc-0\",\"to_component\":\"cdc-0\"}" \
		"{\"from\":\"cdc-0\",\"to\":\"cdc-1\",\"to_component\":null,\"unmapped\":\"GET /api/v2/captures lists no capture '\''cdc-1'\''\"}" >expect &&
	test_cmp expect owners
'

# A server that is down when the fault comes (it answered the readiness
# check): tidb-1 is stopped as soon as the run has started its history;
# the fault comes at 3 s of a 4 s run, which leaves the stop its time (the
# runner offers no event to hold the nemesis on before it injects).
suite late <<EOF
  - kind: resign
    service: ddl
    via: http
    at: [3s]
EOF
sed -i -e "s/^duration: 2s$/duration: 4s/" "$TRASH/late.yaml"

test_expect_success 'ddl via http, tidb-1 down: exit 3, the refused URL named' '
	serve tidb-0 tidb-not-owner && serve tidb-1 tidb-not-owner &&
	{
		(
			wait_for_condition 30 "test -e \"$TRASH/down/history.jsonl\"" &&
			kill -TERM $fake_pid_tidb_1
		) &
	} &&
	watcher=$! &&
	test_track_pid $watcher &&
	run down late &&
	wait $watcher && wait $fake_pid_tidb_1 && ! listening $port_tidb_1 &&
	msg="resign via http: no server resigned: tidb-0: POST '\''http://127.0.0.1:$port_tidb_0/ddl/owner/resign'\'': HTTP 400: This node is not a owner, can'\''t be resigned; tidb-1: cannot POST '\''http://127.0.0.1:$port_tidb_1/ddl/owner/resign'\'': Couldn'\''t connect to server" &&
	not_injected down "$msg" &&
	cat >expect <<-EOF &&
	{"process":"nemesis","type":"invoke","f":"resign","target":"ddl"}
	{"process":"nemesis","type":"fail","f":"resign","target":"ddl","error":"$msg","value":{"election":"$DDL","from":"tidb-0","rounds":[],"to":"tidb-0","took_ms":N}}
	EOF
	test_cmp expect down.nemesis &&
	echo tidb-0 >expect && test_cmp expect order &&
	! requests tidb-1
'

test_done
