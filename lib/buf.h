#ifndef TICHAOS_BUF_H
#define TICHAOS_BUF_H

/*
 * A growable byte buffer with a size limit, for SQL text, HTTP bodies,
 * file contents and reports.
 *
 * The contents are always NUL-terminated once anything was added, so
 * buf_str() can be passed where a C string is expected. Growing past
 * `limit` bytes (not counting the terminator) fails with ERR_INFRA and
 * leaves the buffer as it was: the limit bounds what an input (a file, an
 * HTTP body) may make it hold, and is the only way an append fails;
 * running out of memory dies (xmalloc). A limit of 0 means
 * BUF_DEFAULT_LIMIT.
 */

#include <stdarg.h>
#include <stddef.h>

#include "err.h"

#define BUF_DEFAULT_LIMIT ((size_t)64 << 20)

struct buf {
	char *data;
	size_t len;
	size_t cap;
	size_t limit;
};

#define BUF_INIT { NULL, 0, 0, 0 }

/* Fill a caller's struct: empty, with the given limit (0 = default). */
void buf_init(struct buf *b, size_t limit);

/* Append bytes. 0, or -1 with `e` set when the limit would be passed. */
int buf_add(struct buf *b, const void *data, size_t len, struct err *e);
int buf_addstr(struct buf *b, const char *s, struct err *e);
int buf_addch(struct buf *b, char c, struct err *e);
/* Append `v` in decimal, as printf's "%lld" would, without printf. */
int buf_addint(struct buf *b, long long v, struct err *e);
int buf_printf(struct buf *b, struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int buf_vprintf(struct buf *b, struct err *e, const char *fmt, va_list ap);

/*
 * Read a whole file into the buffer (appending). Fails when it cannot be
 * opened or read, or when it is larger than the limit; the buffer is then
 * left as it was.
 */
int buf_read_file(struct buf *b, const char *path, struct err *e);

/*
 * Write the buffer to `path` atomically: a temporary file in the same
 * directory, fsync, rename. `mode` as for open(2).
 */
int buf_write_file(const struct buf *b, const char *path, int mode,
		   struct err *e);

/* `from` copied to `to` (buf_read_file, then buf_write_file, 0644). */
int buf_copy_file(const char *from, const char *to, struct err *e);

/* The contents as a C string; "" when nothing was added. Borrowed. */
const char *buf_str(const struct buf *b);

/* Drop the contents, keep the memory. */
void buf_reset(struct buf *b);

/* Shorten to `len` bytes (no-op if already shorter). */
void buf_truncate(struct buf *b, size_t len);

/* Remove trailing whitespace. */
void buf_rtrim(struct buf *b);

/* Free the contents; the struct is empty again (limit kept). */
void buf_release(struct buf *b);

/*
 * Hand the contents to the caller (caller frees; never NULL) and leave the
 * buffer empty.
 */
char *buf_detach(struct buf *b, size_t *len);

/*
 * Allocation dies (docs/internals.md, Rules): these never return NULL.
 * Out of memory, they say so on stderr ("tichaos: out of memory
 * allocating N bytes") and abort; so does a buffer that cannot grow.
 * xstrdup and xprintf: a copy of `s`, or a formatted string.
 */
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
