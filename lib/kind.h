#ifndef TICHAOS_KIND_H
#define TICHAOS_KIND_H

/*
 * What every pluggable kind (workload, fault, checker) has in common: a
 * name, a one-line doc and its options. Each kind's descriptor embeds a
 * `struct kind` as its first member, so suite loading, `tichaos list` and
 * the docs treat every registry the same way.
 */

#include <stddef.h>

#include "optspec.h"

struct kind {
	/* The name suites use in `kind:`. */
	const char *name;
	/* One line for `tichaos list`. */
	const char *doc;
	/* Its options (MAY be none). */
	const struct optspec *opts;
	size_t nopts;
};

/*
 * A registry seen generically: `nth(i)` is its i-th kind, NULL past the
 * end.
 */
typedef const struct kind *(*kind_nth_fn)(size_t i);

/* The kind called `name` in a registry, or NULL. */
const struct kind *kind_find(kind_nth_fn nth, const char *name);

#endif
