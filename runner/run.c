/*
 * A run, stage by stage (docs/internals.md, The life of a run): the
 * suite and its plan, the cluster, the schema, the workers and the
 * nemesis for the duration, the heals, the checks, the teardown. Its
 * state is in run_state.h; its directory, its progress line and its
 * results have files of their own (rundir.c, progress.c, results.c).
 */
#include "runner/run_state.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clusters/api.h"
#include "clusters/cluster.h"
#include "faults/fault.h"
#include "core/plan.h"
#include "core/suite.h"
#include "lib/cancel.h"
#include "lib/clock.h"
#include "lib/hist.h"
#include "lib/history.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "lib/proc.h"
#include "lib/rand.h"
#include "lib/sql.h"
#include "lib/ynode.h"
#include "reports/report.h"
#include "runner/checks.h"
#include "runner/kinds.h"
#include "runner/nemesis.h"
#include "runner/resolve.h"
#include "runner/runner.h"
#include "workloads/workload.h"

/* Signals seen: 1 asks for a graceful stop. */
static volatile sig_atomic_t interrupted;
/*
 * The run's token (lib/cancel.h), reached from the signal handler: the
 * end of the run raises it to CANCEL_STOP; a ^C, or an abort (a full
 * disk), to CANCEL_HURRY; a second one to CANCEL_KILL.
 */
static struct cancel cancel = CANCEL_INIT;

void run_interrupt(void)
{
	interrupted++;
	cancel_escalate(&cancel, CANCEL_HURRY);
}


/*
 * Has a run file failed to be written (the history, the run log)? Then
 * the run stops as if interrupted, at once, and says why: the space
 * held back is given back for the heals and the reports.
 */
static int run_files_failed(struct state *st)
{
	struct err e = ERR_INIT;

	if (st->aborted[0])
		return 1;
	if ((st->run.history && history_failed(st->run.history, &e)) ||
	    log_write_error(e.msg, sizeof(e.msg))) {
		snprintf(st->aborted, sizeof(st->aborted), "%s", e.msg);
		cancel_escalate(&cancel, CANCEL_HURRY);
		run_release_space(st);
		log_error("%s: stopping the run", st->aborted);
		return 1;
	}
	return 0;
}

static int detect_dialect(const struct component *comp, int *dialect,
			  struct err *e)
{
	struct sql s = SQL_INIT;
	struct buf v = BUF_INIT;
	int rc;

	rc = component_connect(comp, &s, NULL, 10, e) ||
	     sql_value(&s, "SELECT VERSION()", &v, e) < 0;
	if (!rc)
		*dialect = strstr(buf_str(&v), "TiDB") ? DIALECT_TIDB
			   : strstr(buf_str(&v), "MariaDB") ? DIALECT_MARIADB
			   : DIALECT_MYSQL;
	sql_close(&s);
	buf_release(&v);
	return rc ? -1 : 0;
}

/* What the suite requires that this cluster lacks, or NULL. */
static const char *missing_requirement(const struct state *st)
{
	int has_ticdc = 0;

	for (size_t i = 0; i < st->cluster.ncomps; i++)
		if ((st->cluster.comps[i].roles & ROLE_CDC) &&
		    st->cluster.comps[i].http_url)
			has_ticdc = 1;
	if ((st->suite.requires & REQUIRE_TIDB) &&
	    st->dialect != DIALECT_TIDB)
		return "tidb";
	if ((st->suite.requires & REQUIRE_TICDC) && !has_ticdc)
		return "ticdc";
	if ((st->suite.requires & REQUIRE_MARIADB) &&
	    st->dialect != DIALECT_MARIADB)
		return "mariadb";
	return NULL;
}

static int create_schema(struct state *st, struct err *e)
{
	const struct component *up = st->ups[0];
	struct sql s = SQL_INIT;
	struct buf q = BUF_INIT;
	int rc;

	rc = component_connect(up, &s, NULL, 10, e) ||
	     buf_addstr(&q, "CREATE DATABASE IF NOT EXISTS ", e) ||
	     sql_quote_ident(&q, st->suite.database, e) ||
	     sql_exec(&s, buf_str(&q), e);
	for (size_t i = 0; !rc && i < st->suite.ntables; i++) {
		const struct suite_table *t = &st->suite.tables[i];

		buf_reset(&q);
		rc = buf_addstr(&q, "DROP TABLE IF EXISTS ", e) ||
		     sql_quote_ident(&q, st->suite.database, e) ||
		     buf_addch(&q, '.', e) || sql_quote_ident(&q, t->name, e) ||
		     sql_exec(&s, buf_str(&q), e);
		buf_reset(&q);
		rc = rc || suite_create_sql(&st->suite, t, &q, e) ||
		     sql_exec(&s, buf_str(&q), e);
	}
	sql_close(&s);
	buf_release(&q);
	return rc ? -1 : 0;
}

/* The workloads' own rows (struct workload_type.setup), upstream. */
static int setup_workloads(struct state *st, struct err *e)
{
	struct sql s = SQL_INIT;
	int rc = 0;

	for (size_t i = 0; !rc && i < st->suite.nworkloads; i++) {
		const struct suite_item *it = &st->suite.workloads[i];
		const struct workload_type *t = workload_type_of(it);

		if (!t->setup)
			continue;
		if (!s.my)
			rc = component_connect(st->ups[0], &s, NULL, 10, e);
		rc = rc || t->setup(&st->suite, it, &s, e);
	}
	sql_close(&s);
	return rc ? -1 : 0;
}

/*
 * On a cluster with TiCDC, every table of the suite must be one TiCDC
 * replicates: with a primary key, or a unique key on NOT NULL columns
 * (TableInfo.IsEligible in pingcap/tiflow cdc/model/schema_storage.go;
 * others are skipped unless the changefeed forces them). Read from the
 * upstream as created, so the server's reading of the columns decides.
 * Else a usage error at the table's line.
 */
static int ticdc_eligible(struct state *st, struct err *e)
{
	const struct component *up = st->ups[0];
	struct sql s = SQL_INIT;
	struct buf q = BUF_INIT, v = BUF_INIT;
	int rc = 0;

	if (!cluster_ticdc(&st->cluster))
		return 0;
	rc = component_connect(up, &s, NULL, 10, e);
	for (size_t i = 0; !rc && i < st->suite.ntables; i++) {
		const struct suite_table *t = &st->suite.tables[i];
		struct ynode at = { YNODE_SCALAR, t->line, t->col, NULL, 0,
				    NULL, 0 };

		buf_reset(&q);
		rc = buf_addstr(&q, "SELECT COUNT(*) FROM (SELECT s.INDEX_NAME "
				"FROM information_schema.STATISTICS s JOIN "
				"information_schema.COLUMNS c ON c.TABLE_SCHEMA "
				"= s.TABLE_SCHEMA AND c.TABLE_NAME = "
				"s.TABLE_NAME AND c.COLUMN_NAME = s.COLUMN_NAME "
				"WHERE s.NON_UNIQUE = 0 AND s.TABLE_SCHEMA = ",
				e) ||
		     sql_quote_string(&q, st->suite.database, e) ||
		     buf_addstr(&q, " AND s.TABLE_NAME = ", e) ||
		     sql_quote_string(&q, t->name, e) ||
		     buf_addstr(&q, " GROUP BY s.INDEX_NAME HAVING SUM("
				"c.IS_NULLABLE = 'YES') = 0) k", e) ||
		     sql_value(&s, buf_str(&q), &v, e) < 0;
		if (!rc && !strcmp(buf_str(&v), "0"))
			rc = ynode_error(e, st->suite.path, &at, "table '%s' "
					 "has no primary key and no unique key "
					 "on NOT NULL columns: TiCDC does not "
					 "replicate it", t->name);
	}
	sql_close(&s);
	buf_release(&q);
	buf_release(&v);
	return rc ? -1 : 0;
}

/*
 * Wait until every downstream answers `query` with `want`, polled every
 * 100 ms, 60 s at most; else "<component>: <what> did not arrive within
 * 60s (<answer> of <want>): <last error>" (ERR_INFRA).
 */
static int await_downstreams(struct state *st, const char *query,
			     const char *want, const char *what,
			     struct err *e)
{
	int64_t deadline = clock_mono_ns() + 60 * NS_PER_SEC;
	struct buf v = BUF_INIT;
	int rc = 0;

	for (size_t i = 0; !rc && i < st->cluster.ncomps; i++) {
		const struct component *c = &st->cluster.comps[i];
		struct err last = ERR_INIT;

		if (!(c->roles & ROLE_DOWNSTREAM) || !c->sql_port)
			continue;
		for (;;) {
			struct sql s = SQL_INIT;
			int got;

			err_clear(&last);
			buf_reset(&v);
			got = !component_connect(c, &s, NULL, 5, &last) &&
			      sql_value(&s, query, &v, &last) == 0 &&
			      !strcmp(buf_str(&v), want);
			sql_close(&s);
			if (got)
				break;
			if (interrupted || clock_mono_ns() >= deadline) {
				rc = err_set(e, ERR_INFRA, "%s: %s did not "
					     "arrive within 60s (%s of %s)%s%s",
					     c->name, what,
					     v.len ? buf_str(&v) : "?", want,
					     err_isset(&last) ? ": " : "",
					     last.msg);
				break;
			}
			clock_sleep_ns(100 * NS_PER_MS);
		}
	}
	buf_release(&v);
	return rc ? -1 : 0;
}

/* Wait until every downstream has every table of the suite. */
static int await_schema(struct state *st, struct err *e)
{
	struct buf q = BUF_INIT;
	char want[32];
	int rc = 0;

	snprintf(want, sizeof(want), "%zu", st->suite.ntables);
	rc = buf_addstr(&q, "SELECT COUNT(*) FROM information_schema.TABLES "
			"WHERE TABLE_SCHEMA = ", e) ||
	     sql_quote_string(&q, st->suite.database, e);
	for (size_t i = 0; !rc && i < st->suite.ntables; i++)
		rc = buf_addstr(&q, i ? ", " : " AND TABLE_NAME IN (", e) ||
		     sql_quote_string(&q, st->suite.tables[i].name, e);
	rc = rc || buf_addch(&q, ')', e) ||
	     await_downstreams(st, buf_str(&q), want, "the suite's tables", e);
	buf_release(&q);
	return rc ? -1 : 0;
}

/* "SELECT CONCAT_WS(',', COUNT(*) of each table of the suite)". */
static int count_rows_query(const struct suite *s, struct buf *q,
			    struct err *e)
{
	int rc = buf_addstr(q, "SELECT CONCAT_WS(','", e);

	for (size_t i = 0; !rc && i < s->ntables; i++)
		rc = buf_addstr(q, ", (SELECT COUNT(*) FROM ", e) ||
		     sql_quote_ident(q, s->database, e) ||
		     buf_addch(q, '.', e) ||
		     sql_quote_ident(q, s->tables[i].name, e) ||
		     buf_addch(q, ')', e);
	return rc || buf_addch(q, ')', e) ? -1 : 0;
}

/*
 * After a workload's setup (struct workload_type.setup): wait until
 * every downstream holds as many rows in each table as the upstream,
 * so that no operation, nor a read of the downstream, comes before the
 * setup's rows.
 */
static int await_setup(struct state *st, struct err *e)
{
	struct buf q = BUF_INIT, want = BUF_INIT;
	struct sql s = SQL_INIT;
	int rc = 0, any = 0;

	for (size_t i = 0; i < st->suite.nworkloads; i++)
		any |= workload_type_of(&st->suite.workloads[i])->setup != NULL;
	if (!any)
		return 0;
	rc = count_rows_query(&st->suite, &q, e) ||
	     component_connect(st->ups[0], &s, NULL, 10, e) ||
	     sql_value(&s, buf_str(&q), &want, e) < 0;
	sql_close(&s);
	rc = rc || await_downstreams(st, buf_str(&q), buf_str(&want),
				     "the workloads' setup rows", e);
	buf_release(&q);
	buf_release(&want);
	return rc ? -1 : 0;
}

/* Give each worker its share of the item's tables (round robin). */
static void share_tables(struct worker *w, const struct optlist *tables)
{
	size_t n = 0;

	w->tables = xcalloc(tables->n + 1, sizeof(*w->tables));
	if ((size_t)w->nthreads >= tables->n) {
		w->tables[n++] = tables->v[(size_t)w->thread % tables->n];
	} else {
		for (size_t i = (size_t)w->thread; i < tables->n;
		     i += (size_t)w->nthreads)
			w->tables[n++] = tables->v[i];
	}
	w->ntables = n;
}

static int start_workers(struct state *st, const struct run_options *o,
			 struct err *e)
{
	struct rand root;
	size_t total = 0, k = 0;

	for (size_t i = 0; i < st->suite.nworkloads; i++) {
		const struct suite_item *it = &st->suite.workloads[i];
		const struct workload_type *t = workload_type_of(it);

		total += (size_t)t->threads(&st->suite, it);
	}
	st->workers = xcalloc(total + 1, sizeof(*st->workers));
	st->threads = xcalloc(total + 1, sizeof(*st->threads));
	st->env.plan = &st->plan;
	st->env.history = st->run.history;
	st->env.cancel = st->run.cancel;
	st->env.connect = component_connect;
	/* A MySQL / MariaDB replica (the local cluster's, or a topology's
	 * `replicates`) applies the upstream's transactions whole. */
	for (size_t i = 0; i < st->cluster.ncomps; i++) {
		const struct component *c = &st->cluster.comps[i];

		if ((c->roles & ROLE_DOWNSTREAM) && c->sql_port &&
		    c->replicates && !st->env.replica) {
			st->env.replica = c;
			st->env.replica_name = c->name;
		}
	}
	/* Workers draw from their own stream, apart from the plan's. */
	rand_seed(&root, st->plan.seed ^ UINT64_C(0x5f3759df2b1e7c4d));
	for (size_t i = 0; i < st->suite.nworkloads; i++) {
		const struct suite_item *it = &st->suite.workloads[i];
		const struct workload_type *t = workload_type_of(it);
		int n = t->threads(&st->suite, it);
		double rate = workload_opts_of(it)->rate;

		for (int j = 0; j < n; j++, k++) {
			struct worker *w = &st->workers[k];
			const struct component *node = st->ups[k % st->nups];

			w->suite = &st->suite;
			w->item = it;
			w->item_index = (int)i;
			w->thread = j;
			w->nthreads = n;
			w->process = (int)k;
			rand_split(&root, &w->rng);
			w->node = node->name;
			w->comp = node;
			w->dialect = st->dialect;
			w->env = &st->env;
			if (rate > 0)
				w->pace_ns = (int64_t)((double)n * NS_PER_SEC /
						       rate);
			/* Steps of a second, longer for long runs, and 10 %
			 * past the end for the last operations. */
			w->step_ns = run_latency_step(st->plan.duration_ns);
			w->steps = (size_t)(st->plan.duration_ns /
					    w->step_ns) + 60;
			w->latency = xcalloc(w->steps, sizeof(*w->latency));
			w->ok_per_step = xcalloc(w->steps,
						 sizeof(*w->ok_per_step));
			w->errors_per_step = xcalloc(w->steps,
						     sizeof(*w->errors_per_step));
			share_tables(w, &workload_opts_of(it)->tables);
		}
	}
	st->nworkers = total;
	if (run_write_stub(st, o, e))
		return -1;
	for (size_t i = 0; i < total; i++) {
		int rc = pthread_create(&st->threads[i], NULL, workload_thread,
					&st->workers[i]);

		if (rc)
			return err_errno(e, rc, "cannot start worker %zu", i);
		st->nthreads++;
	}
	return 0;
}

/*
 * The checks, once everything is healed (docs/internals.md, The life of
 * a run: 7).
 */
static int run_checks(struct state *st, struct err *e)
{
	struct check_ctx ctx = { &st->suite, &st->cluster, st->dir,
				 st->dialect, &cancel };

	if (!st->suite.nchecks || interrupted || st->aborted[0])
		return 0;
	/* The checks read history.jsonl: every record of the run in it. */
	if (st->run.history && history_flush(st->run.history, e))
		return -1;
	st->checks = xcalloc(st->suite.nchecks, sizeof(*st->checks));
	checks_run(&ctx, st->checks);
	return 0;
}

/*
 * Stop the monitors and the nemesis, and heal everything still faulted
 * (docs/internals.md, The life of a run: 6).
 */
static void stop_faults(struct state *st)
{
	if (st->monitor_started)
		monitor_stop(&st->monitor);
	if (!st->nemesis_started)
		return;
	nemesis_stop(&st->nemesis);
	nemesis_heal_all(&st->nemesis);
}

/* Drive the workloads for the duration; stop them; wait for them. */
static void drive(struct state *st, int quiet)
{
	int64_t last = 0, every = isatty(2) ? NS_PER_SEC : 10 * NS_PER_SEC;
	struct pace pace = { 0, 0 };

	for (;;) {
		int64_t elapsed = history_now(st->run.history);

		if (interrupted || run_files_failed(st) ||
		    elapsed >= st->plan.duration_ns)
			break;
		if (!quiet && elapsed - last >= every) {
			run_progress(st, elapsed, 0, &pace);
			last = elapsed;
		}
		clock_sleep_ns(50 * NS_PER_MS);
	}
	cancel_raise(&cancel, CANCEL_STOP);
	stop_faults(st);
	for (size_t i = 0; i < st->nthreads; i++)
		pthread_join(st->threads[i], NULL);
	st->nthreads = 0;
	if (!quiet) {
		log_status(NULL);
		run_progress(st, history_now(st->run.history), 1, &pace);
	}
}

/* The cluster is down and the run passed: its data go (data_fate). */
static void drop_data(struct state *st)
{
	struct err e = ERR_INIT;

	for (size_t i = 0; i < st->cluster.ncomps; i++) {
		const char *d = run_own_data(st, i);

		if (d && proc_remove_tree(d, &e)) {
			log_error("%s", e.msg);
			err_clear(&e);
		}
	}
}

static void release(struct state *st, int keep_cluster)
{
	struct err e = ERR_INIT;

	cancel_raise(&cancel, CANCEL_STOP);
	run_release_space(st);
	stop_faults(st);
	if (st->nemesis_started)
		nemesis_release(&st->nemesis);
	st->nemesis_started = 0;
	if (st->monitor_started)
		monitor_release(&st->monitor);
	st->monitor_started = 0;
	for (size_t i = 0; i < st->nthreads; i++)
		pthread_join(st->threads[i], NULL);
	/* The faults' set-up undone, last first, before any teardown. */
	for (size_t i = st->suite.nfaults; st->faults_prepared && i-- > 0;) {
		const struct fault_type *t = fault_type_of(&st->suite.faults[i]);

		err_clear(&e);
		if (t->finish && t->finish(&st->cluster, &st->suite.faults[i],
					   &e))
			log_error("%s", e.msg);
	}
	st->faults_prepared = 0;
	if (st->run.history && history_close(st->run.history, &e))
		log_error("%s", e.msg);
	for (size_t i = 0; i < st->nworkers; i++) {
		free(st->workers[i].tables);
		free(st->workers[i].latency);
		free(st->workers[i].ok_per_step);
		free(st->workers[i].errors_per_step);
	}
	free(st->workers);
	free(st->threads);
	free(st->ups);
	free(st->log_start);
	for (size_t i = 0; st->log_more && i < st->cluster.ncomps; i++)
		buf_release(&st->log_more[i]);
	free(st->log_more);
	checks_release(&st->suite, st->checks);
	free(st->checks);
	if (st->cluster_started && !keep_cluster) {
		err_clear(&e);
		if (cancelled(&cancel, CANCEL_KILL))
			log_warn("%s: killing the cluster (SIGKILL)",
				 interrupted >= 2 ? "interrupted twice"
				 : "interrupted while aborting");
		if (cluster_down(&st->cluster, &e))
			log_error("%s", e.msg);
		else if (st->drop_data)
			drop_data(st);
	} else if (st->cluster_started) {
		log_info("the cluster keeps running: tichaos cluster down "
			 "--dir %s", st->cluster.dir);
	}
	if (st->cluster_open)
		cluster_close(&st->cluster);
	if (st->dir[0]) {
		char pidfile[PATH_MAX + 16];

		snprintf(pidfile, sizeof(pidfile), "%s/runner.pid", st->dir);
		unlink(pidfile);
	}
	plan_release(&st->plan);
	if (st->suite_loaded)
		suite_release(&st->suite);
	log_close();
}

/*
 * Whatever stops a run before it printed its TAP stream says so on stdout
 * too, which needs no disk: TAP readers (prove) see a Bail out with the
 * reason, not an empty stream.
 */
static void bail_out(const struct err *e)
{
	if (!err_isset(e))
		return;
	printf("Bail out! %s\n", e->msg);
	fflush(stdout);
}

/* What a stage of run_suite says comes next. */
enum next {
	GO_ON,
	REPORT,		/* straight to the reports (skipped, interrupted) */
	STOP,		/* to the end: an error in `e`, the exit code set */
};

/*
 * The run directory and what goes in it before the cluster: the run's
 * log, runner.pid, suite.yaml as run, plan.json.
 */
static int open_run_dir(struct state *st, const struct run_options *o,
			uint64_t seed, int64_t duration, struct err *e)
{
	struct buf text = BUF_INIT;
	char path[PATH_MAX + 16], d[32];
	int rc;

	if ((o->replay_of && run_same_plan(st, o->replay_of, e)) ||
	    run_make_dir(st, o, e) || run_reserve_space(st, e))
		return -1;
	snprintf(path, sizeof(path), "%s/logs", st->dir);
	if (proc_make_dirs(path, e))
		return -1;
	/* A child of `tichaos run -j` tells its parent where it runs. */
	if (getenv("TICHAOS_RUN_DIR_FILE")) {
		struct buf note = BUF_INIT;

		buf_printf(&note, NULL, "%s\n", st->dir);
		if (buf_write_file(&note, getenv("TICHAOS_RUN_DIR_FILE"), 0600,
				   e)) {
			buf_release(&note);
			return -1;
		}
		buf_release(&note);
	}
	snprintf(path, sizeof(path), "%s/logs/tichaos.log", st->dir);
	log_open(path);
	run_reap_orphans(st->dir);
	log_info("%s: seed %llu, duration %s, run directory %s",
		 st->suite.name, (unsigned long long)seed,
		 format_duration(duration, d, sizeof(d)), st->dir);
	rc = buf_printf(&text, e, "%ld\n", (long)getpid()) ||
	     run_write_file(st->dir, "runner.pid", &text, e);
	buf_reset(&text);
	rc = rc || suite_write(&st->suite, seed, duration, &text, e) ||
	     run_write_file(st->dir, "suite.yaml", &text, e);
	buf_reset(&text);
	rc = rc || plan_json(&st->plan, &st->suite, &text, e) ||
	     run_write_file(st->dir, "plan.json", &text, e);
	buf_release(&text);
	return rc ? -1 : 0;
}

/*
 * One run at a time on an attached cluster: its topology file is locked
 * (flock) until the run ends, however it ends, and another run on it is
 * refused before its run directory is made (exit 3), naming the run that
 * holds it. Both runs' faults would land in the other's checks, and a
 * run's start removes what it finds of partitions and degraded links as
 * left by an earlier run. A cluster the run makes is its own.
 */
static int lock_cluster(struct state *st, const struct run_options *o,
			struct err *e)
{
	pid_t holder;
	char *path;
	int rc;

	/* An attached cluster; one a run makes is its own. */
	if (cluster_type_of(o->cluster)->made)
		return 0;
	path = cluster_lock_path(o->cluster);
	rc = proc_lock_file(path, &st->cluster_lock, &holder, e);
	if (rc == 1 && holder)
		err_set(e, ERR_INFRA, "cluster %s is in use by another run "
			"(pid %ld): one run at a time on a cluster",
			o->cluster, (long)holder);
	else if (rc == 1)
		err_set(e, ERR_INFRA, "cluster %s is in use by another run: "
			"one run at a time on a cluster", o->cluster);
	free(path);
	return rc ? -1 : 0;
}

/*
 * The cluster: opened (the local one lives in the run directory), up,
 * its topology and server options written, its upstream SQL nodes and
 * their dialect known, the suite's names resolved against it. *skip
 * says what a suite requires that the cluster lacks; *refused that the
 * run is refused (exit 2, its directory discarded).
 */
static enum next bring_up(struct state *st, const struct run_options *o,
			  const char **skip, int *refused, int *rc,
			  struct err *e)
{
	const struct cluster_type *type = cluster_type_of(o->cluster);
	struct cluster_options co = { .cluster = NULL };
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/cluster", st->dir);
	co.cluster = o->cluster;
	co.dir = path;
	co.port_base = o->port_base;
	co.tidb = st->suite.tidb;
	co.pd = st->suite.pd;
	co.kv = st->suite.kv;
	co.captures = st->suite.captures;
	co.hosts = o->hosts;
	if (type)
		co.section = suite_cluster_section(&st->suite, type->name);
	if (cluster_open(&st->cluster, &co, e)) {
		/* A topology tichaos cannot read: refused, like a suite. */
		if (e->class == ERR_USAGE) {
			*rc = EXIT_USAGE;
			*refused = 1;
		}
		return STOP;
	}
	for (size_t i = 0; i < st->suite.nsections; i++) {
		const char *kind = st->suite.sections[i].kind;

		if (strcmp(kind, st->cluster.type->name))
			log_warn("%s: cluster.%s applies to the %s cluster; "
				 "this %s cluster's servers run as they are",
				 st->suite.path, kind, kind,
				 st->cluster.type->name);
	}
	st->cluster_open = 1;
	/* ^C while the cluster starts stops it; later, heals still wait
	 * for their servers unless ^C comes twice. */
	st->cluster.cancel = &cancel;
	st->cluster.give_up_at = CANCEL_HURRY;
	st->cluster.sweep = fault_sweep;
	if (st->suite.requires & st->cluster.type->lacks) {
		/* Known without starting anything (the local cluster:
		 * MariaDB, no TiCDC). */
		*skip = st->suite.requires & st->cluster.type->lacks &
			REQUIRE_TIDB ? "tidb" : "ticdc";
		return REPORT;
	}
	/* Only a cluster the run made is the run's to tear down; an
	 * attached one is left running (healed). */
	st->cluster_started = st->cluster.type->made;
	if (cluster_up(&st->cluster, e) ||
	    cluster_ensure_changefeed(&st->cluster, e)) {
		if (interrupted)
			return REPORT;
		/* A server without what tichaos needs (an API too old):
		 * refused, like a name that names nothing. */
		if (e->class == ERR_USAGE) {
			*rc = EXIT_USAGE;
			*refused = 1;
		}
		return STOP;
	}
	st->cluster.give_up_at = CANCEL_KILL;
	snprintf(path, sizeof(path), "%s/topology.yaml", st->dir);
	if (topology_write(&st->cluster, path, e) ||
	    run_write_server_options(st, e))
		return STOP;
	st->ups = xcalloc(st->cluster.ncomps + 1, sizeof(*st->ups));
	for (size_t i = 0; i < st->cluster.ncomps; i++)
		if ((st->cluster.comps[i].roles & ROLE_UPSTREAM) &&
		    st->cluster.comps[i].sql_port)
			st->ups[st->nups++] = &st->cluster.comps[i];
	if (!st->nups) {
		err_set(e, ERR_INFRA, "the cluster has no upstream SQL node");
		return STOP;
	}
	if (detect_dialect(st->ups[0], &st->dialect, e))
		return STOP;
	log_info("upstream %s speaks %s", st->ups[0]->name,
		 dialect_name(st->dialect));
	*skip = missing_requirement(st);
	if (*skip)
		return REPORT;
	/* A name that names nothing in this cluster costs no run: refused
	 * before any workload starts, and the cluster torn down. */
	if (suite_resolve(&st->suite, &st->cluster, e)) {
		/* A server that could not answer the question is no fault
		 * of the suite's: an error of the run, recorded. */
		if (e->class != ERR_USAGE)
			return STOP;
		*rc = EXIT_USAGE;
		*refused = 1;
		return STOP;
	}
	/* What the faults need for the whole run (faults/fault.h). */
	st->faults_prepared = 1;
	for (size_t i = 0; i < st->suite.nfaults; i++) {
		const struct fault_type *t = fault_type_of(&st->suite.faults[i]);

		if (t->prepare && t->prepare(&st->cluster, &st->suite,
					     &st->suite.faults[i], e))
			return interrupted ? REPORT : STOP;
	}
	/* A pass there shows the fix holding, not the bug: said once here,
	 * and in every report. */
	if (suite_fixed_here(&st->suite, &st->cluster, st->fixed,
			     sizeof(st->fixed)))
		log_warn("%s", st->fixed);
	return GO_ON;
}

/* The suite's tables upstream, and downstream once replicated. */
static enum next make_schema(struct state *st, int *refused, int *rc,
			     struct err *e)
{
	if (create_schema(st, e))
		return interrupted ? REPORT : STOP;
	if (ticdc_eligible(st, e)) {
		if (e->class == ERR_USAGE) {
			*rc = EXIT_USAGE;
			*refused = 1;
		}
		return STOP;
	}
	if (setup_workloads(st, e) || await_schema(st, e) ||
	    await_setup(st, e))
		return interrupted ? REPORT : STOP;
	return GO_ON;
}

/*
 * The history closed (every record on disk before the reports read it),
 * results.json and the reports written; the exit code.
 */
static int report(struct state *st, const char *skip,
		  const struct run_options *o, struct err *e)
{
	int rc;

	run_release_space(st);
	/* What a full disk kept out even now is counted in the log. */
	if (st->run.history) {
		struct err he = ERR_INIT;
		int failed = history_close(st->run.history, &he);

		st->run.history = NULL;
		if (failed && !st->aborted[0]) {
			err_set(e, he.class, "%s", he.msg);
			return EXIT_INFRA;
		}
		if (failed && strcmp(he.msg, st->aborted))
			log_error("%s", he.msg);
	}
	/* The cause first: a report the full disk refuses comes second. */
	if (st->aborted[0])
		err_set(e, ERR_INFRA, "%s", st->aborted);
	rc = run_finish(st, skip, o, interrupted != 0, e);
	if (rc < 0)
		return EXIT_INFRA;
	if (interrupted)
		return EXIT_INTERRUPTED;
	if (st->aborted[0])
		return EXIT_INFRA;
	if (rc == EXIT_INFRA)
		err_set(e, ERR_INFRA, "a fault did not take effect, a heal "
			"failed or a check could not decide (see the TAP "
			"diagnostics)");
	return rc;
}

/*
 * A run that stopped before its report (a component not ready, a fault
 * that could not be prepared, an error of its own) still leaves its
 * verdict and why in its directory: results.json "aborted" with the
 * reason, verdict error, and every report (a TAP Bail out), so that a
 * CI collecting summaries or *.log files, and runs/index.html, see it.
 * The reason `e` stays the run's.
 */
static void report_stopped(struct state *st, const struct run_options *o,
			   const struct err *e)
{
	struct err re = ERR_INIT;

	if (!st->aborted[0])
		snprintf(st->aborted, sizeof(st->aborted), "%s", e->msg);
	run_release_space(st);
	if (st->run.history) {
		history_close(st->run.history, &re);
		st->run.history = NULL;
		err_clear(&re);
	}
	if (run_finish(st, NULL, o, interrupted != 0, &re) < 0)
		fprintf(stderr, "tichaos: %s\n", re.msg);
}

/*
 * --results-as-logs: the run directory's files copied to `to` once the
 * run ended (interrupted too). A copy that fails is said, and makes a
 * run that passed exit 3 (an infrastructure failure): the results asked
 * for are not where the CI looks. The exit code `rc` otherwise.
 */
static int copy_as_logs(struct state *st, const char *suite, const char *to,
			int rc)
{
	struct err why = ERR_INIT;

	if (!run_copy_as_logs(st->dir, suite, to, &why))
		return rc;
	fflush(stdout);
	fprintf(stderr, "tichaos: --results-as-logs: %s\n", why.msg);
	return rc == EXIT_PASS ? EXIT_INFRA : rc;
}

int run_suite(const char *path, const struct run_options *o, struct err *e)
{
	struct state st;
	struct buf text = BUF_INIT;
	char hpath[PATH_MAX + 16];
	const char *skip = NULL;
	enum next next;
	int64_t duration;
	uint64_t seed;
	int rc = EXIT_INFRA, refused = 0;
	char name[256];

	memset(&st, 0, sizeof(st));
	st.cluster_lock = -1;
	st.plan = (struct plan)PLAN_INIT;
	st.started = time(NULL);
	if (suite_load_set(&st.suite, path, &tichaos_kinds, o->sets, o->nsets,
			   e)) {
		suite_release(&st.suite);
		if (!o->dry_run)
			bail_out(e);
		return EXIT_USAGE;
	}
	st.suite_loaded = 1;
	seed = o->has_seed ? o->seed : st.suite.seed ? st.suite.seed
						     : rand_fresh_seed();
	duration = o->duration_ns ? o->duration_ns : st.suite.duration_ns;
	if (plan_build(&st.plan, &st.suite, seed, duration, e)) {
		rc = (int)e->class;
		goto out;
	}
	if (o->dry_run) {
		/* A topology to attach to, looked at as the run would meet
		 * it: one line for each thing wrong, and no plan. */
		if (o->cluster && !cluster_type_of(o->cluster)->made) {
			rc = validate_cluster(o->cluster, 0);
			if (rc != EXIT_PASS)
				goto out;
		}
		rc = plan_json(&st.plan, &st.suite, &text, e) ? EXIT_INFRA
							     : EXIT_PASS;
		fputs(buf_str(&text), stdout);
		goto out;
	}
	if (lock_cluster(&st, o, e) ||
	    open_run_dir(&st, o, seed, duration, e))
		goto out;
	next = bring_up(&st, o, &skip, &refused, &rc, e);
	if (next == GO_ON)
		next = make_schema(&st, &refused, &rc, e);
	if (next == STOP)
		goto out;
	run_link_latest(&st, o);
	if (next == GO_ON) {
		run_note_log_starts(&st);
		snprintf(hpath, sizeof(hpath), "%s/history.jsonl", st.dir);
		st.run.suite = &st.suite;
		st.run.plan = &st.plan;
		st.run.cancel = &cancel;
		if (history_open(&st.run.history, hpath, clock_mono_ns(), e) ||
		    start_workers(&st, o, e))
			goto out;
		/* What watches first: a fault due at once is seen. */
		st.monitor_started = 1;
		if (monitor_start(&st.monitor, &st.cluster, &st.run, e))
			goto out;
		st.nemesis_started = 1;
		if (nemesis_start(&st.nemesis, &st.cluster, &st.run, e))
			goto out;
		drive(&st, o->quiet);
		/* A full disk takes no copies of logs, and no checks run. */
		if (!st.aborted[0])
			run_collect_logs(&st);
		if (run_checks(&st, e))
			goto out;
	}
	rc = report(&st, skip, o, e);
out:
	if (rc == EXIT_INFRA && !err_isset(e))
		err_set(e, ERR_INFRA, "internal error: a stage of the run "
			"failed without saying why");
	else if (rc == EXIT_INFRA)
		rc = (int)e->class;
	if (!refused && st.dir[0] && !st.tap_printed)
		report_stopped(&st, o, e);
	snprintf(name, sizeof(name), "%s", st.suite.name ? st.suite.name : "");
	release(&st, o->keep_cluster);
	if (st.cluster_lock >= 0)
		close(st.cluster_lock);
	if (refused)
		run_discard_dir(st.dir);
	else if (o->as_logs && st.dir[0])
		rc = copy_as_logs(&st, name, o->as_logs, rc);
	if (!st.tap_printed && !o->dry_run)
		bail_out(e);
	buf_release(&text);
	if (interrupted && rc != EXIT_USAGE)
		rc = EXIT_INTERRUPTED;
	return rc;
}
