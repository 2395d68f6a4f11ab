#ifndef TICHAOS_JOB_H
#define TICHAOS_JOB_H

/*
 * One run by a child tichaos (runner/job.c), the way several suites
 * (batch.c) and one suite many times (repeat.c) run: `tichaos run PATH
 * ARGS...` in a session of its own, its stdout (its TAP) kept, its
 * stderr passed on line by line after the job's name, the run directory
 * it made read back; its subtest in the parent's TAP stream and its
 * testsuite in the parent's JUnit file.
 *
 * Children run in sessions of their own, so a terminal's ^C reaches the
 * parent alone: job_catch_signals counts each SIGINT and SIGTERM, and
 * job_pass_signals passes each on, once, to every child still running.
 */

#include <limits.h>
#include <poll.h>
#include <stdint.h>

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/proc.h"

struct job {
	const char *path;	/* the suite's file, borrowed */
	char name[128];		/* the job's name in the TAP and on stderr */
	struct proc p;
	const char *argv[32];
	int out, err;		/* the child's stdout and stderr, read */
	struct buf tap;		/* its stdout: its TAP */
	struct buf line;	/* its stderr's last line so far */
	char last_err[256];	/* its stderr's last whole line */
	char note[PATH_MAX];	/* where it notes its run directory */
	int code;		/* its exit code; -1 while it runs */
	int64_t started, took;
};

/* A job of the suite at `path`, not started: no pipes, code -1. */
void job_init(struct job *j, const char *path);

/*
 * Start `tichaos run PATH ARGS...` (ARGS NULL-ended, at most 28) with
 * TICHAOS_RUN_DIR_FILE naming j->note. 0, or -1 with `e` set and nothing
 * left open.
 */
int job_start(struct job *j, const char *const *args, struct err *e);

/*
 * Read what the child wrote, as poll() found it on pf[0] (its stdout)
 * and pf[1] (its stderr): 1 when both pipes are at their end.
 */
int job_read(struct job *j, const struct pollfd pf[2]);

/* Poll entries for the job's two pipes (fd -1 once closed). */
void job_poll_fds(const struct job *j, struct pollfd pf[2]);

/* Once job_read said 1: the child reaped, j->code and j->took set. */
void job_finish(struct job *j);

/* A job that never ran: its code and why, as its stderr would say. */
void job_failed(struct job *j, int code, const char *why);

/* The run directory the child noted into dir[size], or "". */
void job_dir(const struct job *j, char *dir, size_t size);

/* 1 when the child's run was skipped (exit 0, a plan of 1..0). */
int job_skipped(const struct job *j);

/*
 * The job's subtest on stdout, then its test line, number `k`:
 * "ok K - NAME (exit 0, 9s)" or "ok K - NAME # SKIP ...", with "# run
 * directory: DIR" and, when it did not pass, its last stderr line.
 */
void job_tap(const struct job *j, int k, const char *dir);

/*
 * The run's testsuite element (from DIR/junit.xml, named j->name) into
 * `suites` and its counts (tests, failures, errors, skipped, time) into
 * sum[]; a job without a junit.xml adds a testsuite with one error
 * saying why.
 */
void job_junit(const struct job *j, const char *dir, struct buf *suites,
	       double sum[5]);

/* The JUnit file at `path` holding `suites` under one <testsuites>. */
int job_write_junit(const char *path, const struct buf *suites,
		    const double sum[5], struct err *e);

/* The worse of two exit codes: interrupted above all, then the higher. */
int job_worse(int rc, int code);

/* Free the job's buffers and remove its note file. */
void job_release(struct job *j);

/* From now on SIGINT and SIGTERM are counted, for job_signals. */
void job_catch_signals(void);

/* How many SIGINT and SIGTERM came since job_catch_signals. */
int job_signals(void);

/*
 * SIGINT to every one of `jobs` still running, once per signal that came
 * since the last call; *passed counts those passed on.
 */
void job_pass_signals(struct job *jobs, size_t n, int *passed);

#endif
