#include <string.h>

#include "workloads/workload.h"

/* The only place a workload kind is added. */
const struct workload_type *const workload_types[] = {
	NULL,
};

const struct workload_type *workload_type_find(const char *name)
{
	for (int i = 0; workload_types[i]; i++)
		if (!strcmp(workload_types[i]->name, name))
			return workload_types[i];
	return NULL;
}
