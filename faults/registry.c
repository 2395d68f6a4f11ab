#include "faults/fault.h"

#include <string.h>

extern const struct fault_type fault_changefeed;
extern const struct fault_type fault_clock;
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
	NULL,
};

const struct kind *fault_kind(size_t i)
{
	for (size_t n = 0; fault_types[n]; n++)
		if (n == i)
			return &fault_types[n]->kind;
	return NULL;
}

const struct fault_type *fault_type_named(const char *name)
{
	for (size_t n = 0; fault_types[n]; n++)
		if (!strcmp(fault_types[n]->kind.name, name))
			return fault_types[n];
	return NULL;
}

const struct fault_type *fault_healed_by(const char *name)
{
	for (size_t n = 0; fault_types[n]; n++)
		if (fault_types[n]->heal_name &&
		    !strcmp(fault_types[n]->heal_name, name))
			return fault_types[n];
	return NULL;
}

int fault_sweep(struct cluster *c, struct err *e)
{
	for (size_t n = 0; fault_types[n]; n++)
		if (fault_types[n]->sweep && fault_types[n]->sweep(c, e))
			return -1;
	return 0;
}
