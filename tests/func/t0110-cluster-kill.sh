#!/bin/sh
# The cdc role of the local cluster survives kill -9: restarting down-0
# resumes replication with no loss and no duplicate.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

test_cluster_setup 'set up a cluster and a table' '
	sql "$UP" "create database k; create table k.t (id int primary key auto_increment, v int, s varchar(40))"
'

# 5 000 single-row transactions, as an insert workload sends them.
cat >inserts.sql <<SQL
SET autocommit = 1;
$(i=1; while [ $i -le 5000 ]; do echo "INSERT INTO k.t (v, s) VALUES ($i, md5($i));"; i=$((i + 1)); done)
SQL

test_expect_success 'kill -9 down-0 while 5000 inserts run upstream' '
	mariadb --no-defaults -h127.0.0.1 -P"$UP" -uroot <inserts.sql &
	client=$! &&
	test_track_pid $client &&
	wait_for_condition 10 "test \$(sql $DOWN \"select count(*) from k.t\") -gt 500" &&
	victim=$(cat "$C/down-0/tichaos.pid") &&
	kill -9 "$victim" &&
	wait_for_condition 10 "! alive $victim" &&
	"$TICHAOS" cluster status --dir "$C" >status; test $? = 3 &&
	grep -Eq "^down-0 .* stopped " status &&
	wait "$client"
'

test_expect_success 'all 5000 rows are upstream' '
	test "$(sql "$UP" "select count(*), sum(v) from k.t")" = "$(printf "5000\t12502500")"
'

test_expect_success 'cluster up restarts down-0 only' '
	up_pid=$(cat "$C/up-0/tichaos.pid") &&
	"$TICHAOS" cluster up --dir "$C" >/dev/null 2>&1 &&
	test "$(cat "$C/up-0/tichaos.pid")" = "$up_pid" &&
	test "$(cat "$C/down-0/tichaos.pid")" != "$victim"
'

test_expect_success 'replication catches up: same rows, same checksum' '
	wait_for_condition 30 "test \"\$(sql $DOWN \"select count(*) from k.t\")\" = 5000" &&
	test "$(sql "$DOWN" "select count(*), sum(v), count(distinct id) from k.t")" = "$(printf "5000\t12502500\t5000")" &&
	up_sum=$(sql "$UP" "checksum table k.t") &&
	down_sum=$(sql "$DOWN" "checksum table k.t") &&
	test -n "$up_sum" && test "$up_sum" = "$down_sum"
'

test_expect_success 'the replica reports no error and no lag' '
	sqlv "$DOWN" "show slave status" >slave &&
	grep -q "Slave_SQL_Running: Yes$" slave &&
	grep -q "Last_SQL_Errno: 0$" slave &&
	grep -q "Seconds_Behind_Master: 0$" slave
'

test_done
