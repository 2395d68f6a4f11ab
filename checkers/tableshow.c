/*
 * The rows that differ, drawn on report.html (checkers/tablediff.h,
 * tablediff_draw): the consistency and syncpoint checks' part of the
 * page.
 */
#include <string.h>

#include "checkers/tablediff.h"
#include "lib/svg.h"

#define html svg_text
#define str figure_str

/* A value as a cell; NULL (JSON null) in italics. */
static void value_cell(struct buf *out, const json_t *v, int differs)
{
	buf_addstr(out, differs ? "<td class=\"d\">" : "<td>", NULL);
	if (json_is_string(v))
		html(out, json_string_value(v));
	else
		buf_addstr(out, "<i>NULL</i>", NULL);
	buf_addstr(out, "</td>", NULL);
}

/* Both sides of a differing row: its key, kind and fix span the two. */
static void diff_row(struct buf *out, const json_t *cols, const json_t *row)
{
	const json_t *side[2] = { json_object_get(row, "up"),
				  json_object_get(row, "down") };

	for (int s = 0; s < 2; s++) {
		buf_addstr(out, "<tr class=\"diff-row\">", NULL);
		if (!s) {
			buf_addstr(out, "<td rowspan=\"2\">", NULL);
			html(out, str(row, "key"));
			buf_addstr(out, "</td><td rowspan=\"2\">", NULL);
			html(out, str(row, "kind"));
			buf_addstr(out, "</td>", NULL);
		}
		buf_addstr(out, s ? "<td>downstream</td>" :
			   "<td>upstream</td>", NULL);
		if (!json_is_array(side[s]))
			buf_printf(out, NULL, "<td colspan=\"%zu\" class=\"d\">"
				   "<i>no row</i></td>", json_array_size(cols));
		for (size_t c = 0; json_is_array(side[s]) &&
		     c < json_array_size(cols); c++) {
			const json_t *v = json_array_get(side[s], c);
			const json_t *o = json_array_get(side[!s], c);

			value_cell(out, v, !json_is_array(side[!s]) ||
				   !json_equal(v, o));
		}
		if (!s) {
			buf_addstr(out, "<td rowspan=\"2\"><code>", NULL);
			html(out, str(row, "fix"));
			buf_addstr(out, "</code></td>", NULL);
		}
		buf_addstr(out, "</tr>\n", NULL);
	}
}

/*
 * The differing rows the check kept (details.tables[].rows: the first
 * max_report of each table): the key, both sides' rows, the values that
 * differ marked, and the SQL that repairs the row downstream.
 */
void tablediff_draw(const struct figure *f, const json_t *details,
		    json_t *rest, struct buf *out)
{
	static const char *const kinds[] = { "missing", "extra", "changed",
					     NULL };
	const json_t *tables = json_object_get(details, "tables");
	json_t *left = json_object_get(rest, "tables");

	for (size_t i = 0; i < json_array_size(tables); i++) {
		const json_t *t = json_array_get(tables, i);
		const json_t *cols = json_object_get(t, "columns");
		const json_t *rows = json_object_get(t, "rows");
		json_int_t total = 0;

		if (!json_array_size(rows))
			continue;
		for (int k = 0; kinds[k]; k++)
			total += json_integer_value(json_object_get(t,
								    kinds[k]));
		buf_addstr(out, "<h4>", NULL);
		html(out, str(t, "table"));
		buf_printf(out, NULL, ": %zu of %lld differing rows</h4>\n"
			   "<table class=\"diff\"><tr><th>key</th><th>"
			   "difference</th><th>side</th>",
			   json_array_size(rows), (long long)total);
		for (size_t c = 0; c < json_array_size(cols); c++) {
			buf_addstr(out, "<th>", NULL);
			html(out, json_string_value(json_array_get(cols, c)));
			buf_addstr(out, "</th>", NULL);
		}
		buf_addstr(out, "<th>fix (downstream)</th></tr>\n", NULL);
		for (size_t r = 0; r < json_array_size(rows); r++)
			diff_row(out, cols, json_array_get(rows, r));
		buf_addstr(out, "</table>\n", NULL);
	}
	for (size_t i = 0; i < json_array_size(left); i++) {
		json_object_del(json_array_get(left, i), "rows");
		json_object_del(json_array_get(left, i), "columns");
	}
}
