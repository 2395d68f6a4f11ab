#ifndef TICHAOS_PLAN_H
#define TICHAOS_PLAN_H

/*
 * The plan of a run: every scheduled operation (DDL now, faults as they
 * land) with its time and its choices, drawn from the seed before anything
 * starts and written to plan.json. The same suite, seed and duration give a
 * byte-identical plan.
 *
 * Choices that depend on the cluster's state at run time (which partition
 * of the table as it is then) are drawn as a number (`choice`) and
 * resolved by the operation against the live state.
 */

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/rand.h"

struct suite;

struct plan_event {
	int64_t at_ns;		/* since the run started */
	int workload;		/* index into suite->workloads, or -1 */
	int fault;		/* index into suite->faults, or -1 */
	char *op;		/* "truncate", "exchange", ... */
	char *table;		/* MAY */
	char *with;		/* MAY: a second table (exchange) */
	uint64_t choice;	/* resolved by the operation at run time;
				 * below 2^53, so every JSON reader keeps it
				 * exact */
	int64_t heal_at_ns;	/* MAY: when a fault's heal is due (0:
				 * none planned) */
	/* MAY: what fires the fault once at_ns has come ("ddl": the first
	 * such record of the history after it; faults/trigger.h). */
	char *on;
};

struct plan {
	uint64_t seed;
	int64_t duration_ns;
	struct plan_event *events;
	size_t n;
	size_t cap;
};

#define PLAN_INIT { 0, 0, NULL, 0, 0 }

/* Most events one plan may hold (a schedule too dense is a suite error). */
#define PLAN_MAX_EVENTS 1000000

/*
 * Draw the plan of `s` for `seed` over `duration_ns`. Each scheduled item
 * draws from its own generator split off the seed's in suite order, so
 * adding a fault does not change the DDL draws. A duration other than the
 * suite's changes how many cycles fit, never the times inside one: every
 * schedule (every, at, start_after, jitter, down) is the suite's as
 * written (docs/suite-format.md, Durations).
 */
int plan_build(struct plan *p, const struct suite *s, uint64_t seed,
	       int64_t duration_ns, struct err *e);

/* A `choice` for an event: 53 random bits. */
uint64_t plan_choice(struct rand *r);

/* Add one event (its strings are copied). */
int plan_add(struct plan *p, const struct plan_event *ev, struct err *e);

/* plan.json: seed, duration, the events in time order. */
int plan_json(const struct plan *p, const struct suite *s, struct buf *out,
	      struct err *e);

void plan_release(struct plan *p);

#endif
