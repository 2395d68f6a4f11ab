#ifndef TICHAOS_FAULT_H
#define TICHAOS_FAULT_H

/*
 * The fault kinds: each an injection the nemesis schedules and heals.
 *
 * Each kind is a const struct fault_type registered in
 * faults/registry.c, the only place a new one is added. The descriptor
 * grows its ops table with the first fault that lands; until then the
 * registry is empty, `tichaos list` says so and a suite naming a fault
 * kind is refused.
 */

#include <stddef.h>

#include "lib/kind.h"

struct fault_type {
	struct kind kind;
};

/* Every fault kind, NULL-terminated. */
extern const struct fault_type *const fault_types[];

/* The i-th fault kind, NULL past the end. */
const struct kind *fault_kind(size_t i);

#endif
