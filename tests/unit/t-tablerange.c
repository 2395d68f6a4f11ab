/*
 * The table diff's key ranges (checkers/tablediff.h, tablerange.c), no
 * server: how a table is cut into chunks, how a chunk is cut in two, and
 * the WHERE clause of each, exactly; that the chunks cover every key once,
 * with no gap and no overlap, up to INT64_MIN and INT64_MAX. t0500 and
 * t0510 compare real tables with them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/tablediff.h"
#include "lib/buf.h"
#include "tests/unit/tap.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A table of db.t keyed on `keys`; int_key as tabledef_describe() would
 * set it. */
static struct table table_of(char **keys, size_t nkeys, int *key_int,
			     int int_key)
{
	struct table t = { .db = "db", .name = "t", .keys = keys,
			   .nkeys = nkeys, .key_int = key_int,
			   .int_key = int_key, .text_expr = BUF_INIT,
			   .hash_expr = BUF_INIT, .qname = BUF_INIT };

	return t;
}

/* The range's WHERE clause, in `q` (the caller's, reused). */
static const char *where(struct buf *q, const struct table *t,
			 const struct range *rg)
{
	buf_reset(q);
	range_where(q, t, rg);
	return buf_str(q);
}

/* A key tuple of n values, each a copy (free_tuple). */
static char **tuple(size_t n, const char *const *vals)
{
	char **t = calloc(n + 1, sizeof(*t));

	if (!t)
		abort();
	for (size_t i = 0; i < n; i++)
		if (!(t[i] = strdup(vals[i])))
			abort();
	return t;
}

static void free_tuple(char **t)
{
	for (size_t i = 0; t && t[i]; i++)
		free(t[i]);
	free(t);
}

/*
 * The ranges tile [lo, hi]: the first starts at lo, the last ends at hi,
 * none is empty, each starts one past the end of the one before: no gap,
 * no overlap.
 */
static int tiles(const struct range *r, size_t n, int64_t lo, int64_t hi)
{
	if (!n || r[0].lo != lo || r[n - 1].hi != hi)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (r[i].whole || r[i].klo || r[i].khi || r[i].lo > r[i].hi)
			return 0;
		if (i && (r[i - 1].hi == INT64_MAX ||
			  r[i - 1].hi + 1 != r[i].lo))
			return 0;
	}
	return 1;
}

/* Their widths differ by one key at most, the wider first. */
static int even(const struct range *r, size_t n)
{
	uint64_t first = (uint64_t)r[0].hi - (uint64_t)r[0].lo;
	uint64_t last = (uint64_t)r[n - 1].hi - (uint64_t)r[n - 1].lo;

	for (size_t i = 1; i < n; i++)
		if ((uint64_t)r[i].hi - (uint64_t)r[i].lo >
		    (uint64_t)r[i - 1].hi - (uint64_t)r[i - 1].lo)
			return 0;
	return first - last <= 1;
}

/* How many of the n ranges hold the key k. */
static size_t holding(const struct range *r, size_t n, int64_t k)
{
	size_t in = 0;

	for (size_t i = 0; i < n; i++)
		in += r[i].lo <= k && k <= r[i].hi;
	return in;
}

/*
 * Every key at the edge of a chunk, one either side of it, 0 and the
 * ends of int64: in exactly one chunk when in [lo, hi], else in none.
 */
static int each_key_once(const struct range *r, size_t n, int64_t lo,
			 int64_t hi)
{
	int64_t fixed[] = { INT64_MIN, INT64_MIN + 1, -1, 0, 1,
			    INT64_MAX - 1, INT64_MAX, lo, hi };

	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
		if (holding(r, n, fixed[i]) != (lo <= fixed[i] &&
						fixed[i] <= hi))
			return 0;
	for (size_t i = 0; i < n; i++) {
		int64_t edge[4] = { r[i].lo, r[i].hi, r[i].lo, r[i].hi };
		size_t nedge = 2;

		if (r[i].lo > INT64_MIN)
			edge[nedge++] = r[i].lo - 1;
		if (r[i].hi < INT64_MAX)
			edge[nedge++] = r[i].hi + 1;
		for (size_t k = 0; k < nedge; k++)
			if (holding(r, n, edge[k]) != (lo <= edge[k] &&
						       edge[k] <= hi))
				return 0;
	}
	return 1;
}

/* range_split_int(lo, hi, rows, chunk_rows) is exactly `want`. */
static void split_int_is(const char *name, int64_t lo, int64_t hi,
			 uint64_t rows, uint64_t chunk_rows,
			 const int64_t (*want)[2], size_t nwant)
{
	struct range *r = NULL;
	size_t n = range_split_int(lo, hi, rows, chunk_rows, &r);
	int same = n == nwant;

	is_int(n, nwant, "%s: chunks: %zu", name, nwant);
	for (size_t i = 0; same && i < n; i++)
		same = r[i].lo == want[i][0] && r[i].hi == want[i][1];
	if (!ok(same, "%s: the bounds", name))
		for (size_t i = 0; i < n; i++)
			diag("  got chunk %zu: [%lld, %lld]", i,
			     (long long)r[i].lo, (long long)r[i].hi);
	ok(tiles(r, n, lo, hi), "%s: [lo, hi] tiled, no gap, no overlap",
	   name);
	ok(n && even(r, n), "%s: widths within one key, the wider first",
	   name);
	ok(each_key_once(r, n, lo, hi), "%s: every key in one chunk", name);
	free(r);
}

static void test_split_int(void)
{
	static const int64_t even[][2] = {
		{ 1, 100 }, { 101, 200 }, { 201, 300 }, { 301, 400 },
		{ 401, 500 }, { 501, 600 }, { 601, 700 }, { 701, 800 },
		{ 801, 900 }, { 901, 1000 },
	};
	/* 1005 keys in 11 chunks: 4 of 92 keys, then 7 of 91. */
	static const int64_t uneven[][2] = {
		{ 1, 92 }, { 93, 184 }, { 185, 276 }, { 277, 368 },
		{ 369, 459 }, { 460, 550 }, { 551, 641 }, { 642, 732 },
		{ 733, 823 }, { 824, 914 }, { 915, 1005 },
	};
	static const int64_t one[][2] = { { 5, 5 } };
	static const int64_t small[][2] = { { 1, 1 }, { 2, 2 }, { 3, 3 } };
	static const int64_t sparse[][2] = {
		{ -10, 333333333333333326 },
		{ 333333333333333327, 666666666666666663 },
		{ 666666666666666664, 1000000000000000000 },
	};
	static const int64_t all1[][2] = { { INT64_MIN, INT64_MAX } };
	/* 2^64 keys: 2^64 = 3 * 6148914691236517205 + 1. */
	static const int64_t all3[][2] = {
		{ INT64_MIN, -3074457345618258603 },
		{ -3074457345618258602, 3074457345618258602 },
		{ 3074457345618258603, INT64_MAX },
	};
	static const int64_t all4[][2] = {
		{ INT64_MIN, -4611686018427387905 },
		{ -4611686018427387904, -1 },
		{ 0, 4611686018427387903 },
		{ 4611686018427387904, INT64_MAX },
	};
	static const int64_t top[][2] = {
		{ INT64_MAX - 2, INT64_MAX - 2 },
		{ INT64_MAX - 1, INT64_MAX - 1 },
		{ INT64_MAX, INT64_MAX },
	};
	static const int64_t bottom[][2] = {
		{ INT64_MIN, INT64_MIN }, { INT64_MIN + 1, INT64_MIN + 1 },
	};
	static const int64_t high[][2] = {
		{ INT64_MAX - 999, INT64_MAX - 500 },
		{ INT64_MAX - 499, INT64_MAX },
	};
	/* A mismatching chunk's tenths (compare_range): 2^64 keys are
	 * 10 * 1844674407370955161 + 6, so six parts of one key more. */
	static const int64_t tenths[][2] = {
		{ INT64_MIN, -7378697629483820647 },
		{ -7378697629483820646, -5534023222112865485 },
		{ -5534023222112865484, -3689348814741910323 },
		{ -3689348814741910322, -1844674407370955161 },
		{ -1844674407370955160, 1 },
		{ 2, 1844674407370955163 },
		{ 1844674407370955164, 3689348814741910324 },
		{ 3689348814741910325, 5534023222112865485 },
		{ 5534023222112865486, 7378697629483820646 },
		{ 7378697629483820647, INT64_MAX },
	};
	static const int64_t chunk_tenths[][2] = {
		{ 1, 10000 }, { 10001, 20000 }, { 20001, 30000 },
		{ 30001, 40000 }, { 40001, 50000 }, { 50001, 60000 },
		{ 60001, 70000 }, { 70001, 80000 }, { 80001, 90000 },
		{ 90001, 100000 },
	};
	struct range none, *r = &none;

	/* Both sides empty: MIN() and MAX() gave nothing, lo > hi. */
	is_int(range_split_int(INT64_MAX, INT64_MIN, 0, 100, &r), 0,
	       "both sides empty: no chunk");
	ok(r == NULL, "both sides empty: *out NULL");
	is_int(range_split_int(2, 1, 5, 100, &r), 0, "lo > hi: no chunk");

	split_int_is("1..1000, 1000 rows by 100", 1, 1000, 1000, 100, even,
		     ARRAY_SIZE(even));
	split_int_is("1..1005, 1005 rows by 100", 1, 1005, 1005, 100, uneven,
		     ARRAY_SIZE(uneven));
	split_int_is("one row", 5, 5, 1, 100, one, ARRAY_SIZE(one));
	/* min == max: one key holds one row, whatever COUNT(*) said. */
	split_int_is("min == max, 1000 rows", 5, 5, 1000, 100, one,
		     ARRAY_SIZE(one));
	split_int_is("no rows counted", 5, 5, 0, 100, one, ARRAY_SIZE(one));
	split_int_is("3 keys, 10 chunks' rows: one chunk per key", 1, 3, 1000,
		     100, small, ARRAY_SIZE(small));
	split_int_is("sparse: -10..10^18, 250 rows by 100", -10,
		     1000000000000000000, 250, 100, sparse,
		     ARRAY_SIZE(sparse));
	split_int_is("all of int64, one chunk", INT64_MIN, INT64_MAX, 7, 100,
		     all1, ARRAY_SIZE(all1));
	split_int_is("all of int64, 3 chunks", INT64_MIN, INT64_MAX, 300, 100,
		     all3, ARRAY_SIZE(all3));
	split_int_is("all of int64, 4 chunks", INT64_MIN, INT64_MAX, 4, 1,
		     all4, ARRAY_SIZE(all4));
	split_int_is("the top 3 keys", INT64_MAX - 2, INT64_MAX, 3, 1, top,
		     ARRAY_SIZE(top));
	split_int_is("the bottom 2 keys", INT64_MIN, INT64_MIN + 1, 2, 1,
		     bottom, ARRAY_SIZE(bottom));
	split_int_is("the top 1000 keys, 101 rows by 100", INT64_MAX - 999,
		     INT64_MAX, 101, 100, high, ARRAY_SIZE(high));
	split_int_is("a chunk of 100000 keys in tenths", 1, 100000, 10, 1,
		     chunk_tenths, ARRAY_SIZE(chunk_tenths));
	split_int_is("all of int64 in tenths", INT64_MIN, INT64_MAX, 10, 1,
		     tenths, ARRAY_SIZE(tenths));
	/* 3 keys: three parts of one key, not ten. */
	split_int_is("3 keys in tenths", 1, 3, 10, 1, small,
		     ARRAY_SIZE(small));
}

static void test_where_int(void)
{
	char id[] = "id", odd[] = "we`ird";
	char *keys[] = { id }, *odd_keys[] = { odd };
	int key_int[] = { 1 };
	struct table t = table_of(keys, 1, key_int, 1);
	struct table o = table_of(odd_keys, 1, key_int, 1);
	struct range whole = { 1, 0, 0, NULL, NULL };
	struct range r1 = { 0, 1, 100, NULL, NULL };
	struct range neg = { 0, -5, -1, NULL, NULL };
	struct range one = { 0, 5, 5, NULL, NULL };
	struct range low = { 0, INT64_MIN, -4611686018427387905, NULL, NULL };
	struct range high = { 0, 4611686018427387904, INT64_MAX, NULL, NULL };
	struct buf q = BUF_INIT;

	is_str(where(&q, &t, &whole), "", "a whole table: no WHERE");
	is_str(where(&q, &t, &r1), " WHERE `id` >= 1 AND `id` <= 100",
	       "[1, 100]: both ends included");
	is_str(where(&q, &t, &neg), " WHERE `id` >= -5 AND `id` <= -1",
	       "[-5, -1]");
	is_str(where(&q, &t, &one), " WHERE `id` >= 5 AND `id` <= 5",
	       "a single key");
	is_str(where(&q, &t, &low), " WHERE `id` >= -9223372036854775808 AND "
	       "`id` <= -4611686018427387905", "from INT64_MIN");
	is_str(where(&q, &t, &high), " WHERE `id` >= 4611686018427387904 AND "
	       "`id` <= 9223372036854775807", "to INT64_MAX, included");
	is_str(where(&q, &o, &r1), " WHERE `we``ird` >= 1 AND `we``ird` <= "
	       "100", "the key's name quoted");
	buf_release(&q);
}

static void test_split_keys(void)
{
	static const char *const v[][2] = {
		{ "12", "b34" }, { "45", "b7" }, { "45", "b8" },
	};
	char **bounds[ARRAY_SIZE(v)];
	struct range *r = NULL;
	size_t n;
	int linked = 1;

	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		bounds[i] = tuple(2, v[i]);
	n = range_split_keys(bounds, 0, &r);
	is_int(n, 1, "no bound: one chunk");
	ok(!r[0].whole && !r[0].klo && !r[0].khi, "no bound: unbounded");
	free(r);

	n = range_split_keys(bounds, ARRAY_SIZE(v), &r);
	is_int(n, 4, "3 bounds: 4 chunks");
	ok(!r[0].klo && !r[n - 1].khi, "the first and the last open");
	for (size_t i = 0; i < n; i++) {
		linked &= !r[i].whole;
		if (i)
			linked &= r[i].klo == bounds[i - 1];
		if (i + 1 < n)
			linked &= r[i].khi == bounds[i] && r[i].khi &&
				  r[i].klo != r[i].khi;
	}
	ok(linked, "each chunk starts at the bound the one before ends at");
	free(r);
	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		free_tuple(bounds[i]);
}

static void test_where_keys(void)
{
	static const char *const v[][3] = {
		{ "12", "b34", "3" }, { "45", "b7", "-4" },
	};
	char a[] = "a", b[] = "b", c[] = "c";
	char *keys[] = { a, b, c };
	int key_int[] = { 1, 0, 1 };
	struct table t2 = table_of(keys, 2, key_int, 0);
	struct table t3 = table_of(keys, 3, key_int, 0);
	char **lo = tuple(3, v[0]), **hi = tuple(3, v[1]);
	struct range from = { 0, 0, 0, lo, NULL }, to = { 0, 0, 0, NULL, hi };
	struct range both = { 0, 0, 0, lo, hi }, open = { 0, 0, 0, NULL, NULL };
	struct buf q = BUF_INIT;

	is_str(where(&q, &t2, &open), "", "unbounded: no WHERE");
	/* The clause to a tuple and the clause from it: complements. */
	is_str(where(&q, &t2, &to),
	       " WHERE (`a` < 45 OR (`a` = 45 AND (`b` < 'b7')))",
	       "(a, b) to a tuple: < on every column");
	is_str(where(&q, &t2, &from),
	       " WHERE (`a` > 12 OR (`a` = 12 AND (`b` >= 'b34')))",
	       "(a, b) from a tuple: > then >= on the last");
	is_str(where(&q, &t2, &both),
	       " WHERE (`a` > 12 OR (`a` = 12 AND (`b` >= 'b34'))) AND "
	       "(`a` < 45 OR (`a` = 45 AND (`b` < 'b7')))",
	       "(a, b) between two tuples");
	is_str(where(&q, &t3, &both),
	       " WHERE (`a` > 12 OR (`a` = 12 AND (`b` > 'b34' OR "
	       "(`b` = 'b34' AND (`c` >= 3))))) AND (`a` < 45 OR (`a` = 45 "
	       "AND (`b` < 'b7' OR (`b` = 'b7' AND (`c` < -4)))))",
	       "(a, b, c) between two tuples");
	buf_release(&q);
	free_tuple(lo);
	free_tuple(hi);
}

/* One key column, an integer type or not, to the value `v`. */
static void key_value_is(int is_int_type, const char *v, const char *want,
			 const char *what)
{
	char k[] = "k";
	char *keys[] = { k };
	int key_int[] = { is_int_type };
	struct table t = table_of(keys, 1, key_int, 0);
	const char *vals[] = { v };
	char **hi = tuple(1, vals);
	struct range to = { 0, 0, 0, NULL, hi };
	struct buf q = BUF_INIT;

	is_str(where(&q, &t, &to), want, "%s", what);
	buf_release(&q);
	free_tuple(hi);
}

static void test_key_values(void)
{
	key_value_is(1, "18446744073709551615",
		     " WHERE (`k` < 18446744073709551615)",
		     "BIGINT UNSIGNED at 2^64 - 1: as it is");
	key_value_is(1, "-9223372036854775808",
		     " WHERE (`k` < -9223372036854775808)",
		     "an integer at INT64_MIN: as it is");
	key_value_is(1, "007", " WHERE (`k` < 007)", "leading zeros: as is");
	/* What is not digits is quoted, even in an integer column. */
	key_value_is(1, "", " WHERE (`k` < '')", "an integer's '' (a NULL "
		     "read): quoted");
	key_value_is(1, "-", " WHERE (`k` < '-')", "a lone '-': quoted");
	key_value_is(1, "1e3", " WHERE (`k` < '1e3')", "'1e3': quoted");
	key_value_is(1, "12 ", " WHERE (`k` < '12 ')", "'12 ': quoted");
	key_value_is(1, "1; DROP TABLE t", " WHERE (`k` < '1; DROP TABLE t')",
		     "digits and then SQL: quoted");
	key_value_is(0, "42", " WHERE (`k` < '42')",
		     "digits in a string column: quoted");
	key_value_is(0, "k00101'q", " WHERE (`k` < 'k00101\\'q')",
		     "a quote in a string key: escaped");
	key_value_is(0, "a\\b\nc", " WHERE (`k` < 'a\\\\b\\nc')",
		     "a backslash and a newline: escaped");
	key_value_is(0, "2026-01-01 00:01:00",
		     " WHERE (`k` < '2026-01-01 00:01:00')", "a DATETIME key");
}

/*
 * Key columns whose collations differ between the sides (t->key_bin)
 * compare by their bytes, in the range's WHERE as in its ORDER BY.
 */
static void test_where_binary(void)
{
	static const char *const v[][2] = { { "12", "b34" }, { "45", "B7" } };
	static const char *const k[] = { "k" };
	char a[] = "a", b[] = "b";
	char *keys[] = { a, b };
	int key_int[] = { 1, 0 }, key_bin[] = { 0, 1 }, one_bin[] = { 1 };
	struct table t = table_of(keys, 2, key_int, 0);
	struct table one = table_of(&keys[1], 1, &key_int[1], 0);
	char **lo = tuple(2, v[0]), **hi = tuple(2, v[1]), **to = tuple(1, k);
	struct range both = { 0, 0, 0, lo, hi }, upto = { 0, 0, 0, NULL, to };
	struct buf q = BUF_INIT;

	t.key_bin = key_bin;
	one.key_bin = one_bin;
	is_str(where(&q, &t, &both),
	       " WHERE (`a` > 12 OR (`a` = 12 AND (CAST(`b` AS BINARY) >= "
	       "'b34'))) AND (`a` < 45 OR (`a` = 45 AND (CAST(`b` AS BINARY) "
	       "< 'B7')))",
	       "(a, b), b's collations differing: b by its bytes, a as it is");
	is_str(where(&q, &one, &upto), " WHERE (CAST(`b` AS BINARY) < 'k')",
	       "a single string key by its bytes");
	one.key_bin = NULL;
	is_str(where(&q, &one, &upto), " WHERE (`b` < 'k')",
	       "the same key, no key_bin: no CAST");
	buf_release(&q);
	free_tuple(lo);
	free_tuple(hi);
	free_tuple(to);
}

/* Two checksums are the same when both the count and the XOR are. */
static void test_same_sum(void)
{
	struct sum x = { 3, "17" }, y = { 3, "17" }, more = { 4, "17" };
	struct sum other = { 3, "18" }, prefix = { 3, "1" }, none = { 0, "0" };

	ok(tablerange_same_sum(&x, &y), "3 rows, XOR 17 on both: the same");
	ok(!tablerange_same_sum(&x, &more), "a row more: not the same");
	ok(!tablerange_same_sum(&x, &other), "another XOR: not the same");
	ok(!tablerange_same_sum(&x, &prefix), "XOR 1 against 17: not the same");
	ok(tablerange_same_sum(&none, &none), "both empty: the same");
}

int main(void)
{
	test_split_int();
	test_where_int();
	test_split_keys();
	test_where_keys();
	test_key_values();
	test_where_binary();
	test_same_sum();
	return done_testing();
}
