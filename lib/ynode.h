#ifndef TICHAOS_YNODE_H
#define TICHAOS_YNODE_H

/*
 * YAML files (suites, topologies) loaded into a small tree with the
 * position of every node, so that validators can say "file:line:col:".
 *
 * Loading is defensive: one document only, no anchors or aliases, no tags
 * beyond the core ones, at most YNODE_MAX_DEPTH levels of nesting, at most
 * YNODE_MAX_BYTES of input, duplicate mapping keys rejected. Every error is
 * one line "FILE:LINE:COL: message" (ERR_USAGE), or "FILE: message" when
 * the file cannot be read (ERR_USAGE too: it is the user's input).
 */

#include <stddef.h>

#include "buf.h"
#include "err.h"

#define YNODE_MAX_DEPTH 64
#define YNODE_MAX_BYTES ((size_t)16 << 20)

enum ynode_kind {
	YNODE_SCALAR,
	YNODE_SEQ,
	YNODE_MAP,
};

struct ynode {
	enum ynode_kind kind;
	int line;			/* 1-based */
	int col;			/* 1-based */
	/* YNODE_SCALAR: the text; `plain` when it was not quoted (so "null"
	 * in quotes is a string, null unquoted is null). */
	char *value;
	int plain;
	/* YNODE_SEQ: n items. YNODE_MAP: n keys and values interleaved,
	 * items[2i] the key (a scalar), items[2i+1] its value. */
	struct ynode **items;
	size_t n;
};

/*
 * Parse `path` into *root (caller frees with ynode_free). An empty document
 * gives *root = NULL and 0.
 */
int ynode_load_file(const char *path, struct ynode **root, struct err *e);

/* Parse a string; `name` stands for the file name in messages. */
int ynode_load_string(const char *name, const char *text, size_t len,
		     struct ynode **root, struct err *e);

void ynode_free(struct ynode *node);

/* Number of pairs of a mapping (n / 2), items of a sequence. */
size_t ynode_len(const struct ynode *node);

/* The value for `key` in mapping `map`, or NULL. */
const struct ynode *ynode_get(const struct ynode *map, const char *key);

/* Kind names for messages: "a scalar", "a list", "a mapping". */
const char *ynode_kind_name(enum ynode_kind kind);

/*
 * Fail with "FILE:L:C: <message>" at `node` (ERR_USAGE). Always -1. A
 * node placed at line -1 is no text of the file but a value the command
 * line set in its tree (--set): "FILE: <message> (set by --set)".
 */
int ynode_error(struct err *e, const char *file, const struct ynode *node,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * Check that `node` is a mapping whose keys all appear in `allowed`
 * (NULL-terminated). Otherwise: "FILE:L:C: unknown key 'treads' in
 * workload (did you mean 'threads'?)" — the suggestion when a known key
 * is within two edits — or "FILE:L:C: workload must be a mapping, not a
 * list". `what` names the mapping in messages.
 */
int ynode_check_map(const char *file, const struct ynode *node,
		   const char *const *allowed, const char *what,
		   struct err *e);

/*
 * The closest of `words` (NULL-terminated) to `s` within two edits, or
 * NULL.
 */
const char *ynode_suggest(const char *s, const char *const *words);

/*
 * Append `s` as a YAML double-quoted scalar that reads back as `s`:
 * quotes, backslashes, control characters (C0 and C1) and the line breaks
 * NEL, U+2028 and U+2029 escaped.
 */
int ynode_quote(struct buf *out, const char *s, struct err *e);

#endif
