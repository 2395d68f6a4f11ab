#!/bin/sh
# The etcd leader watch names the component that leads by what serves
# it, not only by its member name: a real PD cluster's members are named
# pd0, pd1, pd2 (--name), its components pd-0, pd-1, pd-2, and three real
# PDs v8.1.2 under a run were recorded "to_component": null at every
# move. Here three real etcd members named m0, m1, m2, started by the
# test on 127.0.0.1, are the components e-0, e-1, e-2 of a static
# topology; etcd's leader moved by `resign service: etcd`.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd etcdctl

test_cluster_setup 'set up a cluster, and three etcd members m0, m1, m2 as e-0, e-1, e-2' '
	take_port c0 && take_port p0 && take_port c1 && take_port p1 &&
	take_port c2 && take_port p2 &&
	ic="m0=http://127.0.0.1:$p0,m1=http://127.0.0.1:$p1,m2=http://127.0.0.1:$p2" &&
	sed -e "s/^cluster: local$/cluster: static/" -e "/^port_base:/d" \
		-e "/name: \"etcd-0\"/,\$d" "$T" >three.yaml &&
	for m in 0 1 2; do
		eval "c=\$c$m p=\$p$m" &&
		mkdir -p "m$m" || return 1
		etcd --name "m$m" --data-dir "$TRASH/m$m/data" \
			--listen-client-urls "http://127.0.0.1:$c" \
			--advertise-client-urls "http://127.0.0.1:$c" \
			--listen-peer-urls "http://127.0.0.1:$p" \
			--initial-advertise-peer-urls "http://127.0.0.1:$p" \
			--initial-cluster "$ic" --initial-cluster-token "t0463-$$" \
			>"m$m/etcd.log" 2>&1 &
		test_track_pid $! &&
		cat >>three.yaml <<-EOF || return 1
		  - name: e-$m
		    roles: [etcd]
		    etcd_url: "http://127.0.0.1:$c"
		EOF
	done &&
	wait_for_condition 60 "etcdctl --endpoints http://127.0.0.1:$c0,http://127.0.0.1:$c1,http://127.0.0.1:$c2 endpoint health --cluster"
'

test_expect_success 'resign service etcd: each leader recorded by member name, with its component' '
	insert_suite mv 5s 3 mvdb 20 >mv.yaml &&
	printf "faults:\n  - kind: resign\n    service: etcd\n    at: [1s]\n" >>mv.yaml &&
	"$TICHAOS" run mv.yaml --cluster three.yaml --out "$TRASH/r1" >tap 2>err ||
	{ cat err tap; false; } &&
	grep -qx "ok 2 - fault 1 resign: 1 of 1 injected" tap &&
	grep "\"target\":\"etcd/leader\"" r1/history.jsonl |
		sed -e "s/.*\"value\":\({[^}]*}\).*/\1/" >moves &&
	test "$(wc -l <moves)" = 2 &&
	first=$(sed -n "1s/.*\"to\":\"m\([012]\)\".*/\1/p" moves) &&
	then=$(sed -n "2s/.*\"to\":\"m\([012]\)\".*/\1/p" moves) &&
	test -n "$first" && test -n "$then" && test "$first" != "$then" &&
	printf "%s\n" "{\"from\":null,\"to\":\"m$first\",\"to_component\":\"e-$first\"}" \
		"{\"from\":\"m$first\",\"to\":\"m$then\",\"to_component\":\"e-$then\"}" >expect &&
	test_cmp expect moves
'

test_done
