/*
 * table_ddl: on the normal tables, every `every`, one of drop_create (DROP
 * TABLE, a pause, CREATE TABLE again), drop_recover (DROP TABLE, then
 * TiDB's RECOVER TABLE) and truncate — the table DDL loop of TiCDC's
 * fail_over_ddl_mix. Which op on which table, and when, is in the plan.
 * A drop_recover is skipped, and says why, until TiDB has a GC safe point.
 */
#include <string.h>

#include "core/plan.h"
#include "core/suite.h"
#include "lib/clock.h"
#include "lib/sql.h"
#include "workloads/common.h"

static const char *const ops[] = {
	"drop_create", "drop_recover", "truncate", NULL,
};

struct table_ddl_opts {
	struct wl_scheduled_opts sched;
	int64_t recreate_after;
};

static const struct optspec opts[] = {
	WORKLOAD_COMMON_OPTS,
	WL_SCHEDULED_OPTS("[drop_create, drop_recover, truncate]", ops),
	{ "recreate_after", OPT_DURATION, "500ms", 0, NULL, 0, 0,
	  "drop_create: the pause between DROP and CREATE",
	  OPT_AT(struct table_ddl_opts, recreate_after) },
};

static int threads(const struct suite *s, const struct suite_item *it)
{
	(void)s;
	(void)it;
	return 1;
}

/*
 * Whether a table dropped now can be recovered: RECOVER TABLE needs TiDB's
 * GC safe point, the row 'tikv_gc_safe_point' of mysql.tidb, and refuses
 * without it ("can not get 'tikv_gc_safe_point'", pingcap/tidb
 * pkg/util/gcutil/gcutil.go GetGCSafePoint). TiDB's GC worker writes it
 * on its first tick as GC leader, about a minute after the cluster started
 * (pkg/store/gcworker/gc_worker.go). Dropped before then, the table could
 * not be brought back and every later op on it would fail at its DROP.
 * 1 when the row is there, 0 when not yet, -1 when it could not be read
 * (the op goes on, and its statements meet what is wrong).
 */
static int gc_safe_point(struct worker *w)
{
	struct buf v = BUF_INIT;
	struct err e = ERR_INIT;
	int rc;

	if (worker_connect(w))
		return -1;
	rc = sql_value(&w->conn, "SELECT VARIABLE_VALUE FROM mysql.tidb "
		       "WHERE VARIABLE_NAME = 'tikv_gc_safe_point'", &v, &e);
	buf_release(&v);
	return rc < 0 ? -1 : !rc;
}

static void run_op(struct worker *w, const struct plan_event *ev)
{
	const struct suite_table *t = suite_table(w->suite, ev->table);
	struct buf drop = BUF_INIT, second = BUF_INIT;
	const char *stmts[3] = { NULL, NULL, NULL };
	struct err e = ERR_INIT;

	if (!strcmp(ev->op, "drop_recover") && w->dialect != DIALECT_TIDB) {
		worker_skip(w, ev->op, ev->table, "RECOVER TABLE needs TiDB");
		return;
	}
	if (!strcmp(ev->op, "drop_recover") && !gc_safe_point(w)) {
		worker_skip(w, ev->op, ev->table, "RECOVER TABLE needs TiDB's "
			    "GC safe point (mysql.tidb tikv_gc_safe_point), "
			    "not written yet");
		return;
	}
	if (!strcmp(ev->op, "truncate")) {
		buf_addstr(&drop, "TRUNCATE TABLE ", NULL);
		wl_table(&drop, w, ev->table, NULL);
		stmts[0] = buf_str(&drop);
		wl_op(w, ev->op, ev->table, stmts, -1);
		goto out;
	}
	buf_addstr(&drop, "DROP TABLE ", NULL);
	wl_table(&drop, w, ev->table, NULL);
	if (!strcmp(ev->op, "drop_recover")) {
		buf_addstr(&second, "RECOVER TABLE ", NULL);
		wl_table(&second, w, ev->table, NULL);
		stmts[0] = buf_str(&drop);
		stmts[1] = buf_str(&second);
		wl_op(w, ev->op, ev->table, stmts, -1);
		goto out;
	}
	/* drop_create: one operation of two statements with a pause; the
	 * CREATE follows even when the run is stopping, so no table is left
	 * dropped by the workload itself. */
	suite_create_sql(w->suite, t, &second, NULL);
	if (worker_connect(w))
		goto out;
	worker_invoke(w, ev->op, ev->table);
	if (!sql_exec(&w->conn, buf_str(&drop), &e)) {
		clock_sleep_ns(((const struct table_ddl_opts *)w->item->opts)
			       ->recreate_after);
		if (sql_exec(&w->conn, buf_str(&second), &e))
			w->conn.last_class = SQL_AMBIGUOUS;	/* half done */
	}
	worker_complete(w, ev->op, ev->table, -1, &e);
out:
	buf_release(&drop);
	buf_release(&second);
}

const struct workload_type workload_table_ddl = {
	.kind = { "table_ddl", "scheduled DROP+CREATE, DROP+RECOVER TABLE "
		  "(TiDB) and TRUNCATE on normal tables",
		  opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct table_ddl_opts), .plan = wl_plan_every,
		  WORKLOAD_SCHEDULED,
		  .flags = KIND_DDL },
	.threads = threads,
	.run_op = run_op,
};
