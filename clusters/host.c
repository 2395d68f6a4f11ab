/*
 * Hosts: this machine through lib/proc, SSH hosts through one shell
 * command per operation (clusters/host.h). The remote commands use only
 * POSIX sh, coreutils and util-linux's setsid, which every Linux server
 * has.
 */
#include "clusters/host.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "lib/proc.h"

/* Local. */

static int local_read_file(struct host *h, const char *path, int64_t from,
			   int64_t max, struct buf *out, struct err *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc = 0;

	(void)h;
	if (fd < 0)
		return errno == ENOENT ? 1 : err_errno(e, errno, "cannot open "
						       "'%s'", path);
	if (from && lseek(fd, (off_t)from, SEEK_SET) != (off_t)from)
		rc = err_errno(e, errno, "cannot seek in '%s'", path);
	while (!rc && max > 0) {
		char chunk[65536];
		ssize_t n = read(fd, chunk, max < (int64_t)sizeof(chunk) ?
				 (size_t)max : sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = err_errno(e, errno, "cannot read '%s'", path);
		if (n <= 0)
			break;
		rc = buf_add(out, chunk, (size_t)n, e);
		max -= n;
	}
	close(fd);
	return rc;
}

static int64_t local_file_size(struct host *h, const char *path)
{
	struct stat st;

	(void)h;
	return path && !stat(path, &st) ? (int64_t)st.st_size : -1;
}

static int local_write_file(struct host *h, const char *path,
			    const struct buf *text, struct err *e)
{
	(void)h;
	return buf_write_file(text, path, 0644, e);
}

static int local_remove(struct host *h, const char *path, struct err *e)
{
	(void)h;
	if (unlink(path) && errno != ENOENT)
		return err_errno(e, errno, "cannot remove '%s'", path);
	return 0;
}

static int local_cmdline(struct host *h, pid_t pid, struct buf *out,
			 struct err *e)
{
	(void)h;
	return proc_cmdline(pid, out, e);
}

static char local_state(struct host *h, pid_t pid)
{
	(void)h;
	return proc_state(pid);
}

static long long local_start_time(struct host *h, pid_t pid)
{
	(void)h;
	return proc_start_time(pid);
}

static int local_signal(struct host *h, pid_t pid, int sig, struct err *e)
{
	(void)h;
	return proc_signal(pid, sig, e);
}

static int local_spawn(struct host *h, char *const *argv, const char *dir,
		       const char *log, pid_t *pid, struct err *e)
{
	struct proc p = PROC_INIT;

	(void)h;
	p.argv = (const char *const *)argv;
	p.dir = dir;
	p.out = log ? log : "/dev/null";
	p.append = 1;
	p.err_to_out = 1;
	p.new_session = 1;
	if (proc_start(&p, e))
		return -1;
	*pid = p.pid;
	return 0;
}

static int local_wait_gone(struct host *h, pid_t pid, int64_t timeout_ns,
			   struct err *e)
{
	(void)h;
	return proc_wait_gone(pid, timeout_ns, e);
}

static int local_shell(struct host *h, const char *command, struct buf *out,
		       struct err *e)
{
	const char *argv[] = { "sh", "-c", command, NULL };

	return proc_capture(argv, out, NULL, h->timeout_ns, e);
}

static const struct host_ops local_ops = {
	.kind = "local",
	.read_file = local_read_file,
	.file_size = local_file_size,
	.write_file = local_write_file,
	.remove = local_remove,
	.cmdline = local_cmdline,
	.state = local_state,
	.start_time = local_start_time,
	.signal = local_signal,
	.spawn = local_spawn,
	.wait_gone = local_wait_gone,
	.shell = local_shell,
};

struct host host_local = {
	.name = (char *)"local",
	.ops = &local_ops,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.timeout_ns = 60 * NS_PER_SEC,
};

/* SSH. */

static struct ssh *connection(struct host *h, struct err *e)
{
	struct ssh *s;

	pthread_mutex_lock(&h->lock);
	if (!h->conn && ssh_open(&h->conn, &h->ssh, e))
		h->conn = NULL;
	s = h->conn;
	pthread_mutex_unlock(&h->lock);
	return s;
}

/*
 * Run `command` on the host: its exit code, stdout into `out` (NULL:
 * dropped); stderr's last line makes the message of a failure the caller
 * reports.
 */
static int remote(struct host *h, const char *command, const struct buf *in,
		  struct buf *out, struct buf *errout, struct err *e)
{
	struct ssh *s = connection(h, e);

	if (!s)
		return -1;
	return ssh_run(s, command, in, out, errout, h->timeout_ns, e);
}

/* "host 'h': cannot WHAT 'PATH': <its stderr>" for a command that exited
 * with `code`. */
static int remote_failed(struct host *h, struct err *e, struct buf *errout,
			 int code, const char *what, const char *path)
{
	buf_rtrim(errout);
	if (errout->len)
		return err_set(e, ERR_INFRA, "host '%s': cannot %s '%s': %s",
			       h->name, what, path, buf_str(errout));
	return err_set(e, ERR_INFRA, "host '%s': cannot %s '%s': exit code "
		       "%d", h->name, what, path, code);
}

static int ssh_read_file(struct host *h, const char *path, int64_t from,
			 int64_t max, struct buf *out, struct err *e)
{
	struct buf cmd = BUF_INIT, errout = BUF_INIT;
	int code;

	buf_addstr(&cmd, "test -e ", NULL);
	sh_quote(&cmd, path, NULL);
	buf_printf(&cmd, NULL, " || exit 7; tail -c +%lld ",
		   (long long)from + 1);
	sh_quote(&cmd, path, NULL);
	buf_printf(&cmd, NULL, " | head -c %lld", (long long)max);
	code = remote(h, buf_str(&cmd), NULL, out, &errout, e);
	if (code == 7)
		code = 1;
	else if (code > 0)
		code = remote_failed(h, e, &errout, code, "read", path);
	buf_release(&cmd);
	buf_release(&errout);
	return code;
}

static int64_t ssh_file_size(struct host *h, const char *path)
{
	struct buf cmd = BUF_INIT, out = BUF_INIT;
	int64_t size = -1;

	if (!path)
		return -1;
	buf_addstr(&cmd, "wc -c < ", NULL);
	sh_quote(&cmd, path, NULL);
	if (remote(h, buf_str(&cmd), NULL, &out, NULL, NULL) == 0) {
		buf_rtrim(&out);
		if (parse_int64(buf_str(&out), 0, INT64_MAX, &size, NULL))
			size = -1;
	}
	buf_release(&cmd);
	buf_release(&out);
	return size;
}

/* A command that must exit 0; otherwise "host 'h': cannot WHAT 'PATH'". */
static int must(struct host *h, const char *command, const struct buf *in,
		struct buf *out, const char *what, const char *path,
		struct err *e)
{
	struct buf errout = BUF_INIT;
	int code = remote(h, command, in, out, &errout, e);

	if (code > 0)
		remote_failed(h, e, &errout, code, what, path);
	buf_release(&errout);
	return code ? -1 : 0;
}

static int ssh_write_file(struct host *h, const char *path,
			  const struct buf *text, struct err *e)
{
	struct buf cmd = BUF_INIT, tmp = BUF_INIT;
	int rc;

	buf_printf(&tmp, NULL, "%s.tmp", path);
	buf_addstr(&cmd, "cat > ", NULL);
	sh_quote(&cmd, buf_str(&tmp), NULL);
	buf_addstr(&cmd, " && mv ", NULL);
	sh_quote(&cmd, buf_str(&tmp), NULL);
	buf_addch(&cmd, ' ', NULL);
	sh_quote(&cmd, path, NULL);
	rc = must(h, buf_str(&cmd), text, NULL, "write", path, e);
	buf_release(&cmd);
	buf_release(&tmp);
	return rc;
}

static int ssh_remove(struct host *h, const char *path, struct err *e)
{
	struct buf cmd = BUF_INIT;
	int rc;

	buf_addstr(&cmd, "rm -f ", NULL);
	sh_quote(&cmd, path, NULL);
	rc = must(h, buf_str(&cmd), NULL, NULL, "remove", path, e);
	buf_release(&cmd);
	return rc;
}

static int ssh_cmdline(struct host *h, pid_t pid, struct buf *out,
		       struct err *e)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "tr '\\000' ' ' < /proc/%ld/cmdline",
		 (long)pid);
	buf_reset(out);
	if (remote(h, cmd, NULL, out, NULL, e) || !out->len)
		return err_set(e, ERR_INFRA, "host '%s': no process with pid "
			       "%ld", h->name, (long)pid);
	buf_rtrim(out);
	return 0;
}

static char ssh_state(struct host *h, pid_t pid)
{
	struct buf out = BUF_INIT;
	char cmd[64], state = 0;

	snprintf(cmd, sizeof(cmd), "cat /proc/%ld/stat", (long)pid);
	if (pid > 0 && remote(h, cmd, NULL, &out, NULL, NULL) == 0)
		state = proc_stat_state(buf_str(&out));
	buf_release(&out);
	return state;
}

static long long ssh_start_time(struct host *h, pid_t pid)
{
	struct buf out = BUF_INIT;
	char cmd[64];
	long long start = -1;

	snprintf(cmd, sizeof(cmd), "cat /proc/%ld/stat", (long)pid);
	if (pid > 0 && remote(h, cmd, NULL, &out, NULL, NULL) == 0)
		start = proc_stat_start(buf_str(&out));
	buf_release(&out);
	return start;
}

static int ssh_signal(struct host *h, pid_t pid, int sig, struct err *e)
{
	char cmd[64], what[32];

	snprintf(cmd, sizeof(cmd), "kill -%d %ld", sig, (long)pid);
	snprintf(what, sizeof(what), "%ld", (long)pid);
	return must(h, cmd, NULL, NULL, "signal pid", what, e);
}

static int ssh_spawn(struct host *h, char *const *argv, const char *dir,
		     const char *log, pid_t *pid, struct err *e)
{
	struct buf cmd = BUF_INIT, out = BUF_INIT;
	int64_t v;
	int rc;

	if (dir) {
		buf_addstr(&cmd, "cd ", NULL);
		sh_quote(&cmd, dir, NULL);
		buf_addstr(&cmd, " || exit 1; ", NULL);
	}
	/* A background child of a shell without job control is no group
	 * leader, so setsid execs in place: $! is the server's pid. */
	buf_addstr(&cmd, "setsid ", NULL);
	sh_quote_argv(&cmd, (const char *const *)argv, NULL);
	buf_addstr(&cmd, " >> ", NULL);
	sh_quote(&cmd, log ? log : "/dev/null", NULL);
	buf_addstr(&cmd, " 2>&1 < /dev/null & echo $!", NULL);
	rc = must(h, buf_str(&cmd), NULL, &out, "start", argv[0], e);
	buf_rtrim(&out);
	if (!rc && parse_int64(buf_str(&out), 1, INT32_MAX, &v, NULL))
		rc = err_set(e, ERR_INFRA, "host '%s': starting '%s' gave no "
			     "pid", h->name, argv[0]);
	if (!rc)
		*pid = (pid_t)v;
	buf_release(&cmd);
	buf_release(&out);
	return rc;
}

static int ssh_wait_gone(struct host *h, pid_t pid, int64_t timeout_ns,
			 struct err *e)
{
	int64_t deadline = clock_mono_ns() + timeout_ns;
	char d[32];

	while (ssh_state(h, pid)) {
		if (clock_mono_ns() >= deadline)
			return err_set(e, ERR_INFRA, "host '%s': pid %ld still "
				       "running after %s", h->name, (long)pid,
				       format_duration(timeout_ns, d,
						       sizeof(d)));
		clock_sleep_ns(20 * NS_PER_MS);
	}
	return 0;
}

static int ssh_shell(struct host *h, const char *command, struct buf *out,
		     struct err *e)
{
	return remote(h, command, NULL, out, NULL, e);
}

static int link_shell(void *h, const char *command, struct buf *out,
		      struct err *e)
{
	struct host *host = h;

	return host->ops->shell(host, command, out, e);
}

int host_link_at(struct host *h, struct nettool_at *at, struct err *e)
{
	return nettool_at_remote(at, h->name, link_shell, h, h->ssh.address, e);
}

static const struct host_ops ssh_ops = {
	.kind = "ssh",
	.read_file = ssh_read_file,
	.file_size = ssh_file_size,
	.write_file = ssh_write_file,
	.remove = ssh_remove,
	.cmdline = ssh_cmdline,
	.state = ssh_state,
	.start_time = ssh_start_time,
	.signal = ssh_signal,
	.spawn = ssh_spawn,
	.wait_gone = ssh_wait_gone,
	.shell = ssh_shell,
};

void host_init_ssh(struct host *h)
{
	h->ops = &ssh_ops;
	h->conn = NULL;
	h->timeout_ns = 30 * NS_PER_SEC;
	pthread_mutex_init(&h->lock, NULL);
}

void host_release(struct host *h)
{
	if (h == &host_local)
		return;
	ssh_free(h->conn);
	free(h->name);
	free((char *)h->ssh.address);
	free((char *)h->ssh.user);
	free((char *)h->ssh.key);
	free((char *)h->ssh.known_hosts);
	if (h->ops)
		pthread_mutex_destroy(&h->lock);
	memset(h, 0, sizeof(*h));
}
