#ifndef TICHAOS_KIND_H
#define TICHAOS_KIND_H

/*
 * The kind contract: what every pluggable kind (workload, fault, checker)
 * has in common. A name, a one-line doc, its options, and the hooks the
 * core calls without knowing the kind: `check` when a suite is loaded,
 * `plan` when a run's plan is drawn. Each kind's descriptor (struct
 * workload_type, fault_type, checker_type) embeds a `struct kind` as its
 * first member, so suite loading, the plan, `tichaos list` and the docs
 * treat every registry the same way, and a suite item's `type` is this
 * struct (docs/internals.md, Layers).
 */

#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"
#include "lib/optspec.h"

struct ledger;
struct lists;
struct suite;
struct suite_item;
struct plan;
struct rand;

/* What a kind does that others ask about (struct kind.flags). */
enum kind_flag {
	/*
	 * A check that counts every event the local replica skips
	 * (cluster.local.replica_skip_errors needs one).
	 */
	KIND_COUNTS_SKIPS = 1 << 0,
	/*
	 * A workload whose operations are DDL: the history marks them
	 * ("ddl": true), and after one a table's ids may start again.
	 */
	KIND_DDL = 1 << 1,
};

/*
 * Every registry is a NULL-terminated array of its kinds' descriptors,
 * defined in its directory's registry.c, the only place a kind is added:
 * REGISTRY_AT(array, i) is its i-th entry, or NULL past the last, there
 * where the array's length is known.
 */
#define REGISTRY_LEN(array) (sizeof(array) / sizeof((array)[0]) - 1)
#define REGISTRY_AT(array, i) ((i) < REGISTRY_LEN(array) ? (array)[i] : NULL)

struct kind {
	/* The name suites use in `kind:`. */
	const char *name;
	/* One line for `tichaos list`. */
	const char *doc;
	/* Its options (MAY be none), bound at load time into its own
	 * struct of `opts_size` bytes (suite_item.opts; OPT_AT). */
	const struct optspec *opts;
	size_t nopts;
	size_t opts_size;
	/*
	 * MAY: cross-check its options against the suite (e.g. the tables
	 * must be partitioned). "FILE:L:C: message" errors, ERR_USAGE.
	 */
	int (*check)(const struct suite *s, const struct suite_item *it,
		     struct err *e);
	/*
	 * MAY: add the item's scheduled operations (index `item_index` in
	 * its section) to the plan before `duration_ns`, on the suite's own
	 * schedule, drawing every choice from `r`.
	 */
	int (*plan)(const struct suite *s, const struct suite_item *it,
		    int item_index, int64_t duration_ns, struct rand *r,
		    struct plan *p, struct err *e);
	/*
	 * MAY: options of its section's common set that this kind does not
	 * take (NULL-terminated), and why, as one phrase: giving one is an
	 * error, and the suite as run leaves them out.
	 */
	const char *const *refuse;
	const char *refuse_why;
	/* KIND_* */
	unsigned flags;
	/*
	 * MAY (a workload that keeps a ledger, core/ledger.h): fill `out`
	 * from item `it`'s options, for the check that judges it. 0.
	 */
	int (*ledger)(const struct suite_item *it, struct ledger *out);
	/*
	 * MAY (a workload that keeps lists, core/lists.h): fill `out` from
	 * item `it`'s options, for the check that reads them. 0.
	 */
	int (*lists)(const struct suite_item *it, struct lists *out);
};

/*
 * A registry seen generically: `nth(i)` is its i-th kind, NULL past the
 * end.
 */
typedef const struct kind *(*kind_nth_fn)(size_t i);

/* The kind called `name` in a registry, or NULL. */
const struct kind *kind_find(kind_nth_fn nth, const char *name);

/* Does kind `k` refuse option `key`? */
int kind_refuses(const struct kind *k, const char *key);

#endif
