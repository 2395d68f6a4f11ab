#ifndef TICHAOS_TABLEDIFF_H
#define TICHAOS_TABLEDIFF_H

/*
 * The table diff: the tables of a database compared on two SQL nodes,
 * table by table, in chunks of the primary key, with the rows that differ
 * and the SQL that fixes them. The consistency check runs it after its
 * barrier; the syncpoint check at TiDB snapshots (tablediff_compare_at).
 * Its modules, each a section below:
 *
 *   checkers/tabledef.c    what a table is: its columns, key, collations,
 *                          partitioning; the SQL of its row's text and
 *                          hash
 *   checkers/tablerange.c  key ranges: a table cut into chunks, a chunk
 *                          cut in parts, a range as SQL; a range's
 *                          checksum
 *   checkers/tablepool.c   every chunk's checksums on both sides at once
 *   checkers/tablerows.c   the mismatching chunks' rows compared; the
 *                          differences and their fix SQL
 *   checkers/tablediff.c   the driver: every table, the details, the
 *                          fix-sql/ files
 *   checkers/tableshow.c   the rows that differ, drawn on report.html
 *
 * Any check may include this header. Errors: -1 with `e` set (a failed
 * query says which server and statement, as lib/sql.h gives it), unless
 * a function says otherwise.
 */

#include <stddef.h>
#include <stdint.h>

#include "checkers/diffconfig.h"
#include "core/figure.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/optspec.h"
#include "lib/sql.h"

struct check_ctx;
struct check_result;
struct component;

/*
 * The options of the checks that compare tables (consistency, syncpoint),
 * bound to the members of the same names of the kind's options struct
 * `type`: tables (struct optlist), chunk_rows, threads, max_report
 * (int64_t).
 */
#define TABLEDIFF_COMPARE_OPTS(type)                                         \
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

/* What a compare reads its settings from: the options above. */
struct tablediff_opts {
	struct optlist tables;	/* empty: every table, on either side */
	int64_t chunk_rows;
	int64_t threads;	/* 0: auto */
	int64_t max_report;
	/* Set by tablediff_compare_at, reading past snapshots, whose fix
	 * SQL would not apply to the tables now: none is written. */
	int at_snapshot;
	/* MAY: sync-diff-inspector's configuration: the tables it picks,
	 * of any database, in place of the suite's database (and with
	 * `tables` empty). */
	const struct diffconfig *config;
};

/* sides[UP] is the upstream, sides[DOWN] the downstream. */
enum { UP, DOWN };

/* One side of the compare: an SQL node and a connection to it. */
struct side {
	const struct component *comp;
	struct sql conn;
	/* MAY: statements run on every new connection before any read
	 * ("SET @@tidb_snapshot = '449...'"); its error is the side's. */
	const char *session;
};

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
	/* Per column (NULL: none): JSON on either side, its values compared
	 * by value where their text differs (MySQL and TiDB order an
	 * object's keys their own way, MariaDB keeps the text it got). */
	int *col_json;
	struct buf plain_expr;	/* with col_json: the text without them */
	struct buf qname;	/* `db`.`name` */
	/* Both sides run the same server release: a FLOAT's or DOUBLE's
	 * text is one function of its value on both, read as it is, not
	 * written out plain (tabledef_float_text, for TiDB against
	 * MariaDB). */
	int float_as_is;
	/* Both sides run one MariaDB release: a FLOAT's or DOUBLE's hash
	 * term is the CRC32 of its 8 bytes, as a dynamic column holds them
	 * (COLUMN_CREATE(1, c AS DOUBLE)), not of its text, whose
	 * conversion was most of the row hash's time on a table with one
	 * DOUBLE (bench/README.md). */
	int float_bits;
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

/* A range's checksum on one side: its rows, the XOR of their hashes. */
struct sum {
	uint64_t count;
	char xor[24];
};

/*
 * What a table's comparison found. keys[], nkeys[] and the kinds of
 * difference are indexed 0 missing, 1 extra, 2 changed
 * (tablerows_kind_names).
 */
struct diff {
	uint64_t rows[2];
	uint64_t chunks, compared;	/* chunks; rows fetched to compare */
	uint64_t missing, extra, changed;
	struct buf keys[3];	/* the first max_report, JSON strings, one
				 * a line */
	int64_t nkeys[3];	/* how many are in keys[] */
	struct buf fix;		/* fix SQL */
	int64_t max_report;
	/* The first SHOWN_ROWS (checkers/tablerows.c) differences, both
	 * sides' rows and the fix of each, JSON objects one a line
	 * (report.html shows them). */
	struct buf shown;
	int64_t nshown;
};

/* A row read to be compared (tablerows.c's fetch_rows). */
struct row {
	char *key;		/* key columns' text, for sorting */
	long long ikey;
	char hash[48];		/* SHA1 in hex */
	char plain[48];		/* with col_json: SHA1 of plain_expr */
	char **vals;		/* ncols values; NULL for SQL NULL */
};

/* A range's rows, in key order (no key: in the order of their hashes). */
struct rows {
	struct row *rows;
	size_t n;
	size_t ncols;
};

/* --- checkers/tabledef.c: what a table is --- */

/*
 * The first column of every row `query` gives on `s`, each a copy ("" for
 * NULL), into *out (n of them, NULL-terminated; tabledef_free_list).
 * -1 with `e` set, *out NULL, when the query fails.
 */
int tabledef_string_list(struct sql *s, const char *query, char ***out,
			 size_t *n, struct err *e);

/* Free the n strings of `list` and the list; NULL with 0 is none. */
void tabledef_free_list(char **list, size_t n);

/*
 * Reset `q` to "<select> WHERE TABLE_SCHEMA = 'db' [AND TABLE_NAME =
 * 't']<rest>", the names quoted; `table` NULL: no TABLE_NAME.
 */
void tabledef_schema_query(struct buf *q, const char *select, const char *db,
			   const char *table, const char *rest);

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
void tabledef_float_text(struct buf *x, const char *col);

/*
 * Append to t->text_expr the SQL of a row's text, which no other row of
 * `t` shares (its SHA1 tells rows apart), and to t->hash_expr the SQL of
 * its 32-bit hash (the chunks' checksums XOR it); both from t->cols and,
 * per column, `types` (information_schema's DATA_TYPE, "bigint unsigned"
 * for a BIGINT UNSIGNED) and `nulls` (IS_NULLABLE, "YES" or "NO"), all
 * t->ncols long and borrowed. tabledef_describe calls them.
 */
void tabledef_row_text(struct table *t, char **types, char **nulls);
/* The same text without the columns t->col_json marks, into
 * t->plain_expr. */
void tabledef_plain_text(struct table *t, char **types, char **nulls);
void tabledef_row_hash(struct table *t, char **types, char **nulls);

/*
 * Fill `t` (t->db and t->name set, its bufs BUF_INIT) from the upstream:
 * columns, primary key, which key columns are integers and which must be
 * ordered by their bytes, the row's text and hash, its quoted name. When
 * the sides' column definitions differ, `schema` gets both ("upstream
 * (...); downstream (...)"), else stays empty. -1 with `e` set when a
 * query failed or the table changed while it was read; `t` holds what
 * was read either way (tabledef_release).
 */
int tabledef_describe(struct side *sides, struct table *t, struct buf *schema,
		      struct err *e);

/*
 * Both sides' partitioning of `t` into `diff` when they differ ("upstream
 * RANGE (id) p0 10, ...; downstream not partitioned"), else nothing.
 */
int tabledef_partitioning(struct side *sides, const struct table *t,
			  struct buf *diff, struct err *e);

/* Free what tabledef_describe filled in `t` (not t->db, t->name). */
void tabledef_release(struct table *t);

/* --- checkers/tablerange.c: key ranges and checksums --- */

/*
 * How a table is cut into chunks, how a chunk is cut in parts, and how a
 * range reads as SQL; tests/unit/t-tablerange.c asserts the results
 * exactly. The contract: the ranges of a table cover every key of either
 * side exactly once, with no gap and no overlap, whatever the keys'
 * values — INT64_MIN and INT64_MAX included. A mismatching integer chunk
 * is cut the same way, by range_split_int, into at most ten parts.
 */

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
 * when the column is an integer and the value is digits, else quoted;
 * a column of t->key_bin is compared as CAST(`k` AS BINARY).
 */
void range_where(struct buf *q, const struct table *t,
		 const struct range *rg);

/* Free a key tuple of n values (NULL: none), as tablerange_nth_key
 * gives them. */
void tablerange_free_tuple(char **tuple, size_t n);

/*
 * The key tuple of the row `offset` rows into `rg` on `s`, in key order:
 * 1 and *out set (t->nkeys copies; tablerange_free_tuple), 0 when the
 * range holds no more rows, or -1 with `e` set.
 */
int tablerange_nth_key(struct sql *s, const struct table *t,
		       const struct range *rg, uint64_t offset, char ***out,
		       struct err *e);

/* 1 when both sums are the same: the same rows, as far as they tell. */
int tablerange_same_sum(const struct sum *up, const struct sum *down);

/* The checksum of `rg` on `s` into *out: COUNT(*) and the BIT_XOR of
 * t->hash_expr. */
int tablerange_checksum(struct sql *s, const struct table *t,
			const struct range *rg, struct sum *out,
			struct err *e);

/*
 * The chunks of a table with a single integer key (t->int_key), from
 * both sides' MIN, MAX and row counts (or estimates): *n of them in *out
 * (caller frees); 0 chunks when both sides are empty.
 */
int tablerange_int_chunks(struct side *sides, const struct table *t,
			  int64_t chunk_rows, struct range **out, size_t *n,
			  struct err *e);

/*
 * The chunks of a table with any other key, cut at every chunk_rows-th
 * key of the upstream: *n of them in *out (caller frees), borrowing the
 * *nbounds key tuples in *bounds, which the caller frees after them
 * (tablerange_free_tuple each, then the array), also after a failure.
 */
int tablerange_key_chunks(struct side *sides, const struct table *t,
			  int64_t chunk_rows, struct range **out, size_t *n,
			  char ****bounds, size_t *nbounds, struct err *e);

/* --- checkers/tablepool.c: the chunks' checksums --- */

/*
 * The checksums of `nchunks` ranges on both sides at once, `threads`
 * connections a side (each its own, opened with tablediff_connect; the
 * sides' own are not used): sums[UP] and sums[DOWN], nchunks each (the
 * caller frees them, also after a failure). The first error stops both
 * sides' workers.
 */
int tablepool_checksum(struct side *sides, const struct table *t,
		       const struct range *ranges, size_t nchunks,
		       int threads, struct sum *sums[2], struct err *e);

/* --- checkers/tablerows.c: rows, differences, fix SQL --- */

/* "missing", "extra", "changed": the kinds of difference, in order. */
extern const char *const tablerows_kind_names[3];

/*
 * Merge two lists of rows in key order (both of `t`'s range, sorted as
 * fetched) into `d`: a row only upstream is missing (fix: REPLACE, or
 * INSERT without a key), one only downstream is extra (DELETE), one on
 * both sides whose hash differs is changed (REPLACE); each counted,
 * its key in d->keys (the first d->max_report of a kind) and its rows in
 * d->shown (the first SHOWN_ROWS). The rows stay the caller's.
 */
void tablerows_compare(struct diff *d, const struct table *t,
		       const struct rows *up, const struct rows *down);

/*
 * Compare the chunks whose sums differ (up[i] and down[i] of `ranges`),
 * `threads` workers at a time, each with a connection of its own to
 * either side: a chunk is cut until its parts are small enough to
 * compare row by row. What they find is added to `d` in chunk order.
 */
int tablerows_compare_chunks(struct side *sides, const struct table *t,
			     const struct range *ranges, size_t nchunks,
			     const struct sum *up, const struct sum *down,
			     int threads, struct diff *d, struct err *e);

/* --- checkers/tablediff.c: the driver --- */

/*
 * Connect s->conn to s->comp and run s->session on it: 0, or -1 with `e`
 * set ("down-0: SET @@tidb_snapshot = '449...': <why>" when the session
 * statement failed). The caller closes s->conn, also after a failure.
 */
int tablediff_connect(struct side *s, struct err *e);

/* What the tables compared so far add up to. */
struct tablediff_tally {
	size_t differing;
	uint64_t rows;
	uint64_t tot[3];	/* missing, extra, changed */
	char first[400];	/* the first difference, for the message */
};

/*
 * Compare every table of ctx->suite->database on either side (or
 * o->tables) on the connected `sides`, into the tally (zeroed by the
 * caller) and r: "tables" in its details (an entry a table: presence,
 * partitioning, columns, row counts, keys, shown rows, fix_sql) and its
 * numbers; the fix SQL of each differing table written to the run
 * directory's fix-sql/<db>.<table>.sql unless o->at_snapshot. *nall: how
 * many tables. r's verdict is the caller's to set.
 */
int tablediff_compare_tables(const struct check_ctx *ctx,
			     const struct tablediff_opts *o,
			     struct side *sides, struct tablediff_tally *tl,
			     size_t *nall, struct check_result *r,
			     struct err *e);

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
int tablediff_compare_at(const struct check_ctx *ctx,
			 const struct snapshot_pair *at,
			 struct check_result *r, struct err *e);

/*
 * The checks' draw (core/figure.h) of what they found: each table's rows
 * that differ (details.tables[].rows, with its "columns"), both sides'
 * values, those that differ marked, and each row's fix SQL. "rows" and
 * "columns" leave the details' text.
 */
figure_draw tablediff_draw;

#endif
