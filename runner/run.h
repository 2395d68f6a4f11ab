#ifndef TICHAOS_RUN_H
#define TICHAOS_RUN_H

/*
 * The life of one run (docs/internals.md, The life of a run): load the
 * suite, draw the plan, make the run directory, start or attach to the
 * cluster, create the schema, drive the workloads for the duration, stop
 * them, tear down, report.
 */

#include <stdint.h>

#include "lib/err.h"

struct suite;
struct plan;
struct history;
struct cancel;

struct run_options {
	const char *cluster;	/* "local" (NULL) or a topology file */
	int64_t duration_ns;	/* 0: the suite's */
	int has_seed;
	uint64_t seed;
	const char *out;	/* run directory; NULL: runs/SUITE/TIME-sSEED */
	int keep_cluster;
	int keep_data;		/* the cluster's data, even when it passed */
	int port_base;		/* 0 default, -1 auto */
	int hosts;		/* enum hosts_mode; HOSTS_DEFAULT: the
				 * suite's, else TICHAOS_HOSTS, else auto */
	int quiet;
	/* Print the plan and stop: nothing started, nothing written. */
	int dry_run;
	/* replay: the run directory replayed; its plan.json must be the
	 * plan drawn now, byte for byte. */
	const char *replay_of;
	/* MAY: --results-as-logs: the run directory's files copied there
	 * once it ends (run_copy_as_logs). */
	const char *as_logs;
	/* --set SECTION.KIND.OPTION=VALUE, nsets of them (suite_load_set). */
	const char *const *sets;
	size_t nsets;
};

/* State shared by the runner and its workers. */
struct run {
	const struct suite *suite;
	const struct plan *plan;
	struct history *history;
	int64_t start_ns;
	/* The run's token: CANCEL_STOP when workers must stop, higher on
	 * ^C or an abort (lib/cancel.h). */
	struct cancel *cancel;
};

/*
 * Run the suite at `path`. Returns the exit code (docs/internals.md, Rules);
 * `e` holds the message of a usage or infrastructure error.
 */
int run_suite(const char *path, const struct run_options *o, struct err *e);

/*
 * --results-as-logs DIR, for a CI that keeps only *.log files: the files
 * of `run_dir` (its own, logs/ and fix-sql/; not the cluster's data)
 * copied to DIR/tichaos-SUITE/<run_dir's name>/, each name ending in
 * .log (report.html.log, history.jsonl.log, logs/up-0.log).
 */
int run_copy_as_logs(const char *run_dir, const char *suite,
		     const char *to, struct err *e);


/* `path` copied to DEST/NAME, ".log" added unless NAME ends in it. */
int run_copy_as_log(const char *path, const char *dest, const char *name,
		    struct err *e);

/* Set by the signal handlers; read by run_suite. */
void run_interrupt(void);

#endif
