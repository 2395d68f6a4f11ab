#!/bin/sh
# Is MariaDB's CHECKSUM TABLE (InnoDB, the local cluster's engine) blind
# to anything the consistency check catches? (issue 21: a fast path would
# trust it on equal tables.) Each kind of difference is made on the
# replica in a table of its own; both sides' CHECKSUM TABLE are compared,
# and what the consistency check reports on the same tables is asserted
# next to it. The outcomes, as measured, are in docs/checkers.md.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

test_cluster_setup 'set up a cluster to attach to'

# synced: the replica has applied everything the upstream has logged.
synced() {
	test_pos_=$(sql "$UP" "select @@gtid_binlog_pos") &&
	test "$(sql "$DOWN" "select master_gtid_wait('$test_pos_', 30)")" = 0
}

# replica SQL: run SQL on the replica only.
replica() {
	sql "$DOWN" "set sql_log_bin = 0; $1"
}

checksum_of() {
	sql "$1" "checksum table cks.$2" | cut -f2
}

# The tables, each with the difference its name says, made downstream.
# 1000 and 98607 in rows 1 and 2: a swap whose row CRCs cancel in the
# sum (found by searching; about 1 random swap in 7400 does).
test_expect_success 'the tables, replicated, then changed on the replica' '
	sql "$UP" "create database cks; use cks;
		create table changed (id int primary key, v int not null, s varchar(20) not null);
		insert into changed values (1, 10, \"a\"), (2, 20, \"b\"), (3, 30, \"c\");
		create table swap_caught (id int primary key, v int not null);
		insert into swap_caught values (1, 10), (2, 20);
		create table swap_missed (id int primary key, v int not null);
		insert into swap_missed values (1, 1000), (2, 98607);
		create table null_empty (id int primary key, s varchar(10) null);
		insert into null_empty values (1, null), (2, \"x\");
		create table trail_varchar (id int primary key, s varchar(10) not null);
		insert into trail_varchar values (1, \"a\");
		create table trail_char (id int primary key, c char(10) not null);
		insert into trail_char values (1, \"a\");
		create table missing (id int primary key, v int not null);
		insert into missing values (1, 1), (2, 2), (3, 3);
		create table extra (id int primary key, v int not null);
		insert into extra values (1, 1), (2, 2), (3, 3);
		create table shift_varchar (id int primary key, s varchar(10) not null, t varchar(10) not null);
		insert into shift_varchar values (1, \"ab\", \"c\");
		create table type_unsigned (id int primary key, v int not null);
		insert into type_unsigned values (1, 5);
		create table type_varchar (id int primary key, s varchar(10) not null);
		insert into type_varchar values (1, \"abc\");
		create table type_bigint (id int primary key, v int not null);
		insert into type_bigint values (1, 5);
		create table col_order (id int primary key, a int not null, b int not null);
		insert into col_order values (1, 1, 2);
		create table part_changed (id int primary key, v int not null)
			partition by range (id) (partition p0 values less than (100), partition p1 values less than maxvalue);
		insert into part_changed values (1, 1), (500, 2);
		create table part_layout (id int primary key, v int not null)
			partition by range (id) (partition p0 values less than (100), partition p1 values less than maxvalue);
		insert into part_layout values (1, 1), (500, 2);
		create table null_shift (id int primary key, a int null, b int null);
		insert into null_shift values (1, null, 5);
		create table null_strings (id int primary key, s varchar(10) null, t varchar(10) null);
		insert into null_strings values (1, \"\", null);
		create table swaps (id int primary key, v int not null);
		insert into swaps select seq, 1000 + seq * 7 % 9000 from seq_1_to_20000;
		create table swap_cols (id int primary key, a int not null, b int not null);
		insert into swap_cols values (1, 3, 4);
		create table null_zero (id int primary key, a int null, b int null);
		insert into null_zero values (1, null, 0);
		create table swap_strings (id int primary key, s varchar(20) not null);
		insert into swap_strings select seq, concat(\"s-\", seq + 100000) from seq_1_to_2000;
		create table swap_bigint (id int primary key, v bigint not null, u bigint unsigned not null);
		insert into swap_bigint select seq, cast(seq as signed) * 4294967311 * if(seq % 2, -1, 1), seq * 4294967311000 from seq_1_to_2000" &&
	synced &&
	for t in changed swap_caught swap_missed null_empty trail_varchar \
		trail_char missing extra shift_varchar type_unsigned \
		type_varchar type_bigint col_order part_changed part_layout; do
		test "$(checksum_of "$UP" $t)" = "$(checksum_of "$DOWN" $t)" ||
		return 1
	done &&
	replica "use cks;
		update changed set v = 31 where id = 3;
		update swap_caught set v = 30 - v;
		update swap_missed set v = 99607 - v;
		update null_empty set s = \"\" where id = 1;
		update trail_varchar set s = \"a \";
		update trail_char set c = \"a \";
		delete from missing where id = 2;
		insert into extra values (4, 4);
		update shift_varchar set s = \"a\", t = \"bc\";
		alter table type_unsigned modify v int unsigned not null;
		alter table type_varchar modify s varchar(20) not null;
		alter table type_bigint modify v bigint not null;
		alter table col_order modify a int not null after b;
		update part_changed set v = 3 where id = 500;
		alter table part_layout remove partitioning;
		update null_shift set a = 5, b = null;
		update null_strings set s = null, t = \"\";
		update swaps set v = 1000 + (id + 1) * 7 % 9000 where id % 100 = 1;
		update swaps set v = 1000 + (id - 1) * 7 % 9000 where id % 100 = 2;
		update swap_cols set a = 4, b = 3;
		update null_zero set a = 0, b = null;
		update swap_strings set s = concat(\"s-\", id + 100001) where id % 100 = 1;
		update swap_strings set s = concat(\"s-\", id + 99999) where id % 100 = 2;
		update swap_bigint set v = (id + 1) * 4294967311 * if((id + 1) % 2, -1, 1) where id % 100 = 1;
		update swap_bigint set v = (id - 1) * 4294967311 * if((id - 1) % 2, -1, 1) where id % 100 = 2;
		update swap_bigint set u = (id + 1) * 4294967311000 where id % 100 = 3;
		update swap_bigint set u = (id - 1) * 4294967311000 where id % 100 = 4" &&
	test "$(sql "$DOWN" "select concat_ws(\" \", (select group_concat(v order by id) from cks.swap_missed), (select concat(s, \"|\", t) from cks.shift_varchar), (select length(s) from cks.trail_varchar))")" = "98607,1000 a|bc 2"
'

# Why: the checksum is the sum, modulo 2^32, of each row's CRC32 over
# its null bits (the unused ones set), its fixed-size fields as stored
# and its strings' bytes, without their lengths. A sum of CRCs cancels
# for some swaps; bytes without lengths do not tell "ab","c" from "a","bc".
test_expect_success 'CHECKSUM TABLE is the sum of the rows CRC32s, as read' '
	test "$(checksum_of "$UP" swap_caught)" = "$(sql "$UP" "select (crc32(unhex(\"ff010000000a000000\")) + crc32(unhex(\"ff0200000014000000\"))) % 4294967296")" &&
	test "$(checksum_of "$UP" shift_varchar)" = "$(sql "$UP" "select crc32(concat(unhex(\"01000000\"), \"abc\"))")"
'

test_expect_success 'CHECKSUM TABLE: what it tells apart and what it misses' '
	for t in changed swap_caught swap_missed null_empty trail_varchar \
		trail_char missing extra shift_varchar type_unsigned \
		type_varchar type_bigint col_order part_changed part_layout; do
		if test "$(checksum_of "$UP" $t)" = "$(checksum_of "$DOWN" $t)"
		then echo "$t equal"
		else echo "$t differs"
		fi
	done >outcomes &&
	cat >expect <<-\EOF &&
	changed differs
	swap_caught differs
	swap_missed equal
	null_empty differs
	trail_varchar differs
	trail_char equal
	missing differs
	extra differs
	shift_varchar equal
	type_unsigned equal
	type_varchar equal
	type_bigint differs
	col_order differs
	part_changed differs
	part_layout equal
	EOF
	test_cmp expect outcomes
'

# The check's row hash is not a plain CRC: the XOR of the CRC32s of
# each row's text (pt-table-checksum's) does not change when values of
# one length are swapped between rows, as in the 200 pairs of swaps; the
# check's row hash, a CRC32 over the digits of a mix of the columns'
# values, is not linear in the mix, and does.
test_expect_success "a plain CRC32's XOR is blind to the swaps" '
	test "$(sql "$UP" "select count(*) from cks.swaps a join cks.swaps b on b.id = a.id + 1 where a.id % 100 = 1 and length(a.v) = length(b.v)")" = 200 &&
	q="select bit_xor(crc32(concat_ws(\",\", id, v))), sum(v) from cks.swaps" &&
	test "$(sql "$UP" "$q")" = "$(sql "$DOWN" "$q")"
'

# CHAR drops trailing spaces (the server pads and strips them): "a " is
# stored as "a" and there is nothing to tell apart; every other table
# differs, and the check says how. The last tables try its row hash
# (checkers/tabledef.c, tabledef_row_hash): values swapped between the columns
# of a row, NULL and 0 swapped between two columns, strings of one length
# swapped between rows, BIGINTs (negative, and unsigned past 2^32) swapped
# between rows. Chunks of 100 rows hold one swapped pair each (two in
# swap_bigint, v's and u's), of the swaps as of the others, and with two
# connections a side no table is checksummed whole first: a pair is
# found only if it changes its chunk's checksum, and every one is.
test_expect_success 'the consistency check on the same tables: every difference found' '
	mkdir r && cp "$T" r/topology.yaml &&
	cat >r/suite.yaml <<-\EOF &&
	name: checksum_table
	database: cks
	tables:
	  - name: w
	    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
	workloads:
	  - kind: insert
	    tables: w
	checks:
	  - kind: consistency
	    sync_timeout: 30s
	    chunk_rows: 100
	    threads: 2
	EOF
	"$TICHAOS" check r >tap 2>err; test $? = 1 &&
	grep -qx "  numbers: \"tables=22 differing=21 rows=24026 missing=1 extra=1 changed=533\"" tap &&
	perl -MJSON::PP -e "
		my \$j = decode_json(do { local \$/; <STDIN> });
		for my \$t (@{ \$j->{checks}[0]{details}{tables} }) {
			print \$t->{table} =~ s/^cks.//r,
				\$t->{schema} ? q( columns) : q(),
				\$t->{partitioning} ? q( partitioning) : q(),
				\$t->{schema} ? q() : qq( \$t->{missing} \$t->{extra} \$t->{changed}),
				qq(\n);
		}" <r/results.json >found &&
	cat >expect <<-\EOF &&
	changed 0 0 1
	col_order columns
	extra 0 1 0
	missing 1 0 0
	null_empty 0 0 1
	null_shift 0 0 1
	null_strings 0 0 1
	null_zero 0 0 1
	part_changed 0 0 1
	part_layout partitioning 0 0 0
	shift_varchar 0 0 1
	swap_bigint 0 0 80
	swap_caught 0 0 2
	swap_cols 0 0 1
	swap_missed 0 0 2
	swap_strings 0 0 40
	swaps 0 0 400
	trail_char 0 0 0
	trail_varchar 0 0 1
	type_bigint columns
	type_unsigned columns
	type_varchar columns
	EOF
	test_cmp expect found
'

test_done
