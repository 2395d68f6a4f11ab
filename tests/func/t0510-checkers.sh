#!/bin/sh
# More of the checkers on real servers: consistency on a composite key,
# logscan on what was written during the run only, progress.
. "$(dirname "$0")/test-lib.sh"

command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] ||
	skip_all "mariadbd is not installed (make deps)"
command -v etcd >/dev/null 2>&1 || skip_all "etcd is not installed (make deps)"

C="$TRASH/c"
test_expect_success 'set up a cluster to attach to' '
	test_cluster_up "$C"
'
T="$C/topology.yaml"
UP=$(port_of "$C" up-0)
DOWN=$(port_of "$C" down-0)

cat >"$TRASH/composite.yaml" <<EOF
name: composite
duration: 3s
seed: 2
database: comp
tables:
  - name: ck
    columns: "id INT AUTO_INCREMENT, k VARCHAR(8) NOT NULL DEFAULT 'x',
      data VARCHAR(255), PRIMARY KEY (id, k)"
workloads:
  - kind: insert
    tables: ck
    rate: 200
checks:
  - kind: consistency
    sync_timeout: 30s
  - kind: logscan
    patterns: ['panic:']
  - kind: progress
EOF

echo "panic: planted before the run" >>"$C/up-0/mariadbd.log"

test_expect_success 'a clean run on a composite key passes; a line logged before it is ignored' '
	"$TICHAOS" run "$TRASH/composite.yaml" --cluster "$T" --out "$TRASH/r1" >tap 2>err ||
	{ cat err; false; }
	grep -Eqx "ok 2 - consistency: 1 tables, [0-9]+ rows equal on both sides \(sync [0-9.]+s\)" tap &&
	grep -Eqx "ok 3 - logscan: .*" tap &&
	grep -Eqx "ok 4 - progress: 1 replica running, caught up in [0-9.]+s" tap
'

test_expect_success 'composite key: rows removed and changed downstream, named by both columns' '
	sql "$DOWN" "delete from comp.ck where id in (3, 7); update comp.ck set data = \"x\" where id = 5" &&
	"$TICHAOS" check "$TRASH/r1" >tap2 2>err2; test $? = 1 &&
	grep -qx "not ok 1 - consistency" tap2 &&
	grep -q "^  numbers: \"tables=1 differing=1 rows=[0-9]* missing=2 extra=0 changed=1\"$" tap2 &&
	perl -MJSON::PP -e "
		my \$t = decode_json(do { local \$/; <STDIN> })->{checks}[0]{details}{tables}[0];
		print join(q( ), @{\$t->{missing_keys}}, q(/), @{\$t->{changed_keys}}), qq(\n);
	" <"$TRASH/r1/results.json" >keys &&
	echo "id=3,k=x id=7,k=x / id=5,k=x" >expect && test_cmp expect keys
'

test_expect_success 'its fix SQL repairs it' '
	mariadb --no-defaults -h127.0.0.1 -P"$DOWN" -uroot <"$TRASH/r1/fix-sql/comp.ck.sql" &&
	"$TICHAOS" check "$TRASH/r1" >tap3 2>err3 &&
	grep -q "^ok 1 - consistency: " tap3
'

cat >"$TRASH/planted.yaml" <<EOF
name: planted
duration: 4s
seed: 3
database: comp
tables:
  - name: t
    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
workloads:
  - kind: insert
    tables: t
    rate: 100
checks:
  - kind: logscan
    patterns: ['panic:']
EOF

test_expect_success 'logscan finds a panic logged during the run, with file and line' '
	echo "panic: planted before this run too" >>"$C/up-0/mariadbd.log" &&
	{ (sleep 2 && echo "panic: planted during the run" >>"$C/up-0/mariadbd.log") & } &&
	writer=$! && test_track_pid $writer &&
	"$TICHAOS" run "$TRASH/planted.yaml" --cluster "$T" --out "$TRASH/r2" >tap4 2>err4
	test $? = 1 &&
	line=$(grep -n "panic: planted during the run" "$TRASH/r2/logs/up-0.log" | cut -d: -f1) &&
	test -n "$line" &&
	grep -qx "not ok 2 - logscan" tap4 &&
	grep -qx "  message: \"1 match in 1 logs; first logs/up-0.log:$line: panic: planted during the run\"" tap4 &&
	! grep -q "before" "$TRASH/r2/logs/up-0.log"
'

test_expect_success 'progress fails when the replica is stopped' '
	sql "$DOWN" "stop slave" &&
	sed -e "s/  - kind: progress/  - kind: progress\n    timeout: 2s/" "$TRASH/composite.yaml" >p.yaml &&
	mkdir "$TRASH/r3" && cp p.yaml "$TRASH/r3/suite.yaml" && cp "$T" "$TRASH/r3/" &&
	"$TICHAOS" check "$TRASH/r3" >tap5 2>err5; code=$?
	sql "$DOWN" "start slave" &&
	test "$code" = 1 &&
	grep -qx "not ok 3 - progress" tap5 &&
	grep -q "^  message: \"1 of 1 replicas not caught up; down-0: down-0: replication is not running (io No, sql No)\"$" tap5
'

test_done
