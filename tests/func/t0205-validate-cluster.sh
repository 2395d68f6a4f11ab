#!/bin/sh
# tichaos validate --cluster: a topology looked at as a start would meet
# it, one line per component, before anything starts: its variables, its
# programs on their host, its ports, whether what runs answers.
. "$(dirname "$0")/test-lib.sh"

take_port WEB
take_port OTHER
mkdir "$TRASH/web" "$TRASH/bin" &&
printf '200 text/plain\nok\n' >"$TRASH/web/GET_status" &&
printf '#!/bin/sh\n' >"$TRASH/bin/noexec" &&
chmod 644 "$TRASH/bin/noexec"

# topology FILE: a static topology of one web server (tests/helpers/
# fake-http.pl, started and stopped by tichaos with its pidfile), written
# to FILE.
topology() {
	cat >"$1" <<EOF
cluster: static
components:
  - name: web
    roles: [upstream]
    http_url: "http://127.0.0.1:$WEB/status"
    start: ["perl", "$ROOT/tests/helpers/fake-http.pl", "$WEB", "$TRASH/web", "$TRASH/web.log"]
    pidfile: web.pid
EOF
}

test_expect_success 'an unset variable: its line and column, exit 2' '
	cat >vars.yaml <<-EOF &&
	cluster: static
	components:
	  - name: tidb-0
	    roles: [upstream]
	    start: ["\${NO_SUCH_BIN_T0205}", "-P", "4000"]
	EOF
	{ "$TICHAOS" validate --cluster vars.yaml >out 2>err; test $? = 2; } &&
	test ! -s out &&
	echo "tichaos: vars.yaml:5:13: the environment variable '\''NO_SUCH_BIN_T0205'\'' is not set (\${NO_SUCH_BIN_T0205:-DEFAULT} gives a default)" >expect &&
	test_cmp expect err
'

test_expect_success 'programs not there, not executable, not on PATH; a dir not there; no pid source: a line each, exit 2' '
	cat >progs.yaml <<-EOF &&
	cluster: static
	components:
	  - name: gone
	    roles: [cdc]
	    http_url: "http://127.0.0.1:$OTHER/"
	    start: ["$TRASH/bin/cdc.test", "server"]
	    pidfile: gone.pid
	  - name: noexec
	    roles: [cdc]
	    start: ["$TRASH/bin/noexec"]
	    pidfile: noexec.pid
	  - name: bare
	    roles: [cdc]
	    start: ["no-such-program-t0205"]
	    pidfile: bare.pid
	  - name: relative
	    roles: [cdc]
	    dir: "bin"
	    start: ["./noexec"]
	    pidfile: relative.pid
	  - name: nodir
	    roles: [cdc]
	    dir: "no/such/dir"
	    start: ["true"]
	    pidfile: nodir.pid
	  - name: fine
	    roles: [cdc]
	    start: ["sh", "-c", "sleep 600"]
	    pidfile: fine.pid
	  - name: blind
	    roles: [cdc]
	    start: ["sh", "-c", "sleep 600"]
	EOF
	{ "$TICHAOS" validate --cluster progs.yaml >out 2>err; test $? = 2; } &&
	cat >expect <<-EOF &&
	tichaos: progs.yaml: gone: start: '\''$TRASH/bin/cdc.test'\'' is not there
	tichaos: progs.yaml: noexec: start: '\''$TRASH/bin/noexec'\'' is not executable
	tichaos: progs.yaml: bare: start: '\''no-such-program-t0205'\'' is not there (not on PATH)
	tichaos: progs.yaml: relative: start: '\''./noexec'\'' is not executable
	tichaos: progs.yaml: nodir: its dir '\''$TRASH/no/such/dir'\'' is not there
	tichaos: progs.yaml: blind: a start command but no pid source (pidfile, pid_command or status_pid): tichaos cannot tell it stopped, and never starts it
	tichaos: progs.yaml: 6 of 7 components cannot start as they are
	EOF
	test_cmp expect err &&
	echo "ok fine: stopped, can start" >expect &&
	test_cmp expect out
'

test_expect_success 'stopped, its port free: can start; started: running, answers' '
	topology web.yaml &&
	"$TICHAOS" validate --cluster web.yaml >out 2>err &&
	echo "ok web: stopped, can start" >expect && test_cmp expect out &&
	test ! -s err &&
	"$TICHAOS" cluster up --cluster web.yaml >/dev/null 2>&1 &&
	test_track_pid "$(cat web.pid)" &&
	"$TICHAOS" validate --cluster web.yaml >out 2>err &&
	echo "ok web: running, answers" >expect && test_cmp expect out
'

test_expect_success 'paused: says so, exit 2' '
	pid=$(cat web.pid) &&
	kill -STOP "$pid" &&
	wait_for_condition 30 "grep -q \"^State:.*(stopped)\" /proc/$pid/status" &&
	{ "$TICHAOS" validate --cluster web.yaml >out 2>err; code=$?; } ;
	kill -CONT "$pid" &&
	test "$code" = 2 &&
	cat >expect <<-EOF &&
	tichaos: web.yaml: web: is paused (SIGSTOP)
	tichaos: web.yaml: 1 of 1 components cannot start as they are
	EOF
	test_cmp expect err
'

test_expect_success 'running, but its URL answers nothing: says what did not answer' '
	sed -e "s|127.0.0.1:$WEB/status|127.0.0.1:$OTHER/status|" web.yaml >wrong.yaml &&
	{ "$TICHAOS" validate --cluster wrong.yaml >out 2>err; test $? = 2; } &&
	grep -q "^tichaos: wrong.yaml: web: running, but does not answer: .*127.0.0.1:$OTHER" err &&
	test "$(wc -l <err)" = 2
'

test_expect_success 'stopped while another process has its port: the port taken, exit 2' '
	"$TICHAOS" cluster down --cluster web.yaml &&
	fake_http squatter "$WEB" "$TRASH/web" &&
	{ "$TICHAOS" validate --cluster web.yaml >out 2>err; test $? = 2; } &&
	cat >expect <<-EOF &&
	tichaos: web.yaml: web: port $WEB (http_url) is taken: something listens there while it is stopped
	tichaos: web.yaml: 1 of 1 components cannot start as they are
	EOF
	test_cmp expect err
'

test_expect_success 'no start command, nothing answering: it cannot be started' '
	cat >nostart.yaml <<-EOF &&
	cluster: static
	components:
	  - name: ext
	    roles: [upstream]
	    http_url: "http://127.0.0.1:$OTHER/status"
	EOF
	{ "$TICHAOS" validate --cluster nostart.yaml >out 2>err; test $? = 2; } &&
	grep -q "^tichaos: nostart.yaml: ext: not running, and no start command: tichaos cannot start it (.*127.0.0.1:$OTHER.*)$" err &&
	sed -e "s|$OTHER/status|$WEB/status|" nostart.yaml >up.yaml &&
	"$TICHAOS" validate --cluster up.yaml >out 2>err &&
	echo "ok ext: up, answers" >expect && test_cmp expect out
'

test_expect_success 'suites and a cluster together: each said, the worse exit code' '
	cat >good.yaml <<-EOF &&
	name: g
	database: d
	tables:
	  - name: t
	    columns: "id INT PRIMARY KEY"
	workloads:
	  - kind: insert
	    tables: t
	EOF
	{ "$TICHAOS" validate good.yaml --cluster progs.yaml >out 2>err; test $? = 2; } &&
	grep -qx "ok good.yaml" out &&
	grep -qx "ok fine: stopped, can start" out &&
	grep -qx "tichaos: progs.yaml: 6 of 7 components cannot start as they are" err
'

test_expect_success 'run --dry-run --cluster: the topology looked at first, no plan when it is wrong, exit 2' '
	{ "$TICHAOS" run good.yaml --cluster vars.yaml --dry-run >out 2>err; test $? = 2; } &&
	test ! -s out &&
	echo "tichaos: vars.yaml:5:13: the environment variable '\''NO_SUCH_BIN_T0205'\'' is not set (\${NO_SUCH_BIN_T0205:-DEFAULT} gives a default)" >expect &&
	test_cmp expect err &&
	{ "$TICHAOS" run good.yaml --cluster progs.yaml --dry-run >out 2>err; test $? = 2; } &&
	test ! -s out &&
	test "$(wc -l <err)" = 7 &&
	grep -qx "tichaos: progs.yaml: gone: start: '\''$TRASH/bin/cdc.test'\'' is not there" err &&
	"$TICHAOS" run good.yaml --cluster up.yaml --dry-run >out 2>err &&
	test ! -s err &&
	grep -q "^  \"suite\": \"g\",$" out
'

test_expect_success 'cluster up and run: what cannot start refused on one line before anything starts, exit 2' '
	cat >twobad.yaml <<-EOF &&
	cluster: static
	components:
	  - name: fine
	    roles: [upstream]
	    start: ["sh", "-c", "sleep 600"]
	    pidfile: fine.pid
	  - name: gone
	    roles: [cdc]
	    start: ["$TRASH/bin/cdc.test", "server"]
	    pidfile: gone.pid
	  - name: web
	    roles: [cdc]
	    http_url: "http://127.0.0.1:$WEB/status"
	    start: ["perl", "$ROOT/tests/helpers/fake-http.pl", "$WEB", "$TRASH/web", "$TRASH/web.log"]
	    pidfile: web2.pid
	EOF
	echo "tichaos: 2 of 3 components cannot start as they are: gone: start: '\''$TRASH/bin/cdc.test'\'' is not there; web: port $WEB (http_url) is taken: something listens there while it is stopped" >expect &&
	{ "$TICHAOS" cluster up --cluster twobad.yaml >out 2>err; test $? = 2; } &&
	test_cmp expect err &&
	test ! -e fine.pid &&
	{ "$TICHAOS" run good.yaml --cluster twobad.yaml >out 2>err; test $? = 2; } &&
	grep -qx "tichaos: 2 of 3 components cannot start as they are: gone: .*; web: port $WEB (http_url) is taken: .*" err &&
	test ! -e fine.pid
'

# A capture that dies at once is said at once, with its log, though a
# component before it (here one that nothing starts and nothing answers
# for) is still waited for: each rank of a start is waited for together.
test_expect_success 'a start that dies at once is said while another is still waited for' '
	cat >dies.yaml <<-EOF &&
	cluster: static
	components:
	  - name: tidb-0
	    roles: [upstream]
	    sql: "127.0.0.1:$OTHER"
	  - name: cdc-0
	    roles: [cdc]
	    start: ["sh", "-c", "echo starting; echo \"[FATAL] no such changefeed store\"; echo exiting; exit 1"]
	    pidfile: cdc0.pid
	    log: cdc-0.log
	EOF
	{ "$TICHAOS" cluster up --cluster dies.yaml >out 2>err; test $? = 3; } &&
	echo "tichaos: cdc-0 exited while starting: [FATAL] no such changefeed store; last log line: exiting" >expect &&
	test_cmp expect err
'

test_done
