#ifndef TICHAOS_CONSISTENCY_H
#define TICHAOS_CONSISTENCY_H

/*
 * The consistency check's key ranges: how a table is cut into chunks, how
 * a chunk is cut in two, and how a range reads as SQL. No connection and
 * no server: checkers/consistency.c finds the keys (MIN, MAX and COUNT(*)
 * of a single integer key; every chunk_rows-th key of any other) and
 * hands them here; tests/unit/t-consistency.c asserts the results
 * exactly. Not for anything outside the check, its test and the
 * syncpoint check (consistency_compare_at, below).
 *
 * The contract: the ranges of a table cover every key of either side
 * exactly once, with no gap and no overlap, whatever the keys' values —
 * INT64_MIN and INT64_MAX included. A mismatching integer chunk is cut the
 * same way, by range_split_int, into at most ten parts.
 */

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/optspec.h"

struct check_ctx;
struct check_result;
struct component;
struct sql;

/* A compared table, as the upstream's information_schema describes it. */
struct table {
	const char *db;
	const char *name;
	char **cols;		/* column names */
	size_t ncols;
	char **keys;		/* primary key columns */
	size_t nkeys;
	int *key_int;		/* per key column: an integer type, its
				 * values written as they are */
	int int_key;		/* one key column, an integer that fits an
				 * int64 (not BIGINT UNSIGNED) */
	int *key_bin;		/* per key column (NULL: none): ordered by
				 * its bytes, CAST(k AS BINARY), its
				 * collation differing between the sides */
	struct buf text_expr;	/* the row's text, which no other row has */
	struct buf hash_expr;	/* the row's 32-bit hash */
	struct buf qname;	/* `db`.`name` */
};

/*
 * A range of rows in key order. A single integer key (int_key) is cut
 * arithmetically; any other key at key tuples taken from the data, which
 * the range borrows.
 */
struct range {
	int whole;		/* no bounds: the whole table */
	int64_t lo, hi;		/* integer key: [lo, hi], both included */
	char **klo, **khi;	/* other keys: [klo, khi); NULL: unbounded */
};

/*
 * The chunks of a single integer key whose values on either side lie in
 * [lo, hi], with at most `rows` rows on a side: ceil(rows / chunk_rows)
 * chunks (at least 1, at most one per key), the first starting at lo, the
 * last ending at hi, each starting one past the end of the one before,
 * their widths differing by one key at most, the wider first. Returns
 * how many, in *out (caller frees); 0, *out NULL, when lo > hi (both
 * sides are empty). chunk_rows MUST be positive.
 */
size_t range_split_int(int64_t lo, int64_t hi, uint64_t rows,
		       uint64_t chunk_rows, struct range **out);

/*
 * The chunks of any other key, cut at `bounds` (nbounds key tuples in
 * ascending key order, borrowed): nbounds + 1 ranges, [-, b0), [b0, b1),
 * ..., [b(n-1), -), the first and the last open, so that a row of either
 * side, whatever its key, is in exactly one. Returns how many, in *out
 * (caller frees).
 */
size_t range_split_keys(char **const *bounds, size_t nbounds,
			struct range **out);

/*
 * Append the range as a WHERE clause of `t`'s key (" WHERE ..."), or
 * nothing for a whole or unbounded range. An integer range reads
 * "`id` >= lo AND `id` <= hi"; a range of any other key compares the
 * key tuple column by column: ">" ... ">=" on the last column from klo,
 * "<" to khi, so that the clause from a tuple and the clause to it are
 * each other's complement. A key column's value is written as it is
 * when the column is an integer and the value is digits, else quoted.
 */
void range_where(struct buf *q, const struct table *t,
		 const struct range *rg);

/*
 * The options of the checks that compare tables (consistency, syncpoint),
 * bound to the members of the same names of the kind's options struct
 * `type`: tables (struct optlist), chunk_rows, threads, max_report
 * (int64_t).
 */
#define CONSISTENCY_COMPARE_OPTS(type)                                       \
	{ "tables", OPT_TABLES, NULL, 0, NULL, 0, 0,                         \
	  "only these tables (default: every table of the database, on "     \
	  "either side)", OPT_AT(type, tables) },                            \
	{ "chunk_rows", OPT_INT, "100000", 0, NULL, 100, 10000000,           \
	  "rows per checksummed chunk", OPT_AT(type, chunk_rows) },          \
	{ "threads", OPT_INT, "0", 0, NULL, 0, 64,                           \
	  "connections per side checksumming chunks in parallel; 0: one "    \
	  "per two cores of this machine (1 to 4) when both servers run on " \
	  "it, else 4", OPT_AT(type, threads) },                             \
	{ "max_report", OPT_INT, "20", 0, NULL, 1, 1000,                     \
	  "keys listed per kind of difference", OPT_AT(type, max_report) }

/*
 * The compare of two snapshots (checkers/syncpoint.c): both sides' SQL
 * nodes, and per side MAY a statement run on each of its connections
 * before any read ("SET @@tidb_snapshot = '449...'"). Borrowed.
 */
struct snapshot_pair {
	const struct component *comp[2];	/* upstream, downstream */
	const char *session[2];
	const struct optlist *tables;		/* empty: every table */
	int64_t chunk_rows, threads, max_report;
};

/*
 * Compare the tables of ctx->suite->database as the consistency check
 * does, without its barrier, on connections that first run `at`'s
 * session statements; no fix SQL is written (a past snapshot's fix would
 * not apply to the tables as they are now). Fills r's verdict (pass or
 * fail: "2 of 4 tables differ; first: db.t: 0 missing, 0 extra, 1
 * changed"), "tables" in its details (as the consistency check's) and
 * its numbers. Returns -1 with `e` set ("down-0: SET @@tidb_snapshot =
 * '449...': query failed on '...': <server's message> (8055)") when a
 * side could not be read; r's verdict is then untouched.
 */
int consistency_compare_at(const struct check_ctx *ctx,
			   const struct snapshot_pair *at,
			   struct check_result *r, struct err *e);

/*
 * Append to `x` an SQL expression of column `col` (a FLOAT or DOUBLE):
 * its value's text in one notation on every server. TiDB writes a
 * DOUBLE's shortest digits in plain decimal (1.5e300 as 15 and 299
 * zeros), MariaDB and MySQL the same digits in exponent notation from
 * 1e15 up and below about 1e-7 ("1.5e300"): a real tidb-server
 * 8f2630e53d5d against MariaDB 10.11, run by hand. The exponent form is
 * written out plain, so that both sides hash and compare the same text.
 * `+ 0` makes a FLOAT a DOUBLE on both, and a negative zero a zero (TiDB
 * writes "-0", MariaDB "0"). The row hash and the row text use it.
 */
void consistency_float_text(struct buf *x, const char *col);

#endif
