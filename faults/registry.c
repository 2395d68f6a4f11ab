#include "faults/fault.h"

/* The only place a fault kind is added. */
const struct fault_type *const fault_types[] = {
	NULL,
};

const struct kind *fault_kind(size_t i)
{
	for (size_t n = 0; fault_types[n]; n++)
		if (n == i)
			return &fault_types[n]->kind;
	return NULL;
}
