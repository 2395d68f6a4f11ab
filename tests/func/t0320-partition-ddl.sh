#!/bin/sh
# partition_ddl as TiCDC's fail_over_ddl_mix script does it
# (tests/integration_tests/fail_over_ddl_mix/run.sh in pingcap/tiflow,
# quoted in docs/suite-format.md): its truncate case truncates p0, p1 and
# p2, three statements; drop_add waits `pause` (the script's sleep 0.5)
# between DROP PARTITION and ADD PARTITION. Read back from the upstream's
# binary log and the history.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

cat >"$TRASH/part.yaml" <<END
name: part
duration: 5s
seed: 4
database: part
tables:
  - name: t
    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
    partition: "RANGE (id) (PARTITION p0 VALUES LESS THAN (200),
      PARTITION p1 VALUES LESS THAN (1000), PARTITION p2 VALUES LESS THAN MAXVALUE)"
workloads:
  - kind: insert
    tables: t
    rate: 50
  - kind: partition_ddl
    tables: t
    ops: [truncate, drop_add]
    every: 1s
END

R="$TRASH/r"

test_expect_success 'a run of truncates and drop_adds passes' '
	test_clusters="$test_clusters $R/cluster" &&
	"$TICHAOS" run "$TRASH/part.yaml" --port-base auto --out "$R" \
		--keep-cluster >tap 2>err || { cat err; false; }
	grep -Eqx "ok 2 - workload 2 partition_ddl: [0-9]+ ok, 0 fail, 0 info" tap
'

test_expect_success 'each truncate truncated p0, p1 and p2, in that order' '
	truncates=$(grep -c "\"type\":\"ok\",\"f\":\"truncate\"" "$R/history.jsonl") &&
	test "$truncates" -ge 1 &&
	UP=$(cat "$R/cluster/port-base") &&
	sql $UP "SHOW BINLOG EVENTS" | grep -o "TRUNCATE PARTITION \`p[0-9]\`" >got &&
	for i in $(seq "$truncates"); do
		printf "TRUNCATE PARTITION \`%s\`\n" p0 p1 p2
	done >expect &&
	test_cmp expect got
'

test_expect_success 'each drop_add waited 500ms between its DROP and its ADD' '
	adds=$(grep -c "\"type\":\"ok\",\"f\":\"drop_add\"" "$R/history.jsonl") &&
	test "$adds" -ge 1 &&
	perl -MJSON::PP -ne "
		my \$o = decode_json(\$_); next unless \$o->{f} eq q(drop_add);
		if (\$o->{type} eq q(invoke)) { \$at = \$o->{time}; next }
		print \$o->{time} - \$at >= 500e6 ? qq(waited\n) : qq(no pause\n);
	" "$R/history.jsonl" >got &&
	for i in $(seq "$adds"); do echo waited; done >expect &&
	test_cmp expect got
'

# bare_names: partition names without backquotes where they need none, as
# the script writes them (tiflow's TiCDC cannot replicate an exchange of a
# back-quoted one: docs/found.md); a name that needs them keeps them.
cat >"$TRASH/bare.yaml" <<'END'
name: bare
duration: 6s
seed: 4
database: bare
tables:
  - name: t
    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
    partition: "RANGE (id) (PARTITION p0 VALUES LESS THAN (200),
      PARTITION p1 VALUES LESS THAN (1000), PARTITION `p-max` VALUES LESS THAN MAXVALUE)"
  - name: u
    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
workloads:
  - kind: insert
    tables: t
    rate: 20
  - kind: partition_ddl
    tables: t
    ops: [truncate, drop_add, exchange, reorganize]
    exchange_with: u
    bare_names: true
    every: 500ms
END

B="$TRASH/b"

test_expect_success 'bare_names: p0 and p1 bare, p-max quoted, in every statement' '
	test_clusters="$test_clusters $B/cluster" &&
	"$TICHAOS" run "$TRASH/bare.yaml" --port-base auto --out "$B" \
		--keep-cluster >btap 2>berr || { cat berr btap; false; }
	UP=$(cat "$B/cluster/port-base") &&
	sql $UP "SHOW BINLOG EVENTS" | grep -o "ALTER TABLE .bare.\..t. .*" >stmts &&
	for op in TRUNCATE DROP ADD EXCHANGE REORGANIZE; do
		grep -q "$op PARTITION" stmts || { echo "no $op"; cat stmts; return 1; }
	done &&
	grep -o "PARTITION [^ (]\+" stmts | sort -u >names &&
	printf "%s\n" "PARTITION \`p-max\`" "PARTITION p0" "PARTITION p00" \
		"PARTITION p00," "PARTITION p01" "PARTITION p02" \
		"PARTITION p1" >expect &&
	test_cmp expect names &&
	grep -q "EXCHANGE PARTITION p0 WITH TABLE \`bare\`\.\`u\`" stmts
'

test_done
