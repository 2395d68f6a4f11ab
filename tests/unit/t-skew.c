/*
 * lib/skew.c, lib/skew_code.c, lib/trace.c: the code a skew copies into
 * a process, run here from a copy elsewhere; then live skews of a child
 * process, a C program reading its clock through glibc (the vDSO): its
 * clocks moved and back, a thread it starts while skewed moved too, the
 * process left as it was (the skew's pages unmapped, its vDSO), a second
 * skew refused, a child that exits while skewed, a skew left by a runner
 * that is gone undone by the sweep, a traced process refused.
 *
 * Its records are kept in a state root of its own (TICHAOS_STATE_DIR, a
 * temporary directory), so that no other run's sweep sees them.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/proc.h"
#include "lib/skew.h"
#include "tests/unit/tap.h"
#include "tests/unit/tmpdir.h"

#define HOUR_NS (3600 * NS_PER_SEC)

static int64_t now_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

/* A copy of the code at another address, its variables set. */
struct copy {
	char *page;
	size_t len;
	int (*clock_gettime)(long, struct timespec *);
	int (*gettimeofday)(struct timeval *, void *);
	long (*time)(long *);
};

static void *at(const struct copy *c, const void *sym)
{
	return c->page + ((const char *)sym - __start_tichaos_skew);
}

static void copy_code(struct copy *c, int64_t offset_ns, int64_t rate_ppm)
{
	struct skew_vars *v;

	c->len = (size_t)(__stop_tichaos_skew - __start_tichaos_skew);
	c->page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memcpy(c->page, __start_tichaos_skew, c->len);
	v = at(c, &tichaos_skew_vars);
	v->offset_ns = offset_ns;
	v->rate_ppm = rate_ppm;
	v->t0_ns = now_of(CLOCK_REALTIME);
	mprotect(c->page, 4096, PROT_READ | PROT_EXEC);
	c->clock_gettime = (int (*)(long, struct timespec *))
		at(c, (const void *)tichaos_skew_clock_gettime);
	c->gettimeofday = (int (*)(struct timeval *, void *))
		at(c, (const void *)tichaos_skew_gettimeofday);
	c->time = (long (*)(long *))at(c, (const void *)tichaos_skew_time);
}

static int64_t copy_now(const struct copy *c, long id)
{
	struct timespec ts = { 0, 0 };

	c->clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

/* |x - want| <= tol */
static int near(int64_t x, int64_t want, int64_t tol)
{
	return x >= want - tol && x <= want + tol;
}

static void test_code(void)
{
	struct copy c;
	struct timeval tv;
	struct timespec ts;
	long tloc = 0, t;
	int64_t before, moved, after, mono;

	copy_code(&c, HOUR_NS, 1000000);
	ok(c.len > 0 && c.len <= 4096, "the code fits a page (%zu bytes)",
	   c.len);
	before = now_of(CLOCK_REALTIME);
	moved = copy_now(&c, CLOCK_REALTIME);
	after = now_of(CLOCK_REALTIME);
	ok(moved >= before + HOUR_NS && moved <= after + HOUR_NS,
	   "a copy elsewhere: CLOCK_REALTIME an hour ahead");
	ok(near(copy_now(&c, CLOCK_REALTIME_COARSE),
		now_of(CLOCK_REALTIME) + HOUR_NS, 20 * NS_PER_MS),
	   "CLOCK_REALTIME_COARSE too");
	ok(near(copy_now(&c, CLOCK_TAI), now_of(CLOCK_TAI) + HOUR_NS,
		NS_PER_MS), "CLOCK_TAI too");
	mono = copy_now(&c, CLOCK_MONOTONIC);
	ok(near(mono, now_of(CLOCK_MONOTONIC), NS_PER_MS),
	   "CLOCK_MONOTONIC not moved");
	ok(near(copy_now(&c, CLOCK_BOOTTIME), now_of(CLOCK_BOOTTIME),
		NS_PER_MS), "CLOCK_BOOTTIME not moved");
	is_int(c.gettimeofday(&tv, NULL), 0, "gettimeofday returns 0");
	ok(near((int64_t)tv.tv_sec * NS_PER_SEC + tv.tv_usec * 1000,
		now_of(CLOCK_REALTIME) + HOUR_NS, NS_PER_MS),
	   "gettimeofday an hour ahead");
	t = c.time(&tloc);
	ok(near(t, time(NULL) + 3600, 1) && tloc == t,
	   "time an hour ahead, and stored");
	is_int(c.clock_gettime(12345, &ts), -EINVAL,
	       "a clock that is none: the kernel's -EINVAL");
	munmap(c.page, 4096);

	copy_code(&c, -HOUR_NS, 1000000);
	ok(near(copy_now(&c, CLOCK_REALTIME), now_of(CLOCK_REALTIME) - HOUR_NS,
		NS_PER_MS), "-1h: an hour behind");
	munmap(c.page, 4096);

	copy_code(&c, 0, 2000000);
	before = now_of(CLOCK_REALTIME);
	moved = copy_now(&c, CLOCK_REALTIME);
	clock_sleep_ns(100 * NS_PER_MS);
	after = copy_now(&c, CLOCK_REALTIME) - moved;
	ok(after >= 2 * 100 * NS_PER_MS && after <= 2 * 150 * NS_PER_MS,
	   "rate 2: 100 ms ran as %lld ms", (long long)(after / NS_PER_MS));
	ok(near(moved, before, NS_PER_MS), "offset 0: it starts at now");
	munmap(c.page, 4096);
}

/*
 * The child: answers each command byte on `in` with a line on `out`:
 * r, g, t, m: its CLOCK_REALTIME, gettimeofday, time (ns), MONOTONIC;
 * n: CLOCK_REALTIME read by a thread it starts then.
 */
static void *thread_now(void *arg)
{
	*(int64_t *)arg = now_of(CLOCK_REALTIME);
	return NULL;
}

static void __attribute__((noreturn)) child(int in, int out)
{
	char cmd;

	while (read(in, &cmd, 1) == 1) {
		int64_t v = 0;
		struct timeval tv;
		pthread_t th;

		switch (cmd) {
		case 'r': v = now_of(CLOCK_REALTIME); break;
		case 'm': v = now_of(CLOCK_MONOTONIC); break;
		case 'g':
			gettimeofday(&tv, NULL);
			v = (int64_t)tv.tv_sec * NS_PER_SEC + tv.tv_usec * 1000;
			break;
		case 't': v = (int64_t)time(NULL) * NS_PER_SEC; break;
		case 'n':
			pthread_create(&th, NULL, thread_now, &v);
			pthread_join(th, NULL);
			break;
		}
		if (write(out, &v, sizeof(v)) != sizeof(v))
			break;
	}
	_exit(0);
}

struct kid {
	pid_t pid;
	int to, from;
};

static void start_kid(struct kid *k)
{
	int down[2], up[2];

	if (pipe(down) || pipe(up))
		abort();
	k->pid = fork();
	if (!k->pid) {
		close(down[1]);
		close(up[0]);
		child(down[0], up[1]);
	}
	close(down[0]);
	close(up[1]);
	k->to = down[1];
	k->from = up[0];
}

static int64_t ask(const struct kid *k, char cmd)
{
	int64_t v = 0;

	if (write(k->to, &cmd, 1) != 1 || read(k->from, &v, sizeof(v)) !=
	    sizeof(v))
		return -1;
	return v;
}

static void stop_kid(struct kid *k)
{
	close(k->to);
	close(k->from);
	waitpid(k->pid, NULL, 0);
}

static void read_maps(pid_t pid, struct buf *out)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%ld/maps", (long)pid);
	buf_reset(out);
	buf_read_file(out, path, NULL);
}

/* Whether `maps` (of /proc/PID/maps) has a mapping starting at `addr`. */
static int has_mapping(const struct buf *maps, uint64_t addr)
{
	char start[32];
	const char *p = buf_str(maps);

	snprintf(start, sizeof(start), "%llx-", (unsigned long long)addr);
	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, start, strlen(start)))
			return 1;
	return 0;
}

/* SKEW_DIR/<pid>'s path into `path`. */
static void record_path(pid_t pid, char *path, size_t size)
{
	char dir[PATH_MAX];

	proc_state_dir(SKEW_DIR, 0, dir, sizeof(dir), NULL);
	snprintf(path, size, "%s/%ld", dir, (long)pid);
}

static int record_exists(pid_t pid)
{
	char path[PATH_MAX + 16];
	struct stat st;

	record_path(pid, path, sizeof(path));
	return !stat(path, &st);
}

static int64_t skew_of(const struct skew_reading *r)
{
	return r->theirs_ns - (r->before_ns + r->after_ns) / 2;
}

static void test_live(void)
{
	struct kid k;
	struct skew s, again;
	struct skew_reading r;
	struct buf before = BUF_INIT, after = BUF_INIT;
	uint64_t map;
	struct err e = ERR_INIT;

	start_kid(&k);
	ok(near(ask(&k, 'r'), now_of(CLOCK_REALTIME), NS_PER_SEC),
	   "the child answers with its clock");
	if (!is_int(skew_apply(&s, k.pid, "kid", HOUR_NS, 1, &r, &e), 0,
		    "skew_apply +1h"))
		diag("%s", e.msg);
	map = s.map;
	read_maps(k.pid, &before);
	ok(has_mapping(&before, map), "its maps hold the skew's pages");
	ok(near(skew_of(&r), HOUR_NS, 50 * NS_PER_MS),
	   "its clock read back in it: %lld ms ahead",
	   (long long)(skew_of(&r) / NS_PER_MS));
	ok(r.after_ns - r.before_ns < 50 * NS_PER_MS,
	   "the reading bracketed within 50 ms");
	ok(record_exists(k.pid), "recorded in " SKEW_DIR);
	ok(near(ask(&k, 'r') - now_of(CLOCK_REALTIME), HOUR_NS, NS_PER_SEC),
	   "clock_gettime(CLOCK_REALTIME) through glibc: an hour ahead");
	ok(near(ask(&k, 'g') - now_of(CLOCK_REALTIME), HOUR_NS, NS_PER_SEC),
	   "gettimeofday: an hour ahead");
	ok(near(ask(&k, 't') - now_of(CLOCK_REALTIME), HOUR_NS,
		2 * NS_PER_SEC), "time: an hour ahead");
	ok(near(ask(&k, 'm'), now_of(CLOCK_MONOTONIC), NS_PER_SEC),
	   "CLOCK_MONOTONIC not moved");
	ok(near(ask(&k, 'n') - now_of(CLOCK_REALTIME), HOUR_NS, NS_PER_SEC),
	   "a thread started while skewed: an hour ahead too");
	err_clear(&e);
	is_int(skew_apply(&again, k.pid, "kid", HOUR_NS, 1, &r, &e), -1,
	       "a second skew of it is refused");
	ok(strstr(e.msg, "is not as the kernel made it (its clock moved "
		  "already") != NULL, "saying why: %s", e.msg);
	err_clear(&e);
	is_int(skew_read(&s, &r, &e), 0, "skew_read");
	ok(near(skew_of(&r), HOUR_NS, 50 * NS_PER_MS), "still an hour");

	err_clear(&e);
	if (!is_int(skew_undo(&s, &r, &e), 0, "skew_undo"))
		diag("%s", e.msg);
	ok(near(skew_of(&r), 0, 50 * NS_PER_MS), "read back: %lld ms off",
	   (long long)(skew_of(&r) / NS_PER_MS));
	ok(near(ask(&k, 'r'), now_of(CLOCK_REALTIME), NS_PER_SEC),
	   "its clock is ours again");
	ok(near(ask(&k, 'n'), now_of(CLOCK_REALTIME), NS_PER_SEC),
	   "and a new thread's");
	/* Only the pages: its own allocations (a sanitizer's too) may have
	 * changed the rest meanwhile. */
	read_maps(k.pid, &after);
	ok(!has_mapping(&after, map), "the pages unmapped");
	ok(!record_exists(k.pid), "the record removed");
	err_clear(&e);
	if (!is_int(skew_apply(&s, k.pid, "kid", 0, 2, &r, &e), 0,
		    "its vDSO as the kernel made it: skewed again, rate 2"))
		diag("%s", e.msg);
	{
		struct skew_reading r2;
		int64_t theirs, ours;

		clock_sleep_ns(200 * NS_PER_MS);
		skew_read(&s, &r2, &e);
		theirs = r2.theirs_ns - r.theirs_ns;
		ours = (r2.before_ns + r2.after_ns - r.before_ns -
			r.after_ns) / 2;
		/* Each reading of its clock fell between our before and
		 * after: twice the least and the most our clock can have
		 * run between them bound it, however long a loaded machine
		 * kept either reading waiting (2% beyond, for its rate). */
		ok(theirs > 2 * (r2.before_ns - r.after_ns) * 98 / 100 &&
		   theirs < 2 * (r2.after_ns - r.before_ns) * 102 / 100,
		   "its clock ran twice as fast: %lld ms in %lld (%lld to "
		   "%lld)", (long long)(theirs / NS_PER_MS),
		   (long long)(ours / NS_PER_MS),
		   (long long)((r2.before_ns - r.after_ns) / NS_PER_MS),
		   (long long)((r2.after_ns - r.before_ns) / NS_PER_MS));
	}
	is_int(skew_undo(&s, NULL, &e), 0, "undone");

	/* Gone while skewed. */
	skew_apply(&s, k.pid, "kid", HOUR_NS, 1, &r, &e);
	kill(k.pid, SIGKILL);
	stop_kid(&k);
	err_clear(&e);
	is_int(skew_undo(&s, &r, &e), 1, "a child gone while skewed: 1");
	ok(!record_exists(k.pid), "its record removed");
	buf_release(&before);
	buf_release(&after);
}

/* A skew whose runner is gone (a record saying so): the sweep undoes it. */
static void test_sweep(void)
{
	struct kid k, gone;
	struct skew s;
	struct skew_reading r;
	struct err e = ERR_INIT;
	struct buf text = BUF_INIT;
	char path[PATH_MAX + 16], *p;
	long long start;

	start_kid(&gone);
	start = proc_start_time(gone.pid);
	stop_kid(&gone);
	start_kid(&k);
	skew_apply(&s, k.pid, "kid", HOUR_NS, 1, &r, &e);
	record_path(k.pid, path, sizeof(path));
	buf_read_file(&text, path, NULL);
	/* "<start> <runner> <runner start> ...": the runner, a dead one. */
	p = strchr(buf_str(&text), ' ');
	{
		struct buf edited = BUF_INIT;
		const char *rest = strchr(strchr(p + 1, ' ') + 1, ' ');

		buf_add(&edited, buf_str(&text), (size_t)(p - buf_str(&text)),
			NULL);
		buf_printf(&edited, NULL, " %ld %lld%s", (long)gone.pid, start,
			   rest);
		buf_write_file(&edited, path, 0644, NULL);
		buf_release(&edited);
	}
	ok(near(ask(&k, 'r') - now_of(CLOCK_REALTIME), HOUR_NS, NS_PER_SEC),
	   "a skew whose runner is gone: still an hour ahead");
	is_int(skew_sweep(&e), 0, "skew_sweep");
	ok(near(ask(&k, 'r'), now_of(CLOCK_REALTIME), NS_PER_SEC),
	   "its clock put back by the sweep");
	ok(!record_exists(k.pid), "its record removed");
	err_clear(&e);
	skew_apply(&s, k.pid, "kid", HOUR_NS, 1, &r, &e);
	is_int(skew_sweep(&e), 0, "a sweep beside a live runner");
	ok(near(ask(&k, 'r') - now_of(CLOCK_REALTIME), HOUR_NS, NS_PER_SEC),
	   "leaves its skew alone");
	is_int(skew_undo(&s, NULL, &e), 0, "which it undoes itself");
	stop_kid(&k);
	buf_release(&text);
}

static void test_refused(void)
{
	struct kid k;
	struct err e = ERR_INIT;
	char want[128];

	start_kid(&k);
	ptrace(PTRACE_SEIZE, k.pid, NULL, NULL);
	is_int(skew_allowed(k.pid, &e), -1, "a traced process: refused");
	snprintf(want, sizeof(want), "cannot trace pid %ld (thread %ld): "
		 "Operation not permitted", (long)k.pid, (long)k.pid);
	is_str(e.msg, want, "in one line");
	/* A seized tracee is let go stopped. */
	ptrace(PTRACE_INTERRUPT, k.pid, NULL, NULL);
	waitpid(k.pid, NULL, __WALL);
	ptrace(PTRACE_DETACH, k.pid, NULL, NULL);
	err_clear(&e);
	is_int(skew_allowed(k.pid, &e), 0, "let go: allowed");
	ok(near(ask(&k, 'r'), now_of(CLOCK_REALTIME), NS_PER_SEC),
	   "and it runs on");
	stop_kid(&k);
	err_clear(&e);
	is_int(skew_allowed(k.pid, &e), -1, "a pid that is gone");
	ok(strstr(e.msg, "is gone") != NULL, "%s", e.msg);
}

int main(void)
{
	struct tmpdir t;

	if (tmpdir_create(&t)) {
		diag("cannot create a temporary directory: %s",
		     strerror(errno));
		return 1;
	}
	setenv(PROC_STATE_ENV, t.dir, 1);
	test_code();
	test_live();
	test_sweep();
	test_refused();
	ok(!tmpdir_remove(&t), "its state root removed");
	return done_testing();
}
