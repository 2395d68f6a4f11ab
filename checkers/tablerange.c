/*
 * Key ranges (checkers/tablediff.h): how a table is cut into chunks and a
 * chunk into parts, how a range reads as SQL, and a range's checksum.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/tablediff.h"
#include "lib/buf.h"
#include "lib/sql.h"

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

void tablerange_free_tuple(char **tuple, size_t n)
{
	if (tuple)
		tabledef_free_list(tuple, n);
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
int tablerange_nth_key(struct sql *s, const struct table *t,
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

/* The same rows on both sides, as far as a checksum tells. */
int tablerange_same_sum(const struct sum *up, const struct sum *down)
{
	return up->count == down->count && !strcmp(up->xor, down->xor);
}

int tablerange_checksum(struct sql *s, const struct table *t,
			const struct range *rg, struct sum *out, struct err *e)
{
	struct buf q = BUF_INIT;
	struct sql_result r = SQL_RESULT_INIT;
	int rc;

	/* The row hash: tabledef_row_hash(). */
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
int tablerange_int_chunks(struct side *sides, const struct table *t,
			  int64_t chunk_rows, struct range **out, size_t *n,
			  struct err *e)
{
	struct buf q = BUF_INIT;
	int64_t lo = INT64_MAX, hi = INT64_MIN, v[2][2];
	uint64_t most = 0, est = 0, span;
	int has[2][2], rc;

	tabledef_schema_query(&q, "SELECT TABLE_ROWS FROM "
			      "information_schema.TABLES", t->db, t->name, "");
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
int tablerange_key_chunks(struct side *sides, const struct table *t,
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

		rc = tablerange_nth_key(&sides[UP].conn, t, &from,
					(uint64_t)chunk_rows, &key, e);
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
