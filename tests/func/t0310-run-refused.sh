#!/bin/sh
# A suite that names nothing costs no run. A fault target no component
# could be called is refused before anything starts; a name that is well
# formed but names nothing in the cluster (a typo, a role the cluster does
# not have, a resign with no etcd or servers to ask) is refused once the
# cluster is up, before the schema is made and any workload or fault runs:
# exit 2, one line with file:line:col, what the cluster has instead, a
# TAP Bail out on stdout, the cluster torn down and no run directory left.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

# suite NAME: $TRASH/NAME.yaml, 30 s of inserts, the fault and check items
# from stdin (the first line of theirs is line 13).
suite() {
	{
		insert_suite "$1" 30s 5 refused 100
		cat
	} >"$TRASH/$1.yaml"
}

# refused NAME MESSAGE: run suite NAME on a local cluster of its own: exit
# 2, MESSAGE as the one line on stderr and in the Bail out on stdout,
# nothing of the run left: no directory, no process, no table made.
refused() {
	test_clusters="$test_clusters $TRASH/$1/cluster"
	"$TICHAOS" run "$TRASH/$1.yaml" --out "$TRASH/$1" --port-base auto \
		--quiet >"$1.tap" 2>"$1.err"
	code=$?
	test $code = 2 || { echo "exit $code"; cat "$1.err"; return 1; }
	echo "tichaos: $2" >expect && test_cmp expect "$1.err" &&
	echo "Bail out! $2" >expect && test_cmp expect "$1.tap" &&
	test ! -e "$TRASH/$1" &&
	for f in /proc/[0-9]*/cmdline; do
		if { tr "\0" " " <"$f"; } 2>/dev/null | grep -q "$TRASH/$1/"; then
			echo "left running: $f"
			return 1
		fi
	done
}

HAS="this cluster has roles upstream, downstream, cdc, etcd and components up-0, down-0, etcd-0"

suite shell <<END
faults:
  - kind: kill
    target: "\$(touch $TRASH/touched)"
    every: 4s
END

test_expect_success 'a target no component could be called: exit 2 before anything starts' '
	msg="$TRASH/shell.yaml:14:13: target in fault '\''kill'\'': '\''\$(touch $TRASH/touched)'\'' is not a role or a component name (1 to 64 letters, digits, '\''_'\'', '\''-'\'', '\''.'\'' and '\'':'\'')" &&
	"$TICHAOS" validate "$TRASH/shell.yaml" 2>verr; test $? = 2 &&
	echo "tichaos: $msg" >expect && test_cmp expect verr &&
	refused shell "$msg" && test ! -e "$TRASH/touched"
'

suite typo <<END
faults:
  - kind: kill
    target: cdcc
    every: 4s
END

test_expect_success 'a target that names nothing here: exit 2 once the cluster is up, no workload ran' '
	"$TICHAOS" validate "$TRASH/typo.yaml" >out && echo "ok $TRASH/typo.yaml" >expect &&
	test_cmp expect out &&
	refused typo "$TRASH/typo.yaml:14:13: target in fault '\''kill'\'' names nothing in this cluster: '\''cdcc'\'' (did you mean '\''cdc'\''?); $HAS"
'

suite role <<END
faults:
  - kind: pause
    target: pd
    at: [2s]
    down: 1s
END

test_expect_success 'a role the cluster does not have: exit 2' '
	refused role "$TRASH/role.yaml:14:13: target in fault '\''pause'\'' names nothing in this cluster: '\''pd'\'' (did you mean '\''cdc'\''?); $HAS"
'

suite etcd <<END
faults:
  - kind: resign
    election: /tichaos/test
    etcd: etcd-1
    at: [2s]
END

test_expect_success 'a resign whose etcd names nothing: exit 2, the closest name' '
	refused etcd "$TRASH/etcd.yaml:15:11: etcd in fault '\''resign'\'' names nothing in this cluster: '\''etcd-1'\'' (did you mean '\''etcd-0'\''?); $HAS"
'

suite pd <<END
faults:
  - kind: resign
    service: pd
    at: [2s]
END

test_expect_success 'a resign of the PD leader on a cluster without PD: exit 2' '
	refused pd "$TRASH/pd.yaml:13:5: fault '\''resign'\'' pd: no pd component with an http_url in this cluster to ask"
'

# TiCDC's owner resigns over HTTP unless told otherwise (an etcd delete
# restarts a real capture: docs/faults.md); the local cluster's cdc role
# has no HTTP API to ask.
suite cdc <<END
faults:
  - kind: resign
    service: cdc
    at: [2s]
END

test_expect_success 'a resign of the TiCDC owner goes over HTTP by default: none to ask here, exit 2' '
	refused cdc "$TRASH/cdc.yaml:13:5: fault '\''resign'\'' cdc: no cdc component with an http_url in this cluster to ask"
'

suite logs <<END
checks:
  - kind: logscan
    components: [up-0, down-1]
END

test_expect_success 'a logscan component that names nothing: exit 2' '
	refused logs "$TRASH/logs.yaml:14:17: components in check '\''logscan'\'' names nothing in this cluster: '\''down-1'\'' (did you mean '\''down-0'\''?); $HAS"
'

# An attached cluster (--cluster FILE). A topology tichaos cannot read is
# refused like a suite: exit 2, one line, no run directory. A cluster that
# another run is using (its topology file locked for the run) is refused
# before anything of the run is made: exit 3, one line naming that run's
# pid; the run holding it is not disturbed, and once it ends the cluster
# is free (runner/run.c, lock_cluster).
test_expect_success 'a topology that cannot be read: exit 2, one line, no run directory' '
	insert_suite att 2s 1 attdb 10 >att.yaml &&
	"$TICHAOS" run att.yaml --cluster "$TRASH/none.yaml" --out "$TRASH/a1" >tap 2>err
	test $? = 2 &&
	echo "tichaos: cannot open '\''$TRASH/none.yaml'\'': No such file or directory" >expect &&
	test_cmp expect err &&
	test ! -e "$TRASH/a1" &&
	printf "cluster: static\ncomponents: [\n" >"$TRASH/bad.yaml" &&
	"$TICHAOS" run att.yaml --cluster "$TRASH/bad.yaml" --out "$TRASH/a2" --quiet >tap 2>err
	test $? = 2 &&
	test "$(wc -l <err)" = 1 &&
	grep -q "^tichaos: $TRASH/bad.yaml:3:1: " err &&
	test ! -e "$TRASH/a2"
'

test_expect_success 'a cluster another run is using: a run, cluster up and down refused, exit 3 naming its pid, the first run undisturbed, then free' '
	test_cluster_up "$TRASH/c" &&
	T="$TRASH/c/topology.yaml" &&
	insert_suite first 10s 1 firstdb 20 >first.yaml &&
	printf "checks:\n  - kind: consistency\n" >>first.yaml || return 1
	"$TICHAOS" run first.yaml --cluster "$T" --out "$TRASH/f" >first.tap 2>first.err &
	first=$! &&
	test_track_pid $first &&
	wait_for_condition 60 "test -s $TRASH/f/history.jsonl" &&
	"$TICHAOS" run att.yaml --cluster "$T" --out "$TRASH/a3" >tap 2>err
	test $? = 3 &&
	echo "tichaos: cluster $T is in use by another run (pid $first): one run at a time on a cluster" >expect &&
	test_cmp expect err &&
	echo "Bail out! cluster $T is in use by another run (pid $first): one run at a time on a cluster" >expect &&
	test_cmp expect tap &&
	test ! -e "$TRASH/a3" &&
	for action in up down; do
		{ "$TICHAOS" cluster $action --cluster "$T" >out 2>err; test $? = 3; } &&
		echo "tichaos: cluster $T is in use by a run (pid $first): what its faults hold would be taken from under it; stop the run first" >expect &&
		test_cmp expect err || return 1
	done &&
	{ "$TICHAOS" cluster up --dir "$TRASH/c" >out 2>err; test $? = 3; } &&
	test_cmp expect err &&
	"$TICHAOS" cluster status --cluster "$T" >/dev/null &&
	{ wait $first; code=$?; } &&
	test "$code" = 0 &&
	grep -q "^ok 2 - consistency: 1 tables, [0-9]* rows equal on both sides" first.tap &&
	"$TICHAOS" run att.yaml --cluster "$T" --out "$TRASH/a4" >tap 2>err
'

test_done
