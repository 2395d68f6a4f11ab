#ifndef TICHAOS_OPTSPEC_H
#define TICHAOS_OPTSPEC_H

/*
 * Declarative options of a pluggable kind (a workload, fault, checker):
 * each kind lists the keys it accepts with their type, default and doc,
 * and optspec_parse() validates a YAML mapping against that list. The
 * same table drives `tichaos list --options` and docs/suite-format.md, so
 * the documentation cannot drift from the code.
 *
 * Values land in an array of `struct optval` indexed like the spec array;
 * optspec_bind() then copies each into the member of the kind's own
 * options struct that the spec names (OPT_AT), so the kind reads
 * `o->down`, typed, and a misspelt option does not compile.
 */

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "err.h"
#include "ynode.h"

enum optspec_type {
	OPT_BOOL,		/* true | false */
	OPT_INT,		/* decimal in [min, max] */
	OPT_FLOAT,		/* decimal number >= 0 */
	OPT_DURATION,		/* "500ms", "15s", "2m", "1h" -> ns */
	OPT_STRING,		/* any non-empty string */
	OPT_IDENT,		/* an SQL identifier: [A-Za-z0-9_$]{1,64} */
	OPT_ENUM,		/* one of `choices` -> index in i */
	OPT_ENUM_LIST,		/* list of `choices` (or one), no repeats */
	OPT_STRING_LIST,	/* list of strings (or one) */
	OPT_NAMES,		/* identifiers with {a..b} ranges, expanded */
	OPT_DURATION_LIST,	/* list of durations (or one) -> ns in ints */
	OPT_TABLES,		/* like OPT_NAMES; the suite checks that each
				 * is one of its tables */
	OPT_SQL,		/* an SQL fragment (column or partition
				 * definitions): one statement's part, so no
				 * ';', comments, backslashes, control
				 * characters or unbalanced quotes and
				 * parentheses */
	OPT_COMPONENT,		/* a role or a component name: what
				 * optspec_check_component() accepts; the
				 * runner checks it against the cluster */
	OPT_COMPONENTS,		/* a list of them (or one) */
};

struct optspec {
	const char *key;
	enum optspec_type type;
	/* The default as YAML text, or NULL: no default (the value is
	 * unset unless given, or required). */
	const char *def;
	unsigned required:1;
	/* OPT_ENUM, OPT_ENUM_LIST: NULL-terminated choices. */
	const char *const *choices;
	/* OPT_INT: inclusive range. */
	int64_t min;
	int64_t max;
	/* One line for the docs. */
	const char *doc;
	/* MAY: the member optspec_bind() puts the value in, OPT_AT(type,
	 * member); 0: not bound. */
	size_t at;
};

#define OPT_AT(type, member) (offsetof(type, member) + 1)

/* A bound list: names, strings or choices as written; durations (ns). */
struct optlist {
	char *const *v;
	size_t n;
};

struct optints {
	const int64_t *v;
	size_t n;
};

struct optval {
	int set;		/* given or defaulted */
	int given;		/* given in the file */
	int line;		/* where it was given (0 if defaulted) */
	int col;
	int64_t i;		/* BOOL, INT, DURATION (ns), ENUM (index) */
	double f;		/* FLOAT */
	char *s;		/* STRING, IDENT */
	char **list;		/* the *_LIST kinds and NAMES */
	int64_t *ints;		/* DURATION_LIST (ns) */
	size_t n;
};

/* Most names one {a..b} range may expand to. */
#define OPTSPEC_MAX_RANGE 10000

/*
 * Validate mapping `map` against `specs` (`nspecs` entries) and fill `vals`
 * (nspecs entries, zeroed by the caller). Keys in `ignore` (NULL-terminated,
 * may be NULL) are accepted and left to the caller (e.g. "kind"). An empty
 * list is refused for an option that is required or has a default, accepted
 * (as unset) otherwise. Errors are "FILE:L:C: message" with ERR_USAGE; `what`
 * names the mapping ("workload 'insert'").
 */
int optspec_parse(const char *file, const struct ynode *map,
		  const struct optspec *specs, size_t nspecs,
		  const char *const *ignore, const char *what,
		  struct optval *vals, struct err *e);

/*
 * Bind `vals` (as optspec_parse filled them) into the struct at `out`:
 * each spec with `at` writes its member, as its type says —
 *   BOOL: int; INT, DURATION: int64_t; ENUM: int (the choice's index,
 *   -1 when unset);
 *   FLOAT: double; STRING, IDENT, SQL, COMPONENT: const char *;
 *   ENUM_LIST, STRING_LIST, NAMES, TABLES, COMPONENTS: struct optlist;
 *   DURATION_LIST: struct optints.
 * An unset value is 0, NULL or empty (an enum's -1). Strings and lists point
 * into `vals`, which must outlive the struct.
 */
void optspec_bind(const struct optspec *specs, size_t nspecs,
		  const struct optval *vals, void *out);

/*
 * The value bound at `member`, a member of the struct at `base` that
 * optspec_bind filled (where it was given, whether it was set), or NULL
 * when no spec binds that member.
 */
const struct optval *optspec_bound(const struct optspec *specs,
				   size_t nspecs, const struct optval *vals,
				   const void *base, const void *member);

/* Free the contents of `vals` (nspecs entries). */
void optvals_release(struct optval *vals, size_t nspecs);

/*
 * Expand "table_{1..5}" into table_1..table_5 (appended to *list, *n).
 * Exactly one range at most; both ends decimal, a <= b, at most
 * OPTSPEC_MAX_RANGE names. Every name must be an identifier. Errors
 * without a location (the caller adds it), ERR_USAGE.
 */
int optspec_expand(const char *pattern, char ***list, size_t *n,
		   struct err *e);

/* 0 when `s` is an acceptable SQL fragment (see OPT_SQL). */
int optspec_check_sql(const char *s, struct err *e);

/*
 * 0 when `s` can name a role or a component: 1 to 64 letters, digits,
 * '_', '-', '.' and ':' (component names in topologies are held to the
 * same, so "10.0.1.1:4000" and "tidb-0" are names and "$(x)" is not);
 * else -1 and a message (ERR_USAGE, without a location).
 */
int optspec_check_component(const char *s, struct err *e);

/* 0 when `s` is a valid identifier; else -1 and a message. */
int optspec_check_ident(const char *s, struct err *e);

/*
 * Append option `sp`'s value `v` as JSON: true/false, a number, a string
 * (durations as written: "15s"; an enum as its choice), or an array of
 * them for the list types; null when unset.
 */
int optval_json(const struct optspec *sp, const struct optval *v,
		struct buf *out, struct err *e);

/* The type's name for docs: "bool", "int", "duration", ... */
const char *optspec_type_name(enum optspec_type t);

/*
 * Append a human description of `specs` for docs and `list --options`:
 * one line per key, "  key  type  default  doc".
 */
int optspec_describe(const struct optspec *specs, size_t nspecs,
		     struct buf *out, struct err *e);

#endif
