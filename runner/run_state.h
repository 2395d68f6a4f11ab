#ifndef TICHAOS_RUN_STATE_H
#define TICHAOS_RUN_STATE_H

/*
 * The state of one run, shared by the files of the runner that make it
 * (run.c drives it; rundir.c keeps its directory; progress.c says how it
 * goes; results.c writes what came of it). Not for anything outside
 * runner/.
 */

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "checkers/checker.h"
#include "clusters/cluster.h"
#include "core/plan.h"
#include "core/suite.h"
#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/err.h"
#include "runner/monitor.h"
#include "runner/nemesis.h"
#include "runner/run.h"
#include "workloads/workload.h"

/* Everything one run owns, released in one place. */
struct state {
	struct suite suite;
	int suite_loaded;
	struct plan plan;
	struct cluster cluster;
	int cluster_open;
	int cluster_started;
	/* The faults' `prepare` ran (or began): their `finish` is due. */
	int faults_prepared;
	int cluster_lock;	/* the attached cluster's lock (fd), or -1 */
	struct run run;
	char dir[3072];
	struct worker_env env;
	struct worker *workers;
	size_t nworkers;
	pthread_t *threads;
	size_t nthreads;
	const struct component **ups;
	size_t nups;
	int dialect;
	struct nemesis nemesis;
	int nemesis_started;
	struct monitor monitor;
	int monitor_started;
	/* Where each component's log stood when the run began; its more
	 * logs ("SIZE PATH" lines, run_list_logs) then. */
	int64_t *log_start;
	struct buf *log_more;
	struct check_result *checks;
	time_t started;
	/* Why the run stopped short of its duration without a signal (a
	 * run file could not be written, a start that failed), or "". */
	char aborted[ERR_MSG_MAX];
	/* The cluster's servers carry the fix of the bug the suite catches:
	 * the line that says so (suite_fixed_here), or "". */
	char fixed[ERR_MSG_MAX];
	int reserved;
	int tap_printed;
	/* The data of the cluster the run started, to be removed once it is
	 * down (the run passed; run_finish decides and says so). */
	int drop_data;
};

/* A counter the workers or the nemesis update, read as it is now. */
static inline uint64_t run_load(const uint64_t *v)
{
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

/* One step of the latency record: a second, up to 600 steps a run. */
static inline int64_t run_latency_step(int64_t duration_ns)
{
	int64_t steps = (duration_ns + 600 * NS_PER_SEC - 1) /
			(600 * NS_PER_SEC);

	return (steps > 1 ? steps : 1) * NS_PER_SEC;
}

/* ---- rundir.c: the run directory ---------------------------------------- */

/* runs/<suite>/<YYYYmmdd-HHMMSS>-s<seed> (or --out). */
int run_make_dir(struct state *st, const struct run_options *o,
		 struct err *e);

/*
 * runs/<suite>/latest -> the run's directory, once the run is under way
 * (or skipped): a run refused, or whose start failed, leaves it where
 * it was. Nothing with --out.
 */
void run_link_latest(const struct state *st, const struct run_options *o);


/* DIR/NAME holding `text`. */
int run_write_file(const char *dir, const char *name, const struct buf *text,
		   struct err *e);

/* Hold space in RUN/.reserve for the end of the run; give it back. */
int run_reserve_space(struct state *st, struct err *e);
void run_release_space(struct state *st);

/* replay: the plan drawn now must be the one the run recorded. */
int run_same_plan(struct state *st, const char *dir, struct err *e);

/* server-options.json, for a cluster that has its servers' options. */
int run_write_server_options(struct state *st, struct err *e);

/* Where each component's log stands now; logs/ copied from there. */
void run_note_log_starts(struct state *st);
void run_collect_logs(struct state *st);

/* Stop the clusters of runs beside `run_dir` whose runner is gone. */
void run_reap_orphans(const char *run_dir);

/* Remove a refused run's directory. */
void run_discard_dir(const char *dir);

/* ---- progress.c: the progress line ------------------------------------- */

/* What the last progress line counted, for the rates of the next. */
struct pace {
	uint64_t ok;
	int64_t at;
};

void run_progress(struct state *st, int64_t elapsed, int final,
		  struct pace *pace);

/* ---- results.c: results.json and the reports --------------------------- */

/* results.json saying "incomplete", before the workers start. */
int run_write_stub(struct state *st, const struct run_options *o,
		   struct err *e);

/*
 * results.json (docs/results.md), then every report from it; the TAP
 * stream also goes to stdout, the summary to stderr. Returns the exit
 * code the results call for, -1 when they could not be written.
 */
/* Component i's data directory when it lies in the run's; else NULL. */
const char *run_own_data(const struct state *st, size_t i);

int run_finish(struct state *st, const char *skip,
	       const struct run_options *o, int interrupted, struct err *e);

#endif
