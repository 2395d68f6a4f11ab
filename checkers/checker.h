#ifndef TICHAOS_CHECKER_H
#define TICHAOS_CHECKER_H

/*
 * The checker kinds: each is turns a run into a verdict.
 *
 * Each kind is a const struct checker_type registered in
 * checkers/registry.c, the only place a new one is added. The descriptor
 * grows its ops table with the first checker that lands; until then the
 * registry is empty and `tichaos list` says so.
 */

struct checker_type {
	/* The name suites use in `kind:`. */
	const char *name;
	/* One line for `tichaos list`. */
	const char *doc;
};

/* Every checker kind, NULL-terminated. */
extern const struct checker_type *const checker_types[];

/* The kind named `name`, or NULL. */
const struct checker_type *checker_type_find(const char *name);

#endif
