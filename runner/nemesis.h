#ifndef TICHAOS_NEMESIS_H
#define TICHAOS_NEMESIS_H

/*
 * The nemesis: the runner's thread that injects the plan's faults at
 * their times — a fault with `on:` at the first record of the history
 * that fires it after its time (faults/trigger.h), seen as it is
 * recorded (history_observe) — and heals each when its `down` is over.
 * What the run watches meanwhile (owners, etcd's leader, DDL, the
 * cluster's watchers) is runner/monitor.h's.
 *
 * When the run ends (duration over, error, SIGINT), nemesis_stop() joins
 * its thread and nemesis_heal_all() heals every fault still in effect:
 * a run never leaves a killed or paused server behind.
 */

#include <pthread.h>
#include <stdint.h>

#include "faults/fault.h"
#include "faults/trigger.h"

struct run;
struct plan;

/* Updated atomically: the progress line reads them live. */
struct nemesis_counts {
	uint64_t injected;
	uint64_t failed;
	/* Of the failed, those that broke something all the same (healed
	 * at once, and counted in healed or heal_failed). */
	uint64_t failed_broke;
	uint64_t healed;
	uint64_t heal_failed;
	/* Of the planned, those armed (`on:`) whose event never came
	 * before the run ended: counted by nemesis_stop. */
	uint64_t unfired;
	char first_error[ERR_MSG_MAX];
};

/* A planned injection, and when it is due. */
struct nemesis_pending {
	const struct plan_event *ev;
	int done;		/* injected, or the run ended first */
	/* `on:`: its record came (at or after ev->at_ns): what it was, and
	 * the time it is due, the record's plus `after`. */
	int fired;
	struct fault_fired why;
	int64_t due;
};

struct nemesis {
	struct fault_ctx ctx;
	struct run *run;
	const struct plan *plan;
	/* One action and one pending per planned fault event, in plan
	 * order. */
	struct fault_action *actions;
	struct nemesis_pending *pending;
	size_t nactions;
	/*
	 * Per fault item: the index in `pending` of its armed event, the
	 * first of its own not fired yet (an `on:` item's events fire one
	 * after the other), or -1: none (no `on:`, or none left).
	 */
	long *armed;
	int observing;		/* the history's observer is ours */
	int counted;		/* unfired counted */
	pthread_mutex_t trig_lock;	/* pending's fired, why, due; armed */
	pthread_cond_t trig_cond;	/* a trigger fired */
	/* Per fault item of the suite. */
	struct nemesis_counts *counts;
	pthread_t thread;
	int thread_started;
	pthread_mutex_t lock;	/* actions: heal_all vs the thread */
};

/* Start the nemesis for `run` on cluster `c`. */
int nemesis_start(struct nemesis *n, struct cluster *c, struct run *run,
		  struct err *e);

/* Join the threads; run->stop must be set. Safe to call twice. */
void nemesis_stop(struct nemesis *n);

/* Heal every action still in effect. Returns how many heals failed. */
int nemesis_heal_all(struct nemesis *n);

void nemesis_release(struct nemesis *n);

#endif
