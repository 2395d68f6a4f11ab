#!/bin/sh
# Port bases: two clusters side by side, collisions, auto.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

A="$TRASH/a"
B="$TRASH/b"

test_expect_success 'two clusters with different port bases run at once' '
	test_cluster_up "$A" &&
	base=$(cat "$A/port-base") &&
	other=$(free_port_base "$base") &&
	test_cluster_up "$B" --port-base "$other" &&
	test "$(cat "$B/port-base")" = "$other" &&
	sql "$base" "create database only_a" &&
	sql "$other" "create database only_b" &&
	wait_for_condition 5 "sql $((base + 1)) \"show databases\" | grep -qx only_a" &&
	wait_for_condition 5 "sql $((other + 1)) \"show databases\" | grep -qx only_b" &&
	! sql "$((base + 1))" "show databases" | grep -qx only_b &&
	! sql "$((other + 1))" "show databases" | grep -qx only_a
'

test_expect_success 'a port base that collides with a running cluster: clear error, exit 3' '
	"$TICHAOS" cluster up --dir "$TRASH/c" --port-base "$((base + 2))" >out 2>err
	test $? = 3 &&
	echo "tichaos: port $((base + 2)) of up-0 is already in use (choose another --port-base)" >expect &&
	test_cmp expect err &&
	test ! -e "$TRASH/c"
'

test_expect_success 'a running cluster keeps its port base' '
	"$TICHAOS" cluster up --dir "$A" --port-base "$((base + 20))" 2>err
	test $? = 2 &&
	echo "tichaos: the cluster in '\''$A'\'' is running with port base $base; run '\''cluster down'\'' first" >expect &&
	test_cmp expect err
'

test_expect_success 'a stopped cluster moves to a new port base' '
	"$TICHAOS" cluster down --dir "$B" &&
	moved=$(free_port_base "$other") &&
	"$TICHAOS" cluster up --dir "$B" --port-base "$moved" >/dev/null 2>&1 &&
	test "$(cat "$B/port-base")" = "$moved" &&
	sql "$moved" "create table only_b.t (id int primary key); insert into only_b.t values (7)" &&
	wait_for_condition 5 "test \"\$(sql $((moved + 1)) \"select id from only_b.t\")\" = 7"
'

test_expect_success 'cluster down of one leaves the other running' '
	"$TICHAOS" cluster down --dir "$B" &&
	"$TICHAOS" cluster status --dir "$A" >out &&
	test "$(grep -c " running" out)" = 3
'

test_done
