/*
 * The disk faults, on tichaos-diskfs (diskfs/main.c), a FUSE file
 * system of tichaos's own that each picked component's data directory
 * is placed on for the whole run:
 *
 *	disk_lose	a power loss: the component killed with SIGKILL and
 *			everything its files received since their last
 *			fsync or fdatasync dropped, as a machine that loses
 *			power drops its page cache; after `down` it starts
 *			again, as a killed one does. A kill -9 alone never
 *			shows this: the page cache survives a process.
 *	disk_error	for `down`, `percent` of its reads, writes and/or
 *			syncs (`ops`) fail with EIO
 *	disk_full	for `down`, every write fails with ENOSPC, and the
 *			file system shows no free space
 *	disk_slow	for `down`, each read, write and/or sync (`ops`)
 *			waits `delay` first
 *
 * The placement, for every disk kind alike: `prepare` stops the
 * component, moves its data directory aside (DATA_DIR + BACKING_SUFFIX:
 * the "disk", holding exactly what was synced), mounts the file system
 * at the data directory's path over it and starts the component again;
 * `finish` stops it, unmounts (which writes back what is unsynced, as a
 * clean shutdown does), moves the directory back and starts it again
 * when it ran before the placement. A run killed meanwhile leaves it
 * placed: each placement is recorded in DISK_DIR of the state root
 * (lib/proc.h), and the next run's
 * sweep (disk_lose's, for every kind) stops the component it finds
 * there, unmounts and moves the directory back.
 *
 * Each mode is set over the file system's control file and SIGUSR2; its
 * heal sets it off and records what it did: every read, write and sync
 * the component made meanwhile, how many failed, how long they waited.
 *
 * The file system holds back file data and sizes, directory entries
 * until their directory is synced, and a file's mode, owner and times
 * until it is (`entries: ordered`: until anything is; diskfs/main.c).
 */
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

#define DISK_DIR "disks"
#define BACKING_SUFFIX ".tichaos-disk"
#define MOUNT_TIMEOUT_NS (10 * NS_PER_SEC)
#define REPORT_TIMEOUT_NS (10 * NS_PER_SEC)
/* Files named in a record, at most; the counts cover them all. */
#define MAX_NAMED 20

/* The options of every disk kind; each binds those it takes. */
struct disk_opts {
	struct fault_target_opts t;
	double percent;		/* disk_error */
	struct optlist ops;	/* disk_error, disk_slow: read, write, fsync */
	int64_t delay;		/* disk_slow */
	int entries;		/* disk_lose: enum entries */
	int cache;		/* enum cache */
};

/* Whether the kernel's page cache stays over the file system
 * (tichaos-diskfs --cache): programs that map their files need it. */
enum cache { CACHE_AUTO, CACHE_ON, CACHE_OFF };
static const char *const cache_names[] = { "auto", "on", "off", NULL };
/* auto: on for these, which map their files (etcd's and PD's bbolt). */
#define CACHE_ROLES (ROLE_ETCD | ROLE_PD | ROLE_KV)

/* disk_lose: when a directory entry becomes durable (diskfs/main.c). */
enum entries { ENTRIES_POSIX, ENTRIES_ORDERED };
static const char *const entries_names[] = { "posix", "ordered", NULL };

static const char *const op_names[] = { "read", "write", "fsync", NULL };

#define DISK_CACHE_OPT                                                       \
	{ "cache", OPT_ENUM, "auto", 0, cache_names, 0, 0,                   \
	  "the kernel's page cache over the data directory: on (what maps "  \
	  "its files needs it: etcd, PD; reads it answers reach no fault), " \
	  "off (each read reaches the disk), auto (on for etcd, pd and kv)", \
	  OPT_AT(struct disk_opts, cache) }

#define DISK_OPS_OPT(what)                                                   \
	{ "ops", OPT_ENUM_LIST, "[read, write, fsync]", 0, op_names, 0, 0,   \
	  "the operations of its data directory's files that " what,         \
	  OPT_AT(struct disk_opts, ops) }

static const struct optspec lose_opts[] = {
	FAULT_COMMON_OPTS,
	FAULT_TARGET_OPTS,
	{ "entries", OPT_ENUM, "posix", 0, entries_names, 0, 0,
	  "which directory entries (creates, renames, unlinks) a loss "
	  "drops: posix (those whose directory was not synced since) or "
	  "ordered (those made after the last sync of anything, as ext4 "
	  "and XFS journal them)", OPT_AT(struct disk_opts, entries) },
	DISK_CACHE_OPT,
};

static const struct optspec error_opts[] = {
	FAULT_COMMON_OPTS,
	FAULT_TARGET_OPTS,
	{ "percent", OPT_FLOAT, NULL, 1, NULL, 0, 0,
	  "the percentage of its operations (`ops`) that fail with EIO, "
	  "above 0 and at most 100", OPT_AT(struct disk_opts, percent) },
	DISK_OPS_OPT("fail"),
	DISK_CACHE_OPT,
};

static const struct optspec full_opts[] = {
	FAULT_COMMON_OPTS,
	FAULT_TARGET_OPTS,
	DISK_CACHE_OPT,
};

static const struct optspec slow_opts[] = {
	FAULT_COMMON_OPTS,
	FAULT_TARGET_OPTS,
	{ "delay", OPT_DURATION, NULL, 1, NULL, 0, 0,
	  "how long each of its operations (`ops`) waits first, above 0",
	  OPT_AT(struct disk_opts, delay) },
	DISK_OPS_OPT("wait"),
	DISK_CACHE_OPT,
};

/* One placement: what its record (DISK_DIR/NAME/record) says. */
struct placement {
	char dir[PATH_MAX];		/* DISK_DIR/NAME, on this machine */
	char data[PATH_MAX];		/* the component's data directory */
	char backing[PATH_MAX + 32];	/* DATA + BACKING_SUFFIX */
	/* DATA + BACKING_SUFFIX ".run", beside it on its host: the file
	 * system's report, control file and log. */
	char run[PATH_MAX + 48];
	pid_t fs_pid;
	long long fs_start;
	pid_t runner;
	long long runner_start;
	int was_running;		/* before the placement */
	char component[128];
	char host_name[128];		/* "local", or the topology's */
	struct host *h;			/* where it is: the component's host */
};

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

/*
 * tichaos-diskfs on host `h`, into `out`: beside this program (the
 * build's diskfs/, or installed next to it) when that path is there
 * too, else on its PATH. -1 (`e`, one line) when `h` has no /dev/fuse
 * or no tichaos-diskfs.
 */
static int fs_program(struct host *h, struct buf *out, struct err *e)
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

/* This run's placement of `comp`: 1 with `p`, 0 when it has none. */
static int ours(struct cluster *c, const struct component *comp,
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

/*
 * The file system of `p` unmounted (SIGTERM: a clean unmount, what is
 * unsynced written) and the data directory moved back; its record gone.
 */
static int unmount_and_restore(struct placement *p, struct err *e)
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

static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	const struct disk_opts *o = it->opts;
	const char *kind = it->type->name;

	if (fault_check(s, it, e))
		return -1;
	if (fault_opts_of(it)->down <= 0)
		return fault_error_at(e, s, it, NULL, "fault '%s' needs a "
				      "'down' above 0s: %s", kind,
				      !strcmp(kind, "disk_lose") ?
				      "the heal starts the components again"
				      : "the heal sets the disk right");
	if (!strcmp(kind, "disk_error") &&
	    !(o->percent > 0 && o->percent <= 100))
		return fault_error_at(e, s, it, &o->percent, "fault "
				      "'disk_error': 'percent' must be above "
				      "0 and at most 100");
	if (!strcmp(kind, "disk_slow") && o->delay <= 0)
		return fault_error_at(e, s, it, &o->delay, "fault "
				      "'disk_slow': 'delay' must be above 0s");
	return 0;
}

/* Each target: a data directory, a start command; FUSE and
 * tichaos-diskfs on its host. */
static int resolve(struct cluster *c, const struct suite *s,
		   const struct suite_item *it, struct err *e)
{
	const struct disk_opts *o = it->opts;
	struct component *comps[FAULT_MAX_TARGETS];
	size_t n = fault_targets(c, o->t.target, 0, comps);
	const char *kind = it->type->name;
	struct buf program = BUF_INIT;
	struct err why = ERR_INIT;
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		if (!comps[i]->data_dir || !comps[i]->start)
			rc = fault_error_at(e, s, it, &o->t.target,
					    "fault '%s': %s needs a data_dir "
					    "and a start command in the "
					    "topology", kind, comps[i]->name);
		else if (fs_program(component_host(c, comps[i]), &program,
				    &why))
			rc = fault_error_at(e, s, it, &o->t.target,
					    "fault '%s': %s: %s", kind,
					    comps[i]->name, why.msg);
	}
	buf_release(&program);
	return rc;
}

static int control(const struct placement *p, const char *line,
		   struct buf *text, struct err *e);

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

/*
 * Put the data directory of `comp` on tichaos-diskfs (see the top); the
 * control line `first` (MAY be NULL) set before the component starts.
 */
static int place(struct cluster *c, struct component *comp,
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
	if (fs_program(p.h, &program, e))
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
	if (first && control(&p, first, &log, e))
		goto undo;
	buf_release(&program);
	buf_release(&cmd);
	buf_release(&log);
	return running ? component_start(c, comp, e) : 0;
undo:
	unmount_and_restore(&p, NULL);
fail:
	buf_release(&program);
	buf_release(&cmd);
	buf_release(&log);
	return -1;
}

static int prepare(struct cluster *c, const struct suite *s,
		   const struct suite_item *it, struct err *e)
{
	const struct disk_opts *o = it->opts;
	struct component *comps[FAULT_MAX_TARGETS];
	size_t n = fault_targets(c, o->t.target, 0, comps);
	struct placement p;
	struct buf text = BUF_INIT;
	const char *entries = !strcmp(it->type->name, "disk_lose") &&
			      o->entries == ENTRIES_ORDERED ?
			      "entries ordered" : NULL;
	int rc = 0;

	(void)s;
	for (size_t i = 0; i < n && !rc; i++) {
		int cache = o->cache == CACHE_ON ||
			    (o->cache == CACHE_AUTO &&
			     (comps[i]->roles & CACHE_ROLES));

		if (!ours(c, comps[i], &p) ? place(c, comps[i], entries, cache, e)
		    : entries && control(&p, entries, &text, e))
			rc = -1;
	}
	buf_release(&text);
	return rc;
}

static int finish(struct cluster *c, const struct suite_item *it,
		  struct err *e)
{
	const struct disk_opts *o = it->opts;
	struct component *comps[FAULT_MAX_TARGETS];
	size_t n = fault_targets(c, o->t.target, 0, comps);
	struct placement p;
	int rc = 0;

	/* Stopped whatever its state says (a run interrupted while it
	 * started, or while a heal started it, has it starting): nothing
	 * may have its files open when the file system goes. Started again
	 * when it ran before the placement. */
	for (size_t i = 0; i < n; i++) {
		if (!ours(c, comps[i], &p))
			continue;
		if ((component_state(c, comps[i]) != STATE_STOPPED &&
		     component_stop(c, comps[i], e)) ||
		    unmount_and_restore(&p, e) ||
		    (p.was_running && component_start(c, comps[i], e)))
			rc = -1;
	}
	return rc;
}

/* The line of the report `text` that begins with `prefix`, or NULL. */
static const char *report_line(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);

	for (const char *at = text; at && *at; at = strchr(at, '\n'),
	     at = at ? at + 1 : NULL)
		if (!strncmp(at, prefix, n))
			return at;
	return NULL;
}

/*
 * Signal `sig` to the file system of `p` and wait for its answer: a line
 * of what its report gained since, beginning with one of the
 * NULL-terminated `ends`. What it gained in `text`; the index of the end
 * seen, or -1 (`e`) when the file system is gone or did not answer
 * within REPORT_TIMEOUT_NS (`what` says what it did not do).
 */
static int ask(const struct placement *p, int sig,
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
				if (report_line(buf_str(text), ends[i]))
					return i;
		if (clock_mono_ns() > until)
			return err_set(e, ERR_INFRA, "%s: tichaos-diskfs did "
				       "not %s within %llds", p->component,
				       what, (long long)(REPORT_TIMEOUT_NS /
							 NS_PER_SEC));
		clock_sleep_ns(5 * NS_PER_MS);
	}
}

/*
 * SIGUSR1 to the file system of `p`, its report read back into `value`:
 * {"component","files","bytes","lost":[{"path","bytes"}...],"entries",
 * "undone":["rename /a /b"...]} (at most MAX_NAMED of each named).
 */
static int lose(const struct placement *p, struct buf *value, struct err *e)
{
	static const char *const done[] = { "lost-done ", NULL };
	struct buf text = BUF_INIT;
	unsigned long long files = 0, bytes = 0, entries = 0;
	const char *at;
	size_t named = 0;
	int rc = -1;

	if (ask(p, SIGUSR1, done, "report its loss", &text, e) < 0)
		goto out;
	if (sscanf(report_line(buf_str(&text), done[0]),
		   "lost-done %llu %llu %llu", &files, &bytes, &entries) != 3) {
		err_set(e, ERR_INFRA, "%s: tichaos-diskfs's report: %s",
			p->component, buf_str(&text));
		goto out;
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
	buf_printf(value, NULL, "],\"entries\":%llu,\"undone\":[", entries);
	named = 0;
	for (at = buf_str(&text); at && *at && named < MAX_NAMED;
	     at = strchr(at, '\n'), at = at ? at + 1 : NULL) {
		char what[PATH_MAX * 2 + 16];

		if (strncmp(at, "lost-entry", 10))
			continue;
		snprintf(what, sizeof(what), "%.*s",
			 (int)strcspn(at + 11, "\n"), at + 11);
		buf_addstr(value, named++ ? "," : "", NULL);
		json_quote(value, what, NULL);
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
		if (!ours(ctx->cluster, act->targets[i], &p))
			rc = err_set(e, ERR_INFRA, "%s: its data directory is "
				     "not on tichaos-diskfs",
				     act->targets[i]->name);
		else
			rc = lose(&p, value, e);
	}
	buf_addch(value, ']', NULL);
	return rc;
}

/*
 * Mode `line` (diskfs/mode.h) to the file system of `p`: written to its
 * control file, SIGUSR2, its answer waited for in its report, which is
 * then in `text`. 0, or -1 when it refused the line or did not answer.
 */
static int control(const struct placement *p, const char *line,
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
	rc = ask(p, SIGUSR2, ends, buf_str(&what), text, e);
	if (rc == 0) {
		refused = report_line(buf_str(text), ends[0]);
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

/* `ops` as written, "read,write". */
static void join_ops(const struct disk_opts *o, struct buf *out)
{
	for (size_t i = 0; i < o->ops.n; i++)
		buf_printf(out, NULL, "%s%s", i ? "," : "", o->ops.v[i]);
}

/* The file system's mode line for an injection of `it` (disk_error,
 * disk_full, disk_slow). */
static void mode_line(const struct suite_item *it, uint64_t choice,
		      struct buf *out)
{
	const struct disk_opts *o = it->opts;
	const char *kind = it->type->name;

	buf_reset(out);
	if (!strcmp(kind, "disk_full")) {
		buf_addstr(out, "full", NULL);
		return;
	}
	if (!strcmp(kind, "disk_error"))
		buf_printf(out, NULL, "error %.17g ", o->percent);
	else
		buf_printf(out, NULL, "slow %lld ", (long long)o->delay);
	join_ops(o, out);
	if (!strcmp(kind, "disk_error"))
		buf_printf(out, NULL, " %llu", (unsigned long long)choice);
}

/*
 * disk_error, disk_full, disk_slow: the mode set on the file system
 * under each picked component; "MEMBER":[{"component","mode",and the
 * details: "percent","ops" or "delay","ops"}...].
 */
static int inject_mode(struct fault_ctx *ctx, const struct suite_item *it,
		       const struct plan_event *ev, struct fault_action *act,
		       struct buf *value, struct err *e)
{
	const struct disk_opts *o = it->opts;
	struct buf line = BUF_INIT, text = BUF_INIT;
	char d[32];
	size_t set = 0;
	int rc = 0;

	if (fault_pick(ctx, o->t.target, o->t.pick, ev->choice, act, e))
		return -1;
	mode_line(it, ev->choice, &line);
	/* The member the kind's holds name (error_holds...). */
	buf_printf(value, NULL, "\"%s\":[", fault_type_of(it)->holds->list);
	for (; set < act->ntargets; set++) {
		struct placement p;

		if (!ours(ctx->cluster, act->targets[set], &p)) {
			rc = err_set(e, ERR_INFRA, "%s: its data directory is "
				     "not on tichaos-diskfs",
				     act->targets[set]->name);
			break;
		}
		if ((rc = control(&p, buf_str(&line), &text, e)))
			break;
		buf_printf(value, NULL, "%s{\"component\":\"%s\",\"mode\":",
			   set ? "," : "", p.component);
		json_quote(value, buf_str(&line), NULL);
		if (!strcmp(it->type->name, "disk_error"))
			buf_printf(value, NULL, ",\"percent\":%.17g",
				   o->percent);
		else if (!strcmp(it->type->name, "disk_slow"))
			buf_printf(value, NULL, ",\"delay\":\"%s\"",
				   format_duration(o->delay, d, sizeof(d)));
		if (o->ops.n) {
			buf_addstr(value, ",\"ops\":\"", NULL);
			join_ops(o, value);
			buf_addch(value, '"', NULL);
		}
		buf_addch(value, '}', NULL);
	}
	buf_addch(value, ']', NULL);
	/* Those set before one failed are set right at once. */
	act->ntargets = set;
	buf_release(&line);
	buf_release(&text);
	return rc;
}

/*
 * The mode set off under each target; what it did, from the report's
 * "ops" line: "modes":[{"component","read":{"ops","failed","waited_ns"},
 * "write":{...},"fsync":{...}}...], and said. A mode that touched no
 * operation is said as a warning: the fault did nothing.
 */
static int heal_mode(struct fault_ctx *ctx, struct fault_action *act,
		     struct buf *value, struct err *e)
{
	static const char *const names[] = { "read", "write", "fsync" };
	struct buf text = BUF_INIT;
	int rc = 0;

	buf_addstr(value, "\"modes\":[", NULL);
	for (size_t i = 0; i < act->ntargets; i++) {
		unsigned long long ops[3], failed[3];
		long long waited[3];
		const char *at;
		struct placement p;
		int affected = 0;

		if (!ours(ctx->cluster, act->targets[i], &p)) {
			rc = err_set(e, ERR_INFRA, "%s: its data directory is "
				     "no more on tichaos-diskfs",
				     act->targets[i]->name);
			continue;
		}
		if (control(&p, "off", &text, rc ? NULL : e)) {
			rc = -1;
			continue;
		}
		at = report_line(buf_str(&text), "ops ");
		if (!at || sscanf(at, "ops read %llu %llu %lld write %llu %llu "
				  "%lld fsync %llu %llu %lld", &ops[0],
				  &failed[0], &waited[0], &ops[1], &failed[1],
				  &waited[1], &ops[2], &failed[2],
				  &waited[2]) != 9) {
			if (!rc)
				rc = err_set(e, ERR_INFRA, "%s: tichaos-diskfs "
					     "said no counts: %s",
					     p.component, buf_str(&text));
			continue;
		}
		buf_printf(value, NULL, "%s{\"component\":\"%s\"",
			   i ? "," : "", p.component);
		for (int k = 0; k < 3; k++) {
			buf_printf(value, NULL, ",\"%s\":{\"ops\":%llu,"
				   "\"failed\":%llu,\"waited_ns\":%lld}",
				   names[k], ops[k], failed[k], waited[k]);
			affected += failed[k] > 0 || waited[k] > 0;
		}
		buf_addch(value, '}', NULL);
		log_info("%s: its disk set right: %llu reads, %llu writes, "
			 "%llu syncs; %llu, %llu, %llu failed; waited %.3fs",
			 p.component, ops[0], ops[1], ops[2], failed[0],
			 failed[1], failed[2],
			 (double)(waited[0] + waited[1] + waited[2]) /
			 NS_PER_SEC);
		if (!affected)
			log_warn("%s: no operation of its disk failed or "
				 "waited while the fault held", p.component);
	}
	buf_addch(value, ']', NULL);
	buf_release(&text);
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
	    unmount_and_restore(&p, &why))
		log_warn("%s: cannot undo what an earlier run left on "
			 "tichaos-diskfs: %s", p.component, why.msg);
	else
		log_warn("%s: its data directory back from tichaos-diskfs, "
			 "where an earlier run left it (its runner, pid %ld, "
			 "is gone)", p.component, (long)p.runner);
	return 0;
}

static int sweep(struct cluster *c, struct err *e)
{
	return proc_state_each(DISK_DIR, sweep_one, c, e);
}

/* Its components, named in its value's "killed", are drawn powered off. */
static const struct fault_holds lose_holds = { "powered_off", "powered off",
					       "powered off", "#393b79", 8,
					       "killed", NULL };

static const struct fault_detail error_details[] = {
	{ "percent", "failing", "%", NULL },
	{ "ops", "of", "", NULL },
	{ NULL, NULL, NULL, NULL },
};

static const struct fault_detail slow_details[] = {
	{ "delay", "delay", "", NULL },
	{ "ops", "of", "", NULL },
	{ NULL, NULL, NULL, NULL },
};

static const struct fault_holds error_holds = { "disk_failing",
						"disk failing",
						"had its disk failing",
						"#843c39", 9, "failing",
						error_details };
static const struct fault_holds full_holds = { "disk_full", "disk full",
					       "had its disk full", "#7b4173",
					       10, "full", NULL };
static const struct fault_holds slow_holds = { "disk_slow", "disk slow",
					       "had its disk slowed",
					       "#8ca252", 11, "slowed",
					       slow_details };

#define DISK_KIND(name_, doc_, opts_)                                        \
	{ name_, doc_, opts_, sizeof(opts_) / sizeof(opts_[0]),              \
	  sizeof(struct disk_opts), .check = check, .plan = fault_plan }

/* disk_error, disk_full, disk_slow: a mode of the file system each. */
#define DISK_MODE_TYPE(name_, doc_, opts_, holds_)                           \
	{ .kind = DISK_KIND(name_, doc_, opts_), .resolve = resolve,          \
	  .prepare = prepare, .finish = finish, .inject = inject_mode,       \
	  .heal = heal_mode, .heal_name = "repair",                          \
	  .target = fault_component_target, .holds = holds_ }

const struct fault_type fault_disk_error = DISK_MODE_TYPE(
	"disk_error", "for `down`, a percentage of the reads, writes or syncs "
	"of components' data directories fail with EIO (on tichaos-diskfs for "
	"the run)", error_opts, &error_holds);

const struct fault_type fault_disk_full = DISK_MODE_TYPE(
	"disk_full", "for `down`, every write to components' data directories "
	"fails with ENOSPC (on tichaos-diskfs for the run)", full_opts,
	&full_holds);

const struct fault_type fault_disk_slow = DISK_MODE_TYPE(
	"disk_slow", "for `down`, each read, write or sync of components' data "
	"directories waits `delay` (on tichaos-diskfs for the run)", slow_opts,
	&slow_holds);

/* Its sweep undoes every disk kind's placement. */
const struct fault_type fault_disk_lose = {
	.kind = DISK_KIND("disk_lose", "a power loss of components for "
			  "`down`: SIGKILL, and what their files held "
			  "unsynced dropped (their data directory on "
			  "tichaos-diskfs for the run)", lose_opts),
	.resolve = resolve,
	.prepare = prepare,
	.finish = finish,
	.inject = inject,
	.heal = fault_restart_targets,
	.heal_name = "restart",
	.target = fault_component_target,
	.holds = &lose_holds,
	.sweep = sweep,
};
