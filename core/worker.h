#ifndef TICHAOS_WORKER_H
#define TICHAOS_WORKER_H

/*
 * The worker API: what a workload's threads call to do their work —
 * pacing, connections, sleeps a run's end cuts short, and the history
 * record of every operation (docs/internals.md, History). Whoever drives
 * the workers (the runner; a test) fills each struct worker and the
 * struct worker_env they share; a workload kind reads the public fields
 * and calls the functions below, nothing else.
 */

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/rand.h"
#include "lib/sql.h"

struct cancel;
struct component;
struct hist;
struct plan;
struct history;
struct history_slot;
struct suite;
struct suite_item;

enum dialect {
	DIALECT_MYSQL,
	DIALECT_MARIADB,
	DIALECT_TIDB,
};

/* "MySQL", "MariaDB", "TiDB". */
const char *dialect_name(int dialect);

/* What the workers of one run share; set by whoever drives them. */
struct worker_env {
	/* The run's plan: the scheduled kinds perform its operations. */
	const struct plan *plan;
	/* Where operations are recorded; its clock is the run's. */
	struct history *history;
	/* The run's token (lib/cancel.h): workers stop at CANCEL_STOP. */
	const struct cancel *cancel;
	/* Connect `conn` to SQL node `node` (struct worker.comp, which the
	 * core never looks into) in `database`, within `timeout_s`. */
	int (*connect)(const struct component *node, struct sql *conn,
		       const char *database, int timeout_s, struct err *e);
	/* MAY: a downstream SQL node that applies the upstream's
	 * transactions whole and in order (a MySQL / MariaDB replica: the
	 * local cluster's, a topology's `replicates`), and its name; NULL
	 * where there is none (TiCDC may split a transaction). */
	const struct component *replica;
	const char *replica_name;
};

/* Everything a worker thread owns. */
struct worker {
	/* Public: what the workload reads. */
	const struct suite *suite;
	const struct suite_item *item;
	int item_index;
	/* Which of the item's threads this is, of how many. */
	int thread;
	int nthreads;
	/* The history's process number of this worker. */
	int process;
	struct rand rng;
	/* The upstream SQL node it uses: name, dialect, connection. */
	const char *node;
	int dialect;
	struct sql conn;
	/* Tables it works on: its share of the item's tables. */
	char **tables;
	size_t ntables;
	/* Counts, updated atomically: the driver reads them live. */
	uint64_t ok;
	uint64_t fail;
	uint64_t info;
	uint64_t skipped;
	uint64_t refused;	/* worker_refuse: fails, not errors */
	/* Why operations were skipped (the last reason), for the report. */
	char skip_reason[128];

	/* Set by the driver, used by the functions below. */
	const struct worker_env *env;
	const struct component *comp;	/* its node, for env->connect */
	int64_t pace_ns;		/* between operations; 0: unpaced */
	/* MAY: per step of the run (a second, or more for runs over ten
	 * minutes), ok operations and their latencies, from the last
	 * invoke to its completion; steps 0: not kept. */
	int64_t step_ns;
	struct hist *latency;
	uint32_t *ok_per_step;
	uint32_t *errors_per_step;	/* fail and info */
	size_t steps;

	/* MAY: the SQL text of the operation at hand, kept between
	 * operations so that building it allocates nothing; worker_end
	 * frees it. */
	struct buf sql_text;

	/* Kept by the functions below. */
	struct history_slot *slot;
	/* The last "db.table" recorded; qualified_table: where its table
	 * starts, 0: none. */
	char qualified[160];
	size_t qualified_table;
	int64_t next_ns;
	int64_t backoff_ns;
	int64_t invoked_ns;
};

/*
 * Begin and end the worker's thread: its history slot and the SQL
 * library's thread state; worker_end closes its connection.
 */
void worker_begin(struct worker *w);
void worker_end(struct worker *w);

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

/*
 * worker_invoke and worker_complete with `value` (MAY be NULL): a JSON
 * value, written into both records as it is (struct history_event.value;
 * the caller makes it valid JSON), e.g. a transfer's
 * {"from":3,"to":7,"amount":5}. Borrowed for the call.
 */
int64_t worker_invoke_value(struct worker *w, const char *f,
			    const char *table, const char *value);
void worker_complete_value(struct worker *w, const char *f,
			   const char *table, int64_t id, const char *value,
			   const struct err *err);

/*
 * Record the completion of an operation the workload itself refused as
 * a normal outcome (a transfer that would overdraw): a "fail" whose
 * error is HISTORY_REFUSED and `why`, counted as refused, not as a
 * failure of the workload. The caller has rolled back what it began.
 */
void worker_refuse(struct worker *w, const char *f, const char *table,
		   const char *value, const char *why);

/* Record that `f` was skipped because the dialect lacks it. */
void worker_skip(struct worker *w, const char *f, const char *table,
		 const char *why);

#endif
