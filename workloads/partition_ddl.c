/*
 * partition_ddl: on RANGE-partitioned tables, every `every`, one of
 *
 *   drop_add            DROP the last (MAXVALUE) partition, ADD it again
 *   truncate            TRUNCATE every partition, one statement each
 *   remove_repartition  REMOVE PARTITIONING, then PARTITION BY `repartition`
 *   exchange            EXCHANGE the first partition WITH a normal table
 *                       (errors are expected: rows outside the range)
 *   reorganize          split the first partition into three at a quarter,
 *                       half and all of its bound, then merge them back
 *
 * — the partition DDL loop of TiCDC's fail_over_ddl_mix with every op
 * enabled, as its script does them: the truncate case truncates p0, p1 and p2
 * in three statements, and drop_add, remove_repartition and reorganize pause
 * `pause` (its `sleep 0.5`) between their two statements
 * (tests/integration_tests/fail_over_ddl_mix/run.sh in pingcap/tiflow).
 * Partition names and bounds are read from the server before each op, so they
 * follow the suite's definitions and whatever earlier ops did; nothing about
 * them is fixed here.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/plan.h"
#include "core/suite.h"
#include "lib/parse.h"
#include "lib/sql.h"
#include "workloads/common.h"

static const char *const ops[] = {
	"drop_add", "truncate", "remove_repartition", "exchange",
	"reorganize", NULL,
};

struct partition_ddl_opts {
	struct wl_scheduled_opts sched;
	const char *repartition;	/* NULL: the table's own */
	int64_t pause;
	int bare_names;		/* partition names unquoted where plain */
};

static const struct optspec opts[] = {
	WORKLOAD_COMMON_OPTS,
	WL_SCHEDULED_OPTS("[drop_add, truncate, remove_repartition, exchange, "
			  "reorganize]", ops),
	{ "repartition", OPT_SQL, NULL, 0, NULL, 0, 0,
	  "remove_repartition: the new partitioning (default: the table's "
	  "own)", OPT_AT(struct partition_ddl_opts, repartition) },
	{ "exchange_with", OPT_TABLES, NULL, 0, NULL, 0, 0,
	  "exchange: the tables to swap with (default: the suite's "
	  "unpartitioned tables)",
	  OPT_AT(struct partition_ddl_opts, sched.exchange_with) },
	{ "pause", OPT_DURATION, "500ms", 0, NULL, 0, 0,
	  "drop_add, remove_repartition, reorganize: the pause between "
	  "their two statements", OPT_AT(struct partition_ddl_opts, pause) },
	{ "bare_names", OPT_BOOL, "false", 0, NULL, 0, 0,
	  "write partition names without backquotes where they need none "
	  "(p0), as TiCDC's test script does",
	  OPT_AT(struct partition_ddl_opts, bare_names) },
};

/* Most statements of one operation: truncate has one per partition. */
#define MAX_STATEMENTS 64

static int is_range(const char *partition)
{
	while (isspace((unsigned char)*partition))
		partition++;
	return !strncasecmp(partition, "RANGE", 5) &&
	       (isspace((unsigned char)partition[5]) || partition[5] == '(');
}

static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	const struct partition_ddl_opts *o = it->opts;
	const struct optlist *tables = &o->sched.common.tables;
	const struct optlist *opv = &o->sched.ops;
	const struct optlist *with = &o->sched.exchange_with;
	const struct optval *where = suite_optval(it, tables);
	struct ynode at = { YNODE_SCALAR, where->line, where->col, NULL, 0,
			    NULL, 0 };
	size_t normal = 0;

	for (size_t i = 0; i < tables->n; i++) {
		const struct suite_table *t = suite_table(s, tables->v[i]);

		if (!t->partition || !is_range(t->partition))
			return ynode_error(e, s->path, &at, "workload "
					   "'partition_ddl' needs RANGE "
					   "partitioned tables; '%s' is not",
					   t->name);
	}
	if (o->repartition && !is_range(o->repartition)) {
		where = suite_optval(it, &o->repartition);
		at.line = where->line;
		at.col = where->col;
		return ynode_error(e, s->path, &at, "repartition in workload "
				   "'partition_ddl' must be RANGE "
				   "partitioning");
	}
	for (size_t i = 0; i < with->n; i++)
		if (suite_table(s, with->v[i])->partition) {
			where = suite_optval(it, with);
			at.line = where->line;
			at.col = where->col;
			return ynode_error(e, s->path, &at, "exchange_with in "
					   "workload 'partition_ddl': '%s' is "
					   "partitioned; EXCHANGE PARTITION "
					   "needs a table without partitions",
					   with->v[i]);
		}
	for (size_t i = 0; i < s->ntables; i++)
		normal += !s->tables[i].partition;
	for (size_t i = 0; i < opv->n; i++)
		if (!strcmp(opv->v[i], "exchange") && !with->n && !normal) {
			at.line = it->line;
			at.col = it->col;
			return ynode_error(e, s->path, &at, "exchange in "
					   "workload 'partition_ddl' needs a "
					   "table without partitions (add one, "
					   "or set exchange_with)");
		}
	return 0;
}

static int threads(const struct suite *s, const struct suite_item *it)
{
	(void)s;
	(void)it;
	return 1;
}

static int read_partitions(struct worker *w, const char *table,
			   struct sql_result *r, struct err *e)
{
	struct buf q = BUF_INIT;
	int rc;

	rc = buf_addstr(&q, "SELECT PARTITION_NAME, PARTITION_DESCRIPTION "
			"FROM information_schema.PARTITIONS WHERE "
			"TABLE_SCHEMA = ", e) ||
	     sql_quote_string(&q, w->suite->database, e) ||
	     buf_addstr(&q, " AND TABLE_NAME = ", e) ||
	     sql_quote_string(&q, table, e) ||
	     buf_addstr(&q, " AND PARTITION_NAME IS NOT NULL ORDER BY "
			"PARTITION_ORDINAL_POSITION", e) ||
	     sql_query(&w->conn, buf_str(&q), r, e);
	buf_release(&q);
	if (!rc && !r->nrows)
		rc = err_set(e, ERR_INFRA, "'%s' is not partitioned", table);
	return rc ? -1 : 0;
}

/*
 * How a partition name is written: in backquotes, or, with bare_names,
 * without them when it is a plain identifier (letters, digits, _ and $,
 * not all digits), as TiCDC's fail_over_ddl_mix writes p0. tiflow's TiCDC
 * (cdc/model/sink.go, BuildDDLEvent, through c7b2588) puts the name it
 * cuts from an EXCHANGE PARTITION statement in backquotes again: a quoted
 * one becomes ``p0``, which its owner cannot parse, and the changefeed
 * stops there (docs/found.md).
 */
static const char *quote(const struct worker *w, const char *name)
{
	const struct partition_ddl_opts *o = w->item->opts;
	int digits = 1;

	if (!o->bare_names)
		return "`";
	for (const char *c = name; *c; c++) {
		if (!isalnum((unsigned char)*c) && *c != '_' && *c != '$')
			return "`";
		digits = digits && isdigit((unsigned char)*c);
	}
	return *name && !digits ? "" : "`";
}

/* A partition name's three printf arguments: quote, name, quote. */
#define Q(name) quote(w, name), (name), quote(w, name)

/* ALTER TABLE `db`.`t` + the rest, as one statement in `q` (reset). */
static int alter(struct buf *q, struct worker *w, const char *table,
		 struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int alter(struct buf *q, struct worker *w, const char *table,
		 struct err *e, const char *fmt, ...)
{
	va_list ap;
	int rc;

	buf_reset(q);
	rc = buf_addstr(q, "ALTER TABLE ", e) || wl_table(q, w, table, e) ||
	     buf_addch(q, ' ', e);
	va_start(ap, fmt);
	rc = rc || buf_vprintf(q, e, fmt, ap);
	va_end(ap);
	return rc ? -1 : 0;
}

/*
 * Build the op's statements from the table's partitions as they are:
 * `a` then `b` (may stay empty); truncate fills stmts[0..*n) instead.
 */
static int build(struct worker *w, const struct plan_event *ev,
		 const struct sql_result *parts, struct buf *a, struct buf *b,
		 struct buf *stmts, size_t *n, struct err *e)
{
	const char *first = parts->cells[0];
	const char *first_bound = parts->cells[1];
	const char *last = parts->cells[(parts->nrows - 1) * 2];
	const char *last_bound = parts->cells[(parts->nrows - 1) * 2 + 1];
	const struct suite_table *t = suite_table(w->suite, ev->table);
	const struct partition_ddl_opts *o = w->item->opts;
	int64_t bound;

	if (!strcmp(ev->op, "truncate")) {
		for (*n = 0; *n < parts->nrows && *n < MAX_STATEMENTS; (*n)++)
			if (alter(&stmts[*n], w, ev->table, e, "TRUNCATE "
				  "PARTITION %s%s%s", Q(parts->cells[*n * 2])))
				return -1;
		return 0;
	}
	if (!strcmp(ev->op, "drop_add")) {
		if (!last_bound || strcmp(last_bound, "MAXVALUE"))
			return err_set(e, ERR_INFRA, "the last partition of "
				       "'%s' is not MAXVALUE", ev->table);
		return alter(a, w, ev->table, e, "DROP PARTITION %s%s%s",
			     Q(last)) ||
		       alter(b, w, ev->table, e, "ADD PARTITION (PARTITION "
			     "%s%s%s VALUES LESS THAN MAXVALUE)", Q(last));
	}
	if (!strcmp(ev->op, "remove_repartition"))
		return alter(a, w, ev->table, e, "REMOVE PARTITIONING") ||
		       alter(b, w, ev->table, e, "PARTITION BY %s",
			     o->repartition ? o->repartition : t->partition);
	if (!strcmp(ev->op, "exchange"))
		return alter(a, w, ev->table, e, "EXCHANGE PARTITION %s%s%s "
			     "WITH TABLE `%s`.`%s`", Q(first),
			     w->suite->database, ev->with);
	/* reorganize */
	if (!first_bound ||
	    parse_int64(first_bound, 4, INT64_MAX, &bound, NULL))
		return err_set(e, ERR_INFRA, "the first partition of '%s' "
			       "has no integer bound of 4 or more to split",
			       ev->table);
	return alter(a, w, ev->table, e, "REORGANIZE PARTITION %s%s%s INTO "
		     "(PARTITION %s%s0%s VALUES LESS THAN (%lld), PARTITION "
		     "%s%s1%s VALUES LESS THAN (%lld), PARTITION %s%s2%s "
		     "VALUES LESS THAN (%lld))", Q(first), Q(first),
		     (long long)bound / 4, Q(first), (long long)bound / 2,
		     Q(first), (long long)bound) ||
	       alter(b, w, ev->table, e, "REORGANIZE PARTITION %s%s0%s, "
		     "%s%s1%s, %s%s2%s INTO (PARTITION %s%s%s VALUES LESS THAN "
		     "(%lld))", Q(first), Q(first), Q(first), Q(first),
		     (long long)bound);
}

/*
 * Run the statements in order, stopping at the first that fails; one
 * that fails after another succeeded leaves the op half done (ambiguous).
 */
static void exec_all(struct worker *w, struct buf *stmts, size_t n,
		     int64_t pause_ns, struct err *e)
{
	for (size_t i = 0; i < n; i++) {
		if (i && pause_ns > 0)
			worker_sleep(w, pause_ns);
		if (sql_exec(&w->conn, buf_str(&stmts[i]), e)) {
			if (i)
				w->conn.last_class = SQL_AMBIGUOUS;
			return;
		}
	}
}

static void run_op(struct worker *w, const struct plan_event *ev)
{
	struct sql_result parts = SQL_RESULT_INIT;
	struct buf stmts[MAX_STATEMENTS];
	struct err e = ERR_INIT;
	size_t n = 0;

	for (size_t i = 0; i < MAX_STATEMENTS; i++)
		buf_init(&stmts[i], 0);
	if (worker_connect(w))
		return;
	worker_invoke(w, ev->op, ev->table);
	if (!read_partitions(w, ev->table, &parts, &e) &&
	    !build(w, ev, &parts, &stmts[0], &stmts[1], stmts, &n, &e))
		exec_all(w, stmts, n ? n : stmts[1].len ? 2 : 1,
			 n ? 0 : ((const struct partition_ddl_opts *)
				  w->item->opts)->pause, &e);
	worker_complete(w, ev->op, ev->table, -1, &e);
	sql_result_release(&parts);
	for (size_t i = 0; i < MAX_STATEMENTS; i++)
		buf_release(&stmts[i]);
}

const struct workload_type workload_partition_ddl = {
	.kind = { "partition_ddl", "scheduled DROP/ADD, TRUNCATE, REMOVE and "
		  "re-PARTITION, EXCHANGE and REORGANIZE of RANGE partitions",
		  opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct partition_ddl_opts), .check = check,
		  .plan = wl_plan_every, WORKLOAD_SCHEDULED,
		  .flags = KIND_DDL },
	.threads = threads,
	.run_op = run_op,
};
