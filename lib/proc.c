#include "proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "parse.h"

static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 255;
}

/* In the child: report errno through the pipe and exit. Async-signal-safe
 * functions only from here on. */
static void child_fail(int fd, int what)
{
	int code[2] = { what, errno };
	ssize_t n = write(fd, code, sizeof(code));

	(void)n;
	_exit(127);
}

enum { FAIL_DIR = 1, FAIL_IN, FAIL_OUT, FAIL_ERR, FAIL_EXEC };

static int redirect(const char *path, int target, int flags)
{
	int fd = open(path, flags, 0644);

	if (fd < 0)
		return -1;
	if (fd != target) {
		if (dup2(fd, target) < 0)
			return -1;
		close(fd);
	}
	return 0;
}

/*
 * Close on exec every descriptor above stderr: what the runner holds
 * (its SQL connections, a history file) is not the child's. A server it
 * restarts would otherwise keep those connections open after the runner
 * closed them, and moving the server into a class of net_cls
 * (lib/netcls.h) would move them too.
 */
static void inherit_nothing(void)
{
	long max;

	if (close_range(3, ~0u, CLOSE_RANGE_CLOEXEC) == 0)
		return;
	max = sysconf(_SC_OPEN_MAX);
	for (int fd = 3; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
}

static void run_child(const struct proc *p, int report)
{
	int wflags = O_WRONLY | O_CREAT | (p->append ? O_APPEND : O_TRUNC);
	sigset_t none;

	/* Signals the runner handles or blocks must not leak into servers. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	if (p->new_session)
		setsid();
	if (p->dir && chdir(p->dir))
		child_fail(report, FAIL_DIR);
	if (redirect(p->in ? p->in : "/dev/null", 0, O_RDONLY))
		child_fail(report, FAIL_IN);
	if (p->out_fd > 0 ? dup2(p->out_fd, 1) < 0 :
	    p->out && redirect(p->out, 1, wflags))
		child_fail(report, FAIL_OUT);
	if (p->err_to_out ? dup2(1, 2) < 0 :
	    p->err_fd > 0 ? dup2(p->err_fd, 2) < 0 :
	    p->err && redirect(p->err, 2, wflags))
		child_fail(report, FAIL_ERR);
	for (const char *const *v = p->env; v && *v; v++) {
		const char *eq = strchr(*v, '=');

		if (eq) {
			/* Safe enough: we are single-threaded after fork and
			 * exec follows; a failure here only loses the var. */
			char name[256];
			size_t n = (size_t)(eq - *v);

			if (n >= sizeof(name))
				continue;
			memcpy(name, *v, n);
			name[n] = '\0';
			setenv(name, eq + 1, 1);
		} else {
			unsetenv(*v);
		}
	}
	inherit_nothing();
	execvp(p->argv[0], (char *const *)p->argv);
	child_fail(report, FAIL_EXEC);
}

int proc_start(struct proc *p, struct err *e)
{
	static const char *const what[] = {
		[FAIL_DIR] = "cannot enter directory '%s'",
		[FAIL_IN] = "cannot open '%s'",
		[FAIL_OUT] = "cannot open '%s'",
		[FAIL_ERR] = "cannot open '%s'",
		[FAIL_EXEC] = "cannot run '%s'",
	};
	int fds[2], code[2];
	ssize_t n;
	pid_t pid;

	p->pid = 0;
	if (!p->argv || !p->argv[0])
		return err_set(e, ERR_INFRA, "cannot run an empty command");
	if (pipe2(fds, O_CLOEXEC))
		return err_errno(e, errno, "cannot create a pipe for '%s'",
				 p->argv[0]);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return err_errno(e, errno, "cannot fork for '%s'", p->argv[0]);
	}
	if (pid == 0) {
		close(fds[0]);
		run_child(p, fds[1]);
	}
	close(fds[1]);
	do
		n = read(fds[0], code, sizeof(code));
	while (n < 0 && errno == EINTR);
	close(fds[0]);
	if (n == (ssize_t)sizeof(code)) {
		const char *subject = p->argv[0];
		int status;

		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (code[0] == FAIL_DIR)
			subject = p->dir;
		else if (code[0] == FAIL_IN)
			subject = p->in ? p->in : "/dev/null";
		else if (code[0] == FAIL_OUT)
			subject = p->out_fd > 0 ? "stdout" : p->out;
		else if (code[0] == FAIL_ERR)
			subject = p->err_to_out ? "stderr" :
				  p->err_fd > 0 ? "stderr" : p->err;
		err_errno(e, code[1], what[code[0]], subject);
		return -1;
	}
	p->pid = pid;
	return 0;
}

static int wait_for(pid_t pid, int64_t timeout_ns, const char *name,
		    struct err *e)
{
	int64_t deadline = timeout_ns >= 0 ? clock_mono_ns() + timeout_ns : 0;
	int64_t nap = NS_PER_MS;
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, timeout_ns >= 0 ? WNOHANG : 0);

		if (r == pid)
			return exit_code(status);
		if (r < 0 && errno != EINTR)
			return err_errno(e, errno, "cannot wait for '%s' (pid "
					 "%ld)", name, (long)pid);
		if (r == 0) {
			char d[32];

			if (clock_mono_ns() >= deadline)
				return err_set(e, ERR_INFRA, "'%s' (pid %ld) "
					       "still running after %s", name,
					       (long)pid,
					       format_duration(timeout_ns, d,
							       sizeof(d)));
			clock_sleep_ns(nap);
			if (nap < 50 * NS_PER_MS)
				nap *= 2;
		}
	}
}

int proc_wait(struct proc *p, int64_t timeout_ns, struct err *e)
{
	int code;

	if (p->pid <= 0)
		return err_set(e, ERR_INFRA, "'%s' is not running",
			       p->argv && p->argv[0] ? p->argv[0] : "?");
	code = wait_for(p->pid, timeout_ns, p->argv[0], e);
	if (code >= 0)
		p->pid = 0;
	return code;
}

int proc_capture(const char *const *argv, struct buf *out, struct buf *errout,
		 int64_t timeout_ns, struct err *e)
{
	struct proc p = PROC_INIT;
	int64_t deadline = timeout_ns >= 0 ? clock_mono_ns() + timeout_ns : 0;
	int pout[2] = { -1, -1 }, perr[2] = { -1, -1 }, open_fds = 2;
	struct buf *dest[2] = { out, errout };
	struct err overflow = ERR_INIT;
	int code = -1;

	if (pipe2(pout, O_CLOEXEC) || pipe2(perr, O_CLOEXEC)) {
		err_errno(e, errno, "cannot create a pipe for '%s'", argv[0]);
		goto out;
	}
	p.argv = argv;
	p.out_fd = pout[1];
	p.err_fd = perr[1];
	if (proc_start(&p, e))
		goto out;
	close(pout[1]);
	close(perr[1]);
	pout[1] = perr[1] = -1;
	while (open_fds) {
		struct pollfd fds[2] = { { pout[0], POLLIN, 0 },
					 { perr[0], POLLIN, 0 } };
		int wait_ms = -1, r;

		if (timeout_ns >= 0) {
			int64_t left = deadline - clock_mono_ns();

			if (left <= 0)
				break;
			wait_ms = (int)(left / NS_PER_MS) + 1;
		}
		r = poll(fds, 2, wait_ms);
		if (r < 0 && errno != EINTR)
			break;
		for (int i = 0; r > 0 && i < 2; i++) {
			int *fd = i ? &perr[0] : &pout[0];
			char chunk[8192];
			ssize_t n;

			if (*fd < 0 || !fds[i].revents)
				continue;
			n = read(*fd, chunk, sizeof(chunk));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(*fd);
				*fd = -1;
				open_fds--;
			} else if (dest[i] && !err_isset(&overflow)) {
				/* Past the limit the rest is drained and
				 * dropped: no output with gaps in it. */
				buf_add(dest[i], chunk, (size_t)n, &overflow);
			}
		}
	}
	if (open_fds) {
		char d[32];

		kill(p.pid, SIGKILL);
		proc_wait(&p, -1, NULL);
		err_set(e, ERR_INFRA, "'%s' did not finish within %s", argv[0],
			format_duration(timeout_ns, d, sizeof(d)));
		goto out;
	}
	code = proc_wait(&p, -1, e);
	if (code >= 0 && err_isset(&overflow)) {
		err_set(e, overflow.class, "output of '%s': %s", argv[0],
			overflow.msg);
		code = -1;
	}
out:
	for (int i = 0; i < 2; i++) {
		if (pout[i] >= 0)
			close(pout[i]);
		if (perr[i] >= 0)
			close(perr[i]);
	}
	return code;
}

int proc_signal(pid_t pid, int sig, struct err *e)
{
	if (pid <= 0)
		return err_set(e, ERR_INFRA, "invalid pid %ld", (long)pid);
	if (kill(pid, sig))
		return err_errno(e, errno, "cannot signal pid %ld", (long)pid);
	return 0;
}

/* The text of /proc/PID/stat into `text`; -1 when there is none. */
static int read_stat(pid_t pid, char *text, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, text, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	return 0;
}

char proc_state(pid_t pid)
{
	char text[512];

	return read_stat(pid, text, sizeof(text)) ? 0 : proc_stat_state(text);
}

char proc_stat_state(const char *stat)
{
	/* "pid (comm) S ...": comm may hold spaces and parens. */
	const char *paren = strrchr(stat, ')');

	if (!paren || paren[1] != ' ' || !paren[2])
		return 0;
	if (paren[2] == 'Z' || paren[2] == 'X')
		return 0;
	return paren[2];
}

int proc_alive(pid_t pid)
{
	return proc_state(pid) != 0;
}

long long proc_start_time(pid_t pid)
{
	char text[1024];

	return read_stat(pid, text, sizeof(text)) ? -1 : proc_stat_start(text);
}

long long proc_stat_start(const char *stat)
{
	/* After "pid (comm) ": the state (field 3), 4 to 21, then 22. */
	const char *p = strrchr(stat, ')');
	long long start = -1;

	if (!p || sscanf(p + 2, "%*c"
			 " %*s %*s %*s %*s %*s %*s %*s %*s %*s"	/* 4..12 */
			 " %*s %*s %*s %*s %*s %*s %*s %*s %*s"	/* 13..21 */
			 " %lld", &start) != 1)
		return -1;
	return start;
}

int proc_make_dirs(const char *path, struct err *e)
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

int proc_state_dir(const char *name, int make, char *out, size_t size,
		   struct err *e)
{
	const char *root = getenv(PROC_STATE_ENV);

	out[0] = '\0';
	if (!root)
		root = PROC_STATE_ROOT;
	if (root[0] != '/')
		return err_set(e, ERR_USAGE, PROC_STATE_ENV ": expected an "
			       "absolute path, not '%s'", root);
	if ((size_t)snprintf(out, size, "%s/%s", root, name) >= size) {
		out[0] = '\0';
		return err_set(e, ERR_USAGE, PROC_STATE_ENV ": too long: '%s'",
			       root);
	}
	if (make && ((mkdir(root, 0755) && errno != EEXIST) ||
		     (mkdir(out, 0755) && errno != EEXIST)))
		return err_errno(e, errno, "cannot create '%s'",
				 errno == ENOENT ? root : out);
	return 0;
}

int proc_state_each(const char *name, int (*fn)(const char *path, void *arg),
		    void *arg, struct err *e)
{
	char at[PATH_MAX];
	struct dirent *d;
	DIR *dir;
	int rc = 0;

	if (proc_state_dir(name, 0, at, sizeof(at), e))
		return -1;
	dir = opendir(at);
	if (!dir)
		return errno == ENOENT ? 0 :
		       err_errno(e, errno, "cannot read '%s'", at);
	while (!rc && (d = readdir(dir))) {
		char path[PATH_MAX + 300];

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", at, d->d_name);
		rc = fn(path, arg);
	}
	closedir(dir);
	return rc;
}

int proc_runner_gone(long pid, long long start)
{
	return pid <= 0 || pid > INT_MAX ||
	       proc_start_time((pid_t)pid) != start;
}

int proc_wait_gone(pid_t pid, int64_t timeout_ns, struct err *e)
{
	int64_t deadline = clock_mono_ns() + timeout_ns;
	int64_t nap = NS_PER_MS;
	char d[32];

	for (;;) {
		int status;
		pid_t r;

		/* Our child is gone once reaped: a multithreaded one shows
		 * as a zombie while its threads still exit, and cannot be
		 * reaped until they have. Anyone else's, once not alive. */
		while ((r = waitpid(pid, &status, WNOHANG)) < 0 &&
		       errno == EINTR)
			;
		if (r == pid || (r < 0 && !proc_alive(pid)))
			return 0;
		if (clock_mono_ns() >= deadline)
			return err_set(e, ERR_INFRA, "pid %ld still running "
				       "after %s", (long)pid,
				       format_duration(timeout_ns, d,
						       sizeof(d)));
		clock_sleep_ns(nap);
		if (nap < 50 * NS_PER_MS)
			nap *= 2;
	}
}

int proc_cmdline(pid_t pid, struct buf *out, struct err *e)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", (long)pid);
	buf_reset(out);
	if (buf_read_file(out, path, NULL) || !out->len)
		return err_set(e, ERR_INFRA, "no process with pid %ld",
			       (long)pid);
	buf_rtrim(out);
	for (size_t i = 0; i < out->len; i++)
		if (out->data[i] == '\0')
			out->data[i] = ' ';
	buf_rtrim(out);
	return 0;
}

int proc_getenv(pid_t pid, const char *name, struct buf *out, struct err *e)
{
	struct buf text = BUF_INIT;
	size_t len = strlen(name);
	char path[64];

	buf_reset(out);
	snprintf(path, sizeof(path), "/proc/%ld/environ", (long)pid);
	if (buf_read_file(&text, path, NULL)) {
		buf_release(&text);
		return err_set(e, ERR_INFRA, "cannot read the environment of "
			       "pid %ld", (long)pid);
	}
	/* NAME=VALUE, each ended by a NUL. */
	for (size_t at = 0; at < text.len;) {
		const char *var = text.data + at;
		size_t n = strnlen(var, text.len - at);

		if (n > len && !strncmp(var, name, len) && var[len] == '=') {
			buf_add(out, var + len + 1, n - len - 1, NULL);
			buf_release(&text);
			return 0;
		}
		at += n + 1;
	}
	buf_release(&text);
	return 1;
}

int proc_argv(pid_t pid, char ***argv, struct err *e)
{
	struct buf text = BUF_INIT;
	char path[64];
	size_t n = 0, at = 0;
	char **v;

	*argv = NULL;
	snprintf(path, sizeof(path), "/proc/%ld/cmdline", (long)pid);
	if (buf_read_file(&text, path, NULL) || !text.len) {
		buf_release(&text);
		return err_set(e, ERR_INFRA, "no process with pid %ld",
			       (long)pid);
	}
	for (size_t i = 0; i < text.len; i++)
		n += text.data[i] == '\0';
	n += text.data[text.len - 1] != '\0';
	v = xcalloc(n + 1, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		size_t len = strnlen(text.data + at, text.len - at);

		v[i] = xstrndup(text.data + at, len);
		at += len + 1;
	}
	buf_release(&text);
	*argv = v;
	return 0;
}

void proc_argv_free(char **argv)
{
	for (char **a = argv; a && *a; a++)
		free(*a);
	free(argv);
}

pid_t proc_parent(pid_t pid)
{
	char text[512];
	const char *paren;
	long ppid;

	if (read_stat(pid, text, sizeof(text)))
		return 0;
	/* "pid (comm) S ppid ...": comm may hold spaces and parens. */
	paren = strrchr(text, ')');
	if (!paren || sscanf(paren + 1, " %*c %ld", &ppid) != 1 || ppid < 0)
		return 0;
	return (pid_t)ppid;
}

int proc_cwd(pid_t pid, struct buf *out, struct err *e)
{
	char path[64], target[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%ld/cwd", (long)pid);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return err_set(e, ERR_INFRA, "cannot read the working "
			       "directory of pid %ld: %s", (long)pid,
			       strerror(errno));
	buf_reset(out);
	return buf_add(out, target, (size_t)n, e);
}

/* The pid of the flock(2) on device `dev`, inode `ino`, or 0. */
static pid_t flock_holder(dev_t dev, ino_t ino)
{
	FILE *f = fopen("/proc/locks", "re");
	char line[256], type[16];
	unsigned int maj, min;
	unsigned long inode;
	long pid;
	pid_t found = 0;

	if (!f)
		return 0;
	/* "1: FLOCK  ADVISORY  WRITE 4242 fe:00:10953497 0 EOF"; a waiter's
	 * line says "1: -> FLOCK ..." and does not match. */
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*d: %15s %*s %*s %ld %x:%x:%lu", type, &pid,
			   &maj, &min, &inode) == 5 &&
		    !strcmp(type, "FLOCK") && pid > 0 && maj == major(dev) &&
		    min == minor(dev) && inode == (unsigned long)ino)
			found = (pid_t)pid;
	fclose(f);
	return found;
}

int proc_lock_file(const char *path, int *fd, pid_t *holder, struct err *e)
{
	struct stat st;

	*holder = 0;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return err_set(e, ERR_USAGE, "cannot open '%s': %s", path,
			       strerror(errno));
	if (!flock(*fd, LOCK_EX | LOCK_NB))
		return 0;
	if (errno != EWOULDBLOCK) {
		err_set(e, ERR_INFRA, "cannot lock '%s': %s", path,
			strerror(errno));
		close(*fd);
		*fd = -1;
		return -1;
	}
	if (!fstat(*fd, &st))
		*holder = flock_holder(st.st_dev, st.st_ino);
	close(*fd);
	*fd = -1;
	return 1;
}

int proc_read_pidfile(const char *path, pid_t *pid, struct err *e)
{
	struct buf text = BUF_INIT;
	struct err local = ERR_INIT;
	int64_t v;
	int rc = 0;

	*pid = 0;
	buf_init(&text, 64);
	if (access(path, F_OK) && errno == ENOENT)
		return 0;
	if (buf_read_file(&text, path, e))
		rc = -1;
	else {
		buf_rtrim(&text);
		if (parse_int64(buf_str(&text), 1, INT32_MAX, &v, &local))
			rc = err_set(e, ERR_INFRA, "pidfile '%s' does not "
				     "hold a pid", path);
		else
			*pid = (pid_t)v;
	}
	buf_release(&text);
	return rc;
}

int proc_remove_tree(const char *path, struct err *e)
{
	const char *const rm[] = { "rm", "-rf", "--", path, NULL };
	int code = proc_capture(rm, NULL, NULL, 60 * NS_PER_SEC, e);

	if (code > 0)
		return err_set(e, ERR_INFRA, "cannot remove '%s'", path);
	return code < 0 ? -1 : 0;
}

char *find_program(const char *name)
{
	const char *path = getenv("PATH");
	struct buf dirs = BUF_INIT;
	char *found = NULL;
	const char *d;

	buf_printf(&dirs, NULL, "%s:/usr/sbin:/usr/local/sbin:/sbin",
		   path ? path : "/usr/bin:/bin");
	for (d = buf_str(&dirs); d && !found;) {
		const char *colon = strchr(d, ':');
		int len = colon ? (int)(colon - d) : (int)strlen(d);
		char *candidate = len ? xprintf("%.*s/%s", len, d, name)
				      : xprintf("./%s", name);

		if (!access(candidate, X_OK))
			found = candidate;
		else
			free(candidate);
		d = colon ? colon + 1 : NULL;
	}
	buf_release(&dirs);
	return found;
}
