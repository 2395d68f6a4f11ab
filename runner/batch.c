/*
 * tichaos run with several suites, or -j: each suite run by a tichaos of
 * its own (a job, runner/job.h: its own cluster, ports and run
 * directory), up to `jobs` at once; one TAP stream with a subtest per
 * suite, as each ends; one JUnit file with each run's testsuite; the
 * worst exit code. With --shard I/N only every N-th suite of the sorted
 * list runs, from the I-th: a CI matrix of N machines runs each suite
 * exactly once.
 *
 * A terminal's ^C reaches this process alone, which passes each SIGINT
 * or SIGTERM on, once, to every child still running; a child stops its
 * run as `tichaos run` does.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/suite.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "runner/batch.h"
#include "runner/job.h"
#include "runner/kinds.h"
#include "runner/runner.h"

int batch_shard(const char *spec, int *index, int *count)
{
	char *end;
	long i, n;

	errno = 0;
	i = strtol(spec, &end, 10);
	if (errno || end == spec || *end != '/')
		return -1;
	spec = end + 1;
	n = strtol(spec, &end, 10);
	if (errno || end == spec || *end || n < 1 || n > 1000 || i < 1 ||
	    i > n)
		return -1;
	*index = (int)i;
	*count = (int)n;
	return 0;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t batch_select(char **suites, size_t n, int index, int count)
{
	size_t k = 0;

	qsort(suites, n, sizeof(*suites), by_path);
	for (size_t i = 0; i < n; i++)
		if ((int)(i % (size_t)count) == index - 1)
			suites[k++] = suites[i];
	return k;
}

/* The suite's name, as its run directory and reports say it. */
static void job_name(struct job *j)
{
	struct suite s;
	struct err e = ERR_INIT;
	const char *base = strrchr(j->path, '/');

	if (!suite_load(&s, j->path, &tichaos_kinds, &e) && s.name) {
		snprintf(j->name, sizeof(j->name), "%s", s.name);
	} else {
		base = base ? base + 1 : j->path;
		snprintf(j->name, sizeof(j->name), "%.*s",
			 (int)strcspn(base, "."), base);
	}
	suite_release(&s);
}

/* A job that ended without a run of its own: number `k`. */
static void job_ended(struct job *j, int k, struct buf *junit, double sum[5])
{
	job_junit(j, "", junit, sum);
	job_tap(j, k, "");
}

int run_batch(char **suites, size_t n, const struct batch_options *b,
	      struct err *e)
{
	struct job *jobs = xcalloc(n + 1, sizeof(*jobs));
	struct pollfd *pf = xcalloc(2 * n + 2, sizeof(*pf));
	struct buf junit = BUF_INIT;
	double sum[5] = { 0 };
	size_t next = 0, running = 0, ended = 0;
	int rc = EXIT_PASS, passed = 0;

	job_catch_signals();
	printf("TAP version 13\n1..%zu\n", n);
	fflush(stdout);
	for (size_t i = 0; i < n; i++) {
		job_init(&jobs[i], suites[i]);
		job_name(&jobs[i]);
	}
	while (ended < n) {
		job_pass_signals(jobs, n, &passed);
		while (!job_signals() && running < (size_t)b->jobs &&
		       next < n) {
			struct job *j = &jobs[next++];

			if (job_start(j, b->pass, e)) {
				log_error("%s: %s", j->name, e->msg);
				job_failed(j, EXIT_INFRA, e->msg);
				err_clear(e);
				job_ended(j, (int)++ended, &junit, sum);
				rc = job_worse(rc, j->code);
				continue;
			}
			running++;
		}
		/* Interrupted before their turn: never started. */
		while (job_signals() && next < n) {
			struct job *j = &jobs[next++];

			job_failed(j, EXIT_INTERRUPTED,
				   "interrupted before it started");
			job_ended(j, (int)++ended, &junit, sum);
			rc = job_worse(rc, j->code);
		}
		if (!running)
			continue;
		for (size_t i = 0; i < n; i++)
			job_poll_fds(&jobs[i], &pf[2 * i]);
		if (poll(pf, 2 * n, 200) < 0 && errno != EINTR)
			break;
		for (size_t i = 0; i < n; i++) {
			struct job *j = &jobs[i];
			char dir[PATH_MAX];

			if (j->code >= 0 || !j->p.pid ||
			    !job_read(j, &pf[2 * i]))
				continue;
			job_finish(j);
			running--;
			ended++;
			job_dir(j, dir, sizeof(dir));
			job_junit(j, dir, &junit, sum);
			job_tap(j, (int)ended, dir);
			rc = job_worse(rc, j->code);
		}
	}
	if (job_write_junit(b->junit, &junit, sum, e))
		rc = job_worse(rc, EXIT_INFRA);
	for (size_t i = 0; i < n; i++)
		job_release(&jobs[i]);
	buf_release(&junit);
	free(pf);
	free(jobs);
	return rc;
}
