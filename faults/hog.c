/*
 * hog: starve the picked components of `target` of CPU for `down` — a
 * server on a loaded machine, as Chaos Mesh's StressChaos loads one with
 * CPU workers: beside each, busy processes (`workers`, or one for every
 * CPU it may run on), pinned to its CPUs at its priority, killed on heal.
 * They run on this machine, so only its components can be starved.
 *
 * A hog outlives a run killed while it spins. Each is recorded while it
 * runs, in HOG_DIR/<pid> of the state root (lib/proc.h: TICHAOS_STATE_DIR,
 * else /run/tichaos): its start time, and its runner's pid and start
 * time. The next run's sweep kills every recorded hog whose runner is
 * gone, and says so; a live run's hogs are its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clusters/cluster.h"
#include "clusters/host.h"
#include "core/plan.h"
#include "core/suite.h"
#include "faults/fault.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "lib/proc.h"

#define HOG_DIR "hogs"
#define MAX_HOGS 64		/* per component */

struct hog_opts {
	struct fault_target_opts t;
	int64_t workers;	/* 0: one per CPU the component may use */
};

static const struct optspec opts[] = {
	FAULT_COMMON_OPTS,
	FAULT_TARGET_OPTS,
	{ "workers", OPT_INT, "0", 0, NULL, 0, MAX_HOGS,
	  "busy processes beside each component; 0: one for every CPU it "
	  "may run on", OPT_AT(struct hog_opts, workers) },
};

/* The hogs of one injection, per target. */
struct hogs {
	pid_t pid[FAULT_MAX_TARGETS][MAX_HOGS];
	size_t n[FAULT_MAX_TARGETS];
	/* The target's CPU time (utime + stime, ticks) at the injection. */
	long long cpu_at[FAULT_MAX_TARGETS];
};

/*
 * Fields 14 and 15 (utime, stime) of /proc/PID/stat added up, in clock
 * ticks; -1 when the process is gone.
 */
static int cpu_time(pid_t pid, long long *cpu)
{
	char path[64], text[1024], *p;
	long long v[12];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	/* After the name, which may hold spaces and parentheses: the
	 * state (field 3), then numbers. */
	p = strrchr(text, ')');
	if (!p || sscanf(p + 2, "%*c %lld %lld %lld %lld %lld %lld %lld %lld "
			 "%lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3],
			 &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10],
			 &v[11]) != 12)
		return -1;
	*cpu = v[10] + v[11];
	return 0;
}

/*
 * The hog itself, after fork: nothing of the runner's — its signal
 * handlers, its mask, its descriptors (a cluster's lock among them), its
 * process group, which a ^C reaches — then spin on `cpus`.
 */
static void __attribute__((noreturn)) hog(const cpu_set_t *cpus)
{
	volatile unsigned long spin = 0;
	sigset_t none;

	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setpgid(0, 0);
	if (close_range(3, ~0u, 0))
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
	sched_setaffinity(0, sizeof(*cpus), cpus);
	for (;;)
		spin++;
}

/* HOG_DIR/<pid>'s path into `path` (made with `make`). */
static int record_path(pid_t pid, int make, char *path, size_t size,
		       struct err *e)
{
	char dir[PATH_MAX];

	if (proc_state_dir(HOG_DIR, make, dir, sizeof(dir), e))
		return -1;
	snprintf(path, size, "%s/%ld", dir, (long)pid);
	return 0;
}

/* HOG_DIR/<pid>: "<start> <runner pid> <runner start> <component>". */
static int record(pid_t pid, const char *component, struct err *e)
{
	char path[PATH_MAX + 16];
	struct buf text = BUF_INIT;
	int rc;

	if (record_path(pid, 1, path, sizeof(path), e))
		return -1;
	buf_printf(&text, NULL, "%lld %ld %lld %s\n", proc_start_time(pid),
		   (long)getpid(), proc_start_time(getpid()), component);
	rc = buf_write_file(&text, path, 0644, e);
	buf_release(&text);
	return rc;
}

/* Kill hog `pid`, reap it, forget its record. */
static void stop_hog(pid_t pid)
{
	char path[PATH_MAX + 16];

	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (!record_path(pid, 0, path, sizeof(path), NULL))
		unlink(path);
}

/* Start target `i`'s hogs beside process `pid`. */
static int start_hogs(struct hogs *h, size_t i, pid_t pid, int64_t workers,
		      const char *name, struct err *e)
{
	cpu_set_t cpus;
	int want, nice;

	if (sched_getaffinity(pid, sizeof(cpus), &cpus))
		return err_errno(e, errno, "%s: cannot read the CPUs pid %ld "
				 "may run on", name, (long)pid);
	want = workers ? (int)workers : CPU_COUNT(&cpus);
	/* At its priority: a hog neither yields to it nor shoves it. */
	errno = 0;
	nice = getpriority(PRIO_PROCESS, (id_t)pid);

	if (nice == -1 && errno)
		return err_errno(e, errno, "%s: cannot read the priority of "
				 "pid %ld", name, (long)pid);
	for (int k = 0; k < want && k < MAX_HOGS; k++) {
		pid_t child = fork();

		if (child < 0)
			return err_errno(e, errno, "%s: cannot start a hog",
					 name);
		if (!child) {
			setpriority(PRIO_PROCESS, 0, nice);
			hog(&cpus);
		}
		h->pid[i][h->n[i]++] = child;
		if (record(child, name, e))
			return -1;
	}
	return 0;
}

static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	if (fault_check(s, it, e))
		return -1;
	if (fault_opts_of(it)->down <= 0)
		return fault_error_at(e, s, it, NULL, "fault 'hog' needs a "
				      "'down' above 0s");
	return 0;
}

static int inject(struct fault_ctx *ctx, const struct suite_item *it,
		  const struct plan_event *ev, struct fault_action *act,
		  struct buf *value, struct err *e)
{
	const struct hog_opts *o = it->opts;
	struct hogs *h;
	size_t done = 0;

	if (fault_pick(ctx, o->t.target, o->t.pick, ev->choice, act, e))
		return -1;
	h = xcalloc(1, sizeof(*h));
	act->state = h;
	buf_addstr(value, "\"starved\":[", NULL);
	for (size_t i = 0; i < act->ntargets; i++) {
		struct component *c = act->targets[i];
		const struct host *host = component_host(ctx->cluster, c);
		pid_t pid = component_pid(ctx->cluster, c);

		if (host != &host_local) {
			err_set(e, ERR_USAGE, "%s runs on host %s: a hog runs "
				"on this machine", c->name, host->name);
			break;
		}
		if (pid <= 0 || cpu_time(pid, &h->cpu_at[i])) {
			err_set(e, ERR_INFRA, "%s is not running", c->name);
			break;
		}
		if (start_hogs(h, i, pid, o->workers, c->name, e)) {
			done++;
			break;
		}
		buf_printf(value, NULL, "%s{\"component\":\"%s\",\"pid\":%ld,"
			   "\"hogs\":[", i ? "," : "", c->name, (long)pid);
		for (size_t k = 0; k < h->n[i]; k++)
			buf_printf(value, NULL, "%s%ld", k ? "," : "",
				   (long)h->pid[i][k]);
		buf_addstr(value, "]}", NULL);
		done++;
	}
	buf_addch(value, ']', NULL);
	/* Heal the hogs that did start, even when a later target failed. */
	act->ntargets = done;
	return err_isset(e) ? -1 : 0;
}

static int heal(struct fault_ctx *ctx, struct fault_action *act,
		struct buf *value, struct err *e)
{
	struct hogs *h = act->state;
	long tick = sysconf(_SC_CLK_TCK);

	buf_addstr(value, "\"stopped\":[", NULL);
	for (size_t i = 0; i < act->ntargets; i++) {
		struct component *c = act->targets[i];
		pid_t pid = component_pid(ctx->cluster, c);
		long long cpu;

		for (size_t k = 0; k < h->n[i]; k++)
			stop_hog(h->pid[i][k]);
		buf_printf(value, NULL, "%s{\"component\":\"%s\",\"hogs\":%zu",
			   i ? "," : "", c->name, h->n[i]);
		/* What it ran meanwhile, for a reader to see how starved. */
		if (pid > 0 && !cpu_time(pid, &cpu) && tick > 0)
			buf_printf(value, NULL, ",\"cpu_ms\":%lld",
				   (cpu - h->cpu_at[i]) * 1000 / tick);
		buf_addch(value, '}', NULL);
		h->n[i] = 0;
	}
	buf_addch(value, ']', NULL);
	return 0;
}

/*
 * The hogs a run killed while they spun left, whatever its cluster: each
 * recorded one whose runner is gone (its pid not running, or running
 * since another time) is killed, if it still is the hog (its start
 * time), and said.
 */
static int sweep_one(const char *path, void *arg)
{
	const char *base = strrchr(path, '/') + 1;
	struct buf text = BUF_INIT;
	long long start, runner_start;
	char name[128];
	long runner;
	int64_t pid;

	(void)arg;
	if (parse_int64(base, 1, INT32_MAX, &pid, NULL))
		return 0;
	if (buf_read_file(&text, path, NULL) ||
	    sscanf(buf_str(&text), "%lld %ld %lld %127s", &start, &runner,
		   &runner_start, name) != 4) {
		buf_release(&text);
		return 0;
	}
	buf_release(&text);
	if (!proc_runner_gone(runner, runner_start))
		return 0;
	if (proc_start_time((pid_t)pid) == start) {
		log_warn("%s: killing a CPU hog an earlier run left (pid %ld; "
			 "its runner, pid %ld, is gone)", name, (long)pid,
			 runner);
		kill((pid_t)pid, SIGKILL);
	}
	unlink(path);
	return 0;
}

static int sweep(struct cluster *c, struct err *e)
{
	(void)c;
	return proc_state_each(HOG_DIR, sweep_one, NULL, e);
}

/* Its components, named in its value's "starved", are drawn starved. */
static const struct fault_holds holds = { "starved", "CPU-starved",
					  "starved of CPU", "#8c564b", 6,
					  "starved", NULL };

const struct fault_type fault_hog = {
	.kind = { "hog", "starve components of a role of CPU for `down`: "
		  "busy processes beside each, on its CPUs",
		  opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct hog_opts), .check = check,
		  .plan = fault_plan },
	.inject = inject,
	.heal = heal,
	.heal_name = "relieve",
	.target = fault_component_target,
	.forget = free,
	.holds = &holds,
	.sweep = sweep,
};
