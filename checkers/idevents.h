#ifndef TICHAOS_IDEVENTS_H
#define TICHAOS_IDEVENTS_H

/*
 * The events the ids check lists "between" the two inserts of a
 * violation (checkers/idevents.c): the monitor's records, at their
 * time, and the nemesis's faults as lib/faultspan.h reads them (a step
 * from its invoke to its completion, an invoke never completed, a time
 * in effect from the injection to its heal), each with its text:
 * "<f> <target>", who was on which side (" (a | b c)") and who it moved
 * from and to (" tidb-1 -> tidb-0"). Every event is kept (they are few).
 */

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"
#include "lib/faultspan.h"
#include "lib/history.h"

/* Events a window lists at the most. */
#define IDEVENTS_SHOWN 50

struct idevent {		/* a nemesis fault or monitor record */
	int64_t start, end;
	int fault;		/* nemesis: rendered as a span */
	int unfinished;
	size_t seq;		/* in the order added */
	char *text;
};

struct idevents {
	struct idevent *v;
	size_t n, cap;
	int64_t max_span;	/* idevents_sort: the longest event's */
};

/* The events that met a window [lo, hi] (idevents_between). */
struct idevents_window {
	int64_t lo, hi;
	const struct idevent *ev[IDEVENTS_SHOWN];
	size_t n;		/* in ev, in the order they are shown */
	size_t all;		/* that met the window */
};

/*
 * Record `r` as an event from `start` to its time; `fault`: a nemesis
 * fault, shown as a span. Its text is made from r's f, target and value.
 */
void idevents_add(struct idevents *evs, const struct history_line *r,
		  int64_t start, int fault);

/*
 * A fault_span_fn (lib/faultspan.h) with `arg` a struct idevents: each
 * span as an event; a time in effect as "<its injection's text> in
 * effect". Always 0.
 */
int idevents_span(const struct fault_span *s, size_t *tag, void *arg);

/* When every event is in: by start (then as added), and max_span. */
void idevents_sort(struct idevents *evs);

/*
 * After idevents_sort: into w, the events whose span meets [lo, hi],
 * the first IDEVENTS_SHOWN of them by start, in the order they are
 * shown (idevent_line's time, then as added). Borrowed from evs.
 */
void idevents_between(const struct idevents *evs, int64_t lo, int64_t hi,
		      struct idevents_window *w);

/*
 * Append to `out` how event `ev` is shown for the window [lo, hi]: "X at
 * 3.500s" (a monitor record, or a fault that completed in the window),
 * "X from 3.005s to 6.010s", "X from 3.005s, unfinished".
 */
void idevent_line(struct buf *out, const struct idevent *ev, int64_t lo,
		  int64_t hi);

void idevents_release(struct idevents *evs);

/*
 * A time in ns as the ids check writes it everywhere (its events, its
 * messages and details): seconds with three decimals, truncated to the
 * ms ("12.300", "-0.005"), in `out` of `size` bytes, which it returns.
 */
const char *ids_secs(char *out, size_t size, int64_t ns);

#endif
