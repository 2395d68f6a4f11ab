#ifndef TICHAOS_WORKLOADS_COMMON_H
#define TICHAOS_WORKLOADS_COMMON_H

/* Helpers shared by the workload kinds. */

#include "lib/buf.h"
#include "workloads/workload.h"

/* Append `db`.`table` for the suite's database. */
int wl_table(struct buf *q, const struct worker *w, const char *table,
	     struct err *e);

/*
 * Run one recorded operation: invoke `f` on `table`, run each statement of
 * `stmts` (NULL-terminated) in order, stopping at the first error, and
 * complete: `key` >= 0 is the row the workload chose, recorded as the
 * value {"key":K}; -2 records the AUTO_INCREMENT id the server gave the
 * last statement as "id" (none when it gave none); -1 nothing. Only an
 * id the server gave out is an "id", which the ids check judges.
 * Returns 0 when every statement succeeded. Connects first; -1 without a
 * record when the run is stopping.
 */
int wl_op(struct worker *w, const char *f, const char *table,
	  const char *const *stmts, int64_t key);

/*
 * One INSERT of the value `seq` into `column` of `table`, recorded as
 * "insert" with the AUTO_INCREMENT id the server returned.
 */
int wl_insert_row(struct worker *w, const char *table, const char *column,
		  uint64_t seq);

/*
 * The options of the scheduled kinds, bound: the first member of their
 * options struct. `exchange_with` is bound by the kinds that take it.
 */
struct wl_scheduled_opts {
	struct workload_opts common;
	struct optlist ops;
	int64_t every;
	struct optlist exchange_with;
};

#define WL_SCHEDULED_OPTS(ops_default, op_names)                             \
	{ "ops", OPT_ENUM_LIST, ops_default, 0, op_names, 0, 0,              \
	  "the operations drawn from",                                       \
	  OPT_AT(struct wl_scheduled_opts, ops) },                           \
	{ "every", OPT_DURATION, "1s", 0, NULL, 0, 0,                        \
	  "one operation every this long",                                   \
	  OPT_AT(struct wl_scheduled_opts, every) }

/*
 * The `plan` of the scheduled kinds: one operation every `every`,
 * its op drawn from `ops`, its table from `tables`, for "exchange" a second
 * table from `exchange_with`, and a `choice` for the rest.
 */
int wl_plan_every(const struct suite *s, const struct suite_item *it,
		  int item_index, int64_t duration_ns, struct rand *r,
		  struct plan *p, struct err *e);

/*
 * A transaction's error before its COMMIT: rolled back, its completion
 * recorded as fail (`value` as its invoke's); a connection the error lost
 * is closed after the record (the next operation reconnects).
 */
void wl_txn_failed(struct worker *w, const char *f, const char *table,
		   const char *value, const struct err *e);

/* A short pause after an error so a dropped table is not hammered. */
void wl_error_pause(struct worker *w);

#endif
