#include "workloads/workload.h"

extern const struct workload_type workload_append;
extern const struct workload_type workload_autoid;
extern const struct workload_type workload_bank;
extern const struct workload_type workload_dml;
extern const struct workload_type workload_insert;
extern const struct workload_type workload_partition_ddl;
extern const struct workload_type workload_table_ddl;

/* The only place a workload kind is added. */
const struct workload_type *const workload_types[] = {
	&workload_insert,
	&workload_dml,
	&workload_table_ddl,
	&workload_partition_ddl,
	&workload_autoid,
	&workload_bank,
	&workload_append,
	NULL,
};

const struct kind *workload_kind(size_t i)
{
	return i < REGISTRY_LEN(workload_types) ? &workload_types[i]->kind
						: NULL;
}
