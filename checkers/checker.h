#ifndef TICHAOS_CHECKER_H
#define TICHAOS_CHECKER_H

/*
 * The checker kinds: each turns a run into a verdict.
 *
 * Each kind is a const struct checker_type registered in
 * checkers/registry.c, the only place a new one is added. The descriptor
 * grows its ops table with the first checker that lands; until then the
 * registry is empty, `tichaos list` says so and a suite naming a checker
 * kind is refused.
 */

#include <stddef.h>

#include "lib/kind.h"

struct checker_type {
	struct kind kind;
};

/* Every checker kind, NULL-terminated. */
extern const struct checker_type *const checker_types[];

/* The i-th checker kind, NULL past the end. */
const struct kind *checker_kind(size_t i);

#endif
