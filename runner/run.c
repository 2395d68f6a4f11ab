#include "runner/run.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clusters/api.h"
#include "clusters/cluster.h"
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
#include "runner/nemesis.h"
#include "runner/plan.h"
#include "runner/resolve.h"
#include "runner/runner.h"
#include "runner/suite.h"
#include "workloads/workload.h"

static const char *const tap_sections[] = {
	"workloads", "faults", "checks", NULL,
};

/* Signals seen: 1 asks for a graceful stop. */
static volatile sig_atomic_t interrupted;
/* What the cluster sees: the signals, plus one when the run aborts (a
 * full disk), which hurries its servers' stops as a first ^C does. */
static volatile sig_atomic_t hurry;

void run_interrupt(void)
{
	interrupted++;
	hurry++;
}

struct upstream {
	const struct component *comp;
};

/* Everything one run owns, released in one place. */
struct state {
	struct suite suite;
	int suite_loaded;
	struct plan plan;
	struct cluster cluster;
	int cluster_open;
	int cluster_started;
	struct run run;
	char dir[3072];
	struct worker *workers;
	size_t nworkers;
	pthread_t *threads;
	size_t nthreads;
	const struct component **ups;
	size_t nups;
	int dialect;
	struct nemesis nemesis;
	int nemesis_started;
	/* Where each component's log stood when the run began. */
	int64_t *log_start;
	struct check_result *checks;
	time_t started;
	/* Why the run stopped short of its duration without a signal (a
	 * run file could not be written), or "". */
	char aborted[ERR_MSG_MAX];
	int reserved;
	int tap_printed;
};

/*
 * Space held in RUN/.reserve from the start of a run, given back when
 * the run stops short because its disk is full (and before the reports
 * in any case), so that heals, the end of the history and the reports
 * can still be written.
 */
#define RESERVE_BYTES ((off_t)8 << 20)

static int reserve_space(struct state *st, struct err *e)
{
	char path[PATH_MAX];
	int fd, rc;

	snprintf(path, sizeof(path), "%s/.reserve", st->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return err_errno(e, errno, "cannot create '%s'", path);
	rc = posix_fallocate(fd, 0, RESERVE_BYTES);
	close(fd);
	if (rc) {
		unlink(path);
		return err_errno(e, rc, "cannot reserve %lld MiB in '%s' for "
				 "the end of the run", (long long)(RESERVE_BYTES
								   >> 20),
				 st->dir);
	}
	st->reserved = 1;
	return 0;
}

static void release_space(struct state *st)
{
	char path[PATH_MAX];

	if (!st->reserved)
		return;
	snprintf(path, sizeof(path), "%s/.reserve", st->dir);
	if (unlink(path) && errno != ENOENT)
		log_warn("cannot remove '%s': %s", path, strerror(errno));
	st->reserved = 0;
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
		hurry++;
		release_space(st);
		log_error("%s: stopping the run", st->aborted);
		return 1;
	}
	return 0;
}

static int make_dirs(const char *path, struct err *e)
{
	char tmp[PATH_MAX];

	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp))
		return err_set(e, ERR_USAGE, "path too long: '%s'", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return err_errno(e, errno, "cannot create '%s'", tmp);
		*p = '/';
	}
	if (mkdir(tmp, 0755) && errno != EEXIST)
		return err_errno(e, errno, "cannot create '%s'", tmp);
	return 0;
}

static int write_file(const char *dir, const char *name,
		      const struct buf *text, struct err *e)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return buf_write_file(text, path, 0644, e);
}

/* runs/<suite>/<YYYYmmdd-HHMMSS>-s<seed>, and runs/<suite>/latest. */
static int make_run_dir(struct state *st, const struct run_options *o,
			struct err *e)
{
	char parent[256], stamp[32], link_tmp[300];
	time_t now = time(NULL);
	struct tm tm;
	int n;

	if (o->out) {
		struct stat sb;

		if (strlen(o->out) >= sizeof(st->dir))
			return err_set(e, ERR_USAGE, "run directory '%.40s...' "
				       "is too long", o->out);
		if (!stat(o->out, &sb))
			return err_set(e, ERR_USAGE, "run directory '%s' "
				       "already exists", o->out);
		snprintf(st->dir, sizeof(st->dir), "%s", o->out);
		return make_dirs(st->dir, e);
	}
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(parent, sizeof(parent), "runs/%s", st->suite.name);
	if (make_dirs(parent, e))
		return -1;
	for (n = 1; n < 100; n++) {
		if (n == 1)
			snprintf(st->dir, sizeof(st->dir), "%s/%s-s%llu",
				 parent, stamp,
				 (unsigned long long)st->plan.seed);
		else
			snprintf(st->dir, sizeof(st->dir), "%s/%s-s%llu-%d",
				 parent, stamp,
				 (unsigned long long)st->plan.seed, n);
		if (!mkdir(st->dir, 0755))
			break;
		if (errno != EEXIST)
			return err_errno(e, errno, "cannot create '%s'",
					 st->dir);
	}
	/* latest -> the new directory, replaced atomically. */
	snprintf(link_tmp, sizeof(link_tmp), "%s/.latest.%ld", parent,
		 (long)getpid());
	unlink(link_tmp);
	if (symlink(strrchr(st->dir, '/') + 1, link_tmp) == 0) {
		char latest[PATH_MAX];

		snprintf(latest, sizeof(latest), "%s/latest", parent);
		if (rename(link_tmp, latest))
			unlink(link_tmp);
	}
	return 0;
}

/* replay: the plan drawn now must be the one the run recorded. */
static int same_plan(struct state *st, const char *dir, struct err *e)
{
	struct buf now = BUF_INIT, then = BUF_INIT;
	char path[4200];
	int rc;

	snprintf(path, sizeof(path), "%s/plan.json", dir);
	rc = plan_json(&st->plan, &st->suite, &now, e) ||
	     buf_read_file(&then, path, e);
	if (!rc && (now.len != then.len || memcmp(now.data, then.data,
						 now.len)))
		rc = err_set(e, ERR_USAGE, "cannot replay '%s': this build "
			     "draws another plan from its suite.yaml and seed "
			     "than the one recorded in plan.json", dir);
	buf_release(&now);
	buf_release(&then);
	return rc ? -1 : 0;
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

/* Wait until every downstream has every table of the suite. */
static int await_schema(struct state *st, struct err *e)
{
	int64_t deadline = clock_mono_ns() + 60 * NS_PER_SEC;
	struct buf q = BUF_INIT, v = BUF_INIT;
	char want[32];
	int rc = 0;

	snprintf(want, sizeof(want), "%zu", st->suite.ntables);
	rc = buf_addstr(&q, "SELECT COUNT(*) FROM information_schema.TABLES "
			"WHERE TABLE_SCHEMA = ", e) ||
	     sql_quote_string(&q, st->suite.database, e);
	for (size_t i = 0; !rc && i < st->suite.ntables; i++)
		rc = buf_addstr(&q, i ? ", " : " AND TABLE_NAME IN (", e) ||
		     sql_quote_string(&q, st->suite.tables[i].name, e);
	rc = rc || buf_addch(&q, ')', e);
	for (size_t i = 0; !rc && i < st->cluster.ncomps; i++) {
		const struct component *c = &st->cluster.comps[i];
		struct err last = ERR_INIT;

		if (!(c->roles & ROLE_DOWNSTREAM) || !c->sql_port)
			continue;
		for (;;) {
			struct sql s = SQL_INIT;
			int got;

			err_clear(&last);
			got = !component_connect(c, &s, NULL, 5, &last) &&
			      sql_value(&s, buf_str(&q), &v, &last) == 0 &&
			      !strcmp(buf_str(&v), want);
			sql_close(&s);
			if (got)
				break;
			if (interrupted || clock_mono_ns() >= deadline) {
				rc = err_set(e, ERR_INFRA, "%s: the suite's "
					     "tables did not appear within "
					     "60s (%s of %s)%s%s", c->name,
					     v.len ? buf_str(&v) : "?", want,
					     err_isset(&last) ? ": " : "",
					     last.msg);
				break;
			}
			clock_sleep_ns(100 * NS_PER_MS, NULL);
		}
	}
	buf_release(&q);
	buf_release(&v);
	return rc ? -1 : 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	const struct workload_type *t = w->item->type;
	const struct plan *plan = w->run->plan;

	sql_thread_init();
	w->slot = history_slot(w->run->history);
	if (t->run) {
		t->run(w);
	} else {
		for (size_t i = 0; i < plan->n && !worker_stopping(w); i++) {
			const struct plan_event *ev = &plan->events[i];
			int64_t wait;

			if (ev->workload != w->item_index)
				continue;
			wait = ev->at_ns - history_now(w->run->history);
			if (wait > 0 && worker_sleep(w, wait))
				break;
			t->run_op(w, ev);
		}
	}
	sql_close(&w->conn);
	sql_thread_end();
	return NULL;
}

/* One step of the latency record: a second, up to 600 steps a run. */
static int64_t latency_step(int64_t duration_ns)
{
	int64_t steps = (duration_ns + 600 * NS_PER_SEC - 1) /
			(600 * NS_PER_SEC);

	return (steps > 1 ? steps : 1) * NS_PER_SEC;
}

/* Give each worker its share of the item's tables (round robin). */
static int share_tables(struct worker *w, const struct optval *tables)
{
	size_t n = 0;

	w->tables = calloc(tables->n + 1, sizeof(*w->tables));
	if (!w->tables)
		return -1;
	if ((size_t)w->nthreads >= tables->n) {
		w->tables[n++] = tables->list[(size_t)w->thread % tables->n];
	} else {
		for (size_t i = (size_t)w->thread; i < tables->n;
		     i += (size_t)w->nthreads)
			w->tables[n++] = tables->list[i];
	}
	w->ntables = n;
	return 0;
}

static int write_stub(struct state *st, const struct run_options *o,
		      struct err *e);

static int start_workers(struct state *st, const struct run_options *o,
			 struct err *e)
{
	struct rand root;
	size_t total = 0, k = 0;

	for (size_t i = 0; i < st->suite.nworkloads; i++) {
		const struct suite_item *it = &st->suite.workloads[i];
		const struct workload_type *t = it->type;

		total += (size_t)t->threads(&st->suite, it);
	}
	st->workers = calloc(total + 1, sizeof(*st->workers));
	st->threads = calloc(total + 1, sizeof(*st->threads));
	if (!st->workers || !st->threads)
		return err_set(e, ERR_INFRA, "out of memory");
	/* Workers draw from their own stream, apart from the plan's. */
	rand_seed(&root, st->plan.seed ^ UINT64_C(0x5f3759df2b1e7c4d));
	for (size_t i = 0; i < st->suite.nworkloads; i++) {
		const struct suite_item *it = &st->suite.workloads[i];
		const struct workload_type *t = it->type;
		int n = t->threads(&st->suite, it);
		double rate = suite_opt(it, "rate")->f;

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
			w->run = &st->run;
			if (rate > 0)
				w->pace_ns = (int64_t)((double)n * NS_PER_SEC /
						       rate);
			/* Steps of a second, longer for long runs, and 10 %
			 * past the end for the last operations. */
			w->step_ns = latency_step(st->plan.duration_ns);
			w->steps = (size_t)(st->plan.duration_ns /
					    w->step_ns) + 60;
			w->latency = calloc(w->steps, sizeof(*w->latency));
			w->ok_per_step = calloc(w->steps,
						sizeof(*w->ok_per_step));
			w->errors_per_step = calloc(w->steps,
					sizeof(*w->errors_per_step));
			if (!w->latency || !w->ok_per_step ||
			    !w->errors_per_step)
				return err_set(e, ERR_INFRA, "out of memory");
			if (share_tables(w, suite_opt(it, "tables")))
				return err_set(e, ERR_INFRA, "out of memory");
		}
	}
	st->nworkers = total;
	if (write_stub(st, o, e))
		return -1;
	for (size_t i = 0; i < total; i++) {
		int rc = pthread_create(&st->threads[i], NULL, worker_main,
					&st->workers[i]);

		if (rc)
			return err_errno(e, rc, "cannot start worker %zu", i);
		st->nthreads++;
	}
	return 0;
}

static uint64_t load(const uint64_t *v)
{
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

/*
 * On TiCDC, the changefeed whose lag the progress line shows: the
 * progress check's, else the topology's or "tichaos"; NULL without TiCDC
 * captures.
 */
static const char *cdc_changefeed(const struct state *st)
{
	const char *asked = NULL;

	if (!cluster_ticdc(&st->cluster))
		return NULL;
	for (size_t j = 0; j < st->suite.nchecks; j++)
		if (!strcmp(st->suite.checks[j].kind, "progress")) {
			asked = suite_opt(&st->suite.checks[j],
					  "changefeed")->s;
			break;
		}
	return cluster_changefeed_id(&st->cluster, asked);
}

/* What the last progress line counted, for the rates of the next. */
struct pace {
	uint64_t ok;
	int64_t at;
};

/*
 * One progress line: elapsed/total, ok operations per second since the
 * last line, errors, faults in effect, replication lag (the local
 * replica's, or the TiCDC changefeed checkpoint's).
 */
static void progress(struct state *st, int64_t elapsed, int final,
		     struct pace *pace)
{
	uint64_t ok = 0, errors = 0, active = 0;
	char a[32], b[32], lag[400] = "";
	double rate;
	size_t off = 0;

	for (size_t i = 0; i < st->nworkers; i++) {
		ok += load(&st->workers[i].ok);
		errors += load(&st->workers[i].fail) +
			  load(&st->workers[i].info);
	}
	/* Injections that are healed later (kill, pause) and not yet. */
	for (size_t i = 0; st->nemesis_started && i < st->suite.nfaults; i++)
		if (((const struct fault_type *)st->suite.faults[i].type)->heal)
			active += load(&st->nemesis.counts[i].injected) -
				  load(&st->nemesis.counts[i].healed) -
				  load(&st->nemesis.counts[i].heal_failed);
	for (size_t i = 0; i < st->cluster.ncomps && off < sizeof(lag); i++) {
		const struct component *c = &st->cluster.comps[i];
		struct replica_stop stop;
		long behind;

		if (!c->replicates)
			continue;
		behind = component_lag(&st->cluster, c);
		if (behind < 0 && component_replica_stopped(&st->cluster, c,
							    &stop, NULL) == 1)
			off += (size_t)snprintf(lag + off, sizeof(lag) - off,
						"  %s STOPPED (SQL error %ld)",
						c->name, stop.sql_errno);
		else
			off += (size_t)(behind >= 0
				? snprintf(lag + off, sizeof(lag) - off,
					   "  lag %s %lds", c->name, behind)
				: snprintf(lag + off, sizeof(lag) - off,
					   "  lag %s ?", c->name));
	}
	if (cdc_changefeed(st)) {
		struct changefeed cf;
		int odd;

		/* A TSO's physical part is its milliseconds >> 18; one
		 * ahead of our clock (another host's) is no lag. A
		 * changefeed that is not normal says so, with its error. */
		if (!cluster_changefeed(&st->cluster, cdc_changefeed(st), &cf,
					NULL)) {
			int64_t at = (int64_t)(cf.checkpoint_ts >> 18);

			odd = strcmp(cf.state, "normal") != 0;
			snprintf(lag + off, sizeof(lag) - off, "  lag "
				 "changefeed %s %llds%s%s%s%s%s",
				 cdc_changefeed(st),
				 (long long)(clock_wall_ms() > at
					     ? (clock_wall_ms() - at) / 1000
					     : 0), odd ? " (" : "",
				 odd ? cf.state : "",
				 odd && cf.error[0] ? ": " : "",
				 odd ? cf.error : "", odd ? ")" : "");
		} else {
			snprintf(lag + off, sizeof(lag) - off, "  lag "
				 "changefeed %s ?", cdc_changefeed(st));
		}
	}
	rate = elapsed > pace->at ? (double)(ok - pace->ok) * NS_PER_SEC /
				    (double)(elapsed - pace->at) : 0;
	if (final)
		rate = elapsed > 0 ? (double)ok * NS_PER_SEC / (double)elapsed
				   : 0;
	pace->ok = ok;
	pace->at = elapsed;
	format_duration(elapsed / NS_PER_SEC * NS_PER_SEC, a, sizeof(a));
	format_duration(st->plan.duration_ns, b, sizeof(b));
	if (isatty(2) && !final)
		fprintf(stderr, "\r%s %s/%s  %.0f ops/s  errors %llu  faults "
			"%llu active%s\033[K", st->suite.name, a, b, rate,
			(unsigned long long)errors,
			(unsigned long long)active, lag);
	else
		log_info("%s %s/%s  %.0f ops/s  errors %llu  faults %llu "
			 "active%s", st->suite.name, a, b, rate,
			 (unsigned long long)errors,
			 (unsigned long long)active, lag);
}

/*
 * server-options.json: what each server of a cluster tichaos configures
 * was configured with, and what it runs with (docs/results.md).
 */
static int write_server_options(struct state *st, struct err *e)
{
	struct buf text = BUF_INIT;
	json_t *doc = NULL;
	char *dump;
	int rc;

	if (!st->cluster.type->server_options)
		return 0;
	rc = st->cluster.type->server_options(&st->cluster, &doc, e);
	dump = rc ? NULL : json_dumps(doc, JSON_INDENT(1) |
				      JSON_PRESERVE_ORDER);
	rc = rc || !dump || buf_addstr(&text, dump, e) ||
	     buf_addch(&text, '\n', e) ||
	     write_file(st->dir, "server-options.json", &text, e);
	free(dump);
	json_decref(doc);
	buf_release(&text);
	return rc ? -1 : 0;
}

static void note_log_starts(struct state *st)
{
	st->log_start = calloc(st->cluster.ncomps + 1,
			       sizeof(*st->log_start));
	for (size_t i = 0; st->log_start && i < st->cluster.ncomps; i++) {
		const struct component *c = &st->cluster.comps[i];
		struct host *h = component_host(&st->cluster, c);
		int64_t size = c->log ? h->ops->file_size(h, c->log) : -1;

		st->log_start[i] = size > 0 ? size : 0;
	}
}

/* Most of one component log copied into the run directory. */
#define LOG_COPY_MAX ((int64_t)64 << 20)

/*
 * logs/<component>.log: the part of each component's log written during
 * the run (the last LOG_COPY_MAX bytes of it), for logscan and people;
 * copied back over SSH from remote hosts.
 */
static void collect_logs(struct state *st)
{
	for (size_t i = 0; st->log_start && i < st->cluster.ncomps; i++) {
		const struct component *c = &st->cluster.comps[i];
		struct host *h = component_host(&st->cluster, c);
		int64_t start = st->log_start[i], end;
		struct buf text = BUF_INIT;
		struct err e = ERR_INIT;
		char dest[4096];

		if (!c->log || (end = h->ops->file_size(h, c->log)) <= start)
			continue;
		if (end - start > LOG_COPY_MAX)
			start = end - LOG_COPY_MAX;
		snprintf(dest, sizeof(dest), "%s/logs/%s.log", st->dir,
			 c->name);
		if (h->ops->read_file(h, c->log, start, end - start, &text,
				      &e) ||
		    buf_write_file(&text, dest, 0644, &e))
			log_warn("%s: log not collected: %s", c->name,
				 err_isset(&e) ? e.msg : "it is gone");
		buf_release(&text);
	}
}

static int was_interrupted(void)
{
	return interrupted != 0;
}

/*
 * The checks, once everything is healed (docs/internals.md, The life of
 * a run: 7).
 */
static int run_checks(struct state *st, struct err *e)
{
	struct check_ctx ctx = { &st->suite, &st->cluster, st->dir,
				 st->dialect, was_interrupted };

	if (!st->suite.nchecks || interrupted || st->aborted[0])
		return 0;
	/* The checks read history.jsonl: every record of the run in it. */
	if (st->run.history && history_flush(st->run.history, e))
		return -1;
	st->checks = calloc(st->suite.nchecks, sizeof(*st->checks));
	if (!st->checks)
		return err_set(e, ERR_INFRA, "out of memory");
	checks_run(&ctx, st->checks);
	return 0;
}

/*
 * Stop the nemesis and heal everything still faulted (docs/internals.md,
 * The life of a run: 6).
 */
static void stop_faults(struct state *st)
{
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
			progress(st, elapsed, 0, &pace);
			last = elapsed;
		}
		clock_sleep_ns(50 * NS_PER_MS, NULL);
	}
	__atomic_store_n(&st->run.stop, 1, __ATOMIC_RELAXED);
	stop_faults(st);
	for (size_t i = 0; i < st->nthreads; i++)
		pthread_join(st->threads[i], NULL);
	st->nthreads = 0;
	if (!quiet) {
		if (isatty(2))
			fputc('\n', stderr);
		progress(st, history_now(st->run.history), 1, &pace);
	}
}

/* "name", "verdict", "summary", "message", "skip" of an item. */
static void set_item(json_t *it, const char *name, const char *verdict,
		     const char *summary, const char *message,
		     const char *skip)
{
	json_object_set_new(it, "name", json_string(name));
	json_object_set_new(it, "verdict", json_string(verdict));
	json_object_set_new(it, "summary", json_string(summary));
	json_object_set_new(it, "message", json_string(message));
	if (skip)
		json_object_set_new(it, "skip", json_string(skip));
}

/*
 * The workload's steps (docs/results.md): ok operations, and the p50 /
 * p99 latency in ms, merged from its workers' histograms, over the run.
 */
static json_t *per_step(const struct state *st, const struct suite_item *it)
{
	int64_t step = latency_step(st->plan.duration_ns);
	size_t steps = (size_t)((st->plan.duration_ns + step - 1) / step);
	json_t *ok = json_array(), *p50 = json_array(), *p99 = json_array();
	json_t *errors = json_array();

	for (size_t s = 0; s < steps; s++) {
		struct hist h;
		uint64_t n = 0, bad = 0;

		memset(&h, 0, sizeof(h));
		for (size_t j = 0; j < st->nworkers; j++) {
			const struct worker *w = &st->workers[j];

			if (w->item != it || s >= w->steps)
				continue;
			hist_merge(&h, &w->latency[s]);
			n += w->ok_per_step[s];
			bad += w->errors_per_step[s];
		}
		json_array_append_new(ok, json_integer((json_int_t)n));
		json_array_append_new(errors, json_integer((json_int_t)bad));
		json_array_append_new(p50, json_integer(
			hist_quantile(&h, 0.5) / 1000));
		json_array_append_new(p99, json_integer(
			hist_quantile(&h, 0.99) / 1000));
	}
	return json_pack("{s:I, s:o, s:o, s:o, s:o}", "step_s",
			 (json_int_t)(step / NS_PER_SEC), "ok", ok,
			 "errors", errors, "p50_us", p50, "p99_us", p99);
}

/* One item per workload: its counts, failing on errors that were not to
 * be ignored, or when nothing succeeded. */
static json_t *workload_items(struct state *st)
{
	json_t *items = json_array();

	for (size_t i = 0; i < st->suite.nworkloads; i++) {
		const struct suite_item *it = &st->suite.workloads[i];
		uint64_t ok = 0, fail = 0, info = 0, skipped = 0;
		int ignore = suite_opt(it, "ignore_errors")->i != 0;
		const char *reason = "";
		char name[128];
		json_t *o;

		for (size_t j = 0; j < st->nworkers; j++) {
			const struct worker *w = &st->workers[j];

			if (w->item != it)
				continue;
			ok += w->ok;
			fail += w->fail;
			info += w->info;
			skipped += w->skipped;
			if (w->skip_reason[0])
				reason = w->skip_reason;
		}
		snprintf(name, sizeof(name), "workload %zu %s", i + 1,
			 it->kind);
		o = json_pack("{s:I, s:s, s:I, s:I, s:I, s:I, s:b, s:s}",
			      "index", (json_int_t)(i + 1), "kind", it->kind,
			      "ok", (json_int_t)ok, "fail", (json_int_t)fail,
			      "info", (json_int_t)info,
			      "skipped", (json_int_t)skipped,
			      "ignore_errors", ignore, "name", name);
		results_judge_workload(o, reason);
		json_object_set_new(o, "per_step", per_step(st, it));
		/* Its workers' process numbers in the history. */
		for (size_t j = 0; j < st->nworkers; j++)
			if (st->workers[j].item == it) {
				json_object_set_new(o, "processes", json_pack(
					"[I, I]",
					(json_int_t)st->workers[j].process,
					(json_int_t)(st->workers[j].process +
						     st->workers[j].nthreads -
						     1)));
				break;
			}
		json_array_append_new(items, o);
	}
	return items;
}

/* One item per fault: injections that took effect, heals. */
static json_t *fault_items(struct state *st)
{
	json_t *items = json_array();

	for (size_t i = 0; i < st->suite.nfaults; i++) {
		const struct suite_item *it = &st->suite.faults[i];
		const struct nemesis_counts *c = st->nemesis_started ?
			&st->nemesis.counts[i] : NULL;
		int heals = ((const struct fault_type *)it->type)->heal != NULL;
		uint64_t planned = 0;
		struct buf text = BUF_INIT;
		char name[128];
		const char *verdict;
		json_t *o;

		for (size_t j = 0; j < st->plan.n; j++)
			planned += st->plan.events[j].fault == (int)i;
		buf_printf(&text, NULL, "%llu of %llu injected",
			   (unsigned long long)(c ? c->injected : 0),
			   (unsigned long long)planned);
		if (heals)
			buf_printf(&text, NULL, ", %llu healed",
				   (unsigned long long)(c ? c->healed : 0));
		if (c && c->failed)
			buf_printf(&text, NULL, ", %llu did not take effect",
				   (unsigned long long)c->failed);
		if (c && c->heal_failed)
			buf_printf(&text, NULL, ", %llu heals failed",
				   (unsigned long long)c->heal_failed);
		verdict = !c ? "skip" : c->failed || c->heal_failed ? "error"
			  : planned ? "pass" : "skip";
		snprintf(name, sizeof(name), "fault %zu %s", i + 1, it->kind);
		o = json_pack("{s:I, s:s, s:I, s:I, s:I, s:I, s:I}",
			      "index", (json_int_t)(i + 1), "kind", it->kind,
			      "planned", (json_int_t)planned,
			      "injected", (json_int_t)(c ? c->injected : 0),
			      "failed", (json_int_t)(c ? c->failed : 0),
			      "healed", (json_int_t)(c ? c->healed : 0),
			      "heal_failed",
			      (json_int_t)(c ? c->heal_failed : 0));
		set_item(o, name, verdict, buf_str(&text),
			 c ? c->first_error : "", !c ? "not run"
			 : !planned ? "nothing was due" : NULL);
		json_array_append_new(items, o);
		buf_release(&text);
	}
	return items;
}

/*
 * results.json (docs/results.md), then every report from it; the TAP
 * stream also goes to stdout, the summary to stderr. Returns the exit
 * code the results call for.
 */
/* results.json's items and identity, without its verdict. */
static json_t *results_json(struct state *st, const char *skip,
			    const struct run_options *o)
{
	char d[32], started[32], reason[64];
	time_t now = st->started ? st->started : time(NULL);
	struct tm tm;
	json_t *r;

	gmtime_r(&now, &tm);
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", &tm);
	r = json_pack("{s:s, s:I, s:s, s:I, s:s, s:s, s:s}",
		      "suite", st->suite.name,
		      "seed", (json_int_t)st->plan.seed,
		      "duration", format_duration(st->plan.duration_ns, d,
						  sizeof(d)),
		      "duration_ns", (json_int_t)st->plan.duration_ns,
		      "started", started, "cluster",
		      o->cluster ? o->cluster : "local", "run_dir", st->dir);
	if (o->replay_of)
		json_object_set_new(r, "replay_of", json_string(o->replay_of));
	if (skip) {
		snprintf(reason, sizeof(reason), "requires %s", skip);
		json_object_set_new(r, "skip", json_string(reason));
	}
	json_object_set_new(r, "workloads", workload_items(st));
	json_object_set_new(r, "faults", fault_items(st));
	json_object_set_new(r, "checks", checks_items(&st->suite,
						      st->checks));
	return r;
}

/*
 * Before the workers start: results.json with every item at zero and the
 * verdict "incomplete", which the end of the run replaces. A runner
 * killed in between leaves it for `tichaos report`, which counts what
 * history.jsonl recorded (results_recount).
 */
static int write_stub(struct state *st, const struct run_options *o,
		      struct err *e)
{
	json_t *r = results_json(st, NULL, o);
	int rc;

	json_object_set_new(r, "verdict", json_string("incomplete"));
	json_object_set_new(r, "incomplete", json_string("the run has not "
							 "finished"));
	rc = results_save(r, st->dir, e);
	json_decref(r);
	return rc;
}

static int finish(struct state *st, const char *skip,
		  const struct run_options *o, struct err *e)
{
	struct buf tap = BUF_INIT, summary = BUF_INIT;
	struct err re = ERR_INIT;
	json_t *r = results_json(st, skip, o);
	int rc;

	if (st->aborted[0] && !interrupted)
		json_object_set_new(r, "aborted", json_string(st->aborted));
	json_object_set_new(r, "verdict", json_string(
		skip ? "skip" : interrupted ? "interrupted"
		: results_verdict(r)));
	/* An error already recorded (an interrupted start) must not stop
	 * the reports of what was done: they get an error of their own. */
	rc = results_save(r, st->dir, &re) ||
	     reports_write(r, st->dir, &re) ||
	     report_tap_sections(r, tap_sections, &tap, &re);
	if (rc)
		err_set(e, re.class ? re.class : ERR_INFRA, "%s", re.msg);
	if (!rc) {
		fputs(buf_str(&tap), stdout);
		fflush(stdout);
		st->tap_printed = 1;
		if (!o->quiet && !report_summary_text(r, &summary, NULL))
			fprintf(stderr, "\n%s", buf_str(&summary));
	}
	rc = rc ? -1 : results_exit_code(r);
	json_decref(r);
	buf_release(&tap);
	buf_release(&summary);
	return rc;
}

static void release(struct state *st, int keep_cluster)
{
	struct err e = ERR_INIT;

	__atomic_store_n(&st->run.stop, 1, __ATOMIC_RELAXED);
	release_space(st);
	stop_faults(st);
	if (st->nemesis_started)
		nemesis_release(&st->nemesis);
	st->nemesis_started = 0;
	for (size_t i = 0; i < st->nthreads; i++)
		pthread_join(st->threads[i], NULL);
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
	checks_release(&st->suite, st->checks);
	free(st->checks);
	if (st->cluster_started && !keep_cluster) {
		err_clear(&e);
		if (hurry >= 2)
			log_warn("%s: killing the cluster (SIGKILL)",
				 interrupted >= 2 ? "interrupted twice"
				 : "interrupted while aborting");
		if (cluster_down(&st->cluster, &e))
			log_error("%s", e.msg);
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

/* Is `pid` a tichaos runner, alive? */
static int runner_alive(pid_t pid)
{
	struct buf cmd = BUF_INIT;
	int alive = 0;

	if (pid > 0 && !proc_cmdline(pid, &cmd, NULL))
		alive = strstr(buf_str(&cmd), "tichaos") != NULL;
	buf_release(&cmd);
	return alive;
}

/*
 * The clusters (local or playground) of runs beside this one whose runner
 * is gone (killed with SIGKILL: RUN/runner.pid names a pid that is no
 * tichaos any more): stopped by their pidfiles, so one killed run does
 * not leave servers behind for good.
 */
static void reap_orphans(const char *run_dir)
{
	char parent[PATH_MAX], sub[PATH_MAX + 300];
	const char *slash = strrchr(run_dir, '/');
	struct dirent *d;
	DIR *dir;

	snprintf(parent, sizeof(parent), "%.*s", slash ?
		 (int)(slash - run_dir) : 1, slash ? run_dir : ".");
	dir = opendir(parent);
	while (dir && (d = readdir(dir))) {
		struct cluster_options co = { .cluster = "local" };
		struct cluster c;
		struct err e = ERR_INIT;
		pid_t pid;

		if (d->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s/runner.pid", parent,
			 d->d_name);
		if (proc_read_pidfile(sub, &pid, NULL) || !pid ||
		    runner_alive(pid))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s/cluster/playground.pid",
			 parent, d->d_name);
		if (!access(sub, F_OK))
			co.cluster = "playground";
		else
			snprintf(sub, sizeof(sub), "%s/%s/cluster/port-base",
				 parent, d->d_name);
		if (!access(sub, F_OK)) {
			snprintf(sub, sizeof(sub), "%s/%s/cluster", parent,
				 d->d_name);
			co.dir = sub;
			if (cluster_open(&c, &co, &e) || cluster_down(&c, &e))
				log_warn("%s: %s", sub, e.msg);
			else
				log_warn("stopped the cluster of %s/%s: its "
					 "runner (pid %ld) is gone", parent,
					 d->d_name, (long)pid);
			cluster_close(&c);
		}
		snprintf(sub, sizeof(sub), "%s/%s/runner.pid", parent,
			 d->d_name);
		unlink(sub);
	}
	if (dir)
		closedir(dir);
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

/*
 * A run refused once its cluster was up (a name that names nothing, a server
 * too old for what tichaos uses) ran nothing: its directory goes, and
 * runs/<suite>/latest when it names it, as if the suite had been refused by
 * validate.
 */
static void discard_run_dir(const char *dir)
{
	const char *slash = strrchr(dir, '/');
	char latest[PATH_MAX], target[PATH_MAX];
	struct err e = ERR_INIT;
	ssize_t n;

	if (proc_remove_tree(dir, &e))
		fprintf(stderr, "tichaos: %s\n", e.msg);
	if (!slash)
		return;
	snprintf(latest, sizeof(latest), "%.*s/latest", (int)(slash - dir),
		 dir);
	n = readlink(latest, target, sizeof(target) - 1);
	if (n > 0 && (target[n] = '\0', !strcmp(target, slash + 1)))
		unlink(latest);
}

int run_suite(const char *path, const struct run_options *o, struct err *e)
{
	struct state st;
	struct cluster_options co = { .cluster = NULL };
	struct buf text = BUF_INIT;
	char cdir[PATH_MAX + 16], logs[PATH_MAX + 16];
	const char *skip = NULL;
	int64_t duration;
	uint64_t seed;
	int rc = EXIT_INFRA, refused = 0;

	memset(&st, 0, sizeof(st));
	st.plan = (struct plan)PLAN_INIT;
	st.started = time(NULL);
	if (suite_load(&st.suite, path, e)) {
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
		rc = plan_json(&st.plan, &st.suite, &text, e) ? EXIT_INFRA
							     : EXIT_PASS;
		fputs(buf_str(&text), stdout);
		goto out;
	}
	if (o->replay_of && same_plan(&st, o->replay_of, e))
		goto out;
	if (make_run_dir(&st, o, e) || reserve_space(&st, e))
		goto out;
	snprintf(logs, sizeof(logs), "%s/logs", st.dir);
	if (make_dirs(logs, e))
		goto out;
	snprintf(logs, sizeof(logs), "%s/logs/tichaos.log", st.dir);
	log_open(logs);
	reap_orphans(st.dir);
	snprintf(logs, sizeof(logs), "%ld\n", (long)getpid());
	buf_addstr(&text, logs, NULL);
	if (write_file(st.dir, "runner.pid", &text, e))
		goto out;
	buf_reset(&text);
	log_info("%s: seed %llu, duration %s, run directory %s",
		 st.suite.name, (unsigned long long)seed,
		 format_duration(duration, cdir, sizeof(cdir)), st.dir);
	if (suite_write(&st.suite, seed, duration, &text, e) ||
	    write_file(st.dir, "suite.yaml", &text, e))
		goto out;
	buf_reset(&text);
	if (plan_json(&st.plan, &st.suite, &text, e) ||
	    write_file(st.dir, "plan.json", &text, e))
		goto out;

	/* The cluster: the local one lives in the run directory. */
	snprintf(cdir, sizeof(cdir), "%s/cluster", st.dir);
	co.cluster = o->cluster;
	co.dir = cdir;
	co.port_base = o->port_base;
	co.tidb = st.suite.tidb;
	co.pd = st.suite.pd;
	co.kv = st.suite.kv;
	co.captures = st.suite.captures;
	co.skip_errors = st.suite.local.skip_errors;
	co.nskip_errors = st.suite.local.nskip_errors;
	co.options[0] = st.suite.local.options[0];
	co.options[1] = st.suite.local.options[1];
	if (cluster_open(&st.cluster, &co, e))
		goto out;
	if (st.cluster.type != cluster_type_find("local") &&
	    (co.nskip_errors || co.options[0] || co.options[1]))
		log_warn("%s: cluster.local applies to the local cluster; "
			 "this %s cluster's servers run as they are",
			 st.suite.path, st.cluster.type->name);
	st.cluster_open = 1;
	/* ^C while the cluster starts stops it; later, heals still wait
	 * for their servers unless ^C comes twice. */
	st.cluster.interrupted = &hurry;
	st.cluster.interrupt_at = 1;
	if (st.cluster.type == cluster_type_find("local") &&
	    (st.suite.requires & (REQUIRE_TIDB | REQUIRE_TICDC))) {
		/* Known without starting anything: MariaDB, no TiCDC. */
		skip = st.suite.requires & REQUIRE_TIDB ? "tidb" : "ticdc";
		goto report;
	}
	/* Only a cluster the run made is the run's to tear down; an
	 * attached one is left running (healed). */
	st.cluster_started = st.cluster.type->made;
	if (cluster_up(&st.cluster, e) ||
	    cluster_ensure_changefeed(&st.cluster, e)) {
		if (interrupted)
			goto report;
		/* A server without what tichaos needs (an API too old):
		 * refused, like a name that names nothing. */
		if (e->class == ERR_USAGE) {
			rc = EXIT_USAGE;
			refused = 1;
		}
		goto out;
	}
	st.cluster.interrupt_at = 2;
	snprintf(cdir, sizeof(cdir), "%s/topology.yaml", st.dir);
	if (topology_write(&st.cluster, cdir, e) ||
	    write_server_options(&st, e))
		goto out;
	st.ups = calloc(st.cluster.ncomps + 1, sizeof(*st.ups));
	if (!st.ups)
		goto out;
	for (size_t i = 0; i < st.cluster.ncomps; i++)
		if ((st.cluster.comps[i].roles & ROLE_UPSTREAM) &&
		    st.cluster.comps[i].sql_port)
			st.ups[st.nups++] = &st.cluster.comps[i];
	if (!st.nups) {
		err_set(e, ERR_INFRA, "the cluster has no upstream SQL node");
		goto out;
	}
	if (detect_dialect(st.ups[0], &st.dialect, e))
		goto out;
	log_info("upstream %s speaks %s", st.ups[0]->name,
		 dialect_name(st.dialect));
	skip = missing_requirement(&st);
	if (skip)
		goto report;
	/* A name that names nothing in this cluster costs no run: refused
	 * before any workload starts, and the cluster torn down. */
	if (suite_resolve(&st.suite, &st.cluster, e)) {
		rc = EXIT_USAGE;
		refused = 1;
		goto out;
	}
	if (create_schema(&st, e)) {
		if (interrupted)
			goto report;
		goto out;
	}
	if (ticdc_eligible(&st, e)) {
		if (e->class == ERR_USAGE) {
			rc = EXIT_USAGE;
			refused = 1;
		}
		goto out;
	}
	if (await_schema(&st, e)) {
		if (interrupted)
			goto report;
		goto out;
	}
	note_log_starts(&st);

	snprintf(cdir, sizeof(cdir), "%s/history.jsonl", st.dir);
	st.run.suite = &st.suite;
	st.run.plan = &st.plan;
	if (history_open(&st.run.history, cdir, clock_mono_ns(), e) ||
	    start_workers(&st, o, e))
		goto out;
	st.nemesis_started = 1;
	if (nemesis_start(&st.nemesis, &st.cluster, &st.run, e))
		goto out;
	drive(&st, o->quiet);
	/* A full disk takes no copies of logs, and no checks run. */
	if (!st.aborted[0])
		collect_logs(&st);
	if (run_checks(&st, e))
		goto out;
report:
	release_space(&st);
	/* Every record on disk before the reports read the history; what
	 * a full disk kept out even now is counted in the log. */
	if (st.run.history) {
		struct err he = ERR_INIT;
		int failed = history_close(st.run.history, &he);

		st.run.history = NULL;
		if (failed && !st.aborted[0]) {
			err_set(e, he.class, "%s", he.msg);
			goto out;
		}
		if (failed && strcmp(he.msg, st.aborted))
			log_error("%s", he.msg);
	}
	/* The cause first: a report the full disk refuses comes second. */
	if (st.aborted[0])
		err_set(e, ERR_INFRA, "%s", st.aborted);
	rc = finish(&st, skip, o, e);
	if (rc < 0) {
		rc = EXIT_INFRA;
		goto out;
	}
	if (interrupted)
		rc = EXIT_INTERRUPTED;
	else if (st.aborted[0])
		rc = EXIT_INFRA;
	else if (rc == EXIT_INFRA)
		err_set(e, ERR_INFRA, "a fault did not take effect, a heal "
			"failed or a check could not decide (see the TAP "
			"diagnostics)");
out:
	if (rc == EXIT_INFRA && !err_isset(e))
		err_set(e, ERR_INFRA, "out of memory");
	else if (rc == EXIT_INFRA)
		rc = (int)e->class;
	release(&st, o->keep_cluster);
	if (refused)
		discard_run_dir(st.dir);
	if (!st.tap_printed && !o->dry_run)
		bail_out(e);
	buf_release(&text);
	if (interrupted && rc != EXIT_USAGE)
		rc = EXIT_INTERRUPTED;
	return rc;
}
