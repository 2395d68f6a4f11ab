/* lib/log.c: levels, the stderr filter, the run log, the line format. */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"
#include "tests/unit/tap.h"
#include "tests/unit/tmpdir.h"

/* "HH:MM:SS.mmm level message", the level padded to 5 columns. */
#define LINE_RE "^([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9])\\.[0-9]{3} " \
		"(error|warn |info |debug) (.*)$"

static regex_t line_re;

/*
 * Check that every line of `text` is well-formed and that, without the
 * time stamps, the lines are exactly `want` (NULL-terminated).
 */
static void lines_are(const char *text, const char *const *want,
		      const char *what)
{
	char copy[8192], *line, *next;
	int n = 0, bad = 0, wrong = 0;

	snprintf(copy, sizeof(copy), "%s", text);
	for (line = copy; *line; line = next) {
		regmatch_t m[6];

		next = strchr(line, '\n');
		if (!next) {
			diag("%s: last line has no newline: '%s'", what, line);
			bad++;
			break;
		}
		*next++ = '\0';
		if (regexec(&line_re, line, 6, m, 0)) {
			diag("%s: malformed line '%s'", what, line);
			bad++;
		} else if (!want[n] || strcmp(line + m[4].rm_so, want[n])) {
			diag("%s: line %d is '%s', want '%s'", what, n + 1,
			     line + m[4].rm_so, want[n] ? want[n] : "(none)");
			wrong++;
		}
		if (want[n])
			n++;
	}
	for (; want[n]; n++) {
		diag("%s: line %d missing, want '%s'", what, n + 1, want[n]);
		wrong++;
	}
	is_int(bad, 0, "%s: every line is 'HH:MM:SS.mmm level message'",
	       what);
	is_int(wrong, 0, "%s: exactly the expected messages", what);
}

/* Cut `text` before the line holding `needle`. */
static void cut_line_with(char *text, const char *needle)
{
	char *p = strstr(text, needle);

	if (!p)
		return;
	while (p > text && p[-1] != '\n')
		p--;
	*p = '\0';
}

/* Seconds between the local time now and the stamp "HH:MM:SS" of `line`. */
static int stamp_age(const char *line)
{
	int h, m, s, age;
	time_t now = time(NULL);
	struct tm tm;

	if (sscanf(line, "%2d:%2d:%2d.", &h, &m, &s) != 3)
		return -1;
	localtime_r(&now, &tm);
	age = (tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec) -
	      (h * 3600 + m * 60 + s);
	return age < 0 ? age + 86400 : age;	/* across midnight */
}

/* Redirect fd 1 and 2 to files while logging; restore them after. */
struct capture {
	int saved_out, saved_err;
};

static int capture_start(struct capture *c, const char *out,
			 const char *err)
{
	int fo, fe;

	fflush(stdout);
	fflush(stderr);
	fo = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	fe = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	c->saved_out = dup(1);
	c->saved_err = dup(2);
	if (fo < 0 || fe < 0 || c->saved_out < 0 || c->saved_err < 0 ||
	    dup2(fo, 1) < 0 || dup2(fe, 2) < 0) {
		if (c->saved_out >= 0) {
			dup2(c->saved_out, 1);
			close(c->saved_out);
		}
		if (c->saved_err >= 0) {
			dup2(c->saved_err, 2);
			close(c->saved_err);
		}
		if (fo >= 0)
			close(fo);
		if (fe >= 0)
			close(fe);
		return -1;
	}
	close(fo);
	close(fe);
	return 0;
}

static void capture_end(struct capture *c)
{
	fflush(stdout);
	fflush(stderr);
	dup2(c->saved_out, 1);
	dup2(c->saved_err, 2);
	close(c->saved_out);
	close(c->saved_err);
}

static void test_levels(struct tmpdir *t)
{
	char run_log[512], out[512], err[512], text[8192];
	static const char *const want_err[] = {
		"error e 1",
		"warn  w 2",
		"info  i 3",
		"debug d 6",
		NULL,
	};
	static const char *const want_log[] = {
		"error e 1",
		"warn  w 2",
		"info  i 3",
		"debug d 4",
		"info  i 5",
		"debug d 6",
		"warn  w 7",
		NULL,
	};
	struct capture c;
	int rc;

	is_int(log_get_level(), LOG_INFO, "the default level is LOG_INFO");
	snprintf(run_log, sizeof(run_log), "%s", tmpdir_path(t, "run.log"));
	snprintf(out, sizeof(out), "%s", tmpdir_path(t, "stdout"));
	snprintf(err, sizeof(err), "%s", tmpdir_path(t, "stderr"));
	is_int(log_open(run_log), 0, "log_open");
	if (capture_start(&c, out, err)) {
		diag("cannot redirect stdout and stderr: %s", strerror(errno));
		skip(9, "no redirection");
		log_close();
		return;
	}
	log_error("e %d", 1);
	log_warn("w %d", 2);
	log_info("i %d", 3);
	log_debug("d %d", 4);		/* not on stderr at LOG_INFO */
	log_set_level(LOG_WARN);
	log_info("i %d", 5);		/* not on stderr at LOG_WARN */
	log_set_level(LOG_DEBUG);
	log_debug("d %d", 6);
	log_set_level(LOG_ERROR);
	log_msg(LOG_WARN, "w %d", 7);	/* not on stderr at LOG_ERROR */
	rc = log_get_level();
	log_set_level(LOG_INFO);
	log_close();
	log_error("after close");	/* stderr only */
	capture_end(&c);

	is_int(rc, LOG_ERROR, "log_get_level returns what was set");
	read_text(err, text, sizeof(text));
	ok(strstr(text, " after close\n") != NULL,
	   "stderr still works after log_close");
	cut_line_with(text, " after close\n");
	lines_are(text, want_err, "stderr");
	read_text(run_log, text, sizeof(text));
	lines_are(text, want_log, "run log");
	rc = stamp_age(text);
	ok(rc >= 0 && rc <= 5, "the stamp is the local time (%ds ago)", rc);
	ok(!strstr(text, "after close"), "nothing logged after log_close");
	read_text(out, text, sizeof(text));
	is_str(text, "", "nothing written to stdout");
}

static void test_open(struct tmpdir *t)
{
	char first[512], second[512], text[8192], out[512], err[512];
	static const char *const want_first[] = {
		"info  existing",
		"info  to first",
		NULL,
	};
	static const char *const want_second[] = { "info  to second", NULL };
	struct capture c;

	snprintf(first, sizeof(first), "%s", tmpdir_path(t, "first.log"));
	snprintf(second, sizeof(second), "%s", tmpdir_path(t, "second.log"));
	snprintf(out, sizeof(out), "%s", tmpdir_path(t, "stdout"));
	snprintf(err, sizeof(err), "%s", tmpdir_path(t, "stderr"));
	write_text(first, "00:00:00.000 info  existing\n");

	errno = 0;
	is_int(log_open(tmpdir_path(t, "nodir/x.log")), -1,
	       "log_open in a missing directory fails");
	is_int(errno, ENOENT, "with errno ENOENT");

	log_set_level(LOG_ERROR);	/* keep stderr quiet */
	is_int(log_open(first), 0, "log_open an existing file");
	log_info("to first");
	is_int(log_open(second), 0, "log_open another file");
	log_info("to second");
	log_close();
	log_close();			/* twice is harmless */
	log_set_level(LOG_INFO);

	read_text(first, text, sizeof(text));
	lines_are(text, want_first, "first log (appended to)");
	read_text(second, text, sizeof(text));
	lines_are(text, want_second, "second log");

	/* Nothing reaches stderr below its level, with or without a log. */
	if (capture_start(&c, out, err)) {
		skip(1, "no redirection");
		return;
	}
	log_debug("hidden");
	capture_end(&c);
	read_text(err, text, sizeof(text));
	is_str(text, "", "debug is not printed on stderr at LOG_INFO");
}

#define THREADS 4
#define PER_THREAD 200

static void *log_many(void *arg)
{
	int id = *(int *)arg;

	for (int i = 0; i < PER_THREAD; i++)
		log_info("thread %d line %d", id, i);
	return NULL;
}

static void test_threads(struct tmpdir *t)
{
	char path[512], text[65536], *line, *next;
	pthread_t threads[THREADS];
	int ids[THREADS], started = 0, bad = 0, lines = 0;
	int seen[THREADS] = { 0 };

	snprintf(path, sizeof(path), "%s", tmpdir_path(t, "threads.log"));
	log_set_level(LOG_ERROR);
	log_open(path);
	for (int i = 0; i < THREADS; i++) {
		ids[i] = i;
		if (pthread_create(&threads[i], NULL, log_many, &ids[i]))
			break;
		started++;
	}
	for (int i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	log_close();
	log_set_level(LOG_INFO);
	is_int(started, THREADS, "%d logging threads ran", THREADS);

	read_text(path, text, sizeof(text));
	for (line = text; *line; line = next) {
		regmatch_t m[6];
		int id, n;

		next = strchr(line, '\n');
		if (!next)
			break;
		*next++ = '\0';
		lines++;
		if (regexec(&line_re, line, 6, m, 0) ||
		    sscanf(line + m[5].rm_so, "thread %d line %d", &id, &n)
		    != 2 || id < 0 || id >= THREADS || n != seen[id]) {
			bad++;
			continue;
		}
		seen[id]++;
	}
	is_int(lines, THREADS * PER_THREAD, "one line per message");
	is_int(bad, 0, "no line torn or out of order within its thread");
}

/*
 * A full disk (simulated with RLIMIT_FSIZE: EFBIG where a disk says
 * ENOSPC): the failure is known at once, and the lines written meanwhile
 * reach the file, in order, once there is room.
 */
static void test_full_disk(struct tmpdir *t)
{
	static const char *const want[] = {
		"info  before", "info  during 1", "info  during 2",
		"info  after", NULL,
	};
	char path[512], text[8192], msg[512], expect[600];
	struct rlimit was, none;

	snprintf(path, sizeof(path), "%s", tmpdir_path(t, "full.log"));
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &was);
	log_set_level(LOG_ERROR);
	log_open(path);
	log_info("before");
	is_int(log_write_error(msg, sizeof(msg)), 0, "no write failed yet");
	none = was;
	none.rlim_cur = 0;
	setrlimit(RLIMIT_FSIZE, &none);
	log_info("during 1");
	log_info("during 2");
	is_int(log_write_error(msg, sizeof(msg)), -1,
	       "a failed write is known at once");
	snprintf(expect, sizeof(expect), "cannot write '%s': File too large",
		 path);
	is_str(msg, expect, "with the file and the reason");
	setrlimit(RLIMIT_FSIZE, &was);
	log_info("after");
	log_close();
	log_set_level(LOG_INFO);
	signal(SIGXFSZ, SIG_DFL);
	read_text(path, text, sizeof(text));
	lines_are(text, want, "the lines of the full disk are written after");
}

/* The status line: cleared before a message, drawn again after it. */
static void test_status(struct tmpdir *t)
{
	char out[512], err[512], text[8192], *p;
	struct capture c;

	snprintf(out, sizeof(out), "%s", tmpdir_path(t, "stdout"));
	snprintf(err, sizeof(err), "%s", tmpdir_path(t, "stderr"));
	if (capture_start(&c, out, err)) {
		skip(5, "no redirection");
		return;
	}
	log_info("before");		/* no status yet: as ever */
	log_status("run [##..] 2s/4s");
	log_status("run [###.] 3s/4s");
	log_info("a message");
	log_debug("not shown");		/* below the level: nothing drawn */
	log_status(NULL);
	log_status(NULL);		/* nothing shown: nothing written */
	log_info("after");
	capture_end(&c);
	read_text(err, text, sizeof(text));
	p = strstr(text, " info  before\n");
	ok(p == text + 12, "a message without a status is a plain line");
	p = p ? p + strlen(" info  before\n") : text;
	ok(!strncmp(p, "\rrun [##..] 2s/4s\033[K\rrun [###.] 3s/4s\033[K\r"
		    "\033[K", strlen("\rrun [##..] 2s/4s\033[K\rrun [###.] "
				    "3s/4s\033[K\r\033[K")),
	   "the status drawn in place, cleared before the message");
	p = strstr(p, " info  a message\n");
	ok(p != NULL, "the message on a line of its own");
	p = p ? p + strlen(" info  a message\n") : text;
	ok(!strncmp(p, "run [###.] 3s/4s\033[K\n", strlen("run [###.] 3s/4s"
							 "\033[K\n")),
	   "the status drawn again below it, then ended by NULL");
	p += strlen("run [###.] 3s/4s\033[K\n");
	ok(strlen(p) > 13 && !strcmp(p + 12, " info  after\n"),
	   "after NULL, messages are plain lines again: '%s'", p);
}

int main(void)
{
	struct tmpdir t;

	if (regcomp(&line_re, LINE_RE, REG_EXTENDED)) {
		diag("cannot compile the line regex");
		return 1;
	}
	if (tmpdir_create(&t)) {
		diag("cannot create a temporary directory: %s",
		     strerror(errno));
		regfree(&line_re);
		return 1;
	}
	test_levels(&t);
	test_open(&t);
	test_threads(&t);
	test_full_disk(&t);
	test_status(&t);
	ok(!tmpdir_remove(&t), "temporary directory removed");
	regfree(&line_re);
	return done_testing();
}
