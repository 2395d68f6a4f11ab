/*
 * The barrier: a finish mark written upstream must reach the downstream
 * and, on TiCDC, the changefeed's checkpoint_ts pass the mark's
 * commit_ts, before a check reads the downstream as the end of the run
 * (checkers/barrier.h). The consistency and bank checks wait on it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/barrier.h"
#include "checkers/checker.h"
#include "clusters/api.h"
#include "clusters/cluster.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "lib/sql.h"

enum { UP, DOWN };

/*
 * An end of the barrier: a component and the caller's connection to it,
 * which the barrier may close and reopen (no session statement: the
 * barrier reads the servers as they are now).
 */
struct side {
	const struct component *comp;
	struct sql conn;
};

/* TSOs: milliseconds since the epoch in the bits above the low 18. */
#define TSO_MS(ts) ((int64_t)((ts) >> 18))

/*
 * The mark's commit_ts on TiDB (@@tidb_last_txn_info, TiDB 4.0.9 and
 * later); on any other upstream, or when TiDB does not tell, the TSO of
 * the local clock at the time the mark was written.
 */
static uint64_t mark_tso(struct side *up, int64_t mark_ms, const char **from)
{
	struct buf v = BUF_INIT;
	struct err ignored = ERR_INIT;
	uint64_t ts = 0;

	if (!sql_value(&up->conn, "SELECT JSON_EXTRACT(@@tidb_last_txn_info, "
		       "'$.commit_ts')", &v, &ignored))
		ts = strtoull(buf_str(&v), NULL, 10);
	buf_release(&v);
	*from = ts ? "commit_ts" : "clock";
	return ts ? ts : (uint64_t)mark_ms << 18;
}

/* The barrier's state while it waits for the finish mark. */
struct mark_wait {
	int64_t mark;		/* the mark's id: the wall clock, in ms */
	const char *cf;		/* TiCDC: the changefeed, else NULL */
	uint64_t mark_ts;	/* TiCDC: the mark's commit_ts */
	const char *from;	/* where mark_ts comes from */
	uint64_t checkpoint;	/* the changefeed's checkpoint_ts seen last */
	struct changefeed feed;
	int seen;		/* the mark is downstream */
	int64_t asked;		/* when the replica was last asked if it
				 * stopped (monotonic ns) */
	struct err last;	/* the last poll's error */
};

/*
 * The mark, written upstream: 0, or -1 with `e` set. Its table's DDL
 * waits in the upstream's DDL queue, which a loaded TiDB works through
 * slowly (a real one took over two minutes behind the run's partition
 * DDL): it runs on a connection of its own that waits as long as the
 * sync may take, `timeout`; the row goes in on the side's own, whose
 * last transaction tells its commit TS (mark_tso).
 */
static int write_mark(const struct check_ctx *ctx, struct side *up,
		      int64_t mark, int64_t timeout, struct err *e)
{
	int secs = (int)(timeout / NS_PER_SEC);
	struct sql ddl = { 0 };
	struct buf q = BUF_INIT;
	int rc;

	rc = component_connect(up->comp, &ddl, NULL, secs > 60 ? secs : 60,
			       e) ||
	     sql_exec(&ddl, "CREATE DATABASE IF NOT EXISTS tichaos_meta", e) ||
	     sql_exec(&ddl, "CREATE TABLE IF NOT EXISTS "
		      "tichaos_meta.barrier (id BIGINT PRIMARY KEY, run "
		      "VARCHAR(1024), at BIGINT)", e);
	sql_close(&ddl);
	rc = rc ||
	     buf_printf(&q, e, "REPLACE INTO tichaos_meta.barrier VALUES "
			"(%lld, ", (long long)mark) ||
	     sql_quote_string(&q, ctx->run_dir, e) ||
	     buf_printf(&q, e, ", %lld)", (long long)mark) ||
	     sql_exec(&up->conn, buf_str(&q), e);
	buf_release(&q);
	/* Not 1, which barrier() returns for a verdict of its own. */
	return rc ? -1 : 0;
}

/*
 * One look downstream: is the mark there (reconnecting when the last
 * look failed), and on TiCDC has the changefeed's checkpoint passed it?
 * 1 when the wait is over, else 0 (w->last says why, if it failed).
 */
static int poll_mark(const struct check_ctx *ctx, struct side *down,
		     struct mark_wait *w, const char *query)
{
	struct buf v = BUF_INIT;
	int done = 0;

	err_clear(&w->last);
	if (!w->seen && !down->conn.my)
		component_connect(down->comp, &down->conn, NULL, 60, &w->last);
	if (!w->seen && down->conn.my &&
	    sql_value(&down->conn, query, &v, &w->last) == 0)
		w->seen = !strcmp(buf_str(&v), "1");
	if (!w->seen && err_isset(&w->last))
		sql_close(&down->conn);
	if (w->seen && w->cf && !cluster_changefeed(ctx->cluster, w->cf,
						    &w->feed, &w->last) &&
	    (w->checkpoint = w->feed.checkpoint_ts) >= w->mark_ts)
		done = 1;
	else if (w->seen && !w->cf)
		done = 1;
	buf_release(&v);
	return done;
}

/*
 * A replica stopped on an SQL error never gets there: the tables are
 * compared as they are (progress says why). Asked at most once a second;
 * 1, with the reason in `halted`, when it stopped.
 */
static int replica_halted(const struct check_ctx *ctx,
			  const struct component *down, struct mark_wait *w,
			  char *halted, size_t size)
{
	struct replica_stop stop;

	if (clock_mono_ns() - w->asked < NS_PER_SEC)
		return 0;
	w->asked = clock_mono_ns();
	if (component_replica_stopped(ctx->cluster, down, &stop, NULL) != 1)
		return 0;
	snprintf(halted, size, "%s's replication stopped on SQL error %ld",
		 down->name, stop.sql_errno);
	log_info("consistency: %s: comparing the tables as they are", halted);
	return 1;
}

/* The verdict when the wait ran out: unknown, with what was seen last. */
static void sync_timed_out(const struct check_ctx *ctx,
			   const struct component *down,
			   const struct mark_wait *w, int64_t timeout,
			   struct check_result *r)
{
	struct err why = ERR_INIT;
	char d[32];

	format_duration(timeout, d, sizeof(d));
	if (w->seen && w->checkpoint) {
		check_verdict(r, VERDICT_UNKNOWN, "sync timed out after %s: "
			      "changefeed %s (state %s) checkpoint_ts %llu is "
			      "%.1fs behind the finish mark's %s %llu%s%s", d,
			      w->cf, w->feed.state,
			      (unsigned long long)w->checkpoint,
			      (double)(TSO_MS(w->mark_ts) -
				       TSO_MS(w->checkpoint)) / 1000, w->from,
			      (unsigned long long)w->mark_ts,
			      w->feed.error[0] ? "; error: " : "",
			      w->feed.error);
		return;
	}
	if (w->seen) {
		check_verdict(r, VERDICT_UNKNOWN, "sync timed out after %s: "
			      "changefeed %s: %s", d, w->cf, w->last.msg);
		return;
	}
	/* Why the downstream is behind (replication stopped, with its
	 * error) says more than the last query. */
	component_ready(ctx->cluster, down, &why);
	check_verdict(r, VERDICT_UNKNOWN, "sync timed out after %s: the "
		      "finish mark did not reach %s%s%s", d, down->name,
		      err_isset(&why) || err_isset(&w->last) ? " (" : "",
		      err_isset(&why) ? why.msg : err_isset(&w->last) ?
		      w->last.msg : "");
	if (err_isset(&why) || err_isset(&w->last))
		strncat(r->message, ")", sizeof(r->message) -
			strlen(r->message) - 1);
}

/*
 * The finish mark: written upstream, awaited downstream; on TiCDC also
 * the changefeed's checkpoint_ts passing the mark's commit_ts (the row
 * can show before every change older than it is replicated).
 */
static int barrier(const struct check_ctx *ctx, const char *changefeed,
		   int64_t timeout, struct side *sides, int64_t *took,
		   struct check_result *r, char *halted, size_t size,
		   struct err *e)
{
	struct mark_wait w = { clock_wall_ms(), NULL, 0, NULL, 0,
			       { "?", 0, "", "" }, 0, 0, ERR_INIT };
	int64_t start = clock_mono_ns();
	struct buf q = BUF_INIT;
	int rc;

	rc = write_mark(ctx, &sides[UP], w.mark, timeout, e);
	if (!rc && cluster_ticdc(ctx->cluster)) {
		w.cf = cluster_changefeed_id(ctx->cluster, changefeed);
		w.mark_ts = mark_tso(&sides[UP], w.mark, &w.from);
	}
	/* What a person (or a test) waiting on the barrier looks for. */
	if (!rc)
		log_info("consistency: finish mark %lld written upstream; "
			 "waiting for %s", (long long)w.mark,
			 sides[DOWN].comp->name);
	buf_printf(&q, NULL, "SELECT COUNT(*) FROM tichaos_meta.barrier "
		   "WHERE id = %lld", (long long)w.mark);
	while (!rc) {
		if (poll_mark(ctx, &sides[DOWN], &w, buf_str(&q)))
			break;
		if (!w.seen && !w.cf && replica_halted(ctx, sides[DOWN].comp,
						       &w, halted, size))
			break;
		if (check_interrupted(ctx)) {
			check_verdict(r, VERDICT_UNKNOWN, "interrupted while "
				      "waiting for %s to sync",
				      sides[DOWN].comp->name);
			rc = 1;
			break;
		}
		if (clock_mono_ns() - start >= timeout) {
			sync_timed_out(ctx, sides[DOWN].comp, &w, timeout, r);
			rc = 1;
			break;
		}
		clock_sleep_ns((w.seen ? 200 : 50) * NS_PER_MS);
	}
	*took = clock_mono_ns() - start;
	if (w.cf)
		buf_printf(&r->details, NULL, "\"changefeed\":\"%s\","
			   "\"mark_ts\":%llu,\"mark_ts_from\":\"%s\","
			   "\"checkpoint_ts\":%llu,", w.cf,
			   (unsigned long long)w.mark_ts, w.from,
			   (unsigned long long)w.checkpoint);
	buf_printf(&r->details, NULL, "\"barrier_ms\":%lld",
		   (long long)(*took / NS_PER_MS));
	buf_release(&q);
	return rc < 0 ? -1 : rc;
}

int barrier_sync(const struct check_ctx *ctx, const struct component *up,
		 struct sql *up_conn, const struct component *down,
		 struct sql *down_conn, const char *changefeed, int64_t timeout,
		 int64_t *took, struct check_result *r, char *halted,
		 size_t size, struct err *e)
{
	struct side sides[2] = { { up, *up_conn }, { down, *down_conn } };
	int rc;

	rc = barrier(ctx, changefeed, timeout, sides, took, r, halted, size,
		     e);
	*up_conn = sides[UP].conn;
	*down_conn = sides[DOWN].conn;
	return rc;
}
