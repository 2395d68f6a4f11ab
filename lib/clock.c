#include "clock.h"

#include <errno.h>
#include <time.h>

int64_t clock_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

int64_t clock_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / NS_PER_MS;
}

void clock_sleep_ns(int64_t ns)
{
	struct timespec ts;

	if (ns <= 0)
		return;
	ts.tv_sec = (time_t)(ns / NS_PER_SEC);
	ts.tv_nsec = (long)(ns % NS_PER_SEC);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}
