/*
 * The check kinds' part of report.html (core/figure.h): which kinds draw
 * (checker_drawers), the table diff's rows (checkers/tableshow.c) and the
 * ids plot (checkers/idplot.c) of TiDB issue 52600's stored history.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/checker.h"
#include "checkers/idplot.h"
#include "checkers/tablediff.h"
#include "tests/unit/tap.h"

/* How many times `needle` is in `hay`. */
static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static json_t *parse(const char *text)
{
	json_t *j = json_loads(text, 0, NULL);

	if (!j) {
		printf("Bail out! bad JSON in the test: %s\n", text);
		exit(1);
	}
	return j;
}

static void drawers(void)
{
	const struct figure_drawer *d = checker_drawers();
	struct buf names = BUF_INIT;

	for (; d->kind; d++)
		buf_printf(&names, NULL, "%s%s", names.len ? " " : "", d->kind);
	is_str(buf_str(&names), "append consistency ids syncpoint",
	       "the kinds that draw, in the registry's order");
	ok(checker_drawers()[1].draw == tablediff_draw,
	   "consistency draws the table diff");
	ok(checker_drawers() == checker_drawers(), "the same list every time");
	buf_release(&names);
}

static void table_rows(void)
{
	json_t *details = parse(
		"{\"tables\":[{\"table\":\"db.t\",\"missing\":1,\"extra\":0,"
		"\"changed\":1,\"columns\":[\"id\",\"v\"],\"rows\":["
		"{\"key\":\"1\",\"kind\":\"missing\",\"up\":[\"1\",\"x\"],"
		"\"down\":null,\"fix\":\"INSERT\"},"
		"{\"key\":\"2\",\"kind\":\"changed\",\"up\":[\"2\",null],"
		"\"down\":[\"2\",\"<b>\"],\"fix\":\"REPLACE\"}]},"
		"{\"table\":\"db.u\",\"missing\":0,\"extra\":0,\"changed\":0}],"
		"\"first\":\"db.t\"}");
	json_t *rest = json_deep_copy(details);
	struct figure f = { "/nonexistent/history.jsonl", 5, NULL, 0, NULL,
			    0 };
	struct buf out = BUF_INIT;
	char *left;

	tablediff_draw(&f, details, rest, &out);
	ok(strstr(buf_str(&out), "<h4>db.t: 2 of 2 differing rows</h4>") !=
	   NULL, "a heading for the table with rows, counting its kinds");
	ok(!strstr(buf_str(&out), "db.u"), "none for a table without rows");
	is_int((int64_t)count(buf_str(&out), "<tr class=\"diff-row\">"), 4,
	       "two lines for each differing row");
	ok(strstr(buf_str(&out), "<td>downstream</td><td colspan=\"2\" "
		  "class=\"d\"><i>no row</i></td>") != NULL,
	   "a missing row: no row downstream, marked");
	ok(strstr(buf_str(&out), "<td>2</td><td class=\"d\"><i>NULL</i></td>"
		  "<td rowspan=\"2\"><code>REPLACE</code>") != NULL,
	   "the same id unmarked, NULL against a value marked, the fix");
	ok(strstr(buf_str(&out), "&lt;b&gt;") != NULL, "values escaped");
	left = json_dumps(rest, JSON_COMPACT | JSON_PRESERVE_ORDER);
	is_str(left, "{\"tables\":[{\"table\":\"db.t\",\"missing\":1,"
	       "\"extra\":0,\"changed\":1},{\"table\":\"db.u\",\"missing\":0,"
	       "\"extra\":0,\"changed\":0}],\"first\":\"db.t\"}",
	       "rows and columns leave the details' text; the rest stays");
	free(left);
	json_decref(rest);
	json_decref(details);
	buf_release(&out);
}

static void ids_plot(void)
{
	/* A pair as the ids check writes it for this history. */
	json_t *details = parse(
		"{\"first\":[{\"table\":\"test.t\",\"a\":{\"id\":4003,"
		"\"node\":\"tidb-1\",\"complete\":3.41},\"b\":{\"id\":5,"
		"\"node\":\"tidb-0\",\"complete\":3.61}}]}");
	json_t *rest = json_deep_copy(details);
	struct figure_window w = { 1.0, 2.5, "down", "kill tidb-0" };
	struct figure_mark m[2] = { { 1.5, "owner", "tidb-1 owner" },
				    { 1.7, "ddl", "truncate t" } };
	struct figure f = { "tests/data/histories/autoid-52600/history.jsonl",
			    0, &w, 1, m, 2 };
	struct buf out = BUF_INIT;

	ids_draw(&f, details, rest, &out);
	is_int((int64_t)count(buf_str(&out), "class=\"idsplot\""), 1,
	       "one plot: one table out of order");
	ok(strstr(buf_str(&out), "<h4>test.t: ids over time, per server</h4>") !=
	   NULL, "named by its table");
	is_int((int64_t)count(buf_str(&out), "<g class=\"viol\">"), 1,
	       "the pair joined");
	ok(strstr(buf_str(&out), "<title>id 5 (tidb-0, 3.610s) after id 4003 "
		  "(tidb-1, 3.410s)</title>") != NULL, "the pair named");
	ok(strstr(buf_str(&out), "class=\"fault s-down\"><title>kill tidb-0, "
		  "1.0s to 2.5s</title>") != NULL, "the window shaded");
	is_int((int64_t)count(buf_str(&out), "class=\"at-owner\"><title>"), 1,
	       "the owner change a line");
	ok(strstr(buf_str(&out), "class=\"at-owner\"><title>1.500s tidb-1 "
		  "owner</title>") != NULL, "named with its time");
	ok(!strstr(buf_str(&out), "at-ddl"), "a DDL is no line of it");
	ok(strstr(buf_str(&out), "text-anchor=\"end\">0</text>") &&
	   strstr(buf_str(&out), "text-anchor=\"end\">6000</text>"),
	   "the id axis around the lowest id (1) and the highest (4003)");
	is_int((int64_t)count(buf_str(&out), "text-anchor=\"end\">"), 4,
	       "  its ticks: 0, 2000, 4000, 6000");
	ok(strstr(buf_str(&out), "class=\"flabel\">kill tidb-0</text>") !=
	   NULL, "the window named where it starts");
	ok(json_equal(rest, details), "the details' text keeps every member");
	buf_reset(&out);
	json_object_set_new(json_array_get(json_object_get(details, "first"),
					   0), "table", json_string("nope"));
	ids_draw(&f, details, rest, &out);
	is_str(buf_str(&out), "", "a table the history has no insert of: "
	       "no plot");
	json_decref(rest);
	json_decref(details);
	buf_release(&out);
}

/* The append check's first forbidden cycle: drawn, its steps left out
 * of the text; an allowed one neither. */
static void append_cycle(void)
{
	json_t *details = parse(
		"{\"model\":\"snapshot-isolation\",\"anomalies\":["
		"{\"kind\":\"G-single\",\"count\":1,\"forbidden\":true,"
		"\"first\":\"...\",\"cycle_length\":2,\"cycle\":["
		"{\"txn\":\"T(line 20, process 1)\",\"edge\":\"rw\","
		"\"key\":1,\"value\":1},"
		"{\"txn\":\"T(line 10, process 0)\",\"edge\":\"wr\","
		"\"key\":2,\"value\":2}]},"
		"{\"kind\":\"G2-item\",\"count\":1,\"forbidden\":false,"
		"\"first\":\"...\",\"cycle_length\":2,\"cycle\":[]}]}");
	json_t *rest = json_deep_copy(details);
	struct figure f = { "/nonexistent/history.jsonl", 5, NULL, 0, NULL,
			    0 };
	struct buf out = BUF_INIT;
	const char *o;
	size_t arrows = 0;

	checker_drawers()[0].draw(&f, details, rest, &out);
	o = buf_str(&out);
	ok(strstr(o, "<h4>G-single: the first cycle, 2 transactions (ww "
		  "blue, wr green, rw red)</h4>") != NULL, "the G-single "
	   "cycle's heading");
	for (const char *p = o; (p = strstr(p, "url(#elle-arrow)")); p++)
		arrows++;
	is_uint(arrows, 2, "an arrow per step");
	ok(strstr(o, "rw key 1: 1") && strstr(o, "wr key 2: 2") &&
	   strstr(o, "T(line 20, process 1)"), "named by kind, key, value, "
	   "and the transactions");
	ok(!strstr(o, "G2-item"), "an allowed kind not drawn");
	ok(!json_object_get(json_array_get(json_object_get(rest,
		"anomalies"), 0), "cycle"), "the drawn steps left out of "
	   "the text");
	json_decref(details);
	json_decref(rest);
	buf_release(&out);
}

int main(void)
{
	drawers();
	table_rows();
	ids_plot();
	append_cycle();
	return done_testing();
}
