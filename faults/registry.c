#include <string.h>

#include "faults/fault.h"

/* The only place a fault kind is added. */
const struct fault_type *const fault_types[] = {
	NULL,
};

const struct fault_type *fault_type_find(const char *name)
{
	for (int i = 0; fault_types[i]; i++)
		if (!strcmp(fault_types[i]->name, name))
			return fault_types[i];
	return NULL;
}
