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
 * complete with `id` (-1: none; -2: the insert id of the last statement).
 * Returns 0 when every statement succeeded. Connects first; -1 without a
 * record when the run is stopping.
 */
int wl_op(struct worker *w, const char *f, const char *table,
	  const char *const *stmts, int64_t id);

/*
 * One INSERT of the value `seq` into `column` of `table`, recorded as
 * "insert" with the AUTO_INCREMENT id the server returned.
 */
int wl_insert_row(struct worker *w, const char *table, const char *column,
		  uint64_t seq);

/*
 * The `plan` of the scheduled kinds: one operation every `every`,
 * its op drawn from `ops`, its table from `tables`, for "exchange" a second
 * table from `exchange_with`, and a `choice` for the rest.
 */
int wl_plan_every(const struct suite *s, const struct suite_item *it,
		  int item_index, int64_t duration_ns, struct rand *r,
		  struct plan *p, struct err *e);

/* The integer value of option `key` of the worker's item. */
int64_t wl_int(const struct worker *w, const char *key);

/* A short pause after an error so a dropped table is not hammered. */
void wl_error_pause(struct worker *w);

#endif
