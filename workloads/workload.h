#ifndef TICHAOS_WORKLOAD_H
#define TICHAOS_WORKLOAD_H

/*
 * Workloads: threads driving SQL against the cluster's upstream while the
 * faults happen (docs/suite-format.md, docs/internals.md). A workload kind
 * is a const struct workload_type registered in workloads/registry.c.
 *
 * The runner starts `threads()` workers for each workload of the suite,
 * each with its own connection, its own PRNG split from the run's seed, a
 * process number in the history and a share of the tables. A worker's
 * `run` loops until `worker_stopping()`; every operation it performs is
 * recorded through the worker API (core/worker.h: worker_invoke() /
 * worker_complete()) so the history says what happened
 * (docs/internals.md, History).
 *
 * Scheduled workloads (DDL) do not draw their own times: `plan` adds their
 * operations to the run's plan, and workload_drive() hands each planned
 * operation to `run_op` at its time.
 */

#include <stddef.h>
#include <stdint.h>

#include "core/kind.h"
#include "core/suite.h"
#include "core/worker.h"
#include "lib/err.h"
#include "lib/optspec.h"
#include "lib/rand.h"
#include "lib/sql.h"

struct plan;
struct plan_event;

/*
 * The options every workload accepts, bound: the first member of every
 * workload kind's options struct (struct kind.opts_size), which lists
 * WORKLOAD_COMMON_OPTS first.
 */
struct workload_opts {
	struct optlist tables;
	int64_t threads;	/* 0: the kind's default */
	double rate;		/* 0: unlimited */
	int ignore_errors;
};

#define WORKLOAD_COMMON_OPTS                                                 \
	{ "tables", OPT_TABLES, NULL, 1, NULL, 0, 0,                         \
	  "the tables it works on ({a..b} ranges expand)",                   \
	  OPT_AT(struct workload_opts, tables) },                            \
	{ "threads", OPT_INT, "0", 0, NULL, 0, 1024,                         \
	  "worker threads; 0: the kind's default",                           \
	  OPT_AT(struct workload_opts, threads) },                           \
	{ "rate", OPT_FLOAT, "0", 0, NULL, 0, 0,                             \
	  "operations per second over all threads; 0: unlimited",            \
	  OPT_AT(struct workload_opts, rate) },                              \
	{ "ignore_errors", OPT_BOOL, "false", 0, NULL, 0, 0,                 \
	  "SQL errors are recorded but do not fail the run",                 \
	  OPT_AT(struct workload_opts, ignore_errors) }

/* The common options of the item `it` of a workload kind. */
static inline const struct workload_opts *
workload_opts_of(const struct suite_item *it)
{
	return it->opts;
}

struct workload_type {
	/* Name, doc, options (WORKLOAD_COMMON_OPTS first, then its own),
	 * and the core's hooks: `check`, and `plan` for scheduled kinds,
	 * which are WORKLOAD_SCHEDULED. */
	struct kind kind;
	/*
	 * MUST: the number of worker threads for this item (at least 1).
	 */
	int (*threads)(const struct suite *s, const struct suite_item *it);
	/*
	 * MUST for unscheduled kinds: loop until worker_stopping().
	 */
	void (*run)(struct worker *w);
	/*
	 * MUST for scheduled kinds: perform one planned operation.
	 */
	void (*run_op)(struct worker *w, const struct plan_event *ev);
	/*
	 * MAY: fill the item's tables once they are created (empty) and
	 * before any worker starts, through `conn`, a connection to the
	 * first upstream SQL node (no database selected). 0, or -1 with `e`
	 * set: the run stops with that error.
	 */
	int (*setup)(const struct suite *s, const struct suite_item *it,
		     struct sql *conn, struct err *e);
};

/* Scheduled kinds refuse `threads` and `rate` (struct kind.refuse). */
extern const char *const workload_scheduled_refuse[];
#define WORKLOAD_SCHEDULED                                                   \
	.refuse = workload_scheduled_refuse,                                 \
	.refuse_why = "a scheduled workload runs its plan on one thread, at " \
		      "the planned times"

/* The workload kind of item `it`. */
static inline const struct workload_type *
workload_type_of(const struct suite_item *it)
{
	return (const struct workload_type *)it->type;
}

/* Every workload kind, NULL-terminated. */
extern const struct workload_type *const workload_types[];

/* The i-th workload kind, NULL past the end. */
const struct kind *workload_kind(size_t i);

/*
 * Drive worker `w` (begun with worker_begin) through its kind: `run`
 * until the run stops, or, with `run_op`, each operation the run's plan
 * (w->env->plan) holds for its item, at its time.
 */
void workload_drive(struct worker *w);

/*
 * A worker's thread (pthread_create's start routine, `arg` its struct
 * worker): worker_begin, workload_drive, worker_end.
 */
void *workload_thread(void *arg);

#endif
