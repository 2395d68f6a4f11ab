/*
 * The events between two inserts: the monitor's records and the faults'
 * spans, with their text, and which of them meet a window
 * (checkers/idevents.h).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/idevents.h"
#include "lib/clock.h"

const char *ids_secs(char *out, size_t size, int64_t ns)
{
	uint64_t ms = ns < 0 ? (uint64_t)(-(ns / NS_PER_MS))
			     : (uint64_t)(ns / NS_PER_MS);

	snprintf(out, size, "%s%llu.%03llu", ns < 0 && ms ? "-" : "",
		 (unsigned long long)(ms / 1000),
		 (unsigned long long)(ms % 1000));
	return out;
}

/* Append " X" for a from/to member: a string, or null as "none". */
static void add_party(struct buf *b, const json_t *v)
{
	if (json_is_string(v))
		buf_printf(b, NULL, "%s", json_string_value(v));
	else
		buf_addstr(b, "none", NULL);
}

/* "<f> <target> <from> -> ... -> <to>" from a record and its value. */
static char *event_text(const struct history_line *r)
{
	struct buf b = BUF_INIT;
	json_t *v = NULL, *rounds;

	buf_addstr(&b, r->f, NULL);
	if (r->target)
		buf_printf(&b, NULL, " %s", r->target);
	if (r->value)
		v = json_loadb(r->value, r->value_len, JSON_DECODE_ANY |
			       JSON_ALLOW_NUL, NULL);
	if (json_array_size(json_object_get(v, "sides"))) {
		size_t i, j;
		json_t *side, *name;

		/* Who was on which side: " (a | b c)". */
		buf_addstr(&b, " (", NULL);
		json_array_foreach(json_object_get(v, "sides"), i, side) {
			buf_addstr(&b, i ? " | " : "", NULL);
			json_array_foreach(side, j, name)
				if (json_is_string(name))
					buf_printf(&b, NULL, "%s%s",
						   j ? " " : "",
						   json_string_value(name));
		}
		buf_addch(&b, ')', NULL);
	}
	rounds = json_object_get(v, "rounds");
	if (json_array_size(rounds) && json_object_get(
	    json_array_get(rounds, 0), "from")) {
		size_t i;
		json_t *round;

		buf_addch(&b, ' ', NULL);
		add_party(&b, json_object_get(json_array_get(rounds, 0),
					      "from"));
		json_array_foreach(rounds, i, round) {
			buf_addstr(&b, " -> ", NULL);
			add_party(&b, json_object_get(round, "to"));
		}
	} else if (json_object_get(v, "from") || json_object_get(v, "to")) {
		if (json_object_get(v, "from")) {
			buf_addch(&b, ' ', NULL);
			add_party(&b, json_object_get(v, "from"));
		}
		if (json_object_get(v, "to")) {
			buf_addstr(&b, json_object_get(v, "from") ? " -> "
								  : " to ",
				   NULL);
			add_party(&b, json_object_get(v, "to"));
		}
	}
	json_decref(v);
	return buf_detach(&b, NULL);
}

void idevents_add(struct idevents *evs, const struct history_line *r,
		  int64_t start, int fault)
{
	struct idevent *ev;

	if (evs->n == evs->cap) {
		evs->cap = evs->cap ? evs->cap * 2 : 32;
		evs->v = xrealloc(evs->v, evs->cap * sizeof(*evs->v));
	}
	ev = &evs->v[evs->n];
	ev->start = start;
	ev->end = r->time;
	ev->fault = fault;
	ev->unfinished = 0;
	ev->seq = evs->n;
	ev->text = event_text(r);
	evs->n++;
}

int idevents_span(const struct fault_span *s, size_t *tag, void *arg)
{
	struct idevents *evs = arg;
	struct history_line l;
	char *text;

	if (s->kind != FAULT_SPAN_IN_EFFECT) {
		l = *s->line;
		l.time = s->end;
		*tag = evs->n;
		idevents_add(evs, &l, s->start, 1);
		evs->v[evs->n - 1].unfinished =
			s->kind == FAULT_SPAN_UNFINISHED;
		return 0;
	}
	memset(&l, 0, sizeof(l));
	l.time = s->end;
	text = xprintf("%s in effect", evs->v[s->inject].text);
	l.f = text;
	idevents_add(evs, &l, s->start, 1);
	free(text);
	return 0;
}

static int cmp_event(const void *pa, const void *pb)
{
	const struct idevent *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void idevents_sort(struct idevents *evs)
{
	if (evs->n)
		qsort(evs->v, evs->n, sizeof(*evs->v), cmp_event);
	for (size_t i = 0; i < evs->n; i++)
		if (evs->v[i].end - evs->v[i].start > evs->max_span)
			evs->max_span = evs->v[i].end - evs->v[i].start;
}

/*
 * When an event is shown for the window [lo, hi]: a monitor record at its
 * time; a fault at its completion when that is inside the window, else
 * from its invoke.
 */
static int64_t shown_at(const struct idevent *ev, int64_t lo, int64_t hi)
{
	if (!ev->fault)
		return ev->end;
	if (!ev->unfinished && ev->end >= lo && ev->end <= hi)
		return ev->end;
	return ev->start;
}

void idevent_line(struct buf *out, const struct idevent *ev, int64_t lo,
		  int64_t hi)
{
	char a[32], b[32];

	if (ev->unfinished)
		buf_printf(out, NULL, "%s from %ss, unfinished", ev->text,
			   ids_secs(a, sizeof(a), ev->start));
	else if (shown_at(ev, lo, hi) == ev->end)
		buf_printf(out, NULL, "%s at %ss", ev->text,
			   ids_secs(a, sizeof(a), ev->end));
	else
		buf_printf(out, NULL, "%s from %ss to %ss", ev->text,
			   ids_secs(a, sizeof(a), ev->start),
			   ids_secs(b, sizeof(b), ev->end));
}

static int cmp_shown(const void *pa, const void *pb, void *arg)
{
	const struct idevent *a = *(const struct idevent *const *)pa;
	const struct idevent *b = *(const struct idevent *const *)pb;
	const struct idevents_window *w = arg;
	int64_t ta = shown_at(a, w->lo, w->hi), tb = shown_at(b, w->lo, w->hi);

	if (ta != tb)
		return ta < tb ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Events are sorted by start and none spans more than max_span. */
void idevents_between(const struct idevents *evs, int64_t lo, int64_t hi,
		      struct idevents_window *w)
{
	int64_t max_span = evs->max_span;
	int64_t from = lo < INT64_MIN + max_span ? INT64_MIN : lo - max_span;
	size_t l = 0, r = evs->n;

	w->lo = lo;
	w->hi = hi;
	w->n = w->all = 0;
	while (l < r) {
		size_t m = l + (r - l) / 2;

		if (evs->v[m].start < from)
			l = m + 1;
		else
			r = m;
	}
	for (; l < evs->n && evs->v[l].start <= hi; l++) {
		if (evs->v[l].end < lo)
			continue;
		if (w->all++ < IDEVENTS_SHOWN)
			w->ev[w->n++] = &evs->v[l];
	}
	qsort_r(w->ev, w->n, sizeof(*w->ev), cmp_shown, w);
}

void idevents_release(struct idevents *evs)
{
	for (size_t i = 0; i < evs->n; i++)
		free(evs->v[i].text);
	free(evs->v);
	memset(evs, 0, sizeof(*evs));
}
