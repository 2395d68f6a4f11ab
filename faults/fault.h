#ifndef TICHAOS_FAULT_H
#define TICHAOS_FAULT_H

/*
 * The fault kinds: each is an injection the nemesis schedules and heals.
 *
 * Each kind is a const struct fault_type registered in
 * faults/registry.c, the only place a new one is added. The descriptor
 * grows its ops table with the first fault that lands; until then the
 * registry is empty and `tichaos list` says so.
 */

struct fault_type {
	/* The name suites use in `kind:`. */
	const char *name;
	/* One line for `tichaos list`. */
	const char *doc;
};

/* Every fault kind, NULL-terminated. */
extern const struct fault_type *const fault_types[];

/* The kind named `name`, or NULL. */
const struct fault_type *fault_type_find(const char *name);

#endif
