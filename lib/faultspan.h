#ifndef TICHAOS_FAULTSPAN_H
#define TICHAOS_FAULTSPAN_H

/*
 * The faults of a run in time, read from its history's nemesis records
 * (docs/internals.md, History) for every reader that places them (the ids
 * and bank checks): each step that took effect, from its invoke to its
 * completion; an invoke whose completion never came; and each fault's
 * time in effect, from its injection's completion (marked "holds") to its
 * heal (marked "heal": true) or the history's end. The marks are the
 * runner's (faults/fault.c), so no reader needs to know the fault kinds.
 */

#include <stddef.h>
#include <stdint.h>

#include "history.h"

enum fault_span_kind {
	FAULT_SPAN_STEP,	/* a step that took effect (an "info") */
	FAULT_SPAN_UNFINISHED,	/* an invoke whose completion never came */
	FAULT_SPAN_IN_EFFECT,	/* an injection's completion to its heal */
};

struct fault_span {
	enum fault_span_kind kind;
	int64_t start, end;	/* ns since the run started */
	/*
	 * STEP: its completion record. UNFINISHED: its invoke (time, f and
	 * target only; the reader's copy). IN_EFFECT: NULL.
	 */
	const struct history_line *line;
	/* IN_EFFECT: the tag the callback gave its injection's STEP. */
	size_t inject;
	int healed;		/* IN_EFFECT: 0 when the history ended first */
};

/*
 * Called with each span as it is read, in the history's order. For a
 * STEP, *tag (0 unless set) is what the span's time in effect will name
 * as `inject`, if it has one. 0, or -1 to stop reading.
 */
typedef int (*fault_span_fn)(const struct fault_span *s, size_t *tag,
			     void *arg);

struct fault_spans {
	fault_span_fn fn;
	void *arg;
	/* The nemesis's invoke awaiting its completion. */
	int open;
	struct history_line invoke;
	char f[64], target[256];
	/* Per fault item in effect: its injection's completion and tag. */
	struct fault_held_open {
		int open;
		int64_t since;
		size_t tag;
	} *held;
	size_t nheld;
};

void fault_spans_init(struct fault_spans *s, fault_span_fn fn, void *arg);

/*
 * One record of the history; any but the nemesis's is passed over. 0, or
 * the callback's -1.
 */
int fault_spans_line(struct fault_spans *s, const struct history_line *l);

/*
 * The history ended at `last`: an invoke still open is UNFINISHED to
 * `last`, and each fault still in effect is so until `last` (healed 0),
 * in the order of their items.
 */
int fault_spans_end(struct fault_spans *s, int64_t last);

void fault_spans_release(struct fault_spans *s);

#endif
