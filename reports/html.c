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

#include "core/figure.h"
#include "lib/clock.h"
#include "lib/history.h"
#include "lib/svg.h"
#include "reports/points.h"
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
	/* Under POINTS_RATE operations a second: drawn as points. */
	int low_rate;
};

/* A workload slower than this a second on average is drawn operation by
 * operation: its rates a second would be a square wave of 0 and 1. */
#define POINTS_RATE 5

/* Ways of holding a page knows at most (the kinds' and the other). */
#define MAX_HOLDS 32

struct page {
	struct timeline t;
	/* The ways of holding, by rank: the kinds' (struct report_run),
	 * then timeline_other; each drawn in class s-NAME. */
	const struct fault_holds *holds[MAX_HOLDS];
	size_t nholds;
	struct series *s;
	struct op_points *pts;	/* per series; read for the low_rate */
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
	svg_text(out, s);
}

#define H 160

/* A way of holding in the legend, as SVG_AREA, in its class s-NAME. */
static void legend_held(struct svg_legend *l, const struct fault_holds *h)
{
	char *cls = l->own_cls[l->n];

	snprintf(cls, sizeof(l->own_cls[0]), "s-%s", h->name);
	svg_legend_add(l, cls, h->label, SVG_AREA);
}

/* "; NOTE" when the window has one. */
static void note(struct buf *out, const struct timeline_window *w)
{
	if (!w->note)
		return;
	buf_addstr(out, "; ", NULL);
	html(out, w->note);
}

/* The x where the next window labelled on the row of window `i` (one of
 * three, by its index) starts; the plot's right end when none does. */
static double next_start(const struct page *p, size_t i)
{
	double from = p->t.w[i].from, x = SVG_W - SVG_RIGHT;

	for (size_t j = i + 3; j < p->t.nw; j += 3)
		if (p->t.w[j].from >= from &&
		    svg_x(p->t.w[j].from, p->seconds) < x)
			x = svg_x(p->t.w[j].from, p->seconds);
	return x;
}

/* The fault windows, shaded over a plot from y 10 to `bottom`. */
static void shade(struct buf *out, const struct page *p, int bottom)
{
	for (size_t i = 0; i < p->t.nw; i++) {
		const struct timeline_window *w = &p->t.w[i];
		double a = svg_x(w->from, p->seconds);
		double b = svg_x(w->to >= 0 ? w->to : p->t.end, p->seconds);

		buf_printf(out, NULL, "<rect x=\"%.1f\" y=\"10\" width=\"%.1f\" "
			   "height=\"%d\" class=\"fault s-%s\"><title>", a,
			   b - a > 1 ? b - a : 1, bottom - 10,
			   w->held->name);
		html(out, w->what);
		svg_span(out, w->from, w->to);
		note(out, w);
		buf_addstr(out, "</title></rect>\n", NULL);
		svg_label(out, a + 2, 20 + 10 * (int)(i % 3), w->what,
		      next_start(p, i) - a - 4);
	}
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
	struct svg_legend l;

	memset(&l, 0, sizeof(l));
	svg_legend_add(&l, latency ? "p50" : "ops", latency ? "p50" : "ok",
		       SVG_LINE);
	svg_legend_add(&l, latency ? "p99" : "errors",
		       latency ? "p99" : "errors", SVG_LINE);
	for (size_t k = 0; k < p->nholds; k++)
		for (size_t i = 0; i < p->t.nw; i++)
			if (p->t.w[i].held == p->holds[k]) {
				legend_held(&l, p->holds[k]);
				break;
			}
	return svg_legend(out, &l);
}

static void plot(struct buf *out, const struct page *p,
		 const struct series *s, int latency)
{
	struct buf body = BUF_INIT;
	struct svg_scale sc;
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
	svg_axis(&body, p->seconds, H - 20, latency ? "latency ms (p50, p99)"
		   : "operations per second (ok, errors)");
	sc = svg_yaxis(&body, 20, H - 20, max, 0);
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
				   svg_x(sec + 0.5, p->seconds),
				   svg_y(&sc, value(s, a, sec, latency)));
		buf_addstr(&body, "\"/>\n", NULL);
	}
	buf_addstr(&body, "</g>\n", NULL);
	buf_printf(out, NULL, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
		   "width=\"%d\" height=\"%d\" role=\"img\">\n%s</svg>\n", SVG_W,
		   top + H, buf_str(&body));
	buf_release(&body);
}

/* What the outcome of a point is drawn in, and said in its legend. */
static const char *const point_class[3] = { "pt-ok", "pt-fail", "pt-info" };
static const char *const point_label[3] = { "ok", "fail", "info" };

static int point_kind(char type)
{
	return type == 'o' ? 0 : type == 'f' ? 1 : 2;
}

/*
 * A workload drawn operation by operation (Jepsen's latency-point plot):
 * each completion at its time and its latency (ms, a log scale), in the
 * colour of its outcome, the fault windows shaded and labelled.
 */
static void points_plot(struct buf *out, const struct page *p,
			const struct op_points *w)
{
	struct buf body = BUF_INIT;
	struct svg_legend l;
	struct svg_scale sc;
	double max = 0;
	int top, seen[3] = { 0 };

	memset(&l, 0, sizeof(l));
	for (size_t i = 0; i < w->n; i++) {
		seen[point_kind(w->v[i].type)] = 1;
		if (w->v[i].ms > max)
			max = w->v[i].ms;
	}
	for (int k = 0; k < 3; k++)
		if (seen[k])
			svg_legend_add(&l, point_class[k], point_label[k],
				       SVG_DOT);
	for (size_t k = 0; k < p->nholds; k++)
		for (size_t i = 0; i < p->t.nw; i++)
			if (p->t.w[i].held == p->holds[k]) {
				legend_held(&l, p->holds[k]);
				break;
			}
	if (!l.n)
		svg_legend_add(&l, "none", "no operation completed",
			       SVG_AREA);
	top = svg_legend(&body, &l);
	buf_printf(&body, NULL, "<g transform=\"translate(0,%d)\">\n", top);
	shade(&body, p, H - 20);
	svg_axis(&body, p->seconds, H - 20, w->left_out ? "latency ms of each "
		 "operation (the first 20000)" : "latency ms of each operation");
	sc = svg_yaxis(&body, 20, H - 20, max, 1);
	for (size_t i = 0; i < w->n; i++) {
		buf_printf(&body, NULL, "<circle cx=\"%.1f\" cy=\"%.1f\" "
			   "r=\"2.5\" class=\"%s\"><title>",
			   svg_x(w->v[i].at, p->seconds),
			   svg_y(&sc, w->v[i].ms),
			   point_class[point_kind(w->v[i].type)]);
		html(&body, w->v[i].what);
		buf_addstr(&body, "</title></circle>\n", NULL);
	}
	buf_addstr(&body, "</g>\n", NULL);
	buf_printf(out, NULL, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
		   "width=\"%d\" height=\"%d\" role=\"img\">\n%s</svg>\n", SVG_W,
		   top + H, buf_str(&body));
	buf_release(&body);
}

#define ROW 20			/* a row of segments in a lane: label, bar */
#define BAR 8

/* A lane's name at the left of its lane (cut, whole in its title). */
static void lane_name(struct buf *out, const char *name, int y)
{
	buf_printf(out, NULL, "<text x=\"%d\" y=\"%d\" class=\"lane\" "
		   "text-anchor=\"end\">", SVG_LEFT - 6, y);
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

/* The x where the next segment of the lane and row of `s` starts; the
 * timeline's right end when none does. */
static double next_on_row(const struct page *p,
			  const struct timeline_segment *s)
{
	double from = p->t.w[s->window].from, x = SVG_W - SVG_RIGHT;

	for (size_t k = 0; k < p->t.nseg; k++) {
		const struct timeline_segment *o = &p->t.seg[k];
		double at = p->t.w[o->window].from;

		if (o != s && o->lane == s->lane && o->row == s->row &&
		    at > from && svg_x(at, p->seconds) < x)
			x = svg_x(at, p->seconds);
	}
	return x;
}

/* Where mark `m` comes among the instant faults of its lane, in time. */
static size_t fault_rank(const struct page *p, const struct timeline_mark *m)
{
	size_t rank = 0;

	for (size_t k = 0; k < p->t.nm; k++) {
		const struct timeline_mark *o = &p->t.m[k];

		rank += o->lane == m->lane && o->kind == MARK_FAULT &&
			(o->at < m->at || (o->at == m->at && o < m));
	}
	return rank;
}

/* The x of the instant fault two after mark `m` on its lane (labels
 * alternate above and below the dots); the right end when none is. */
static double next_mark(const struct page *p, const struct timeline_mark *m)
{
	size_t rank = fault_rank(p, m);
	double x = SVG_W - SVG_RIGHT;

	for (size_t k = 0; k < p->t.nm; k++) {
		const struct timeline_mark *o = &p->t.m[k];

		if (o->lane == m->lane && o->kind == MARK_FAULT &&
		    fault_rank(p, o) == rank + 2)
			x = svg_x(o->at, p->seconds);
	}
	return x;
}

static void segment_svg(struct buf *out, const struct page *p,
			const struct timeline_segment *s, int y)
{
	const struct timeline_window *w = &p->t.w[s->window];
	const struct timeline_lane *lane = &p->t.lanes[s->lane];
	double a = svg_x(w->from, p->seconds);
	double b = svg_x(w->to >= 0 ? w->to : p->t.end, p->seconds);

	buf_printf(out, NULL, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
		   "height=\"%d\" class=\"seg s-%s\"><title>", a,
		   y + 3 + s->row * ROW + ROW - BAR - 2, b - a > 1 ? b - a : 1,
		   BAR, w->held->name);
	if (lane->group == LANE_COMPONENT) {
		html(out, lane->name);
		buf_addstr(out, ": ", NULL);
		html(out, s->what);
		svg_span(out, w->from, w->to);
		buf_addstr(out, " (", NULL);
		html(out, w->what);
		note(out, w);
		buf_addch(out, ')', NULL);
	} else {
		html(out, w->what);
		svg_span(out, w->from, w->to);
		note(out, w);
	}
	buf_addstr(out, "</title></rect>\n", NULL);
	/* The fault, kind and target, over its bar. */
	svg_label(out, a, y + 3 + s->row * ROW + 9, w->what,
	      next_on_row(p, s) - a - 4);
}

/* Lane `i` from `y`, its segments stacked in rows, its marks; its height. */
static int lane_svg(struct buf *out, const struct page *p, size_t i, int y)
{
	const struct timeline_lane *lane = &p->t.lanes[i];
	int height = lane->rows * ROW + 6, band = 0;

	/* Instant faults get a band of their own under the segments, their
	 * labels alternating above and below their dots. */
	for (size_t k = 0; k < p->t.nm && !band; k++)
		band = p->t.m[k].lane == i && p->t.m[k].kind == MARK_FAULT ?
		       26 : 0;
	if (band && !lane->nsegments)
		height = 0;
	lane_name(out, lane->name, y + (height + band) / 2 + 4);
	for (size_t k = 0; k < p->t.nseg; k++)
		if (p->t.seg[k].lane == i)
			segment_svg(out, p, &p->t.seg[k], y);
	for (size_t k = 0; k < p->t.nm; k++) {
		const struct timeline_mark *m = &p->t.m[k];
		int cy = m->kind == MARK_FAULT ? y + height + band / 2
			 : y + height / 2;

		if (m->lane != i)
			continue;
		buf_printf(out, NULL, "<circle cx=\"%.1f\" cy=\"%d\" r=\"3\" "
			   "class=\"%s\"><title>%.3fs ",
			   svg_x(m->at, p->seconds), cy, mark_class[m->kind],
			   m->at);
		html(out, m->what);
		buf_addstr(out, "</title></circle>\n", NULL);
		/* An instant fault, kind and target, beside its dot. */
		if (m->kind == MARK_FAULT)
			svg_label(out, svg_x(m->at, p->seconds) + 5,
			      cy + (fault_rank(p, m) % 2 ? 11 : -3), m->what,
			      next_mark(p, m) - svg_x(m->at, p->seconds) - 9);
	}
	height += band;
	buf_printf(out, NULL, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		   "class=\"lane-sep\"/>\n", SVG_LEFT, y + height, SVG_W - SVG_RIGHT,
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
			   "<title>", SVG_LEFT, *y + 12);
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
	struct svg_legend l;
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
			svg_legend_add(&l, mark_class[k], mark_label[k],
				       SVG_DOT);
	if (!l.n)
		svg_legend_add(&l, "none", "no fault, owner change or DDL",
			       SVG_AREA);
	return svg_legend(out, &l);
}

static void timeline_svg(struct buf *out, const struct page *p)
{
	struct buf body = BUF_INIT;
	int y = timeline_legend(&body, p);

	for (size_t i = 0; i < p->t.nlanes;)
		i = group_svg(&body, p, i, &y);
	svg_axis(&body, p->seconds, y + 4, NULL);
	buf_printf(out, NULL, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
		   "width=\"%d\" height=\"%d\" role=\"img\">\n%s</svg>\n", SVG_W,
		   y + 26, buf_str(&body));
	buf_release(&body);
}

#define str report_str

/* The other verdicts of a check (results_rechecks_text), a line each. */
static void rechecks_html(struct buf *out, const json_t *it)
{
	struct buf lines = BUF_INIT;
	const char *p, *nl;

	results_rechecks_text(it, "", "\n", &lines);
	for (p = buf_str(&lines); (nl = strchr(p, '\n')); p = nl + 1) {
		struct buf one = BUF_INIT;

		buf_add(&one, p, nl - p, NULL);
		buf_addstr(out, "<br><i>", NULL);
		html(out, buf_str(&one));
		buf_addstr(out, "</i>", NULL);
		buf_release(&one);
	}
	buf_release(&lines);
}

static void verdicts(struct buf *out, const json_t *results)
{
	buf_addstr(out, "<table><tr><th>what</th><th>verdict</th>"
		   "<th>summary</th></tr>\n", NULL);
	for (int s = 0; results_sections[s]; s++) {
		const json_t *items = json_object_get(results,
						      results_sections[s]);

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
			rechecks_html(out, it);
			buf_addstr(out, "</td></tr>\n", NULL);
		}
	}
	buf_addstr(out, "</table>\n", NULL);
}

/* The drawer of a check kind, NULL when it draws nothing. */
static figure_draw *drawer_of(const struct report_run *run, const char *kind)
{
	for (const struct figure_drawer *d = run->drawers; d && d->kind; d++)
		if (!strcmp(d->kind, kind))
			return d->draw;
	return NULL;
}

/*
 * What the page's timeline read, as the check kinds draw on it
 * (core/figure.h); its arrays are `fig`'s to free.
 */
static void figure_of(struct figure *fig, const struct page *p,
		      const char *history)
{
	struct figure_window *w = xcalloc(p->t.nw + 1, sizeof(*w));
	struct figure_mark *m = xcalloc(p->t.nm + 1, sizeof(*m));

	for (size_t i = 0; i < p->t.nw; i++)
		w[i] = (struct figure_window){ p->t.w[i].from, p->t.w[i].to,
					       p->t.w[i].held->name,
					       p->t.w[i].what };
	for (size_t i = 0; i < p->t.nm; i++)
		m[i] = (struct figure_mark){ p->t.m[i].at,
					     mark_class[p->t.m[i].kind],
					     p->t.m[i].what };
	*fig = (struct figure){ history, p->seconds, w, p->t.nw, m, p->t.nm };
}

/*
 * Each item that failed: its message, what its check kind draws of its
 * details, and the rest of them as JSON.
 */
static void failures(struct buf *out, const struct page *p,
		     const struct report_run *run, const char *history)
{
	struct figure fig;
	int any = 0;

	figure_of(&fig, p, history);
	for (int s = 0; results_sections[s]; s++) {
		const json_t *items = json_object_get(run->results,
						      results_sections[s]);

		for (size_t i = 0; i < json_array_size(items); i++) {
			const json_t *it = json_array_get(items, i);
			const json_t *details = json_object_get(it, "details");
			const char *v = str(it, "verdict");
			figure_draw *draw = NULL;
			json_t *rest;
			char *text;

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
			/* Only checks draw: a workload may share a kind's
			 * name ("bank"). */
			if (!strcmp(results_sections[s], "checks"))
				draw = drawer_of(run, str(it, "kind"));
			rest = json_deep_copy(details);
			if (draw && rest)
				draw(&fig, details, rest, out);
			text = json_dumps(rest ? rest : details, JSON_INDENT(2) |
					  JSON_PRESERVE_ORDER);
			if (text && strcmp(text, "{}")) {
				buf_addstr(out, "<pre>", NULL);
				html(out, text);
				buf_addstr(out, "</pre>\n", NULL);
			}
			free(text);
			json_decref(rest);
		}
	}
	free((void *)fig.w);
	free((void *)fig.m);
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

/*
 * Whether workload item `it` went slower than POINTS_RATE operations a
 * second: then its processes go in `pts`, to be read one by one; else
 * `pts` names none.
 */
static void low_rate(const struct page *p, struct series *s,
		     const json_t *it, struct op_points *pts)
{
	static const char *const counts[] = { "ok", "fail", "info",
					      "refused" };
	const json_t *procs = json_object_get(it, "processes");
	json_int_t ops = 0;

	for (size_t k = 0; k < sizeof(counts) / sizeof(*counts); k++)
		ops += json_integer_value(json_object_get(it, counts[k]));
	pts->first = pts->last = -1;
	if (!json_is_array(procs) || p->seconds < 1 ||
	    ops >= (json_int_t)POINTS_RATE * p->seconds)
		return;
	s->low_rate = 1;
	pts->first = json_integer_value(json_array_get(procs, 0));
	pts->last = json_integer_value(json_array_get(procs, 1));
}

/* Each looping workload's steps, from results.json. */
static void read_series(struct page *p, const json_t *results)
{
	const json_t *w = json_object_get(results, "workloads");

	p->s = xcalloc(json_array_size(w) + 1, sizeof(*p->s));
	p->pts = xcalloc(json_array_size(w) + 1, sizeof(*p->pts));
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
		low_rate(p, s, it, &p->pts[p->ns]);
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
	"#8c564b;stroke-dasharray:2 4}\n.flabel{font-size:10px;fill:#333}"
	".pt-ok{fill:#36c}.pt-fail{fill:#d62728}.pt-info{fill:#ff7f0e}\n"
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
	for (size_t i = 0; i < p.ns; i++)
		if (p.s[i].low_rate) {
			points_read(p.pts, p.ns, path);
			break;
		}
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
		if (p.s[i].low_rate) {
			points_plot(out, &p, &p.pts[i]);
			continue;
		}
		plot(out, &p, &p.s[i], 0);
		plot(out, &p, &p.s[i], 1);
	}
	failures(out, &p, run, path);
	links(out);
	buf_addstr(out, "</body></html>\n", e);
	points_release(p.pts, p.ns);
	free(p.pts);
	free(p.s);
	timeline_release(&p.t);
	return err_isset(e) ? -1 : 0;
}

const struct report_type report_html = {
	"html", "report.html", "one self-contained page: verdicts, timeline, "
	"throughput and latency with fault windows", build,
};
