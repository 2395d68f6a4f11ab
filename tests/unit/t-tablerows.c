/*
 * The row diff of the table diff (checkers/tablediff.h, tablerows.c), no
 * server: two sides' rows of a range, merged into missing, extra and
 * changed rows, with their keys, the rows report.html shows and the fix
 * SQL, exactly. t0500 and t0505 apply the fix SQL to real tables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/tablediff.h"
#include "lib/buf.h"
#include "tests/unit/tap.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* An empty diff keeping `max` keys of each kind. */
#define DIFF_INIT(max)                                                  \
	{ .keys = { BUF_INIT, BUF_INIT, BUF_INIT }, .fix = BUF_INIT,    \
	  .shown = BUF_INIT, .max_report = (max) }

/* A row as fetch_rows makes it: its key's text, its hash, its values
 * (NULL: SQL NULL), borrowed. */
static struct row row_of(char *key, const char *hash, char **vals)
{
	struct row r = { .key = key, .vals = vals };

	r.ikey = strtoll(key, NULL, 10);
	snprintf(r.hash, sizeof(r.hash), "%s", hash);
	return r;
}

/* A table db.t of `cols`, keyed on `keys` (none: nkeys 0). */
static struct table table_of(char **cols, size_t ncols, char **keys,
			     size_t nkeys, int int_key)
{
	struct table t = { .db = "db", .name = "t", .cols = cols,
			   .ncols = ncols, .keys = keys, .nkeys = nkeys,
			   .int_key = int_key, .text_expr = BUF_INIT,
			   .hash_expr = BUF_INIT, .qname = BUF_INIT };

	buf_addstr(&t.qname, "`db`.`t`", NULL);
	return t;
}

static void diff_release(struct diff *d)
{
	for (int k = 0; k < 3; k++)
		buf_release(&d->keys[k]);
	buf_release(&d->fix);
	buf_release(&d->shown);
}

static void test_int_key(void)
{
	char id[] = "id", v[] = "v";
	char *cols[] = { id, v }, *keys[] = { id };
	char one[] = "1", two[] = "2", three[] = "3", four[] = "4";
	char b[] = "b", bb[] = "B", c[] = "c", dd[] = "d";
	char *u1[] = { one, NULL }, *u2[] = { two, b }, *u4[] = { four, dd };
	char *d2[] = { two, bb }, *d3[] = { three, c }, *d4[] = { four, dd };
	struct row up[] = { row_of(one, "h1", u1), row_of(two, "h2", u2),
			    row_of(four, "h4", u4) };
	struct row down[] = { row_of(two, "h2x", d2), row_of(three, "h3", d3),
			      row_of(four, "h4", d4) };
	struct rows ru = { up, ARRAY_SIZE(up), 2 };
	struct rows rd = { down, ARRAY_SIZE(down), 2 };
	struct table t = table_of(cols, 2, keys, 1, 1);
	struct diff d = DIFF_INIT(20);

	tablerows_compare(&d, &t, &ru, &rd);
	ok(d.missing == 1 && d.extra == 1 && d.changed == 1,
	   "an integer key: 1 missing, 1 extra, 1 changed, 1 the same");
	is_str(buf_str(&d.keys[0]), "\"id=1\"\n", "the missing key");
	is_str(buf_str(&d.keys[1]), "\"id=3\"\n", "the extra key");
	is_str(buf_str(&d.keys[2]), "\"id=2\"\n", "the changed key");
	is_str(buf_str(&d.fix),
	       "REPLACE INTO `db`.`t` (`id`, `v`) VALUES ('1', NULL);\n"
	       "REPLACE INTO `db`.`t` (`id`, `v`) VALUES ('2', 'b');\n"
	       "DELETE FROM `db`.`t` WHERE `id` <=> '3';\n",
	       "the fix SQL, in key order: a NULL as NULL");
	is_str(buf_str(&d.shown),
	       "{\"kind\":\"missing\",\"key\":\"id=1\",\"up\":[\"1\",null],"
	       "\"down\":null,\"fix\":\"REPLACE INTO `db`.`t` (`id`, `v`) "
	       "VALUES ('1', NULL);\"}\n"
	       "{\"kind\":\"changed\",\"key\":\"id=2\",\"up\":[\"2\",\"b\"],"
	       "\"down\":[\"2\",\"B\"],\"fix\":\"REPLACE INTO `db`.`t` (`id`, "
	       "`v`) VALUES ('2', 'b');\"}\n"
	       "{\"kind\":\"extra\",\"key\":\"id=3\",\"up\":null,\"down\":"
	       "[\"3\",\"c\"],\"fix\":\"DELETE FROM `db`.`t` WHERE `id` <=> "
	       "'3';\"}\n",
	       "the rows shown, each with both sides and its fix");
	is_int(d.nshown, 3, "three shown");
	is_int(d.compared, 0, "compared counts fetched rows, not merged ones");
	diff_release(&d);
	buf_release(&t.qname);
}

/* A composite key: its columns' text joined by \x1f, as fetch_rows
 * writes it. */
static void test_composite_key(void)
{
	char a[] = "a", b[] = "b", v[] = "v";
	char *cols[] = { a, b, v }, *keys[] = { a, b };
	char one[] = "1", x[] = "x", q[] = "it's", y[] = "y";
	char k1x[] = "1\x1fx", k1y[] = "1\x1fy";
	char *u1[] = { one, x, q }, *d1[] = { one, y, q };
	struct row up[] = { row_of(k1x, "h1", u1) };
	struct row down[] = { row_of(k1y, "h1", d1) };
	struct rows ru = { up, 1, 3 }, rd = { down, 1, 3 };
	struct table t = table_of(cols, 3, keys, 2, 0);
	struct diff d = DIFF_INIT(20);

	tablerows_compare(&d, &t, &ru, &rd);
	ok(d.missing == 1 && d.extra == 1 && !d.changed,
	   "(a, b): (1, x) missing, (1, y) extra");
	is_str(buf_str(&d.keys[0]), "\"a=1,b=x\"\n", "a key of two columns");
	is_str(buf_str(&d.keys[1]), "\"a=1,b=y\"\n", "the extra one");
	is_str(buf_str(&d.fix),
	       "REPLACE INTO `db`.`t` (`a`, `b`, `v`) VALUES ('1', 'x', "
	       "'it\\'s');\n"
	       "DELETE FROM `db`.`t` WHERE `a` <=> '1' AND `b` <=> 'y';\n",
	       "the fix: a quote escaped; DELETE by every key column");
	diff_release(&d);
	buf_release(&t.qname);
}

/* No key: rows are told apart by their hashes, a multiset. */
static void test_keyless(void)
{
	char a[] = "a", b[] = "b";
	char *cols[] = { a, b };
	char one[] = "1", two[] = "2", three[] = "3";
	char x[] = "x", y[] = "y", z[] = "z";
	char *u1[] = { one, x }, *u2[] = { two, y };
	char *d2[] = { two, y }, *d3[] = { three, z };
	char k1[] = "1\x1fx", k2[] = "2\x1fy", k3[] = "3\x1fz";
	struct row up[] = { row_of(k1, "aa", u1), row_of(k2, "bb", u2) };
	struct row down[] = { row_of(k2, "bb", d2), row_of(k3, "cc", d3) };
	struct rows ru = { up, 2, 2 }, rd = { down, 2, 2 };
	struct table t = table_of(cols, 2, NULL, 0, 0);
	struct diff d = DIFF_INIT(20);

	tablerows_compare(&d, &t, &ru, &rd);
	ok(d.missing == 1 && d.extra == 1 && !d.changed,
	   "no key: 1 missing, 1 extra");
	is_str(buf_str(&d.keys[0]), "\"row sha1 aa\"\n",
	       "a keyless row named by its hash");
	is_str(buf_str(&d.fix),
	       "INSERT INTO `db`.`t` (`a`, `b`) VALUES ('1', 'x');\n"
	       "DELETE FROM `db`.`t` WHERE `a` <=> '3' AND `b` <=> 'z' "
	       "LIMIT 1;\n",
	       "no key: INSERT, and DELETE of one row by every column");
	diff_release(&d);
	buf_release(&t.qname);
}

/* max_report keys a kind; every difference is counted and fixed. */
static void test_max_report(void)
{
	char id[] = "id";
	char *cols[] = { id }, *keys[] = { id };
	char one[] = "1", two[] = "2", three[] = "3";
	char *v1[] = { one }, *v2[] = { two }, *v3[] = { three };
	struct row up[] = { row_of(one, "h1", v1), row_of(two, "h2", v2),
			    row_of(three, "h3", v3) };
	struct rows ru = { up, 3, 1 }, rd = { NULL, 0, 1 };
	struct table t = table_of(cols, 1, keys, 1, 1);
	struct diff d = DIFF_INIT(2);

	tablerows_compare(&d, &t, &ru, &rd);
	is_int(d.missing, 3, "3 missing");
	is_str(buf_str(&d.keys[0]), "\"id=1\"\n\"id=2\"\n",
	       "max_report 2: the first two keys");
	is_int(d.nkeys[0], 2, "two keys kept");
	is_str(buf_str(&d.fix),
	       "REPLACE INTO `db`.`t` (`id`) VALUES ('1');\n"
	       "REPLACE INTO `db`.`t` (`id`) VALUES ('2');\n"
	       "REPLACE INTO `db`.`t` (`id`) VALUES ('3');\n",
	       "every missing row fixed, past max_report");
	diff_release(&d);
	buf_release(&t.qname);
}

/*
 * A JSON column (t->col_json): rows whose texts differ are the same when
 * their other columns are (plain) and each JSON value is the same JSON;
 * keys in another order and other spacing are; a changed value, a
 * number of another type, an added key, NULL against JSON null and a
 * text that is no JSON are not.
 */
static void test_json(void)
{
	char id[] = "id", j[] = "j", v[] = "v";
	char *cols[] = { id, j, v }, *keys[] = { id };
	static const char *const pairs[][2] = {
		{ "{\"a\": 1, \"b\": [1, {\"x\": null, \"y\": \"z\"}]}",
		  "{\"b\":[1,{\"y\":\"z\",\"x\":null}],\"a\":1}" },
		{ "{\"a\": 1, \"b\": 2}", "{\"b\": 2, \"a\": 1}" },
		{ "{\"a\": 1, \"b\": 2}", "{\"b\": 3, \"a\": 1}" },
		{ "{\"a\": 1}", "{\"a\": 1.0}" },
		{ "{\"a\": 1}", "{\"a\": 1, \"b\": null}" },
		{ "null", NULL },
		{ "not json", "not  json" },
		{ "[1, 2]", "[2, 1]" },
	};
	/* 1 and 2 the same; 3 to 8 changed; 9: JSON the same, v not. */
	char kt[10][4], vv[] = "v", vw[] = "w";
	char *uv[10][3], *dv[10][3];
	struct row up[10], down[10];
	struct rows ru = { up, 10, 3 }, rd = { down, 10, 3 };
	struct table t = table_of(cols, 3, keys, 1, 1);
	int col_json[] = { 0, 1, 0 };
	struct diff d = DIFF_INIT(20);

	t.col_json = col_json;
	for (int i = 0; i < 10; i++) {
		const char *a = i < 8 ? pairs[i][0] : "{}";
		const char *b = i < 8 ? pairs[i][1] : "{ }";

		snprintf(kt[i], sizeof(kt[i]), "%d", i + 1);
		uv[i][0] = dv[i][0] = kt[i];
		uv[i][1] = (char *)a;
		dv[i][1] = (char *)b;
		uv[i][2] = vv;
		dv[i][2] = i == 9 ? vw : vv;
		up[i] = row_of(kt[i], "text-up", uv[i]);
		down[i] = row_of(kt[i], "text-down", dv[i]);
		snprintf(up[i].plain, sizeof(up[i].plain), "p");
		snprintf(down[i].plain, sizeof(down[i].plain), i == 9 ? "q"
			 : "p");
	}
	tablerows_compare(&d, &t, &ru, &rd);
	is_int(d.changed, 7, "JSON: 7 of 10 rows changed");
	is_str(buf_str(&d.keys[2]), "\"id=3\"\n\"id=4\"\n\"id=5\"\n"
	       "\"id=6\"\n\"id=7\"\n\"id=8\"\n\"id=10\"\n",
	       "JSON: keys reordered (1, 2) and whitespace (9) the same; a "
	       "value, a type, a key, NULL, no JSON, an order of elements, "
	       "another column (10) changed");
	is_int(d.missing + d.extra, 0, "JSON: none missing or extra");
	t.col_json = NULL;
	diff_release(&d);
	d = (struct diff)DIFF_INIT(20);
	tablerows_compare(&d, &t, &ru, &rd);
	is_int(d.changed, 10, "no JSON column: every text that differs "
	       "changed");
	diff_release(&d);
	buf_release(&t.qname);
}

int main(void)
{
	is_str(tablerows_kind_names[0], "missing", "kind 0: missing");
	is_str(tablerows_kind_names[1], "extra", "kind 1: extra");
	is_str(tablerows_kind_names[2], "changed", "kind 2: changed");
	test_int_key();
	test_composite_key();
	test_keyless();
	test_max_report();
	test_json();
	return done_testing();
}
