#!/bin/sh
# failpoint: a failpoint of pingcap/failpoint turned on in a Go program
# for `down` and off on heal (docs/faults.md), both ways: over its HTTP
# API (the library's own failpoint.HttpHandler, at /fail/ as TiDB mounts
# it) and by a restart with GO_FAILPOINTS (which the library reads in its
# init). The program is tests/helpers/go-probe, built on the library:
# GET /eval/NAME runs failpoint.Eval(NAME), what an Inject site runs, so
# the tests see what the failpoint does, not only what the API says. The
# records exact; ^C turns it off; a SIGKILLed run leaves it on, and the
# next run turns it off (http) or stops the process it started with it
# (restart), saying so; a term the library would refuse, refused at its
# line.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd curl

FP=tichaos/tests/helpers/go-probe/probeFail

# suite NAME TERM DOWN [METHOD [MORE]]: 1 s of inserts, then ... failpoint
# $FP of probe-0 on with TERM at 1 s for DOWN (by METHOD, default http;
# MORE: another option line), the run 2 s longer than that.
suite() {
	{
		insert_suite "$1" "$(( ${3%s} + 2 ))s" 5 fp 20
		cat <<-END
		faults:
		  - kind: failpoint
		    target: probe-0
		    name: $FP
		    term: '$2'
		    at: [1s]
		    down: $3
		${4:+    method: $4}
		${5:+    $5}
		END
	} >"$TRASH/$1.yaml"
}

# eval_fp: what failpoint.Eval says of $FP in probe-0 now.
eval_fp() {
	curl -sf "http://127.0.0.1:$probe/eval/$FP"
}

# on RUN: wait until RUN's history has the failpoint's info record.
on() {
	wait_for_condition 60 "grep -q '\"type\":\"info\",\"f\":\"failpoint\"' '$TRASH/$1/history.jsonl'"
}

# record F RUN: RUN's info record F (failpoint, disable), its value.
record() {
	grep "\"type\":\"info\",\"f\":\"$1\"" "$TRASH/$2/history.jsonl" |
	sed -n 's/.*"value":{\(.*\),"took_ms".*/{\1}/p'
}

test_cluster_setup 'set up a cluster, and go-probe as a component of a topology with it' '
	probe_cluster &&
	test "$(eval_fp)" = "error failpoint: failpoint does not exist after 0 ms"
'

suite http 'return(true)' 3s

test_expect_success 'http: PUT, read back, evaluated true in the program; DELETE, disabled' '
	pid=$(cat probe.pid) &&
	"$TICHAOS" run http.yaml --cluster probe.yaml --out "$TRASH/http" >tap 2>err ||
	{ cat err tap; false; } &&
	grep -qx "ok 2 - fault 1 failpoint: 1 of 1 injected, 1 healed" tap &&
	test "$(record failpoint http)" = "{\"method\":\"http\",\"failpoint\":\"$FP\",\"term\":\"return(true)\",\"enabled\":[{\"component\":\"probe-0\",\"read_back\":\"return(true)\"}]}" &&
	test "$(record disable http)" = "{\"disabled\":[{\"component\":\"probe-0\"}]}" &&
	grep -q "\"type\":\"info\",\"f\":\"failpoint\",\"target\":\"probe-0\",.*\"holds\":\"failpoint\"" http/history.jsonl &&
	test "$(eval_fp)" = "error failpoint: failpoint is disabled after 0 ms" &&
	test "$(cat probe.pid)" = $pid &&
	test -z "$(ls "$TICHAOS_STATE_DIR"/failpoints 2>/dev/null)"
'

suite sleep 'sleep(300)' 120s
suite string 'return("a b")' 120s

test_expect_success 'http, a string and a sleep: what the program evaluates while on; ^C turns it off, exit 4' '
	: >tap && : >err &&
	{ "$TICHAOS" run string.yaml --cluster probe.yaml --out "$TRASH/string" >tap 2>err & } &&
	run=$! && test_track_pid $run &&
	on string &&
	test "$(eval_fp)" = "value a b after 0 ms" &&
	grep -q "\"term\":\"return(\\\\\"a b\\\\\")\",\"enabled\":\[{\"component\":\"probe-0\",\"read_back\":\"return(\\\\\"a b\\\\\")\"}\]" string/history.jsonl &&
	kill -INT $run && { wait $run; test $? = 4; } &&
	test "$(eval_fp)" = "error failpoint: failpoint is disabled after 0 ms" &&
	: >tap && : >err &&
	{ "$TICHAOS" run sleep.yaml --cluster probe.yaml --out "$TRASH/sleep" >tap 2>err & } &&
	run=$! && test_track_pid $run &&
	on sleep &&
	eval_fp >out && grep -Eqx "value <nil> after (3[0-9][0-9]) ms" out &&
	kill -INT $run && { wait $run; test $? = 4; } &&
	test "$(record disable sleep)" = "{\"disabled\":[{\"component\":\"probe-0\"}]}"
'

suite restart 'return(7)' 3s restart

test_expect_success 'restart: started again with GO_FAILPOINTS, evaluated 7; started again without' '
	pid=$(cat probe.pid) &&
	"$TICHAOS" run restart.yaml --cluster probe.yaml --out "$TRASH/restart" >tap 2>err ||
	{ cat err tap; false; } &&
	grep -qx "ok 2 - fault 1 failpoint: 1 of 1 injected, 1 healed" tap &&
	on_pid=$(record failpoint restart | sed -n "s/.*\"pid\":\([0-9]*\).*/\1/p") &&
	test "$(record failpoint restart)" = "{\"method\":\"restart\",\"failpoint\":\"$FP\",\"term\":\"return(7)\",\"enabled\":[{\"component\":\"probe-0\",\"pid\":$on_pid,\"read_back\":\"return(7)\"}]}" &&
	test "$on_pid" != "$pid" &&
	off_pid=$(cat probe.pid) && test_track_pid $off_pid &&
	test "$(record disable restart)" = "{\"disabled\":[{\"component\":\"probe-0\",\"pid\":$off_pid}]}" &&
	test "$off_pid" != "$on_pid" && ! alive $on_pid &&
	! tr "\0" "\n" </proc/$off_pid/environ | grep -q "^GO_FAILPOINTS=" &&
	test "$(eval_fp)" = "error failpoint: failpoint does not exist after 0 ms"
'

suite long 'return(1)' 120s
suite longr 'return(2)' 120s restart

test_expect_success 'SIGKILL while on over http: left on; the next run turns it off and says so' '
	: >tap && : >err &&
	{ "$TICHAOS" run long.yaml --cluster probe.yaml --out "$TRASH/killed" >tap 2>err & } &&
	run=$! && test_track_pid $run &&
	on killed &&
	kill -KILL $run && { wait $run; test $? = 137; } &&
	test "$(eval_fp)" = "value 1 after 0 ms" &&
	test "$(ls "$TICHAOS_STATE_DIR"/failpoints | wc -l)" = 1 &&
	insert_suite next 1s 1 nextdb 10 >next.yaml &&
	"$TICHAOS" run next.yaml --cluster probe.yaml --out "$TRASH/next" >tap 2>err &&
	grep -q "warn  probe-0: turned off the failpoint an earlier run left on (DELETE '"'"'http://127.0.0.1:$probe/fail/$FP'"'"'; its runner, pid $run, is gone)$" err &&
	test "$(eval_fp)" = "error failpoint: failpoint is disabled after 0 ms" &&
	test -z "$(ls "$TICHAOS_STATE_DIR"/failpoints)"
'

test_expect_success 'SIGKILL while on by restart: the next run stops that process, and starts it without' '
	: >tap && : >err &&
	{ "$TICHAOS" run longr.yaml --cluster probe.yaml --out "$TRASH/killedr" >tap 2>err & } &&
	run=$! && test_track_pid $run &&
	on killedr &&
	on_pid=$(cat probe.pid) && test_track_pid $on_pid &&
	kill -KILL $run && { wait $run; test $? = 137; } &&
	test "$(eval_fp)" = "value 2 after 0 ms" &&
	"$TICHAOS" run next.yaml --cluster probe.yaml --out "$TRASH/nextr" >tap 2>err &&
	grep -q "warn  probe-0: stopping pid $on_pid, which an earlier run started with a failpoint (its runner, pid $run, is gone)$" err &&
	! alive $on_pid &&
	pid=$(cat probe.pid) && test_track_pid $pid && alive $pid &&
	! tr "\0" "\n" </proc/$pid/environ | grep -q "^GO_FAILPOINTS=" &&
	test "$(eval_fp)" = "error failpoint: failpoint does not exist after 0 ms" &&
	test -z "$(ls "$TICHAOS_STATE_DIR"/failpoints)"
'

test_expect_success 'TICHAOS_STATE_DIR: a run of another root leaves the record; of its own, turns it off' '
	: >tap && : >err &&
	{ "$TICHAOS" run long.yaml --cluster probe.yaml --out "$TRASH/killed2" >tap 2>err & } &&
	run=$! && test_track_pid $run &&
	on killed2 &&
	kill -KILL $run && { wait $run; test $? = 137; } &&
	mkdir other &&
	TICHAOS_STATE_DIR=$TRASH/other "$TICHAOS" run next.yaml --cluster probe.yaml --out "$TRASH/other-next" >tap 2>err &&
	! grep -q "turned off" err &&
	test "$(eval_fp)" = "value 1 after 0 ms" &&
	test "$(ls "$TICHAOS_STATE_DIR"/failpoints | wc -l)" = 1 &&
	test -z "$(ls other/failpoints 2>/dev/null)" &&
	"$TICHAOS" run next.yaml --cluster probe.yaml --out "$TRASH/own-next" >tap 2>err &&
	grep -q "warn  probe-0: turned off the failpoint an earlier run left on (DELETE .*; its runner, pid $run, is gone)$" err &&
	test "$(eval_fp)" = "error failpoint: failpoint is disabled after 0 ms" &&
	test -z "$(ls "$TICHAOS_STATE_DIR"/failpoints)"
'

test_expect_success 'TICHAOS_STATE_DIR not an absolute path: exit 2, one line, no run directory' '
	{ TICHAOS_STATE_DIR=state "$TICHAOS" run next.yaml --cluster probe.yaml --out "$TRASH/rel" >tap 2>err; test $? = 2; } &&
	grep -x "tichaos: TICHAOS_STATE_DIR: expected an absolute path, not '"'"'state'"'"'" err &&
	test "$(grep -c "^tichaos: " err)" = 1 &&
	test ! -e rel
'

suite noapi 'return(1)' 2s http "api: /nofail/"

test_expect_success 'no failpoint API at that path: not ok, did not take effect, exit 3' '
	"$TICHAOS" run noapi.yaml --cluster probe.yaml --out "$TRASH/noapi" >tap 2>err
	test $? = 3 &&
	grep -qx "not ok 2 - fault 1 failpoint: 0 of 1 injected, 0 healed, 1 did not take effect" tap &&
	grep -q "message: \"PUT '"'"'http://127.0.0.1:$probe/nofail/$FP'"'"': HTTP 404: 404 page not found (no failpoint API there" tap &&
	test -z "$(ls "$TICHAOS_STATE_DIR"/failpoints)"
'

# bad NAME TERM [METHOD]: validate a suite with TERM: exit 2, one line at
# the term (its line in $line), what it says in NAME.err.
bad() {
	suite "$1" "$2" 2s ${3:-} &&
	{ "$TICHAOS" validate "$1.yaml" 2>"$1.err"; test $? = 2; } &&
	line=$(sed -n "/^    term: /=" "$1.yaml") &&
	test "$(wc -l <"$1.err")" = 1
}

q="'"

test_expect_success 'terms the library would refuse or read otherwise: one line each at the term (exit 2)' '
	bad typo "retrun(1)" &&
	echo "tichaos: typo.yaml:$line:11: term in fault ${q}failpoint${q} is not a failpoint term: no action at ${q}retrun(1)${q} (off, return, sleep, panic, break, print, pause)" >expect &&
	test_cmp expect typo.err &&
	bad trail "return(5x)" &&
	echo "tichaos: trail.yaml:$line:11: term in fault ${q}failpoint${q} is not a failpoint term: ${q}(5x)${q} is no value of return (an integer, true or false, a \"string\")" >expect &&
	test_cmp expect trail.err &&
	bad noact "50%" &&
	echo "tichaos: noact.yaml:$line:11: term in fault ${q}failpoint${q} is not a failpoint term: no action at ${q}${q} (off, return, sleep, panic, break, print, pause)" >expect &&
	test_cmp expect noact.err &&
	bad arrow "return(1)->" &&
	echo "tichaos: arrow.yaml:$line:11: term in fault ${q}failpoint${q} is not a failpoint term: nothing after the last ->" >expect &&
	test_cmp expect arrow.err &&
	bad join "return(1)off" &&
	echo "tichaos: join.yaml:$line:11: term in fault ${q}failpoint${q} is not a failpoint term: ${q}off${q} after ${q}return(1)${q}: terms are joined by ->" >expect &&
	test_cmp expect join.err &&
	bad nap "sleep(\"1 s\")" &&
	echo "tichaos: nap.yaml:$line:11: term in fault ${q}failpoint${q} is not a failpoint term: sleep takes milliseconds or a Go duration: sleep(1000), sleep(\"1s\"), not ${q}sleep(\"1 s\")${q}" >expect &&
	test_cmp expect nap.err &&
	bad env "return(\"a=b\")" restart &&
	echo "tichaos: env.yaml:$line:11: term in fault ${q}failpoint${q} holds ${q};${q} or ${q}=${q}, which GO_FAILPOINTS cannot carry (method restart)" >expect &&
	test_cmp expect env.err
'

test_expect_success 'terms the library reads: accepted' '
	for t in "return" "return()" "return(-3)" "return(false)" "off" "pause" \
		"50%return(true)" "0.5%3*sleep(\"1m30s\")" "1*return(1)->off" \
		"panic(\"boom\")" "print" "2*off->return(\"x\")->sleep(5)"; do
		suite ok "$t" 2s &&
		"$TICHAOS" validate ok.yaml 2>err || { echo "$t:"; cat err; return 1; }
	done
'

test_expect_success 'a failpoint without down, and a target without http_url: refused' '
	suite nodown "return(1)" 2s && sed -i "s/down: 2s/down: 0s/" nodown.yaml &&
	{ "$TICHAOS" validate nodown.yaml 2>err; test $? = 2; } &&
	grep -q "nodown.yaml:[0-9]*:[0-9]*: fault .failpoint. needs a .down. above 0s: the heal turns it off$" err &&
	suite nourl "return(1)" 2s && sed -i "s/target: probe-0/target: up-0/" nourl.yaml &&
	{ "$TICHAOS" run nourl.yaml --cluster probe.yaml --out "$TRASH/nourl" 2>err; test $? = 2; } &&
	grep -q "nourl.yaml:[0-9]*:13: fault .failpoint.: up-0 has no http_url to reach its failpoint API (method restart needs none)$" err &&
	test ! -e "$TRASH/nourl"
'

# TiCDC's new architecture serves its own failpoint API in every build,
# no /debug/fail/ (pingcap/ticdc api/v2/failpoint.go): go-probe serves it
# as that handler does, on the same library, so what the failpoint does
# is evaluated. `api` names it here; a capture's is found by itself
# (t0470).
suite json 'return(true)' 3s "" "api: /debug/failpoints"

test_expect_success 'the new TiCDC'\''s API: POST, listed, evaluated true; DELETE ?name=, gone from the list' '
	"$TICHAOS" run json.yaml --cluster probe.yaml --out "$TRASH/json" >tap 2>err ||
	{ cat err tap; false; } &&
	grep -qx "ok 2 - fault 1 failpoint: 1 of 1 injected, 1 healed" tap &&
	test "$(record failpoint json)" = "{\"method\":\"http\",\"failpoint\":\"$FP\",\"term\":\"return(true)\",\"enabled\":[{\"component\":\"probe-0\",\"api\":\"/debug/failpoints\",\"read_back\":\"return(true)\"}]}" &&
	test "$(record disable json)" = "{\"disabled\":[{\"component\":\"probe-0\"}]}" &&
	test "$(curl -sf "http://127.0.0.1:$probe/debug/failpoints")" = "[]" &&
	test "$(eval_fp)" = "error failpoint: failpoint is disabled after 0 ms"
'

suite jsonlong 'return(7)' 120s "" "api: /debug/failpoints"

test_expect_success 'the new TiCDC'\''s API: SIGKILL while on; the next run DELETEs it and says so' '
	: >tap && : >err &&
	{ "$TICHAOS" run jsonlong.yaml --cluster probe.yaml --out "$TRASH/jsonlong" >tap 2>err & } &&
	run=$! && test_track_pid $run &&
	on jsonlong &&
	test "$(curl -sf "http://127.0.0.1:$probe/debug/failpoints")" = "[{\"name\":\"$FP\",\"expr\":\"return(7)\"}]" &&
	test "$(eval_fp)" = "value 7 after 0 ms" &&
	kill -KILL $run && { wait $run; test $? = 137; } &&
	insert_suite next 1s 1 fpnext 10 >next.yaml &&
	"$TICHAOS" run next.yaml --cluster probe.yaml --out "$TRASH/jsonnext" >tap 2>err ||
	{ cat err tap; false; } &&
	grep -q "warn  probe-0: turned off the failpoint an earlier run left on (DELETE '\''http://127.0.0.1:$probe/debug/failpoints?name=$FP'\''; its runner, pid $run, is gone)$" err &&
	test "$(curl -sf "http://127.0.0.1:$probe/debug/failpoints")" = "[]" &&
	test "$(eval_fp)" = "error failpoint: failpoint is disabled after 0 ms"
'

test_done
