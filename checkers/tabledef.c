/*
 * What a compared table is (checkers/tablediff.h): its columns and their
 * definitions on both sides, its primary key, the key columns whose
 * collations differ, its partitioning; and the SQL of its row's text and
 * hash, which the rows' compare and the chunks' checksums read.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "checkers/tablediff.h"
#include "lib/buf.h"
#include "lib/sql.h"

int tabledef_string_list(struct sql *s, const char *query, char ***out,
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

void tabledef_free_list(char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

/* "SELECT ... WHERE TABLE_SCHEMA = 'db' [AND TABLE_NAME = 't'] ..." */
void tabledef_schema_query(struct buf *q, const char *select, const char *db,
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
 * The types as tabledef_describe() reads them: DATA_TYPE, but "bigint unsigned"
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
void tabledef_float_text(struct buf *x, const char *col)
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

static int is_float(const char *type)
{
	return !strcasecmp(type, "float") || !strcasecmp(type, "double");
}

/* Column `i` of `t` as the row's text and hash read it. */
static void add_column(struct buf *x, const struct table *t, char **types,
		       size_t i)
{
	if (!t->float_as_is && is_float(types[i]))
		tabledef_float_text(x, t->cols[i]);
	else
		sql_quote_ident(x, t->cols[i], NULL);
}

/*
 * A FLOAT's or DOUBLE's 8 bytes on MariaDB (t->float_bits): a dynamic
 * column holding it as a DOUBLE, which a FLOAT widens to exactly; one of
 * no column for a NULL, so NULL is kept NULL (`null`: the column may be).
 */
static void float_bytes(struct buf *x, const char *col, int null)
{
	if (null) {
		buf_addstr(x, "IF(", NULL);
		sql_quote_ident(x, col, NULL);
		buf_addstr(x, " IS NULL, NULL, ", NULL);
	}
	buf_addstr(x, "COLUMN_CREATE(1, ", NULL);
	sql_quote_ident(x, col, NULL);
	buf_addstr(x, " AS DOUBLE)", NULL);
	if (null)
		buf_addch(x, ')', NULL);
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
/* The row's text into `x`, the columns `skip` marks (MAY be NULL) left
 * out. */
static void row_text(struct buf *x, const struct table *t, char **types,
		     char **nulls, const int *skip)
{
	size_t last = t->ncols, nnull = 0;

	for (size_t i = 0; i < t->ncols; i++) {
		if (skip && skip[i])
			continue;
		if (!type_in(types[i], plain_types))
			last = i;
		nnull += !strcmp(nulls[i], "YES");
	}
	buf_addstr(x, "CONCAT_WS(','", NULL);
	for (size_t i = 0; nnull && i < t->ncols; i++)
		if (!strcmp(nulls[i], "YES") && !(skip && skip[i])) {
			buf_addstr(x, ", ISNULL(", NULL);
			sql_quote_ident(x, t->cols[i], NULL);
			buf_addch(x, ')', NULL);
		}
	for (size_t i = 0; i <= t->ncols; i++) {
		size_t c = i < t->ncols ? i : last;

		if (i == last || c == t->ncols || (skip && skip[c]))
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

void tabledef_row_text(struct table *t, char **types, char **nulls)
{
	row_text(&t->text_expr, t, types, nulls, NULL);
}

void tabledef_plain_text(struct table *t, char **types, char **nulls)
{
	row_text(&t->plain_expr, t, types, nulls, t->col_json);
}

/*
 * The j-th multiplier of tabledef_row_hash(): even, below 2^31, a different one
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
 *   the CRC32 of its text or bytes, times K; a float's bytes on one
 *   MariaDB release on both sides (t->float_bits, float_bytes()).
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
 * A NULL's term has the type of the value's: unsigned where the product
 * is (a CRC32's, a BIGINT's halves), or TiDB makes both DECIMAL(21,0)
 * and casts every row's term back and forth in TiKV (EXPLAIN on TiDB
 * cd9c676e9ba4 and TiKV v8.1.2: 1.7 s for 100k rows of five such
 * columns, 1.2 s without the casts; the sums are the same).
 */
void tabledef_row_hash(struct table *t, char **types, char **nulls)
{
	struct buf *x = &t->hash_expr;
	size_t j = 0;

	buf_addstr(x, "CRC32(", NULL);
	for (size_t i = 0; i < t->ncols; i++) {
		int null = !strcmp(nulls[i], "YES");
		uint64_t k = hash_factor(j);
		/* The term is unsigned but a signed integer's product. */
		int sign = 0;

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
			sign = 1;
			j++;
		} else {
			buf_addstr(x, "CRC32(", NULL);
			if (t->float_bits && is_float(types[i]))
				float_bytes(x, t->cols[i], null);
			else
				add_column(x, t, types, i);
			buf_printf(x, NULL, ") * %" PRIu64, k);
			j++;
		}
		if (null && sign)
			buf_printf(x, NULL, ", %" PRIu64 ")", k + 1);
		else if (null)
			buf_printf(x, NULL, ", CAST(%" PRIu64 " AS UNSIGNED))",
				   k + 1);
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

	tabledef_schema_query(&q, "SELECT IFNULL(COLLATION_NAME, '') FROM "
			      "information_schema.COLUMNS", t->db, t->name,
			      " ORDER BY ORDINAL_POSITION");
	for (int s = 0; !rc && s < 2; s++)
		rc = tabledef_string_list(&sides[s].conn, buf_str(&q), &coll[s],
					  &n[s], e);
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
		tabledef_free_list(coll[s], n[s]);
	buf_release(&q);
	return rc;
}

/*
 * t->col_json: the columns that hold JSON on either side: of type JSON
 * (MySQL, TiDB), or on MariaDB, where JSON is LONGTEXT, with the
 * column's CHECK (json_valid(`c`)) that its JSON type adds.
 */
static int json_columns(struct side *sides, struct table *t, struct err *e)
{
	struct buf q = BUF_INIT;
	char **names = NULL;
	size_t n = 0;
	int rc = 0;

	for (int s = 0; !rc && s < 2; s++) {
		tabledef_schema_query(&q, "SELECT COLUMN_NAME FROM "
				      "information_schema.COLUMNS", t->db,
				      t->name, " AND DATA_TYPE = 'json'");
		/* The handshake's version: no query a table. */
		if (strstr(sql_server_version(&sides[s].conn), "MariaDB")) {
			buf_addstr(&q, " UNION SELECT CONSTRAINT_NAME FROM "
				   "information_schema.CHECK_CONSTRAINTS WHERE "
				   "CONSTRAINT_SCHEMA = ", NULL);
			sql_quote_string(&q, t->db, NULL);
			buf_addstr(&q, " AND TABLE_NAME = ", NULL);
			sql_quote_string(&q, t->name, NULL);
			buf_addstr(&q, " AND LEVEL = 'Column' AND CHECK_CLAUSE "
				   "= CONCAT('json_valid(`', CONSTRAINT_NAME, "
				   "'`)')", NULL);
		}
		rc = tabledef_string_list(&sides[s].conn, buf_str(&q),
						&names, &n, e);
		for (size_t k = 0; !rc && k < n; k++)
			for (size_t i = 0; i < t->ncols; i++)
				if (!strcmp(names[k], t->cols[i])) {
					if (!t->col_json)
						t->col_json = xcalloc(
							t->ncols,
							sizeof(*t->col_json));
					t->col_json[i] = 1;
				}
		tabledef_free_list(names, n);
		names = NULL;
		n = 0;
	}
	buf_release(&q);
	return rc;
}

/*
 * Whether versions `a` and `b` name one server release: equal but for
 * the "-log" MySQL and MariaDB add while the binary log is on (a
 * MariaDB and its replica: "10.11.19-MariaDB-0+deb12u1-log" and
 * "10.11.19-MariaDB-0+deb12u1").
 */
static int same_release(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);

	if (na >= 4 && !strcmp(a + na - 4, "-log"))
		na -= 4;
	if (nb >= 4 && !strcmp(b + nb - 4, "-log"))
		nb -= 4;
	return na && na == nb && !strncmp(a, b, na);
}

/* Column names and definitions; the primary key; the row hash. */
int tabledef_describe(struct side *sides, struct table *t, struct buf *schema,
		      struct err *e)
{
	char **defs[2] = { NULL, NULL };
	size_t ndefs[2] = { 0, 0 };
	struct buf q = BUF_INIT;
	char **types = NULL, **nulls = NULL;
	size_t ntypes = 0, nnulls = 0;
	int rc = 0, wide = 0;

	for (int s = 0; !rc && s < 2; s++) {
		tabledef_schema_query(&q, "SELECT CONCAT(COLUMN_NAME, ' ', "
				      COLUMN_TYPE_AS_VALUES ", IF(IS_NULLABLE "
				      "= 'YES', '', ' NOT NULL')) FROM "
				      "information_schema.COLUMNS", t->db,
				      t->name, " ORDER BY ORDINAL_POSITION");
		rc = tabledef_string_list(&sides[s].conn, buf_str(&q), &defs[s],
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
	tabledef_schema_query(&q, "SELECT COLUMN_NAME FROM "
			      "information_schema.COLUMNS", t->db, t->name,
			      " ORDER BY ORDINAL_POSITION");
	rc = rc || tabledef_string_list(&sides[UP].conn, buf_str(&q), &t->cols,
					&t->ncols, e);
	tabledef_schema_query(&q, "SELECT COLUMN_NAME FROM "
			      "information_schema.STATISTICS", t->db, t->name,
			      " AND INDEX_NAME = 'PRIMARY' ORDER BY "
			      "SEQ_IN_INDEX");
	rc = rc || tabledef_string_list(&sides[UP].conn, buf_str(&q), &t->keys,
					&t->nkeys, e);
	tabledef_schema_query(&q, "SELECT IF(DATA_TYPE = 'bigint' AND "
			      "COLUMN_TYPE LIKE '%unsigned%', 'bigint "
			      "unsigned', DATA_TYPE) FROM "
			      "information_schema.COLUMNS", t->db, t->name,
			      " ORDER BY ORDINAL_POSITION");
	rc = rc || tabledef_string_list(&sides[UP].conn, buf_str(&q), &types,
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
	tabledef_schema_query(&q, "SELECT IS_NULLABLE FROM "
			      "information_schema.COLUMNS", t->db, t->name,
			      " ORDER BY ORDINAL_POSITION");
	rc = rc || tabledef_string_list(&sides[UP].conn, buf_str(&q), &nulls,
					&nnulls, e);
	if (!rc && nnulls != t->ncols)
		rc = err_set(e, ERR_INFRA, "%s.%s changed while it was read",
			     t->db, t->name);
	rc = rc || json_columns(sides, t, e);
	t->float_as_is = same_release(sql_server_version(&sides[UP].conn),
				      sql_server_version(&sides[DOWN].conn));
	t->float_bits = t->float_as_is &&
			strstr(sql_server_version(&sides[UP].conn), "MariaDB");
	if (!rc) {
		tabledef_row_text(t, types, nulls);
		tabledef_row_hash(t, types, nulls);
		if (t->col_json)
			tabledef_plain_text(t, types, nulls);
	}
	tabledef_free_list(nulls, nnulls);
	tabledef_free_list(types, ntypes);
	sql_quote_ident(&t->qname, t->db, NULL);
	buf_addch(&t->qname, '.', NULL);
	sql_quote_ident(&t->qname, t->name, NULL);
	for (int s = 0; s < 2; s++)
		tabledef_free_list(defs[s], ndefs[s]);
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
int tabledef_partitioning(struct side *sides, const struct table *t,
			  struct buf *diff, struct err *e)
{
	char **parts[2] = { NULL, NULL };
	size_t nparts[2] = { 0, 0 };
	struct buf q = BUF_INIT;
	int rc = 0, same;

	tabledef_schema_query(&q, "SELECT CONCAT(PARTITION_METHOD, ' (', "
			      "REPLACE(IFNULL(PARTITION_EXPRESSION, ''), "
			      "'`', ''), ') ', PARTITION_NAME, ' ', "
			      "IFNULL(PARTITION_DESCRIPTION, '-')) FROM "
			      "information_schema.PARTITIONS", t->db, t->name,
			      " AND PARTITION_NAME IS NOT NULL ORDER BY "
			      "PARTITION_ORDINAL_POSITION");
	for (int s = 0; !rc && s < 2; s++)
		rc = tabledef_string_list(&sides[s].conn, buf_str(&q),
					  &parts[s], &nparts[s], e);
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
		tabledef_free_list(parts[s], nparts[s]);
	buf_release(&q);
	return rc;
}

void tabledef_release(struct table *t)
{
	tabledef_free_list(t->cols, t->ncols);
	tabledef_free_list(t->keys, t->nkeys);
	free(t->key_int);
	free(t->key_bin);
	free(t->col_json);
	buf_release(&t->text_expr);
	buf_release(&t->plain_expr);
	buf_release(&t->hash_expr);
	buf_release(&t->qname);
}
