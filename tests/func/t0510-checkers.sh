#!/bin/sh
# More of the checkers on real servers: consistency on a composite key,
# logscan on what was written during the run only, progress.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

test_cluster_setup 'set up a cluster to attach to'

# ck_suite NAME DURATION SEED RATE: a suite of inserts at RATE into
# comp.ck, whose key is two columns; its checks from stdin.
ck_suite() {
	cat <<EOF
name: $1
duration: $2
seed: $3
database: comp
tables:
  - name: ck
    columns: "id INT AUTO_INCREMENT, k VARCHAR(8) NOT NULL DEFAULT 'x',
      data VARCHAR(255), PRIMARY KEY (id, k)"
workloads:
  - kind: insert
    tables: ck
    rate: $4
checks:
EOF
	cat
}

ck_suite composite 3s 2 200 >"$TRASH/composite.yaml" <<EOF
  - kind: consistency
    sync_timeout: 30s
  - kind: logscan
    patterns: ['panic:']
  - kind: progress
EOF

echo "panic: planted before the run" >>"$C/up-0/mariadbd.log"

test_expect_success 'a clean run on a composite key passes; a line logged before it is ignored' '
	"$TICHAOS" run "$TRASH/composite.yaml" --cluster "$T" --out "$TRASH/r1" >tap 2>err ||
	{ cat err; false; } &&
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

{
	insert_suite planted 4s 3 comp 100
	cat <<EOF
checks:
  - kind: logscan
    patterns: ['panic:']
EOF
} >"$TRASH/planted.yaml"

# The line is planted once the run's workload runs (the runner notes where
# each log ends before it starts the workload) and before the run ends:
# its last progress line comes when the workload has stopped, before it
# copies the logs; planted before that line, the line is in the copy.
test_expect_success 'logscan finds a panic logged during the run, with file and line' '
	echo "panic: planted before this run too" >>"$C/up-0/mariadbd.log" &&
	: >tap4 && : >err4 &&
	{ "$TICHAOS" run "$TRASH/planted.yaml" --cluster "$T" --out "$TRASH/r2" >tap4 2>err4 & } &&
	run=$! && test_track_pid $run &&
	wait_for_condition 60 "grep -q \"\\\"type\\\":\\\"ok\\\"\" \"$TRASH/r2/history.jsonl\"" &&
	echo "panic: planted during the run" >>"$C/up-0/mariadbd.log" &&
	{ ! grep -q "^[0-9:.]* info  planted [0-9.]*[a-z]*/4s " "$TRASH/r2/logs/tichaos.log" ||
	{ echo "planted after the workload had stopped"; false; }; } &&
	{ wait $run; test $? = 1; } &&
	line=$(grep -n "panic: planted during the run" "$TRASH/r2/logs/up-0.log" | cut -d: -f1) &&
	test -n "$line" &&
	grep -qx "not ok 2 - logscan" tap4 &&
	grep -qx "  message: \"1 match in 1 logs; first logs/up-0.log:$line: panic: planted during the run\"" tap4 &&
	! grep -q "before" "$TRASH/r2/logs/up-0.log"
'

# A Go server that throws prints "fatal error: ..." and is gone, no
# "panic:" before it (runtime/panic.go; a real TiDB cd9c676e9ba4 built
# with Go 1.26 died so): the default patterns find it. The run above,
# kept with a logscan of the defaults and the crash in its copy of the
# log, checked again.
test_expect_success 'logscan by default finds a Go runtime crash (fatal error:), not a line that only mentions one' '
	cp -r "$TRASH/r2" "$TRASH/r2f" && rm -f "$TRASH/r2f/results.json" &&
	sed -i "/^    patterns: /d" "$TRASH/r2f/suite.yaml" &&
	sed -e "/^panic: /d" "$TRASH/r2/logs/up-0.log" >"$TRASH/r2f/logs/up-0.log" &&
	printf "%s\n" "[INFO] a message about a fatal error: not one" \
		"fatal error: unexpected signal during runtime execution" \
		"[signal SIGSEGV: segmentation violation code=0x80 addr=0x0 pc=0x1db47fd]" \
		>>"$TRASH/r2f/logs/up-0.log" &&
	line=$(grep -n "^fatal error: unexpected" "$TRASH/r2f/logs/up-0.log" | cut -d: -f1) &&
	{ "$TICHAOS" check "$TRASH/r2f" >tapf 2>errf; test $? = 1; } &&
	grep -qx "not ok 1 - logscan" tapf &&
	grep -qx "  message: \"1 match in 1 logs; first logs/up-0.log:$line: fatal error: unexpected signal during runtime execution\"" tapf
'

# A capture's stdout, where a Go server's panics and race reports go,
# beside its log; a file named anew at each start: a component's `logs`.
# TiCDC's check_logs ignores the DATA RACE reports of its kv client
# (reportStoreReplicaFlows): an `ignore` rule over a hit's report.
mkdir -p "$TRASH/more"
sed -e "s|^    log: \"$C/down-0/mariadbd.log\"$|&\n    logs: [\"$TRASH/more/stdout*.log\", \"$TRASH/more/none.log\"]|" "$T" >"$TRASH/more.yaml"
{
	insert_suite more 4s 3 moredb 100
	cat <<EOF
checks:
  - kind: logscan
    patterns: ['panic:', 'DATA RACE']
    ignore: ['reportStoreReplicaFlows']
    components: [down-0]
EOF
} >"$TRASH/more-suite.yaml"

# race FUNC: a Go race report whose stack names FUNC.
race() {
	printf "==================\nWARNING: DATA RACE\nWrite at 0x00c000 by goroutine 7:\n  %s()\n      /src/x.go:12 +0x44\n==================\n" "$1"
}

test_expect_success 'more logs of a component: collected from where the run began, scanned; a race report ignored by its stack' '
	grep -q "logs: \[\"$TRASH/more/stdout\*.log\"" "$TRASH/more.yaml" &&
	echo "panic: before the run" >"$TRASH/more/stdout-1.log" &&
	: >tapm && : >errm &&
	{ "$TICHAOS" run "$TRASH/more-suite.yaml" --cluster "$TRASH/more.yaml" --out "$TRASH/more-run" >tapm 2>errm & } &&
	run=$! && test_track_pid $run &&
	wait_for_condition 60 "grep -q \"\\\"type\\\":\\\"ok\\\"\" \"$TRASH/more-run/history.jsonl\"" &&
	race "tikv.(*RegionCache).reportStoreReplicaFlows" >>"$TRASH/more/stdout-1.log" &&
	{ echo "panic: in a log made during the run"; race "cdc.(*Processor).tick"; } >"$TRASH/more/stdout-2.log" &&
	{ wait $run; test $? = 1; } &&
	! grep -q "before the run" "$TRASH/more-run/logs/down-0.stdout-1.log" &&
	race "tikv.(*RegionCache).reportStoreReplicaFlows" >expect && test_cmp expect "$TRASH/more-run/logs/down-0.stdout-1.log" &&
	test_cmp "$TRASH/more/stdout-2.log" "$TRASH/more-run/logs/down-0.stdout-2.log" &&
	test ! -e "$TRASH/more-run/logs/down-0.none.log" &&
	grep -qx "not ok 2 - logscan" tapm &&
	grep -Eqx "  message: \"2 matches in [23] logs \(1 ignored\); first logs/down-0.stdout-2.log:1: panic: in a log made during the run\"" tapm &&
	perl -MJSON::PP -e "
		my \$d = decode_json(do { local \$/; <STDIN> })->{checks}[0]{details};
		print join(q( ), \$d->{matches}, \$d->{ignored}, map { qq(\$_->{file}:\$_->{line}) } @{\$d->{hits}}), qq(\n);
	" <"$TRASH/more-run/results.json" >got &&
	echo "2 1 logs/down-0.stdout-2.log:1 logs/down-0.stdout-2.log:3" >expect && test_cmp expect got &&
	grep -q "^    logs: \[\"$TRASH/more/stdout\*.log\", \"$TRASH/more/none.log\"\]$" "$TRASH/more-run/topology.yaml"
'

test_expect_success 'ignore: a bad expression refused at its line, exit 2' '
	sed -e "s/reportStoreReplicaFlows/(unclosed/" "$TRASH/more-suite.yaml" >bad.yaml &&
	{ "$TICHAOS" validate bad.yaml 2>err; test $? = 2; } &&
	grep -q "^tichaos: bad.yaml:15:13: ignore in check .logscan.: bad regular expression .(unclosed.: " err
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

# A replica whose SQL thread stopped on an error (here a row planted on
# the downstream that the upstream then writes: 1062) does not restart by
# itself: progress says so at once, with the code, MariaDB's text (the
# event it could not apply), the last GTID applied and the source's binlog
# position, instead of waiting out its timeout (30 s here: a check that
# waited would fail on the message).
ck_suite stop 4s 3 100 >"$TRASH/stop.yaml" <<EOF
  - kind: progress
    timeout: 30s
EOF

test_expect_success 'progress: a replica stopped on an SQL error fails at once, naming it' '
	sql "$DOWN" "insert into comp.ck (id, k) values (900000, '\''x'\'')" &&
	sql "$UP" "insert into comp.ck (id, k) values (900000, '\''x'\'')" &&
	wait_for_condition 10 "sqlv $DOWN \"show slave status\" | grep -q \"Last_SQL_Errno: 1062\"" &&
	mkdir "$TRASH/s1" && cp "$TRASH/stop.yaml" "$TRASH/s1/suite.yaml" && cp "$T" "$TRASH/s1/" &&
	"$TICHAOS" check "$TRASH/s1" >tap6 2>err6; code=$?
	test "$code" = 1 &&
	grep -qx "not ok 1 - progress" tap6 &&
	grep -Eq "^  message: \"1 of 1 replicas not caught up; down-0: replication stopped on SQL error 1062 after GTID 0-[0-9]+-[0-9]+ \(binlog\.[0-9]+:[0-9]+\): Could not execute Write_rows_v1 event on table comp\.ck; Duplicate entry '\''900000-x'\'' for key '\''PRIMARY'\'', Error_code: 1062; handler error HA_ERR_FOUND_DUPP_KEY; the event'\''s master log binlog\.[0-9]+, end_log_pos [0-9]+\"$" tap6 &&
	tr -d " \n" <"$TRASH/s1/results.json" | grep -q "\"sql_errno\":1062,\"gtid\":\"0-" ||
	{ cat tap6 err6; false; }
'

test_expect_success 'mended (the planted row gone), the replica goes on' '
	sql "$DOWN" "delete from comp.ck where id = 900000; start slave" &&
	wait_for_condition 10 "test \"\$(sql $DOWN \"select count(*) from comp.ck where id = 900000\")\" = 1"
'

# The same during a run: once the run's table has rows, a row is planted
# downstream 50 ids ahead; when the upstream writes that id the replica
# stops: the progress line says so, and the run fails on it.
test_expect_success 'during a run: the progress line shows the replica STOPPED, progress fails' '
	"$TICHAOS" run "$TRASH/stop.yaml" --cluster "$T" --out "$TRASH/s2" >tap7 2>err7 &
	runner=$! &&
	wait_for_condition 10 "grep -q \"upstream up-0 speaks\" err7 && n=\$(sql $UP \"select max(id) from comp.ck\") && test \"\$n\" -ge 5 && test \"\$n\" -lt 1000" &&
	next=$(( $(sql "$UP" "select max(id) from comp.ck") + 50 )) &&
	sql "$DOWN" "insert into comp.ck (id, k) values ($next, '\''x'\'')" &&
	{ wait $runner; code=$?; } &&
	test "$code" = 1 &&
	grep -q "  down-0 STOPPED (SQL error 1062)" err7 &&
	grep -Eq "^not ok [0-9]+ - progress$" tap7 &&
	grep -q "replication stopped on SQL error 1062" tap7 &&
	sql "$DOWN" "delete from comp.ck where id = $next; start slave" ||
	{ cat tap7 err7; false; }
'

# Keys that are not one integer: chunked at keys taken from the data (every
# one of sk's chunk bounds holds a quote), bisected at the middle key when
# a chunk is too large to compare row by row (mk: one chunk of 6000 rows).
# kdb_suite NAME TABLE:CHUNK_ROWS...: a suite of 1 s of inserts into
# kdb.t, the tables of stdin besides, and a consistency check of each
# TABLE alone in chunks of CHUNK_ROWS, two threads.
kdb_suite() {
	printf "%s\n" "name: $1" "duration: 1s" "seed: 4" "database: kdb" \
		"tables:" "  - name: t" "    columns: \"id INT AUTO_INCREMENT PRIMARY KEY\""
	cat
	printf "%s\n" "workloads:" "  - kind: insert" "    tables: t" "checks:"
	shift
	for kdb_check_ in "$@"; do
		printf "%s\n" "  - kind: consistency" "    sync_timeout: 30s" \
			"    tables: [${kdb_check_%:*}]" \
			"    chunk_rows: ${kdb_check_#*:}" "    threads: 2"
	done
}

kdb_suite keys sk:100 mk:10000 >"$TRASH/keys.yaml" <<EOF
  - name: sk
    columns: "k VARCHAR(16) NOT NULL, v INT, d DATETIME NULL, PRIMARY KEY (k)"
  - name: mk
    columns: "a INT NOT NULL, b VARCHAR(8) NOT NULL, v VARCHAR(32) NULL,
      PRIMARY KEY (a, b)"
EOF

# table_field RUN CHECK FIELD...: those fields of the first table of check
# CHECK (from 0) in RUN's results.json; lists joined by commas.
table_field() {
	perl -MJSON::PP -e '
		my ($run, $check, @f) = @ARGV;
		open my $fh, "<", "$run/results.json" or die "$run: $!";
		my $t = decode_json(do { local $/; <$fh> })->{checks}[$check]{details}{tables}[0];
		print join(" ", map { ref $t->{$_} ? join(",", @{$t->{$_}}) : $t->{$_} } @f), "\n";
	' "$@"
}

# fields_are RUN CHECK WANT FIELD...: table_field's line is WANT.
fields_are() {
	fields_run_=$1 fields_check_=$2
	echo "$3" >expect &&
	shift 3 &&
	table_field "$fields_run_" "$fields_check_" "$@" >actual &&
	test_cmp expect actual
}

cat >"$TRASH/keys.sql" <<'EOF'
create database kdb;
use kdb;
create table kdb.t (id int auto_increment primary key);
create table kdb.sk (k varchar(16) not null, v int, d datetime null,
	primary key (k));
insert into kdb.sk select concat('k', lpad(seq, 5, '0'),
	if(seq % 100 = 1, '''q', '')), seq,
	if(seq % 7 = 0, null, '2026-01-01' + interval seq minute)
	from seq_1_to_5000;
create table kdb.mk (a int not null, b varchar(8) not null,
	v varchar(32) null, primary key (a, b));
insert into kdb.mk select seq div 100, concat('b', seq % 100),
	if(seq % 3, md5(seq), null) from seq_1_to_6000;
EOF

test_expect_success 'a string key and a composite key, chunked: equal tables pass' '
	mariadb --no-defaults -h127.0.0.1 -P"$UP" -uroot <"$TRASH/keys.sql" &&
	wait_for_condition 30 "test \"\$(sql $DOWN \"select count(*) from kdb.mk\")\" = 6000" &&
	mkdir "$TRASH/r4" && cp "$TRASH/keys.yaml" "$TRASH/r4/suite.yaml" && cp "$T" "$TRASH/r4/" &&
	"$TICHAOS" check "$TRASH/r4" >tap6 2>err6 || { cat err6 tap6; false; }
	grep -Eqx "ok 1 - consistency: 1 tables, 5000 rows equal on both sides \(sync [0-9.]+s\)" tap6 &&
	grep -Eqx "ok 2 - consistency: 1 tables, 6000 rows equal on both sides \(sync [0-9.]+s\)" tap6 &&
	fields_are "$TRASH/r4" 0 "5000 5000 50 0" up_rows down_rows chunks rows_compared &&
	fields_are "$TRASH/r4" 1 "6000 6000 1 0" up_rows down_rows chunks rows_compared
'

test_expect_success 'differences in four chunks: exact keys, only those chunks compared' '
	sql "$DOWN" "delete from kdb.sk where k in (\"k00150\", \"k02050\");
		update kdb.sk set d = null where k = \"k03000\";
		insert into kdb.sk values (\"k04500x\", 1, null);
		delete from kdb.mk where a = 45 and b = \"b7\";
		update kdb.mk set v = \"changed\" where a = 12 and b = \"b34\"" &&
	"$TICHAOS" check "$TRASH/r4" >tap7 2>err7; test $? = 1 &&
	grep -qx "  numbers: \"tables=1 differing=1 rows=5000 missing=2 extra=1 changed=1\"" tap7 &&
	fields_are "$TRASH/r4" 0 "5000 4999 k=k00150,k=k02050 k=k04500x k=k03000 50 799" up_rows down_rows missing_keys extra_keys changed_keys chunks rows_compared &&
	# mk: 6000 rows bisected into quarters of 1500; two hold a difference
	fields_are "$TRASH/r4" 1 "6000 5999 a=45,b=b7 a=12,b=b34 1 5999" up_rows down_rows missing_keys changed_keys chunks rows_compared
'

# One connection a side (threads: 1): each table is checksummed whole
# first, one query a side without a range, and cut into chunks only when
# the two differ: the same differences, found in the same chunks, with
# one checksum more.
test_expect_success 'threads 1: the whole table first, then chunks where it differs' '
	mkdir "$TRASH/r4w" && cp "$T" "$TRASH/r4w/" &&
	sed -e "s/threads: 2/threads: 1/" "$TRASH/keys.yaml" >"$TRASH/r4w/suite.yaml" &&
	test "$(grep -c "threads: 1" "$TRASH/r4w/suite.yaml")" = 2 &&
	{ "$TICHAOS" check "$TRASH/r4w" >tap7w 2>err7w; test $? = 1; } &&
	fields_are "$TRASH/r4w" 0 "5000 4999 k=k00150,k=k02050 k=k04500x k=k03000 51 799" up_rows down_rows missing_keys extra_keys changed_keys chunks rows_compared &&
	fields_are "$TRASH/r4w" 1 "6000 5999 a=45,b=b7 a=12,b=b34 2 5999" up_rows down_rows missing_keys changed_keys chunks rows_compared
'

# fix RUN TABLE...: each TABLE's fix SQL of RUN applied downstream.
fix() {
	fix_run_=$1
	shift
	for fix_table_ in "$@"; do
		mariadb --no-defaults -h127.0.0.1 -P"$DOWN" -uroot \
			<"$fix_run_/fix-sql/$fix_table_.sql" || return 1
	done
}

test_expect_success 'their fix SQL repairs both tables' '
	fix "$TRASH/r4" kdb.sk kdb.mk &&
	"$TICHAOS" check "$TRASH/r4" >tap8 2>err8 &&
	grep -Eqx "ok 1 - consistency: 1 tables, 5000 rows equal .*" tap8 &&
	grep -Eqx "ok 2 - consistency: 1 tables, 6000 rows equal .*" tap8
'

# The failures r4w recorded set aside: this check's details are its own.
test_expect_success 'threads 1, equal tables: one checksum a side, no chunk' '
	rm -f "$TRASH/r4w/results.json" &&
	"$TICHAOS" check "$TRASH/r4w" >tap8w 2>err8w &&
	fields_are "$TRASH/r4w" 0 "5000 5000 1 0" up_rows down_rows chunks rows_compared &&
	fields_are "$TRASH/r4w" 1 "6000 6000 1 0" up_rows down_rows chunks rows_compared
'

# Keys at the ends of their types: a BIGINT from INT64_MIN to INT64_MAX
# (one range cut arithmetically: its width is 2^64 - 1), a BIGINT UNSIGNED
# up to 2^64 - 1 (cut at keys from the data: its values do not fit an
# int64). Every row is in exactly one chunk: the rows deleted downstream at
# either end are missing, the one changed in the middle is changed.
kdb_suite ends ends:100 uends:100 >"$TRASH/ends.yaml" <<EOF
  - name: ends
    columns: "id BIGINT NOT NULL, v INT, PRIMARY KEY (id)"
  - name: uends
    columns: "id BIGINT UNSIGNED NOT NULL, v INT, PRIMARY KEY (id)"
EOF

cat >"$TRASH/ends.sql" <<'EOF'
use kdb;
create table kdb.ends (id bigint not null, v int, primary key (id));
insert into kdb.ends values (-9223372036854775808, 1),
	(-9223372036854775807, 2), (-1, 3), (0, 4), (1, 5),
	(9223372036854775806, 6), (9223372036854775807, 7);
insert into kdb.ends select 1000 + seq, seq from seq_1_to_300;
create table kdb.uends (id bigint unsigned not null, v int,
	primary key (id));
insert into kdb.uends values (0, 1), (1, 2), (9223372036854775807, 3),
	(9223372036854775808, 4), (18446744073709551614, 5),
	(18446744073709551615, 6);
insert into kdb.uends select 1000 + seq, seq from seq_1_to_300;
EOF

test_expect_success 'keys at INT64_MIN, INT64_MAX and 2^64 - 1: none missed' '
	mariadb --no-defaults -h127.0.0.1 -P"$UP" -uroot <"$TRASH/ends.sql" &&
	wait_for_condition 30 "test \"\$(sql $DOWN \"select count(*) from kdb.uends\")\" = 306" &&
	mkdir "$TRASH/r7" && cp "$TRASH/ends.yaml" "$TRASH/r7/suite.yaml" && cp "$T" "$TRASH/r7/" &&
	"$TICHAOS" check "$TRASH/r7" >tap12 2>err12 || { cat err12 tap12; false; }
	grep -Eqx "ok 1 - consistency: 1 tables, 307 rows equal on both sides \(sync [0-9.]+s\)" tap12 &&
	grep -Eqx "ok 2 - consistency: 1 tables, 306 rows equal on both sides \(sync [0-9.]+s\)" tap12 &&
	sql "$DOWN" "delete from kdb.ends where id in (-9223372036854775808, 9223372036854775807);
		update kdb.ends set v = 40 where id = 0;
		delete from kdb.uends where id in (9223372036854775808, 18446744073709551615);
		update kdb.uends set v = 10 where id = 0" &&
	{ "$TICHAOS" check "$TRASH/r7" >tap13 2>err13; test $? = 1; } &&
	fields_are "$TRASH/r7" 0 "307 305 id=-9223372036854775808,id=9223372036854775807 id=0 4" up_rows down_rows missing_keys changed_keys chunks &&
	fields_are "$TRASH/r7" 1 "306 304 id=18446744073709551615,id=9223372036854775808 id=0 4" up_rows down_rows missing_keys changed_keys chunks &&
	fix "$TRASH/r7" kdb.ends kdb.uends &&
	"$TICHAOS" check "$TRASH/r7" >tap14 2>err14 &&
	grep -Eqx "ok 1 - consistency: 1 tables, 307 rows equal .*" tap14 &&
	grep -Eqx "ok 2 - consistency: 1 tables, 306 rows equal .*" tap14
'

# A password from the environment (password_env): used for every SQL
# connection, written nowhere.
user_replicated() {
	test "$(sql "$DOWN" "select count(*) from mysql.user where user = 'tc'")" = 1
}

test_expect_success 'password_env: the password is used and never written' '
	sql "$UP" "create user tc@\"127.0.0.1\" identified by \"s3cret-pw-42\";
		grant all on *.* to tc@\"127.0.0.1\"" &&
	wait_for_condition 30 user_replicated &&
	sed -e "s/^    user: \"root\"$/    user: \"tc\"\n    password_env: \"TC_PW\"/" "$T" >"$TRASH/pw.yaml" &&
	test "$(grep -c "password_env: \"TC_PW\"" "$TRASH/pw.yaml")" = 2 &&
	TC_PW=s3cret-pw-42 "$TICHAOS" run "$TRASH/composite.yaml" --cluster "$TRASH/pw.yaml" \
		--out "$TRASH/r5" >tap9 2>err9 || { cat err9; false; }
	grep -Eqx "ok 2 - consistency: 2 tables, [0-9]+ rows equal on both sides \(sync [0-9.]+s\)" tap9 &&
	! grep -rq "s3cret-pw-42" "$TRASH/r5" tap9 err9 &&
	TC_PW=wrong "$TICHAOS" run "$TRASH/composite.yaml" --cluster "$TRASH/pw.yaml" \
		--out "$TRASH/r6" >tap10 2>err10; test $? = 3 &&
	grep -q "Access denied for user .tc.@.127.0.0.1. (using password: YES)" err10 &&
	! grep -rq "wrong" "$TRASH/r6/results.json"
'

test_expect_success 'password_env naming an unset variable: file:line:col, exit 2' '
	(unset TC_PW; "$TICHAOS" cluster status --cluster "$TRASH/pw.yaml" 2>err11); test $? = 2 &&
	line=$(grep -n "password_env" "$TRASH/pw.yaml" | head -1 | cut -d: -f1) &&
	echo "tichaos: $TRASH/pw.yaml:$line:19: password_env: the environment variable '\''TC_PW'\'' is not set" >expect &&
	test_cmp expect err11
'

# A real TiDB failed the ids check of a suite with a dml workload: its
# updates and deletes recorded the key they picked as an "id" (775),
# and the next insert's 1 went "back". Only ids the server gave out are
# ids; the keys go in the value.
test_expect_success 'ids with its defaults beside a dml workload (same table and another): passes' '
	cat >dml.yaml <<-EOF &&
	name: dmlids
	duration: 3s
	seed: 3
	database: dmlids
	tables:
	  - name: t
	    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
	  - name: u
	    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
	workloads:
	  - kind: insert
	    tables: t
	    rate: 100
	  - kind: dml
	    tables: [t, u]
	    key_range: 50
	    rate: 100
	checks:
	  - kind: ids
	EOF
	"$TICHAOS" run dml.yaml --cluster "$T" --out "$TRASH/dml" >tap 2>err ||
	{ cat tap err; false; } &&
	grep -Eqx "ok 3 - ids: 2 tables, [0-9]+ inserts: ids unique and increasing" tap &&
	grep -q "\"f\":\"delete\",\"table\":\"dmlids.t\",\"node\":\"up-0\",\"value\":{\"key\":[0-9]*}}" dml/history.jsonl &&
	grep -q "\"type\":\"ok\",\"f\":\"update\".*\"value\":{\"key\":[0-9]*}}" dml/history.jsonl &&
	! grep "\"f\":\"\(update\|delete\)\"" dml/history.jsonl | grep -q "\"id\":"
'

test_done
