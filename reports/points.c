/*
 * A workload's operations one by one, from history.jsonl (reports/
 * points.h): each worker process's invoke, then its completion.
 */
#include "reports/points.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/history.h"

struct reading {
	struct op_points *w;
	size_t n;
	int64_t *invoked;	/* by process, -1: none open */
	int64_t processes;
};

static struct op_points *owner(struct reading *r, int64_t process)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->w[i].first <= process && process <= r->w[i].last)
			return &r->w[i];
	return NULL;
}

static void add(struct op_points *w, const struct history_line *l,
		int64_t from)
{
	struct op_point *p;
	struct buf what = BUF_INIT;

	if (w->n == POINTS_MAX) {
		w->left_out++;
		return;
	}
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 64;
		w->v = xrealloc(w->v, w->cap * sizeof(*w->v));
	}
	p = &w->v[w->n++];
	p->at = (double)l->time / 1e9;
	p->ms = (double)(l->time - from) / 1e6;
	p->type = l->type[0] == 'o' ? 'o' : l->type[0] == 'f' ? 'f' : 'i';
	buf_printf(&what, NULL, "%s%s%s: %s, %.1f ms at %.3fs", l->f,
		   l->table ? " " : "", l->table ? l->table : "", l->type,
		   p->ms, p->at);
	if (l->error)
		buf_printf(&what, NULL, ": %s", l->error);
	p->what = buf_detach(&what, NULL);
}

static int line(const struct history_line *l, void *arg)
{
	struct reading *r = arg;
	struct op_points *w;

	if (l->process < 0 || l->process >= r->processes ||
	    !(w = owner(r, l->process)))
		return 0;
	if (!strcmp(l->type, "invoke"))
		r->invoked[l->process] = l->time;
	else if (r->invoked[l->process] >= 0) {
		add(w, l, r->invoked[l->process]);
		r->invoked[l->process] = -1;
	}
	return 0;
}

void points_read(struct op_points *w, size_t n, const char *path)
{
	struct reading r = { w, n, NULL, 0 };

	for (size_t i = 0; i < n; i++)
		if (w[i].last + 1 > r.processes)
			r.processes = w[i].last + 1;
	if (!n || r.processes <= 0)
		return;
	r.invoked = xcalloc((size_t)r.processes, sizeof(*r.invoked));
	for (int64_t k = 0; k < r.processes; k++)
		r.invoked[k] = -1;
	history_read(path, 0, line, &r, NULL, NULL);
	free(r.invoked);
}

void points_release(struct op_points *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < w[i].n; k++)
			free(w[i].v[k].what);
		free(w[i].v);
	}
}
