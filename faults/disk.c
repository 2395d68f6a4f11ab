/*
 * disk_lose: a power loss of the picked components — each killed with
 * SIGKILL, and everything its files received since their last fsync or
 * fdatasync dropped, as a machine that loses power drops its page cache;
 * after `down` each starts again, as a killed one does. A kill -9 alone
 * never shows this: the page cache survives a process.
 *
 * For the whole run, each component `target` names has its data
 * directory on tichaos-diskfs (diskfs/main.c), which holds what is
 * written there until it is synced and drops it on SIGUSR1: `prepare`
 * stops the component, moves its data directory aside (DATA_DIR +
 * BACKING_SUFFIX: the "disk", holding exactly what was synced), mounts
 * the file system at the data directory's path over it and starts the
 * component again; `finish` stops it, unmounts (which writes back what
 * is unsynced, as a clean shutdown does), moves the directory back and
 * starts it again. A run killed meanwhile leaves it placed: each
 * placement is recorded in DISK_DIR, and the next run's sweep stops the
 * component it finds there, unmounts and moves the directory back.
 *
 * The file system holds back file data and sizes; directory entries and
 * metadata reach the disk at once (diskfs/main.c says why not yet).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clusters/cluster.h"
#include "clusters/host.h"
#include "core/plan.h"
#include "core/suite.h"
#include "faults/fault.h"
#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/history.h"
#include "lib/log.h"
#include "lib/proc.h"

#define DISK_DIR "/run/tichaos/disks"
#define BACKING_SUFFIX ".tichaos-disk"
#define MOUNT_TIMEOUT_NS (10 * NS_PER_SEC)
#define REPORT_TIMEOUT_NS (10 * NS_PER_SEC)
/* Files named in a record, at most; the counts cover them all. */
#define MAX_NAMED 20

struct disk_opts {
	struct fault_target_opts t;
};

static const struct optspec opts[] = {
	FAULT_COMMON_OPTS,
	FAULT_TARGET_OPTS,
};

/* One placement: what its record (DISK_DIR/NAME/record) says. */
struct placement {
	char dir[PATH_MAX];		/* DISK_DIR/NAME */
	char data[PATH_MAX];		/* the component's data directory */
	char backing[PATH_MAX + 32];	/* DATA + BACKING_SUFFIX */
	pid_t fs_pid;
	long long fs_start;
	pid_t runner;
	long long runner_start;
	char component[128];
};

/*
 * tichaos-diskfs: beside this program (the build's diskfs/, or
 * installed next to it), else on PATH.
 */
static void diskfs_program(struct buf *out)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	static const char *const beside[] = { "/diskfs/tichaos-diskfs",
					      "/tichaos-diskfs" };
	char *slash;

	buf_reset(out);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash)
			*slash = '\0';
		for (size_t i = 0; slash && i < 2; i++) {
			buf_reset(out);
			buf_printf(out, NULL, "%s%s", self, beside[i]);
			if (!access(buf_str(out), X_OK))
				return;
		}
	}
	buf_reset(out);
	buf_addstr(out, "tichaos-diskfs", NULL);
}

/*
 * DISK_DIR/NAME-HASH: the component's name, and its data directory's
 * (FNV-1a): two clusters' components of one name apart.
 */
static void placement_dir(const struct component *comp, char *out,
			  size_t size)
{
	uint64_t h = 14695981039346656037ULL;

	for (const char *p = comp->data_dir; p && *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	snprintf(out, size, DISK_DIR "/%s-%016llx", comp->name,
		 (unsigned long long)h);
}

static int record_write(const struct placement *p, struct err *e)
{
	char path[PATH_MAX + 16];
	struct buf text = BUF_INIT;
	int rc;

	snprintf(path, sizeof(path), "%s/record", p->dir);
	buf_printf(&text, NULL, "%ld %lld %ld %lld %s\n%s\n", (long)p->fs_pid,
		   p->fs_start, (long)p->runner, p->runner_start,
		   p->component, p->data);
	rc = buf_write_file(&text, path, 0644, e);
	buf_release(&text);
	return rc;
}

/* The record in `dir` into `p`: 0, or -1 when there is none readable. */
static int record_read(const char *dir, struct placement *p)
{
	char path[PATH_MAX + 16];
	struct buf text = BUF_INIT;
	long fs, runner;
	int used = 0, rc = -1;

	memset(p, 0, sizeof(*p));
	snprintf(p->dir, sizeof(p->dir), "%s", dir);
	snprintf(path, sizeof(path), "%s/record", dir);
	if (buf_read_file(&text, path, NULL))
		goto out;
	if (sscanf(buf_str(&text), "%ld %lld %ld %lld %127s %n", &fs,
		   &p->fs_start, &runner, &p->runner_start, p->component,
		   &used) != 5 || !used)
		goto out;
	snprintf(p->data, sizeof(p->data), "%.*s",
		 (int)strcspn(buf_str(&text) + used, "\n"),
		 buf_str(&text) + used);
	snprintf(p->backing, sizeof(p->backing), "%s" BACKING_SUFFIX,
		 p->data);
	p->fs_pid = (pid_t)fs;
	p->runner = (pid_t)runner;
	rc = p->data[0] ? 0 : -1;
out:
	buf_release(&text);
	return rc;
}

/* This run's placement of `comp`: 1 with `p`, 0 when it has none. */
static int ours(const struct component *comp, struct placement *p)
{
	char dir[PATH_MAX];

	placement_dir(comp, dir, sizeof(dir));
	return !record_read(dir, p) && p->runner == getpid();
}

static int mounted(const char *path)
{
	struct buf mounts = BUF_INIT;
	char needle[PATH_MAX + 4];
	int found;

	if (buf_read_file(&mounts, "/proc/mounts", NULL))
		return 0;
	snprintf(needle, sizeof(needle), " %s ", path);
	found = strstr(buf_str(&mounts), needle) != NULL;
	buf_release(&mounts);
	return found;
}

/*
 * The file system of `p` unmounted (SIGTERM: a clean unmount, what is
 * unsynced written) and the data directory moved back; its record gone.
 */
static int unmount_and_restore(struct placement *p, struct err *e)
{
	char path[PATH_MAX + 16];

	if (p->fs_pid > 0 && proc_start_time(p->fs_pid) == p->fs_start) {
		kill(p->fs_pid, SIGTERM);
		if (proc_wait_gone(p->fs_pid, MOUNT_TIMEOUT_NS, NULL)) {
			log_warn("%s: tichaos-diskfs (pid %ld) did not unmount "
				 "within %llds; killing it: what it held "
				 "unsynced is lost", p->component,
				 (long)p->fs_pid,
				 (long long)(MOUNT_TIMEOUT_NS / NS_PER_SEC));
			kill(p->fs_pid, SIGKILL);
			proc_wait_gone(p->fs_pid, MOUNT_TIMEOUT_NS, NULL);
		}
	}
	/* A file system killed, or gone before: the mount is left. */
	if (mounted(p->data) && umount2(p->data, MNT_DETACH))
		return err_errno(e, errno, "cannot unmount '%s'", p->data);
	if (rmdir(p->data) && errno != ENOENT)
		return err_errno(e, errno, "cannot remove '%s'", p->data);
	if (rename(p->backing, p->data))
		return err_errno(e, errno, "cannot move '%s' back to '%s'",
				 p->backing, p->data);
	snprintf(path, sizeof(path), "%s/record", p->dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/report", p->dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/diskfs.log", p->dir);
	unlink(path);
	rmdir(p->dir);
	return 0;
}

static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	if (fault_check(s, it, e))
		return -1;
	if (fault_opts_of(it)->down <= 0)
		return fault_error_at(e, s, it, NULL, "fault 'disk_lose' needs "
				      "a 'down' above 0s: the heal starts "
				      "the components again");
	return 0;
}

/* Each target: a data directory, a start command, this machine; FUSE. */
static int resolve(struct cluster *c, const struct suite *s,
		   const struct suite_item *it, struct err *e)
{
	const struct disk_opts *o = it->opts;
	struct component *comps[FAULT_MAX_TARGETS];
	size_t n = fault_targets(c, o->t.target, 0, comps);

	if (access("/dev/fuse", R_OK | W_OK))
		return fault_error_at(e, s, it, &o->t.target, "fault "
				      "'disk_lose': this machine has no "
				      "/dev/fuse to mount tichaos-diskfs "
				      "with");
	for (size_t i = 0; i < n; i++) {
		const struct host *h = component_host(c, comps[i]);

		if (h != &host_local)
			return fault_error_at(e, s, it, &o->t.target,
					      "fault 'disk_lose': %s runs on "
					      "host %s, and tichaos-diskfs is "
					      "mounted on this machine",
					      comps[i]->name, h->name);
		if (!comps[i]->data_dir || !comps[i]->start)
			return fault_error_at(e, s, it, &o->t.target,
					      "fault 'disk_lose': %s needs a "
					      "data_dir and a start command in "
					      "the topology",
					      comps[i]->name);
	}
	return 0;
}

/* Put the data directory of `comp` on tichaos-diskfs (see the top). */
static int place(struct cluster *c, struct component *comp, struct err *e)
{
	struct placement p;
	char log_path[PATH_MAX + 16];
	struct buf program = BUF_INIT;
	char report[PATH_MAX + 16];
	struct proc fs = PROC_INIT;
	const char *argv[5];
	struct buf log = BUF_INIT;
	struct stat st;
	int64_t until;
	int running = component_state(c, comp) == STATE_RUNNING;

	memset(&p, 0, sizeof(p));
	placement_dir(comp, p.dir, sizeof(p.dir));
	snprintf(p.data, sizeof(p.data), "%s", comp->data_dir);
	snprintf(p.backing, sizeof(p.backing), "%s" BACKING_SUFFIX, p.data);
	snprintf(p.component, sizeof(p.component), "%s", comp->name);
	snprintf(log_path, sizeof(log_path), "%s/diskfs.log", p.dir);
	snprintf(report, sizeof(report), "%s/report", p.dir);
	if ((mkdir("/run/tichaos", 0755) && errno != EEXIST) ||
	    (mkdir(DISK_DIR, 0755) && errno != EEXIST) ||
	    (mkdir(p.dir, 0755) && errno != EEXIST))
		return err_errno(e, errno, "cannot create '%s'", p.dir);
	if (stat(p.data, &st))
		return err_errno(e, errno, "%s: no data directory '%s'",
				 comp->name, p.data);
	if (running && component_stop(c, comp, e))
		return -1;
	if (rename(p.data, p.backing))
		return err_errno(e, errno, "cannot move '%s' aside",
				 p.data);
	if (mkdir(p.data, st.st_mode & 07777)) {
		err_errno(e, errno, "cannot create '%s'", p.data);
		rename(p.backing, p.data);
		return -1;
	}
	diskfs_program(&program);
	argv[0] = buf_str(&program);
	argv[1] = p.backing;
	argv[2] = p.data;
	argv[3] = report;
	argv[4] = NULL;
	fs.argv = argv;
	fs.err = log_path;
	fs.out = log_path;
	fs.new_session = 1;
	if (proc_start(&fs, e)) {
		buf_release(&program);
		rmdir(p.data);
		rename(p.backing, p.data);
		return -1;
	}
	buf_release(&program);
	p.fs_pid = fs.pid;
	p.fs_start = proc_start_time(fs.pid);
	p.runner = getpid();
	p.runner_start = proc_start_time(getpid());
	/* Recorded before anything waits: a run killed now leaves it. */
	if (record_write(&p, e))
		goto undo;
	for (until = clock_mono_ns() + MOUNT_TIMEOUT_NS;;) {
		buf_reset(&log);
		if (!buf_read_file(&log, log_path, NULL) &&
		    strstr(buf_str(&log), "mounted ") && mounted(p.data))
			break;
		if (!proc_alive(fs.pid) || clock_mono_ns() > until) {
			buf_rtrim(&log);
			err_set(e, ERR_INFRA, "%s: tichaos-diskfs did not mount "
				"'%s': %s", comp->name, p.data,
				log.len ? buf_str(&log) : "no word from it");
			goto undo;
		}
		clock_sleep_ns(20 * NS_PER_MS);
	}
	buf_release(&log);
	log_info("%s: its data directory on tichaos-diskfs (pid %ld), what "
		 "it does not sync lost in a disk_lose", comp->name,
		 (long)fs.pid);
	return running ? component_start(c, comp, e) : 0;
undo:
	buf_release(&log);
	unmount_and_restore(&p, NULL);
	return -1;
}

static int prepare(struct cluster *c, const struct suite *s,
		   const struct suite_item *it, struct err *e)
{
	const struct disk_opts *o = it->opts;
	struct component *comps[FAULT_MAX_TARGETS];
	size_t n = fault_targets(c, o->t.target, 0, comps);
	struct placement p;

	(void)s;
	for (size_t i = 0; i < n; i++)
		if (!ours(comps[i], &p) && place(c, comps[i], e))
			return -1;
	return 0;
}

static int finish(struct cluster *c, const struct suite_item *it,
		  struct err *e)
{
	const struct disk_opts *o = it->opts;
	struct component *comps[FAULT_MAX_TARGETS];
	size_t n = fault_targets(c, o->t.target, 0, comps);
	struct placement p;
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		int running;

		if (!ours(comps[i], &p))
			continue;
		running = component_state(c, comps[i]) == STATE_RUNNING;
		if ((running && component_stop(c, comps[i], e)) ||
		    unmount_and_restore(&p, e) ||
		    (running && component_start(c, comps[i], e)))
			rc = -1;
	}
	return rc;
}

/*
 * SIGUSR1 to the file system of `p`, its report read back into `value`:
 * {"component","files","bytes","lost":[{"path","bytes"}...]}.
 */
static int lose(const struct placement *p, struct buf *value, struct err *e)
{
	char report[PATH_MAX + 16];
	struct buf text = BUF_INIT;
	unsigned long long files = 0, bytes = 0;
	const char *at;
	int64_t until = clock_mono_ns() + REPORT_TIMEOUT_NS;
	size_t named = 0;
	int rc = -1;

	snprintf(report, sizeof(report), "%s/report", p->dir);
	if (truncate(report, 0) && errno != ENOENT)
		return err_errno(e, errno, "cannot empty '%s'", report);
	if (proc_start_time(p->fs_pid) != p->fs_start ||
	    kill(p->fs_pid, SIGUSR1))
		return err_set(e, ERR_INFRA, "%s: its tichaos-diskfs (pid %ld) "
			       "is gone", p->component, (long)p->fs_pid);
	for (;;) {
		buf_reset(&text);
		if (!buf_read_file(&text, report, NULL) &&
		    (at = strstr(buf_str(&text), "lost-done ")) &&
		    sscanf(at, "lost-done %llu %llu", &files, &bytes) == 2)
			break;
		if (clock_mono_ns() > until) {
			err_set(e, ERR_INFRA, "%s: tichaos-diskfs did not "
				"report its loss within %llds", p->component,
				(long long)(REPORT_TIMEOUT_NS / NS_PER_SEC));
			goto out;
		}
		clock_sleep_ns(10 * NS_PER_MS);
	}
	buf_printf(value, NULL, "{\"component\":\"%s\",\"files\":%llu,"
		   "\"bytes\":%llu,\"lost\":[", p->component, files, bytes);
	for (at = buf_str(&text); !strncmp(at, "lost ", 5) &&
	     named < MAX_NAMED; named++) {
		unsigned long long n;
		char path[PATH_MAX];
		int used = 0;

		if (sscanf(at, "lost %llu %n", &n, &used) != 1 || !used)
			break;
		snprintf(path, sizeof(path), "%.*s",
			 (int)strcspn(at + used, "\n"), at + used);
		buf_printf(value, NULL, "%s{\"path\":", named ? "," : "");
		json_quote(value, path, NULL);
		buf_printf(value, NULL, ",\"bytes\":%llu}", n);
		at = strchr(at, '\n');
		if (!at)
			break;
		at++;
	}
	buf_addstr(value, "]}", NULL);
	rc = 0;
out:
	buf_release(&text);
	return rc;
}

static int inject(struct fault_ctx *ctx, const struct suite_item *it,
		  const struct plan_event *ev, struct fault_action *act,
		  struct buf *value, struct err *e)
{
	const struct disk_opts *o = it->opts;
	int rc;

	if (fault_pick(ctx, o->t.target, o->t.pick, ev->choice, act, e))
		return -1;
	/* Killed first: nothing it writes after the loss survives it. */
	rc = fault_signal_targets(ctx, act, SIGKILL, "killed", value, e);
	buf_addstr(value, ",\"dropped\":[", NULL);
	for (size_t i = 0; i < act->ntargets && !rc; i++) {
		struct placement p;

		if (i)
			buf_addch(value, ',', NULL);
		if (!ours(act->targets[i], &p))
			rc = err_set(e, ERR_INFRA, "%s: its data directory is "
				     "not on tichaos-diskfs",
				     act->targets[i]->name);
		else
			rc = lose(&p, value, e);
	}
	buf_addch(value, ']', NULL);
	return rc;
}

static int heal(struct fault_ctx *ctx, struct fault_action *act,
		struct buf *value, struct err *e)
{
	return fault_restart_targets(ctx, act, value, e);
}

/*
 * A run killed while a data directory was on tichaos-diskfs left it
 * there: each recorded placement whose runner is gone undone — its
 * component stopped (when `c` has it), the file system unmounted, the
 * directory moved back — and said.
 */
static int sweep(struct cluster *c, struct err *e)
{
	DIR *dir = opendir(DISK_DIR);
	struct dirent *d;

	if (!dir)
		return errno == ENOENT ? 0 :
		       err_errno(e, errno, "cannot read '%s'", DISK_DIR);
	while ((d = readdir(dir))) {
		char path[PATH_MAX];
		struct placement p;
		struct component *comp;
		struct err why = ERR_INIT;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), DISK_DIR "/%s", d->d_name);
		if (record_read(path, &p) ||
		    proc_start_time(p.runner) == p.runner_start)
			continue;
		comp = cluster_find(c, p.component);
		if (comp && comp->data_dir && !strcmp(comp->data_dir, p.data) &&
		    component_state(c, comp) != STATE_STOPPED)
			component_stop(c, comp, &why);
		if (unmount_and_restore(&p, &why))
			log_warn("%s: cannot undo what an earlier run left on "
				 "tichaos-diskfs: %s", p.component, why.msg);
		else
			log_warn("%s: its data directory back from "
				 "tichaos-diskfs, where an earlier run left it "
				 "(its runner, pid %ld, is gone)", p.component,
				 (long)p.runner);
	}
	closedir(dir);
	return 0;
}

/* Its components, named in its value's "killed", are drawn powered off. */
static const struct fault_holds holds = { "powered_off", "powered off",
					  "powered off", "#393b79", 8,
					  "killed", NULL };

const struct fault_type fault_disk_lose = {
	.kind = { "disk_lose", "a power loss of components for `down`: "
		  "SIGKILL, and what their files held unsynced dropped "
		  "(their data directory on tichaos-diskfs for the run)",
		  opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct disk_opts), .check = check,
		  .plan = fault_plan },
	.resolve = resolve,
	.prepare = prepare,
	.finish = finish,
	.inject = inject,
	.heal = heal,
	.heal_name = "restart",
	.target = fault_component_target,
	.holds = &holds,
	.sweep = sweep,
};
