/*
 * tichaos run with several suites, or -j: each suite run by a tichaos of
 * its own (a child, its own cluster, ports and run directory), up to
 * `jobs` at once; one TAP stream with a subtest per suite, as each ends;
 * one JUnit file with each run's testsuite; the worst exit code. With
 * --shard I/N only every N-th suite of the sorted list runs, from the
 * I-th: a CI matrix of N machines runs each suite exactly once.
 *
 * Children run in sessions of their own, so a terminal's ^C reaches this
 * process alone, which passes each SIGINT or SIGTERM on, once, to every
 * child still running; a child stops its run as `tichaos run` does.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/suite.h"
#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "lib/proc.h"
#include "reports/report.h"
#include "runner/batch.h"
#include "runner/kinds.h"
#include "runner/runner.h"

struct job {
	const char *path;	/* the suite's file */
	char name[128];		/* its name, or its file's */
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

static volatile sig_atomic_t signals;

static void on_signal(int sig)
{
	(void)sig;
	signals++;
}

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

static int job_start(struct job *j, const struct batch_options *b,
		     struct err *e)
{
	static const char self[] = "/proc/self/exe";
	const char *tmp = getenv("TMPDIR");
	char env[PATH_MAX + 32];
	const char *envv[2] = { env, NULL };
	int out[2], err[2], fd, n = 0;

	snprintf(j->note, sizeof(j->note), "%s/tichaos-batch-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(j->note);
	if (fd < 0)
		return err_errno(e, errno, "cannot create '%s'", j->note);
	close(fd);
	snprintf(env, sizeof(env), "TICHAOS_RUN_DIR_FILE=%s", j->note);
	j->argv[n++] = self;
	j->argv[n++] = "run";
	j->argv[n++] = j->path;
	for (size_t i = 0; b->pass[i] && n < 30; i++)
		j->argv[n++] = b->pass[i];
	j->argv[n] = NULL;
	if (pipe2(out, O_CLOEXEC))
		return err_errno(e, errno, "cannot make a pipe");
	if (pipe2(err, O_CLOEXEC)) {
		close(out[0]);
		close(out[1]);
		return err_errno(e, errno, "cannot make a pipe");
	}
	j->p = (struct proc)PROC_INIT;
	j->p.argv = j->argv;
	j->p.env = envv;
	j->p.out_fd = out[1];
	j->p.err_fd = err[1];
	j->p.new_session = 1;
	j->code = -1;
	j->started = clock_mono_ns();
	if (proc_start(&j->p, e)) {
		for (int i = 0; i < 2; i++) {
			close(out[i]);
			close(err[i]);
		}
		return -1;
	}
	close(out[1]);
	close(err[1]);
	j->out = out[0];
	j->err = err[0];
	return 0;
}

/* The child's stderr, each whole line on ours after its suite's name. */
static void job_stderr(struct job *j, const char *data, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (data[i] != '\n') {
			buf_addch(&j->line, data[i], NULL);
			continue;
		}
		fprintf(stderr, "%s | %s\n", j->name, buf_str(&j->line));
		snprintf(j->last_err, sizeof(j->last_err), "%s",
			 buf_str(&j->line));
		buf_reset(&j->line);
	}
}

/* Read what a child wrote; 1 when both its pipes are at their end. */
static int job_read(struct job *j, const struct pollfd *pf)
{
	char data[8192];

	for (int k = 0; k < 2; k++) {
		int *fd = k ? &j->err : &j->out;
		ssize_t got;

		if (*fd < 0 || !(pf[k].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		got = read(*fd, data, sizeof(data));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			close(*fd);
			*fd = -1;
		} else if (k) {
			job_stderr(j, data, (size_t)got);
		} else {
			buf_add(&j->tap, data, (size_t)got, NULL);
		}
	}
	return j->out < 0 && j->err < 0;
}

/* The run directory the child noted, or "". */
static void job_dir(const struct job *j, char *dir, size_t size)
{
	FILE *f = fopen(j->note, "r");

	dir[0] = '\0';
	if (f) {
		if (fgets(dir, (int)size, f))
			dir[strcspn(dir, "\n")] = '\0';
		fclose(f);
	}
}

/* The subtest of a finished suite, and its test line: number `k`. */
static void job_tap(const struct job *j, int k, const char *dir)
{
	const char *t = buf_str(&j->tap), *skip = strstr(t, "# SKIP ");
	char took[32];

	printf("# Subtest: %s\n", j->name);
	while (*t) {
		size_t len = strcspn(t, "\n");

		if (strncmp(t, "TAP version ", 12))
			printf("    %.*s\n", (int)len, t);
		t += len + (t[len] == '\n');
	}
	format_duration(j->took / NS_PER_SEC * NS_PER_SEC, took,
			(int)sizeof(took));
	if (j->code == EXIT_PASS && skip && strstr(buf_str(&j->tap), "1..0"))
		printf("ok %d - %s # SKIP %.*s\n", k, j->name,
		       (int)strcspn(skip + 7, "\n"), skip + 7);
	else
		printf("%sok %d - %s (exit %d, %s)\n", j->code ? "not " : "",
		       k, j->name, j->code, took);
	if (dir[0])
		printf("  # run directory: %s\n", dir);
	if (j->code && j->last_err[0])
		printf("  # %s\n", j->last_err);
	fflush(stdout);
}

/* An attribute's number in the first tag of `xml`; 0 when absent. */
static double attr(const char *xml, const char *name)
{
	char key[32];
	const char *end = strchr(xml, '>'), *p;

	snprintf(key, sizeof(key), " %s=\"", name);
	p = strstr(xml, key);
	return p && (!end || p < end) ? atof(p + strlen(key)) : 0;
}

/* A run's testsuite elements into `suites`, its counts into `sum`. */
static void job_junit(const struct job *j, const char *dir,
		      struct buf *suites, double sum[5])
{
	static const char *const names[] = { "tests", "failures", "errors",
					      "skipped", "time" };
	struct buf x = BUF_INIT;
	char path[PATH_MAX + 16];
	const char *top, *first, *last;

	snprintf(path, sizeof(path), "%s/junit.xml", dir);
	if (!dir[0] || buf_read_file(&x, path, NULL) ||
	    !(top = strstr(buf_str(&x), "<testsuites")) ||
	    !(first = strstr(top, "<testsuite ")) ||
	    !(last = strstr(first, "</testsuites>"))) {
		/* No run of its own (a suite refused): one error. */
		buf_printf(suites, NULL, "  <testsuite name=\"%s\" tests=\"1\" "
			   "failures=\"0\" errors=\"1\" skipped=\"0\">\n"
			   "    <testcase classname=\"%s\" name=\"run\">\n"
			   "      <error message=\"exit %d\">", j->name,
			   j->name, j->code);
		report_escape_xml(suites, j->last_err);
		buf_addstr(suites, "</error>\n    </testcase>\n"
			   "  </testsuite>\n", NULL);
		sum[0] += 1;
		sum[2] += 1;
		buf_release(&x);
		return;
	}
	for (int i = 0; i < 5; i++)
		sum[i] += attr(top, names[i]);
	buf_add(suites, first - 2, (size_t)(last - first + 2), NULL);
	buf_release(&x);
}

static int write_junit(const char *path, const struct buf *suites,
		       const double sum[5], struct err *e)
{
	struct buf x = BUF_INIT;
	char dir[PATH_MAX];
	char *slash;
	int rc;

	buf_printf(&x, NULL, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<testsuites name=\"tichaos\" tests=\"%.0f\" failures="
		   "\"%.0f\" errors=\"%.0f\" skipped=\"%.0f\" time=\"%.3f\">\n"
		   "%s</testsuites>\n", sum[0], sum[1], sum[2], sum[3], sum[4],
		   buf_str(suites));
	/* runs/junit.xml: runs/ may not be there yet. */
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST) {
			buf_release(&x);
			return err_errno(e, errno, "cannot create '%s'", dir);
		}
	}
	rc = buf_write_file(&x, path, 0644, e);
	buf_release(&x);
	return rc;
}

/* The worst outcome wins: interrupted, infra, usage, fail. */
static int worse(int rc, int code)
{
	if (code == EXIT_INTERRUPTED || rc == EXIT_INTERRUPTED)
		return EXIT_INTERRUPTED;
	return code > rc ? code : rc;
}

/* Send SIGINT to every child still running, once per signal we got. */
static void pass_signals(struct job *jobs, size_t n, int *passed)
{
	while (*passed < signals) {
		(*passed)++;
		for (size_t i = 0; i < n; i++)
			if (jobs[i].p.pid && jobs[i].code < 0)
				kill(jobs[i].p.pid, SIGINT);
	}
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

	catch_signals(on_signal);
	printf("TAP version 13\n1..%zu\n", n);
	fflush(stdout);
	for (size_t i = 0; i < n; i++) {
		jobs[i].path = suites[i];
		jobs[i].out = jobs[i].err = -1;
		jobs[i].code = -1;
		job_name(&jobs[i]);
	}
	while (ended < n) {
		pass_signals(jobs, n, &passed);
		while (!signals && running < (size_t)b->jobs && next < n) {
			struct job *j = &jobs[next++];

			if (job_start(j, b, e)) {
				log_error("%s: %s", j->name, e->msg);
				snprintf(j->last_err, sizeof(j->last_err),
					 "%.200s", e->msg);
				err_clear(e);
				j->code = EXIT_INFRA;
				j->took = 0;
				ended++;
				job_junit(j, "", &junit, sum);
				job_tap(j, (int)ended, "");
				rc = worse(rc, j->code);
				continue;
			}
			running++;
		}
		/* Interrupted before their turn: never started. */
		while (signals && next < n) {
			struct job *j = &jobs[next++];

			j->code = EXIT_INTERRUPTED;
			snprintf(j->last_err, sizeof(j->last_err),
				 "interrupted before it started");
			ended++;
			job_junit(j, "", &junit, sum);
			job_tap(j, (int)ended, "");
			rc = worse(rc, j->code);
		}
		if (!running)
			continue;
		for (size_t i = 0; i < n; i++) {
			pf[2 * i] = (struct pollfd){ jobs[i].out, POLLIN, 0 };
			pf[2 * i + 1] = (struct pollfd){ jobs[i].err, POLLIN,
							 0 };
		}
		if (poll(pf, 2 * n, 200) < 0 && errno != EINTR)
			break;
		for (size_t i = 0; i < n; i++) {
			struct job *j = &jobs[i];
			char dir[PATH_MAX];

			if (j->code >= 0 || !j->p.pid ||
			    !job_read(j, &pf[2 * i]))
				continue;
			if (j->line.len)
				job_stderr(j, "\n", 1);
			j->code = proc_wait(&j->p, -1, e);
			if (j->code < 0) {
				err_clear(e);
				j->code = EXIT_INFRA;
			}
			j->took = clock_mono_ns() - j->started;
			running--;
			ended++;
			job_dir(j, dir, sizeof(dir));
			job_junit(j, dir, &junit, sum);
			job_tap(j, (int)ended, dir);
			rc = worse(rc, j->code);
		}
	}
	if (write_junit(b->junit, &junit, sum, e))
		rc = worse(rc, EXIT_INFRA);
	for (size_t i = 0; i < n; i++) {
		buf_release(&jobs[i].tap);
		buf_release(&jobs[i].line);
		if (jobs[i].note[0])
			unlink(jobs[i].note);
	}
	buf_release(&junit);
	free(pf);
	free(jobs);
	return rc;
}
