#ifndef TICHAOS_FAULTWINDOW_H
#define TICHAOS_FAULTWINDOW_H

/*
 * The faults of a run as windows in time (checkers/faultwindow.c), made
 * from the spans of its history's nemesis records (lib/faultspan.h), to
 * name those around what a check found: "kill cdc from 1.500s to
 * 1.540s, kill cdc in effect from 1.540s to 3.500s". A step that took
 * effect is a window from its invoke to its completion, named by its f
 * and target; a time in effect one from its injection's completion to
 * its heal, named by the injection and " in effect"; an invoke never
 * completed is none. The bank check names them with its violations; any
 * check may.
 */

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"
#include "lib/faultspan.h"

struct fault_window {
	int64_t start, end;	/* ns since the run started */
	char *text;		/* "kill cdc", "kill cdc in effect"; owned */
};

struct fault_windows {
	struct fault_window *v;
	size_t n, cap;
};

#define FAULT_WINDOWS_INIT { NULL, 0, 0 }

/*
 * A fault_span_fn whose `arg` is a struct fault_windows: each span into
 * its window, in the history's order (a STEP's tag is its window's
 * index). Always 0.
 */
int fault_windows_span(const struct fault_span *s, size_t *tag, void *arg);

/*
 * The history read: the windows by start, then end, the order they are
 * named in. After it, no span may be added.
 */
void fault_windows_sort(struct fault_windows *w);

/*
 * The first 20 windows meeting [lo, hi] (ns), in their order: appended
 * to `text` as "; between: a, b" (nothing when none), and to `json` as
 * the array of the same names, ["a","b"] ([] when none). A window at one
 * time is "a at 2.000s", else "a from 1.500s to 1.540s".
 */
void fault_windows_between(const struct fault_windows *w, int64_t lo,
			   int64_t hi, struct buf *text, struct buf *json);

void fault_windows_release(struct fault_windows *w);

#endif
