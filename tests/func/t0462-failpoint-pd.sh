#!/bin/sh
# failpoint on PD: PD forwards every request under /pd from a follower to
# its leader unless the request carries PD-Allow-follower-handle (tikv/pd
# pkg/utils/apiutil/serverapi/middleware.go, redirector; read at v8.1.2
# c1ee9cf28f6d). Seen on three real v8.1.2 PDs built with_fail: a PUT to
# a follower's /pd/api/v1/fail/NAME answered 204 and the failpoint was on
# in the leader; with the header, in the follower. The PDs here are two
# tests/helpers/go-probe -pd (pingcap/failpoint's own handler behind that
# redirector, the leader named in a file the test writes): the failpoint
# lands in the PD it is aimed at, a follower included; its heal turns it
# off there after the leader moved; a run killed while it is on leaves
# it, and the next run turns it off in that PD.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd curl

FP=tichaos/tests/helpers/go-probe/probeFail
PROBE=$ROOT/tests/helpers/go-probe/go-probe

# lead NAME: NAME is PD's leader from now on.
lead() {
	eval "echo \"$1 http://127.0.0.1:\$port_$(echo "$1" | tr - _)\"" >"$TRASH/leader.tmp" &&
	mv "$TRASH/leader.tmp" "$TRASH/leader"
}

# eval_in NAME: what failpoint.Eval says of $FP in PD NAME now.
eval_in() {
	eval "curl -sf \"http://127.0.0.1:\$port_$(echo "$1" | tr - _)/eval/$FP\""
}

# suite NAME TARGET DOWN: 1 s of inserts, then failpoint $FP of TARGET
# on with return(1) at 1 s for DOWN, the run 2 s longer than that.
suite() {
	{
		insert_suite "$1" "$(( ${3%s} + 2 ))s" 5 fppd 20
		cat <<-END
		faults:
		  - kind: failpoint
		    target: $2
		    name: $FP
		    term: 'return(1)'
		    at: [1s]
		    down: $3
		END
	} >"$TRASH/$1.yaml"
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

test_cluster_setup 'set up a cluster, and two PDs (go-probe -pd) with it, pd-b leading' '
	[ -x "$PROBE" ] || { echo "$PROBE is not built (make unit-tests)"; false; } &&
	take_port port_pd_a && take_port port_pd_b &&
	lead pd-b &&
	sed -e "s/^cluster: local$/cluster: static/" -e "/^port_base:/d" "$T" >pd.yaml &&
	for n in pd-a pd-b; do
		eval "port=\$port_$(echo "$n" | tr - _)" &&
		cat >>pd.yaml <<-EOF || return 1
		  - name: $n
		    roles: [pd]
		    http_url: "http://127.0.0.1:$port/now"
		    start: ["$PROBE", -addr, "127.0.0.1:$port", -pd, $n, -pd-leader, "$TRASH/leader"]
		    pidfile: "$TRASH/$n.pid"
		    log: "$TRASH/$n.log"
		EOF
	done &&
	"$TICHAOS" cluster start pd-a --cluster pd.yaml &&
	"$TICHAOS" cluster start pd-b --cluster pd.yaml &&
	test_track_pid "$(cat pd-a.pid)" && test_track_pid "$(cat pd-b.pid)" &&
	test "$(eval_in pd-a)" = "error failpoint: failpoint does not exist after 0 ms"
'

test_expect_success 'the fake forwards as PD does: a PUT to the follower without the header lands in the leader' '
	curl -sf -X PUT -d "return(2)" "http://127.0.0.1:$port_pd_a/pd/api/v1/fail/$FP" &&
	test "$(eval_in pd-b)" = "value 2 after 0 ms" &&
	test "$(eval_in pd-a)" = "error failpoint: failpoint does not exist after 0 ms" &&
	curl -sf -X DELETE -H "PD-Allow-follower-handle: true" "http://127.0.0.1:$port_pd_b/pd/api/v1/fail/$FP" &&
	test "$(eval_in pd-b)" = "error failpoint: failpoint is disabled after 0 ms"
'

suite follower pd-a 2s

test_expect_success 'a follower targeted: on in that PD, not in the leader; off there at the heal' '
	"$TICHAOS" run follower.yaml --cluster pd.yaml --out "$TRASH/follower" >tap 2>err ||
	{ cat err tap; false; } &&
	grep -qx "ok 2 - fault 1 failpoint: 1 of 1 injected, 1 healed" tap &&
	test "$(record failpoint follower)" = "{\"method\":\"http\",\"failpoint\":\"$FP\",\"term\":\"return(1)\",\"enabled\":[{\"component\":\"pd-a\",\"read_back\":\"return(1)\"}]}" &&
	test "$(record disable follower)" = "{\"disabled\":[{\"component\":\"pd-a\"}]}" &&
	test "$(eval_in pd-a)" = "error failpoint: failpoint is disabled after 0 ms" &&
	test "$(eval_in pd-b)" = "error failpoint: failpoint is disabled after 0 ms" &&
	test -z "$(ls "$TICHAOS_STATE_DIR"/failpoints)"
'

suite leader pd-b 120s

test_expect_success 'the leader targeted, and the lead moves while it holds: the heal turns it off in pd-b' '
	: >tap && : >err &&
	{ "$TICHAOS" run leader.yaml --cluster pd.yaml --out "$TRASH/leader-run" >tap 2>err & } &&
	run=$! && test_track_pid $run &&
	on leader-run &&
	test "$(eval_in pd-b)" = "value 1 after 0 ms" &&
	lead pd-a &&
	kill -INT $run && { wait $run; test $? = 4; } &&
	test "$(record disable leader-run)" = "{\"disabled\":[{\"component\":\"pd-b\"}]}" &&
	test "$(eval_in pd-b)" = "error failpoint: failpoint is disabled after 0 ms" &&
	test -z "$(ls "$TICHAOS_STATE_DIR"/failpoints)"
'

suite long pd-b 120s

test_expect_success 'SIGKILL while on in a follower: the next run turns it off in that PD, and says so' '
	: >tap && : >err &&
	{ "$TICHAOS" run long.yaml --cluster pd.yaml --out "$TRASH/killed" >tap 2>err & } &&
	run=$! && test_track_pid $run &&
	on killed &&
	kill -KILL $run && { wait $run; test $? = 137; } &&
	test "$(eval_in pd-b)" = "value 1 after 0 ms" &&
	grep -qx "pd .*" "$TICHAOS_STATE_DIR"/failpoints/* &&
	insert_suite next 1s 1 fpnext 10 >next.yaml &&
	"$TICHAOS" run next.yaml --cluster pd.yaml --out "$TRASH/next" >tap 2>err ||
	{ cat err tap; false; } &&
	grep -q "warn  pd-b: turned off the failpoint an earlier run left on (DELETE '\''http://127.0.0.1:$port_pd_b/pd/api/v1/fail/$FP'\''; its runner, pid $run, is gone)$" err &&
	test "$(eval_in pd-b)" = "error failpoint: failpoint is disabled after 0 ms" &&
	test -z "$(ls "$TICHAOS_STATE_DIR"/failpoints)"
'

test_done
