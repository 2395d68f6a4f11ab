/*
 * The code lib/skew.c copies into a process to move its clock: the
 * clock_gettime, gettimeofday and time its vDSO entries jump to while it
 * is skewed. Everything here is in one section, tichaos_skew, code and
 * data (struct skew_vars, filled in the copy), and refers to nothing
 * outside it: the copy runs wherever it is put. So it is built with
 * flags of its own (the Makefile): position-independent, no stack
 * protector, no sanitizers, no jump tables or builtins that call out;
 * its helpers are always inlined. It asks the kernel for the real time
 * with the `syscall` instruction (the vDSO's own code is what it
 * replaces), then moves the realtime clocks:
 *
 *   moved = t0 + offset + (t - t0) * rate
 *
 * with the rate in millionths. The monotonic clocks are left alone, as
 * libfaketime and Chaos Mesh's TimeChaos leave them by default.
 * Chaos Mesh's is pkg/time/fakeclock/fake_clock_gettime.c; this one
 * follows the kernel's vDSO contract (arch/x86/entry/vdso/vclock_gettime.c:
 * the system call's result, -errno on failure).
 */
#include <stdint.h>
#include <sys/time.h>
#include <time.h>

#include "skew.h"

#define CODE __attribute__((section("tichaos_skew"), used, noinline))
#define INLINE static inline __attribute__((always_inline))

#define NS 1000000000LL
#define SYS_GETTIMEOFDAY 96
#define SYS_CLOCK_GETTIME 228
/* CLOCK_REALTIME 0, _COARSE 5, _ALARM 8, CLOCK_TAI 11: the wall clock. */
#define MOVED_CLOCKS ((1UL << 0) | (1UL << 5) | (1UL << 8) | (1UL << 11))

/* The variables, at the start of the section; lib/skew.c fills them. */
__asm__(".pushsection tichaos_skew,\"ax\",@progbits\n"
	".balign 16\n"
	".globl tichaos_skew_vars\n"
	".hidden tichaos_skew_vars\n"
	"tichaos_skew_vars:\n"
	".zero 32\n"
	/* Where a call made from outside returns to (trace_call). */
	".globl tichaos_skew_trap\n"
	".hidden tichaos_skew_trap\n"
	"tichaos_skew_trap:\n"
	"int3\n"
	".popsection\n");

#if defined(__x86_64__)
INLINE long sys2(long nr, long a, long b)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b)
			 : "rcx", "r11", "memory");
	return ret;
}
#else
INLINE long sys2(long nr, long a, long b)
{
	return -38;	/* -ENOSYS: lib/skew.c refuses other machines */
}
#endif

INLINE int64_t moved(int64_t t)
{
	const volatile struct skew_vars *v = &tichaos_skew_vars;
	int64_t t0 = v->t0_ns, rate = v->rate_ppm, d = t - t0;

	if (rate != 1000000)
		d = d / 1000000 * rate + d % 1000000 * rate / 1000000;
	return t0 + v->offset_ns + d;
}

INLINE void split(int64_t t, long *sec, long *frac, long unit)
{
	int64_t r = t % NS;

	if (r < 0)
		r += NS;
	*sec = (long)((t - r) / NS);
	*frac = (long)(r / unit);
}

CODE int tichaos_skew_clock_gettime(long clock, struct timespec *ts)
{
	long rc = sys2(SYS_CLOCK_GETTIME, clock, (long)ts);

	if (!rc && ts && clock >= 0 && clock < 64 &&
	    (MOVED_CLOCKS >> clock) & 1)
		split(moved(ts->tv_sec * NS + ts->tv_nsec), &ts->tv_sec,
		      &ts->tv_nsec, 1);
	return (int)rc;
}

CODE int tichaos_skew_gettimeofday(struct timeval *tv, void *tz)
{
	long rc = sys2(SYS_GETTIMEOFDAY, (long)tv, (long)tz);

	if (!rc && tv)
		split(moved(tv->tv_sec * NS + tv->tv_usec * 1000),
		      &tv->tv_sec, &tv->tv_usec, 1000);
	return (int)rc;
}

CODE long tichaos_skew_time(long *tloc)
{
	struct timespec now;
	long sec, nsec;

	if (sys2(SYS_CLOCK_GETTIME, 0, (long)&now))
		return -1;
	split(moved(now.tv_sec * NS + now.tv_nsec), &sec, &nsec, 1);
	if (tloc)
		*tloc = sec;
	return sec;
}
