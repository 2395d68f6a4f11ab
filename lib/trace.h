#ifndef TICHAOS_TRACE_H
#define TICHAOS_TRACE_H

/*
 * A running process of this machine held still under ptrace(2), every
 * thread of it, to change it from outside: its memory read and written
 * (/proc/PID/mem, which writes read-only pages as a debugger does), a
 * system call or a function run in one of its threads, each thread
 * stepped out of code about to change. What lib/skew.h does to a
 * process's clock, Chaos Mesh's TimeChaos does the same way
 * (chaos-mesh/chaos-mesh pkg/ptrace/ptrace_linux.go).
 *
 * The threads are seized (PTRACE_SEIZE, no options: a tracer that dies
 * leaves them running, never killed) and stopped with PTRACE_INTERRUPT;
 * /proc/PID/task is read again until no thread is new, so threads started
 * meanwhile are held too. While held, each thread's signals are blocked
 * (PTRACE_SETSIGMASK): what arrives stays pending and is delivered once it
 * is let go, with its mask as it was; a signal a thread was stopped for
 * when it was seized is delivered then too. The tracer is the thread that
 * called trace_attach: every call on a `struct trace` must come from it,
 * and trace_detach lets go before anything else may trace the process.
 * x86-64 only (trace_attach says so elsewhere).
 */

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"

struct trace_thread {
	pid_t tid;
	int sig;		/* a signal to deliver when let go; 0: none */
	uint64_t mask;		/* its signal mask before it was held */
	unsigned masked:1;	/* mask was read and replaced */
};

struct trace {
	pid_t pid;
	int mem;		/* /proc/PID/mem, open; -1 */
	struct trace_thread *threads;
	size_t n, alloc;
};

#define TRACE_INIT { 0, -1, NULL, 0, 0 }

/*
 * Seize and stop every thread of process `pid`. -1 (ERR_INFRA) with
 * "cannot trace pid N: Operation not permitted" when ptrace is refused
 * (another tracer, no permission, a kernel that forbids it) or the
 * process is gone ("pid N is gone"); what was seized is let go again.
 */
int trace_attach(struct trace *t, pid_t pid, struct err *e);

/*
 * Let every thread go as it was: its signal mask put back, a signal it
 * was held on delivered; `t` is emptied. A thread gone meanwhile is
 * skipped. Safe on a `t` never attached.
 */
void trace_detach(struct trace *t);

/* Read / write `len` bytes of the process's memory at `addr`. */
int trace_read(const struct trace *t, uint64_t addr, void *buf, size_t len,
	       struct err *e);
int trace_write(const struct trace *t, uint64_t addr, const void *buf,
		size_t len, struct err *e);

/*
 * Run system call `nr` with `args` (6) in the first thread: its registers
 * pointed at the `syscall` instruction at `insn` (two bytes 0f 05 in the
 * process's memory), one step, its registers put back. *ret: what the
 * call returned (-errno on failure).
 */
int trace_syscall(struct trace *t, uint64_t insn, long nr, const long *args,
		  long *ret, struct err *e);

/*
 * Call the function at `fn` with `args` (6) in the first thread, on the
 * stack below `stack_top` (16-aligned, the process's writable memory),
 * returning to `trap` (an int3 instruction); its registers put back.
 * *ret: its rax. *before_ns / *after_ns (MAY be NULL): our CLOCK_REALTIME
 * just before it ran and just after it returned.
 */
int trace_call(struct trace *t, uint64_t fn, uint64_t stack_top,
	       uint64_t trap, const long *args, long *ret, int64_t *before_ns,
	       int64_t *after_ns, struct err *e);

/*
 * Step each thread whose instruction pointer is in one of the `n` ranges
 * [lo[i], hi[i]) one instruction at a time until it is in none, so that
 * code there can be changed under it.
 */
int trace_step_out(struct trace *t, const uint64_t *lo, const uint64_t *hi,
		   size_t n, struct err *e);

#endif
