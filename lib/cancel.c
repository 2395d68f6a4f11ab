/*
 * The cancellation token (lib/cancel.h).
 */
#include "lib/cancel.h"

#include "lib/clock.h"

int cancel_level(const struct cancel *c)
{
	return c ? __atomic_load_n(&c->level, __ATOMIC_ACQUIRE) : CANCEL_NONE;
}

int cancelled(const struct cancel *c, int level)
{
	return cancel_level(c) >= level;
}

void cancel_raise(struct cancel *c, int level)
{
	int now = __atomic_load_n(&c->level, __ATOMIC_RELAXED);

	while (now < level &&
	       !__atomic_compare_exchange_n(&c->level, &now, level, 0,
					    __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED))
		;
}

void cancel_escalate(struct cancel *c, int level)
{
	int now = __atomic_load_n(&c->level, __ATOMIC_RELAXED);
	int want;

	do {
		want = now >= level ? now + 1 : level;
		if (want > CANCEL_KILL)
			want = CANCEL_KILL;
	} while (now < want &&
		 !__atomic_compare_exchange_n(&c->level, &now, want, 0,
					      __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
}

int cancel_sleep(const struct cancel *c, int level, int64_t ns)
{
	int64_t end = clock_mono_ns() + ns;

	for (;;) {
		int64_t left = end - clock_mono_ns();

		if (cancelled(c, level))
			return 1;
		if (left <= 0)
			return 0;
		clock_sleep_ns(c && left > 50 * NS_PER_MS ? 50 * NS_PER_MS
							  : left);
	}
}
