#ifndef TICHAOS_SUITE_H
#define TICHAOS_SUITE_H

/*
 * Suites: a chaos case described in YAML (docs/suite-format.md), loaded
 * and validated strictly. Every error is one line "FILE:L:C: message"
 * (ERR_USAGE). A loaded suite is complete: defaults are filled in, `{a..b}`
 * ranges expanded, kinds resolved to their registered types, and every
 * table a workload names is one of the suite's tables.
 */

#include <stddef.h>
#include <stdint.h>

#include "core/kind.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/optspec.h"
#include "lib/parse.h"

struct suite_table {
	char *name;
	char *columns;		/* column definitions, verbatim SQL */
	char *partition;	/* "RANGE (id) (...)" or NULL */
	char *options;		/* table options ("AUTO_ID_CACHE=1") or NULL */
	int line;
	int col;
};

/* A workload, fault or check: its kind and its validated options. */
struct suite_item {
	const char *kind;		/* the registered name */
	/* Its kind: the first member of its struct workload_type,
	 * fault_type or checker_type. */
	const struct kind *type;
	const struct optspec *specs;	/* the type's options */
	size_t nspecs;
	struct optval *vals;		/* nspecs values, indexed as specs */
	/* The values bound into the kind's own options struct (struct
	 * kind.opts_size bytes): what the kind reads. */
	const void *opts;
	int line;
	int col;
};

/* Capabilities a suite may require of its cluster. */
enum suite_require {
	REQUIRE_TIDB = 1 << 0,
	REQUIRE_TICDC = 1 << 1,
	REQUIRE_MARIADB = 1 << 2,
};

extern const char *const suite_require_names[];

struct suite;
struct suite_kinds;
struct ynode;

/*
 * A cluster kind's own section of a suite (cluster.<kind>: the local
 * cluster's servers, docs/suite-format.md#the-local-cluster). The core
 * knows no kind's settings: it hands the section to the kind of that
 * name (struct suite_kinds' cluster_section), which parses it into a
 * struct of its own and answers for it; the cluster kind reads it back
 * when it is opened (struct cluster_options' section).
 */
struct suite_section_type {
	/*
	 * MUST: parse `node`, the section in `file`, into *out, a struct
	 * of the kind's own (NULL when the section sets nothing). `s` is
	 * the suite being loaded. 0, or -1 with "FILE:L:C: message"
	 * (ERR_USAGE); *out is freed by `free` either way.
	 */
	int (*load)(struct suite *s, const char *file,
		    const struct ynode *node, void **out, struct err *e);
	/*
	 * MAY: cross-check the section against the whole suite once its
	 * items are loaded (a check it needs, found in `kinds`). 0, or -1
	 * with "FILE:L:C: message" (ERR_USAGE).
	 */
	int (*check)(const struct suite *s, const void *section,
		     const struct suite_kinds *kinds, struct err *e);
	/* MUST: write the section as one YAML flow mapping ("{ ... }")
	 * that `load` reads back the same (the suite as run). */
	int (*write)(const void *section, struct buf *out, struct err *e);
	/* MUST: free what `load` made (NULL is fine). */
	void (*free)(void *section);
};

/* A cluster kind's section as the suite gave it. */
struct suite_section {
	const char *kind;		/* the cluster kind's name; borrowed */
	const struct suite_section_type *type;
	void *data;			/* type->load's */
};

/*
 * A failure the suite declares known (expect:, docs/suite-format.md): a
 * failing check of kind `check` whose message matches `match` (POSIX
 * extended) is reported as known, with `note`, and fails nothing.
 */
struct suite_expect {
	char *check;
	char *match;
	char *note;
	/* The cluster kinds it applies on, bit i for the suite's
	 * cluster_kinds[i]; 0: every kind. */
	unsigned clusters;
	int line;
	int col;
};

/*
 * The bug the suite catches (catches:, docs/suite-format.md): `bug` names
 * it, `fixed_in` the releases of `server` that carry its fix, the first
 * of each release line that has it. A release carries the fix when its
 * line is listed and it is at or past that line's entry, or when it is
 * newer than every entry (a later line branched off with the fix).
 */
struct suite_catch {
	char *bug;			/* NULL: the suite declares none */
	unsigned server;		/* REQUIRE_TIDB or REQUIRE_TICDC */
	struct release *fixed_in;
	size_t nfixed;
	int line;
	int col;
};

#define SUITE_MAX_CLUSTER_KINDS 16

struct suite {
	char *path;
	char *name;
	char *description;
	/* The cluster kinds an expect: may name (struct suite_kinds'
	 * cluster_kind), NULL-terminated; borrowed. */
	const char *cluster_kinds[SUITE_MAX_CLUSTER_KINDS + 1];
	unsigned requires;
	/* Hints for backends that start clusters (0: the backend's
	 * default). */
	int captures;
	int tidb;
	int pd;
	int kv;
	/* The cluster kinds' own sections, in the order of the kinds. */
	struct suite_section sections[SUITE_MAX_CLUSTER_KINDS];
	size_t nsections;
	int64_t duration_ns;
	uint64_t seed;			/* 0: pick one at run time */
	char *database;
	struct suite_table *tables;
	size_t ntables;
	struct suite_item *workloads;
	size_t nworkloads;
	struct suite_item *faults;
	size_t nfaults;
	struct suite_item *checks;
	size_t nchecks;
	struct suite_expect *expects;
	size_t nexpects;
	struct suite_catch catches;
};

/*
 * The registries a suite's `kind:` names are resolved in, one per
 * section. The caller feeds them: the runner every kind of the build
 * (runner/kinds.c), a unit test only the kinds it drives.
 */
struct suite_kinds {
	kind_nth_fn workloads;
	kind_nth_fn faults;
	kind_nth_fn checks;
	/* MAY: the name of the i-th cluster kind, NULL past the last: what
	 * an expect's `cluster:` may name (NULL: none). */
	const char *(*cluster_kind)(size_t i);
	/* MAY: the i-th cluster kind's own section of a suite
	 * (cluster.<its name>), NULL when it has none. */
	const struct suite_section_type *(*cluster_section)(size_t i);
};

/* The section cluster kind `kind` parsed (its own struct), or NULL when
 * the suite gave none. */
const void *suite_cluster_section(const struct suite *s, const char *kind);

/* Load and validate `path`. The caller releases the suite. */
int suite_load(struct suite *s, const char *path,
	       const struct suite_kinds *kinds, struct err *e);

/*
 * suite_load with `nsets` options set from the command line first
 * (--set SECTION.KIND.OPTION=VALUE, docs/suite-format.md): the option of
 * every item of that kind, as if the file said VALUE (a YAML value) at
 * the option's place (at the item's when the file gives it none). A set
 * that names no section, or no item of its kind, is an error (ERR_USAGE).
 */
int suite_load_set(struct suite *s, const char *path,
		   const struct suite_kinds *kinds, const char *const *sets,
		   size_t nsets, struct err *e);

void suite_release(struct suite *s);

/* The table called `name`, or NULL. */
const struct suite_table *suite_table(const struct suite *s,
				      const char *name);

/*
 * Write the suite as run: every option with its value, defaults filled in,
 * ranges expanded, the given seed, and a comment with the run's duration
 * when --duration changed it. Loading the output gives the same suite.
 */
int suite_write(const struct suite *s, uint64_t seed, int64_t duration_ns,
		struct buf *out, struct err *e);

/*
 * The CREATE TABLE statement of table `t` in the suite's database:
 * "CREATE TABLE `db`.`t` (columns) options PARTITION BY partition".
 */
int suite_create_sql(const struct suite *s, const struct suite_table *t,
		     struct buf *out, struct err *e);

/*
 * The expectation the failing check `kind` with `message` meets on a
 * cluster of kind `cluster` ("local", "static", "playground"; NULL: any),
 * or NULL.
 */
const struct suite_expect *suite_expected(const struct suite *s,
					  const char *kind,
					  const char *message,
					  const char *cluster);

/* Does expectation `x` of suite `s` apply on a cluster of kind `cluster`
 * (NULL: yes)? */
int suite_expect_applies(const struct suite *s, const struct suite_expect *x,
			 const char *cluster);

/*
 * Does release `r` of the catch's server carry the fix of its bug? 1 or
 * 0; 0 too when `r` is not known (major -1) or the suite declares no bug;
 * -1 when it cannot be told: `r` is a build before the release that first
 * had the fix ("v8.1.0-alpha-83-g..." against v8.1.0), which may or may
 * not hold it.
 */
int suite_catch_fixed(const struct suite_catch *c, const struct release *r);

/*
 * The value of option `key` of an item, or NULL when it has no such key:
 * for code that holds keys as data (a kind's `refuse` list, an option
 * several kinds take). A kind reads its own options from it->opts.
 */
const struct optval *suite_opt(const struct suite_item *it, const char *key);

/*
 * The value bound at `member` of it->opts (where it was given, whether it
 * was set), or NULL when no option binds that member.
 */
const struct optval *suite_optval(const struct suite_item *it,
				  const void *member);

/*
 * An error of suite `s` where the option bound at `member` of it->opts
 * was given (the item's place when it was not): "FILE:LINE:COL: MSG".
 * Returns -1.
 */
int suite_opt_error(struct err *e, const struct suite *s,
		    const struct suite_item *it, const void *member,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
