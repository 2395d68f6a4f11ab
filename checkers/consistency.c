/*
 * consistency: after the run, do the upstream and the downstream hold the
 * same data? (docs/checkers.md, the data loss of TiCDC issue 1192.)
 *
 * 1. Barrier: a finish mark written upstream must appear downstream within
 *    `sync_timeout` and, on TiCDC, the changefeed's checkpoint_ts pass
 *    the mark's commit_ts; otherwise the verdict is unknown, with the lag
 *    seen.
 * 2. Every table of the suite's database on either side: presence, column
 *    definitions, then data, in chunks of about `chunk_rows` rows of the
 *    primary key: a single integer key's range is cut arithmetically; any
 *    other key (composite, string, date, BIGINT UNSIGNED) is cut at every
 *    chunk_rows-th key of the upstream's key order (checkers/consistency.h
 *    says how, exactly). Both sides checksum every chunk in
 *    parallel (`threads` connections each, and a side done helps the
 *    other with its last chunks): COUNT(*) and the BIT_XOR of a
 *    32-bit row hash (the CRC32 of a mix of the columns' values,
 *    row_hash() says how); with one connection a side, the whole table
 *    first, and chunks only when it differs (whole_first). Mismatching
 *    chunks are cut (an integer range in tenths, any other at its middle
 *    key) down to a few thousand rows, whose rows are then compared in
 *    key order. A table without a key is compared whole as a multiset of
 *    rows, with a warning.
 * 3. Differences: missing, extra and changed rows with their keys, and
 *    fix-sql/<db>.<table>.sql — REPLACE for missing and changed rows,
 *    DELETE for extra ones — which, applied downstream, makes it equal.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "checkers/barrier.h"
#include "checkers/checker.h"
#include "checkers/consistency.h"
#include "clusters/api.h"
#include "clusters/cluster.h"
#include "core/suite.h"
#include "lib/clock.h"
#include "lib/history.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "lib/sql.h"

struct consistency_opts {
	int64_t sync_timeout;
	const char *changefeed;	/* NULL: the cluster's */
	struct optlist tables;	/* empty: every table, on either side */
	int64_t chunk_rows;
	int64_t threads;
	int64_t max_report;
	/* Not an option: set by consistency_compare_at, reading past
	 * snapshots, whose fix SQL would not apply to the tables now. */
	int at_snapshot;
};

#define AT(member) OPT_AT(struct consistency_opts, member)

static const struct optspec opts[] = {
	{ "sync_timeout", OPT_DURATION, "300s", 0, NULL, 0, 0,
	  "how long the finish mark may take to reach the downstream",
	  AT(sync_timeout) },
	{ "changefeed", OPT_STRING, NULL, 0, NULL, 0, 0,
	  "TiCDC: the changefeed whose checkpoint must pass the finish mark "
	  "(default: the topology's, else tichaos)", AT(changefeed) },
	CONSISTENCY_COMPARE_OPTS(struct consistency_opts),
};

/* Rows compared one by one at most, per range cut from a mismatching
 * chunk. */
#define COMPARE_ROWS 2000

enum { UP, DOWN };

struct side {
	const struct component *comp;
	struct sql conn;
	/* MAY: statements run on every new connection before any read
	 * ("SET @@tidb_snapshot = '449...'"); its error is the side's. */
	const char *session;
};

struct diff {
	uint64_t rows[2];
	uint64_t chunks, compared;	/* chunks; rows fetched to compare */
	uint64_t missing, extra, changed;
	struct buf keys[3];	/* the first max_report, JSON strings, one
				 * a line */
	int64_t nkeys[3];	/* how many are in keys[] */
	struct buf fix;		/* fix SQL */
	int64_t max_report;
	/* The first SHOWN_ROWS differences, both sides' rows and the fix of
	 * each, JSON objects one a line (report.html shows them). */
	struct buf shown;
	int64_t nshown;
};

/* Differences shown with their rows, per table. */
#define SHOWN_ROWS 100

static const char *const kind_names[] = { "missing", "extra", "changed" };

static int connect_side(struct side *s, struct err *e)
{
	const struct component *c = s->comp;
	struct err se = ERR_INIT;

	if (component_connect(c, &s->conn, NULL, 60, e))
		return -1;
	if (s->session && sql_exec(&s->conn, s->session, &se))
		return err_set(e, se.class, "%s: %s: %s", c->name, s->session,
			       se.msg);
	return 0;
}

static const struct component *first_with(struct cluster *c, unsigned role)
{
	for (size_t i = 0; i < c->ncomps; i++)
		if ((c->comps[i].roles & role) && c->comps[i].sql_port)
			return &c->comps[i];
	return NULL;
}

static int string_list(struct sql *s, const char *query, char ***out,
		       size_t *n, struct err *e)
{
	struct sql_result r = SQL_RESULT_INIT;

	*out = NULL;
	*n = 0;
	if (sql_query(s, query, &r, e))
		return -1;
	*out = xcalloc(r.nrows + 1, sizeof(**out));
	for (size_t i = 0; i < r.nrows; i++) {
		const char *v = r.cells[i * r.ncols];

		(*out)[(*n)++] = xstrdup(v ? v : "");
	}
	sql_result_release(&r);
	return 0;
}

static void free_list(char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "SELECT ... WHERE TABLE_SCHEMA = 'db' [AND TABLE_NAME = 't'] ..." */
static void schema_query(struct buf *q, const char *select, const char *db,
			 const char *table, const char *rest)
{
	buf_reset(q);
	buf_addstr(q, select, NULL);
	buf_addstr(q, " WHERE TABLE_SCHEMA = ", NULL);
	sql_quote_string(q, db, NULL);
	if (table) {
		buf_addstr(q, " AND TABLE_NAME = ", NULL);
		sql_quote_string(q, table, NULL);
	}
	buf_addstr(q, rest, NULL);
}

/*
 * The types as describe() reads them: DATA_TYPE, but "bigint unsigned"
 * for a BIGINT UNSIGNED, whose values an int64 cannot all hold.
 */
static const char *const int_types[] = {
	"tinyint", "smallint", "mediumint", "int", "bigint", "bigint unsigned",
	NULL,
};

/* Types whose text is digits, signs, points, dashes, colons, spaces. */
static const char *const plain_types[] = {
	"tinyint", "smallint", "mediumint", "int", "bigint", "bigint unsigned",
	"decimal", "float", "double", "date", "time", "datetime", "timestamp",
	"year", NULL,
};

static int type_in(const char *type, const char *const *list)
{
	for (size_t i = 0; list[i]; i++)
		if (!strcasecmp(type, list[i]))
			return 1;
	return 0;
}

/* The exponent form written out plain: t = the text, m its mantissa, ex
 * its exponent, a the mantissa without its sign, ip and fr the digits
 * before and after its point. */
void consistency_float_text(struct buf *x, const char *col)
{
	struct buf t = BUF_INIT, m = BUF_INIT, a = BUF_INIT, fr = BUF_INIT;
	struct buf ex = BUF_INIT, ip = BUF_INIT;

	buf_addstr(&t, "CAST((", NULL);
	sql_quote_ident(&t, col, NULL);
	buf_addstr(&t, " + 0) AS CHAR)", NULL);
	buf_printf(&m, NULL, "SUBSTRING_INDEX(%s, 'e', 1)", buf_str(&t));
	buf_printf(&ex, NULL, "CAST(SUBSTRING_INDEX(%s, 'e', -1) AS SIGNED)",
		   buf_str(&t));
	buf_printf(&a, NULL, "TRIM(LEADING '-' FROM %s)", buf_str(&m));
	buf_printf(&ip, NULL, "SUBSTRING_INDEX(%s, '.', 1)", buf_str(&a));
	buf_printf(&fr, NULL, "IF(LOCATE('.', %s) > 0, SUBSTRING_INDEX(%s, "
		   "'.', -1), '')", buf_str(&a), buf_str(&a));
	buf_printf(x, NULL, "IF(LOCATE('e', %s) = 0, %s, CONCAT(IF(LEFT(%s, "
		   "1) = '-', '-', ''), IF(%s >= 0, IF(LENGTH(%s) <= %s, "
		   "CONCAT(%s, %s, REPEAT('0', %s - LENGTH(%s))), CONCAT(%s, "
		   "LEFT(%s, %s), '.', SUBSTRING(%s, %s + 1))), CONCAT('0.', "
		   "REPEAT('0', -%s - 1), %s, %s))))", buf_str(&t), buf_str(&t),
		   buf_str(&m), buf_str(&ex), buf_str(&fr), buf_str(&ex),
		   buf_str(&ip), buf_str(&fr), buf_str(&ex), buf_str(&fr),
		   buf_str(&ip), buf_str(&fr), buf_str(&ex), buf_str(&fr),
		   buf_str(&ex), buf_str(&ex), buf_str(&ip), buf_str(&fr));
	buf_release(&t);
	buf_release(&m);
	buf_release(&a);
	buf_release(&fr);
	buf_release(&ex);
	buf_release(&ip);
}

/* Column `i` of `t` as the row's text and hash read it. */
static void add_column(struct buf *x, const struct table *t, char **types,
		       size_t i)
{
	if (!strcasecmp(types[i], "float") || !strcasecmp(types[i], "double"))
		consistency_float_text(x, t->cols[i]);
	else
		sql_quote_ident(x, t->cols[i], NULL);
}

/*
 * The text of a row, one string that no other row shares, whose SHA1
 * tells the rows of a range apart when they are compared (fetch_rows):
 * its columns joined by commas, after the NULL bits of the nullable
 * columns ("0,1,": the second is NULL; CONCAT_WS leaves NULLs
 * out). Numbers and times go as they are, their text holds no comma.
 * Every column whose text may hold anything (strings, binary, JSON, BIT,
 * ...) goes as <length>,<text>, but the last of them, moved to the end:
 * it is what follows the last comma the others account for. All are
 * arguments of one CONCAT_WS, none a function's result nested in it.
 */
static void row_text(struct table *t, char **types, char **nulls)
{
	struct buf *x = &t->text_expr;
	size_t last = t->ncols, nnull = 0;

	for (size_t i = 0; i < t->ncols; i++) {
		if (!type_in(types[i], plain_types))
			last = i;
		nnull += !strcmp(nulls[i], "YES");
	}
	buf_addstr(x, "CONCAT_WS(','", NULL);
	for (size_t i = 0; nnull && i < t->ncols; i++)
		if (!strcmp(nulls[i], "YES")) {
			buf_addstr(x, ", ISNULL(", NULL);
			sql_quote_ident(x, t->cols[i], NULL);
			buf_addch(x, ')', NULL);
		}
	for (size_t i = 0; i <= t->ncols; i++) {
		size_t c = i < t->ncols ? i : last;

		if (i == last || c == t->ncols)
			continue;
		buf_addstr(x, ", ", NULL);
		if (c != last && !type_in(types[c], plain_types)) {
			buf_addstr(x, "LENGTH(", NULL);
			sql_quote_ident(x, t->cols[c], NULL);
			buf_addstr(x, "), ", NULL);
			sql_quote_ident(x, t->cols[c], NULL);
		} else {
			add_column(x, t, types, c);
		}
	}
	buf_addch(x, ')', NULL);
}

/*
 * The j-th multiplier of row_hash(): even, below 2^31, a different one
 * for every j below 2^30 (an odd number's multiples are distinct modulo
 * 2^30).
 */
static uint64_t hash_factor(size_t j)
{
	return 2 * (((uint64_t)j + 1) * 2654435761u & ((1u << 30) - 1));
}

/*
 * The row hash the chunks' checksums XOR: the CRC32 of the decimal text
 * of a 64-bit mix of the row's columns, each column's term its value
 * times a multiplier of its own (hash_factor), the terms XORed:
 * - an integer up to INT (32 bits, signed or not): c * K;
 * - a BIGINT, signed or not: its low and its high 32 bits, each times a
 *   K of its own ((c & 4294967295) * K ^ (c >> 32) * K');
 * - any other (strings, binary, times, decimals, floats, JSON, BIT, ...):
 *   the CRC32 of its text or bytes, times K.
 * Every product is exact: a factor below 2^32 times K below 2^31 never
 * leaves the range of a BIGINT, so no server raises an out-of-range
 * error, and the bitwise operators work on the 64 bits as unsigned on
 * MariaDB, MySQL and TiDB alike (TiDB: pkg/expression/builtin_op.go,
 * bitAnd, bitXor and rightShift return unsigned). A NULL's term is its
 * column's first K plus one, which no value's is (every K is even, and
 * so is every product), nor a NULL's in another column: NULL and a zero
 * swapped between columns change the mix too. Values
 * swapped between columns change the mix (their Ks differ); values
 * swapped between rows do not change the XOR of the mixes, which is
 * linear, and that is why the mix is hashed again: the CRC32 of its
 * digits is not linear in it. No column is converted to text but those
 * whose hash must read their text anyway: the row text's conversions
 * and CONCAT_WS were most of the time of the check (bench/README.md).
 */
static void row_hash(struct table *t, char **types, char **nulls)
{
	struct buf *x = &t->hash_expr;
	size_t j = 0;

	buf_addstr(x, "CRC32(", NULL);
	for (size_t i = 0; i < t->ncols; i++) {
		int null = !strcmp(nulls[i], "YES");
		uint64_t k = hash_factor(j);

		buf_addstr(x, i ? " ^ " : "", NULL);
		buf_addstr(x, null ? "IFNULL(" : "(", NULL);
		if (!strcasecmp(types[i], "bigint") ||
		    !strcasecmp(types[i], "bigint unsigned")) {
			buf_addstr(x, "((", NULL);
			sql_quote_ident(x, t->cols[i], NULL);
			buf_printf(x, NULL, " & 4294967295) * %" PRIu64 ") ^ ((",
				   k);
			sql_quote_ident(x, t->cols[i], NULL);
			buf_printf(x, NULL, " >> 32) * %" PRIu64 ")",
				   hash_factor(j + 1));
			j += 2;
		} else if (type_in(types[i], int_types)) {
			sql_quote_ident(x, t->cols[i], NULL);
			buf_printf(x, NULL, " * %" PRIu64, k);
			j++;
		} else {
			buf_addstr(x, "CRC32(", NULL);
			add_column(x, t, types, i);
			buf_printf(x, NULL, ") * %" PRIu64, k);
			j++;
		}
		if (null)
			buf_printf(x, NULL, ", %" PRIu64 ")", k + 1);
		else
			buf_addch(x, ')', NULL);
	}
	buf_addch(x, ')', NULL);
}

/*
 * A column's type as far as its values go, the same on TiDB and on a
 * MySQL or MariaDB downstream: integers without their display width,
 * which TiDB (as MySQL 8.0.19 and later) does not show and MariaDB does
 * ("int" against "int(11)": a real tidb-server 8f2630e53d5d against
 * MariaDB 10.11, run by hand), unless ZEROFILL makes the width part of
 * the value's text; JSON as MariaDB's JSON is, LONGTEXT (its alias).
 */
#define COLUMN_TYPE_AS_VALUES						\
	"IF(DATA_TYPE IN ('tinyint', 'smallint', 'mediumint', 'int', "	\
	"'bigint') AND COLUMN_TYPE NOT LIKE '%zerofill%', "		\
	"CONCAT(DATA_TYPE, IF(COLUMN_TYPE LIKE '% unsigned%', "		\
	"' unsigned', '')), IF(DATA_TYPE = 'json', 'longtext', "	\
	"COLUMN_TYPE))"

/*
 * t->key_bin: the key columns whose collation is not the same on both
 * sides (a column count that differs is a schema difference, found
 * before the rows are read).
 */
static int key_collations(struct side *sides, struct table *t,
			  struct err *e)
{
	char **coll[2] = { NULL, NULL };
	size_t n[2] = { 0, 0 };
	struct buf q = BUF_INIT;
	int rc = 0;

	schema_query(&q, "SELECT IFNULL(COLLATION_NAME, '') FROM "
		     "information_schema.COLUMNS", t->db, t->name,
		     " ORDER BY ORDINAL_POSITION");
	for (int s = 0; !rc && s < 2; s++)
		rc = string_list(&sides[s].conn, buf_str(&q), &coll[s], &n[s],
				 e);
	for (size_t k = 0; !rc && n[UP] == t->ncols && n[DOWN] == n[UP] &&
	     k < t->nkeys; k++)
		for (size_t i = 0; i < t->ncols; i++)
			if (!strcmp(t->cols[i], t->keys[k]) &&
			    strcmp(coll[UP][i], coll[DOWN][i])) {
				if (!t->key_bin)
					t->key_bin = xcalloc(t->nkeys,
						sizeof(*t->key_bin));
				t->key_bin[k] = 1;
			}
	for (int s = 0; s < 2; s++)
		free_list(coll[s], n[s]);
	buf_release(&q);
	return rc;
}

/* Column names and definitions; the primary key; the row hash. */
static int describe(struct side *sides, struct table *t, struct buf *schema,
		    struct err *e)
{
	char **defs[2] = { NULL, NULL };
	size_t ndefs[2] = { 0, 0 };
	struct buf q = BUF_INIT;
	char **types = NULL, **nulls = NULL;
	size_t ntypes = 0, nnulls = 0;
	int rc = 0, wide = 0;

	for (int s = 0; !rc && s < 2; s++) {
		schema_query(&q, "SELECT CONCAT(COLUMN_NAME, ' ', "
			     COLUMN_TYPE_AS_VALUES ", IF(IS_NULLABLE = 'YES', "
			     "'', ' NOT NULL')) FROM information_schema.COLUMNS",
			     t->db, t->name, " ORDER BY ORDINAL_POSITION");
		rc = string_list(&sides[s].conn, buf_str(&q), &defs[s],
				 &ndefs[s], e);
	}
	if (!rc) {
		int same = ndefs[UP] == ndefs[DOWN];

		for (size_t i = 0; same && i < ndefs[UP]; i++)
			same = !strcmp(defs[UP][i], defs[DOWN][i]);
		for (int s = 0; !same && s < 2; s++) {
			buf_addstr(schema, s ? "; downstream (" : "upstream (",
				   NULL);
			for (size_t i = 0; i < ndefs[s]; i++)
				buf_printf(schema, NULL, "%s%s", i ? ", " : "",
					   defs[s][i]);
			buf_addch(schema, ')', NULL);
		}
	}
	schema_query(&q, "SELECT COLUMN_NAME FROM information_schema.COLUMNS",
		     t->db, t->name, " ORDER BY ORDINAL_POSITION");
	rc = rc || string_list(&sides[UP].conn, buf_str(&q), &t->cols,
			       &t->ncols, e);
	schema_query(&q, "SELECT COLUMN_NAME FROM "
		     "information_schema.STATISTICS", t->db, t->name,
		     " AND INDEX_NAME = 'PRIMARY' ORDER BY SEQ_IN_INDEX");
	rc = rc || string_list(&sides[UP].conn, buf_str(&q), &t->keys,
			       &t->nkeys, e);
	schema_query(&q, "SELECT IF(DATA_TYPE = 'bigint' AND COLUMN_TYPE LIKE "
		     "'%unsigned%', 'bigint unsigned', DATA_TYPE) FROM "
		     "information_schema.COLUMNS", t->db, t->name,
		     " ORDER BY ORDINAL_POSITION");
	rc = rc || string_list(&sides[UP].conn, buf_str(&q), &types,
			       &ntypes, e);
	if (!rc && ntypes != t->ncols)
		rc = err_set(e, ERR_INFRA, "%s.%s changed while it was read",
			     t->db, t->name);
	if (!rc && t->nkeys) {
		t->key_int = xcalloc(t->nkeys, sizeof(*t->key_int));
	}
	for (size_t k = 0; !rc && k < t->nkeys; k++)
		for (size_t i = 0; i < t->ncols; i++)
			if (!strcmp(t->cols[i], t->keys[k])) {
				t->key_int[k] = type_in(types[i], int_types);
				wide |= !strcasecmp(types[i],
						    "bigint unsigned");
			}
	/* Cut arithmetically in int64s; a BIGINT UNSIGNED at its keys. */
	t->int_key = !rc && t->nkeys == 1 && t->key_int[0] && !wide;
	rc = rc || key_collations(sides, t, e);
	schema_query(&q, "SELECT IS_NULLABLE FROM information_schema.COLUMNS",
		     t->db, t->name, " ORDER BY ORDINAL_POSITION");
	rc = rc || string_list(&sides[UP].conn, buf_str(&q), &nulls, &nnulls,
			       e);
	if (!rc && nnulls != t->ncols)
		rc = err_set(e, ERR_INFRA, "%s.%s changed while it was read",
			     t->db, t->name);
	if (!rc) {
		row_text(t, types, nulls);
		row_hash(t, types, nulls);
	}
	free_list(nulls, nnulls);
	free_list(types, ntypes);
	sql_quote_ident(&t->qname, t->db, NULL);
	buf_addch(&t->qname, '.', NULL);
	sql_quote_ident(&t->qname, t->name, NULL);
	for (int s = 0; s < 2; s++)
		free_list(defs[s], ndefs[s]);
	buf_release(&q);
	return rc;
}

/*
 * Each side's partitioning of `t` — method, expression, every partition's
 * name and bound, in order — into `diff` when they differ (empty when
 * they do not): a partition DDL that did not replicate, or replicated
 * otherwise, is a difference even when every row is where it should be.
 * Backquotes are left out of expressions, which servers quote their own
 * way.
 */
static int partitioning(struct side *sides, const struct table *t,
			struct buf *diff, struct err *e)
{
	char **parts[2] = { NULL, NULL };
	size_t nparts[2] = { 0, 0 };
	struct buf q = BUF_INIT;
	int rc = 0, same;

	schema_query(&q, "SELECT CONCAT(PARTITION_METHOD, ' (', REPLACE("
		     "IFNULL(PARTITION_EXPRESSION, ''), '`', ''), ') ', "
		     "PARTITION_NAME, ' ', IFNULL(PARTITION_DESCRIPTION, '-')) "
		     "FROM information_schema.PARTITIONS", t->db, t->name,
		     " AND PARTITION_NAME IS NOT NULL ORDER BY "
		     "PARTITION_ORDINAL_POSITION");
	for (int s = 0; !rc && s < 2; s++)
		rc = string_list(&sides[s].conn, buf_str(&q), &parts[s],
				 &nparts[s], e);
	same = !rc && nparts[UP] == nparts[DOWN];
	for (size_t i = 0; same && i < nparts[UP]; i++)
		same = !strcmp(parts[UP][i], parts[DOWN][i]);
	for (int s = 0; !rc && !same && s < 2; s++) {
		buf_addstr(diff, s ? "; downstream " : "upstream ", NULL);
		if (!nparts[s])
			buf_addstr(diff, "not partitioned", NULL);
		for (size_t i = 0; i < nparts[s]; i++)
			buf_printf(diff, NULL, "%s%s", i ? ", " : "",
				   parts[s][i]);
	}
	for (int s = 0; s < 2; s++)
		free_list(parts[s], nparts[s]);
	buf_release(&q);
	return rc;
}

static void release_table(struct table *t)
{
	free_list(t->cols, t->ncols);
	free_list(t->keys, t->nkeys);
	free(t->key_int);
	free(t->key_bin);
	buf_release(&t->text_expr);
	buf_release(&t->hash_expr);
	buf_release(&t->qname);
}

/* One key column's value: as it is for an integer, else quoted. */
static void key_value(struct buf *q, const struct table *t, size_t k,
		      const char *v)
{
	size_t digits = strspn(v + (*v == '-'), "0123456789");

	if (t->key_int[k] && digits && !v[(*v == '-') + digits])
		buf_addstr(q, v, NULL);
	else
		sql_quote_string(q, v, NULL);
}

/*
 * Key column `k` as ranges and orders read it: as it is, or by its bytes
 * where the sides' collations differ (TiDB's utf8mb4_bin against
 * MariaDB's utf8mb4_general_ci: a real tidb-server 8f2630e53d5d, run by
 * hand, put other rows in a range than MariaDB did), so that a range
 * holds the same keys on both sides.
 */
static void key_column(struct buf *q, const struct table *t, size_t k)
{
	int bin = t->key_bin && t->key_bin[k];

	buf_addstr(q, bin ? "CAST(" : "", NULL);
	sql_quote_ident(q, t->keys[k], NULL);
	buf_addstr(q, bin ? " AS BINARY)" : "", NULL);
}

/*
 * The key tuple compared with `vals`, spelled out column by column (which
 * every server's range optimizer takes, unlike row constructors):
 * "(a > 1 OR (a = 1 AND (b >= 2)))" for `strict` ">" and `last` ">=".
 */
static void key_bound(struct buf *q, const struct table *t, char **vals,
		      const char *strict, const char *last)
{
	for (size_t k = 0; k < t->nkeys; k++) {
		int end = k + 1 == t->nkeys;

		buf_addch(q, '(', NULL);
		key_column(q, t, k);
		buf_printf(q, NULL, " %s ", end ? last : strict);
		key_value(q, t, k, vals[k]);
		if (end)
			break;
		buf_addstr(q, " OR (", NULL);
		key_column(q, t, k);
		buf_addstr(q, " = ", NULL);
		key_value(q, t, k, vals[k]);
		buf_addstr(q, " AND ", NULL);
	}
	buf_addch(q, ')', NULL);
	for (size_t k = 1; k < t->nkeys; k++)
		buf_addstr(q, "))", NULL);
}

void range_where(struct buf *q, const struct table *t, const struct range *rg)
{
	const char *w = " WHERE ";

	if (rg->whole)
		return;
	if (t->int_key) {
		buf_addstr(q, w, NULL);
		sql_quote_ident(q, t->keys[0], NULL);
		buf_printf(q, NULL, " >= %lld AND ", (long long)rg->lo);
		sql_quote_ident(q, t->keys[0], NULL);
		buf_printf(q, NULL, " <= %lld", (long long)rg->hi);
		return;
	}
	if (rg->klo) {
		buf_addstr(q, w, NULL);
		key_bound(q, t, rg->klo, ">", ">=");
		w = " AND ";
	}
	if (rg->khi) {
		buf_addstr(q, w, NULL);
		key_bound(q, t, rg->khi, "<", "<");
	}
}

static void free_tuple(char **tuple, size_t n)
{
	if (tuple)
		free_list(tuple, n);
}

/*
 * The key `off` keys past `lo`, for an `off` that keeps it an int64:
 * unsigned arithmetic, so that no step overflows however wide the range.
 */
static int64_t key_at(int64_t lo, uint64_t off)
{
	uint64_t k = (uint64_t)lo + off;

	return k <= INT64_MAX ? (int64_t)k
			      : (int64_t)(k - INT64_MAX - 1) + INT64_MIN;
}

size_t range_split_int(int64_t lo, int64_t hi, uint64_t rows,
		       uint64_t chunk_rows, struct range **out)
{
	uint64_t span, size, wider, from = 0;
	size_t n;

	*out = NULL;
	if (lo > hi)
		return 0;
	/* The keys are span + 1, which may be 2^64: never computed. */
	span = (uint64_t)hi - (uint64_t)lo;
	n = rows / chunk_rows + !!(rows % chunk_rows);
	if (!n)
		n = 1;
	if (n - 1 > span)
		n = span + 1;
	/* keys / n and keys % n (size unused, and 0, when n is 1) */
	size = span / n + (span % n == n - 1);
	wider = (span % n + 1) % n;
	*out = xcalloc(n, sizeof(**out));
	for (size_t i = 0; i < n; i++) {
		uint64_t to = i + 1 < n ? from + size + (i < wider) - 1 : span;

		(*out)[i] = (struct range){ 0, key_at(lo, from), key_at(lo, to),
					    NULL, NULL };
		from = to + 1;
	}
	return n;
}

size_t range_split_keys(char **const *bounds, size_t nbounds,
			struct range **out)
{
	size_t n = nbounds + 1;

	*out = xcalloc(n, sizeof(**out));
	for (size_t i = 0; i < n; i++)
		(*out)[i] = (struct range){ 0, 0, 0,
					    i ? bounds[i - 1] : NULL,
					    i < nbounds ? bounds[i] : NULL };
	return n;
}

/*
 * The key tuple of the row `offset` rows into the range, in key order:
 * 1 and *out set, 0 when the range holds no more rows, or -1.
 */
static int nth_key(struct sql *s, const struct table *t,
		   const struct range *rg, uint64_t offset, char ***out,
		   struct err *e)
{
	struct sql_result r = SQL_RESULT_INIT;
	struct buf q = BUF_INIT, cols = BUF_INIT, order = BUF_INIT;
	int rc;

	for (size_t k = 0; k < t->nkeys; k++) {
		if (k) {
			buf_addstr(&cols, ", ", NULL);
			buf_addstr(&order, ", ", NULL);
		}
		sql_quote_ident(&cols, t->keys[k], NULL);
		key_column(&order, t, k);
	}
	buf_printf(&q, NULL, "SELECT %s FROM %s", buf_str(&cols),
		   buf_str(&t->qname));
	range_where(&q, t, rg);
	buf_printf(&q, NULL, " ORDER BY %s LIMIT 1 OFFSET %llu",
		   buf_str(&order), (unsigned long long)offset);
	buf_release(&cols);
	rc = sql_query(s, buf_str(&q), &r, e);
	if (!rc && r.nrows == 1) {
		*out = xcalloc(t->nkeys + 1, sizeof(**out));
		for (size_t k = 0; k < t->nkeys; k++)
			(*out)[k] = xstrdup(r.cells[k] ? r.cells[k] : "");
		rc = 1;
	}
	sql_result_release(&r);
	buf_release(&q);
	buf_release(&order);
	return rc;
}

struct sum {
	uint64_t count;
	char xor[24];
};

/* The same rows on both sides, as far as a checksum tells. */
static int same_sum(const struct sum *up, const struct sum *down)
{
	return up->count == down->count && !strcmp(up->xor, down->xor);
}

static int checksum(struct sql *s, const struct table *t,
		    const struct range *rg, struct sum *out, struct err *e)
{
	struct buf q = BUF_INIT;
	struct sql_result r = SQL_RESULT_INIT;
	int rc;

	/* The row hash: row_hash(). */
	buf_printf(&q, NULL, "SELECT COUNT(*), COALESCE(BIT_XOR(%s), 0) FROM %s",
		   buf_str(&t->hash_expr), buf_str(&t->qname));
	range_where(&q, t, rg);
	rc = sql_query(s, buf_str(&q), &r, e);
	if (!rc && r.nrows == 1) {
		out->count = strtoull(r.cells[0] ? r.cells[0] : "0", NULL, 10);
		snprintf(out->xor, sizeof(out->xor), "%s",
			 r.cells[1] ? r.cells[1] : "0");
	}
	sql_result_release(&r);
	buf_release(&q);
	return rc;
}

/* Chunk checksums of one side, computed by a pool of connections. */
struct pool {
	const struct component *comp;
	const char *session;
	const struct table *t;
	const struct range *ranges;
	size_t nchunks;
	struct sum *sums;
	size_t next;		/* atomic */
	struct err err;
	pthread_mutex_t lock;
	struct pool *other;	/* the other side's */
};

/* Checksum p's chunks on a connection of this worker's until none is
 * left to start; 0, or -1 when p failed (its err, every worker stops). */
static int pool_work(struct pool *p)
{
	struct side s = { p->comp, SQL_INIT, p->session };
	struct err e = ERR_INIT;

	if (!connect_side(&s, &e))
		for (;;) {
			size_t i = __atomic_fetch_add(&p->next, 1,
						      __ATOMIC_RELAXED);

			if (i >= p->nchunks || checksum(&s.conn, p->t,
							&p->ranges[i],
							&p->sums[i], &e))
				break;
		}
	sql_close(&s.conn);
	if (!err_isset(&e))
		return 0;
	pthread_mutex_lock(&p->lock);
	err_set(&p->err, e.class, "%s", e.msg);
	pthread_mutex_unlock(&p->lock);
	__atomic_store_n(&p->next, p->nchunks, __ATOMIC_RELAXED);
	__atomic_store_n(&p->other->next, p->other->nchunks,
			 __ATOMIC_RELAXED);
	return -1;
}

/*
 * A worker of one side; when that side has no chunk left to start, it
 * helps the other with the chunks still left there, on a connection of
 * its own to that side: the side behind (a slower server, or one that
 * shares the cores with the other) has twice the connections for its
 * last chunks, on the cores the side done no longer uses.
 */
static void *pool_worker(void *arg)
{
	struct pool *p = arg;

	sql_thread_init();
	if (!pool_work(p) &&
	    __atomic_load_n(&p->other->next, __ATOMIC_RELAXED) <
	    p->other->nchunks)
		pool_work(p->other);
	sql_thread_end();
	return NULL;
}

struct row {
	char *key;		/* key columns' text, for sorting */
	long long ikey;
	char hash[48];		/* SHA1 in hex */
	char **vals;		/* ncols values; NULL for SQL NULL */
};

struct rows {
	struct row *rows;
	size_t n;
	size_t ncols;
};

static void release_rows(struct rows *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		free(rs->rows[i].key);
		for (size_t c = 0; c < rs->ncols; c++)
			free(rs->rows[i].vals[c]);
		free(rs->rows[i].vals);
	}
	free(rs->rows);
	memset(rs, 0, sizeof(*rs));
}

static int by_key(const void *a, const void *b, void *int_key)
{
	const struct row *x = a, *y = b;
	int c;

	if (*(const int *)int_key)
		return x->ikey < y->ikey ? -1 : x->ikey > y->ikey;
	c = strcmp(x->key, y->key);
	return c ? c : strcmp(x->hash, y->hash);
}

/* The rows of a range: key text, hash, every column. */
static int fetch_rows(struct sql *s, const struct table *t,
		      const struct range *rg, struct rows *out, struct err *e)
{
	struct buf q = BUF_INIT;
	struct sql_result r = SQL_RESULT_INIT;
	size_t nk = t->nkeys ? t->nkeys : 0;
	int rc;

	buf_printf(&q, NULL, "SELECT SHA1(%s)", buf_str(&t->text_expr));
	for (size_t i = 0; i < t->ncols; i++) {
		buf_addstr(&q, ", ", NULL);
		sql_quote_ident(&q, t->cols[i], NULL);
	}
	buf_printf(&q, NULL, " FROM %s", buf_str(&t->qname));
	range_where(&q, t, rg);
	rc = sql_query(s, buf_str(&q), &r, e);
	buf_release(&q);
	if (rc)
		return -1;
	out->ncols = t->ncols;
	out->rows = xcalloc(r.nrows + 1, sizeof(*out->rows));
	for (size_t i = 0; i < r.nrows; i++) {
		struct row *row = &out->rows[out->n++];
		struct buf key = BUF_INIT;
		char **cells = &r.cells[i * r.ncols];

		snprintf(row->hash, sizeof(row->hash), "%s",
			 cells[0] ? cells[0] : "");
		row->vals = xcalloc(t->ncols + 1, sizeof(*row->vals));
		for (size_t c = 0; c < t->ncols; c++) {
			row->vals[c] = cells[c + 1] ? xstrdup(cells[c + 1])
						    : NULL;
		}
		/* The key's text: its columns, or the whole row. */
		for (size_t k = 0; k < (nk ? nk : t->ncols); k++) {
			size_t c = k;

			for (size_t j = 0; nk && j < t->ncols; j++)
				if (!strcmp(t->cols[j], t->keys[k]))
					c = j;
			buf_printf(&key, NULL, "%s%s", k ? "\x1f" : "",
				   row->vals[c] ? row->vals[c] : "\\N");
		}
		row->key = buf_detach(&key, NULL);
		row->ikey = strtoll(row->key, NULL, 10);
	}
	sql_result_release(&r);
	qsort_r(out->rows, out->n, sizeof(*out->rows), by_key,
		(void *)&t->int_key);
	return 0;
}

/* The key as "id=5" or "a=1,b=x"; "row sha1 ..." without one. */
static void key_text(struct buf *text, const struct table *t,
		     const struct row *row)
{
	if (t->nkeys) {
		char *k = row->key, *sep;

		for (size_t i = 0; i < t->nkeys; i++, k = sep + 1) {
			sep = strchr(k, '\x1f');
			buf_printf(text, NULL, "%s%s=%.*s", i ? "," : "",
				   t->keys[i], sep ? (int)(sep - k)
						   : (int)strlen(k), k);
			if (!sep)
				break;
		}
	} else {
		buf_printf(text, NULL, "row sha1 %s", row->hash);
	}
}

static void note_key(struct diff *d, int kind, const struct table *t,
		     const struct row *row)
{
	struct buf text = BUF_INIT;

	if (d->nkeys[kind] >= d->max_report)
		return;
	d->nkeys[kind]++;
	key_text(&text, t, row);
	json_quote(&d->keys[kind], buf_str(&text), NULL);
	buf_addch(&d->keys[kind], '\n', NULL);
	buf_release(&text);
}

static void row_json(struct buf *out, const struct table *t,
		     const struct row *row)
{
	if (!row) {
		buf_addstr(out, "null", NULL);
		return;
	}
	buf_addch(out, '[', NULL);
	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			buf_addch(out, ',', NULL);
		if (row->vals[c])
			json_quote(out, row->vals[c], NULL);
		else
			buf_addstr(out, "null", NULL);
	}
	buf_addch(out, ']', NULL);
}

/*
 * A difference with both sides' rows (NULL: none on that side) and its
 * fix, the fix SQL from `fix_at` on, for report.html.
 */
static void note_row(struct diff *d, int kind, const struct table *t,
		     const struct row *up, const struct row *down,
		     size_t fix_at)
{
	struct buf text = BUF_INIT;

	if (d->nshown >= SHOWN_ROWS)
		return;
	d->nshown++;
	key_text(&text, t, up ? up : down);
	buf_printf(&d->shown, NULL, "{\"kind\":\"%s\",\"key\":",
		   kind_names[kind]);
	json_quote(&d->shown, buf_str(&text), NULL);
	buf_addstr(&d->shown, ",\"up\":", NULL);
	row_json(&d->shown, t, up);
	buf_addstr(&d->shown, ",\"down\":", NULL);
	row_json(&d->shown, t, down);
	buf_reset(&text);
	buf_add(&text, d->fix.data + fix_at, d->fix.len - fix_at, NULL);
	buf_rtrim(&text);
	buf_addstr(&d->shown, ",\"fix\":", NULL);
	json_quote(&d->shown, buf_str(&text), NULL);
	buf_addstr(&d->shown, "}\n", NULL);
	buf_release(&text);
}

static void sql_value_text(struct buf *q, const char *v)
{
	if (v)
		sql_quote_string(q, v, NULL);
	else
		buf_addstr(q, "NULL", NULL);
}

static void fix_replace(struct diff *d, const struct table *t,
			const struct row *row, int plain_insert)
{
	buf_printf(&d->fix, NULL, "%s INTO %s (", plain_insert ? "INSERT"
		   : "REPLACE", buf_str(&t->qname));
	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			buf_addstr(&d->fix, ", ", NULL);
		sql_quote_ident(&d->fix, t->cols[c], NULL);
	}
	buf_addstr(&d->fix, ") VALUES (", NULL);
	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			buf_addstr(&d->fix, ", ", NULL);
		sql_value_text(&d->fix, row->vals[c]);
	}
	buf_addstr(&d->fix, ");\n", NULL);
}

static void fix_delete(struct diff *d, const struct table *t,
		       const struct row *row)
{
	size_t n = t->nkeys ? t->nkeys : t->ncols;

	buf_printf(&d->fix, NULL, "DELETE FROM %s WHERE ", buf_str(&t->qname));
	for (size_t k = 0; k < n; k++) {
		size_t c = k;

		for (size_t j = 0; t->nkeys && j < t->ncols; j++)
			if (!strcmp(t->cols[j], t->keys[k]))
				c = j;
		if (k)
			buf_addstr(&d->fix, " AND ", NULL);
		sql_quote_ident(&d->fix, t->cols[c], NULL);
		buf_addstr(&d->fix, " <=> ", NULL);
		sql_value_text(&d->fix, row->vals[c]);
	}
	buf_addstr(&d->fix, t->nkeys ? ";\n" : " LIMIT 1;\n", NULL);
}

/* Merge two sorted row lists into missing / extra / changed. */
static void compare_rows(struct diff *d, const struct table *t,
			 const struct rows *up, const struct rows *down)
{
	size_t i = 0, j = 0;

	while (i < up->n || j < down->n) {
		size_t at = d->fix.len;
		int c;

		if (i == up->n)
			c = 1;
		else if (j == down->n)
			c = -1;
		else if (t->nkeys)
			c = t->int_key ? (up->rows[i].ikey < down->rows[j].ikey
					  ? -1 : up->rows[i].ikey >
					  down->rows[j].ikey)
				       : strcmp(up->rows[i].key,
						down->rows[j].key);
		else
			c = strcmp(up->rows[i].hash, down->rows[j].hash);
		if (c < 0) {
			note_key(d, 0, t, &up->rows[i]);
			fix_replace(d, t, &up->rows[i], !t->nkeys);
			note_row(d, 0, t, &up->rows[i], NULL, at);
			d->missing++;
			i++;
		} else if (c > 0) {
			note_key(d, 1, t, &down->rows[j]);
			fix_delete(d, t, &down->rows[j]);
			note_row(d, 1, t, NULL, &down->rows[j], at);
			d->extra++;
			j++;
		} else {
			if (strcmp(up->rows[i].hash, down->rows[j].hash)) {
				note_key(d, 2, t, &up->rows[i]);
				fix_replace(d, t, &up->rows[i], 0);
				note_row(d, 2, t, &up->rows[i], &down->rows[j],
					 at);
				d->changed++;
			}
			i++;
			j++;
		}
	}
}

/*
 * A mismatching integer range is cut into this many parts (fewer when it
 * holds fewer keys): a chunk of 100000 rows reaches ranges of a few
 * thousand in two rounds of checksums over it, where halves took six.
 */
#define SPLIT_PARTS 10

/*
 * Compare a range: rows when small, else checksums of its parts: tenths
 * of an integer range, halves of any other at its middle key.
 */
static int compare_range(struct side *sides, const struct table *t,
			 const struct range *rg, const struct sum *su,
			 const struct sum *sd, struct diff *d, struct err *e)
{
	struct rows rows[2] = { { NULL, 0, 0 }, { NULL, 0, 0 } };
	struct range half[2], *parts = NULL;
	char **mid = NULL;
	size_t nparts = 0;
	int rc = 0;

	if (su->count == sd->count && !strcmp(su->xor, sd->xor))
		return 0;
	if (rg->whole || (su->count <= COMPARE_ROWS &&
			  sd->count <= COMPARE_ROWS)) {
		/* small enough: compare the rows */
	} else if (t->int_key) {
		nparts = range_split_int(rg->lo, rg->hi, SPLIT_PARTS, 1,
					 &parts);
		nparts = nparts > 1 ? nparts : 0;
	} else {
		/* At the middle key of the side with more rows: each half
		 * holds fewer of its rows. */
		int s = su->count >= sd->count ? UP : DOWN;
		uint64_t n = (s == UP ? su->count : sd->count) / 2;

		rc = nth_key(&sides[s].conn, t, rg, n, &mid, e);
		if (rc < 0)
			return -1;
		half[0] = (struct range){ 0, 0, 0, rg->klo, mid };
		half[1] = (struct range){ 0, 0, 0, mid, rg->khi };
		nparts = rc ? 2 : 0;
		rc = 0;
	}
	if (nparts) {
		const struct range *part = parts ? parts : half;

		for (size_t i = 0; i < nparts && !rc; i++) {
			struct sum pu, pd;

			rc = checksum(&sides[UP].conn, t, &part[i], &pu, e) ||
			     checksum(&sides[DOWN].conn, t, &part[i], &pd, e) ||
			     compare_range(sides, t, &part[i], &pu, &pd, d, e)
			     ? -1 : 0;
		}
		free(parts);
		free_tuple(mid, t->nkeys);
		return rc;
	}
	free(parts);
	rc = fetch_rows(&sides[UP].conn, t, rg, &rows[UP], e) ||
	     fetch_rows(&sides[DOWN].conn, t, rg, &rows[DOWN], e);
	if (!rc)
		compare_rows(d, t, &rows[UP], &rows[DOWN]);
	d->compared += rows[UP].n + rows[DOWN].n;
	release_rows(&rows[UP]);
	release_rows(&rows[DOWN]);
	return rc ? -1 : 0;
}

/* What one chunk's comparison found, added to the table's. */
static void merge_diff(struct diff *into, struct diff *from)
{
	const char *line = NULL, *end;

	into->compared += from->compared;
	into->missing += from->missing;
	into->extra += from->extra;
	into->changed += from->changed;
	for (int k = 0; k < 3; k++)
		for (line = buf_str(&from->keys[k]);
		     *line && into->nkeys[k] < into->max_report;
		     line = end + 1) {
			end = strchr(line, '\n');
			buf_add(&into->keys[k], line, (size_t)(end - line + 1),
				NULL);
			into->nkeys[k]++;
		}
	buf_add(&into->fix, from->fix.data, from->fix.len, NULL);
	for (line = buf_str(&from->shown);
	     *line && into->nshown < SHOWN_ROWS; line = end + 1) {
		end = strchr(line, '\n');
		buf_add(&into->shown, line, (size_t)(end - line + 1), NULL);
		into->nshown++;
	}
}

/* The chunks whose checksums differ, compared by a pool of workers. */
struct differ {
	const struct side *sides;
	const struct table *t;
	const struct range *ranges;
	const struct sum *sums[2];
	size_t *todo, ntodo;
	struct diff *diffs;	/* one per entry of todo */
	size_t next;		/* atomic */
	struct err err;
	pthread_mutex_t lock;
};

static void *differ_worker(void *arg)
{
	struct differ *p = arg;
	struct side s[2] = { { p->sides[UP].comp, SQL_INIT,
			       p->sides[UP].session },
			     { p->sides[DOWN].comp, SQL_INIT,
			       p->sides[DOWN].session } };
	struct err e = ERR_INIT;

	sql_thread_init();
	if (!connect_side(&s[UP], &e) && !connect_side(&s[DOWN], &e))
		for (;;) {
			size_t n = __atomic_fetch_add(&p->next, 1,
						      __ATOMIC_RELAXED);
			size_t i;

			if (n >= p->ntodo)
				break;
			i = p->todo[n];
			if (compare_range(s, p->t, &p->ranges[i],
					  &p->sums[UP][i], &p->sums[DOWN][i],
					  &p->diffs[n], &e))
				break;
		}
	if (err_isset(&e)) {
		pthread_mutex_lock(&p->lock);
		err_set(&p->err, e.class, "%s", e.msg);
		pthread_mutex_unlock(&p->lock);
		__atomic_store_n(&p->next, p->ntodo, __ATOMIC_RELAXED);
	}
	sql_close(&s[UP].conn);
	sql_close(&s[DOWN].conn);
	sql_thread_end();
	return NULL;
}

/*
 * Cut and compare the mismatching chunks, `threads` at a time (each
 * worker with a connection to either side); their findings merged in
 * chunk order, so keys and fix SQL come out as one pass would give them.
 */
static int compare_chunks(struct side *sides, const struct table *t,
			  const struct range *ranges, size_t nchunks,
			  const struct sum *up, const struct sum *down,
			  int threads, struct diff *d, struct err *e)
{
	struct differ p;
	pthread_t *th;
	int n, rc = 0;

	memset(&p, 0, sizeof(p));
	p.sides = sides;
	p.t = t;
	p.ranges = ranges;
	p.sums[UP] = up;
	p.sums[DOWN] = down;
	p.todo = xcalloc(nchunks + 1, sizeof(*p.todo));
	for (size_t i = 0; i < nchunks; i++)
		if (!same_sum(&up[i], &down[i]))
			p.todo[p.ntodo++] = i;
	if (!p.ntodo) {
		free(p.todo);
		return 0;
	}
	p.diffs = xcalloc(p.ntodo, sizeof(*p.diffs));
	for (size_t i = 0; i < p.ntodo; i++)
		p.diffs[i].max_report = d->max_report;
	pthread_mutex_init(&p.lock, NULL);
	n = (size_t)threads < p.ntodo ? threads : (int)p.ntodo;
	th = xcalloc((size_t)n, sizeof(*th));
	for (int i = 0; i < n; i++)
		pthread_create(&th[i], NULL, differ_worker, &p);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	free(th);
	if (err_isset(&p.err))
		rc = err_set(e, p.err.class, "%s", p.err.msg);
	for (size_t i = 0; i < p.ntodo; i++) {
		if (!rc)
			merge_diff(d, &p.diffs[i]);
		for (int k = 0; k < 3; k++)
			buf_release(&p.diffs[i].keys[k]);
		buf_release(&p.diffs[i].fix);
		buf_release(&p.diffs[i].shown);
	}
	pthread_mutex_destroy(&p.lock);
	free(p.diffs);
	free(p.todo);
	return rc;
}

/*
 * The same query on both sides, its first row's numbers: v[side][i], and
 * has[side][i] 0 for a NULL or no row. -1 when a side fails.
 */
static int side_numbers(struct side *sides, const char *query, int ncells,
			int64_t v[2][2], int has[2][2], struct err *e)
{
	for (int s = 0; s < 2; s++) {
		struct sql_result r = SQL_RESULT_INIT;

		if (sql_query(&sides[s].conn, query, &r, e))
			return -1;
		for (int c = 0; c < ncells; c++) {
			has[s][c] = r.nrows && r.cells[c];
			v[s][c] = has[s][c] ? strtoll(r.cells[c], NULL, 10)
					    : 0;
		}
		sql_result_release(&r);
	}
	return 0;
}

/*
 * A single integer key: the range between both sides' lowest and highest
 * key, cut into chunks of equal width (range_split_int), one per
 * chunk_rows rows of the larger side. Counting the rows is a scan of
 * either side; a range whose keys are at most twice the rows the servers'
 * statistics estimate on either side (most tables: ids with few gaps)
 * is cut by its keys instead, as if every key were a row, without
 * counting. 0 chunks: both sides are empty.
 */
static int int_chunks(struct side *sides, const struct table *t,
		      int64_t chunk_rows, struct range **out, size_t *n,
		      struct err *e)
{
	struct buf q = BUF_INIT;
	int64_t lo = INT64_MAX, hi = INT64_MIN, v[2][2];
	uint64_t most = 0, est = 0, span;
	int has[2][2], rc;

	schema_query(&q, "SELECT TABLE_ROWS FROM information_schema.TABLES",
		     t->db, t->name, "");
	rc = side_numbers(sides, buf_str(&q), 1, v, has, e);
	for (int s = 0; !rc && s < 2; s++)
		if (has[s][0] && v[s][0] > 0 && (uint64_t)v[s][0] > est)
			est = (uint64_t)v[s][0];
	buf_reset(&q);
	buf_addstr(&q, "SELECT MIN(", NULL);
	sql_quote_ident(&q, t->keys[0], NULL);
	buf_addstr(&q, "), MAX(", NULL);
	sql_quote_ident(&q, t->keys[0], NULL);
	buf_printf(&q, NULL, ") FROM %s", buf_str(&t->qname));
	rc = rc || side_numbers(sides, buf_str(&q), 2, v, has, e);
	for (int s = 0; !rc && s < 2; s++) {
		if (!has[s][0] || !has[s][1])
			continue;
		if (v[s][0] < lo)
			lo = v[s][0];
		if (v[s][1] > hi)
			hi = v[s][1];
	}
	span = (uint64_t)hi - (uint64_t)lo;	/* keys - 1 */
	if (!rc && lo <= hi && est && span / 2 < est) {
		most = span + 1;
	} else if (!rc && lo <= hi) {
		buf_reset(&q);
		buf_printf(&q, NULL, "SELECT COUNT(*) FROM %s",
			   buf_str(&t->qname));
		rc = side_numbers(sides, buf_str(&q), 1, v, has, e);
		for (int s = 0; !rc && s < 2; s++)
			if (has[s][0] && (uint64_t)v[s][0] > most)
				most = (uint64_t)v[s][0];
	}
	buf_release(&q);
	*n = 0;
	if (rc)
		return -1;
	*n = range_split_int(lo, hi, most, (uint64_t)chunk_rows, out);
	return 0;
}

/*
 * Any other key: a chunk starts at every chunk_rows-th key of the
 * upstream's key order; the first and the last are open, so every row of
 * either side is in exactly one. The bounds are kept in *bounds.
 */
static int key_chunks(struct side *sides, const struct table *t,
		      int64_t chunk_rows, struct range **out, size_t *n,
		      char ****bounds, size_t *nbounds, struct err *e)
{
	size_t alloc = 0;
	int rc;

	*bounds = NULL;
	*nbounds = 0;
	for (;;) {
		struct range from = { 0, 0, 0, *nbounds ?
				      (*bounds)[*nbounds - 1] : NULL, NULL };
		char **key = NULL;

		rc = nth_key(&sides[UP].conn, t, &from, (uint64_t)chunk_rows,
			     &key, e);
		if (rc <= 0)
			break;
		if (*nbounds == alloc) {
			alloc = alloc ? alloc * 2 : 16;
			*bounds = xrealloc(*bounds, alloc * sizeof(**bounds));
		}
		(*bounds)[(*nbounds)++] = key;
	}
	if (rc < 0)
		return -1;
	*n = range_split_keys(*bounds, *nbounds, out);
	return 0;
}

/*
 * The checksums of `nchunks` ranges on both sides at once, `threads`
 * connections a side: sums[UP] and sums[DOWN] (the caller frees them).
 */
static int checksum_sides(struct side *sides, const struct table *t,
			  const struct range *ranges, size_t nchunks,
			  int threads, struct sum *sums[2], struct err *e)
{
	struct pool pools[2];
	pthread_t *th;
	int rc = 0;

	for (int s = 0; s < 2; s++) {
		struct pool *p = &pools[s];

		memset(p, 0, sizeof(*p));
		p->comp = sides[s].comp;
		p->session = sides[s].session;
		p->t = t;
		p->ranges = ranges;
		p->nchunks = nchunks;
		p->sums = sums[s] = xcalloc(nchunks, sizeof(*p->sums));
		p->other = &pools[!s];
		pthread_mutex_init(&p->lock, NULL);
	}
	th = xcalloc((size_t)threads * 2, sizeof(*th));
	for (int i = 0; i < threads * 2; i++)
		pthread_create(&th[i], NULL, pool_worker, &pools[i % 2]);
	for (int i = 0; i < threads * 2; i++)
		pthread_join(th[i], NULL);
	free(th);
	for (int s = 0; s < 2; s++) {
		if (!rc && err_isset(&pools[s].err))
			rc = err_set(e, pools[s].err.class, "%s",
				     pools[s].err.msg);
		pthread_mutex_destroy(&pools[s].lock);
	}
	return rc;
}

/* The range of every row: no WHERE. */
static const struct range whole_table = { .whole = 1 };

/*
 * With one connection a side, a table with a key is checksummed whole
 * first, one scan a side: 1 when both sides are the same (d has their
 * rows), 0 when the table must be cut into chunks (d counts the whole
 * one), -1 on error. A chunk is a range of the key, which the server
 * checks on every row it reads (MariaDB's plan says "Using where"): a
 * tenth of a scan's time (bench/README.md), which only finding where two
 * tables differ needs; with one connection a side, chunks bring no
 * parallelism. Keyless tables are compared whole anyway, and more
 * connections a side need chunks to share.
 */
static int whole_first(struct side *sides, const struct table *t,
		       int threads, struct diff *d, struct err *e)
{
	struct sum *sums[2] = { NULL, NULL };
	int same = -1;

	if (threads != 1 || !t->nkeys)
		return 0;
	if (!checksum_sides(sides, t, &whole_table, 1, 1, sums, e)) {
		same = same_sum(sums[UP], sums[DOWN]);
		d->chunks = 1;
		if (same) {
			d->rows[UP] = sums[UP]->count;
			d->rows[DOWN] = sums[DOWN]->count;
		}
	}
	free(sums[UP]);
	free(sums[DOWN]);
	return same;
}

/* Chunked checksums of both sides in parallel, then the mismatches. */
static int compare_table(struct side *sides, const struct table *t,
			 int64_t chunk_rows, int threads, struct diff *d,
			 struct err *e)
{
	struct range *cut = NULL;
	const struct range *ranges = &whole_table;
	char ***bounds = NULL;
	size_t nchunks = t->nkeys ? 0 : 1, nbounds = 0;
	struct sum *sums[2] = { NULL, NULL };
	int rc = whole_first(sides, t, threads, d, e);

	if (rc)
		return rc < 0 ? -1 : 0;
	if (t->int_key)
		rc = int_chunks(sides, t, chunk_rows, &cut, &nchunks, e);
	else if (t->nkeys)
		rc = key_chunks(sides, t, chunk_rows, &cut, &nchunks,
				&bounds, &nbounds, e);
	if (cut)
		ranges = cut;
	if (rc || !nchunks)
		goto out;
	rc = checksum_sides(sides, t, ranges, nchunks, threads, sums, e);
	d->chunks += nchunks;
	for (size_t i = 0; i < nchunks; i++) {
		d->rows[UP] += sums[UP][i].count;
		d->rows[DOWN] += sums[DOWN][i].count;
	}
	if (!rc)
		/* A worker asks one side, then the other: twice as many
		 * keep each side as busy as its pool did. */
		rc = compare_chunks(sides, t, ranges, nchunks, sums[UP],
				    sums[DOWN], threads * 2, d, e);
	free(sums[UP]);
	free(sums[DOWN]);
out:
	for (size_t i = 0; i < nbounds; i++)
		free_tuple(bounds[i], t->nkeys);
	free(bounds);
	free(cut);
	return rc ? -1 : 0;
}

/*
 * `threads: 0`. Two servers on this machine share its cores: a scan on
 * each core is all they run at once, and more scans take turns, each
 * evicting the others' pages from a buffer pool the table may not fit
 * (bench/README.md). Servers elsewhere get four.
 */
static int auto_threads(const struct side *sides)
{
	cpu_set_t cpus;
	int n;

	for (int s = 0; s < 2; s++)
		if (sides[s].comp->host && strcmp(sides[s].comp->host, "local"))
			return 4;
	n = sched_getaffinity(0, sizeof(cpus), &cpus) ? 2 : CPU_COUNT(&cpus);
	return n / 2 < 1 ? 1 : n / 2 > 4 ? 4 : n / 2;
}

static int write_fix(const char *run_dir, const char *db, const char *name,
		     const struct buf *fix, char *rel, size_t size,
		     struct err *e)
{
	char path[4400];

	snprintf(path, sizeof(path), "%s/fix-sql", run_dir);
	if (mkdir(path, 0755) && errno != EEXIST)
		return err_errno(e, errno, "cannot create '%s'", path);
	snprintf(rel, size, "fix-sql/%s.%s.sql", db, name);
	snprintf(path, sizeof(path), "%s/%s", run_dir, rel);
	return buf_write_file(fix, path, 0644, e);
}

/* "columns" and "rows": the differences shown, when there are any. */
static void shown_json(struct buf *out, const struct table *t,
		       struct diff *d)
{
	if (!d->nshown)
		return;
	buf_addstr(out, ",\"columns\":[", NULL);
	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			buf_addch(out, ',', NULL);
		json_quote(out, t->cols[c], NULL);
	}
	buf_addstr(out, "],\"rows\":[", NULL);
	buf_rtrim(&d->shown);
	for (size_t c = 0; c < d->shown.len; c++)
		buf_addch(out, d->shown.data[c] == '\n' ? ',' :
			  d->shown.data[c], NULL);
	buf_addch(out, ']', NULL);
}

/* What the tables compared so far add up to (run). */
struct tally {
	size_t differing;
	uint64_t rows;
	uint64_t tot[3];	/* missing, extra, changed */
	char first[400];	/* the first difference, for the message */
};

/*
 * One table on both sides: its columns, its partitioning, then its rows
 * (when the columns agree), into the details' entry of the table (its
 * members after "table"), the fix SQL and the tally.
 */
static int compare_one(const struct check_ctx *ctx,
		       const struct consistency_opts *o, struct side *sides,
		       const char *name, struct tally *tl,
		       struct check_result *r, struct err *e)
{
	const char *db = ctx->suite->database;
	struct table t = { .db = db, .name = name, .text_expr = BUF_INIT,
			   .hash_expr = BUF_INIT, .qname = BUF_INIT };
	struct diff d = { .keys = { BUF_INIT, BUF_INIT, BUF_INIT },
			  .fix = BUF_INIT, .shown = BUF_INIT };
	struct buf schema = BUF_INIT, parts = BUF_INIT;
	char fix[512] = "";
	int rc;

	d.max_report = o->max_report;
	rc = describe(sides, &t, &schema, e) ||
	     partitioning(sides, &t, &parts, e);
	if (!rc && parts.len) {
		buf_addstr(&r->details, ",\"partitioning\":", NULL);
		json_quote(&r->details, buf_str(&parts), NULL);
		if (!tl->first[0])
			snprintf(tl->first, sizeof(tl->first), "%s.%s: "
				 "partitioning differs: %.300s", db, name,
				 buf_str(&parts));
	}
	if (!rc && schema.len) {
		buf_addstr(&r->details, ",\"schema\":", NULL);
		json_quote(&r->details, buf_str(&schema), NULL);
		if (!tl->first[0])
			snprintf(tl->first, sizeof(tl->first), "%s.%s: "
				 "columns differ: %.300s", db, name,
				 buf_str(&schema));
	} else if (!rc) {
		rc = compare_table(sides, &t, o->chunk_rows, o->threads ?
				   (int)o->threads : auto_threads(sides), &d,
				   e);
	}
	if (!rc && !schema.len) {
		buf_printf(&r->details, NULL, ",\"up_rows\":%llu,"
			   "\"down_rows\":%llu,\"missing\":%llu,"
			   "\"extra\":%llu,\"changed\":%llu,"
			   "\"chunks\":%llu,\"rows_compared\":%llu",
			   (unsigned long long)d.rows[UP],
			   (unsigned long long)d.rows[DOWN],
			   (unsigned long long)d.missing,
			   (unsigned long long)d.extra,
			   (unsigned long long)d.changed,
			   (unsigned long long)d.chunks,
			   (unsigned long long)d.compared);
		for (int k = 0; k < 3; k++) {
			buf_printf(&r->details, NULL, ",\"%s_keys\":[",
				   kind_names[k]);
			buf_rtrim(&d.keys[k]);
			for (size_t c = 0; c < d.keys[k].len; c++)
				buf_addch(&r->details, d.keys[k].data[c] ==
					  '\n' ? ',' : d.keys[k].data[c],
					  NULL);
			buf_addch(&r->details, ']', NULL);
		}
		if (!t.nkeys)
			buf_addstr(&r->details, ",\"warning\":\"no primary "
				   "key: rows compared as a multiset\"", NULL);
		shown_json(&r->details, &t, &d);
		tl->rows += d.rows[UP];
		tl->tot[0] += d.missing;
		tl->tot[1] += d.extra;
		tl->tot[2] += d.changed;
	}
	/* Counted once, whatever differs in it. */
	tl->differing += !rc && (schema.len || parts.len || d.fix.len);
	if (!rc && d.fix.len && o->at_snapshot) {
		int k = d.keys[0].len ? 0 : d.keys[1].len ? 1 : 2;
		const char *key = buf_str(&d.keys[k]);

		if (!tl->first[0])
			snprintf(tl->first, sizeof(tl->first), "%s.%s: %llu "
				 "missing, %llu extra, %llu changed (first %s: "
				 "%.*s)", db, name,
				 (unsigned long long)d.missing,
				 (unsigned long long)d.extra,
				 (unsigned long long)d.changed, kind_names[k],
				 (int)strcspn(key, "\n"), key);
	} else if (!rc && d.fix.len) {
		rc = write_fix(ctx->run_dir, db, name, &d.fix, fix,
			       sizeof(fix), e);
		buf_printf(&r->details, NULL, ",\"fix_sql\":\"%s\"", fix);
		if (!tl->first[0])
			snprintf(tl->first, sizeof(tl->first), "%s.%s: %llu "
				 "missing, %llu extra, %llu changed (%s)", db,
				 name, (unsigned long long)d.missing,
				 (unsigned long long)d.extra,
				 (unsigned long long)d.changed, fix);
	}
	for (int k = 0; k < 3; k++)
		buf_release(&d.keys[k]);
	buf_release(&d.fix);
	buf_release(&d.shown);
	buf_release(&schema);
	buf_release(&parts);
	release_table(&t);
	return rc;
}

/*
 * Every table of the database on either side (or o->tables), compared
 * into r's "tables" and the tally; *nall: how many.
 */
static int compare_tables(const struct check_ctx *ctx,
			  const struct consistency_opts *o, struct side *sides,
			  struct tally *tl, size_t *nall,
			  struct check_result *r, struct err *e)
{
	const char *db = ctx->suite->database;
	const struct optlist *only = &o->tables;
	char **names[2] = { NULL, NULL }, **all = NULL;
	size_t nnames[2] = { 0, 0 };
	struct buf q = BUF_INIT;
	int rc = 0;

	*nall = 0;
	for (int s = 0; !rc && s < 2; s++) {
		schema_query(&q, "SELECT TABLE_NAME FROM information_schema."
			     "TABLES", db, NULL, " AND TABLE_TYPE = "
			     "'BASE TABLE'");
		rc = string_list(&sides[s].conn, buf_str(&q), &names[s],
				 &nnames[s], e);
	}
	if (rc)
		goto out;
	/* Every table on either side (or the ones asked for), sorted. */
	all = xcalloc(nnames[UP] + nnames[DOWN] + 1, sizeof(*all));
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < nnames[s]; i++) {
			int want = !only->n, dup = 0;

			for (size_t k = 0; k < only->n; k++)
				want |= !strcmp(only->v[k], names[s][i]);
			for (size_t k = 0; k < *nall; k++)
				dup |= !strcmp(all[k], names[s][i]);
			if (want && !dup)
				all[(*nall)++] = names[s][i];
		}
	qsort(all, *nall, sizeof(*all), by_string);
	buf_addstr(&r->details, ",\"tables\":[", NULL);
	for (size_t i = 0; !rc && i < *nall; i++) {
		int on[2] = { 0, 0 };

		for (int s = 0; s < 2; s++)
			for (size_t k = 0; k < nnames[s]; k++)
				on[s] |= !strcmp(names[s][k], all[i]);
		buf_printf(&r->details, NULL, "%s{\"table\":\"%s.%s\"",
			   i ? "," : "", db, all[i]);
		if (!on[UP] || !on[DOWN]) {
			buf_printf(&r->details, NULL, ",\"only\":\"%s\"}",
				   on[UP] ? "upstream" : "downstream");
			if (!tl->first[0])
				snprintf(tl->first, sizeof(tl->first), "%s.%s "
					 "exists only %s", db, all[i], on[UP] ?
					 "upstream" : "downstream");
			tl->differing++;
			continue;
		}
		rc = compare_one(ctx, o, sides, all[i], tl, r, e);
		buf_addch(&r->details, '}', NULL);
	}
	buf_addch(&r->details, ']', NULL);
	snprintf(r->numbers, sizeof(r->numbers), "tables=%zu differing=%zu "
		 "rows=%llu missing=%llu extra=%llu changed=%llu", *nall,
		 tl->differing, (unsigned long long)tl->rows,
		 (unsigned long long)tl->tot[0],
		 (unsigned long long)tl->tot[1],
		 (unsigned long long)tl->tot[2]);
out:
	for (int s = 0; s < 2; s++)
		free_list(names[s], nnames[s]);
	free(all);
	buf_release(&q);
	return rc;
}

int consistency_compare_at(const struct check_ctx *ctx,
			   const struct snapshot_pair *at,
			   struct check_result *r, struct err *e)
{
	struct side sides[2] = { { at->comp[UP], SQL_INIT, at->session[UP] },
				 { at->comp[DOWN], SQL_INIT,
				   at->session[DOWN] } };
	struct consistency_opts o;
	struct tally tl = { 0, 0, { 0, 0, 0 }, "" };
	size_t nall = 0;
	int rc;

	memset(&o, 0, sizeof(o));
	o.tables = *at->tables;
	o.chunk_rows = at->chunk_rows;
	o.threads = at->threads;
	o.max_report = at->max_report;
	o.at_snapshot = 1;
	rc = connect_side(&sides[UP], e) || connect_side(&sides[DOWN], e) ||
	     compare_tables(ctx, &o, sides, &tl, &nall, r, e);
	if (!rc && tl.differing)
		check_verdict(r, VERDICT_FAIL, "%zu of %zu tables differ; "
			      "first: %s", tl.differing, nall, tl.first);
	else if (!rc)
		check_verdict(r, VERDICT_PASS, "%zu tables, %llu rows equal",
			      nall, (unsigned long long)tl.rows);
	sql_close(&sides[UP].conn);
	sql_close(&sides[DOWN].conn);
	return rc ? -1 : 0;
}

static int run(const struct check_ctx *ctx, const struct suite_item *it,
	       struct check_result *r, struct err *e)
{
	struct side sides[2] = { { NULL, SQL_INIT, NULL },
				 { NULL, SQL_INIT, NULL } };
	const struct consistency_opts *o = it->opts;
	struct tally tl = { 0, 0, { 0, 0, 0 }, "" };
	size_t nall = 0;
	int64_t barrier_ns = 0;
	char halted[300] = "";
	int rc = 0;

	sides[UP].comp = first_with(ctx->cluster, ROLE_UPSTREAM);
	sides[DOWN].comp = first_with(ctx->cluster, ROLE_DOWNSTREAM);
	if (!sides[UP].comp || !sides[DOWN].comp) {
		check_verdict(r, VERDICT_SKIP, "the cluster has no %s SQL node",
			      sides[UP].comp ? "downstream" : "upstream");
		return 0;
	}
	if (connect_side(&sides[UP], e) || connect_side(&sides[DOWN], e)) {
		rc = -1;
		goto out;
	}
	rc = barrier_sync(ctx, sides[UP].comp, &sides[UP].conn,
			  sides[DOWN].comp, &sides[DOWN].conn, o->changefeed,
			  o->sync_timeout, &barrier_ns, r, halted,
			  sizeof(halted), e);
	/* Waiting for the mark may have dropped the connection. */
	if (!rc && halted[0] && !sides[DOWN].conn.my)
		rc = connect_side(&sides[DOWN], e);
	if (rc)
		goto out;
	rc = compare_tables(ctx, o, sides, &tl, &nall, r, e);
	if (rc)
		goto out;
	if (halted[0]) {
		buf_addstr(&r->details, ",\"unsynced\":", NULL);
		json_quote(&r->details, halted, NULL);
	}
	if (tl.differing)
		check_verdict(r, VERDICT_FAIL, "%zu of %zu tables differ%s%s%s; "
			      "first: %s", tl.differing, nall, halted[0] ?
			      " (compared unsynced: " : "", halted,
			      halted[0] ? ")" : "", tl.first);
	else if (halted[0])
		check_verdict(r, VERDICT_UNKNOWN, "%zu tables, %llu rows equal "
			      "on both sides, but unsynced: %s", nall,
			      (unsigned long long)tl.rows, halted);
	else
		check_verdict(r, VERDICT_PASS, "%zu tables, %llu rows equal on "
			      "both sides (sync %.1fs)", nall,
			      (unsigned long long)tl.rows,
			      (double)barrier_ns / NS_PER_SEC);
out:
	if (rc > 0)
		rc = 0;
	for (int s = 0; s < 2; s++)
		sql_close(&sides[s].conn);
	return rc;
}

const struct checker_type checker_consistency = {
	.kind = { "consistency", "upstream and downstream hold the same "
		  "tables and rows (chunked checksums, row diff, fix SQL)",
		  opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct consistency_opts) },
	.live = 1,
	.run = run,
};
