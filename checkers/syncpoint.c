/*
 * syncpoint: were upstream and downstream equal at TiCDC's sync points?
 * (docs/checkers.md.)
 *
 * A changefeed with sync points (enable-sync-point, every
 * sync-point-interval, default 10 min) records in the downstream, at each
 * point, the upstream TSO it has replicated everything up to (primary_ts)
 * and the downstream's TSO once that is written (secondary_ts). pingcap/
 * tiflow cdc/syncpointstore/mysql_syncpoint_store.go (the same in pingcap/
 * ticdc pkg/sink/mysql/mysql_writer_for_syncpoint.go but for the
 * changefeed column):
 *
 * - CreateSyncTable: database tidb_cdc, table syncpoint_v1
 *   (ticdc_cluster_id varchar(255), changefeed varchar(255), primary_ts
 *   varchar(18), secondary_ts varchar(18), created_at timestamp default
 *   CURRENT_TIMESTAMP, INDEX (created_at), PRIMARY KEY (changefeed,
 *   primary_ts)): the TSOs are strings.
 * - SinkSyncPoint, once the downstream holds everything up to the point:
 *   in one transaction, "select @@tidb_current_ts" (TiDB: that
 *   transaction's start_ts) is the secondary_ts, then "insert ignore into
 *   tidb_cdc.syncpoint_v1 (ticdc_cluster_id, changefeed, primary_ts,
 *   secondary_ts)", "set global tidb_external_ts" (an unknown variable is
 *   ignored: errorutil.IsSyncPointIgnoreError), and the rows of the
 *   changefeed older than sync-point-retention (default 24 h) deleted.
 * - The changefeed column: the old TiCDC writes the changefeed's id
 *   ("tichaos": SinkSyncPoint's id.ID); the new one its keyspace and id
 *   ("default/tichaos": pingcap/ticdc pkg/sink/mysql/
 *   mysql_writer_for_syncpoint.go SendSyncPointEvent writes
 *   ChangefeedID.String(), which pkg/common/types.go makes
 *   Keyspace + "/" + Name). A point is read under either.
 * - A downstream that is not TiDB: the changefeed is accepted when its
 *   sink is MySQL-compatible (cdc/sink/validator/validator.go,
 *   checkSyncPointSchemeCompatibility), the table is created, and
 *   "select @@tidb_current_ts" fails there: no point is ever recorded.
 *
 * At each of the last `syncpoints` points the tables are compared as the
 * consistency check compares them (tablediff_compare_at), the upstream
 * read with tidb_snapshot = primary_ts and the downstream with
 * tidb_snapshot = secondary_ts (pingcap/tidb pkg/sessionctx/variable/
 * sysvar.go: a session's reads at that TSO). A snapshot older than GC's
 * safe point is refused by TiDB (error 8055, "snapshot is older than GC
 * safe point ..."): that point's verdict is unknown with the server's
 * message. A difference at a point fails the check with the point and
 * the rows' keys.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/checker.h"
#include "checkers/syncpoint_store.h"
#include "checkers/tablediff.h"
#include "clusters/cluster.h"
#include "core/suite.h"
#include "core/worker.h"
#include "lib/history.h"
#include "lib/parse.h"
#include "lib/sql.h"

struct syncpoint_opts {
	int64_t syncpoints;
	const char *changefeed;	/* NULL: the cluster's */
	struct optlist tables;	/* empty: every table, on either side */
	int64_t chunk_rows;
	int64_t threads;
	int64_t max_report;
};

#define AT(member) OPT_AT(struct syncpoint_opts, member)

static const struct optspec opts[] = {
	{ "syncpoints", OPT_INT, "3", 0, NULL, 1, 1000,
	  "how many sync points, the last ones, are compared", AT(syncpoints) },
	{ "changefeed", OPT_STRING, NULL, 0, NULL, 0, 0,
	  "TiCDC: the changefeed whose sync points are read (default: the "
	  "topology's, else tichaos)", AT(changefeed) },
	TABLEDIFF_COMPARE_OPTS(struct syncpoint_opts),
};

/* A recorded sync point, and what its comparison found. */
struct point {
	struct sync_point at;
	struct check_result res;
};

/* Compare the tables at point `p` into p->res. */
static void compare_point(const struct check_ctx *ctx,
			  const struct syncpoint_opts *o,
			  const struct component *up,
			  const struct component *down, struct point *p)
{
	struct snapshot_pair pair;
	char set[2][64];
	struct err e = ERR_INIT;

	memset(&p->res, 0, sizeof(p->res));
	buf_init(&p->res.details, 0);
	snprintf(set[0], sizeof(set[0]), "SET @@tidb_snapshot = '%s'",
		 p->at.primary_ts);
	snprintf(set[1], sizeof(set[1]), "SET @@tidb_snapshot = '%s'",
		 p->at.secondary_ts);
	pair.comp[0] = up;
	pair.comp[1] = down;
	pair.session[0] = set[0];
	pair.session[1] = set[1];
	pair.tables = &o->tables;
	pair.chunk_rows = o->chunk_rows;
	pair.threads = o->threads;
	pair.max_report = o->max_report;
	if (tablediff_compare_at(ctx, &pair, &p->res, &e)) {
		buf_reset(&p->res.details);
		check_verdict(&p->res, VERDICT_UNKNOWN, "%s", e.msg);
	}
}

/* The points' details, and the verdict they add up to. */
static void verdict(const char *cf, struct point *pts, size_t n,
		    struct check_result *r)
{
	size_t counts[4] = { 0, 0, 0, 0 };
	const struct point *fail = NULL, *unknown = NULL, *last = &pts[n - 1];

	buf_addstr(&r->details, ",\"points\":[", NULL);
	for (size_t i = 0; i < n; i++) {
		struct point *p = &pts[i];

		counts[p->res.verdict]++;
		if (p->res.verdict == VERDICT_FAIL && !fail)
			fail = p;
		if (p->res.verdict == VERDICT_UNKNOWN && !unknown)
			unknown = p;
		buf_printf(&r->details, NULL, "%s{\"primary_ts\":\"%s\","
			   "\"secondary_ts\":\"%s\",\"created_at\":\"%s\","
			   "\"verdict\":\"%s\",\"message\":", i ? "," : "",
			   p->at.primary_ts, p->at.secondary_ts, p->at.created_at,
			   verdict_name(p->res.verdict));
		json_quote(&r->details, p->res.message, NULL);
		buf_add(&r->details, p->res.details.data, p->res.details.len,
			NULL);
		buf_addch(&r->details, '}', NULL);
	}
	buf_addch(&r->details, ']', NULL);
	snprintf(r->numbers, sizeof(r->numbers), "points=%zu differing=%zu "
		 "unknown=%zu", n, counts[VERDICT_FAIL],
		 counts[VERDICT_UNKNOWN]);
	if (fail)
		check_verdict(r, VERDICT_FAIL, "%zu of %zu sync points of "
			      "changefeed %s differ; first at primary_ts %s, "
			      "secondary_ts %s: %s", counts[VERDICT_FAIL], n,
			      cf, fail->at.primary_ts, fail->at.secondary_ts,
			      fail->res.message);
	else if (unknown)
		check_verdict(r, VERDICT_UNKNOWN, "%zu of %zu sync points of "
			      "changefeed %s could not be read; first at "
			      "primary_ts %s, secondary_ts %s: %s",
			      counts[VERDICT_UNKNOWN], n, cf,
			      unknown->at.primary_ts, unknown->at.secondary_ts,
			      unknown->res.message);
	else
		check_verdict(r, VERDICT_PASS, "equal at %zu sync points of "
			      "changefeed %s; the last at primary_ts %s, "
			      "secondary_ts %s: %s", n, cf, last->at.primary_ts,
			      last->at.secondary_ts, last->res.message);
}

static int run(const struct check_ctx *ctx, const struct suite_item *it,
	       struct check_result *r, struct err *e)
{
	const struct syncpoint_opts *o = it->opts;
	const char *cf = cluster_changefeed_id(ctx->cluster, o->changefeed);
	const struct component *up, *down;
	struct sql s = SQL_INIT;
	struct buf v = BUF_INIT;
	struct sync_point *at = NULL;
	struct point *pts = NULL;
	size_t n = 0, done = 0;
	char why[ERR_MSG_MAX + 200] = "";
	int rc;

	up = cluster_first_sql(ctx->cluster, ROLE_UPSTREAM);
	down = cluster_first_sql(ctx->cluster, ROLE_DOWNSTREAM);
	if (!up || !down) {
		check_verdict(r, VERDICT_SKIP, "the cluster has no %s SQL node",
			      up ? "downstream" : "upstream");
		return 0;
	}
	if (ctx->dialect != DIALECT_TIDB) {
		check_verdict(r, VERDICT_SKIP, "%s is %s, not TiDB: sync "
			      "points are read at TiDB snapshots "
			      "(tidb_snapshot) on both sides", up->name,
			      ctx->dialect < 0 ? "unknown" :
			      dialect_name(ctx->dialect));
		return 0;
	}
	rc = syncpoint_store_not_tidb(down, &v, e);
	if (!rc && v.len)
		check_verdict(r, VERDICT_SKIP, "%s is not TiDB (%s): TiCDC "
			      "records sync points only in a TiDB downstream",
			      down->name, buf_str(&v));
	if (rc || v.len) {
		buf_release(&v);
		return rc ? -1 : 0;
	}
	buf_release(&v);
	buf_printf(&r->details, NULL, "\"changefeed\":");
	json_quote(&r->details, cf, NULL);
	rc = component_connect(down, &s, NULL, 10, e) ||
	     syncpoint_store_read(&s, down->name, cf,
				  ctx->cluster->ticdc.keyspace, o->syncpoints,
				  &at, &n, why, sizeof(why), e);
	sql_close(&s);
	pts = xcalloc(n + 1, sizeof(*pts));
	for (size_t i = 0; i < n; i++)
		pts[i].at = at[i];
	free(at);
	if (!rc && !n)
		check_verdict(r, VERDICT_UNKNOWN, "%s", why);
	for (done = 0; !rc && done < n && !check_interrupted(ctx); done++)
		compare_point(ctx, o, up, down, &pts[done]);
	if (!rc && done < n)
		check_verdict(r, VERDICT_UNKNOWN, "interrupted after %zu of "
			      "%zu sync points of changefeed %s", done, n, cf);
	else if (!rc && n)
		verdict(cf, pts, n, r);
	for (size_t i = 0; i < done; i++)
		check_result_release(&pts[i].res);
	free(pts);
	return rc ? -1 : 0;
}

const struct checker_type checker_syncpoint = {
	.kind = { "syncpoint", "upstream and downstream were equal at TiCDC's "
		  "sync points (tidb_snapshot at primary_ts and secondary_ts)",
		  opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct syncpoint_opts) },
	.live = 1,
	.run = run,
	.draw = tablediff_draw,
};
