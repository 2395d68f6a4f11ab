#!/bin/sh
# On a cluster with TiCDC, a table TiCDC would not replicate costs no run.
# TiCDC replicates a table only with a primary key or a unique key on NOT
# NULL columns (TableInfo.IsEligible in pingcap/tiflow
# cdc/model/schema_storage.go; its integration test
# tests/integration_tests/force_replicate_table has such tables). `run`
# reads each table as the upstream created it, before any workload: exit
# 2 naming the table and its line, the cluster left as it was (attached),
# no run directory. TiCDC here is a fake HTTP server (tests/helpers/
# fake-http.pl) standing beside the local cluster's real servers.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

C="$TRASH/c"
T="$TRASH/topology.yaml"

# suite NAME COLUMNS: one table t (line 6) of COLUMNS and inserts into it.
suite() {
	cat >"$TRASH/$1.yaml" <<-END
	name: $1
	duration: 5s
	seed: 2
	database: elig
	tables:
	  - name: t
	    columns: "$2"
	workloads:
	  - kind: insert
	    tables: t
	    column: a
	    rate: 50
	END
}

# refused NAME: run NAME: exit 2, the one line about table t, no run
# directory, no row inserted.
refused() {
	"$TICHAOS" run "$TRASH/$1.yaml" --cluster "$T" --out "$TRASH/$1" \
		--quiet >"$1.tap" 2>"$1.err"
	code=$?
	test $code = 2 || { echo "exit $code"; cat "$1.err"; return 1; }
	msg="$TRASH/$1.yaml:6:5: table 't' has no primary key and no unique key on NOT NULL columns: TiCDC does not replicate it" &&
	echo "tichaos: $msg" >expect && test_cmp expect "$1.err" &&
	echo "Bail out! $msg" >expect && test_cmp expect "$1.tap" &&
	test ! -e "$TRASH/$1" &&
	test "$(sql "$UP" "select count(*) from elig.t")" = 0
}

test_cluster_setup 'set up: the local cluster and a fake TiCDC capture beside it' '
	take_port port_cdc &&
	cp -R "$DATA/http/cdc-owner" "$TRASH/cdc" &&
	test_capture_files "$TRASH/cdc" x "$port_cdc" &&
	fake_http cdc "$port_cdc" "$TRASH/cdc" &&
	{
		sed -n "/^components:/,\$p" "$C/topology.yaml" &&
		printf "  - name: cdc-x\n    roles: [cdc]\n    http_url: \"http://127.0.0.1:%s\"\n" "$port_cdc"
	} >"$T"
'

suite nokey "a INT, b VARCHAR(20)"

test_expect_success 'a table without any key: refused before any insert, exit 2' '
	refused nokey
'

suite nullable "a INT, b VARCHAR(20), UNIQUE KEY (a)"

test_expect_success 'a unique key on a column that may be NULL is not enough: exit 2' '
	refused nullable
'

suite notnull "a INT NOT NULL, b VARCHAR(20), UNIQUE KEY (a)"

test_expect_success 'a unique key on NOT NULL columns is: the run starts' '
	"$TICHAOS" run "$TRASH/notnull.yaml" --cluster "$T" --out "$TRASH/notnull" \
		--quiet >notnull.tap 2>notnull.err
	test -s "$TRASH/notnull/history.jsonl" &&
	grep -Eqx "ok 1 - workload 1 insert: [0-9]+ ok, 0 fail, 0 info" notnull.tap
'

test_done
