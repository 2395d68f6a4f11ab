/*
 * The ids check's reorder window: lanes of dues merged through a heap
 * (checkers/idwindow.h).
 */
#include <stdlib.h>
#include <string.h>

#include "checkers/idwindow.h"
#include "lib/buf.h"

struct idwindow_lane {		/* one process's dues in time order: a ring */
	struct idwindow_due *v;
	size_t cap, head, n;
};

struct idwindow_ref {		/* a lane in the heap, with its first's time */
	int64_t time;
	uint32_t lane;
};

static int cmp_key(const struct idwindow_key *a, const struct idwindow_key *b)
{
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->invoke != b->invoke)
		return a->invoke < b->invoke ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

static int earlier(const struct idwindow *w, const struct idwindow_due *a,
		   const struct idwindow_due *b)
{
	struct idwindow_key ka, kb;

	if (a->time != b->time)
		return a->time < b->time;
	ka = w->key(a, w->arg);
	kb = w->key(b, w->arg);
	return cmp_key(&ka, &kb) < 0;
}

static int cmp_due(const void *pa, const void *pb, void *arg)
{
	const struct idwindow *w = arg;
	struct idwindow_key a = w->key(pa, w->arg), b = w->key(pb, w->arg);

	return cmp_key(&a, &b);
}

#define LANE(l, i) ((l)->v[((l)->head + (i)) & ((l)->cap - 1)])

/* Two lanes whose first dues are at one time: by the rest of the key. */
static int lane_tie(const struct idwindow *w, const struct idwindow_ref *a,
		    const struct idwindow_ref *b)
{
	return earlier(w, &LANE(&w->lanes[a->lane], 0),
		       &LANE(&w->lanes[b->lane], 0));
}

static int lane_before(const struct idwindow *w,
		       const struct idwindow_ref *a,
		       const struct idwindow_ref *b)
{
	return a->time != b->time ? a->time < b->time : lane_tie(w, a, b);
}

static void lane_up(struct idwindow *w, size_t i)
{
	struct idwindow_ref ref = w->heap[i], *h = w->heap;

	for (; i && lane_before(w, &ref, &h[(i - 1) / 2]); i = (i - 1) / 2)
		h[i] = h[(i - 1) / 2];
	h[i] = ref;
}

static void lane_down(struct idwindow *w, size_t i)
{
	struct idwindow_ref ref = w->heap[i], *h = w->heap;
	size_t n = w->nheap;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && lane_before(w, &h[c + 1], &h[c]))
			c++;
		if (!lane_before(w, &h[c], &ref))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = ref;
}

/* Where lane `lane` is in the heap (its first due just changed: rare). */
static size_t lane_at(const struct idwindow *w, uint32_t lane)
{
	size_t i = 0;

	while (w->heap[i].lane != lane)
		i++;
	return i;
}

static uint32_t lane_new(struct idwindow *w)
{
	if (w->nlanes == w->lanes_cap) {
		w->lanes_cap = w->lanes_cap ? w->lanes_cap * 2 : 16;
		w->lanes = xrealloc(w->lanes, w->lanes_cap *
				    sizeof(*w->lanes));
		w->heap = xrealloc(w->heap, w->lanes_cap * sizeof(*w->heap));
	}
	memset(&w->lanes[w->nlanes], 0, sizeof(w->lanes[0]));
	return (uint32_t)w->nlanes++;
}

static void lane_grow(struct idwindow_lane *l)
{
	size_t cap = l->cap ? l->cap * 2 : 16;
	struct idwindow_due *v = xmalloc(cap * sizeof(*v));

	for (size_t i = 0; i < l->n; i++)
		v[i] = LANE(l, i);
	free(l->v);
	l->v = v;
	l->cap = cap;
	l->head = 0;
}

/* Due `d` into its lane, by time: 1 when too far back. */
static int lane_add(struct idwindow *w, uint32_t lane, struct idwindow_due d)
{
	struct idwindow_lane *l = &w->lanes[lane];
	size_t i;

	for (i = l->n; i && earlier(w, &d, &LANE(l, i - 1)); i--)
		if (l->n - i == IDWINDOW_LANE_SLACK)
			return 1;
	if (l->n == l->cap)
		lane_grow(l);
	for (size_t k = l->n; k > i; k--)
		LANE(l, k) = LANE(l, k - 1);
	LANE(l, i) = d;
	w->held++;
	if (++l->n == 1) {
		w->heap[w->nheap] = (struct idwindow_ref){ d.time, lane };
		lane_up(w, w->nheap++);
	} else if (!i) {
		size_t at = lane_at(w, lane);

		w->heap[at].time = d.time;
		lane_up(w, at);
	}
	return 0;
}

/* The earliest due of the window, out of it. */
static struct idwindow_due lane_next(struct idwindow *w)
{
	struct idwindow_lane *l = &w->lanes[w->heap[0].lane];
	struct idwindow_due d = LANE(l, 0);

	l->head = (l->head + 1) & (l->cap - 1);
	w->held--;
	if (--l->n) {
		w->heap[0].time = LANE(l, 0).time;
		lane_down(w, 0);
		return d;
	}
	if (l->cap > 1024) {
		free(l->v);
		l->v = NULL;
		l->cap = l->head = 0;
	}
	if (--w->nheap) {
		w->heap[0] = w->heap[w->nheap];
		lane_down(w, 0);
	}
	return d;
}

static void let_out(struct idwindow *w, struct idwindow_due d)
{
	w->last_out = d;
	w->let_out_any = 1;
	w->out(d, w->arg);
}

void idwindow_init(struct idwindow *w, size_t window, idwindow_key_fn key,
		   idwindow_out_fn out, void *arg)
{
	memset(w, 0, sizeof(*w));
	w->window = window;
	w->key = key;
	w->out = out;
	w->arg = arg;
}

int idwindow_add(struct idwindow *w, uint32_t *lane, struct idwindow_due d,
		 const char **why)
{
	if (w->window == SIZE_MAX) {
		if (w->nall == w->all_cap) {
			w->all_cap = w->all_cap ? w->all_cap * 2 : 1024;
			w->all = xrealloc(w->all, w->all_cap *
					  sizeof(*w->all));
		}
		w->all[w->nall++] = d;
		return 0;
	}
	if (w->let_out_any && d.time <= w->last_out.time) {
		if (earlier(w, &d, &w->last_out)) {
			*why = "came after the reorder window had let out a "
			       "later one";
			return 1;
		}
	}
	if (*lane == IDWINDOW_NO_LANE)
		*lane = lane_new(w);
	if (lane_add(w, *lane, d)) {
		*why = "is out of its process's time order";
		return 1;
	}
	while (w->held > w->window)
		let_out(w, lane_next(w));
	return 0;
}

void idwindow_drain(struct idwindow *w)
{
	while (w->nheap)
		let_out(w, lane_next(w));
	if (w->nall)
		qsort_r(w->all, w->nall, sizeof(*w->all), cmp_due, w);
	for (size_t i = 0; i < w->nall; i++)
		let_out(w, w->all[i]);
	w->nall = 0;
}

void idwindow_release(struct idwindow *w)
{
	for (size_t i = 0; i < w->nlanes; i++)
		free(w->lanes[i].v);
	free(w->lanes);
	free(w->heap);
	free(w->all);
	memset(w, 0, sizeof(*w));
}
