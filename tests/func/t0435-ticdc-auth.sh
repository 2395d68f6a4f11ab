#!/bin/sh
# TiCDC's authentication and keyspace (docs/topology.md, ticdc:): the
# topology's user, its password from the environment, and the keyspace
# sent on the changefeed requests. TiCDC here is tests/helpers/fake-http.pl
# with TiCDC's middleware as pingcap/ticdc has it (api/v2/api.go, which
# routes take which; api/middleware/authenticate_middleware.go, a 401 of
# CDC:ErrCredentialNotFound or CDC:ErrUnauthorized, the password tried by
# logging in to the upstream, here the local cluster's real MariaDB;
# api/middleware/middleware.go KeyspaceCheckerMiddleware, a 400 of
# CDC:ErrAPIInvalidParam). Checked: the requests the fake got, keyspace
# and all; that a refusal costs no run (exit 2, TiCDC's words on one
# line, no run directory); that the password is in no file of a run.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd mariadb

C="$TRASH/c"
PW="Tk-s3cr3t-pw-4711"

# serve SETS [OPTION...]: (re)start the fake TiCDC cdc-0 with a fresh copy
# of the scenarios tests/data/http/SET (SETS separated by spaces) and the
# fake's OPTIONs; it logs the queries too.
serve() {
	rm -rf "$TRASH/srv" && mkdir -p "$TRASH/srv" || return 1
	for set in $1; do
		cp -R "$DATA/http/$set/." "$TRASH/srv" || return 1
	done
	shift
	test_capture_files "$TRASH/srv" cdc-0 "$port_cdc_0" &&
	fake_http cdc-0 "$port_cdc_0" "$TRASH/srv" --log-query "$@"
}

# requests: what the fake got, readiness GETs (/, the captures), the
# release and the progress line's reads of the default changefeed aside.
requests() {
	grep -v -e "^GET /$" -e "^GET /api/v2/captures$" \
		-e "^GET /api/v2/status$" \
		-e "^GET /api/v2/changefeeds/tichaos\(?keyspace=ks1\)\{0,1\}$" \
		"$TRASH/cdc-0.log"
}

# topology NAME: $TRASH/NAME.yaml: the lines read from stdin (its ticdc:
# section), the local cluster's components and cdc-0.
topology() {
	{
		cat &&
		sed -n "/^components:/,\$p" "$C/topology.yaml" &&
		printf "  - name: \"cdc-0\"\n    roles: [cdc]\n    http_url: \"http://127.0.0.1:%s\"\n" \
			"$port_cdc_0"
	} >"$TRASH/$1.yaml"
}

# run OUT SUITE TOPOLOGY: run the suite into $TRASH/OUT (TICDC_PW as the
# test exported it); the exit status in $rc, the TAP in OUT.tap (insert counts
# blanked), stderr in OUT.err.
run() {
	"$TICHAOS" run "$TRASH/$2.yaml" --cluster "$TRASH/$3.yaml" \
		--out "$TRASH/$1" >"$TRASH/$1.tap" 2>"$TRASH/$1.err"
	rc=$?
	sed -i -e "s/^\(ok 1 - workload 1 insert: \)[0-9]*\( ok, 0 fail, 0 info\)$/\1N\2/" \
		"$TRASH/$1.tap"
}

# refused OUT SUITE TOPOLOGY MESSAGE: the run is refused: exit 2, MESSAGE
# the last line on stderr, no run directory.
refused() {
	run "$1" "$2" "$3"
	test $rc = 2 || { echo "exit $rc"; cat "$TRASH/$1.err"; return 1; }
	echo "tichaos: $4" >"$TRASH/expect" &&
	tail -n 1 "$TRASH/$1.err" | test_cmp "$TRASH/expect" - &&
	{ test ! -e "$TRASH/$1" || { echo "left: $(ls "$TRASH/$1")"; false; }; }
}

# nowhere OUT: the password is in no file of run OUT, its TAP and stderr.
nowhere() {
	! grep -rlF "$PW" "$TRASH/$1" "$TRASH/$1.tap" "$TRASH/$1.err"
}

# tap OUT LINE...: the TAP of run OUT is the plan for the LINEs, then them.
tap() {
	out=$1
	shift
	printf "%s\n" "TAP version 13" "1..$#" "$@" >"$TRASH/expect.tap" &&
	test_cmp "$TRASH/expect.tap" "$TRASH/$out.tap"
}

{
	insert_suite pause 4s 7 auth 50 && echo "requires: [ticdc]" &&
	cat <<-EOF
	faults:
	  - kind: changefeed
	    action: pause
	    changefeed: cf1
	    at: [1s]
	    down: 1s
	    timeout: 2s
	EOF
} >"$TRASH/pause.yaml"
sed -e "s/cf1/cf2/" -e "s/pause$/recreate/" "$TRASH/pause.yaml" >"$TRASH/recreate.yaml"
{ insert_suite plain 2s 7 auth 50 && echo "requires: [ticdc]"; } >"$TRASH/plain.yaml"
AT="$TRASH/pause.yaml:14:5"

test_cluster_setup 'set up: a local cluster with a TiDB user cdc, topologies with and without it' '
	sql "$UP" "create user cdc@\"%\" identified by \"$PW\"" &&
	take_port port_cdc_0 &&
	CDC="http://127.0.0.1:$port_cdc_0" &&
	AUTH="--cdc-users cdc --cdc-tidb 127.0.0.1:$UP" &&
	topology none </dev/null &&
	printf "ticdc:\n  user: \"cdc\"\n  password_env: \"TICDC_PW\"\n" | topology user &&
	printf "ticdc:\n  user: \"bob\"\n  password_env: \"TICDC_PW\"\n" | topology bob &&
	printf "ticdc:\n  user: \"cdc\"\n  password_env: \"TICDC_PW\"\n  keyspace: \"ks1\"\n" |
		topology ks1 &&
	sed -e "s/ks1/ks9/" "$TRASH/ks1.yaml" >"$TRASH/ks9.yaml" &&
	printf "changefeed:\n  id: cf9\n  sink_uri: \"mysql://root@127.0.0.1:3306/\"\n" |
		topology ensure
'

test_expect_success 'the user and its password from the environment: the pause goes through, the password written nowhere' '
	serve "cdc-changefeed-pause cdc-changefeed-status" $AUTH &&
	export TICDC_PW="$PW" &&
	run ok pause user && test $rc = 0 &&
	tap ok "ok 1 - workload 1 insert: N ok, 0 fail, 0 info" \
		"ok 2 - fault 1 changefeed: 1 of 1 injected, 1 healed" &&
	printf "%s\n" "GET /api/v2/changefeeds/cf1/status" \
		"GET /api/v2/unsafe/metadata" \
		"POST /api/v2/changefeeds/cf1/pause" \
		"GET /api/v2/changefeeds/cf1" \
		"POST /api/v2/changefeeds/cf1/resume" \
		"GET /api/v2/changefeeds/cf1" >expect &&
	requests >got && test_cmp expect got &&
	printf "%s\n" "ticdc:" "  user: \"cdc\"" "  password_env: \"TICDC_PW\"" >expect &&
	sed -n "/^ticdc:/,/^[a-z]/p" "$TRASH/ok/topology.yaml" | sed "\$d" >got &&
	test_cmp expect got &&
	test -s "$TRASH/ok/history.jsonl" && test -s "$TRASH/ok/results.json" &&
	nowhere ok
'

test_expect_success 'no user: refused before the run, TiCDC quoted on one line' '
	serve "cdc-changefeed-pause cdc-changefeed-status" $AUTH &&
	refused no pause none "$AT: fault '\''changefeed'\'': changefeed cf1: GET '\''$CDC/api/v2/changefeeds/cf1/status'\'': HTTP 401: [CDC:ErrCredentialNotFound]credential not found: please specify the user and password via authorization header (the topology'\''s ticdc: names no user to send)" &&
	echo "GET /api/v2/changefeeds/cf1/status" >expect &&
	requests >got && test_cmp expect got
'

test_expect_success 'a wrong password: refused with the upstream'\''s access denied, the password written nowhere' '
	serve "cdc-changefeed-pause cdc-changefeed-status" $AUTH &&
	export TICDC_PW="wrong-$PW" &&
	refused wrong pause user "$AT: fault '\''changefeed'\'': changefeed cf1: GET '\''$CDC/api/v2/changefeeds/cf1/status'\'': HTTP 401: [CDC:ErrUnauthorized]user cdc unauthorized, error: [CDC:ErrMySQLConnectionError]fail to open MySQL connection: Error 1045 (28000): Access denied for user '\''cdc'\''@'\''127.0.0.1'\'' (using password: YES) (tichaos sent the topology'\''s ticdc: user '\''cdc'\'' with the password in \$TICDC_PW)" &&
	nowhere wrong
'

test_expect_success 'a user TiCDC does not allow: refused, its words' '
	export TICDC_PW="$PW" &&
	refused bob pause bob "$AT: fault '\''changefeed'\'': changefeed cf1: GET '\''$CDC/api/v2/changefeeds/cf1/status'\'': HTTP 401: [CDC:ErrUnauthorized]user bob unauthorized, error: The user is not allowed. (tichaos sent the topology'\''s ticdc: user '\''bob'\'' with the password in \$TICDC_PW)"
'

test_expect_success 'a keyspace: sent on every changefeed request of a recreate, none on the others' '
	serve "cdc-changefeed-recreate cdc-changefeed-status" $AUTH --cdc-keyspaces ks1 &&
	run ks recreate ks1 && test $rc = 0 &&
	tap ks "ok 1 - workload 1 insert: N ok, 0 fail, 0 info" \
		"ok 2 - fault 1 changefeed: 1 of 1 injected, 1 healed" &&
	printf "%s\n" "GET /api/v2/changefeeds/cf2/status?keyspace=ks1" \
		"GET /api/v2/unsafe/metadata?keyspace=ks1" \
		"GET /api/v2/changefeeds/cf2?keyspace=ks1" \
		"DELETE /api/v2/changefeeds/cf2?keyspace=ks1" \
		"GET /api/v2/changefeeds/cf2?keyspace=ks1" \
		"POST /api/v2/changefeeds?keyspace=ks1" \
		"GET /api/v2/changefeeds/cf2?keyspace=ks1" >expect &&
	requests >got && test_cmp expect got &&
	grep -q "^GET /api/v2/captures$" "$TRASH/cdc-0.log" &&
	! grep "?" "$TRASH/cdc-0.log" | grep -v -e "/api/v2/changefeeds" -e "^GET /api/v2/unsafe/metadata?" &&
	grep -q "^  keyspace: \"ks1\"$" "$TRASH/ks/topology.yaml" &&
	nowhere ks
'

test_expect_success 'next-gen TiCDC without a keyspace, or with one it lacks: refused, its words' '
	refused nks pause user "$AT: fault '\''changefeed'\'': changefeed cf1: GET '\''$CDC/api/v2/changefeeds/cf1/status'\'': HTTP 400: [CDC:ErrAPIInvalidParam]missing required query parameter keyspace, please specify --keyspace or -k (the topology'\''s ticdc: names no keyspace)" &&
	refused ks9 pause ks9 "$AT: fault '\''changefeed'\'': changefeed cf1: GET '\''$CDC/api/v2/changefeeds/cf1/status?keyspace=ks9'\'': HTTP 400: [CDC:ErrAPIInvalidParam]keyspace \"ks9\" does not exist, please check --keyspace or -k (tichaos sent the topology'\''s ticdc: keyspace)"
'

test_expect_success 'the topology changefeed created at the start without a user: refused' '
	serve "cdc-changefeed-recreate" $AUTH &&
	sed -e "s/cf2/cf9/" "$TRASH/srv/GET_api_v2_changefeeds_cf2.2" \
		>"$TRASH/srv/GET_api_v2_changefeeds_cf9" &&
	refused ensure plain ensure "changefeed cf9: not found (GET '\''$CDC/api/v2/changefeeds/cf9'\'': HTTP 400: [CDC:ErrChangeFeedNotExists]changefeed not exists, key: /tidb/cdc/default/default/changefeed/info/cf9), and creating it failed: POST '\''$CDC/api/v2/changefeeds'\'': HTTP 401: [CDC:ErrCredentialNotFound]credential not found: please specify the user and password via authorization header (the topology'\''s ticdc: names no user to send)" &&
	printf "%s\n" "GET /api/v2/changefeeds/cf9" "POST /api/v2/changefeeds" >expect &&
	requests >got && test_cmp expect got
'

# tiflow's TiCDC authenticates the changes only, not GET .../status
# (cdc/api/v2/api.go at v8.1.0): the access check asks GET
# /api/v2/unsafe/metadata too, the one read it authenticates, so that the
# refusal comes before the run, not at the first change.
test_expect_success 'tiflow'\''s TiCDC, whose status does not tell: refused before the run all the same' '
	serve "cdc-changefeed-pause cdc-changefeed-status" --cdc-tiflow $AUTH &&
	refused late pause none "$AT: fault '\''changefeed'\'': changefeed cf1: GET '\''$CDC/api/v2/unsafe/metadata'\'': HTTP 401: [CDC:ErrCredentialNotFound]credential not found: please specify the user and password via authorization header (the topology'\''s ticdc: names no user to send)" &&
	printf "%s\n" "GET /api/v2/changefeeds/cf1/status" \
		"GET /api/v2/unsafe/metadata" >expect &&
	requests >got && test_cmp expect got
'

# TiCDC checks a password by logging in to a TiDB it finds in etcd
# (pkg/upstream/upstream.go VerifyTiDBUser); with none there its 401 says
# so, which is no fault of the credentials: exit 3, not blamed on them.
test_expect_success 'a 401 because TiCDC finds no TiDB to check with: not blamed on the password, exit 3' '
	serve "cdc-changefeed-pause cdc-changefeed-status" --cdc-users cdc --cdc-tidb none &&
	export TICDC_PW="$PW" &&
	run notidb pause user && test $rc = 3 &&
	echo "tichaos: fault '\''changefeed'\'': changefeed cf1: GET '\''$CDC/api/v2/changefeeds/cf1/status'\'': HTTP 401: [CDC:ErrUnauthorized]user cdc unauthorized, error: tidb instance not found in topology, please check if the tidb is running (TiCDC could not check the credentials it was sent: not theirs to mend)" >expect &&
	tail -n 1 notidb.err | test_cmp expect - &&
	! grep -q "password in" notidb.err &&
	grep -q "^Bail out! aborted: fault '\''changefeed'\'': changefeed cf1: " notidb.tap &&
	nowhere notidb
'

# cluster_status TOPOLOGY: `cluster status` on it, stderr in status.err;
# its exit status in $rc.
cluster_status() {
	"$TICHAOS" cluster status --cluster "$TRASH/$1.yaml" >status.out 2>status.err
	rc=$?
}

test_expect_success 'the ticdc: section: its errors at their line, exit 2' '
	printf "ticdc:\n  user: \"a:b\"\n" | topology colon &&
	cluster_status colon && test $rc = 2 &&
	echo "tichaos: $TRASH/colon.yaml:2:9: user: '\''a:b'\'' has a '\'':'\'', which HTTP basic authentication cannot send" >expect &&
	test_cmp expect status.err &&
	printf "ticdc:\n  keyspace: \"ks 1\"\n" | topology space &&
	cluster_status space && test $rc = 2 &&
	echo "tichaos: $TRASH/space.yaml:2:13: keyspace: '\''ks 1'\'' is not a keyspace name (1 to 20 letters, digits, - and _)" >expect &&
	test_cmp expect status.err &&
	printf "ticdc:\n  keyspace: \"k123456789012345678901\"\n" | topology long &&
	cluster_status long && test $rc = 2 &&
	grep -q "^tichaos: $TRASH/long.yaml:2:13: keyspace: " status.err &&
	printf "ticdc:\n  password_env: \"TICDC_PW\"\n" | topology nouser &&
	cluster_status nouser && test $rc = 2 &&
	echo "tichaos: $TRASH/nouser.yaml:2:17: password_env needs the user it is the password of" >expect &&
	test_cmp expect status.err &&
	(unset TICDC_PW && cluster_status user && test $rc = 2) &&
	echo "tichaos: $TRASH/user.yaml:3:17: password_env: the environment variable '\''TICDC_PW'\'' is not set" >expect &&
	test_cmp expect status.err &&
	printf "ticdc:\n  usr: \"cdc\"\n" | topology typo &&
	cluster_status typo && test $rc = 2 &&
	echo "tichaos: $TRASH/typo.yaml:2:3: unknown key '\''usr'\'' in ticdc (did you mean '\''user'\''?)" >expect &&
	test_cmp expect status.err
'

test_done
