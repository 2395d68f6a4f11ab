/*
 * The ids of a table an ids check failed on, over time (checkers/idplot.h):
 * the ids check's part of report.html.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/idjudge.h"
#include "checkers/idplot.h"
#include "lib/history.h"
#include "lib/svg.h"

#define html svg_text
#define str figure_str

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
	struct svg_scale sc;	/* the id axis */
};

/* The id insert `l` of c's table got (as the ids check reads an insert:
 * an ok one's, or one the primary key refused): 1 with *id. */
static int id_of(const struct id_points *c, const struct history_line *l,
		 int64_t *id)
{
	if (!l->table || strcmp(l->table, c->table))
		return 0;
	if (l->has_id && !strcmp(l->type, "ok")) {
		*id = l->id;
		return 1;
	}
	return !strcmp(l->type, "fail") && !l->ddl &&
	       idjudge_refused_id(l->error, id);
}

static int id_point(const struct history_line *l, void *arg)
{
	struct id_points *c = arg;
	double at = (double)l->time / 1e9;
	int64_t id;
	size_t n, b;

	if (!id_of(c, l, &id) || at < 0)
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
	if (!c->has[n][b] || id < c->lo[n][b])
		c->lo[n][b] = id;
	if (!c->has[n][b] || id > c->hi[n][b])
		c->hi[n][b] = id;
	c->has[n][b] = 1;
	if (c->min > id)
		c->min = id;
	if (c->max < id)
		c->max = id;
	if (at > c->last)
		c->last = at;
	return 0;
}

/* The last insert's time into c->last (a run of unknown length). */
static int id_last(const struct history_line *l, void *arg)
{
	struct id_points *c = arg;
	double at = (double)l->time / 1e9;
	int64_t id;

	if (id_of(c, l, &id) && at > c->last)
		c->last = at;
	return 0;
}

static double id_y(const struct id_points *c, double id)
{
	return svg_y(&c->sc, id);
}

/* A violating pair: a line from the earlier insert to the later one. */
static void id_pair(struct buf *out, const struct id_points *c,
		    const json_t *v, int secs)
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
		   ta, svg_x(ta, secs), id_y(c, (double)ia), svg_x(tb, secs),
		   id_y(c, (double)ib), svg_x(ta, secs),
		   id_y(c, (double)ia), svg_x(tb, secs),
		   id_y(c, (double)ib));
}

/* The x where the next window labelled on the row of window `i` (one of
 * three, by its index) starts; the plot's right end when none does. */
static double next_window(const struct figure *f, size_t i, int secs)
{
	double x = SVG_W - SVG_RIGHT;

	for (size_t j = i + 3; j < f->nw; j += 3)
		if (f->w[j].from >= f->w[i].from && svg_x(f->w[j].from, secs) < x)
			x = svg_x(f->w[j].from, secs);
	return x;
}

/*
 * The plot of one table: each server's ids over time (its lowest and
 * highest in each of ID_BUCKETS slices of the run) on an id axis with
 * its ticks, the pairs the check found out of order joined and circled,
 * the faults' windows shaded and named at their start, as the timeline
 * names them.
 */
static void id_plot(struct buf *out, const struct figure *f,
		    const char *table, const json_t *first)
{
	static const char *const node_class[ID_NODES] = {
		"n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7",
	};
	struct id_points *c = xcalloc(1, sizeof(*c));
	struct svg_legend l;
	struct buf body = BUF_INIT;
	int secs, top;

	memset(&l, 0, sizeof(l));
	c->table = table;
	c->min = INT64_MAX;
	c->max = INT64_MIN;
	/* The run's length; for a stored history without it, read first. */
	if (f->seconds <= 0)
		history_read(f->history, 0, id_last, c, NULL, NULL);
	secs = f->seconds > 0 ? f->seconds : (int)c->last + 1;
	c->width = (double)secs / ID_BUCKETS;
	history_read(f->history, 0, id_point, c, NULL, NULL);
	if (!c->nnodes) {
		free(c);
		return;
	}
	for (size_t n = 0; n < c->nnodes; n++)
		svg_legend_add(&l, node_class[n], c->nodes[n], SVG_DOT);
	svg_legend_add(&l, "viol", "out of order", SVG_LINE);
	svg_legend_add(&l, "at-instant", "instant fault", SVG_LINE);
	svg_legend_add(&l, "at-owner", "owner change", SVG_LINE);
	top = svg_legend(&body, &l);
	c->sc = svg_yrange(&body, top + 30, top + ID_H - 20, (double)c->min,
			   (double)c->max);
	for (size_t i = 0; i < f->nw; i++) {
		const struct figure_window *w = &f->w[i];
		double a = svg_x(w->from, secs);
		double b = svg_x(w->to >= 0 ? w->to : secs, secs);

		buf_printf(&body, NULL, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\""
			   " height=\"%d\" class=\"fault s-%s\"><title>", a,
			   top, b - a > 1 ? b - a : 1, ID_H - 20,
			   w->held);
		html(&body, w->what);
		svg_span(&body, w->from, w->to);
		buf_addstr(&body, "</title></rect>\n", NULL);
		svg_label(&body, a + 2, top + 9 + 10 * (int)(i % 3), w->what,
			  next_window(f, i, secs) - a - 4);
	}
	/* Instant faults and owner changes: a line across the plot; an
	 * instant fault named beside it (owner changes are many: on hover). */
	for (size_t i = 0, k = f->nw; i < f->nm; i++) {
		const struct figure_mark *m = &f->m[i];
		double x = svg_x(m->at, secs);

		if (strcmp(m->kind, "instant") && strcmp(m->kind, "owner"))
			continue;
		buf_printf(&body, NULL, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
			   "y2=\"%d\" class=\"at-%s\"><title>%.3fs ", x, top, x,
			   top + ID_H - 20, m->kind, m->at);
		html(&body, m->what);
		buf_addstr(&body, "</title></line>\n", NULL);
		if (!strcmp(m->kind, "instant"))
			svg_label(&body, x + 3, top + 9 + 10 * (int)(k++ % 3),
				  m->what, SVG_W - SVG_RIGHT - x - 3);
	}
	buf_printf(&body, NULL, "<g transform=\"translate(0,%d)\">\n", top);
	svg_axis(&body, secs, ID_H - 20, NULL);
	buf_addstr(&body, "<text x=\"4\" y=\"40\" class=\"tick\">id</text>\n"
		   "</g>\n", NULL);
	for (size_t n = 0; n < c->nnodes; n++)
		for (size_t b = 0; b < ID_BUCKETS; b++) {
			double x = svg_x((b + 0.5) * c->width, secs);

			if (!c->has[n][b])
				continue;
			buf_printf(&body, NULL, "<circle cx=\"%.1f\" cy=\"%.1f\" "
				   "r=\"2\" class=\"%s\"/>", x,
				   id_y(c, (double)c->lo[n][b]),
				   node_class[n]);
			if (c->hi[n][b] != c->lo[n][b])
				buf_printf(&body, NULL, "<circle cx=\"%.1f\" "
					   "cy=\"%.1f\" r=\"2\" class=\"%s\"/>",
					   x, id_y(c, (double)c->hi[n][b]),
					   node_class[n]);
		}
	buf_addch(&body, '\n', NULL);
	for (size_t i = 0; i < json_array_size(first); i++)
		if (!strcmp(str(json_array_get(first, i), "table"), table))
			id_pair(&body, c, json_array_get(first, i), secs);
	buf_addstr(out, "<h4>", NULL);
	html(out, table);
	buf_printf(out, NULL, ": ids over time, per server</h4>\n<svg xmlns="
		   "\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "role=\"img\" class=\"idsplot\">\n%s</svg>\n", SVG_W,
		   top + ID_H, buf_str(&body));
	buf_release(&body);
	free(c);
}

void ids_draw(const struct figure *f, const json_t *details, json_t *rest,
	      struct buf *out)
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
		id_plot(out, f, t, first);
	}
}

