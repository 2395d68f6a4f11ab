/*
 * lib/proc.c: starting, waiting, redirecting, capturing, and the pid
 * helpers. Every child started here is reaped and every fd closed; the
 * last tests check exactly that.
 */

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/proc.h"
#include "tests/unit/tap.h"
#include "tests/unit/tmpdir.h"

static const char *const argv_true[] = { "true", NULL };
static const char *const argv_false[] = { "false", NULL };
static const char *const argv_sleep5[] = { "sleep", "5", NULL };
static const char *const argv_sleep30[] = { "sleep", "30", NULL };
static const char *const argv_missing[] = { "no-such-prog-xyz", NULL };
static const char *self;		/* our argv[0] */

/*
 * A seam for one race. proc_wait_gone() reaps with waitpid(WNOHANG), then
 * checks whether the pid is alive; a child that exits in between is a
 * zombie, not alive, and must still be reaped. Defining waitpid() here
 * (the program's own definition wins over libc's) lets a test make the
 * child exit exactly there: once WNOHANG has said "still running" for
 * `exit_after_wnohang`, that child is killed and left a zombie.
 */
static pid_t exit_after_wnohang;

/*
 * And a second: a multithreaded child (mariadbd) killed with SIGKILL shows
 * as a zombie in /proc while its other threads still exit, and until
 * they have, waitpid(WNOHANG) says 0. For `unreapable`, the next
 * `unreapable_calls` WNOHANG waits say 0 whatever the child's state.
 */
static pid_t unreapable;
static int unreapable_calls;

pid_t waitpid(pid_t pid, int *status, int options)
{
	pid_t r;

	if (pid > 0 && pid == unreapable && unreapable_calls > 0 &&
	    (options & WNOHANG)) {
		unreapable_calls--;
		return 0;
	}
	r = wait4(pid, status, options, NULL);

	if (r == 0 && pid > 0 && pid == exit_after_wnohang) {
		siginfo_t info;

		exit_after_wnohang = 0;
		kill(pid, SIGKILL);
		waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT);
	}
	return r;
}

/* Start argv, wait for it, return its exit code (-1 and a diag on error). */
static int run(const char *const *argv)
{
	struct proc p = PROC_INIT;
	struct err e = ERR_INIT;
	int code;

	p.argv = argv;
	if (proc_start(&p, &e) || (code = proc_wait(&p, -1, &e)) < 0) {
		diag("%s", e.msg);
		return -1;
	}
	return code;
}

/* Start `p`; on failure say why. 0 or -1. */
static int start(struct proc *p)
{
	struct err e = ERR_INIT;

	if (proc_start(p, &e)) {
		diag("%s", e.msg);
		return -1;
	}
	return 0;
}

/* Kill a child of ours with SIGKILL and reap it. */
static void kill_and_reap(struct proc *p)
{
	if (p->pid > 0) {
		kill(p->pid, SIGKILL);
		proc_wait(p, -1, NULL);
	}
}

static void test_exit_codes(void)
{
	static const char *const exit7[] = { "sh", "-c", "exit 7", NULL };
	static const char *const kill9[] = { "sh", "-c", "kill -9 $$", NULL };
	static const char *const term[] = { "sh", "-c", "kill -TERM $$",
					    NULL };
	struct proc p = PROC_INIT;
	struct err e = ERR_INIT;

	p.argv = argv_true;
	is_int(proc_start(&p, &e), 0, "proc_start 'true'");
	ok(p.pid > 0, "pid set by proc_start");
	is_int(proc_wait(&p, -1, &e), 0, "'true' exits 0");
	is_int(p.pid, 0, "pid 0 once reaped");
	ok(!err_isset(&e), "no error");

	is_int(run(argv_false), 1, "'false' exits 1");
	is_int(run(exit7), 7, "'exit 7' exits 7");
	is_int(run(kill9), 137, "killed by SIGKILL: 128 + 9");
	is_int(run(term), 143, "killed by SIGTERM: 128 + 15");

	err_clear(&e);
	is_int(proc_wait(&p, -1, &e), -1, "proc_wait on a reaped proc fails");
	is_str(e.msg, "'true' is not running", "not-running message");
}

static void test_start_errors(struct tmpdir *t)
{
	static const char *const empty[] = { NULL };
	const char *abs_missing[] = { NULL, NULL };
	const char *not_exec[] = { NULL, NULL };
	struct proc p = PROC_INIT;
	struct err e = ERR_INIT;
	char path[512], want[1024];

	p.argv = argv_missing;
	p.pid = 12345;
	is_int(proc_start(&p, &e), -1, "a missing program fails to start");
	is_str(e.msg, "cannot run 'no-such-prog-xyz': No such file or "
	       "directory", "missing program message");
	is_int(e.class, ERR_INFRA, "as ERR_INFRA");
	is_int(p.pid, 0, "pid stays 0");

	snprintf(path, sizeof(path), "%s", tmpdir_path(t, "no/such/prog"));
	abs_missing[0] = path;
	err_clear(&e);
	p.argv = abs_missing;
	is_int(proc_start(&p, &e), -1, "a missing path fails to start");
	snprintf(want, sizeof(want), "cannot run '%s': No such file or "
		 "directory", path);
	is_str(e.msg, want, "missing path message");

	snprintf(path, sizeof(path), "%s", tmpdir_path(t, "not-exec"));
	write_text(path, "#!/bin/sh\nexit 0\n");
	chmod(path, 0644);
	not_exec[0] = path;
	err_clear(&e);
	p.argv = not_exec;
	is_int(proc_start(&p, &e), -1, "a non-executable file fails");
	snprintf(want, sizeof(want), "cannot run '%s': Permission denied",
		 path);
	is_str(e.msg, want, "non-executable message");

	err_clear(&e);
	p.argv = empty;
	is_int(proc_start(&p, &e), -1, "an empty argv fails");
	is_str(e.msg, "cannot run an empty command", "empty argv message");
	err_clear(&e);
	p.argv = NULL;
	is_int(proc_start(&p, &e), -1, "a NULL argv fails");
	is_str(e.msg, "cannot run an empty command", "NULL argv message");
}

static void test_redirects(struct tmpdir *t)
{
	static const char *const printf_hello[] = { "printf", "hello", NULL };
	static const char *const both[] = { "sh", "-c",
		"echo out; echo err >&2", NULL };
	static const char *const cat[] = { "cat", NULL };
	char out[512], in[512], err[512], bad[512], want[1024], text[256];
	struct proc p = PROC_INIT;
	struct err e = ERR_INIT;

	snprintf(out, sizeof(out), "%s", tmpdir_path(t, "out"));
	snprintf(err, sizeof(err), "%s", tmpdir_path(t, "err"));
	snprintf(in, sizeof(in), "%s", tmpdir_path(t, "in"));
	snprintf(bad, sizeof(bad), "%s", tmpdir_path(t, "nodir/file"));

	p.argv = printf_hello;
	p.out = out;
	ok(!start(&p) && proc_wait(&p, -1, &e) == 0, "stdout to a file");
	read_text(out, text, sizeof(text));
	is_str(text, "hello", "the file holds stdout");
	p.append = 1;
	ok(!start(&p) && proc_wait(&p, -1, &e) == 0, "append to it");
	read_text(out, text, sizeof(text));
	is_str(text, "hellohello", "appended");
	p.append = 0;
	ok(!start(&p) && proc_wait(&p, -1, &e) == 0, "again, truncating");
	read_text(out, text, sizeof(text));
	is_str(text, "hello", "truncated");

	p = (struct proc)PROC_INIT;
	p.argv = both;
	p.out = out;
	p.err = err;
	ok(!start(&p) && proc_wait(&p, -1, &e) == 0, "stdout and stderr "
	   "to two files");
	read_text(out, text, sizeof(text));
	is_str(text, "out\n", "stdout file");
	read_text(err, text, sizeof(text));
	is_str(text, "err\n", "stderr file");

	p.err = NULL;
	p.err_to_out = 1;
	ok(!start(&p) && proc_wait(&p, -1, &e) == 0, "err_to_out");
	read_text(out, text, sizeof(text));
	is_str(text, "out\nerr\n", "stderr went where stdout went");

	p = (struct proc)PROC_INIT;
	p.argv = cat;
	p.out = out;
	ok(!start(&p) && proc_wait(&p, -1, &e) == 0, "cat with no stdin set");
	read_text(out, text, sizeof(text));
	is_str(text, "", "stdin is /dev/null by default");
	write_text(in, "from a file\n");
	p.in = in;
	ok(!start(&p) && proc_wait(&p, -1, &e) == 0, "stdin from a file");
	read_text(out, text, sizeof(text));
	is_str(text, "from a file\n", "cat copied it");
	ok(!err_isset(&e), "no error so far");

	p = (struct proc)PROC_INIT;
	p.argv = argv_true;
	p.out = bad;
	is_int(proc_start(&p, &e), -1, "stdout into a missing directory");
	snprintf(want, sizeof(want), "cannot open '%s': No such file or "
		 "directory", bad);
	is_str(e.msg, want, "  names the stdout file");
	is_int(p.pid, 0, "  no pid");
	p.out = NULL;
	p.err = bad;
	err_clear(&e);
	is_int(proc_start(&p, &e), -1, "stderr into a missing directory");
	is_str(e.msg, want, "  names the stderr file");
	p.err = NULL;
	p.in = bad;
	err_clear(&e);
	is_int(proc_start(&p, &e), -1, "stdin from a missing file");
	is_str(e.msg, want, "  names the stdin file");
}

static void test_out_fd(struct tmpdir *t)
{
	static const char *const both[] = { "sh", "-c",
		"echo to-out; echo to-err >&2", NULL };
	char out[512], text[256];
	struct proc p = PROC_INIT;
	struct err e = ERR_INIT;
	int fd;

	snprintf(out, sizeof(out), "%s", tmpdir_path(t, "fd-out"));
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	p.argv = both;
	p.out_fd = fd;
	p.err_fd = fd;
	ok(fd > 0 && !start(&p) && proc_wait(&p, -1, &e) == 0,
	   "out_fd and err_fd");
	ok(fcntl(fd, F_GETFD) >= 0, "the caller keeps its fd");
	if (write(fd, "parent\n", 7) != 7)
		diag("cannot write to '%s'", out);
	close(fd);
	read_text(out, text, sizeof(text));
	is_str(text, "to-out\nto-err\nparent\n", "both went to the fd");
}

static void test_env(struct tmpdir *t)
{
	static const char *const show[] = { "sh", "-c",
		"printf '%s|%s|%s' \"$TICHAOS_T_SET\" "
		"\"${TICHAOS_T_UNSET-unset}\" \"$TICHAOS_T_KEPT\"", NULL };
	static const char *const env[] = {
		"TICHAOS_T_SET=hello world",
		"TICHAOS_T_UNSET",
		NULL,
	};
	char out[512], text[256];
	struct proc p = PROC_INIT;
	struct err e = ERR_INIT;

	setenv("TICHAOS_T_UNSET", "present", 1);
	setenv("TICHAOS_T_KEPT", "inherited", 1);
	unsetenv("TICHAOS_T_SET");
	snprintf(out, sizeof(out), "%s", tmpdir_path(t, "env"));
	p.argv = show;
	p.env = env;
	p.out = out;
	ok(!start(&p) && proc_wait(&p, -1, &e) == 0, "run with env");
	read_text(out, text, sizeof(text));
	is_str(text, "hello world|unset|inherited",
	       "NAME=VALUE sets, NAME unsets, the rest is inherited");
	ok(!getenv("TICHAOS_T_SET"), "the parent's environment: not set");
	is_str(getenv("TICHAOS_T_UNSET"), "present",
	       "the parent's environment: not unset");
	unsetenv("TICHAOS_T_UNSET");
	unsetenv("TICHAOS_T_KEPT");
}

static void test_dir(struct tmpdir *t)
{
	static const char *const pwd[] = { "pwd", "-P", NULL };
	char out[512], missing[512], want[PATH_MAX + 64], text[PATH_MAX + 64];
	char real[PATH_MAX];
	struct proc p = PROC_INIT;
	struct err e = ERR_INIT;

	snprintf(out, sizeof(out), "%s", tmpdir_path(t, "pwd"));
	snprintf(missing, sizeof(missing), "%s", tmpdir_path(t, "nodir"));
	if (!realpath(t->dir, real))
		snprintf(real, sizeof(real), "%s", t->dir);
	p.argv = pwd;
	p.dir = t->dir;
	p.out = out;
	ok(!start(&p) && proc_wait(&p, -1, &e) == 0, "run in a directory");
	read_text(out, text, sizeof(text));
	snprintf(want, sizeof(want), "%s\n", real);
	is_str(text, want, "the child ran in dir");

	p.dir = missing;
	is_int(proc_start(&p, &e), -1, "a missing dir fails");
	snprintf(want, sizeof(want), "cannot enter directory '%s': No such "
		 "file or directory", missing);
	is_str(e.msg, want, "missing dir message");
}

/* proc_state_dir: the root from TICHAOS_STATE_DIR or the default, made
 * on demand; a relative or too long root refused. */
static void test_state_dir(struct tmpdir *t)
{
	char out[PATH_MAX], want[5100], root[512], longer[5000];
	struct err e = ERR_INIT;
	struct stat st;

	unsetenv(PROC_STATE_ENV);
	is_int(proc_state_dir("hogs", 0, out, sizeof(out), &e), 0,
	       "no TICHAOS_STATE_DIR");
	is_str(out, "/run/tichaos/hogs", "the default root");

	snprintf(root, sizeof(root), "%s", tmpdir_path(t, "state"));
	setenv(PROC_STATE_ENV, root, 1);
	is_int(proc_state_dir("skews", 0, out, sizeof(out), &e), 0,
	       "TICHAOS_STATE_DIR, not made");
	snprintf(want, sizeof(want), "%s/skews", root);
	is_str(out, want, "below it");
	ok(stat(root, &st) != 0 && errno == ENOENT, "nothing made");
	is_int(proc_state_dir("skews", 1, out, sizeof(out), &e), 0, "made");
	ok(stat(out, &st) == 0 && S_ISDIR(st.st_mode), "the root and it");
	is_int(proc_state_dir("skews", 1, out, sizeof(out), &e), 0,
	       "made again: there already");
	rmdir(out);
	rmdir(root);

	snprintf(longer, sizeof(longer), "%s/no/such", root);
	setenv(PROC_STATE_ENV, longer, 1);
	is_int(proc_state_dir("hogs", 1, out, sizeof(out), &e), -1,
	       "a root whose parent is missing");
	snprintf(want, sizeof(want), "cannot create '%s': No such file or "
		 "directory", longer);
	is_str(e.msg, want, "names the root");
	err_clear(&e);

	setenv(PROC_STATE_ENV, "state", 1);
	is_int(proc_state_dir("hogs", 0, out, sizeof(out), &e), -1,
	       "a relative root");
	is_int(e.class, ERR_USAGE, "a usage error");
	is_str(e.msg, "TICHAOS_STATE_DIR: expected an absolute path, not "
	       "'state'", "its message");
	is_str(out, "", "no path");
	err_clear(&e);

	memset(longer, 'x', sizeof(longer) - 1);
	longer[0] = '/';
	longer[sizeof(longer) - 1] = '\0';
	setenv(PROC_STATE_ENV, longer, 1);
	is_int(proc_state_dir("hogs", 0, out, sizeof(out), &e), -1,
	       "a root too long for a path");
	ok(!strncmp(e.msg, "TICHAOS_STATE_DIR: too long: '/xxx", 34),
	   "its message");
	is_str(out, "", "no path");
	err_clear(&e);
	unsetenv(PROC_STATE_ENV);
}

/* proc_state_each: every record but dot files, none where the directory
 * is not, fn's -1 the walk's; proc_runner_gone by pid and start time. */
struct seen {
	char names[8][64];
	int n, stop_at;
};

static int note_record(const char *path, void *arg)
{
	struct seen *s = arg;

	if (s->n < 8)
		snprintf(s->names[s->n], sizeof(s->names[0]), "%s",
			 strrchr(path, '/') + 1);
	return ++s->n == s->stop_at ? -1 : 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void test_state_each(struct tmpdir *t)
{
	char root[512], path[700];
	struct seen s = { .n = 0 };
	struct err e = ERR_INIT;
	const char *files[] = { "12", "34", ".tmp" };

	snprintf(root, sizeof(root), "%s", tmpdir_path(t, "each"));
	setenv(PROC_STATE_ENV, root, 1);
	is_int(proc_state_each("recs", note_record, &s, &e), 0,
	       "no directory: no records, no error");
	is_int(s.n, 0, "fn not called");
	proc_state_dir("recs", 1, path, sizeof(path), &e);
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/recs/%s", root, files[i]);
		close(open(path, O_CREAT | O_WRONLY, 0644));
	}
	is_int(proc_state_each("recs", note_record, &s, &e), 0, "a walk");
	is_int(s.n, 2, "two records: the dot file skipped");
	qsort(s.names, 2, sizeof(s.names[0]), by_name);
	is_str(s.names[0], "12", "the first");
	is_str(s.names[1], "34", "the second");
	s = (struct seen){ .n = 0, .stop_at = 1 };
	is_int(proc_state_each("recs", note_record, &s, &e), -1,
	       "fn's -1 stops the walk");
	is_int(s.n, 1, "after one record");
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/recs/%s", root, files[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/recs", root);
	rmdir(path);
	rmdir(root);
	unsetenv(PROC_STATE_ENV);

	is_int(proc_runner_gone((long)getpid(), proc_start_time(getpid())), 0,
	       "this process, at its start time: not gone");
	is_int(proc_runner_gone((long)getpid(),
				proc_start_time(getpid()) + 1), 1,
	       "its pid since another time: gone");
	is_int(proc_runner_gone(0, 0), 1, "pid 0: gone");
	is_int(proc_runner_gone(1L << 40, 0), 1, "a pid out of range: gone");
}

static void test_new_session(void)
{
	struct proc p = PROC_INIT;

	p.argv = argv_sleep30;
	p.new_session = 1;
	if (start(&p)) {
		skip(2, "cannot start sleep");
		return;
	}
	is_int(getsid(p.pid), p.pid, "new_session: the child leads a session");
	kill_and_reap(&p);
	p.new_session = 0;
	if (start(&p)) {
		skip(1, "cannot start sleep");
		return;
	}
	is_int(getsid(p.pid), getsid(0), "otherwise it shares ours");
	kill_and_reap(&p);
}

static void test_wait_timeout(void)
{
	struct proc p = PROC_INIT;
	struct err e = ERR_INIT;
	char want[128];
	int64_t t0, took;
	pid_t pid;

	p.argv = argv_sleep5;
	if (start(&p)) {
		skip(10, "cannot start sleep");
		return;
	}
	pid = p.pid;
	t0 = clock_mono_ns();
	is_int(proc_wait(&p, 100 * NS_PER_MS, &e), -1,
	       "proc_wait of 'sleep 5' times out");
	took = clock_mono_ns() - t0;
	snprintf(want, sizeof(want), "'sleep' (pid %ld) still running after "
		 "100ms", (long)pid);
	is_str(e.msg, want, "timeout message");
	ok(took >= 100 * NS_PER_MS && took < 1000 * NS_PER_MS,
	   "after about 100ms (%lldms)", (long long)(took / NS_PER_MS));
	is_int(p.pid, pid, "pid unchanged");
	ok(proc_alive(pid), "child left running");

	err_clear(&e);
	is_int(proc_wait(&p, 0, &e), -1, "a timeout of 0 polls once");
	snprintf(want, sizeof(want), "'sleep' (pid %ld) still running after "
		 "0s", (long)pid);
	is_str(e.msg, want, "0 timeout message");

	err_clear(&e);
	is_int(proc_signal(pid, SIGKILL, &e), 0, "proc_signal SIGKILL");
	is_int(proc_wait(&p, 5 * NS_PER_SEC, &e), 137, "reaped: 128 + 9");
	is_int(p.pid, 0, "pid 0");
}

static void test_capture(void)
{
	static const char *const abc[] = { "printf", "abc", NULL };
	static const char *const err3[] = { "sh", "-c",
		"echo err >&2; exit 3", NULL };
	static const char *const quiet4[] = { "sh", "-c",
		"echo out; echo err >&2; exit 4", NULL };
	static const char *const cat[] = { "cat", NULL };
	struct buf out = BUF_INIT, errout = BUF_INIT;
	struct err e = ERR_INIT;

	is_int(proc_capture(abc, &out, &errout, -1, &e), 0,
	       "capture 'printf abc'");
	is_str(buf_str(&out), "abc", "stdout captured");
	is_str(buf_str(&errout), "", "no stderr");

	buf_reset(&out);
	is_int(proc_capture(err3, &out, &errout, -1, &e), 3,
	       "a non-zero exit is returned, not an error");
	is_str(buf_str(&out), "", "no stdout");
	is_str(buf_str(&errout), "err\n", "stderr captured");
	ok(!err_isset(&e), "no error set");

	buf_reset(&out);
	buf_addstr(&out, "> ", &e);
	is_int(proc_capture(abc, &out, NULL, 5 * NS_PER_SEC, &e), 0,
	       "capture with a timeout that is not reached");
	is_str(buf_str(&out), "> abc", "capture appends");

	is_int(proc_capture(quiet4, NULL, NULL, -1, &e), 4,
	       "NULL buffers discard the output");

	buf_reset(&out);
	is_int(proc_capture(cat, &out, NULL, 5 * NS_PER_SEC, &e), 0,
	       "cat does not wait for input");
	is_str(buf_str(&out), "", "its stdin is /dev/null");
	ok(!err_isset(&e), "no error set");
	buf_release(&out);
	buf_release(&errout);
}

/* A descriptor the runner holds without close-on-exec (libmariadb's
 * sockets are such) is not the child's. */
static void test_inherits_nothing(void)
{
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;
	int fd = open("/dev/null", O_RDONLY);
	char script[96];
	const char *const look[] = { "sh", "-c", script, NULL };

	ok(fd > 2, "a descriptor without close-on-exec");
	snprintf(script, sizeof(script), "[ -e /proc/self/fd/%d ] && echo "
		 "has || echo none", fd);
	is_int(proc_capture(look, &out, NULL, 5 * NS_PER_SEC, &e), 0,
	       "the child looks for it");
	is_str(buf_str(&out), "none\n", "the child does not have it");
	ok(fcntl(fd, F_GETFD) == 0, "ours is still without close-on-exec");
	close(fd);
	buf_release(&out);
}

static void test_capture_big(void)
{
	/* More than a pipe holds, on both pipes at once. */
	static const char *const big[] = { "sh", "-c",
		"head -c 300000 /dev/zero | tr '\\0' a; "
		"head -c 200000 /dev/zero | tr '\\0' b >&2; "
		"head -c 100000 /dev/zero | tr '\\0' c", NULL };
	struct buf out = BUF_INIT, errout = BUF_INIT;
	struct err e = ERR_INIT;
	size_t wrong = 0;

	is_int(proc_capture(big, &out, &errout, 10 * NS_PER_SEC, &e), 0,
	       "capture 400000 + 200000 bytes");
	is_int(out.len, 400000, "all of stdout");
	is_int(errout.len, 200000, "all of stderr");
	for (size_t i = 0; i < out.len; i++)
		wrong += out.data[i] != (i < 300000 ? 'a' : 'c');
	for (size_t i = 0; i < errout.len; i++)
		wrong += errout.data[i] != 'b';
	is_int(wrong, 0, "in order");
	buf_release(&out);
	buf_release(&errout);
}

static void test_capture_errors(void)
{
	static const char *const early[] = { "sh", "-c",
		"printf early; exec sleep 5", NULL };
	static const char *const long_out[] = { "printf",
		"0123456789abcdefXYZ", NULL };
	struct buf out = BUF_INIT, small;
	struct err e = ERR_INIT;
	int64_t t0, took;

	t0 = clock_mono_ns();
	is_int(proc_capture(argv_sleep5, &out, NULL, 200 * NS_PER_MS, &e), -1,
	       "capture of 'sleep 5' times out");
	took = clock_mono_ns() - t0;
	is_str(e.msg, "'sleep' did not finish within 200ms",
	       "capture timeout message");
	is_int(e.class, ERR_INFRA, "as ERR_INFRA");
	ok(took >= 200 * NS_PER_MS && took < 2 * NS_PER_SEC,
	   "after about 200ms (%lldms)", (long long)(took / NS_PER_MS));

	err_clear(&e);
	is_int(proc_capture(early, &out, NULL, 200 * NS_PER_MS, &e), -1,
	       "a timeout after some output");
	is_str(buf_str(&out), "early", "the output so far is kept");

	err_clear(&e);
	is_int(proc_capture(argv_missing, &out, NULL, -1, &e), -1,
	       "capture of a missing program");
	is_str(e.msg, "cannot run 'no-such-prog-xyz': No such file or "
	       "directory", "missing program message");

	err_clear(&e);
	buf_init(&small, 16);
	is_int(proc_capture(long_out, &small, NULL, -1, &e), -1,
	       "output over the buffer limit");
	is_str(e.msg, "output of 'printf': buffer limit of 16 bytes exceeded",
	       "limit message");
	buf_release(&small);
	buf_release(&out);
}

static void test_state(void)
{
	struct proc p = PROC_INIT;
	siginfo_t info;
	pid_t pid;
	int status;
	char state = 0;

	is_int(proc_state(getpid()), 'R', "we are running");
	ok(proc_alive(getpid()), "and alive");
	is_int(proc_state(0), 0, "pid 0: no state");
	is_int(proc_state(-1), 0, "pid -1: no state");
	ok(!proc_alive(0), "pid 0 is not alive");

	p.argv = argv_sleep30;
	if (start(&p)) {
		skip(3, "cannot start sleep");
	} else {
		for (int i = 0; i < 1000 && state != 'S'; i++) {
			state = proc_state(p.pid);
			if (state != 'S')
				clock_sleep_ns(NS_PER_MS);
		}
		is_int(state, 'S', "a sleeping child is 'S'");
		kill(p.pid, SIGSTOP);
		waitpid(p.pid, &status, WUNTRACED);
		is_int(proc_state(p.pid), 'T', "a stopped child is 'T'");
		ok(proc_alive(p.pid), "and alive");
		kill_and_reap(&p);
	}

	/* Exited but not reaped: a zombie is not alive. */
	p.argv = argv_true;
	if (start(&p)) {
		skip(4, "cannot start true");
		return;
	}
	pid = p.pid;
	memset(&info, 0, sizeof(info));
	waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT);
	is_int(info.si_pid, pid, "the child exited (not reaped yet)");
	is_int(proc_state(pid), 0, "a zombie has no state");
	ok(!proc_alive(pid), "a zombie is not alive");
	proc_wait(&p, -1, NULL);
	ok(!proc_alive(pid), "a reaped child is not alive");
}

static void test_signal(void)
{
	struct err e = ERR_INIT;
	char want[128];
	pid_t pid;
	struct proc p = PROC_INIT;

	is_int(proc_signal(getpid(), 0, &e), 0, "signal 0 to ourselves");
	is_int(proc_signal(0, SIGTERM, &e), -1, "pid 0 is refused");
	is_str(e.msg, "invalid pid 0", "invalid pid message");

	p.argv = argv_true;
	if (start(&p)) {
		skip(2, "cannot start true");
		return;
	}
	pid = p.pid;
	proc_wait(&p, -1, NULL);
	err_clear(&e);
	is_int(proc_signal(pid, SIGTERM, &e), -1, "a gone process is an error");
	snprintf(want, sizeof(want), "cannot signal pid %ld: No such process",
		 (long)pid);
	is_str(e.msg, want, "gone process message");
}

static void test_wait_gone(void)
{
	struct proc p = PROC_INIT;
	struct err e = ERR_INIT;
	int status;
	char want[128];
	pid_t pid;

	p.argv = argv_sleep30;
	if (start(&p)) {
		skip(9, "cannot start sleep");
		return;
	}
	pid = p.pid;
	is_int(proc_wait_gone(pid, 50 * NS_PER_MS, &e), -1,
	       "proc_wait_gone of a live child times out");
	snprintf(want, sizeof(want), "pid %ld still running after 50ms",
		 (long)pid);
	is_str(e.msg, want, "wait_gone timeout message");
	ok(proc_alive(pid), "still alive");

	err_clear(&e);
	proc_signal(pid, SIGKILL, &e);
	is_int(proc_wait_gone(pid, 2 * NS_PER_SEC, &e), 0,
	       "proc_wait_gone of a SIGKILLed child");
	ok(!proc_alive(pid), "gone");
	errno = 0;
	ok(waitpid(pid, &status, WNOHANG) < 0 && errno == ECHILD,
	   "and reaped by proc_wait_gone");
	p.pid = 0;

	/* The race the waitpid seam above makes happen every time. */
	p.argv = argv_sleep30;
	if (start(&p)) {
		skip(2, "cannot start sleep");
		return;
	}
	pid = p.pid;
	exit_after_wnohang = pid;
	err_clear(&e);
	is_int(proc_wait_gone(pid, 2 * NS_PER_SEC, &e), 0,
	       "proc_wait_gone of a child exiting during the wait");
	errno = 0;
	ok(waitpid(pid, &status, WNOHANG) < 0 && errno == ECHILD,
	   "reaped, though it turned zombie after the reaping waitpid");
	exit_after_wnohang = 0;
	p.pid = 0;

	/* A zombie that waitpid cannot reap yet is waited for, and reaped. */
	p.argv = argv_sleep30;
	if (start(&p)) {
		skip(2, "cannot start sleep");
		return;
	}
	pid = p.pid;
	kill(pid, SIGKILL);
	while (proc_alive(pid))
		usleep(1000);
	unreapable = pid;
	unreapable_calls = 5;
	err_clear(&e);
	is_int(proc_wait_gone(pid, 2 * NS_PER_SEC, &e), 0,
	       "proc_wait_gone of a zombie not yet reapable");
	errno = 0;
	ok(unreapable_calls == 0 && waitpid(pid, &status, WNOHANG) < 0 &&
	   errno == ECHILD, "waited until it could be reaped, and reaped it");
	unreapable = 0;
	p.pid = 0;
}

static void test_cmdline(void)
{
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;
	struct proc p = PROC_INIT;
	char want[128];
	pid_t pid;

	p.argv = argv_sleep30;
	if (start(&p)) {
		skip(6, "cannot start sleep");
		return;
	}
	buf_addstr(&out, "stale", &e);
	is_int(proc_cmdline(p.pid, &out, &e), 0, "proc_cmdline of a child");
	is_str(buf_str(&out), "sleep 30", "arguments joined by spaces");
	pid = p.pid;
	kill_and_reap(&p);

	is_int(proc_cmdline(getpid(), &out, &e), 0,
	       "proc_cmdline of ourselves");
	is_str(buf_str(&out), self, "is our argv[0] (we have no arguments)");

	is_int(proc_cmdline(pid, &out, &e), -1, "proc_cmdline of a gone pid");
	snprintf(want, sizeof(want), "no process with pid %ld", (long)pid);
	is_str(e.msg, want, "gone pid message");
	buf_release(&out);
}

/* proc_argv, proc_parent and proc_cwd: what the playground reads of
 * processes it did not start. */
static void test_argv_parent_cwd(struct tmpdir *t)
{
	static const char *const argv[] = {
		"sh", "-c", "sleep 30", "arg with spaces", "", NULL,
	};
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;
	struct proc p = PROC_INIT;
	char **got = NULL, want[128], real[4096];
	pid_t pid;

	p.argv = argv;
	p.dir = tmpdir_path(t, "");
	if (start(&p)) {
		skip(11, "cannot start sh");
		return;
	}
	is_int(proc_argv(p.pid, &got, &e), 0, "proc_argv of a child");
	ok(got && got[0] && got[1] && got[2] && got[3] && got[4] && !got[5],
	   "five arguments");
	if (got && got[0] && got[1] && got[2] && got[3] && got[4]) {
		is_str(got[2], "sleep 30", "an argument with a space whole");
		is_str(got[3], "arg with spaces", "another");
		is_str(got[4], "", "an empty argument kept");
	} else {
		skip(3, "no arguments");
	}
	proc_argv_free(got);
	is_int(proc_parent(p.pid), getpid(), "proc_parent of a child: us");
	is_int(proc_cwd(p.pid, &out, &e), 0, "proc_cwd of a child");
	is_str(buf_str(&out), realpath(tmpdir_path(t, ""), real) ? real : "?",
	       "its working directory");
	pid = p.pid;
	kill_and_reap(&p);
	is_int(proc_argv(pid, &got, &e), -1, "proc_argv of a gone pid");
	snprintf(want, sizeof(want), "no process with pid %ld", (long)pid);
	is_str(e.msg, want, "gone pid message");
	is_int(proc_parent(pid), 0, "proc_parent of a gone pid: 0");
	buf_release(&out);
}

static void pidfile_bad(struct tmpdir *t, const char *text, const char *what)
{
	struct err e = ERR_INIT;
	char path[512], want[1024];
	pid_t pid = 99;

	snprintf(path, sizeof(path), "%s", tmpdir_path(t, "bad.pid"));
	write_text(path, text);
	is_int(proc_read_pidfile(path, &pid, &e), -1, "pidfile holding %s",
	       what);
	snprintf(want, sizeof(want), "pidfile '%s' does not hold a pid", path);
	is_str(e.msg, want, "  not-a-pid message");
	is_int(pid, 0, "  pid 0");
}

static void test_pidfile(struct tmpdir *t)
{
	struct err e = ERR_INIT;
	char path[512], want[1024], big[100];
	pid_t pid = 99;

	snprintf(path, sizeof(path), "%s", tmpdir_path(t, "missing.pid"));
	is_int(proc_read_pidfile(path, &pid, &e), 0, "a missing pidfile");
	is_int(pid, 0, "gives pid 0");
	ok(!err_isset(&e), "and no error");

	snprintf(path, sizeof(path), "%s", tmpdir_path(t, "good.pid"));
	write_text(path, "123\n");
	is_int(proc_read_pidfile(path, &pid, &e), 0, "pidfile '123\\n'");
	is_int(pid, 123, "gives 123");
	write_text(path, "4567");
	proc_read_pidfile(path, &pid, &e);
	is_int(pid, 4567, "no newline is fine too");
	write_text(path, "2147483647\n");
	proc_read_pidfile(path, &pid, &e);
	is_int(pid, 2147483647, "the largest pid");
	ok(!err_isset(&e), "no error");

	pidfile_bad(t, "abc", "'abc'");
	pidfile_bad(t, "", "nothing");
	pidfile_bad(t, "0\n", "0");
	pidfile_bad(t, "-5\n", "a negative number");
	pidfile_bad(t, "12 34\n", "two numbers");
	pidfile_bad(t, "12abc", "a number and junk");
	pidfile_bad(t, "2147483648", "a number over INT32_MAX");

	memset(big, '1', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	snprintf(path, sizeof(path), "%s", tmpdir_path(t, "big.pid"));
	write_text(path, big);
	pid = 99;
	is_int(proc_read_pidfile(path, &pid, &e), -1, "a 99-byte pidfile");
	snprintf(want, sizeof(want), "'%s' is larger than 64 bytes", path);
	is_str(e.msg, want, "too-large message");
	is_int(pid, 0, "pid 0");
}

int main(int argc, char **argv)
{
	int fds_before = count_fds(), fds_after, status;
	struct tmpdir t;

	self = argv[0];
	if (argc > 1) {
		diag("usage: %s (no arguments)", argv[0]);
		return 1;
	}
	if (tmpdir_create(&t)) {
		diag("cannot create a temporary directory: %s",
		     strerror(errno));
		return 1;
	}
	test_exit_codes();
	test_start_errors(&t);
	test_redirects(&t);
	test_out_fd(&t);
	test_env(&t);
	test_dir(&t);
	test_state_dir(&t);
	test_state_each(&t);
	test_new_session();
	test_wait_timeout();
	test_capture();
	test_capture_big();
	test_inherits_nothing();
	test_capture_errors();
	test_state();
	test_signal();
	test_wait_gone();
	test_cmdline();
	test_argv_parent_cwd(&t);
	test_pidfile(&t);

	fds_after = count_fds();
	ok(fds_before > 0 && fds_after == fds_before,
	   "no fd leaked (%d open before, %d after)", fds_before, fds_after);
	errno = 0;
	ok(waitpid(-1, &status, WNOHANG) < 0 && errno == ECHILD,
	   "no child left unreaped");
	ok(!tmpdir_remove(&t), "temporary directory removed");
	return done_testing();
}
