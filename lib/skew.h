#ifndef TICHAOS_SKEW_H
#define TICHAOS_SKEW_H

/*
 * A live clock skew: the wall clock of a running process of this machine
 * moved by an offset (and run at a rate), without a restart, and put
 * back — as Chaos Mesh's TimeChaos does it (chaos-mesh/chaos-mesh
 * pkg/time/time_linux_amd64.go). Every thread of it is held (lib/trace.h);
 * two pages are mapped in it, the first holding lib/skew_code.c's
 * clock_gettime, gettimeofday and time (their offset and rate filled in),
 * the second a stack for the calls tichaos makes there; the first 12
 * bytes of each of those entries of its vDSO — the code the kernel maps
 * in every process, which glibc and the Go runtime both call for the
 * time — become a jump to them (movabs $fn, %rax; jmp *%rax), written as
 * a debugger writes a breakpoint, with no thread inside the entry being
 * changed. Threads it starts later share the same memory and are moved
 * too. The undo writes the bytes back, unmaps the pages and leaves the
 * process as it was. A program that asks the kernel directly (the
 * `syscall` instruction, not the vDSO) is not moved.
 *
 * Only the wall clocks move (CLOCK_REALTIME and its _COARSE, _ALARM and
 * CLOCK_TAI; gettimeofday, time): the monotonic ones keep measuring
 * intervals. The moved clock reads, from t0, the moment of the skew:
 *
 *   t0 + offset + (now - t0) * rate
 *
 * The process's own clock is read back by calling its vDSO clock_gettime
 * in one of its threads, so any process can be checked, with or without
 * SQL. x86-64 only.
 *
 * A skew outlives a tichaos killed while it holds. Each is recorded in
 * SKEW_DIR/<pid> of the state root (proc.h: TICHAOS_STATE_DIR, else
 * /run/tichaos) before its vDSO is changed — the process's start time,
 * the runner's pid and start time, what was written where and what was
 * there — and the record removed by the undo; skew_sweep undoes every
 * recorded skew whose runner is gone.
 */

#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>
#include <sys/types.h>
#include <time.h>

#include "err.h"

#define SKEW_DIR "skews"

/* What lib/skew_code.c reads, at the start of its section. */
struct skew_vars {
	int64_t offset_ns;
	int64_t rate_ppm;	/* 1000000: as fast as real time */
	int64_t t0_ns;		/* CLOCK_REALTIME when the skew began */
	int64_t unused;
};

/* The vDSO entries moved: clock_gettime, gettimeofday, time. */
#define SKEW_ENTRIES 3
/* The bytes written at each: movabs $fn, %rax; jmp *%rax. */
#define SKEW_PATCH_LEN 12

struct skew_entry {
	uint64_t addr;		/* in the process */
	uint64_t size;		/* the function's, from the vDSO's symbols */
	unsigned char orig[SKEW_PATCH_LEN];
};

/* One process's skew, while it holds. */
struct skew {
	pid_t pid;
	long long start;	/* proc_start_time(pid) */
	uint64_t map;		/* the two pages mapped in it; 0: none */
	uint64_t page;		/* the page size */
	uint64_t syscall;	/* a `syscall` instruction of its vDSO */
	uint64_t clock_gettime;	/* its vDSO's clock_gettime */
	struct skew_entry entries[SKEW_ENTRIES];
};

/* A reading of a process's wall clock, between two of ours. */
struct skew_reading {
	int64_t theirs_ns;	/* its CLOCK_REALTIME */
	int64_t before_ns;	/* ours just before, just after */
	int64_t after_ns;
};

/*
 * Whether process `pid` can be traced: seized and let go at once, nothing
 * else done. -1 with "cannot trace pid N: Operation not permitted" (or
 * why) when not.
 */
int skew_allowed(pid_t pid, struct err *e);

/*
 * Move the wall clock of process `pid` by `offset_ns` from now on, at
 * `rate` (0.01 to 100) times real time; `name` (the component) goes in the
 * record. `s` is filled; `r` is its clock read back at once. Refused
 * (-1, nothing changed) when its vDSO is not this kernel's as ours is —
 * already moved, or a debugger's breakpoints in it.
 */
int skew_apply(struct skew *s, pid_t pid, const char *name,
	       int64_t offset_ns, double rate, struct skew_reading *r,
	       struct err *e);

/* Read the wall clock of the skewed process of `s` now. */
int skew_read(const struct skew *s, struct skew_reading *r, struct err *e);

/*
 * Put the process of `s` back as it was, its record removed: 0 with `r`
 * its clock read back once restored (MAY be NULL); 1 when the process
 * is gone or a zombie (its skew went with it); -1. skew_restore, then
 * skew_release.
 */
int skew_undo(struct skew *s, struct skew_reading *r, struct err *e);

/*
 * The two halves of skew_undo, for readings between them (skew_read:
 * the clock's rate once restored): skew_restore writes the vDSO's bytes
 * back (0, with `r` read back, MAY be NULL), the code staying mapped and
 * the record kept; skew_release unmaps the code and removes the record.
 * Each: 1 when the process is gone, its record removed.
 */
int skew_restore(struct skew *s, struct skew_reading *r, struct err *e);
int skew_release(struct skew *s, struct err *e);

/*
 * Undo every skew recorded in SKEW_DIR whose runner is gone (its pid not
 * running, or running since another time), each said with log_warn; a
 * record whose process is gone is removed. 0, or -1 when SKEW_DIR cannot
 * be read.
 */
int skew_sweep(struct err *e);

/*
 * lib/skew_code.c, in section tichaos_skew — what skew_apply copies, from
 * __start_tichaos_skew to __stop_tichaos_skew: its variables, its int3
 * (where a call tichaos makes there returns), its entries. Named here
 * for skew.c and the tests, which run a copy; never called in place.
 */
extern const char __start_tichaos_skew[], __stop_tichaos_skew[];
extern const struct skew_vars tichaos_skew_vars
	__attribute__((visibility("hidden")));
extern const char tichaos_skew_trap[] __attribute__((visibility("hidden")));
int tichaos_skew_clock_gettime(long clock, struct timespec *ts);
int tichaos_skew_gettimeofday(struct timeval *tv, void *tz);
long tichaos_skew_time(long *tloc);

#endif
