#ifndef TICHAOS_TIMELINE_H
#define TICHAOS_TIMELINE_H

/*
 * What history.jsonl says happened during a run, sorted into lanes for
 * report.html's timeline (docs/results.md, The HTML timeline):
 *
 *   one lane per component a fault acted on: the components its records
 *   name where the way it holds them says (its "holds", one of the
 *   kinds' struct fault_holds, core/held.h: killed, paused, moved,
 *   degraded), every host of a partition (its sides and cuts); a record
 *   that names none puts its target on a lane of its own;
 *   "other faults": faults that hold no component (a changefeed
 *   paused), instant faults (resign, tamper), injections that did not
 *   take effect and broke nothing;
 *   "owners": every owner change the monitor recorded;
 *   "replica": the replica stopping, running again, skipping;
 *   one lane per table with DDL.
 *
 * Times are the recorded ones: a fault holds from its injection's invoke
 * (its info when there is none) to its heal's info; one whose heal never
 * came, or failed, holds until the end of the run.
 */

#include <stddef.h>

#include "core/held.h"

enum timeline_mark_kind {
	MARK_DDL,
	MARK_OWNER,
	MARK_FAULT,		/* instant, or did not take effect */
	MARK_REPLICA,
	MARK_KINDS
};

/* Lane groups, in the order they are drawn; within one, by name. */
enum timeline_group {
	LANE_COMPONENT,
	LANE_FAULTS,
	LANE_OWNERS,
	LANE_REPLICA,
	LANE_TABLE,
	LANE_GROUPS
};

/* One injection of a fault that heals, from its start to its heal. */
struct timeline_window {
	double from, to;	/* seconds from the start; to < 0: not healed */
	int fault;		/* its fault item: its heal closes it */
	/* How it holds what it holds: one of the kinds', or
	 * timeline_other. */
	const struct fault_holds *held;
	int settled;		/* its heal came (to < 0: and failed) */
	char target[96];
	char what[200];		/* "partition cdc (down-0 | up-0)" */
	char *note;		/* MAY: "did not take effect: ..." */
};

/* A window on one lane: what it made of that component. */
struct timeline_segment {
	size_t window;
	size_t lane;
	char *what;		/* "cut off from pd-0, tidb-1" */
	int row;		/* overlapping segments of a lane stack */
};

struct timeline_mark {
	double at;		/* seconds from the start */
	int kind;		/* enum timeline_mark_kind */
	size_t lane;
	char *what;		/* "truncate db.t" */
};

struct timeline_lane {
	int group;		/* enum timeline_group */
	char *name;
	int rows;		/* rows of segments, 1 at least */
	size_t nsegments, nmarks;
};

struct timeline {
	double end;		/* the run's length, seconds */
	struct timeline_window *w;
	size_t nw;
	struct timeline_segment *seg;
	size_t nseg;
	struct timeline_mark *m;
	size_t nm;
	struct timeline_lane *lanes;	/* sorted by group, then name */
	size_t nlanes;
	/* While reading: the last injection's invoke. */
	double invoke_at;
	int invoke_fault;
	char invoke_f[32];
	/* Its trigger (`on:`, faults/trigger.h), as a window's note says
	 * it: "fired by truncate test.p at 2.121s"; "" when none. */
	char invoke_fired[200];
	const struct fault_holds *const *holds;	/* timeline_read's */
};

/*
 * Read the history at `path` of a run `end` seconds long into `t`, in
 * lanes sorted and with each segment's row, the injections' "holds" told
 * by `holds` (NULL-terminated; struct report_run.holds). A history that
 * cannot be read gives no lanes but "owners"; a line that is no record is
 * left out. Free with timeline_release.
 */
void timeline_read(struct timeline *t, const char *path, double end,
		   const struct fault_holds *const *holds);

/* Free what `t` holds. */
void timeline_release(struct timeline *t);

/* How a fault that heals and holds no component holds: its window, grey
 * ("other fault"). */
extern const struct fault_holds timeline_other;

#endif
