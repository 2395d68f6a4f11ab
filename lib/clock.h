#ifndef TICHAOS_CLOCK_H
#define TICHAOS_CLOCK_H

/* Time: a monotonic clock for measuring, the wall clock for naming. */

#include <stdint.h>

#define NS_PER_MS INT64_C(1000000)
#define NS_PER_SEC INT64_C(1000000000)

/* Nanoseconds on CLOCK_MONOTONIC. Only differences mean anything. */
int64_t clock_mono_ns(void);

/* Milliseconds since the epoch (CLOCK_REALTIME). */
int64_t clock_wall_ms(void);

/*
 * Sleep `ns` nanoseconds, resuming after signals. A sleep that a run's
 * end may cut short is cancel_sleep (lib/cancel.h).
 */
void clock_sleep_ns(int64_t ns);

#endif
