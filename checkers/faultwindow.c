/*
 * The faults of a run as windows in time (checkers/faultwindow.h): the
 * spans of lib/faultspan.c kept with their names, sorted once the
 * history is read, and named around a time a check points at.
 */
#include <stdio.h>
#include <stdlib.h>

#include "checkers/faultwindow.h"
#include "lib/clock.h"
#include "lib/history.h"

#define MAX_BETWEEN 20	/* faults named per violation */

static const char *secs(char *out, size_t size, int64_t ns)
{
	snprintf(out, size, "%lld.%03lld", (long long)(ns / NS_PER_SEC),
		 (long long)(ns % NS_PER_SEC / NS_PER_MS));
	return out;
}

static void add(struct fault_windows *w, int64_t start, int64_t end,
		char *text)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 16;
		w->v = xrealloc(w->v, w->cap * sizeof(*w->v));
	}
	w->v[w->n].start = start;
	w->v[w->n].end = end;
	w->v[w->n++].text = text;
}

int fault_windows_span(const struct fault_span *s, size_t *tag, void *arg)
{
	struct fault_windows *w = arg;
	const struct history_line *l = s->line;

	if (s->kind == FAULT_SPAN_STEP) {
		*tag = w->n;
		add(w, s->start, s->end, xprintf("%s%s%s", l->f,
		    l->target ? " " : "", l->target ? l->target : ""));
	} else if (s->kind == FAULT_SPAN_IN_EFFECT) {
		add(w, s->start, s->end, xprintf("%s in effect",
		    w->v[s->inject].text));
	}
	return 0;
}

/* Windows by start, then end. */
static int by_start(const void *pa, const void *pb)
{
	const struct fault_window *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->end > b->end) - (a->end < b->end);
}

void fault_windows_sort(struct fault_windows *w)
{
	if (w->n)		/* no NULL to qsort (UBSan) */
		qsort(w->v, w->n, sizeof(*w->v), by_start);
}

void fault_windows_between(const struct fault_windows *w, int64_t lo,
			   int64_t hi, struct buf *text, struct buf *json)
{
	size_t n = 0;
	char s[32], t[32];

	buf_addch(json, '[', NULL);
	for (size_t i = 0; i < w->n && n < MAX_BETWEEN; i++) {
		const struct fault_window *f = &w->v[i];
		char *one;

		if (f->end < lo || f->start > hi)
			continue;
		one = f->start == f->end ? xprintf("%s at %ss", f->text,
						   secs(s, sizeof(s), f->end))
			: xprintf("%s from %ss to %ss", f->text,
				  secs(s, sizeof(s), f->start),
				  secs(t, sizeof(t), f->end));
		buf_addstr(text, n ? ", " : "; between: ", NULL);
		buf_addstr(text, one, NULL);
		buf_addstr(json, n ? "," : "", NULL);
		json_quote(json, one, NULL);
		free(one);
		n++;
	}
	buf_addch(json, ']', NULL);
}

void fault_windows_release(struct fault_windows *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i].text);
	free(w->v);
	w->v = NULL;
	w->n = w->cap = 0;
}
