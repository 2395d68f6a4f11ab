#!/bin/sh
# The local cluster on hosts of its own (docs/topology.md, "Hosts"): one
# network namespace per component on a bridge, made by up, removed by
# down, by an interrupted up and by the next up after a SIGKILL.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd
need_hosts

C="$TRASH/c"
D="$TRASH/d"

# ours B: every namespace and link tagged with port base B, one a line.
ours() {
	{ ip netns list | cut -d" " -f1 | grep "^tichaos-$1-"
	  ls /sys/class/net | grep -E "^tc[bv]$1(-|\$)"; } | sort
}

test_expect_success 'up --hosts on: one namespace per component, said' '
	test_cluster_up "$C" --port-base auto --hosts on &&
	B=$(cat "$C/port-base") &&
	grep -q "info  hosts: one network namespace per component, on bridge tcb$B (198\.18\.[0-9.]*/28): up-0 198\.18\.[0-9.]*, down-0 198\.18\.[0-9.]*, etcd-0 198\.18\.[0-9.]*, etcd-1 198\.18\.[0-9.]*, etcd-2 198\.18\.[0-9.]* (hosts on was asked for)$" "$C.up.out" &&
	test "$(cat "$C/hosts")" = on &&
	printf "%s\n" "tcb$B" "tcv$B-0" "tcv$B-1" "tcv$B-2" "tcv$B-3" \
		"tcv$B-4" "tichaos-$B-down-0" "tichaos-$B-etcd-0" \
		"tichaos-$B-etcd-1" "tichaos-$B-etcd-2" "tichaos-$B-up-0" |
		sort >expect &&
	ours "$B" >actual &&
	test_cmp expect actual
'

test_expect_success 'each server runs in its own namespace, at its address' '
	for comp in up-0 down-0 etcd-0 etcd-1 etcd-2; do
		test "$(ip netns identify "$(cat "$C/$comp/tichaos.pid")")" = "tichaos-$B-$comp" || return 1
	done &&
	UPA=$(addr_of "$C" up-0) && DOWNA=$(addr_of "$C" down-0) &&
	test "$(ip -n "tichaos-$B-up-0" -4 -o addr show dev eth0 | awk "{print \$4}")" = "$UPA/28" &&
	grep -q "^up-0 .* $UPA:$B  *running" "$C.up.out" &&
	grep -q "^etcd-0 .* http://$(addr_of "$C" etcd-0):$((B + 2))  *running" "$C.up.out"
'

test_expect_success 'a host has a route to its net and none out of it' '
	ip -n "tichaos-$B-up-0" -4 route >routes &&
	test "$(wc -l <routes)" = 1 &&
	grep -q "^198\.18\.[0-9.]*/28 dev eth0 " routes &&
	! ip -n "tichaos-$B-up-0" route get 8.8.8.8 2>err &&
	grep -q "unreachable" err
'

test_expect_success 'root comes from the bridge; replication crosses hosts' '
	gw=$(ip -4 -o addr show dev "tcb$B" | awk "{print \$4}" | cut -d/ -f1) &&
	test "$(mariadb --no-defaults -h"$UPA" -P"$B" -uroot -N -B -e "select current_user()")" = "root@$gw" &&
	mariadb --no-defaults -h"$UPA" -P"$B" -uroot -e "create database across" &&
	wait_for_condition 10 "mariadb --no-defaults -h$DOWNA -P$((B + 1)) -uroot -N -B -e \"show databases\" | grep -qx across" &&
	mariadb --no-defaults -h"$DOWNA" -P"$((B + 1))" -uroot \
		-e "show slave status\G" >slave &&
	grep -q "Master_Host: $UPA$" slave
'

test_expect_success 'another cluster on the same port base leaves these hosts alone' '
	ours "$B" >before &&
	"$TICHAOS" cluster up --dir "$TRASH/lb" --port-base "$B" --hosts off >out 2>err &&
	"$TICHAOS" cluster down --dir "$TRASH/lb" >out 2>err &&
	ours "$B" >after &&
	test_cmp before after &&
	"$TICHAOS" cluster up --dir "$TRASH/hb" --port-base "$B" --hosts on >out 2>all
	test $? = 3 &&
	grep -v "^[0-9:.]* info  " all >err &&
	echo "tichaos: the hosts of port base $B belong to '\''$C'\''; choose another --port-base" >expect &&
	test_cmp expect err &&
	ours "$B" >after &&
	test_cmp before after
'

test_expect_success 'a running cluster keeps its hosts: --hosts off refused, exit 2' '
	"$TICHAOS" cluster up --dir "$C" --hosts off >out 2>err
	test $? = 2 &&
	echo "tichaos: the cluster in '\''$C'\'' is running with hosts on; run '\''cluster down'\'' first" >expect &&
	test_cmp expect err
'

test_expect_success 'up on a running cluster removes a cut a killed run left, and says so' '
	ip netns exec "tichaos-$B-down-0" nft "add table inet tichaos; add chain inet tichaos input { type filter hook input priority -300; }; add rule inet tichaos input ip saddr { 198.18.0.7, $UPA } counter drop" &&
	"$TICHAOS" cluster up --dir "$C" >out 2>err &&
	grep -q "warn  down-0: removing a partition an earlier run left (it dropped what came from 198\.18\.0\.7 $UPA)$" err &&
	! ip netns exec "tichaos-$B-down-0" nft list tables | grep -q tichaos
'

test_expect_success 'down stops every server and removes every host' '
	"$TICHAOS" cluster down --dir "$C" >out 2>err &&
	grep -q "info  removed the hosts of the cluster in '\''$C'\'': " err &&
	ours "$B" >actual &&
	test ! -s actual
'

test_expect_success 'up after a SIGKILL removes what was left, says so, and starts' '
	ip netns add "tichaos-$B-up-0" &&
	ip link add "tcb$B" type bridge &&
	ip link set "tcb$B" alias "$C" &&
	"$TICHAOS" cluster up --dir "$C" --hosts on >out 2>err &&
	grep -q "warn  removed what an earlier cluster in '\''$C'\'' left of its hosts: tichaos-$B-up-0 tcb$B$" err &&
	test "$(ip netns identify "$(cat "$C/up-0/tichaos.pid")")" = "tichaos-$B-up-0" &&
	"$TICHAOS" cluster down --dir "$C" >/dev/null 2>&1 &&
	ours "$B" >actual &&
	test ! -s actual
'

test_expect_success '--hosts off: every component on 127.0.0.1, said' '
	"$TICHAOS" cluster up --dir "$C" --hosts off >out 2>err &&
	grep -q "info  hosts: none, every component on 127.0.0.1 (hosts off was asked for)$" err &&
	test "$(cat "$C/hosts")" = off &&
	test "$(addr_of "$C" up-0)" = 127.0.0.1 &&
	ours "$B" >actual &&
	test ! -s actual &&
	"$TICHAOS" cluster down --dir "$C" >/dev/null 2>&1
'

test_expect_success 'auto takes hosts where namespaces can be made, and says why' '
	TICHAOS_HOSTS=auto "$TICHAOS" cluster up --dir "$C" >out 2>err &&
	grep -q "info  hosts: one network namespace per component, .* (network namespaces can be made here)$" err &&
	ours "$B" >actual &&
	test "$(wc -l <actual)" = 11 &&
	"$TICHAOS" cluster down --dir "$C" >/dev/null 2>&1
'

test_expect_success 'auto without root: every component on 127.0.0.1, and why' '
	command -v setpriv >/dev/null 2>&1 ||
		{ echo "setpriv (util-linux) is missing"; false; } &&
	chmod 755 "$TRASH" && mkdir -m 777 "$TRASH/nb" &&
	# A copy nobody can run wherever the checkout is (/root is 700).
	cp "$TICHAOS" "$TRASH/nb/tichaos" && chmod 755 "$TRASH/nb/tichaos" &&
	test_clusters="$test_clusters $TRASH/nb/c" &&
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		env HOME="$TRASH/nb" TICHAOS_HOSTS=auto \
		"$TRASH/nb/tichaos" cluster up --dir "$TRASH/nb/c" --port-base auto >out 2>err &&
	grep -q "info  hosts: none, every component on 127.0.0.1 (network namespaces cannot be made here: network namespaces need root)$" err &&
	test "$(addr_of "$TRASH/nb/c" up-0)" = 127.0.0.1 &&
	test "$(cat "$TRASH/nb/c/hosts")" = off
'

test_expect_success 'SIGINT while the cluster starts: its hosts are removed' '
	"$TICHAOS" cluster up --dir "$D" --port-base auto --hosts on >dout 2>derr &
	up=$! &&
	wait_for_condition 30 "grep -q \"info  hosts: one network\" derr" &&
	kill -INT $up &&
	{ wait $up; code=$?; } &&
	test "$code" = 4 &&
	DB=$(cat "$D/port-base") &&
	ours "$DB" >actual &&
	test ! -s actual
'

test_expect_success 'a bad --hosts, TICHAOS_HOSTS or cluster.local.hosts: one line, exit 2' '
	"$TICHAOS" cluster up --dir "$C" --hosts maybe >out 2>err
	test $? = 2 &&
	echo "tichaos: cluster: --hosts: expected on, off or auto, not '\''maybe'\''" >expect &&
	test_cmp expect err &&
	TICHAOS_HOSTS=maybe "$TICHAOS" cluster up --dir "$C" >out 2>err
	test $? = 2 &&
	echo "tichaos: TICHAOS_HOSTS: expected on, off or auto, not '\''maybe'\''" >expect &&
	test_cmp expect err &&
	insert_suite bad 5s 1 hostsdb 10 >bad.yaml &&
	echo "cluster: { local: { hosts: maybe } }" >>bad.yaml &&
	"$TICHAOS" validate bad.yaml >out 2>err
	test $? = 2 &&
	line=$(grep -n "hosts: maybe" bad.yaml | cut -d: -f1) &&
	col=$(awk -v l="$line" "NR == l { print index(\$0, \"maybe\") }" bad.yaml) &&
	echo "tichaos: bad.yaml:$line:$col: cluster.local.hosts must be true, false or auto" >expect &&
	test_cmp expect err
'

test_done
