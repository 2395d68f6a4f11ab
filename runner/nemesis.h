#ifndef TICHAOS_NEMESIS_H
#define TICHAOS_NEMESIS_H

/*
 * The nemesis: the runner's thread that injects the plan's faults at
 * their times — a fault with `on:` at the first record of the history
 * that fires it after its time (faults/trigger.h), seen as it is
 * recorded (history_observe) — and heals each when its `down` is over;
 * and the owner
 * monitor, a thread that watches the elections the suite's faults move
 * (their kind's `election` hook: resign's) and records every owner
 * change as process "monitor" — whatever caused it.
 *
 * Each watcher the cluster's kind offers (struct cluster_watcher: the
 * MariaDB replica watch) runs in a thread of its own and records what it
 * sees as process "monitor" too.
 *
 * When the run ends (duration over, error, SIGINT), nemesis_stop() joins
 * every thread and nemesis_heal_all() heals every fault still in effect:
 * a run never leaves a killed or paused server behind.
 */

#include <pthread.h>
#include <stdint.h>

#include "faults/fault.h"
#include "faults/trigger.h"
#include "lib/etcd.h"

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

/* One election the monitor follows with an etcd watch. */
struct election_watch {
	struct nemesis *nemesis;
	char prefix[512];
	const char *url;
	/* "autoid", "ddl", "cdc" (what the owner's value is), or NULL. */
	const char *service;
	char owner[256];
	/* The owner's term: its key and create revision ("", 0: none). */
	char owner_key[512];
	int64_t owner_rev;
	int seen;
	struct etcd_kvs candidates;
	/* The revision to watch from: one past the last read or event. */
	int64_t next_rev;
	struct history_slot *slot;
	pthread_t thread;
	int started;
};

/* A watcher of the cluster's kind, in a thread of its own. */
struct watcher_thread {
	struct nemesis *nemesis;
	const struct cluster_watcher *watcher;
	pthread_t thread;
	int started;
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
	struct election_watch *watches;
	size_t nwatches;
	struct watcher_thread *watchers;
	size_t nwatchers;
	/* The etcd leader's watch, on a cluster of 2 etcd members or more:
	 * the URL it lists the members from. */
	const char *leader_url;
	pthread_t leader_thread;
	int leader_started;
	/* The DDL watch (cluster_ddl_watch), when an item is fired by
	 * what it sees (on: ddl_applied). */
	pthread_t ddl_thread;
	int ddl_started;
	pthread_t thread;
	int thread_started;
	pthread_mutex_t lock;	/* actions: heal_all vs the thread */
};

/* Start the nemesis and the monitor for `run` on cluster `c`. */
int nemesis_start(struct nemesis *n, struct cluster *c, struct run *run,
		  struct err *e);

/* Join the threads; run->stop must be set. Safe to call twice. */
void nemesis_stop(struct nemesis *n);

/* Heal every action still in effect. Returns how many heals failed. */
int nemesis_heal_all(struct nemesis *n);

void nemesis_release(struct nemesis *n);

#endif
