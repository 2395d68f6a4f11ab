/*
 * A run by a child tichaos (runner/job.h): started in a session of its
 * own, read through two pipes, its subtest and its testsuite written
 * into the parent's TAP stream and JUnit file.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/parse.h"
#include "reports/report.h"
#include "runner/job.h"
#include "runner/runner.h"

static volatile sig_atomic_t signals;

static void on_signal(int sig)
{
	(void)sig;
	signals++;
}

void job_catch_signals(void)
{
	catch_signals(on_signal);
}

int job_signals(void)
{
	return signals;
}

void job_init(struct job *j, const char *path)
{
	memset(j, 0, sizeof(*j));
	j->path = path;
	j->out = j->err = -1;
	j->code = -1;
}

int job_start(struct job *j, const char *const *args, struct err *e)
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
	for (size_t i = 0; args[i] && n < 30; i++)
		j->argv[n++] = args[i];
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

/* The child's stderr, each whole line on ours after the job's name. */
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

void job_poll_fds(const struct job *j, struct pollfd pf[2])
{
	pf[0] = (struct pollfd){ j->out, POLLIN, 0 };
	pf[1] = (struct pollfd){ j->err, POLLIN, 0 };
}

int job_read(struct job *j, const struct pollfd pf[2])
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

void job_finish(struct job *j)
{
	struct err e = ERR_INIT;

	if (j->line.len)
		job_stderr(j, "\n", 1);
	j->code = proc_wait(&j->p, -1, &e);
	if (j->code < 0)
		j->code = EXIT_INFRA;
	j->took = clock_mono_ns() - j->started;
}

void job_failed(struct job *j, int code, const char *why)
{
	snprintf(j->last_err, sizeof(j->last_err), "%.200s", why);
	j->code = code;
	j->took = 0;
}

void job_dir(const struct job *j, char *dir, size_t size)
{
	FILE *f = j->note[0] ? fopen(j->note, "r") : NULL;

	dir[0] = '\0';
	if (f) {
		if (fgets(dir, (int)size, f))
			dir[strcspn(dir, "\n")] = '\0';
		fclose(f);
	}
}

int job_skipped(const struct job *j)
{
	const char *t = buf_str(&j->tap);

	return j->code == EXIT_PASS && strstr(t, "# SKIP ") &&
	       strstr(t, "1..0");
}

void job_tap(const struct job *j, int k, const char *dir)
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
	if (job_skipped(j))
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

void job_junit(const struct job *j, const char *dir, struct buf *suites,
	       double sum[5])
{
	static const char *const names[] = { "tests", "failures", "errors",
					      "skipped", "time" };
	struct buf x = BUF_INIT;
	char path[PATH_MAX + 16];
	const char *top, *first, *last, *name, *rest;

	snprintf(path, sizeof(path), "%s/junit.xml", dir);
	if (!dir[0] || buf_read_file(&x, path, NULL) ||
	    !(top = strstr(buf_str(&x), "<testsuites")) ||
	    !(first = strstr(top, "<testsuite ")) ||
	    !(last = strstr(first, "</testsuites>")) ||
	    strncmp(first, "<testsuite name=\"", 17) ||
	    !(rest = strchr(name = first + 17, '"')) || rest > last) {
		/* No run of its own (a suite refused): one error. */
		buf_addstr(suites, "  <testsuite name=\"", NULL);
		report_escape_xml(suites, j->name);
		buf_addstr(suites, "\" tests=\"1\" failures=\"0\" "
			   "errors=\"1\" skipped=\"0\">\n"
			   "    <testcase classname=\"", NULL);
		report_escape_xml(suites, j->name);
		buf_printf(suites, NULL, "\" name=\"run\">\n"
			   "      <error message=\"exit %d\">", j->code);
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
	/* Its testsuite as the run wrote it, under the job's name. */
	buf_addstr(suites, "  <testsuite name=\"", NULL);
	report_escape_xml(suites, j->name);
	buf_add(suites, rest, (size_t)(last - rest), NULL);
	buf_release(&x);
}

int job_write_junit(const char *path, const struct buf *suites,
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

int job_worse(int rc, int code)
{
	if (code == EXIT_INTERRUPTED || rc == EXIT_INTERRUPTED)
		return EXIT_INTERRUPTED;
	return code > rc ? code : rc;
}

void job_release(struct job *j)
{
	buf_release(&j->tap);
	buf_release(&j->line);
	if (j->note[0])
		unlink(j->note);
	j->note[0] = '\0';
}

void job_pass_signals(struct job *jobs, size_t n, int *passed)
{
	while (*passed < signals) {
		(*passed)++;
		for (size_t i = 0; i < n; i++)
			if (jobs[i].p.pid && jobs[i].code < 0)
				kill(jobs[i].p.pid, SIGINT);
	}
}
