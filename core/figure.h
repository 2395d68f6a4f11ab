#ifndef TICHAOS_FIGURE_H
#define TICHAOS_FIGURE_H

/*
 * What a check kind draws its own part of report.html on: its hook
 * (struct checker_type.draw, checkers/checker.h) is handed the run's
 * history and length, and the fault windows and marks the page's
 * timeline read from it, so that a plot over the run's time (lib/svg.h)
 * shades and marks them as the page's own plots do. The report knows no
 * check kind: it asks the drawer of a failed check's kind (struct
 * report_run.drawers, reports/report.h), and prints what the drawer left
 * of the details as text.
 */

#include <stddef.h>

#include <jansson.h>

#include "lib/buf.h"

/* A fault's time in effect (reports/timeline.h, struct timeline_window). */
struct figure_window {
	double from, to;	/* seconds from the start; to < 0: not healed */
	/* How it holds (core/held.h, its name): the page's class s-HELD. */
	const char *held;
	const char *what;	/* "partition cdc (down-0 | up-0)" */
};

/* An instant on the timeline (reports/timeline.h, struct timeline_mark). */
struct figure_mark {
	double at;		/* seconds from the start */
	/* "ddl", "owner", "instant" (an instant fault, or one that did not
	 * take effect), "replica": the page's class at-KIND. */
	const char *kind;
	const char *what;	/* "truncate db.t" */
};

struct figure {
	const char *history;	/* the run's history.jsonl */
	/* The run's length, seconds; <= 0 when results.json has none (a
	 * stored history): then the drawer finds it in the history. */
	int seconds;
	const struct figure_window *w;
	size_t nw;
	const struct figure_mark *m;
	size_t nm;
};

/*
 * Draw, as HTML into `out`, what a failed check's `details` (its
 * results.json member) show better drawn than printed: a plot, a table.
 * Delete from `rest`, a copy of the details, each member drawn, so that
 * the details' text, printed after, leaves it out. Nothing drawn is
 * right; a member the drawer does not find is no error.
 */
typedef void figure_draw(const struct figure *f, const json_t *details,
			 json_t *rest, struct buf *out);

/* A member's string, "" when it is missing or no string. */
static inline const char *figure_str(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : "";
}

/* A check kind that draws: its name (results.json's "kind"), its hook. */
struct figure_drawer {
	const char *kind;
	figure_draw *draw;
};

#endif
