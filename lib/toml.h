#ifndef TICHAOS_TOML_H
#define TICHAOS_TOML_H

/*
 * The part of TOML (v1.0.0) that configuration files of the TiDB tools
 * use, sync-diff-inspector's above all: comments, [tables] and
 * [dotted.tables], keys bare or quoted and dotted (session.timeout),
 * basic strings with their escapes, literal strings, integers, booleans,
 * and arrays of those, over several lines too. What it does not read
 * (floats, dates, inline tables, arrays of tables, multi-line strings)
 * is an error at its line and column, as is a key given twice.
 *
 * Every value is kept with the full name of its key ("task.output-dir",
 * "data-sources.tidb0.port") and where it was written, in file order.
 */

#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"

enum toml_type { TOML_STRING, TOML_INT, TOML_BOOL, TOML_ARRAY };

struct toml_value {
	enum toml_type type;
	char *str;			/* TOML_STRING */
	int64_t i;			/* TOML_INT; TOML_BOOL: 0 or 1 */
	struct toml_value *items;	/* TOML_ARRAY */
	size_t n;
	int line, col;			/* where the value begins */
};

struct toml_entry {
	char *key;			/* the full dotted name */
	char *table;			/* the [table] it is in, "" at the top */
	struct toml_value v;
	int line, col;			/* where the key begins */
};

struct toml {
	const char *path;		/* borrowed, for messages */
	struct toml_entry *entries;
	size_t n;
};

/*
 * Read `path` into `t`, which the caller releases with toml_release()
 * whatever the result. Errors (ERR_USAGE): "PATH:LINE:COL: what".
 */
int toml_read(struct toml *t, const char *path, struct err *e);

/* The entry of full key `key`, or NULL. */
const struct toml_entry *toml_get(const struct toml *t, const char *key);

/* "PATH:LINE:COL: " + the message, into `e` (ERR_USAGE); -1. */
int toml_error_at(struct err *e, const struct toml *t, int line, int col,
		  const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

void toml_release(struct toml *t);

#endif
