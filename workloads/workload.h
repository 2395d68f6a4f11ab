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
 * recorded through worker_invoke() / worker_complete() so the history
 * says what happened (docs/internals.md, History).
 *
 * Scheduled workloads (DDL) do not draw their own times: `plan` adds their
 * operations to the run's plan, and the runner hands each planned
 * operation to `run_op` at its time.
 */

#include <stddef.h>
#include <stdint.h>

#include "core/kind.h"
#include "core/suite.h"
#include "lib/err.h"
#include "lib/optspec.h"
#include "lib/rand.h"
#include "lib/sql.h"

struct suite;
struct suite_item;
struct plan;
struct plan_event;
struct worker;
struct run;
struct history_slot;
struct hist;

/* The options every workload accepts; kinds list them first. */
#define WORKLOAD_COMMON_OPTS                                                 \
	{ "tables", OPT_TABLES, NULL, 1, NULL, 0, 0,                         \
	  "the tables it works on ({a..b} ranges expand)" },                 \
	{ "threads", OPT_INT, "0", 0, NULL, 0, 1024,                         \
	  "worker threads; 0: the kind's default" },                         \
	{ "rate", OPT_FLOAT, "0", 0, NULL, 0, 0,                             \
	  "operations per second over all threads; 0: unlimited" },          \
	{ "ignore_errors", OPT_BOOL, "false", 0, NULL, 0, 0,                 \
	  "SQL errors are recorded but do not fail the run" }

enum { WOPT_TABLES, WOPT_THREADS, WOPT_RATE, WOPT_IGNORE_ERRORS,
       WOPT_COMMON };

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

/* Everything a worker thread owns; filled by the runner (runner/run.c). */
struct component;

struct worker {
	const struct suite *suite;
	const struct suite_item *item;
	int item_index;
	/* Which of the item's threads this is, of how many. */
	int thread;
	int nthreads;
	/* The history's process number of this worker. */
	int process;
	struct rand rng;
	/* The upstream SQL node it uses: name, component, dialect. */
	const char *node;
	const struct component *comp;
	int dialect;
	struct sql conn;
	/* Tables it works on: its share of the item's tables. */
	char **tables;
	size_t ntables;
	/* Counts, updated atomically: the runner reads them live. */
	uint64_t ok;
	uint64_t fail;
	uint64_t info;
	uint64_t skipped;
	/* Why operations were skipped (the last reason), for the report. */
	char skip_reason[128];
	/* Private to the runner (runner/worker.c). */
	struct run *run;
	struct history_slot *slot;
	int64_t pace_ns;
	int64_t next_ns;
	int64_t backoff_ns;
	/* Per step of the run (a second, or more for runs over ten
	 * minutes: at most 660 steps): ok operations and their latencies,
	 * from the last invoke to its completion. */
	int64_t invoked_ns;
	int64_t step_ns;
	struct hist *latency;
	uint32_t *ok_per_step;
	uint32_t *errors_per_step;	/* fail and info */
	size_t steps;
};

enum dialect {
	DIALECT_MYSQL,
	DIALECT_MARIADB,
	DIALECT_TIDB,
};

const char *dialect_name(int dialect);

/* Non-zero once the run asks workers to stop. */
int worker_stopping(const struct worker *w);

/*
 * Sleep up to `ns`, returning early when the run stops. Returns non-zero
 * when stopping.
 */
int worker_sleep(struct worker *w, int64_t ns);

/* Wait for the rate limit of the workload (no-op without `rate`). */
void worker_pace(struct worker *w);

/*
 * (Re)connect to the worker's node with a short timeout; backs off while
 * the run lasts. 0 when connected, -1 when stopping.
 */
int worker_connect(struct worker *w);

/*
 * Record the invocation of `f` (e.g. "insert", "truncate") on `table`.
 * Returns the invocation's start time (ns since the run started).
 */
int64_t worker_invoke(struct worker *w, const char *f, const char *table);

/*
 * Record its completion: "ok" with an id (id < 0: none), or, when the
 * last SQL call failed (err set), "fail" or "info" as the error's class
 * says, with the error text. Ambiguous errors close the connection so the
 * next operation reconnects. Counts ok / fail / info.
 */
void worker_complete(struct worker *w, const char *f, const char *table,
		     int64_t id, const struct err *err);

/* Record that `f` was skipped because the dialect lacks it. */
void worker_skip(struct worker *w, const char *f, const char *table,
		 const char *why);

#endif
