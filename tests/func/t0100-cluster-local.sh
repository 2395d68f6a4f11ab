#!/bin/sh
# The local cluster: up, replication, status, idempotence, attach through
# the topology file, down leaving nothing behind.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

C="$TRASH/c1"

test_expect_success 'cluster up starts every component and writes the topology' '
	test_cluster_up "$C" &&
	test -s "$C/topology.yaml" &&
	grep -q "^cluster: local$" "$C/topology.yaml" &&
	for n in up-0 down-0 etcd-0; do
		grep -q "name: \"$n\"" "$C/topology.yaml" || return 1
		alive "$(cat "$C/$n/tichaos.pid")" || return 1
	done
'

UP=$(port_of "$C" up-0)
DOWN=$(port_of "$C" down-0)
ETCD=$(port_of "$C" etcd-0)

test_expect_success 'ports follow the base: SQL base and base+1, etcd base+2 and +3' '
	listening "$UP" && listening "$DOWN" && listening "$ETCD" &&
	listening $((ETCD + 1))
'

test_expect_success 'root with an empty password works on 127.0.0.1' '
	test "$(sql "$UP" "select current_user()")" = "root@127.0.0.1"
'

test_expect_success 'the upstream runs a ROW binlog with GTIDs' '
	test "$(sql "$UP" "select @@log_bin, @@binlog_format, @@server_id")" = "$(printf "1\tROW\t1")"
'

test_expect_success 'the downstream is crash-safe (GTID slave_pos, relay log recovery), parallel, and skips no error' '
	test "$(sql "$DOWN" "select @@relay_log_recovery, @@slave_parallel_threads, @@server_id, @@slave_skip_errors")" = "$(printf "1\t4\t2\tOFF")" &&
	sqlv "$DOWN" "show slave status" >status &&
	grep -q "Using_Gtid: Slave_Pos$" status &&
	grep -q "Master_Port: $UP$" status &&
	sql "$DOWN" "select engine from information_schema.tables where table_schema=\"mysql\" and table_name=\"gtid_slave_pos\"" >engine &&
	test "$(cat engine)" = InnoDB
'

# How soon is the machine's: the deadline only bounds a replication that
# does not work.
test_expect_success 'a row inserted upstream appears downstream' '
	sql "$UP" "create database t1; create table t1.r (id int primary key, v varchar(20)); insert into t1.r values (1, \"hello\")" &&
	wait_for_condition 30 "test \"\$(sql $DOWN \"select v from t1.r where id = 1\")\" = hello"
'

test_expect_success 'status: every component running, exit 0' '
	"$TICHAOS" cluster status --dir "$C" >out &&
	head -n 1 out | grep -q "^NAME " &&
	grep -Eq "^up-0 +upstream +[0-9]+ +127\.0\.0\.1:$UP +running" out &&
	grep -Eq "^down-0 +downstream,cdc +[0-9]+ +127\.0\.0\.1:$DOWN +running +[0-9]+s$" out &&
	grep -Eq "^etcd-0 +etcd +[0-9]+ +http://127\.0\.0\.1:$ETCD +running" out &&
	test "$(wc -l <out)" = 9 &&
	printf "%-10s %s\n" ELECTION OWNER ddl - autoid - cdc - >expect &&
	sed -n "/^ELECTION/,\$p" out >got && test_cmp expect got
'

test_expect_success 'up on a running cluster is a no-op success' '
	pids_before=$(cat "$C"/*/tichaos.pid) &&
	"$TICHAOS" cluster up --dir "$C" >out 2>&1 &&
	test "$(cat "$C"/*/tichaos.pid)" = "$pids_before"
'

test_expect_success 'the topology file attaches to the running cluster' '
	"$TICHAOS" cluster status --cluster "$C/topology.yaml" >out &&
	test "$(grep -c " running" out)" = 3
'

test_expect_success 'etcd answers on its client URL' '
	ETCDCTL_API=3 etcdctl --endpoints="http://127.0.0.1:$ETCD" put k v >/dev/null &&
	test "$(ETCDCTL_API=3 etcdctl --endpoints="http://127.0.0.1:$ETCD" get k --print-value-only)" = v
'

test_expect_success 'cluster down leaves no process and no listening port' '
	pids=$(cat "$C"/*/tichaos.pid) &&
	"$TICHAOS" cluster down --dir "$C" &&
	for p in $pids; do ! alive "$p" || { echo "pid $p alive"; return 1; }; done &&
	for p in "$UP" "$DOWN" "$ETCD" $((ETCD + 1)); do
		! listening "$p" || { echo "port $p still listening"; return 1; }
	done &&
	! ls "$C"/*/tichaos.pid 2>/dev/null
'

test_expect_success 'status of a stopped cluster: every component stopped, exit 3' '
	"$TICHAOS" cluster status --dir "$C" >out; test $? = 3 &&
	test "$(grep -c " stopped " out)" = 3
'

test_expect_success 'up again keeps the data and replication resumes' '
	"$TICHAOS" cluster up --dir "$C" >/dev/null 2>&1 &&
	test "$(sql "$DOWN" "select v from t1.r where id = 1")" = hello &&
	sql "$UP" "insert into t1.r values (2, \"again\")" &&
	wait_for_condition 5 "test \"\$(sql $DOWN \"select count(*) from t1.r\")\" = 2"
'

test_expect_success 'down --purge removes the directory' '
	"$TICHAOS" cluster down --dir "$C" --purge && test ! -e "$C"
'

test_done
