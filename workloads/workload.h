#ifndef TICHAOS_WORKLOAD_H
#define TICHAOS_WORKLOAD_H

/*
 * The workload kinds: each is threads driving SQL against the cluster.
 *
 * Each kind is a const struct workload_type registered in
 * workloads/registry.c, the only place a new one is added. The descriptor
 * grows its ops table with the first workload that lands; until then the
 * registry is empty and `tichaos list` says so.
 */

struct workload_type {
	/* The name suites use in `kind:`. */
	const char *name;
	/* One line for `tichaos list`. */
	const char *doc;
};

/* Every workload kind, NULL-terminated. */
extern const struct workload_type *const workload_types[];

/* The kind named `name`, or NULL. */
const struct workload_type *workload_type_find(const char *name);

#endif
