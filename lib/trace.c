/*
 * ptrace(2) of a whole process (lib/trace.h). The stops, as ptrace(2)
 * names them: after PTRACE_SEIZE and PTRACE_INTERRUPT a thread reports a
 * PTRACE_EVENT_STOP (status >> 16), or first a signal-delivery-stop for a
 * signal it was about to take, which is kept to be raised again when it
 * is let go. A step or a call ends in a signal-delivery-stop of SIGTRAP.
 *
 * Registers of a thread stopped inside a system call hold -ERESTARTSYS
 * (or the like) and orig_rax the call's number: the kernel restarts the
 * call when the thread goes on with them. The registers of what we run
 * there say orig_rax -1, so nothing restarts in between; the thread's own
 * are put back afterwards, and its call restarts as it would have.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "clock.h"
#include "trace.h"

#if defined(__x86_64__)
#include <sys/user.h>
#endif

/* How long a thread may take to stop, or to come back from a call. */
#define STOP_TIMEOUT_NS (5 * NS_PER_SEC)
/* Steps out of a range, at most: code there runs straight through. */
#define MAX_STEPS 100000

static int64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

/*
 * Wait for `tid` to stop: 0 with *status, 1 when it exited, -1 when it
 * did not stop in time. A tracee that is not our child is waited for
 * with __WALL all the same; polled, so that a thread that never stops
 * cannot hold us.
 */
static int wait_stop(pid_t tid, int *status, struct err *e)
{
	int64_t end = clock_mono_ns() + STOP_TIMEOUT_NS;
	struct timespec pause = { 0, 20000 };

	for (;;) {
		pid_t got = waitpid(tid, status, __WALL | WNOHANG);

		if (got == tid)
			return WIFSTOPPED(*status) ? 0 : 1;
		if (got < 0 && errno != EINTR)
			return errno == ECHILD ? 1 :
			       err_errno(e, errno, "cannot wait for thread %ld",
					 (long)tid);
		if (clock_mono_ns() > end)
			return err_set(e, ERR_INFRA, "thread %ld did not stop "
				       "within %llds", (long)tid,
				       (long long)(STOP_TIMEOUT_NS / NS_PER_SEC));
		nanosleep(&pause, NULL);
	}
}

static struct trace_thread *find(struct trace *t, pid_t tid)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->threads[i].tid == tid)
			return &t->threads[i];
	return NULL;
}

/* A zombie thread (a leader that called pthread_exit) never stops. */
static int is_zombie(pid_t pid, pid_t tid)
{
	char path[64], text[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/stat", (long)pid,
		 (long)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	text[n] = '\0';
	p = strrchr(text, ')');
	return !p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X';
}

/*
 * Seize thread `tid` and hold it in a PTRACE_EVENT_STOP, its signals
 * blocked. 0 when held or gone before it could be (not added), -1.
 */
static int seize(struct trace *t, pid_t tid, struct err *e)
{
	struct trace_thread *th;
	uint64_t all = ~0ULL;
	int status, rc;

	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL)) {
		if (errno == ESRCH)
			return 0;
		return err_errno(e, errno, "cannot trace pid %ld (thread %ld)",
				 (long)t->pid, (long)tid);
	}
	if (t->n == t->alloc) {
		t->alloc = t->alloc ? 2 * t->alloc : 16;
		t->threads = xrealloc(t->threads,
				      t->alloc * sizeof(*t->threads));
	}
	th = &t->threads[t->n++];
	memset(th, 0, sizeof(*th));
	th->tid = tid;
	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL))
		goto gone;
	for (;;) {
		rc = wait_stop(tid, &status, e);
		if (rc < 0)
			return -1;
		if (rc > 0)
			goto gone;
		if (!th->masked) {
			if (ptrace(PTRACE_GETSIGMASK, tid,
				   (void *)sizeof(th->mask), &th->mask) ||
			    ptrace(PTRACE_SETSIGMASK, tid,
				   (void *)sizeof(all), &all))
				return err_errno(e, errno, "cannot block the "
						 "signals of thread %ld",
						 (long)tid);
			th->masked = 1;
		}
		if (status >> 16 == PTRACE_EVENT_STOP)
			return 0;
		/* A signal-delivery-stop: kept; the interrupt comes next. */
		th->sig = WSTOPSIG(status);
		if (ptrace(PTRACE_CONT, tid, NULL, NULL))
			goto gone;
	}
gone:
	t->n--;
	return 0;
}

/* Seize the threads of /proc/PID/task not held yet; *added: how many. */
static int seize_new(struct trace *t, size_t *added, struct err *e)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int rc = 0;

	*added = 0;
	snprintf(path, sizeof(path), "/proc/%ld/task", (long)t->pid);
	dir = opendir(path);
	if (!dir)
		return err_set(e, ERR_INFRA, "pid %ld is gone", (long)t->pid);
	while (!rc && (d = readdir(dir))) {
		long tid = strtol(d->d_name, NULL, 10);
		size_t before = t->n;

		if (tid <= 0 || find(t, (pid_t)tid) ||
		    is_zombie(t->pid, (pid_t)tid))
			continue;
		rc = seize(t, (pid_t)tid, e);
		*added += t->n - before;
	}
	closedir(dir);
	return rc;
}

int trace_attach(struct trace *t, pid_t pid, struct err *e)
{
	char path[64];
	size_t added;

#if !defined(__x86_64__)
	return err_set(e, ERR_USAGE, "cannot trace pid %ld: tichaos changes "
		       "a live process on x86-64 only", (long)pid);
#endif
	t->pid = pid;
	t->n = 0;
	snprintf(path, sizeof(path), "/proc/%ld/mem", (long)pid);
	do {
		if (seize_new(t, &added, e))
			goto fail;
	} while (added);
	if (!t->n) {
		err_set(e, ERR_INFRA, "pid %ld is gone", (long)pid);
		goto fail;
	}
	t->mem = open(path, O_RDWR | O_CLOEXEC);
	if (t->mem < 0) {
		err_errno(e, errno, "cannot open '%s'", path);
		goto fail;
	}
	return 0;
fail:
	trace_detach(t);
	return -1;
}

void trace_detach(struct trace *t)
{
	for (size_t i = 0; i < t->n; i++) {
		struct trace_thread *th = &t->threads[i];

		if (th->masked)
			ptrace(PTRACE_SETSIGMASK, th->tid,
			       (void *)sizeof(th->mask), &th->mask);
		/* Pending until it goes on, then taken as it would have. */
		if (th->sig)
			syscall(SYS_tgkill, t->pid, th->tid, th->sig);
		ptrace(PTRACE_DETACH, th->tid, NULL, NULL);
	}
	if (t->mem >= 0)
		close(t->mem);
	free(t->threads);
	t->threads = NULL;
	t->n = t->alloc = 0;
	t->mem = -1;
}

int trace_read(const struct trace *t, uint64_t addr, void *buf, size_t len,
	       struct err *e)
{
	ssize_t n = pread(t->mem, buf, len, (off_t)addr);

	if (n == (ssize_t)len)
		return 0;
	return err_errno(e, n < 0 ? errno : EIO, "cannot read %zu bytes at "
			 "0x%llx of pid %ld", len, (unsigned long long)addr,
			 (long)t->pid);
}

int trace_write(const struct trace *t, uint64_t addr, const void *buf,
		size_t len, struct err *e)
{
	ssize_t n = pwrite(t->mem, buf, len, (off_t)addr);

	if (n == (ssize_t)len)
		return 0;
	return err_errno(e, n < 0 ? errno : EIO, "cannot write %zu bytes at "
			 "0x%llx of pid %ld", len, (unsigned long long)addr,
			 (long)t->pid);
}

#if defined(__x86_64__)

static int get_regs(pid_t tid, struct user_regs_struct *r, struct err *e)
{
	if (ptrace(PTRACE_GETREGS, tid, NULL, r))
		return err_errno(e, errno, "cannot read the registers of "
				 "thread %ld", (long)tid);
	return 0;
}

static int set_regs(pid_t tid, const struct user_regs_struct *r,
		    struct err *e)
{
	if (ptrace(PTRACE_SETREGS, tid, NULL, r))
		return err_errno(e, errno, "cannot set the registers of "
				 "thread %ld", (long)tid);
	return 0;
}

static void set_args(struct user_regs_struct *r, const long *args)
{
	r->rdi = (unsigned long long)args[0];
	r->rsi = (unsigned long long)args[1];
	r->rdx = (unsigned long long)args[2];
	r->r10 = (unsigned long long)args[3];	/* a system call's 4th */
	r->rcx = (unsigned long long)args[3];	/* a function's */
	r->r8 = (unsigned long long)args[4];
	r->r9 = (unsigned long long)args[5];
	r->orig_rax = (unsigned long long)-1;
}

/*
 * Resume `tid` (PTRACE_SINGLESTEP or PTRACE_CONT) and wait for it to stop
 * on SIGTRAP, its registers then in *r. Any other end is an error
 * naming what happened at `what`.
 */
static int run_to_trap(pid_t tid, int request, struct user_regs_struct *r,
		       const char *what, struct err *e)
{
	int status, rc;

	if (ptrace(request, tid, NULL, NULL))
		return err_errno(e, errno, "cannot resume thread %ld",
				 (long)tid);
	rc = wait_stop(tid, &status, e);
	if (rc > 0)
		return err_set(e, ERR_INFRA, "thread %ld exited during %s",
			       (long)tid, what);
	if (rc < 0 || get_regs(tid, r, e))
		return -1;
	if (status >> 16 || WSTOPSIG(status) != SIGTRAP)
		return err_set(e, ERR_INFRA, "%s in thread %ld stopped on "
			       "signal %d at 0x%llx", what, (long)tid,
			       WSTOPSIG(status), (unsigned long long)r->rip);
	return 0;
}

int trace_syscall(struct trace *t, uint64_t insn, long nr, const long *args,
		  long *ret, struct err *e)
{
	pid_t tid = t->threads[0].tid;
	struct user_regs_struct saved, r;
	int rc;

	if (get_regs(tid, &saved, e))
		return -1;
	r = saved;
	set_args(&r, args);
	r.rax = (unsigned long long)nr;
	r.rip = insn;
	rc = set_regs(tid, &r, e) ||
	     run_to_trap(tid, PTRACE_SINGLESTEP, &r, "a system call", e);
	if (!rc && r.rip != insn + 2)
		rc = err_set(e, ERR_INFRA, "system call %ld in thread %ld did "
			     "not run (at 0x%llx)", nr, (long)tid,
			     (unsigned long long)r.rip);
	*ret = (long)r.rax;
	/* Put back whatever happened: the thread must go on as it was. */
	if (set_regs(tid, &saved, e))
		rc = -1;
	return rc ? -1 : 0;
}

int trace_call(struct trace *t, uint64_t fn, uint64_t stack_top,
	       uint64_t trap, const long *args, long *ret, int64_t *before_ns,
	       int64_t *after_ns, struct err *e)
{
	pid_t tid = t->threads[0].tid;
	struct user_regs_struct saved, r;
	uint64_t sp = stack_top - 8;	/* (sp + 8) % 16 == 0 at entry */
	int64_t before, after;
	int rc;

	if (get_regs(tid, &saved, e) || trace_write(t, sp, &trap, 8, e))
		return -1;
	r = saved;
	set_args(&r, args);
	r.rax = 0;
	r.rip = fn;
	r.rsp = sp;
	if (set_regs(tid, &r, e))
		return -1;
	before = wall_ns();
	rc = run_to_trap(tid, PTRACE_CONT, &r, "a call", e);
	after = wall_ns();
	if (!rc && r.rip != trap + 1)
		rc = err_set(e, ERR_INFRA, "a call in thread %ld trapped at "
			     "0x%llx, not at its return", (long)tid,
			     (unsigned long long)r.rip);
	*ret = (long)r.rax;
	if (before_ns)
		*before_ns = before;
	if (after_ns)
		*after_ns = after;
	if (set_regs(tid, &saved, e))
		rc = -1;
	return rc ? -1 : 0;
}

static int in_ranges(uint64_t ip, const uint64_t *lo, const uint64_t *hi,
		     size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ip >= lo[i] && ip < hi[i])
			return 1;
	return 0;
}

int trace_step_out(struct trace *t, const uint64_t *lo, const uint64_t *hi,
		   size_t n, struct err *e)
{
	for (size_t i = 0; i < t->n; i++) {
		pid_t tid = t->threads[i].tid;
		struct user_regs_struct r;
		int steps = 0;

		if (get_regs(tid, &r, e))
			return -1;
		while (in_ranges(r.rip, lo, hi, n)) {
			if (++steps > MAX_STEPS)
				return err_set(e, ERR_INFRA, "thread %ld did "
					       "not leave 0x%llx in %d steps",
					       (long)tid,
					       (unsigned long long)r.rip,
					       MAX_STEPS);
			if (run_to_trap(tid, PTRACE_SINGLESTEP, &r, "a step",
					e))
				return -1;
		}
	}
	return 0;
}

#else

int trace_syscall(struct trace *t, uint64_t insn, long nr, const long *args,
		  long *ret, struct err *e)
{
	return err_set(e, ERR_USAGE, "x86-64 only");
}

int trace_call(struct trace *t, uint64_t fn, uint64_t stack_top,
	       uint64_t trap, const long *args, long *ret, int64_t *before_ns,
	       int64_t *after_ns, struct err *e)
{
	return err_set(e, ERR_USAGE, "x86-64 only");
}

int trace_step_out(struct trace *t, const uint64_t *lo, const uint64_t *hi,
		   size_t n, struct err *e)
{
	return err_set(e, ERR_USAGE, "x86-64 only");
}

#endif
