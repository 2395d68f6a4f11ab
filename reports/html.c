/*
 * report.html: one self-contained page (no network, no script): the
 * verdicts, a timeline of the run in lanes (a component's states under
 * faults, owner changes, DDL per table: reports/timeline.h),
 * per-workload throughput and latency (p50 / p99 per second) as inline
 * SVG with the fault windows shaded, a legend on each, and the details of
 * what failed, with links to logs/ and fix-sql/ (docs/results.md).
 *
 * Built from results.json (counts and latencies per second, measured by
 * the workers) and history.jsonl (the timeline) only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/history.h"
#include "reports/report.h"
#include "reports/timeline.h"

/* A workload's steps, from results.json (per_step). */
struct series {
	const char *name;
	const json_t *ok;
	const json_t *errors;
	const json_t *p50;
	const json_t *p99;
	int step;		/* seconds */
};

/* Ways of holding a page knows at most (the kinds' and the other). */
#define MAX_HOLDS 32

struct page {
	struct timeline t;
	/* The ways of holding, by rank: the kinds' (struct report_run),
	 * then timeline_other; each drawn in class s-NAME. */
	const struct fault_holds *holds[MAX_HOLDS];
	size_t nholds;
	struct series *s;
	size_t ns;
	int seconds;
};


/* Per enum timeline_mark_kind. */
static const char *const mark_class[MARK_KINDS] = {
	"ddl", "owner", "instant", "replica",
};
static const char *const mark_label[MARK_KINDS] = {
	"DDL", "owner change", "instant or failed fault", "replica event",
};

/* Lanes drawn of one group at most; a line says how many more. */
#define MAX_LANES 40

#define html report_escape_html

void report_escape_html(struct buf *out, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '&':
			buf_addstr(out, "&amp;", NULL);
			break;
		case '<':
			buf_addstr(out, "&lt;", NULL);
			break;
		case '>':
			buf_addstr(out, "&gt;", NULL);
			break;
		case '"':
			buf_addstr(out, "&quot;", NULL);
			break;
		default:
			buf_addch(out, *s, NULL);
		}
}

#define W 900
#define H 160
#define LEFT 150		/* lane names, the y axis' label */
#define RIGHT 30

static double x_of(double sec, int seconds)
{
	double x = LEFT + (W - LEFT - RIGHT) * sec /
		   (seconds > 0 ? seconds : 1);

	/* A heal at the end of the run comes after its last second. */
	return x < LEFT ? LEFT : x > W - RIGHT ? W - RIGHT : x;
}

/* How a legend shows a colour: as the plot draws it. */
enum swatch { AREA, LINE, DOT };

/* What a legend lists: swatches with their meaning. */
struct legend {
	const char *cls[MAX_HOLDS + MARK_KINDS + 2];
	const char *label[MAX_HOLDS + MARK_KINDS + 2];
	int shape[MAX_HOLDS + MARK_KINDS + 2];	/* enum swatch */
	char held_cls[MAX_HOLDS + MARK_KINDS + 2][40];	/* cls[i], "s-down" */
	size_t n;
};

static void legend_add(struct legend *l, const char *cls, const char *label,
		       int shape)
{
	l->cls[l->n] = cls;
	l->label[l->n] = label;
	l->shape[l->n] = shape;
	l->n++;
}

/* A way of holding in the legend, as AREA, in its class s-NAME. */
static void legend_held(struct legend *l, const struct fault_holds *h)
{
	char *cls = l->held_cls[l->n];

	snprintf(cls, sizeof(l->held_cls[0]), "s-%s", h->name);
	legend_add(l, cls, h->label, AREA);
}

/*
 * The legend at the top of a plot, in rows as wide as the plot; its
 * height.
 */
static int legend_svg(struct buf *out, const struct legend *l)
{
	int x = 4, y = 4;

	buf_addstr(out, "<g class=\"legend\">\n", NULL);
	for (size_t i = 0; i < l->n; i++) {
		int width = 16 + 6 * (int)strlen(l->label[i]) + 14;

		if (x > 4 && x + width > W) {
			x = 4;
			y += 16;
		}
		if (l->shape[i] == LINE)
			buf_printf(out, NULL, "<line x1=\"%d\" y1=\"%d\" "
				   "x2=\"%d\" y2=\"%d\" class=\"%s\"/>", x,
				   y + 5, x + 12, y + 5, l->cls[i]);
		else if (l->shape[i] == DOT)
			buf_printf(out, NULL, "<circle cx=\"%d\" cy=\"%d\" "
				   "r=\"3\" class=\"%s\"/>", x + 6, y + 5,
				   l->cls[i]);
		else
			buf_printf(out, NULL, "<rect x=\"%d\" y=\"%d\" "
				   "width=\"12\" height=\"10\" class=\"%s\"/>",
				   x, y, l->cls[i]);
		buf_printf(out, NULL, "<text x=\"%d\" y=\"%d\" class=\"tick\">"
			   "%s</text>\n", x + 16, y + 9, l->label[i]);
		x += width;
	}
	buf_addstr(out, "</g>\n", NULL);
	return y + 18;
}

/* ", 1.0s to 3.0s" or ", 3.5s, not healed". */
static void span(struct buf *out, const struct timeline_window *w)
{
	if (w->to >= 0)
		buf_printf(out, NULL, ", %.1fs to %.1fs", w->from, w->to);
	else
		buf_printf(out, NULL, ", %.1fs, not healed", w->from);
}

/* "; NOTE" when the window has one. */
static void note(struct buf *out, const struct timeline_window *w)
{
	if (!w->note)
		return;
	buf_addstr(out, "; ", NULL);
	html(out, w->note);
}

/* The fault windows, shaded over a plot from y 10 to `bottom`. */
static void shade(struct buf *out, const struct page *p, int bottom)
{
	for (size_t i = 0; i < p->t.nw; i++) {
		const struct timeline_window *w = &p->t.w[i];
		double a = x_of(w->from, p->seconds);
		double b = x_of(w->to >= 0 ? w->to : p->t.end, p->seconds);

		buf_printf(out, NULL, "<rect x=\"%.1f\" y=\"10\" width=\"%.1f\" "
			   "height=\"%d\" class=\"fault s-%s\"><title>", a,
			   b - a > 1 ? b - a : 1, bottom - 10,
			   w->held->name);
		html(out, w->what);
		span(out, w);
		note(out, w);
		buf_addstr(out, "</title></rect>\n", NULL);
	}
}

/* The time axis at `y`, its ticks below; `label` (MAY) at the top. */
static void axis(struct buf *out, int seconds, int y, const char *label)
{
	buf_printf(out, NULL, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		   "class=\"axis\"/>\n", LEFT, y, W - RIGHT, y);
	for (int s = 0; s <= seconds; s += seconds > 20 ? seconds / 10 : 1)
		buf_printf(out, NULL, "<text x=\"%.1f\" y=\"%d\" "
			   "class=\"tick\">%ds</text>\n", x_of(s, seconds),
			   y + 15, s);
	if (label)
		buf_printf(out, NULL, "<text x=\"4\" y=\"14\" class=\"tick\">"
			   "%s</text>\n", label);
}

/* The value at second `sec` (steps of s->step seconds); latencies in ms,
 * counts per second. */
static double value(const struct series *s, const json_t *a, int sec,
		    int latency)
{
	const json_t *v = json_array_get(a, (size_t)(sec / s->step));
	double x = json_is_number(v) ? json_number_value(v) : 0;

	return latency ? x / 1000.0 : x / s->step;
}

/* The legend of a plot: its lines, then what its shading means. */
static int plot_legend(struct buf *out, const struct page *p, int latency)
{
	struct legend l;

	memset(&l, 0, sizeof(l));
	legend_add(&l, latency ? "p50" : "ops", latency ? "p50" : "ok", LINE);
	legend_add(&l, latency ? "p99" : "errors",
		   latency ? "p99" : "errors", LINE);
	for (size_t k = 0; k < p->nholds; k++)
		for (size_t i = 0; i < p->t.nw; i++)
			if (p->t.w[i].held == p->holds[k]) {
				legend_held(&l, p->holds[k]);
				break;
			}
	return legend_svg(out, &l);
}

static void plot(struct buf *out, const struct page *p,
		 const struct series *s, int latency)
{
	struct buf body = BUF_INIT;
	double max = 1, v;
	int top;

	for (int sec = 0; sec < p->seconds; sec++) {
		v = value(s, latency ? s->p99 : s->ok, sec, latency);
		if (v > max)
			max = v;
	}
	top = plot_legend(&body, p, latency);
	buf_printf(&body, NULL, "<g transform=\"translate(0,%d)\">\n", top);
	shade(&body, p, H - 20);
	axis(&body, p->seconds, H - 20, latency ? "latency ms (p50, p99)"
		   : "operations per second (ok, errors)");
	/* Latency: p50 and p99; throughput: ok and errors. */
	for (int line = 0; line < 2; line++) {
		const json_t *a = latency ? (line ? s->p99 : s->p50)
				  : line ? s->errors : s->ok;

		if (!a)
			continue;
		buf_printf(&body, NULL, "<polyline class=\"%s\" points=\"",
			   latency ? (line ? "p99" : "p50")
			   : line ? "errors" : "ops");
		for (int sec = 0; sec < p->seconds; sec++)
			buf_printf(&body, NULL, "%.1f,%.1f ",
				   x_of(sec + 0.5, p->seconds),
				   (H - 20) - (H - 40) *
				   value(s, a, sec, latency) / max);
		buf_addstr(&body, "\"/>\n", NULL);
	}
	buf_printf(&body, NULL, "<text x=\"%d\" y=\"24\" class=\"tick\">max "
		   "%.1f</text>\n</g>\n", W - RIGHT - 80, max);
	buf_printf(out, NULL, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
		   "width=\"%d\" height=\"%d\" role=\"img\">\n%s</svg>\n", W,
		   top + H, buf_str(&body));
	buf_release(&body);
}

#define ROW 10			/* a row of segments in a lane */
#define BAR 8

/* A lane's name at the left of its lane (cut, whole in its title). */
static void lane_name(struct buf *out, const char *name, int y)
{
	buf_printf(out, NULL, "<text x=\"%d\" y=\"%d\" class=\"lane\" "
		   "text-anchor=\"end\">", LEFT - 6, y);
	if (strlen(name) > 24) {
		struct buf cut = BUF_INIT;

		buf_addstr(out, "<title>", NULL);
		html(out, name);
		buf_addstr(out, "</title>", NULL);
		buf_add(&cut, name, 21, NULL);
		buf_addstr(&cut, "...", NULL);
		html(out, buf_str(&cut));
		buf_release(&cut);
	} else {
		html(out, name);
	}
	buf_addstr(out, "</text>\n", NULL);
}

static void segment_svg(struct buf *out, const struct page *p,
			const struct timeline_segment *s, int y)
{
	const struct timeline_window *w = &p->t.w[s->window];
	const struct timeline_lane *lane = &p->t.lanes[s->lane];
	double a = x_of(w->from, p->seconds);
	double b = x_of(w->to >= 0 ? w->to : p->t.end, p->seconds);

	buf_printf(out, NULL, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
		   "height=\"%d\" class=\"seg s-%s\"><title>", a,
		   y + 3 + s->row * ROW, b - a > 1 ? b - a : 1, BAR,
		   w->held->name);
	if (lane->group == LANE_COMPONENT) {
		html(out, lane->name);
		buf_addstr(out, ": ", NULL);
		html(out, s->what);
		span(out, w);
		buf_addstr(out, " (", NULL);
		html(out, w->what);
		note(out, w);
		buf_addch(out, ')', NULL);
	} else {
		html(out, w->what);
		span(out, w);
		note(out, w);
	}
	buf_addstr(out, "</title></rect>\n", NULL);
}

/* Lane `i` from `y`, its segments stacked in rows, its marks; its height. */
static int lane_svg(struct buf *out, const struct page *p, size_t i, int y)
{
	const struct timeline_lane *lane = &p->t.lanes[i];
	int height = lane->rows * ROW + 6;

	lane_name(out, lane->name, y + height / 2 + 4);
	for (size_t k = 0; k < p->t.nseg; k++)
		if (p->t.seg[k].lane == i)
			segment_svg(out, p, &p->t.seg[k], y);
	for (size_t k = 0; k < p->t.nm; k++) {
		const struct timeline_mark *m = &p->t.m[k];

		if (m->lane != i)
			continue;
		buf_printf(out, NULL, "<circle cx=\"%.1f\" cy=\"%d\" r=\"3\" "
			   "class=\"%s\"><title>%.3fs ",
			   x_of(m->at, p->seconds), y + height / 2,
			   mark_class[m->kind], m->at);
		html(out, m->what);
		buf_addstr(out, "</title></circle>\n", NULL);
	}
	buf_printf(out, NULL, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		   "class=\"lane-sep\"/>\n", LEFT, y + height, W - RIGHT,
		   y + height);
	return height;
}

/* The lanes of the group lane `i` starts, MAX_LANES at most; its end. */
static size_t group_svg(struct buf *out, const struct page *p, size_t i,
			int *y)
{
	static const char *const more[LANE_GROUPS] = {
		"components", "", "", "", "tables",
	};
	static const char *const with[LANE_GROUPS] = {
		"fault windows", "", "", "", "DDL",
	};
	int group = p->t.lanes[i].group;
	size_t drawn = 0, left = 0, events = 0;
	struct buf names = BUF_INIT;
	int cut = 0;

	for (; i < p->t.nlanes && p->t.lanes[i].group == group; i++) {
		const struct timeline_lane *lane = &p->t.lanes[i];

		if (drawn < MAX_LANES) {
			*y += lane_svg(out, p, i, *y);
			drawn++;
			continue;
		}
		left++;
		events += lane->nsegments + lane->nmarks;
		if (names.len < 2000)
			buf_printf(&names, NULL, "%s%s", names.len ? ", " : "",
				   lane->name);
		else
			cut = 1;
	}
	if (left) {
		buf_printf(out, NULL, "<text x=\"%d\" y=\"%d\" class=\"more\">"
			   "<title>", LEFT, *y + 12);
		html(out, buf_str(&names));
		buf_printf(out, NULL, "%s</title>+%zu more %s, with %zu %s, "
			   "not drawn</text>\n", cut ? ", ..." : "",
			   left, more[group], events, with[group]);
		*y += 16;
	}
	buf_release(&names);
	return i;
}

/* The timeline's legend: the states and marks it shows. */
static int timeline_legend(struct buf *out, const struct page *p)
{
	struct legend l;
	int marks[MARK_KINDS] = { 0 };

	memset(&l, 0, sizeof(l));
	for (size_t i = 0; i < p->t.nm; i++)
		marks[p->t.m[i].kind] = 1;
	for (size_t k = 0; k < p->nholds; k++)
		for (size_t i = 0; i < p->t.nseg; i++)
			if (p->t.w[p->t.seg[i].window].held == p->holds[k]) {
				legend_held(&l, p->holds[k]);
				break;
			}
	for (int k = 0; k < MARK_KINDS; k++)
		if (marks[k])
			legend_add(&l, mark_class[k], mark_label[k], DOT);
	if (!l.n)
		legend_add(&l, "none", "no fault, owner change or DDL", AREA);
	return legend_svg(out, &l);
}

static void timeline_svg(struct buf *out, const struct page *p)
{
	struct buf body = BUF_INIT;
	int y = timeline_legend(&body, p);

	for (size_t i = 0; i < p->t.nlanes;)
		i = group_svg(&body, p, i, &y);
	axis(&body, p->seconds, y + 4, NULL);
	buf_printf(out, NULL, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
		   "width=\"%d\" height=\"%d\" role=\"img\">\n%s</svg>\n", W,
		   y + 26, buf_str(&body));
	buf_release(&body);
}

#define str report_str

static void verdicts(struct buf *out, const json_t *results)
{
	static const char *const sections[] = {
		"workloads", "faults", "checks", NULL,
	};

	buf_addstr(out, "<table><tr><th>what</th><th>verdict</th>"
		   "<th>summary</th></tr>\n", NULL);
	for (int s = 0; sections[s]; s++) {
		const json_t *items = json_object_get(results, sections[s]);

		for (size_t i = 0; i < json_array_size(items); i++) {
			const json_t *it = json_array_get(items, i);
			const char *summary = str(it, "summary");

			buf_addstr(out, "<tr><td>", NULL);
			html(out, str(it, "name"));
			buf_printf(out, NULL, "</td><td class=\"v-%s\">%s"
				   "</td><td>", results_item_verdict(it),
				   results_item_verdict(it));
			html(out, *summary ? summary : *str(it, "message")
			     ? str(it, "message") : str(it, "skip"));
			if (*str(it, "known")) {
				buf_addstr(out, "<br>known failure: ", NULL);
				html(out, str(it, "known"));
			}
			if (*str(it, "unmet")) {
				buf_addstr(out, "<br><b>", NULL);
				html(out, str(it, "unmet"));
				buf_addstr(out, "</b>", NULL);
			}
			buf_addstr(out, "</td></tr>\n", NULL);
		}
	}
	buf_addstr(out, "</table>\n", NULL);
}

/* The details as JSON, without the rows diff_rows shows. */
static char *details_text(const json_t *details)
{
	json_t *copy = json_deep_copy(details);
	json_t *tables = json_object_get(copy, "tables");
	char *text;

	for (size_t i = 0; i < json_array_size(tables); i++) {
		json_object_del(json_array_get(tables, i), "rows");
		json_object_del(json_array_get(tables, i), "columns");
	}
	text = json_dumps(copy ? copy : details, JSON_INDENT(2) |
			  JSON_PRESERVE_ORDER);
	json_decref(copy);
	return text;
}

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

/*
 * The differing rows a consistency check kept (details.tables[].rows:
 * the first 100 of each table): the key, both sides' rows, the values
 * that differ marked, and the SQL that repairs the row downstream.
 */
static void diff_rows(struct buf *out, const json_t *details)
{
	static const char *const kinds[] = { "missing", "extra", "changed",
					     NULL };
	const json_t *tables = json_object_get(details, "tables");

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
		for (size_t r = 0; r < json_array_size(rows); r++) {
			const json_t *row = json_array_get(rows, r);
			const json_t *side[2] = { json_object_get(row, "up"),
						  json_object_get(row, "down") };

			for (int s = 0; s < 2; s++) {
				buf_addstr(out, "<tr class=\"diff-row\">", NULL);
				if (!s) {
					buf_addstr(out, "<td rowspan=\"2\">",
						   NULL);
					html(out, str(row, "key"));
					buf_addstr(out, "</td><td rowspan=\"2\">",
						   NULL);
					html(out, str(row, "kind"));
					buf_addstr(out, "</td>", NULL);
				}
				buf_addstr(out, s ? "<td>downstream</td>" :
					   "<td>upstream</td>", NULL);
				if (!json_is_array(side[s]))
					buf_printf(out, NULL, "<td colspan=\"%zu\" "
						   "class=\"d\"><i>no row</i>"
						   "</td>", json_array_size(cols));
				for (size_t c = 0; json_is_array(side[s]) &&
				     c < json_array_size(cols); c++) {
					const json_t *v = json_array_get(
						side[s], c);
					const json_t *o = json_array_get(
						side[!s], c);

					value_cell(out, v, !json_is_array(
						side[!s]) || !json_equal(v, o));
				}
				if (!s) {
					buf_addstr(out, "<td rowspan=\"2\"><code>",
						   NULL);
					html(out, str(row, "fix"));
					buf_addstr(out, "</code></td>", NULL);
				}
				buf_addstr(out, "</tr>\n", NULL);
			}
		}
		buf_addstr(out, "</table>\n", NULL);
	}
}

/* ---- the ids of a table an ids check failed on, over time ---- */

#define ID_NODES 8		/* servers drawn apart; the rest as one */
#define ID_BUCKETS 400		/* time buckets: each server's lowest and
				 * highest id in each */
#define ID_H 220

struct id_points {
	const char *table;
	char nodes[ID_NODES][64];
	size_t nnodes;
	/* Per server and bucket: its lowest and highest id; has: any. */
	int64_t lo[ID_NODES][ID_BUCKETS], hi[ID_NODES][ID_BUCKETS];
	char has[ID_NODES][ID_BUCKETS];
	double width;		/* seconds per bucket */
	int64_t min, max;
	double last;		/* the last insert's time, seconds */
};

static int id_point(const struct history_line *l, void *arg)
{
	struct id_points *c = arg;
	double at = (double)l->time / 1e9;
	size_t n, b;

	if (!l->has_id || strcmp(l->type, "ok") || !l->table ||
	    strcmp(l->table, c->table) || at < 0)
		return 0;
	for (n = 0; n < c->nnodes; n++)
		if (!strcmp(c->nodes[n], l->node ? l->node : "?"))
			break;
	if (n == c->nnodes && n < ID_NODES)
		snprintf(c->nodes[c->nnodes++], sizeof(c->nodes[0]), "%s",
			 n + 1 < ID_NODES ? (l->node ? l->node : "?")
					  : "other servers");
	if (n == ID_NODES)
		n = ID_NODES - 1;
	b = (size_t)(at / c->width);
	if (b >= ID_BUCKETS)
		b = ID_BUCKETS - 1;
	if (!c->has[n][b] || l->id < c->lo[n][b])
		c->lo[n][b] = l->id;
	if (!c->has[n][b] || l->id > c->hi[n][b])
		c->hi[n][b] = l->id;
	c->has[n][b] = 1;
	if (c->min > l->id)
		c->min = l->id;
	if (c->max < l->id)
		c->max = l->id;
	if (at > c->last)
		c->last = at;
	return 0;
}

/* The last insert's time into c->last (a run of unknown length). */
static int id_last(const struct history_line *l, void *arg)
{
	struct id_points *c = arg;
	double at = (double)l->time / 1e9;

	if (l->has_id && !strcmp(l->type, "ok") && l->table &&
	    !strcmp(l->table, c->table) && at > c->last)
		c->last = at;
	return 0;
}

static double id_y(const struct id_points *c, double id, int top)
{
	double span = c->max > c->min ? (double)(c->max - c->min) : 1;

	return top + 10 + (ID_H - 40) * (1 - (id - (double)c->min) / span);
}

/* A violating pair: a line from the earlier insert to the later one. */
static void id_pair(struct buf *out, const struct id_points *c,
		    const json_t *v, int secs, int top)
{
	const json_t *a = json_object_get(v, "a"), *b = json_object_get(v, "b");
	double ta = json_number_value(json_object_get(a, "complete"));
	double tb = json_number_value(json_object_get(b, "complete"));
	json_int_t ia = json_integer_value(json_object_get(a, "id"));
	json_int_t ib = json_integer_value(json_object_get(b, "id"));

	buf_printf(out, NULL, "<g class=\"viol\"><title>id %lld (", (long long)ib);
	html(out, str(b, "node"));
	buf_printf(out, NULL, ", %.3fs) after id %lld (", tb, (long long)ia);
	html(out, str(a, "node"));
	buf_printf(out, NULL, ", %.3fs)</title><line x1=\"%.1f\" y1=\"%.1f\" "
		   "x2=\"%.1f\" y2=\"%.1f\"/><circle cx=\"%.1f\" cy=\"%.1f\" "
		   "r=\"6\"/><circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\"/></g>\n",
		   ta, x_of(ta, secs), id_y(c, (double)ia, top), x_of(tb, secs),
		   id_y(c, (double)ib, top), x_of(ta, secs),
		   id_y(c, (double)ia, top), x_of(tb, secs),
		   id_y(c, (double)ib, top));
}

/*
 * The plot of one table: each server's ids over time (its lowest and
 * highest in each of ID_BUCKETS slices of the run), the pairs the check
 * found out of order joined and circled, the faults' windows shaded.
 */
static void id_plot(struct buf *out, const struct page *p,
		    const char *history, const char *table,
		    const json_t *first)
{
	static const char *const node_class[ID_NODES] = {
		"n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7",
	};
	struct id_points *c = xcalloc(1, sizeof(*c));
	struct legend l;
	struct buf body = BUF_INIT;
	int secs, top;

	memset(&l, 0, sizeof(l));
	c->table = table;
	c->min = INT64_MAX;
	c->max = INT64_MIN;
	/* The run's length; for a stored history without it, read first. */
	if (p->seconds <= 0)
		history_read(history, 0, id_last, c, NULL, NULL);
	secs = p->seconds > 0 ? p->seconds : (int)c->last + 1;
	c->width = (double)secs / ID_BUCKETS;
	history_read(history, 0, id_point, c, NULL, NULL);
	if (!c->nnodes) {
		free(c);
		return;
	}
	for (size_t n = 0; n < c->nnodes; n++)
		legend_add(&l, node_class[n], c->nodes[n], DOT);
	legend_add(&l, "viol", "out of order", LINE);
	legend_add(&l, "at-instant", "instant fault", LINE);
	legend_add(&l, "at-owner", "owner change", LINE);
	top = legend_svg(&body, &l);
	for (size_t i = 0; i < p->t.nw; i++) {
		const struct timeline_window *w = &p->t.w[i];
		double a = x_of(w->from, secs);
		double b = x_of(w->to >= 0 ? w->to : secs, secs);

		buf_printf(&body, NULL, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\""
			   " height=\"%d\" class=\"fault s-%s\"><title>", a,
			   top, b - a > 1 ? b - a : 1, ID_H - 30,
			   w->held->name);
		html(&body, w->what);
		span(&body, w);
		buf_addstr(&body, "</title></rect>\n", NULL);
	}
	/* Instant faults and owner changes: a line across the plot. */
	for (size_t i = 0; i < p->t.nm; i++) {
		const struct timeline_mark *m = &p->t.m[i];
		double x = x_of(m->at, secs);

		if (m->kind != MARK_FAULT && m->kind != MARK_OWNER)
			continue;
		buf_printf(&body, NULL, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
			   "y2=\"%d\" class=\"at-%s\"><title>%.3fs ", x, top, x,
			   top + ID_H - 20, mark_class[m->kind], m->at);
		html(&body, m->what);
		buf_addstr(&body, "</title></line>\n", NULL);
	}
	buf_printf(&body, NULL, "<g transform=\"translate(0,%d)\">\n", top);
	axis(&body, secs, ID_H - 20, NULL);
	buf_printf(&body, NULL, "<text x=\"4\" y=\"14\" class=\"tick\">id "
		   "%lld</text><text x=\"4\" y=\"%d\" class=\"tick\">id %lld"
		   "</text>\n</g>\n", (long long)c->max, ID_H - 34,
		   (long long)c->min);
	for (size_t n = 0; n < c->nnodes; n++)
		for (size_t b = 0; b < ID_BUCKETS; b++) {
			double x = x_of((b + 0.5) * c->width, secs);

			if (!c->has[n][b])
				continue;
			buf_printf(&body, NULL, "<circle cx=\"%.1f\" cy=\"%.1f\" "
				   "r=\"2\" class=\"%s\"/>", x,
				   id_y(c, (double)c->lo[n][b], top),
				   node_class[n]);
			if (c->hi[n][b] != c->lo[n][b])
				buf_printf(&body, NULL, "<circle cx=\"%.1f\" "
					   "cy=\"%.1f\" r=\"2\" class=\"%s\"/>",
					   x, id_y(c, (double)c->hi[n][b], top),
					   node_class[n]);
		}
	buf_addch(&body, '\n', NULL);
	for (size_t i = 0; i < json_array_size(first); i++)
		if (!strcmp(str(json_array_get(first, i), "table"), table))
			id_pair(&body, c, json_array_get(first, i), secs, top);
	buf_addstr(out, "<h4>", NULL);
	html(out, table);
	buf_printf(out, NULL, ": ids over time, per server</h4>\n<svg xmlns="
		   "\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "role=\"img\" class=\"idsplot\">\n%s</svg>\n", W,
		   top + ID_H, buf_str(&body));
	buf_release(&body);
	free(c);
}

/* Each table an ids check found out of order in, at most four. */
static void id_plots(struct buf *out, const struct page *p,
		     const char *history, const json_t *details)
{
	const json_t *first = json_object_get(details, "first");
	const char *done[4];
	size_t ndone = 0;

	for (size_t i = 0; i < json_array_size(first) && ndone < 4; i++) {
		const char *t = str(json_array_get(first, i), "table");
		size_t k;

		for (k = 0; k < ndone && strcmp(done[k], t); k++)
			;
		if (k < ndone || !*t)
			continue;
		done[ndone++] = t;
		id_plot(out, p, history, t, first);
	}
}

static void failures(struct buf *out, const struct page *p,
		     const char *history, const json_t *results)
{
	static const char *const sections[] = {
		"workloads", "faults", "checks", NULL,
	};
	int any = 0;

	for (int s = 0; sections[s]; s++) {
		const json_t *items = json_object_get(results, sections[s]);

		for (size_t i = 0; i < json_array_size(items); i++) {
			const json_t *it = json_array_get(items, i);
			const char *v = str(it, "verdict");
			char *details;

			if (strcmp(v, "fail") && strcmp(v, "unknown") &&
			    strcmp(v, "error"))
				continue;
			if (!any++)
				buf_addstr(out, "<h2>What failed</h2>\n", NULL);
			buf_addstr(out, "<h3>", NULL);
			html(out, str(it, "name"));
			buf_addstr(out, "</h3>\n<p>", NULL);
			html(out, str(it, "message"));
			buf_addstr(out, "</p>\n", NULL);
			diff_rows(out, json_object_get(it, "details"));
			if (!strcmp(str(it, "kind"), "ids"))
				id_plots(out, p, history,
					 json_object_get(it, "details"));
			details = details_text(json_object_get(it, "details"));
			if (details && strcmp(details, "{}")) {
				buf_addstr(out, "<pre>", NULL);
				html(out, details);
				buf_addstr(out, "</pre>\n", NULL);
			}
			free(details);
		}
	}
}

static void links(struct buf *out)
{
	buf_addstr(out, "<h2>Files</h2>\n<ul>\n"
		   "<li><a href=\"logs/\">logs/</a>: the components' logs "
		   "of the run</li>\n"
		   "<li><a href=\"fix-sql/\">fix-sql/</a>: SQL that repairs "
		   "the downstream, when tables differ</li>\n"
		   "<li><a href=\"history.jsonl\">history.jsonl</a>, "
		   "<a href=\"plan.json\">plan.json</a>, "
		   "<a href=\"results.json\">results.json</a></li>\n"
		   "</ul>\n", NULL);
}

/* Each looping workload's steps, from results.json. */
static void read_series(struct page *p, const json_t *results)
{
	const json_t *w = json_object_get(results, "workloads");

	p->s = xcalloc(json_array_size(w) + 1, sizeof(*p->s));
	for (size_t i = 0; i < json_array_size(w); i++) {
		const json_t *it = json_array_get(w, i);
		const json_t *ps = json_object_get(it, "per_step");
		struct series *s = &p->s[p->ns];

		if (!json_is_object(ps))
			continue;
		s->name = str(it, "name");
		s->ok = json_object_get(ps, "ok");
		s->errors = json_object_get(ps, "errors");
		s->p50 = json_object_get(ps, "p50_us");
		s->p99 = json_object_get(ps, "p99_us");
		s->step = (int)json_integer_value(json_object_get(ps,
								  "step_s"));
		if (s->step < 1)
			s->step = 1;
		p->ns++;
	}
}

/* The colours: of the states (lanes, shading), the marks, the lines;
 * each way of holding brings its own. */
static const char style[] =
	"<style>\nbody{font:14px/1.4 sans-serif;margin:2em;color:#222}\n"
	"table{border-collapse:collapse}\ntd,th{border:1px solid #ccc;"
	"padding:3px 8px;text-align:left}\n.v-pass{background:#dfd}"
	".v-fail,.v-unknown,.v-error{background:#fdd}.v-skip{background:"
	"#eee}.v-known{background:#fe9}\n.axis{stroke:#888}.tick{font-size:"
	"11px;fill:#555}.lane{font-size:11px;fill:#222}.more{font-size:11px;"
	"fill:#a00}.lane-sep{stroke:#eee}\n.fault{opacity:.25}";
/* ... each way of holding's .s-NAME{fill:COLOUR} (held_style), then: */
static const char style_rest[] = ".none{fill:"
	"#fff;stroke:#ccc}\n.ops{fill:none;stroke:#36c;stroke-width:1.5}"
	".errors{fill:none;stroke:#c00;stroke-width:1}.p50{fill:none;stroke:"
	"#393;stroke-width:1.5}.p99{fill:none;stroke:#c63;stroke-width:1.5}"
	"\n.ddl{fill:#1f77b4}.owner{fill:#8c564b}.instant{fill:#222}"
	".replica{fill:#e377c2}\npre{background:#f6f6f6;padding:8px;overflow:"
	"auto;max-height:30em}\ntd.d{background:#fdd}table.diff code{"
	"white-space:pre-wrap}\n.n0{fill:#1f77b4}.n1{fill:#2ca02c}.n2{fill:"
	"#9467bd}.n3{fill:#8c564b}.n4{fill:#e377c2}.n5{fill:#17becf}.n6{fill:"
	"#bcbd22}.n7{fill:#7f7f7f}.viol line,line.viol{stroke:#d00;stroke-"
	"width:2}.viol circle{fill:none;stroke:#d00;stroke-width:2}\n"
	".at-instant{stroke:#222;stroke-dasharray:3 3}.at-owner{stroke:"
	"#8c564b;stroke-dasharray:2 4}\n"
	"</style>";

/* The ways of holding of `run`, by rank, then timeline_other. */
static void ranked_holds(struct page *p, const struct report_run *run)
{
	for (size_t i = 0; run->holds && run->holds[i] &&
	     p->nholds < MAX_HOLDS - 1; i++) {
		size_t at = p->nholds++;

		while (at > 0 && p->holds[at - 1]->rank > run->holds[i]->rank) {
			p->holds[at] = p->holds[at - 1];
			at--;
		}
		p->holds[at] = run->holds[i];
	}
	p->holds[p->nholds++] = &timeline_other;
}

static void held_style(struct buf *out, const struct page *p,
		       struct err *e)
{
	for (size_t i = 0; i < p->nholds; i++)
		buf_printf(out, e, ".s-%s{fill:%s}", p->holds[i]->name,
			   p->holds[i]->colour);
}

/* "down, paused, cut off, degraded or had its clock skewed". */
static void held_prose(struct buf *out, const struct page *p,
		       struct err *e)
{
	size_t n = 0, said = 0;

	for (size_t i = 0; i < p->nholds; i++)
		n += p->holds[i]->prose != NULL;
	for (size_t i = 0; i < p->nholds; i++)
		if (p->holds[i]->prose) {
			buf_printf(out, e, "%s%s", !said ? ""
				   : said + 1 == n ? " or " : ", ",
				   p->holds[i]->prose);
			said++;
		}
}

static void head(struct buf *out, const struct page *p,
		 const json_t *results, struct err *e)
{
	buf_addstr(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
		   "charset=\"utf-8\"><title>tichaos: ", e);
	html(out, str(results, "suite"));
	buf_addstr(out, "</title>\n", e);
	buf_addstr(out, style, e);
	held_style(out, p, e);
	buf_addstr(out, style_rest, e);
	buf_addstr(out, "</head><body>\n<h1>", e);
	html(out, str(results, "suite"));
	buf_printf(out, e, ": <span class=\"v-%s\">%s</span></h1>\n<p>seed "
		   "%lld, duration %s, started %s, cluster ",
		   str(results, "verdict"), str(results, "verdict"),
		   (long long)json_integer_value(json_object_get(results,
								 "seed")),
		   str(results, "duration"), str(results, "started"));
	html(out, str(results, "cluster"));
	buf_addstr(out, "; replay: <code>tichaos replay ", e);
	html(out, str(results, "run_dir"));
	buf_addstr(out, "</code></p>\n", e);
	if (json_object_get(results, "aborted")) {
		buf_addstr(out, "<p>Aborted: ", e);
		html(out, str(results, "aborted"));
		buf_addstr(out, "</p>\n", e);
	}
	if (json_object_get(results, "skip")) {
		buf_addstr(out, "<p>Skipped: ", e);
		html(out, str(results, "skip"));
		buf_addstr(out, "</p>\n", e);
	}
	if (json_object_get(results, "fixed")) {
		buf_addstr(out, "<p>Fixed: ", e);
		html(out, str(results, "fixed"));
		buf_addstr(out, "</p>\n", e);
	}
}

static int build(const struct report_run *run, struct buf *out,
		 struct err *e)
{
	const json_t *results = run->results;
	struct page p;
	char path[4200];

	memset(&p, 0, sizeof(p));
	ranked_holds(&p, run);
	p.seconds = (int)(json_integer_value(json_object_get(results,
							      "duration_ns"))
			  / NS_PER_SEC);
	read_series(&p, results);
	snprintf(path, sizeof(path), "%s/history.jsonl", run->run_dir);
	timeline_read(&p.t, path, p.seconds, run->holds);
	head(out, &p, results, e);
	verdicts(out, results);
	buf_addstr(out, "<h2>Timeline</h2>\n<p>A lane for each component a "
		   "fault acted on, coloured while it was ", e);
	held_prose(out, &p, e);
	buf_addstr(out, " (states that "
		   "overlap stack); a lane for the other faults, one for "
		   "owner changes, one for the replica, one for each table "
		   "with DDL. Hover for details.</p>\n", e);
	timeline_svg(out, &p);
	for (size_t i = 0; i < p.ns; i++) {
		buf_addstr(out, "<h2>", e);
		html(out, p.s[i].name);
		buf_addstr(out, "</h2>\n", e);
		plot(out, &p, &p.s[i], 0);
		plot(out, &p, &p.s[i], 1);
	}
	failures(out, &p, path, results);
	links(out);
	buf_addstr(out, "</body></html>\n", e);
	free(p.s);
	timeline_release(&p.t);
	return err_isset(e) ? -1 : 0;
}

const struct report_type report_html = {
	"html", "report.html", "one self-contained page: verdicts, timeline, "
	"throughput and latency with fault windows", build,
};
