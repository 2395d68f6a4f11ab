#ifndef TICHAOS_CANCEL_H
#define TICHAOS_CANCEL_H

/*
 * A cancellation token: how whoever drives the work (a run, `cluster
 * up`, a test) asks everything working for it to wind down, and how far.
 * One token per run; workers, the nemesis, faults, checks, the cluster's
 * waits and etcd watches all read it. Its level only rises; raising it is
 * async-signal-safe, so a signal handler may do it.
 *
 *   CANCEL_STOP   the work is over (the run's duration, or ^C): workers
 *                 and the nemesis stop at their next step, a fault's own
 *                 waits end; what keeps the cluster sound (heals, their
 *                 readiness waits, the checks) goes on.
 *   CANCEL_HURRY  tear down now (^C, or a run file that cannot be
 *                 written): checks and a cluster's start give up, stops
 *                 use a short grace.
 *   CANCEL_KILL   at once (a second ^C): every wait gives up, stops are
 *                 SIGKILL.
 *
 * A NULL token is never cancelled.
 */

#include <stdint.h>

enum cancel_level {
	CANCEL_NONE,
	CANCEL_STOP,
	CANCEL_HURRY,
	CANCEL_KILL,
};

struct cancel {
	int level;		/* atomic */
};

#define CANCEL_INIT { CANCEL_NONE }

/* The level now (CANCEL_NONE for NULL). */
int cancel_level(const struct cancel *c);

/* Has `c` reached `level`? */
int cancelled(const struct cancel *c, int level);

/* Raise `c` to `level` (never lowers it). Async-signal-safe. */
void cancel_raise(struct cancel *c, int level);

/* Raise `c` one step past where it is, at least to `level` (a ^C). */
void cancel_escalate(struct cancel *c, int level);

/*
 * Sleep up to `ns`, waking within 50 ms once `c` reaches `level`.
 * Returns non-zero when it did.
 */
int cancel_sleep(const struct cancel *c, int level, int64_t ns);

#endif
