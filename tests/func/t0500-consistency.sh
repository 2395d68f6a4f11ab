#!/bin/sh
# The consistency checker on real servers: exact missing / extra / changed
# rows after tamper, fix SQL that repairs them, tables on one side, column
# differences, tables without a key, and a sync that times out.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

test_cluster_setup 'set up a cluster to attach to'

cat >"$TRASH/tamper.yaml" <<EOF
name: tamper
duration: 5s
seed: 9
database: cons
tables:
  - name: t_{1..2}
    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
  - name: nokey
    columns: "a INT, b VARCHAR(20)"
  - name: wide
    columns: "id BIGINT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255), n INT NULL, d DATETIME NULL"
workloads:
  - kind: insert
    tables: t_{1..2}
    rate: 2000
  - kind: insert
    tables: [nokey]
    column: a
    rate: 50
  - kind: insert
    tables: [wide]
    rate: 200
faults:
  - kind: tamper
    table: t_1
    delete: 7
    update: 3
    insert: 2
    at: [4s]
checks:
  - kind: consistency
    sync_timeout: 60s
    chunk_rows: 500
EOF

test_expect_success 'tamper 7/3/2: exactly missing=7 extra=2 changed=3, exit 1' '
	"$TICHAOS" run "$TRASH/tamper.yaml" --cluster "$T" --out "$TRASH/r1" >tap 2>err
	test $? = 1 &&
	grep -qx "not ok 5 - consistency" tap &&
	grep -q "^  numbers: \"tables=4 differing=1 rows=[0-9]* missing=7 extra=2 changed=3\"$" tap &&
	grep -q "^  message: \"1 of 4 tables differ; first: cons.t_1: 7 missing, 2 extra, 3 changed (fix-sql/cons.t_1.sql)\"$" tap
'

test_expect_success 'the keys reported are the keys tampered with' '
	info=$(grep "\"f\":\"tamper\"" "$TRASH/r1/history.jsonl" | grep "\"type\":\"info\"") &&
	for kind in deleted:missing updated:changed inserted:extra; do
		k=${kind%%:*} && r=${kind##*:} &&
		echo "$info" | sed -e "s/.*\"$k\":\[\([0-9,]*\)\].*/\1/" | tr , "\n" | sort -n >want &&
		perl -MJSON::PP -e "
			my \$j = decode_json(do { local \$/; <STDIN> });
			for my \$t (@{ \$j->{checks}[0]{details}{tables} }) {
				next unless \$t->{table} eq q(cons.t_1);
				print map { s/^id=//r . qq(\n) } @{ \$t->{q(${r}_keys)} };
			}" <"$TRASH/r1/results.json" | sort -n >got &&
		test_cmp want got || return 1
	done
'

# Each difference with both sides' rows and its fix, as report.html shows
# them: missing rows upstream only, extra ones downstream only, changed
# ones on both sides with their data apart.
test_expect_success 'the differing rows: both sides and the fix of each' '
	perl -MJSON::PP -e "
		my \$j = decode_json(do { local \$/; <STDIN> });
		my (\$t) = grep { \$_->{table} eq q(cons.t_1) } @{ \$j->{checks}[0]{details}{tables} };
		die qq(columns\n) unless join(q(,), @{ \$t->{columns} }) eq q(id,data);
		my %keys = map { my \$k = \$_; map { (\$_ => \$k) } @{ \$t->{qq(\${k}_keys)} } } qw(missing extra changed);
		my %n;
		for my \$r (@{ \$t->{rows} }) {
			\$n{\$r->{kind}}++;
			die qq(\$r->{key}: kind\n) unless (\$keys{\$r->{key}} // q()) eq \$r->{kind};
			my (\$up, \$down) = (\$r->{up}, \$r->{down});
			if (\$r->{kind} eq q(missing)) {
				die qq(\$r->{key}: sides\n) unless \$up && !\$down && q(id=).\$up->[0] eq \$r->{key};
				die qq(\$r->{key}: fix\n) unless \$r->{fix} =~ /^REPLACE INTO \x60cons\x60.\x60t_1\x60 /;
			} elsif (\$r->{kind} eq q(extra)) {
				die qq(\$r->{key}: sides\n) unless !\$up && \$down && q(id=).\$down->[0] eq \$r->{key};
				die qq(\$r->{key}: fix\n) unless \$r->{fix} =~ /^DELETE FROM \x60cons\x60.\x60t_1\x60 WHERE \x60id\x60 <=> /;
			} else {
				die qq(\$r->{key}: sides\n) unless \$up && \$down && \$up->[0] eq \$down->[0] && \$up->[1] ne \$down->[1];
				die qq(\$r->{key}: fix\n) unless \$r->{fix} =~ /^REPLACE INTO /;
			}
			print \$r->{fix}, qq(\n);
		}
		die qq(counts\n) unless \$n{missing} == 7 && \$n{extra} == 2 && \$n{changed} == 3;
	" <"$TRASH/r1/results.json" >fixes &&
	sort fixes >a && sort "$TRASH/r1/fix-sql/cons.t_1.sql" >b && test_cmp a b &&
	h="$TRASH/r1/report.html" &&
	grep -qx "<h4>cons.t_1: 12 of 12 differing rows</h4>" "$h" &&
	test "$(grep -c "<tr class=\"diff-row\">" "$h")" = 24 &&
	test "$(grep -o "<td class=\"d\">" "$h" | wc -l)" = 24 &&
	test "$(grep -o "<td colspan=\"2\" class=\"d\"><i>no row</i></td>" "$h" | wc -l)" = 9 &&
	! grep -q "\"rows\": \[" "$h"
'

test_expect_success 'the other tables, the keyless one included, are equal' '
	perl -MJSON::PP -e "
		my \$j = decode_json(do { local \$/; <STDIN> });
		for my \$t (@{ \$j->{checks}[0]{details}{tables} }) {
			next if \$t->{table} eq q(cons.t_1);
			print qq(\$t->{table} \$t->{missing} \$t->{extra} \$t->{changed} ),
				(\$t->{up_rows} == \$t->{down_rows} ? q(same) : q(differ)),
				(\$t->{warning} ? qq( \$t->{warning}) : q()), qq(\n);
		}" <"$TRASH/r1/results.json" >others &&
	printf "%s\n" "cons.nokey 0 0 0 same no primary key: rows compared as a multiset" \
		"cons.t_2 0 0 0 same" "cons.wide 0 0 0 same" >expect &&
	test_cmp expect others
'

test_expect_success 'the fix SQL applied downstream makes check pass' '
	mariadb --no-defaults -h127.0.0.1 -P"$DOWN" -uroot <"$TRASH/r1/fix-sql/cons.t_1.sql" &&
	test "$(grep -c "^REPLACE INTO \`cons\`.\`t_1\`" "$TRASH/r1/fix-sql/cons.t_1.sql")" = 10 &&
	test "$(grep -c "^DELETE FROM \`cons\`.\`t_1\` WHERE \`id\` <=> " "$TRASH/r1/fix-sql/cons.t_1.sql")" = 2 &&
	"$TICHAOS" check "$TRASH/r1" >tap2 2>err2 &&
	grep -Eqx "ok 1 - consistency: 4 tables, [0-9]+ rows equal on both sides \(sync [0-9.]+s\)" tap2 &&
	echo "fail check pass" >expect &&
	result "$TRASH/r1" "\"\$c->{verdict} \$c->{rechecks}[0]{by} \$c->{rechecks}[0]{verdict}\"" >got &&
	test_cmp expect got
'

# fresh RUN: RUN's recorded verdicts set aside (results.json removed), so
# that the next check's, passing or not, are its record and the details
# read below are that check's (t0362 holds what a check keeps).
fresh() {
	rm -f "$1/results.json"
}

test_expect_success 'a table only upstream, a column difference: both reported' '
	sql "$UP" "set sql_log_bin = 0; create table cons.lonely (id int primary key)" &&
	sqlv "$DOWN" "show slave status" >/dev/null &&
	sql "$DOWN" "alter table cons.t_2 add column extra int null" &&
	"$TICHAOS" check "$TRASH/r1" >tap3 2>err3; test $? = 1 &&
	grep -q "^  numbers: \"tables=5 differing=2 " tap3 &&
	perl -MJSON::PP -e "
		my \$j = decode_json(do { local \$/; <STDIN> });
		for my \$t (@{ \$j->{checks}[0]{details}{tables} }) {
			print qq(\$t->{table} only \$t->{only}\n) if \$t->{only};
			print qq(\$t->{table} \$t->{schema}\n) if \$t->{schema};
		}" <"$TRASH/r1/results.json" >diffs &&
	printf "%s\n" "cons.lonely only upstream" \
		"cons.t_2 upstream (id int NOT NULL, data varchar(255)); downstream (id int NOT NULL, data varchar(255), extra int)" >expect &&
	test_cmp expect diffs &&
	sql "$DOWN" "alter table cons.t_2 drop column extra" &&
	sql "$UP" "set sql_log_bin = 0; drop table cons.lonely"
'

# schema_of TABLE: the schema difference the last check of r1 found in
# TABLE, or nothing.
schema_of() {
	perl -MJSON::PP -e "
		for my \$t (@{ decode_json(do { local \$/; <STDIN> })->{checks}[0]{details}{tables} }) {
			print qq(\$t->{schema}\n) if \$t->{table} eq q($1) && \$t->{schema};
		}" <"$TRASH/r1/results.json"
}

# A real TiDB (8f2630e53d5d, by hand) shows no integer display width
# (int, bigint unsigned) where MariaDB shows int(11), bigint(20) unsigned:
# the same columns. ZEROFILL puts the width in the value's text.
test_expect_success 'integer display widths do not make columns differ; ZEROFILL does' '
	sql "$DOWN" "alter table cons.t_2 modify id int(5) not null" &&
	"$TICHAOS" check "$TRASH/r1" >tapw 2>errw &&
	grep -Eqx "ok 1 - consistency: 4 tables, [0-9]+ rows equal on both sides \(sync [0-9.]+s\)" tapw &&
	sql "$DOWN" "alter table cons.t_2 modify id int(5) unsigned zerofill not null" &&
	{ "$TICHAOS" check "$TRASH/r1" >tapw 2>errw; test $? = 1; } &&
	echo "upstream (id int NOT NULL, data varchar(255)); downstream (id int(5) unsigned zerofill NOT NULL, data varchar(255))" >expect &&
	schema_of cons.t_2 >got && test_cmp expect got &&
	sql "$DOWN" "alter table cons.t_2 modify id int(11) not null"
'

# A real TiDB (8f2630e53d5d, by hand) keys a VARCHAR in utf8mb4_bin,
# MariaDB in utf8mb4_general_ci: the same bounds held other rows on each
# side, and 1 changed row showed as 115 missing and 261 extra. Key
# columns whose collations differ are ranged and ordered by their bytes.
test_expect_success 'a string key collated otherwise downstream: the one change found' '
	rows=$(i=0; while [ $i -lt 1200 ]; do
		case $((i % 4)) in 0) c=a ;; 1) c=B ;; 2) c=c ;; *) c=D ;; esac
		printf "%s(\"%s%d\", %d)" "${i#0}" "$c" $i $i | sed "s/^[0-9][0-9]*(/,(/"
		i=$((i + 1)); done | sed "s/^,//") &&
	sql "$UP" "set sql_log_bin = 0; create table cons.sk (k varchar(16) primary key, v int) collate utf8mb4_bin; insert into cons.sk values $rows" &&
	sql "$DOWN" "create table cons.sk (k varchar(16) primary key, v int) collate utf8mb4_general_ci; insert into cons.sk values $rows" &&
	test "$(sql "$DOWN" "select count(*) from cons.sk")" = 1200 &&
	sql "$DOWN" "update cons.sk set v = -1 where k = \"c602\"" &&
	{ "$TICHAOS" check "$TRASH/r1" >tapk 2>errk; test $? = 1; } &&
	perl -MJSON::PP -e "
		for my \$t (@{ decode_json(do { local \$/; <STDIN> })->{checks}[0]{details}{tables} }) {
			print qq(\$t->{table} \$t->{missing} \$t->{extra} \$t->{changed} @{\$t->{changed_keys}}\n) if \$t->{table} eq q(cons.sk);
		}" <"$TRASH/r1/results.json" >got &&
	echo "cons.sk 0 0 1 k=c602" >expect && test_cmp expect got &&
	sql "$UP" "set sql_log_bin = 0; drop table cons.sk" && sql "$DOWN" "drop table cons.sk"
'

# table_counts TABLE: "TABLE MISSING EXTRA CHANGED KEYS..." of the last
# check of r1, from its results.json.
table_counts() {
	perl -MJSON::PP -e "
		for my \$t (@{ decode_json(do { local \$/; <STDIN> })->{checks}[0]{details}{tables} }) {
			print qq(\$t->{table} \$t->{missing} \$t->{extra} \$t->{changed} @{\$t->{changed_keys}}\n) if \$t->{table} eq q($1);
		}" <"$TRASH/r1/results.json"
}

# MySQL and TiDB store JSON binary and print an object's keys in their own
# order, MariaDB keeps the text (JSON is LONGTEXT there, with a CHECK
# json_valid): the same JSON in other text is equal (tidb-tools issue 900,
# sync-diff-inspector's), a changed value is not.
test_expect_success 'JSON columns compare by value: keys reordered equal, a changed value found' '
	sql "$UP" "set sql_log_bin = 0; create table cons.js (id int primary key, j json, v int); insert into cons.js values (1, \"{\\\"a\\\": 1, \\\"b\\\": [1, 2]}\", 1), (2, \"[1, {\\\"x\\\": \\\"y\\\", \\\"z\\\": null}]\", 2), (3, NULL, 3), (4, \"{\\\"k\\\": true}\", 4)" &&
	sql "$DOWN" "create table cons.js (id int primary key, j json, v int); insert into cons.js values (1, \"{\\\"b\\\":[1,2],\\\"a\\\":1}\", 1), (2, \"[1,{\\\"z\\\":null,\\\"x\\\":\\\"y\\\"}]\", 2), (3, NULL, 3), (4, \"{\\\"k\\\": true}\", 4)" &&
	test "$(sql "$DOWN" "select j from cons.js where id = 1")" = "{\"b\":[1,2],\"a\":1}" &&
	fresh "$TRASH/r1" &&
	"$TICHAOS" check "$TRASH/r1" >tapj 2>errj || { cat errj tapj; false; }
	echo "cons.js 0 0 0 " >expect && table_counts cons.js >got && test_cmp expect got &&
	sql "$DOWN" "update cons.js set j = \"{\\\"b\\\":[1,2],\\\"a\\\":2}\" where id = 1; update cons.js set j = \"{\\\"k\\\": false}\" where id = 4" &&
	{ "$TICHAOS" check "$TRASH/r1" >tapj 2>errj; test $? = 1; } &&
	echo "cons.js 0 0 2 id=1 id=4" >expect && table_counts cons.js >got && test_cmp expect got &&
	sql "$UP" "set sql_log_bin = 0; drop table cons.js" && sql "$DOWN" "drop table cons.js"
'

# The check reads a FLOAT or DOUBLE by an expression that gives, on
# MariaDB, the text a real TiDB gives (plain decimal, where MariaDB writes
# 1.5e300): tests/data/tidb-float-text.tsv, recorded from that TiDB.
test_expect_success 'floats read on MariaDB as a real TiDB writes them' '
	sql "$UP" "create table cons.fl (id int primary key, f double, g float)" &&
	sql "$UP" "insert into cons.fl values (1,1e15,1e15),(2,1.5e300,3.4e38),(3,12345678901234567890,1.5e20),(4,-3.7e200,-2.5e30),(5,1.7976931348623157e308,1e-30),(6,9007199254740993,123456789),(7,1e-20,1e-10),(8,-0.0,-0.0),(9,2.2250738585072014e-308,1.17549435e-38),(10,0.1,0.1),(11,123456.789012345,1234.5678),(12,5e-324,0.3),(13,999999999999999.9,16777217),(14,1e22,1e22),(15,4.35e17,7e12)" &&
	f=$("$ROOT/tests/helpers/float-text" f) && g=$("$ROOT/tests/helpers/float-text" g) &&
	sql "$UP" "select id, $f, $g from cons.fl order by id" >got &&
	grep -v "^#" "$DATA/tidb-float-text.tsv" >expect &&
	test_cmp expect got &&
	sql "$UP" "select id, cast(f + 0 as char) from cons.fl where id = 2" >plain &&
	echo "2	1.5e300" >expect && test_cmp expect plain &&
	sql "$UP" "drop table cons.fl"
'

# Both sides one release (MariaDB and its replica; the upstream's version
# ends in "-log", its binary log being on): a FLOAT's or DOUBLE's text is
# the same function of its value on both, read as it is (no writing out
# plain, which costs every row), and its hash reads its 8 bytes, as a
# dynamic column holds them, not its text: what the upstream was asked,
# in its general log. A DOUBLE one ulp off, and a FLOAT a little off, are
# still found; equal ones are equal; a NULL is not a 0.
test_expect_success 'floats on one release on both sides: read as they are, one ulp off found' '
	sql "$UP" "set sql_log_bin = 0; create table cons.fu (id int primary key, d double, f float); insert into cons.fu values (1, 0.1, 0.1), (2, 1.5e300, 3.4e38), (3, -2.5e-300, 1e-30), (4, 7, 7)" &&
	sql "$DOWN" "create table cons.fu (id int primary key, d double, f float); insert into cons.fu values (1, 0.10000000000000002, 0.1), (2, 1.5e300, 3.4e38), (3, -2.5e-300, 1.1e-30), (4, 7, 7)" &&
	test "$(sql "$DOWN" "select d = 0.1 from cons.fu where id = 1")" = 0 &&
	case $(sql "$UP" "select version()") in *-log) ;; *) false ;; esac &&
	fresh "$TRASH/r1" &&
	sql "$UP" "set global log_output = \"TABLE\"; truncate mysql.general_log; set global general_log = 1" &&
	{ "$TICHAOS" check "$TRASH/r1" >tapf 2>errf; test $? = 1; } &&
	sql "$UP" "set global general_log = 0" &&
	test "$(sql "$UP" "select count(*) from mysql.general_log where argument like \"%CRC32(IF(\\\`d\\\` IS NULL, NULL, COLUMN_CREATE(1, \\\`d\\\` AS DOUBLE)))%\" and argument like \"%cons%fu%\"")" -gt 0 &&
	test "$(sql "$UP" "select count(*) from mysql.general_log where argument like \"%(\\\`d\\\` + 0)%\"")" = 0 &&
	sql "$UP" "truncate mysql.general_log" &&
	echo "cons.fu 0 0 2 id=1 id=3" >expect && table_counts cons.fu >got && test_cmp expect got &&
	sql "$DOWN" "update cons.fu set d = 0.1 where id = 1; update cons.fu set f = 1e-30 where id = 3" &&
	fresh "$TRASH/r1" &&
	"$TICHAOS" check "$TRASH/r1" >tapf 2>errf || { cat errf tapf; false; } &&
	echo "cons.fu 0 0 0 " >expect && table_counts cons.fu >got && test_cmp expect got &&
	sql "$UP" "set sql_log_bin = 0; update cons.fu set d = NULL where id = 4" &&
	sql "$DOWN" "update cons.fu set d = 0 where id = 4" &&
	fresh "$TRASH/r1" &&
	{ "$TICHAOS" check "$TRASH/r1" >tapf 2>errf; test $? = 1; } &&
	echo "cons.fu 0 0 1 id=4" >expect && table_counts cons.fu >got && test_cmp expect got &&
	sql "$UP" "set sql_log_bin = 0; drop table cons.fu" && sql "$DOWN" "drop table cons.fu"
'

# TiCDC issue 1192's loss comes with partition DDL: a partitioning that
# did not replicate as it ran upstream is a difference even when every
# row is where it should be.
test_expect_success 'a partitioning that differs, rows equal: reported, exit 1' '
	sql "$UP" "create table cons.pt (id int primary key, v int) partition by range (id) (partition p0 values less than (200), partition p1 values less than (1000), partition p2 values less than maxvalue); insert into cons.pt values (5, 1), (500, 2), (5000, 3)" &&
	wait_for_condition 30 "test \"\$(sql $DOWN \"select count(*) from cons.pt\")\" = 3" &&
	sql "$DOWN" "alter table cons.pt reorganize partition p1, p2 into (partition p1 values less than (700), partition p2 values less than maxvalue)" &&
	"$TICHAOS" check "$TRASH/r1" >tap6 2>err6; test $? = 1 &&
	grep -q "^  numbers: \"tables=5 differing=1 rows=[0-9]* missing=0 extra=0 changed=0\"$" tap6 &&
	grep -qx "  message: \"1 of 5 tables differ; first: cons.pt: partitioning differs: upstream RANGE (id) p0 200, RANGE (id) p1 1000, RANGE (id) p2 MAXVALUE; downstream RANGE (id) p0 200, RANGE (id) p1 700, RANGE (id) p2 MAXVALUE\"" tap6 &&
	sql "$DOWN" "alter table cons.pt remove partitioning" &&
	"$TICHAOS" check "$TRASH/r1" >tap7 2>err7; test $? = 1 &&
	grep -q "first: cons.pt: partitioning differs: upstream RANGE (id) p0 200, RANGE (id) p1 1000, RANGE (id) p2 MAXVALUE; downstream not partitioned\"$" tap7 &&
	sql "$UP" "drop table cons.pt" &&
	"$TICHAOS" check "$TRASH/r1" >tap8 2>err8 &&
	grep -q "^ok 1 - consistency: 4 tables" tap8
'

# running PORT TEXT: how many sessions of the server at PORT run a
# statement that starts with TEXT.
running() {
	sql "$1" "select count(*) from information_schema.processlist where info like '$2%'"
}

# The side behind gets the other side's worker for its last chunks: the
# downstream's table is locked by another session (LOCK TABLES), the
# upstream's two workers checksum all its chunks, then take the
# downstream's next chunks on connections of their own to it: four
# checksums wait on the lock there, where without the help two would.
# (With one connection a side, the table would be checksummed whole
# first, one query a side, and there would be no chunk to help with.)
# A string key is cut at the upstream's keys alone, so nothing else of
# the check reads the locked table; unlocked, the check passes.
test_expect_success 'the side behind gets the worker of the side done' '
	sql "$UP" "create table cons.sk (k varchar(20) primary key, v int);
		insert into cons.sk select concat(\"k\", seq), seq from cons.seq_1_to_2000" &&
	wait_for_condition 30 "test \"\$(sql $DOWN \"select count(*) from cons.sk\")\" = 2000" &&
	mkdir "$TRASH/r3" && cp "$TRASH/r1/topology.yaml" "$TRASH/r3/" &&
	cat >"$TRASH/r3/suite.yaml" <<-\EOF &&
	name: behind
	database: cons
	tables:
	  - name: sk
	    columns: "k VARCHAR(20) PRIMARY KEY, v INT"
	workloads:
	  - kind: insert
	    tables: sk
	    column: v
	checks:
	  - kind: consistency
	    tables: sk
	    threads: 2
	    chunk_rows: 100
	EOF
	sql "$DOWN" "lock tables cons.sk write; select sleep(300)" &
	test_track_pid $! &&
	wait_for_condition 10 "test \$(running $DOWN \"select sleep(300)\") = 1" &&
	{ "$TICHAOS" check "$TRASH/r3" >tap10 2>err10; echo $? >code10; } &
	test_track_pid $! &&
	wait_for_condition 30 "test \$(running $DOWN \"SELECT COUNT(*), COALESCE(BIT_XOR\") = 4" &&
	sql "$DOWN" "kill $(sql "$DOWN" "select id from information_schema.processlist where info = \"select sleep(300)\"")" &&
	wait_for_condition 30 "test -s code10" &&
	test "$(cat code10)" = 0 &&
	grep -qx "ok 1 - consistency: 1 tables, 2000 rows equal on both sides (sync [0-9.]*s)" tap10 &&
	sql "$UP" "drop table cons.sk"
'

# sync-diff-inspector's configuration as TiCDC's tests write it: the
# data sources by address, target-check-tables over several databases
# with wildcards and '!', the fix SQL also under output-dir. Its patterns
# match case-sensitively, as sync-diff-inspector's (tidb-tools
# table-filter's Parse, not made CaseInsensitive; source.go initTables
# in pingcap/tiflow's sync_diff_inspector): "!CFB.x" leaves out no table
# here, and cfb.x is compared.
diff_config() {
	diff_config_toml "$UP" "$DOWN" "$TRASH/sync_diff/output" 2 \
		"\"cf[ab].*\", \"!cfa.t2\", \"!CFB.x\""
}

test_expect_success 'diff_config: its tables of two databases (case-sensitive; one on the source only a difference), its nodes by address; the fix SQL under its output-dir' '
	sql "$UP" "create database cfa; create database cfb; create database cfc;
		create table cfa.t1 (id int primary key, v int); create table cfa.t2 (id int primary key, v int);
		create table cfb.x (id int primary key, v int); create table cfc.y (id int primary key, v int);
		create table cfb.z (id int primary key);
		insert into cfa.t1 values (1, 1), (2, 2); insert into cfa.t2 values (1, 1);
		insert into cfb.x values (1, 1), (2, 2), (3, 3); insert into cfc.y values (1, 1);
		insert into cfb.z values (1)" &&
	wait_for_condition 30 "test \"\$(sql $DOWN \"select count(*) from cfc.y\")\" = 1" &&
	sql "$DOWN" "update cfb.x set v = 9 where id = 2; delete from cfa.t2; delete from cfc.y; drop table cfb.z" &&
	mkdir -p "$TRASH/r8/conf" && diff_config >"$TRASH/r8/conf/diff_config.toml" &&
	sed -e "s/^    chunk_rows: 500$/    diff_config: conf\/diff_config.toml/" "$TRASH/tamper.yaml" >"$TRASH/r8/suite.yaml" &&
	grep -q "diff_config: conf/diff_config.toml" "$TRASH/r8/suite.yaml" &&
	cp "$TRASH/r1/topology.yaml" "$TRASH/r8/" &&
	{ "$TICHAOS" check "$TRASH/r8" >tapd 2>errd; test $? = 1; } &&
	grep -qx "not ok 1 - consistency" tapd &&
	grep -qx "  message: \"2 of 3 tables differ; first: cfb.x: 0 missing, 0 extra, 1 changed (fix-sql/cfb.x.sql)\"" tapd &&
	perl -MJSON::PP -e "
		print join(q( ), map { \$_->{table} } @{ decode_json(do { local \$/; <STDIN> })->{checks}[0]{details}{tables} }), qq(\n);
	" <"$TRASH/r8/results.json" >got &&
	echo "cfa.t1 cfb.x cfb.z" >expect && test_cmp expect got &&
	test_cmp "$TRASH/r8/fix-sql/cfb.x.sql" "$TRASH/sync_diff/output/fix-on-mysql1/cfb.x.sql" &&
	grep -qx "REPLACE INTO \`cfb\`.\`x\` (\`id\`, \`v\`) VALUES (.2., .2.);" "$TRASH/r8/fix-sql/cfb.x.sql"
'

test_expect_success 'diff_config: a data source at no SQL node of the topology, a user not the topology'\''s: unknown, at its line' '
	sed -i "s/^port = $DOWN$/port = 1/" "$TRASH/r8/conf/diff_config.toml" &&
	{ "$TICHAOS" check "$TRASH/r8" >tapd 2>errd; test $? = 3; } &&
	grep -q "^  message: \"$TRASH/r8/conf/diff_config.toml:25:1: data source .mysql1. (127.0.0.1:1) is no SQL node of the topology (up-0 127.0.0.1:$UP, down-0 127.0.0.1:$DOWN)\"$" tapd &&
	sed -i -e "s/^port = 1$/port = $DOWN/" -e "27s/^user = .root.$/user = \"cdc\"/" "$TRASH/r8/conf/diff_config.toml" &&
	{ "$TICHAOS" check "$TRASH/r8" >tapd 2>errd; test $? = 3; } &&
	grep -q "^  message: \"$TRASH/r8/conf/diff_config.toml:25:1: data source .mysql1.: user .cdc. is not down-0.s (.root.), which the check connects as\"$" tapd
'

test_expect_success 'diff_config: what tichaos does not do refused at its line, exit 2' '
	diff_config >d.toml && sed -e "s/^    chunk_rows: 500$/    diff_config: d.toml/" "$TRASH/tamper.yaml" >s.yaml &&
	"$TICHAOS" validate s.yaml &&
	for c in "export-fix-sql = false|4:1: .export-fix-sql.: tichaos always writes the fix SQL (fix-sql/), and compares every differing row" \
		"source-instances = [\"tidb0\", \"mysql1\"]|11:20: .task.source-instances.: tichaos compares one source with the target, not 2 (the shards of a merge are not read)" \
		"target-check-tables = [\"/^cf/.*\"]|15:24: .task.target-check-tables. must be database.table, shell wildcards allowed, .!. first to leave tables out (quoted names and /regular expressions/ are not read): ./^cf/.\*." \
		"check-thread-count = 1.5|2:23: only decimal integers are read here" \
		"snapshot = \"2016-10-08 16:45:26\"|23:1: .data-sources.tidb0.snapshot.: not done by tichaos.s consistency check: it reads host, port, user and password of a data source (snapshots, routes, session variables are not read)"; do
		line=${c%%|*} && msg=${c#*|} && key=${line%% =*} &&
		case $key in
		snapshot) diff_config | sed "/^password = \"\"$/{x;s/^/x/;/^x$/{x;s/.*/&\n$line/;b};x}" >d.toml ;;
		*) diff_config | sed "s|^$key = .*|$line|" >d.toml ;;
		esac &&
		{ "$TICHAOS" validate s.yaml 2>err; test $? = 2; } &&
		grep -q "^tichaos: d.toml:$msg$" err || { echo "$key:"; cat err; return 1; }
	done &&
	{ diff_config && printf "[table-configs.config1]\ntarget-tables = [\"cfa.t1\"]\nrange = \"id > 1\"\n"; } >d.toml &&
	{ "$TICHAOS" validate s.yaml 2>err; test $? = 2; } &&
	grep -q "^tichaos: d.toml:30:1: .table-configs.config1.target-tables.: not done by tichaos.s consistency check (routes and table configs are not read)$" err &&
	diff_config >d.toml && sed -i "s/^    diff_config: d.toml$/&\n    tables: [t_1]/" s.yaml &&
	{ "$TICHAOS" validate s.yaml 2>err; test $? = 2; } &&
	grep -q "^tichaos: s.yaml:[0-9]*:[0-9]*: check .consistency.: diff_config names the tables and threads; .tables. and .threads. are not given with it$" err
'

test_expect_success 'replication stopped: the sync times out, verdict unknown, exit 3' '
	sql "$DOWN" "stop slave sql_thread" &&
	sed -e "s/sync_timeout: 60s/sync_timeout: 2s/" "$TRASH/tamper.yaml" >short.yaml &&
	mkdir "$TRASH/r2" && cp short.yaml "$TRASH/r2/suite.yaml" &&
	cp "$TRASH/r1/topology.yaml" "$TRASH/r2/" &&
	"$TICHAOS" check "$TRASH/r2" >tap4 2>err4; code=$?
	sql "$DOWN" "start slave sql_thread" &&
	test "$code" = 3 &&
	grep -qx "not ok 1 - consistency" tap4 &&
	grep -qx "  verdict: unknown" tap4 &&
	grep -q "^  message: \"sync timed out after 2s: the finish mark did not reach down-0 (down-0: replication is not running (io Yes, sql No))\"$" tap4
'

# Two databases no replication of the run joins (a restore, an import,
# make bench's TiDB pair) are compared as they stand, as
# sync-diff-inspector compares them: no mark written, nothing waited for.
test_expect_success 'barrier: false writes no mark and compares as they stand: an unreplicated row found, exit 1' '
	sql "$DOWN" "stop slave sql_thread" &&
	marks=$(sql "$UP" "select count(*) from tichaos_meta.barrier") &&
	sql "$UP" "insert into cons.t_2 (id, data) values (900001, \"not downstream\")" &&
	sed -e "s/sync_timeout: 60s/barrier: false/" "$TRASH/tamper.yaml" >nb.yaml &&
	mkdir "$TRASH/r6" && cp nb.yaml "$TRASH/r6/suite.yaml" &&
	cp "$TRASH/r1/topology.yaml" "$TRASH/r6/" &&
	"$TICHAOS" check "$TRASH/r6" >tap6 2>err6; code=$?
	sql "$DOWN" "start slave sql_thread" &&
	test "$code" = 1 &&
	grep -qx "not ok 1 - consistency" tap6 &&
	grep -qx "  message: \"1 of 4 tables differ; first: cons.t_2: 1 missing, 0 extra, 0 changed (fix-sql/cons.t_2.sql)\"" tap6 &&
	test "$(sql "$UP" "select count(*) from tichaos_meta.barrier")" = "$marks" &&
	expect_result "$TRASH/r6" "JSON::PP::is_bool(\$c->{details}{barrier}) && !\$c->{details}{barrier} ? q(false) : q(other)" false &&
	expect_result "$TRASH/r6" "exists \$c->{details}{barrier_ms} ? 1 : 0" 0
'

test_expect_success 'barrier: false, the row replicated meanwhile: a pass that says no sync was waited for' '
	wait_for_condition 60 "test \"\$(sql $DOWN \"select count(*) from cons.t_2 where id = 900001\")\" = 1" &&
	"$TICHAOS" check "$TRASH/r6" >tap7 2>err7 &&
	grep -Eqx "ok 1 - consistency: [0-9]+ tables, [0-9]+ rows equal on both sides \(no barrier: compared as they stood\)" tap7
'

test_expect_success 'barrier: false with sync_timeout or changefeed: refused at its line, exit 2' '
	sed -e "s/sync_timeout: 60s/barrier: false\n    sync_timeout: 5s/" "$TRASH/tamper.yaml" >nb2.yaml &&
	{ "$TICHAOS" validate nb2.yaml 2>err; test $? = 2; } &&
	line=$(grep -n "barrier: false" nb2.yaml | cut -d: -f1) &&
	grep -qx "tichaos: nb2.yaml:$line:14: check .consistency.: with .barrier: false. no finish mark is waited for; .sync_timeout. and .changefeed. are not given with it" err
'

# A finish mark that cannot be written upstream (here its table has
# another shape) leaves nothing to wait for: unknown, with the error,
# never a pass with no message.
test_expect_success 'a finish mark that cannot be written: unknown with the error, exit 3' '
	sql "$UP" "drop table tichaos_meta.barrier;
		create table tichaos_meta.barrier (id bigint primary key)" &&
	{ "$TICHAOS" check "$TRASH/r1" >tap9 2>err9; code=$?; } &&
	sql "$UP" "drop table tichaos_meta.barrier" &&
	test "$code" = 3 &&
	grep -qx "not ok 1 - consistency" tap9 &&
	grep -qx "  verdict: unknown" tap9 &&
	grep -qx "  message: \"query failed on .127.0.0.1:$UP.: Column count doesn.t match value count at row 1 (1136)\"" tap9
'

test_expect_success 'without the cluster, and no verdict recorded, the live check is skipped, exit 0' '
	"$TICHAOS" cluster down --dir "$C" &&
	fresh "$TRASH/r1" &&
	"$TICHAOS" check "$TRASH/r1" >tap5 2>err5 &&
	grep -qx "ok 1 - consistency # SKIP needs the cluster, which is not running" tap5
'

test_done
