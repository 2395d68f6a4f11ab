#!/bin/sh
# Stale state: pidfiles of dead runs and of unrelated processes.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

C="$TRASH/c"

test_expect_success 'set up and stop a cluster' '
	test_cluster_up "$C" && "$TICHAOS" cluster down --dir "$C"
'

sleep 300 &
stranger=$!
test_track_pid $stranger

test_expect_success 'a pidfile holding an unrelated pid: status says stopped' '
	echo "$stranger" >"$C/down-0/tichaos.pid" &&
	"$TICHAOS" cluster status --dir "$C" >out; test $? = 3 &&
	grep -Eq "^down-0 +downstream,cdc +- .* stopped " out
'

test_expect_success 'down leaves the unrelated process alone and drops the pidfile' '
	"$TICHAOS" cluster down --dir "$C" &&
	alive "$stranger" && test ! -e "$C/down-0/tichaos.pid"
'

test_expect_success 'up starts the component instead of adopting the stranger' '
	echo "$stranger" >"$C/down-0/tichaos.pid" &&
	"$TICHAOS" cluster up --dir "$C" >/dev/null 2>&1 &&
	alive "$stranger" &&
	test "$(cat "$C/down-0/tichaos.pid")" != "$stranger" &&
	alive "$(cat "$C/down-0/tichaos.pid")"
'

test_expect_success 'servers left by a dead runner are found and stopped by down' '
	pids=$(cat "$C"/*/tichaos.pid) &&
	"$TICHAOS" cluster down --dir "$C" &&
	for p in $pids; do ! alive "$p" || return 1; done &&
	alive "$stranger"
'

test_expect_success 'a pidfile of a dead process is ignored' '
	sh -c "exit 0" & dead=$! && wait $dead &&
	echo "$dead" >"$C/up-0/tichaos.pid" &&
	"$TICHAOS" cluster status --dir "$C" >out; test $? = 3 &&
	grep -Eq "^up-0 +upstream +- .* stopped " out
'

test_expect_success 'a pidfile that holds no pid: status says stopped' '
	echo garbage >"$C/up-0/tichaos.pid" &&
	"$TICHAOS" cluster status --dir "$C" >out; test $? = 3 &&
	grep -Eq "^up-0 .* stopped " out
'

# Its first error is of this start: the log holds the earlier starts too,
# and this start's lines begin where the log ended before it (what
# lifecycle.c keeps at the spawn). The error is the one line that says
# "tichaos:" (without the first error when that is the last line too); a
# loaded machine may add warnings (a server killed after its TERM
# grace), which are not what this checks. On a failure, what it printed
# and the log's end are shown.
test_expect_success 'a component that cannot start: its name, first error and last log line' '
	rm -f "$C/up-0/tichaos.pid" &&
	mv "$C/up-0/data" "$C/up-0/data.saved" && mkdir "$C/up-0/data" &&
	from=$(wc -c <"$C/up-0/mariadbd.log") &&
	"$TICHAOS" cluster up --dir "$C" >out 2>all; test $? = 3 &&
	grep "^tichaos: " all >err &&
	test "$(grep -c "\[Note\] Starting MariaDB" "$C/up-0/mariadbd.log")" -gt 1 &&
	first=$(tail -c +$((from + 1)) "$C/up-0/mariadbd.log" |
		grep -m 1 -e "\[ERROR\]" -e "\[FATAL\]") &&
	last=$(grep -v "^$" "$C/up-0/mariadbd.log" | tail -n 1) &&
	if [ "$first" = "$last" ]; then first=; else first=": $first"; fi &&
	echo "tichaos: up-0 exited while starting$first; last log line: $last" >expect &&
	test_cmp expect err || {
		cat all
		tail -n 20 "$C/up-0/mariadbd.log"
		false
	}
'

test_expect_success 'a failed up stops what it started' '
	for n in up-0 down-0 etcd-0; do
		test ! -e "$C/$n/tichaos.pid" || return 1
	done &&
	! pgrep -f "$C/" >/dev/null
'

test_expect_success 'with its data back, the cluster starts again' '
	rm -rf "$C/up-0/data" && mv "$C/up-0/data.saved" "$C/up-0/data" &&
	"$TICHAOS" cluster up --dir "$C" >/dev/null 2>&1 &&
	"$TICHAOS" cluster status --dir "$C" >/dev/null
'

test_expect_success 'a cluster named through a symlink is the same cluster' '
	ln -s "$C" "$TRASH/link" &&
	"$TICHAOS" cluster status --dir "$TRASH/link/" >out &&
	test "$(grep -c " running" out)" = 3 &&
	pids=$(cat "$C"/*/tichaos.pid) &&
	"$TICHAOS" cluster down --dir "$TRASH/link" &&
	for p in $pids; do ! alive "$p" || return 1; done
'

test_done
