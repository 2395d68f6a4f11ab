#ifndef TICHAOS_BARRIER_H
#define TICHAOS_BARRIER_H

/*
 * The barrier (checkers/barrier.c): before a check reads the downstream
 * as the end of the run, a finish mark written upstream (a row of
 * tichaos_meta.barrier) must reach it. The consistency check and the
 * bank check wait on it; any check may.
 */

#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"

struct check_ctx;
struct check_result;
struct component;
struct sql;

/*
 * A finish mark written upstream through `up_conn` (connected to `up`)
 * must reach `down` within `timeout` ns, read through `down_conn`
 * (reconnected when a look fails, so it may be closed after), and on
 * TiCDC the checkpoint of `changefeed` (NULL: the cluster's) must pass
 * the mark's commit_ts. 0 when synced, or when the replica stopped on an
 * SQL error: then `halted` (of `size` bytes) says so and the caller
 * compares the data as it is; 1 with r's verdict set (unknown: timed
 * out, interrupted); -1 with `e` set. Appends "barrier_ms" (and on TiCDC
 * the changefeed's members, each followed by a comma) to r->details;
 * *took: how long. Both connections stay the caller's.
 */
int barrier_sync(const struct check_ctx *ctx, const struct component *up,
		 struct sql *up_conn, const struct component *down,
		 struct sql *down_conn, const char *changefeed, int64_t timeout,
		 int64_t *took, struct check_result *r, char *halted,
		 size_t size, struct err *e);

#endif
