#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "faultspan.h"

/* Fault items beyond this are no suite's: their spans are steps only. */
#define MAX_ITEMS 100000

void fault_spans_init(struct fault_spans *s, fault_span_fn fn, void *arg)
{
	memset(s, 0, sizeof(*s));
	s->fn = fn;
	s->arg = arg;
}

/* Hand `span` to the callback; a STEP's tag into *tag (MAY be NULL). */
static int emit(struct fault_spans *s, const struct fault_span *span,
		size_t *tag)
{
	size_t unused = 0;

	return s->fn(span, tag ? tag : &unused, s->arg);
}

/* The open invoke never completed: it may have lasted until `until`. */
static int unfinished(struct fault_spans *s, int64_t until)
{
	struct fault_span span = { FAULT_SPAN_UNFINISHED, s->invoke.time,
				   until, &s->invoke, 0, 0 };

	s->open = 0;
	return emit(s, &span, NULL);
}

static int in_effect(struct fault_spans *s, size_t at, int64_t until,
		     int healed)
{
	struct fault_span span = { FAULT_SPAN_IN_EFFECT, s->held[at].since,
				   until, NULL, s->held[at].tag, healed };

	s->held[at].open = 0;
	return emit(s, &span, NULL);
}

static struct fault_held_open *held_of(struct fault_spans *s, size_t at)
{
	if (at >= s->nheld) {
		s->held = xrealloc(s->held, (at + 1) * sizeof(*s->held));
		memset(s->held + s->nheld, 0,
		       (at + 1 - s->nheld) * sizeof(*s->held));
		s->nheld = at + 1;
	}
	return &s->held[at];
}

int fault_spans_line(struct fault_spans *s, const struct history_line *l)
{
	struct fault_span step = { FAULT_SPAN_STEP, 0, 0, NULL, 0, 0 };
	int64_t start = l->time;
	struct fault_held_open *h;
	size_t tag = 0;

	if (l->process != HISTORY_NEMESIS)
		return 0;
	if (!strcmp(l->type, "invoke")) {
		if (s->open && unfinished(s, l->time))
			return -1;
		s->open = 1;
		memset(&s->invoke, 0, sizeof(s->invoke));
		s->invoke.time = l->time;
		s->invoke.process = HISTORY_NEMESIS;
		s->invoke.type = "invoke";
		s->invoke.fault = l->fault;
		snprintf(s->f, sizeof(s->f), "%s", l->f);
		snprintf(s->target, sizeof(s->target), "%s",
			 l->target ? l->target : "");
		s->invoke.f = s->f;
		s->invoke.target = l->target ? s->target : NULL;
		return 0;
	}
	if (s->open && !strcmp(s->f, l->f))
		start = s->invoke.time;
	else if (s->open && unfinished(s, l->time))
		return -1;
	s->open = 0;
	if (strcmp(l->type, "info"))
		return 0;
	step.start = start;
	step.end = l->time;
	step.line = l;
	if (emit(s, &step, &tag))
		return -1;
	if (l->fault < 0 || l->fault >= MAX_ITEMS)
		return 0;
	h = held_of(s, (size_t)l->fault);
	if (l->heal) {
		if (h->open)
			return in_effect(s, (size_t)l->fault, l->time, 1);
	} else if (l->holds) {
		h->open = 1;
		h->since = l->time;
		h->tag = tag;
	}
	return 0;
}

int fault_spans_end(struct fault_spans *s, int64_t last)
{
	if (s->open && unfinished(s, last))
		return -1;
	for (size_t i = 0; i < s->nheld; i++)
		if (s->held[i].open && in_effect(s, i, last, 0))
			return -1;
	return 0;
}

void fault_spans_release(struct fault_spans *s)
{
	free(s->held);
	s->held = NULL;
	s->nheld = 0;
}
