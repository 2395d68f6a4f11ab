/*
 * The SQL a compared table's rows are read by (checkers/tablediff.h,
 * tabledef.c), no server: the row's hash, which the chunks' checksums
 * XOR, the row's text, whose SHA1 tells rows apart, and a FLOAT or
 * DOUBLE's text, exactly. t0500 and t0505 run them on real servers.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/tablediff.h"
#include "lib/buf.h"
#include "tests/unit/tap.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A table of db.t with columns `cols`, as tabledef_describe reads it. */
static struct table table_of(char **cols, size_t ncols)
{
	struct table t = { .db = "db", .name = "t", .cols = cols,
			   .ncols = ncols, .text_expr = BUF_INIT,
			   .hash_expr = BUF_INIT, .qname = BUF_INIT };

	return t;
}

/* The row hash of columns `cols` of `types`, nullable as `nulls` says. */
static void hash_is(char **cols, char **types, char **nulls, size_t n,
		    const char *want, const char *what)
{
	struct table t = table_of(cols, n);

	tabledef_row_hash(&t, types, nulls);
	is_str(buf_str(&t.hash_expr), want, "row hash: %s", what);
	ok(!t.text_expr.len, "row hash: %s: no row text", what);
	buf_release(&t.hash_expr);
}

/* The row text, likewise. */
static void text_is(char **cols, char **types, char **nulls, size_t n,
		    const char *want, const char *what)
{
	struct table t = table_of(cols, n);

	tabledef_row_text(&t, types, nulls);
	is_str(buf_str(&t.text_expr), want, "row text: %s", what);
	buf_release(&t.text_expr);
}

static void test_row_hash(void)
{
	char id[] = "id", v[] = "v", s[] = "s", u[] = "u", n[] = "n";
	char tt[] = "t", odd[] = "we`ird";
	char i_int[] = "int", i_big[] = "bigint", i_ubig[] = "bigint unsigned";
	char i_tiny[] = "tinyint", i_var[] = "varchar", i_date[] = "datetime";
	char yes[] = "YES", no[] = "NO";
	char *c1[] = { id, v, s }, *t1[] = { i_int, i_big, i_var };
	char *n1[] = { no, yes, no };
	char *c2[] = { u, n, tt }, *t2[] = { i_ubig, i_int, i_tiny };
	char *n2[] = { no, yes, no };
	char *c3[] = { odd }, *t3[] = { i_date }, *n3[] = { yes };

	/* The factors: 2 * ((j + 1) * 2654435761 mod 2^30), j = 0, 1, ...;
	 * a NULL's term of the product's signedness (no DECIMAL on TiDB). */
	hash_is(c1, t1, n1, ARRAY_SIZE(c1),
		"CRC32((`id` * 1013904226) ^ IFNULL(((`v` & 4294967295) * "
		"2027808452) ^ ((`v` >> 32) * 894229030), CAST(2027808453 AS "
		"UNSIGNED)) ^ (CRC32(`s`) * 1908133256))",
		"an INT, a nullable BIGINT (two factors), a VARCHAR's CRC32");
	hash_is(c2, t2, n2, ARRAY_SIZE(c2),
		"CRC32((((`u` & 4294967295) * 1013904226) ^ ((`u` >> 32) * "
		"2027808452)) ^ IFNULL(`n` * 894229030, 894229031) ^ (`t` * "
		"1908133256))",
		"a BIGINT UNSIGNED, a nullable INT, a TINYINT");
	hash_is(c3, t3, n3, ARRAY_SIZE(c3),
		"CRC32(IFNULL(CRC32(`we``ird`) * 1013904226, "
		"CAST(1013904227 AS UNSIGNED)))",
		"a nullable DATETIME, its name quoted: its NULL's term "
		"unsigned as the CRC32's product (a nullable INT's signed)");
}

/*
 * Every column's factor, in a table of 300 INT columns: even, below
 * 2^31 (a 32-bit value times it stays a BIGINT), and no two the same.
 */
static void test_hash_factors(void)
{
	enum { N = 300 };
	static char names[N][8];
	char *cols[N], *types[N], *nulls[N];
	char i_int[] = "int", no[] = "NO";
	uint64_t seen[N];
	struct table t;
	const char *p;
	size_t n = 0;
	int good = 1;

	for (size_t i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "c%zu", i);
		cols[i] = names[i];
		types[i] = i_int;
		nulls[i] = no;
	}
	t = table_of(cols, N);
	tabledef_row_hash(&t, types, nulls);
	for (p = buf_str(&t.hash_expr); (p = strstr(p, " * ")); p += 3) {
		uint64_t k = strtoull(p + 3, NULL, 10);

		good &= n < N && k % 2 == 0 && k && k < (1ull << 31);
		for (size_t i = 0; good && i < n; i++)
			good &= seen[i] != k;
		if (n < N)
			seen[n] = k;
		n++;
	}
	is_int(n, N, "300 INT columns: 300 factors");
	ok(good, "each even, below 2^31, none twice");
	buf_release(&t.hash_expr);
}

static void test_row_text(void)
{
	char id[] = "id", s[] = "s", b[] = "b", n[] = "n", d[] = "d";
	char i_int[] = "int", i_var[] = "varchar", i_blob[] = "blob";
	char i_date[] = "date", i_json[] = "json";
	char yes[] = "YES", no[] = "NO";
	char *c1[] = { id, s, b, n }, *t1[] = { i_int, i_var, i_blob, i_int };
	char *n1[] = { no, no, yes, yes };
	char *c2[] = { id, d }, *t2[] = { i_int, i_date }, *n2[] = { no, no };
	char *c3[] = { s, id }, *t3[] = { i_json, i_int }, *n3[] = { no, no };

	/* The NULL bits first; every free-form column but the last as
	 * <length>,<text>; the last moved to the end, as it is. */
	text_is(c1, t1, n1, ARRAY_SIZE(c1),
		"CONCAT_WS(',', ISNULL(`b`), ISNULL(`n`), `id`, LENGTH(`s`), "
		"`s`, `n`, `b`)",
		"NULL bits, a VARCHAR with its length, the BLOB last");
	text_is(c2, t2, n2, ARRAY_SIZE(c2), "CONCAT_WS(',', `id`, `d`)",
		"numbers and dates only: as they are");
	text_is(c3, t3, n3, ARRAY_SIZE(c3), "CONCAT_WS(',', `id`, `s`)",
		"a lone JSON column: moved to the end, no length");
}

/*
 * `tmpl` with {t} the column's text, {m} its mantissa, {ex} its
 * exponent, {a} the mantissa without its sign, {ip} and {fr} the
 * digits before and after the point: the float text as
 * tabledef_float_text's comment spells it.
 */
static void expand(struct buf *out, const char *tmpl, const char *col)
{
	struct buf t = BUF_INIT, a = BUF_INIT;

	buf_printf(&t, NULL, "CAST((`%s` + 0) AS CHAR)", col);
	buf_printf(&a, NULL, "TRIM(LEADING '-' FROM SUBSTRING_INDEX(%s, 'e', "
		   "1))", buf_str(&t));
	for (const char *p = tmpl; *p; p++) {
		if (!strncmp(p, "{t}", 3))
			buf_addstr(out, buf_str(&t), NULL);
		else if (!strncmp(p, "{m}", 3))
			buf_printf(out, NULL, "SUBSTRING_INDEX(%s, 'e', 1)",
				   buf_str(&t));
		else if (!strncmp(p, "{ex}", 4))
			buf_printf(out, NULL, "CAST(SUBSTRING_INDEX(%s, 'e', "
				   "-1) AS SIGNED)", buf_str(&t));
		else if (!strncmp(p, "{ip}", 4))
			buf_printf(out, NULL, "SUBSTRING_INDEX(%s, '.', 1)",
				   buf_str(&a));
		else if (!strncmp(p, "{fr}", 4))
			buf_printf(out, NULL, "IF(LOCATE('.', %s) > 0, "
				   "SUBSTRING_INDEX(%s, '.', -1), '')",
				   buf_str(&a), buf_str(&a));
		else {
			buf_addch(out, *p, NULL);
			continue;
		}
		p = strchr(p, '}');
	}
	buf_release(&t);
	buf_release(&a);
}

static void test_float_text(void)
{
	struct buf got = BUF_INIT, want = BUF_INIT, hash = BUF_INIT;
	char f[] = "f", i_double[] = "double", i_float[] = "FLOAT";
	char no[] = "NO", yes[] = "YES";
	char *cols[] = { f }, *types[] = { i_double }, *nulls[] = { no };
	char *ftypes[] = { i_float }, *ynulls[] = { yes };
	struct table t = table_of(cols, 1), u = table_of(cols, 1);

	tabledef_float_text(&got, "f");
	expand(&want, "IF(LOCATE('e', {t}) = 0, {t}, CONCAT(IF(LEFT({m}, 1) = "
	       "'-', '-', ''), IF({ex} >= 0, IF(LENGTH({fr}) <= {ex}, "
	       "CONCAT({ip}, {fr}, REPEAT('0', {ex} - LENGTH({fr}))), "
	       "CONCAT({ip}, LEFT({fr}, {ex}), '.', SUBSTRING({fr}, {ex} + "
	       "1))), CONCAT('0.', REPEAT('0', -{ex} - 1), {ip}, {fr}))))",
	       "f");
	is_str(buf_str(&got), buf_str(&want),
	       "a DOUBLE's text: plain when it has no exponent, else written "
	       "out plain");
	buf_reset(&got);
	tabledef_float_text(&got, "we`ird");
	ok(strstr(buf_str(&got), "CAST((`we``ird` + 0) AS CHAR)") &&
	   !strstr(buf_str(&got), "`we`ird`"), "the column's name quoted");

	tabledef_row_hash(&t, types, nulls);
	buf_reset(&got);
	tabledef_float_text(&got, "f");
	buf_printf(&hash, NULL, "CRC32((CRC32(%s) * 1013904226))",
		   buf_str(&got));
	is_str(buf_str(&t.hash_expr), buf_str(&hash),
	       "row hash: a DOUBLE's term is the CRC32 of its text");
	tabledef_row_hash(&u, ftypes, nulls);
	is_str(buf_str(&u.hash_expr), buf_str(&hash),
	       "row hash: a FLOAT's too, whatever the type's case");
	buf_release(&u.hash_expr);
	u.float_as_is = 1;
	tabledef_row_hash(&u, types, nulls);
	is_str(buf_str(&u.hash_expr), "CRC32((CRC32(`f`) * 1013904226))",
	       "row hash, both sides one release: a DOUBLE read as it is");
	tabledef_row_text(&u, types, nulls);
	is_str(buf_str(&u.text_expr), "CONCAT_WS(',', `f`)",
	       "row text, both sides one release: a DOUBLE read as it is");
	buf_release(&u.text_expr);
	buf_release(&u.hash_expr);
	u.float_bits = 1;
	tabledef_row_hash(&u, ftypes, nulls);
	is_str(buf_str(&u.hash_expr), "CRC32((CRC32(COLUMN_CREATE(1, `f` AS "
	       "DOUBLE)) * 1013904226))", "row hash, one MariaDB release: a "
	       "FLOAT's bytes, as a dynamic column holds them");
	buf_release(&u.hash_expr);
	tabledef_row_hash(&u, types, ynulls);
	is_str(buf_str(&u.hash_expr), "CRC32(IFNULL(CRC32(IF(`f` IS NULL, "
	       "NULL, COLUMN_CREATE(1, `f` AS DOUBLE))) * 1013904226, "
	       "CAST(1013904227 AS UNSIGNED)))", "a NULL stays NULL: its "
	       "dynamic column would hold no column, not NULL");
	tabledef_row_text(&u, ftypes, nulls);
	is_str(buf_str(&u.text_expr), "CONCAT_WS(',', `f`)",
	       "row text: its text still");
	buf_release(&u.text_expr);
	buf_release(&t.hash_expr);
	buf_release(&u.hash_expr);
	buf_release(&got);
	buf_release(&want);
	buf_release(&hash);
}

int main(void)
{
	test_row_hash();
	test_hash_factors();
	test_row_text();
	test_float_text();
	return done_testing();
}
