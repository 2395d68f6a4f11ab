#ifndef TICHAOS_SYNCPOINT_STORE_H
#define TICHAOS_SYNCPOINT_STORE_H

/*
 * The sync points TiCDC records in a TiDB downstream's
 * tidb_cdc.syncpoint_v1, read for the checks that compare the sides at
 * them: the syncpoint check (checkers/syncpoint.c, which says how TiCDC
 * writes the table), the bank and append checks. No state: every call
 * reads anew.
 */

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"
#include "lib/err.h"

struct component;
struct sql;

/*
 * A sync point TiCDC recorded in the downstream's tidb_cdc.syncpoint_v1
 * (pingcap/tiflow cdc/syncpointstore/mysql_syncpoint_store.go, pingcap/
 * ticdc pkg/sink/mysql/mysql_writer_for_syncpoint.go): the
 * upstream TSO replicated up to, the downstream's TSO then. Digits only.
 */
struct sync_point {
	char primary_ts[24], secondary_ts[24], created_at[32];
};

/*
 * The last `want` sync points of changefeed `cf` read through `down`
 * (the downstream `down_name`), oldest first, into *out (caller frees;
 * never NULL on 0): rows whose changefeed is `cf`, as the old TiCDC
 * writes it, or "<keyspace>/<cf>", as the new one does (`keyspace` the
 * topology's, NULL: "default"). 0 with *n 0 and
 * `why` (of `whysize` bytes) saying so when there is none: no
 * tidb_cdc.syncpoint_v1, or no row of `cf`; -1 with `e` when the read
 * failed or a row holds no TSO.
 */
int syncpoint_store_read(struct sql *down, const char *down_name,
			 const char *cf, const char *keyspace, int64_t want,
			 struct sync_point **out, size_t *n, char *why,
			 size_t whysize, struct err *e);

/*
 * The VERSION() of `down` into `v` when it is not TiDB's (no "TiDB" in
 * it), else `v` empty; -1 with `e` when it could not be asked. TiCDC
 * records sync points only in a TiDB downstream. Connects on its own.
 */
int syncpoint_store_not_tidb(const struct component *down, struct buf *v,
			     struct err *e);

struct check_ctx;
struct check_result;

/*
 * A connection of its own to component `c` reading at TSO `ts` (SET
 * @@tidb_snapshot), as a check reads a side at a sync point; a snapshot
 * refused is `e`, naming `c` and the statement. 0, or -1 (closed).
 */
int syncpoint_store_connect_at(const struct component *c, const char *ts,
			       struct sql *s, struct err *e);

/*
 * For a check comparing `what` ("balances") at the last `want` sync
 * points of changefeed `cf`: both sides TiDB (ctx->dialect for `up`,
 * VERSION() of `down`), and the points read into *pts (*n of them;
 * the caller frees). 0; 1 with r's verdict unknown, saying which side is
 * not TiDB or why there is no point; -1 with `e`.
 */
int syncpoint_store_points(const struct check_ctx *ctx, const char *cf,
			   int64_t want, const char *what,
			   const struct component *up,
			   const struct component *down,
			   struct sync_point **pts, size_t *n,
			   struct check_result *r, struct err *e);

#endif
