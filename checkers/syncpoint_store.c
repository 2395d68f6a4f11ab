/*
 * The sync points TiCDC records in a downstream, tidb_cdc.syncpoint_v1
 * (the table, how TiCDC fills it, and what a downstream that is not TiDB
 * gets: checkers/syncpoint.c), read for the checks that compare at them:
 * syncpoint and bank.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/checker.h"
#include "checkers/syncpoint_store.h"
#include "clusters/cluster.h"
#include "core/worker.h"
#include "lib/buf.h"
#include "lib/sql.h"

/*
 * The keyspace the new TiCDC files a changefeed under when none is named
 * (pingcap/ticdc pkg/common/types.go DefaultKeyspaceName): the one read
 * when the topology's ticdc section names none.
 */
#define TICDC_DEFAULT_KEYSPACE "default"

/* MySQL errors: no such database, no such table. */
#define ER_BAD_DB_ERROR 1049
#define ER_NO_SUCH_TABLE 1146

/* A TSO as TiCDC writes it: 1 to 20 digits. */
static int is_tso(const char *v)
{
	size_t n = v ? strspn(v, "0123456789") : 0;

	return n && n <= 20 && !v[n];
}

int syncpoint_store_read(struct sql *down, const char *down_name,
			 const char *cf, const char *keyspace, int64_t want,
			 struct sync_point **out, size_t *n, char *why,
			 size_t whysize, struct err *e)
{
	struct sql_result res = SQL_RESULT_INIT;
	struct buf q = BUF_INIT, newarch = BUF_INIT;
	struct err qe = ERR_INIT;
	int rc;

	*out = NULL;
	*n = 0;
	if (!keyspace)
		keyspace = TICDC_DEFAULT_KEYSPACE;
	buf_printf(&newarch, NULL, "%s/%s", keyspace, cf);
	buf_addstr(&q, "SELECT primary_ts, secondary_ts, created_at FROM "
		   "tidb_cdc.syncpoint_v1 WHERE changefeed IN (", NULL);
	sql_quote_string(&q, cf, NULL);
	buf_addstr(&q, ", ", NULL);
	sql_quote_string(&q, buf_str(&newarch), NULL);
	buf_printf(&q, NULL, ") ORDER BY CAST(primary_ts AS UNSIGNED) DESC "
		   "LIMIT %lld", (long long)want);
	buf_release(&newarch);
	rc = sql_query(down, buf_str(&q), &res, &qe);
	buf_release(&q);
	if (rc && (down->last_errno == ER_NO_SUCH_TABLE ||
		   down->last_errno == ER_BAD_DB_ERROR)) {
		snprintf(why, whysize, "%s has no tidb_cdc.syncpoint_v1: "
			 "changefeed %s records no sync points "
			 "(enable-sync-point) (%s)", down_name, cf, qe.msg);
		return 0;
	}
	if (rc)
		return err_set(e, qe.class, "%s", qe.msg);
	if (!res.nrows)
		snprintf(why, whysize, "no sync point of changefeed %s in "
			 "tidb_cdc.syncpoint_v1 on %s (as %s or %s/%s): none "
			 "reached yet (sync-point-interval, default 10m)?",
			 cf, down_name, cf, keyspace, cf);
	*out = xcalloc(res.nrows + 1, sizeof(**out));
	for (size_t i = 0; i < res.nrows; i++) {
		struct sync_point *p = &(*out)[res.nrows - 1 - i];
		const char *pt = res.cells[i * res.ncols];
		const char *st = res.cells[i * res.ncols + 1];
		const char *at = res.cells[i * res.ncols + 2];

		if (!is_tso(pt) || !is_tso(st)) {
			rc = err_set(e, ERR_INFRA, "%s: tidb_cdc.syncpoint_v1 "
				     "of changefeed %s holds a point that is "
				     "no TSO: primary_ts '%s', secondary_ts "
				     "'%s'", down_name, cf, pt ? pt : "NULL",
				     st ? st : "NULL");
			break;
		}
		snprintf(p->primary_ts, sizeof(p->primary_ts), "%s", pt);
		snprintf(p->secondary_ts, sizeof(p->secondary_ts), "%s", st);
		snprintf(p->created_at, sizeof(p->created_at), "%s",
			 at ? at : "");
	}
	if (!rc)
		*n = res.nrows;
	if (rc) {
		free(*out);
		*out = NULL;
	}
	sql_result_release(&res);
	return rc;
}

int syncpoint_store_not_tidb(const struct component *down, struct buf *v,
			     struct err *e)
{
	struct sql s = SQL_INIT;
	int rc;

	rc = component_connect(down, &s, NULL, 10, e) ||
	     sql_value(&s, "SELECT VERSION()", v, e) < 0;
	sql_close(&s);
	if (!rc && strstr(buf_str(v), "TiDB"))
		buf_reset(v);
	return rc ? -1 : 0;
}

int syncpoint_store_points(const struct check_ctx *ctx, const char *cf,
			   int64_t want, const char *what,
			   const struct component *up,
			   const struct component *down,
			   struct sync_point **pts, size_t *n,
			   struct check_result *r, struct err *e)
{
	struct sql s = SQL_INIT;
	struct buf v = BUF_INIT;
	char why[ERR_MSG_MAX + 200] = "";
	int rc;

	if (ctx->dialect != DIALECT_TIDB) {
		check_verdict(r, VERDICT_UNKNOWN, "syncpoints: %s is %s, not "
			      "TiDB: the sync points' %s are read at TiDB "
			      "snapshots (tidb_snapshot) on both sides",
			      up->name, ctx->dialect < 0 ? "unknown" :
			      dialect_name(ctx->dialect), what);
		return 1;
	}
	rc = syncpoint_store_not_tidb(down, &v, e);
	if (!rc && v.len)
		check_verdict(r, VERDICT_UNKNOWN, "syncpoints: %s is not TiDB "
			      "(%s): TiCDC records sync points only in a TiDB "
			      "downstream", down->name, buf_str(&v));
	rc = rc ? -1 : v.len ? 1 : 0;
	buf_release(&v);
	if (!rc)
		rc = component_connect(down, &s, NULL, 60, e) ||
		     syncpoint_store_read(&s, down->name, cf,
					  ctx->cluster->ticdc.keyspace, want,
					  pts, n, why, sizeof(why), e) ? -1 : 0;
	sql_close(&s);
	if (!rc && !*n) {
		check_verdict(r, VERDICT_UNKNOWN, "syncpoints: %s", why);
		rc = 1;
	}
	return rc;
}

int syncpoint_store_connect_at(const struct component *c, const char *ts,
			       struct sql *s, struct err *e)
{
	struct err se = ERR_INIT;
	char set[64];

	snprintf(set, sizeof(set), "SET @@tidb_snapshot = '%s'", ts);
	if (component_connect(c, s, NULL, 60, e))
		return -1;
	if (!sql_exec(s, set, &se))
		return 0;
	sql_close(s);
	return err_set(e, se.class, "%s: %s: %s", c->name, set, se.msg);
}
