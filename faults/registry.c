#include "faults/fault.h"

#include <pthread.h>

extern const struct fault_type fault_changefeed;
extern const struct fault_type fault_clock;
extern const struct fault_type fault_disk_error;
extern const struct fault_type fault_disk_full;
extern const struct fault_type fault_disk_lose;
extern const struct fault_type fault_disk_slow;
extern const struct fault_type fault_failpoint;
extern const struct fault_type fault_hog;
extern const struct fault_type fault_kill;
extern const struct fault_type fault_netem;
extern const struct fault_type fault_partition;
extern const struct fault_type fault_pause;
extern const struct fault_type fault_region;
extern const struct fault_type fault_resign;
extern const struct fault_type fault_tamper;

/* The only place a fault kind is added. */
const struct fault_type *const fault_types[] = {
	&fault_kill,
	&fault_pause,
	&fault_resign,
	&fault_changefeed,
	&fault_tamper,
	&fault_clock,
	&fault_partition,
	&fault_netem,
	&fault_region,
	&fault_hog,
	&fault_failpoint,
	&fault_disk_lose,
	&fault_disk_error,
	&fault_disk_full,
	&fault_disk_slow,
	NULL,
};

const struct kind *fault_kind(size_t i)
{
	return i < REGISTRY_LEN(fault_types) ? &fault_types[i]->kind : NULL;
}

/* Filled once: every kind's holds, and the NULL after them. */
static const struct fault_holds *holds_all[sizeof(fault_types) /
					   sizeof(fault_types[0])];
static pthread_once_t holds_once = PTHREAD_ONCE_INIT;

static void fill_holds(void)
{
	size_t k = 0;

	for (size_t n = 0; fault_types[n]; n++)
		if (fault_types[n]->holds)
			holds_all[k++] = fault_types[n]->holds;
	holds_all[k] = NULL;
}

const struct fault_holds *const *fault_holds_all(void)
{
	pthread_once(&holds_once, fill_holds);
	return holds_all;
}

int fault_sweep(struct cluster *c, struct err *e)
{
	for (size_t n = 0; fault_types[n]; n++)
		if (fault_types[n]->sweep && fault_types[n]->sweep(c, e))
			return -1;
	return 0;
}
