/*
 * The placement of a component's data directory on tichaos-diskfs
 * (faults/diskplace.h).
 */
#include "faults/diskplace.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "lib/proc.h"

#define DISK_DIR "disks"
#define BACKING_SUFFIX ".tichaos-disk"
#define MOUNT_TIMEOUT_NS (10 * NS_PER_SEC)
#define REPORT_TIMEOUT_NS (10 * NS_PER_SEC)

/*
 * `command` run on host `h` with its stderr joined to its stdout, into
 * `out` (MAY be NULL). Its exit code; a failure (`what` says what did
 * not happen) is set in `e` with the command's last words.
 */
static int on_host(struct host *h, const struct buf *command,
		   struct buf *out, const char *what, struct err *e)
{
	struct buf cmd = BUF_INIT, text = BUF_INIT;
	const char *last;
	int code;

	buf_printf(&cmd, NULL, "exec 2>&1; %s", buf_str(command));
	code = h->ops->shell(h, buf_str(&cmd), &text, e);
	if (code > 0) {
		buf_rtrim(&text);
		last = strrchr(buf_str(&text), '\n');
		err_set(e, ERR_INFRA, "host '%s': cannot %s: %s", h->name,
			what, text.len ? (last ? last + 1 : buf_str(&text)) :
			"no word from it");
	}
	if (out)
		buf_addstr(out, buf_str(&text), NULL);
	buf_release(&cmd);
	buf_release(&text);
	return code;
}

int diskplace_program(struct host *h, struct buf *out, struct err *e)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash = n > 0 ? (self[n] = '\0', strrchr(self, '/')) : NULL;
	static const char *const beside[] = { "/diskfs/tichaos-diskfs",
					      "/tichaos-diskfs" };
	struct buf cmd = BUF_INIT, path = BUF_INIT;
	int code;

	if (slash)
		*slash = '\0';
	buf_addstr(&cmd, "test -r /dev/fuse && test -w /dev/fuse || exit 3; "
		   "for p in", NULL);
	for (size_t i = 0; slash && i < 2; i++) {
		buf_reset(&path);
		buf_printf(&path, NULL, "%s%s", self, beside[i]);
		buf_addch(&cmd, ' ', NULL);
		sh_quote(&cmd, buf_str(&path), NULL);
	}
	buf_addstr(&cmd, " tichaos-diskfs; do command -v \"$p\" && exit 0; "
		   "done; exit 4", NULL);
	buf_reset(out);
	code = h->ops->shell(h, buf_str(&cmd), out, e);
	buf_rtrim(out);
	if (code == 3 || code == 4)
		err_set(e, ERR_INFRA, "%s%s has %s", h == &host_local ?
			"this machine" : "host ", h == &host_local ? "" :
			h->name, code == 3 ? "no /dev/fuse to mount "
			"tichaos-diskfs with" : "no tichaos-diskfs (beside "
			"tichaos, or on its PATH)");
	else if (code > 0 || (!code && !out->len))
		err_set(e, ERR_INFRA, "host '%s': cannot look for "
			"tichaos-diskfs: exit code %d", h->name, code);
	buf_release(&cmd);
	buf_release(&path);
	return code || !out->len ? -1 : 0;
}

/*
 * DISK_DIR/NAME-HASH: the component's name, and its host's and data
 * directory's (FNV-1a): two clusters' components of one name apart.
 * DISK_DIR made with `make`.
 */
static int placement_dir(const struct host *h,
			 const struct component *comp, int make, char *out,
			 size_t size, struct err *e)
{
	uint64_t h64 = 14695981039346656037ULL;
	const char *parts[] = { h == &host_local ? "" : h->name, "\n",
				comp->data_dir ? comp->data_dir : "" };
	char dir[PATH_MAX];

	if (proc_state_dir(DISK_DIR, make, dir, sizeof(dir), e))
		return -1;
	for (size_t i = h == &host_local ? 2 : 0; i < 3; i++)
		for (const char *p = parts[i]; *p; p++)
			h64 = (h64 ^ (unsigned char)*p) * 1099511628211ULL;
	if ((size_t)snprintf(out, size, "%s/%s-%016llx", dir, comp->name,
			     (unsigned long long)h64) >= size)
		return err_set(e, ERR_USAGE, PROC_STATE_ENV ": too long "
			       "for '%s/%s-'", dir, comp->name);
	return 0;
}

/* The paths beside data directory `data` in `p`. */
static void placement_paths(struct placement *p, const char *data)
{
	snprintf(p->data, sizeof(p->data), "%s", data);
	snprintf(p->backing, sizeof(p->backing), "%s" BACKING_SUFFIX, data);
	snprintf(p->run, sizeof(p->run), "%s" BACKING_SUFFIX ".run", data);
}

static int record_write(const struct placement *p, struct err *e)
{
	char path[PATH_MAX + 16];
	struct buf text = BUF_INIT;
	int rc;

	snprintf(path, sizeof(path), "%s/record", p->dir);
	buf_printf(&text, NULL, "%ld %lld %ld %lld %d %s\n%s\n%s\n",
		   (long)p->fs_pid, p->fs_start, (long)p->runner,
		   p->runner_start, p->was_running, p->component, p->data,
		   p->host_name);
	rc = buf_write_file(&text, path, 0644, e);
	buf_release(&text);
	return rc;
}

/*
 * The record in `dir` into `p` (its host by name only): 0, or -1 when
 * there is none readable.
 */
static int record_read(const char *dir, struct placement *p)
{
	char path[PATH_MAX + 16], data[PATH_MAX];
	struct buf text = BUF_INIT;
	const char *host;
	long fs, runner;
	int used = 0, rc = -1;

	memset(p, 0, sizeof(*p));
	snprintf(p->dir, sizeof(p->dir), "%s", dir);
	snprintf(path, sizeof(path), "%s/record", dir);
	if (buf_read_file(&text, path, NULL))
		goto out;
	if (sscanf(buf_str(&text), "%ld %lld %ld %lld %d %127s %n", &fs,
		   &p->fs_start, &runner, &p->runner_start, &p->was_running,
		   p->component, &used) != 6 || !used)
		goto out;
	snprintf(data, sizeof(data), "%.*s",
		 (int)strcspn(buf_str(&text) + used, "\n"),
		 buf_str(&text) + used);
	placement_paths(p, data);
	host = strchr(buf_str(&text) + used, '\n');
	snprintf(p->host_name, sizeof(p->host_name), "%.*s",
		 host ? (int)strcspn(host + 1, "\n") : 0, host ? host + 1 : "");
	p->fs_pid = (pid_t)fs;
	p->runner = (pid_t)runner;
	rc = p->data[0] && p->host_name[0] ? 0 : -1;
out:
	buf_release(&text);
	return rc;
}

int diskplace_ours(struct cluster *c, const struct component *comp,
		   struct placement *p)
{
	struct host *h = component_host(c, comp);
	char dir[PATH_MAX];

	if (placement_dir(h, comp, 0, dir, sizeof(dir), NULL) ||
	    record_read(dir, p) || p->runner != getpid())
		return 0;
	p->h = h;
	return 1;
}

/* Whether the file system of `p` is alive: the process it started. */
static int fs_alive(const struct placement *p)
{
	return p->fs_pid > 0 &&
	       p->h->ops->start_time(p->h, p->fs_pid) == p->fs_start;
}

int diskplace_undo(struct placement *p, struct err *e)
{
	struct host *h = p->h;
	struct buf cmd = BUF_INIT;
	char path[PATH_MAX + 16];
	int rc;

	if (fs_alive(p)) {
		h->ops->signal(h, p->fs_pid, SIGTERM, NULL);
		if (h->ops->wait_gone(h, p->fs_pid, MOUNT_TIMEOUT_NS, NULL)) {
			log_warn("%s: tichaos-diskfs (pid %ld) did not unmount "
				 "within %llds; killing it: what it held "
				 "unsynced is lost", p->component,
				 (long)p->fs_pid,
				 (long long)(MOUNT_TIMEOUT_NS / NS_PER_SEC));
			h->ops->signal(h, p->fs_pid, SIGKILL, NULL);
			h->ops->wait_gone(h, p->fs_pid, MOUNT_TIMEOUT_NS, NULL);
		}
	}
	/* A file system killed, or gone before, leaves its mount; the
	 * unlinks it left waiting are dropped (diskfs/main.c). */
	buf_addstr(&cmd, "d=", NULL);
	sh_quote(&cmd, p->data, NULL);
	buf_addstr(&cmd, "; if awk -v d=\"$d\" '$2 == d { f = 1 } END { exit "
		   "!f }' /proc/mounts; then umount -l \"$d\" 2>/dev/null || "
		   "fusermount3 -u -z \"$d\" || exit 1; fi; { test ! -e \"$d\" "
		   "|| rmdir \"$d\"; } && mv \"$d" BACKING_SUFFIX
		   "\" \"$d\" && rm -rf \"$d" BACKING_SUFFIX ".trash\" \"$d"
		   BACKING_SUFFIX ".run\"", NULL);
	rc = on_host(h, &cmd, NULL, "move its data directory back", e);
	buf_release(&cmd);
	if (rc)
		return -1;
	snprintf(path, sizeof(path), "%s/record", p->dir);
	unlink(path);
	rmdir(p->dir);
	return 0;
}

/*
 * Whether the file system of `p` said it mounted and its mount is
 * there: 0 yes, 1 not yet, -1 (`e`) when it cannot be asked.
 */
static int mounted(const struct placement *p, struct err *e)
{
	struct buf cmd = BUF_INIT;
	int code;

	buf_addstr(&cmd, "grep -q '^mounted ' ", NULL);
	sh_quote(&cmd, p->run, NULL);
	buf_addstr(&cmd, "/diskfs.log && awk -v d=", NULL);
	sh_quote(&cmd, p->data, NULL);
	buf_addstr(&cmd, " '$2 == d { f = 1 } END { exit !f }' /proc/mounts",
		   NULL);
	code = p->h->ops->shell(p->h, buf_str(&cmd), NULL, e);
	buf_release(&cmd);
	return code < 0 ? -1 : code ? 1 : 0;
}

int diskplace_place(struct cluster *c, struct component *comp,
		    const char *first, int cache, struct err *e)
{
	struct placement p;
	struct buf program = BUF_INIT, cmd = BUF_INIT, log = BUF_INIT;
	char log_path[PATH_MAX + 64], report[PATH_MAX + 64],
	     ctl[PATH_MAX + 64];
	char *argv[7];
	size_t k = 0;
	int64_t until;
	int running = component_state(c, comp) == STATE_RUNNING, up;

	memset(&p, 0, sizeof(p));
	p.h = component_host(c, comp);
	if (placement_dir(p.h, comp, 1, p.dir, sizeof(p.dir), e))
		return -1;
	placement_paths(&p, comp->data_dir);
	snprintf(p.component, sizeof(p.component), "%s", comp->name);
	snprintf(p.host_name, sizeof(p.host_name), "%s", p.h->name);
	snprintf(log_path, sizeof(log_path), "%s/diskfs.log", p.run);
	snprintf(report, sizeof(report), "%s/report", p.run);
	snprintf(ctl, sizeof(ctl), "%s/control", p.run);
	p.was_running = running;
	if (diskplace_program(p.h, &program, e))
		goto fail;
	if (mkdir(p.dir, 0755) && errno != EEXIST) {
		err_errno(e, errno, "cannot create '%s'", p.dir);
		goto fail;
	}
	if (running && component_stop(c, comp, e))
		goto fail;
	/* Aside, and an empty directory of its mode in its place. */
	buf_addstr(&cmd, "d=", NULL);
	sh_quote(&cmd, p.data, NULL);
	buf_addstr(&cmd, "; b=\"$d" BACKING_SUFFIX "\"; m=$(stat -c %a "
		   "\"$d\") && rm -rf \"$b.run\" && mkdir \"$b.run\" || "
		   "exit 1; mv \"$d\" \"$b\" || { rmdir \"$b.run\"; exit 1; "
		   "}; mkdir -m \"$m\" \"$d\" || { mv \"$b\" \"$d\"; rmdir "
		   "\"$b.run\"; exit 1; }", NULL);
	if (on_host(p.h, &cmd, NULL, "move its data directory aside", e))
		goto fail;
	argv[k++] = (char *)buf_str(&program);
	if (cache)
		argv[k++] = (char *)"--cache";
	argv[k++] = p.backing;
	argv[k++] = p.data;
	argv[k++] = report;
	argv[k++] = ctl;
	argv[k] = NULL;
	if (p.h->ops->spawn(p.h, argv, NULL, log_path, &p.fs_pid, e))
		goto undo;
	p.fs_start = p.h->ops->start_time(p.h, p.fs_pid);
	p.runner = getpid();
	p.runner_start = proc_start_time(getpid());
	/* Recorded before anything waits: a run killed now leaves it. */
	if (record_write(&p, e))
		goto undo;
	for (until = clock_mono_ns() + MOUNT_TIMEOUT_NS;;) {
		if ((up = mounted(&p, e)) <= 0) {
			if (up < 0)
				goto undo;
			break;
		}
		if (!fs_alive(&p) || clock_mono_ns() > until) {
			buf_reset(&log);
			p.h->ops->read_file(p.h, log_path, 0, 4096, &log, NULL);
			buf_rtrim(&log);
			err_set(e, ERR_INFRA, "%s: tichaos-diskfs did not mount "
				"'%s': %s", comp->name, p.data,
				log.len ? buf_str(&log) : "no word from it");
			goto undo;
		}
		clock_sleep_ns(20 * NS_PER_MS);
	}
	log_info("%s: its data directory on tichaos-diskfs (pid %ld%s%s%s), "
		 "for the disk faults", comp->name, (long)p.fs_pid,
		 p.h == &host_local ? "" : " on host ",
		 p.h == &host_local ? "" : p.h->name,
		 cache ? ", the page cache kept" : "");
	if (first && diskplace_control(&p, first, &log, e))
		goto undo;
	buf_release(&program);
	buf_release(&cmd);
	buf_release(&log);
	return running ? component_start(c, comp, e) : 0;
undo:
	diskplace_undo(&p, NULL);
fail:
	buf_release(&program);
	buf_release(&cmd);
	buf_release(&log);
	return -1;
}

const char *diskplace_report_line(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);

	for (const char *at = text; at && *at; at = strchr(at, '\n'),
	     at = at ? at + 1 : NULL)
		if (!strncmp(at, prefix, n))
			return at;
	return NULL;
}

/* "In time": within REPORT_TIMEOUT_NS. */
int diskplace_ask(const struct placement *p, int sig,
		  const char *const *ends, const char *what, struct buf *text,
		  struct err *e)
{
	struct host *h = p->h;
	char report[PATH_MAX + 64];
	int64_t until = clock_mono_ns() + REPORT_TIMEOUT_NS, from;

	snprintf(report, sizeof(report), "%s/report", p->run);
	from = h->ops->file_size(h, report);
	if (!fs_alive(p) || h->ops->signal(h, p->fs_pid, sig, NULL))
		return err_set(e, ERR_INFRA, "%s: its tichaos-diskfs (pid %ld) "
			       "is gone", p->component, (long)p->fs_pid);
	for (;;) {
		buf_reset(text);
		if (!h->ops->read_file(h, report, from < 0 ? 0 : from,
				       INT64_MAX, text, NULL))
			for (int i = 0; ends[i]; i++)
				if (diskplace_report_line(buf_str(text),
							  ends[i]))
					return i;
		if (clock_mono_ns() > until)
			return err_set(e, ERR_INFRA, "%s: tichaos-diskfs did "
				       "not %s within %llds", p->component,
				       what, (long long)(REPORT_TIMEOUT_NS /
							 NS_PER_SEC));
		clock_sleep_ns(5 * NS_PER_MS);
	}
}

int diskplace_control(const struct placement *p, const char *line,
		      struct buf *text, struct err *e)
{
	char path[PATH_MAX + 64];
	struct buf want = BUF_INIT, what = BUF_INIT;
	const char *ends[] = { "mode-error ", NULL, NULL };
	const char *refused;
	int rc = -1;

	buf_printf(&want, NULL, "%s\n", line);
	snprintf(path, sizeof(path), "%s/control", p->run);
	if (p->h->ops->write_file(p->h, path, &want, e))
		goto out;
	buf_reset(&want);
	buf_printf(&want, NULL, "mode %s\n", line);
	ends[1] = buf_str(&want);
	buf_printf(&what, NULL, "set '%s'", line);
	rc = diskplace_ask(p, SIGUSR2, ends, buf_str(&what), text, e);
	if (rc == 0) {
		refused = diskplace_report_line(buf_str(text), ends[0]);
		rc = err_set(e, ERR_INFRA, "%s: tichaos-diskfs refused the "
			     "mode: %.*s", p->component,
			     (int)strcspn(refused, "\n"), refused);
	} else if (rc == 1) {
		rc = 0;
	}
out:
	buf_release(&want);
	buf_release(&what);
	return rc;
}

/*
 * Stop every process of p's host whose working directory or an open file
 * is on the file system of `p` (its data directory's path), or whose
 * command line names that directory, by its pid:
 * TERM, and KILL after `grace_ns`. What the sweep finds there is a
 * component that a run, killed while it started it on the placement,
 * left running before it wrote its pidfile, so that component_state
 * does not know it; unmounted under it, its files would fail (ENOTCONN)
 * while it holds its ports. Each said. 0, or -1 when the host cannot be
 * asked.
 */
static int stop_users(const struct placement *p, int64_t grace_ns,
		      struct err *e)
{
	struct buf cmd = BUF_INIT, out = BUF_INIT;
	const char *line;
	int rc;

	buf_addstr(&cmd, "d=", NULL);
	sh_quote(&cmd, p->data, NULL);
	/* One find over every process's links, not a readlink each: a
	 * loaded machine runs thousands of processes' fds. And one grep of
	 * the command lines: a server started the instant before that run
	 * was killed may have opened nothing there yet, but names its data
	 * directory (--datadir=, --data-dir=); "[/]" keeps grep's own line
	 * out, $$ (this shell, which names it too) is left out. (A data
	 * directory's path with * ? [ in it would match more.) */
	buf_addstr(&cmd, "; { find /proc/[0-9]*/cwd /proc/[0-9]*/fd -maxdepth "
		   "1 \\( -lname \"$d\" -o -lname \"$d/*\" \\) 2>/dev/null; "
		   "grep -lz \"[/]${d#/}\\($\\|/\\)\" /proc/[0-9]*/cmdline "
		   "2>/dev/null; } | cut -d/ -f3 | sort -u | grep -vx \"$$\"; "
		   "true", NULL);
	rc = on_host(p->h, &cmd, &out, "find what uses its tichaos-diskfs",
		     e);
	for (line = buf_str(&out); !rc && *line; ) {
		char *end;
		long pid = strtol(line, &end, 10);
		struct err why = ERR_INIT;

		if (pid > 1 && pid != (long)p->fs_pid) {
			log_warn("%s: stopping pid %ld, which has files on the "
				 "tichaos-diskfs an earlier run left (it was "
				 "started, and not recorded, as that run was "
				 "killed)", p->component, pid);
			if (p->h->ops->signal(p->h, (pid_t)pid, SIGTERM, &why) ||
			    p->h->ops->wait_gone(p->h, (pid_t)pid, grace_ns,
						 &why))
				p->h->ops->signal(p->h, (pid_t)pid, SIGKILL,
						  NULL);
		}
		line = strchr(end, '\n') ? strchr(end, '\n') + 1 : "";
	}
	buf_release(&cmd);
	buf_release(&out);
	return rc;
}

/*
 * A run killed while a data directory was on tichaos-diskfs left it
 * there: each recorded placement of `c`'s components whose runner is
 * gone undone — its component stopped (and whatever else has files on
 * it: stop_users), the file system unmounted, the directory moved back
 * — and said; when its component cannot be stopped, it is left placed
 * and that is said. Before the cluster's servers start, and at `cluster
 * down` once they stopped.
 */
static int sweep_one(const char *path, void *arg)
{
	struct cluster *c = arg;
	struct placement p;
	struct component *comp;
	struct err why = ERR_INIT;

	if (record_read(path, &p) || !proc_runner_gone(p.runner,
						       p.runner_start))
		return 0;
	/* Another cluster's (its data directory elsewhere) is left to a
	 * run on that cluster: its component may run on it. */
	comp = cluster_find(c, p.component);
	if (!comp || !comp->data_dir || strcmp(comp->data_dir, p.data) ||
	    strcmp(component_host(c, comp)->name, p.host_name))
		return 0;
	p.h = component_host(c, comp);
	if ((component_state(c, comp) != STATE_STOPPED &&
	     component_stop(c, comp, &why)) ||
	    stop_users(&p, c->timeout_ns, &why) ||
	    diskplace_undo(&p, &why))
		log_warn("%s: cannot undo what an earlier run left on "
			 "tichaos-diskfs: %s", p.component, why.msg);
	else
		log_warn("%s: its data directory back from tichaos-diskfs, "
			 "where an earlier run left it (its runner, pid %ld, "
			 "is gone)", p.component, (long)p.runner);
	return 0;
}

int diskplace_sweep(struct cluster *c, struct err *e)
{
	return proc_state_each(DISK_DIR, sweep_one, c, e);
}
