#include "buf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char empty[1];

void buf_init(struct buf *b, size_t limit)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->limit = limit;
}

static size_t limit_of(const struct buf *b)
{
	return b->limit ? b->limit : BUF_DEFAULT_LIMIT;
}

static int grow(struct buf *b, size_t extra, struct err *e)
{
	size_t want, cap;
	char *p;

	if (extra > limit_of(b) || b->len > limit_of(b) - extra)
		return err_set(e, ERR_INFRA,
			       "buffer limit of %zu bytes exceeded", limit_of(b));
	want = b->len + extra + 1;
	if (want <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < want)
		cap = cap < SIZE_MAX / 2 ? cap * 2 : want;
	p = xrealloc(b->data, cap);
	b->data = p;
	b->cap = cap;
	return 0;
}

int buf_add(struct buf *b, const void *data, size_t len, struct err *e)
{
	/* Room enough within the limit, the usual case, checks no more
	 * (lines and statements are built with many small appends). */
	if ((len >= b->cap - b->len || b->len + len > limit_of(b)) &&
	    grow(b, len, e))
		return -1;
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
	return 0;
}

int buf_addstr(struct buf *b, const char *s, struct err *e)
{
	return buf_add(b, s, strlen(s), e);
}

int buf_addch(struct buf *b, char c, struct err *e)
{
	return buf_add(b, &c, 1, e);
}

int buf_addint(struct buf *b, long long v, struct err *e)
{
	char digits[24], *p = digits + sizeof(digits);
	/* Negated as unsigned, so that LLONG_MIN is right too. */
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v
				     : (unsigned long long)v;

	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	return buf_add(b, p, (size_t)(digits + sizeof(digits) - p), e);
}

int buf_vprintf(struct buf *b, struct err *e, const char *fmt, va_list ap)
{
	va_list copy;
	int n;

	va_copy(copy, ap);
	n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (n < 0)
		return err_set(e, ERR_INFRA, "cannot format '%s'", fmt);
	if (grow(b, (size_t)n, e))
		return -1;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int buf_printf(struct buf *b, struct err *e, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = buf_vprintf(b, e, fmt, ap);
	va_end(ap);
	return rc;
}

int buf_read_file(struct buf *b, const char *path, struct err *e)
{
	char chunk[65536];
	size_t old_len = b->len;
	ssize_t n;
	int fd, rc = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_errno(e, errno, "cannot open '%s'", path);
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = err_errno(e, errno, "cannot read '%s'", path);
			break;
		}
		if (n == 0)
			break;
		if (buf_add(b, chunk, (size_t)n, NULL)) {
			rc = err_set(e, ERR_INFRA, "'%s' is larger than %zu "
				     "bytes", path, limit_of(b));
			break;
		}
	}
	close(fd);
	if (rc)
		buf_truncate(b, old_len);	/* drop what earlier chunks added */
	else if (!b->data)
		rc = buf_add(b, "", 0, e);
	return rc;
}

int buf_write_file(const struct buf *b, const char *path, int mode,
		   struct err *e)
{
	char tmp[4096];
	size_t off = 0;
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid())
	    >= (int)sizeof(tmp))
		return err_set(e, ERR_INFRA, "path too long: '%s'", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		return err_errno(e, errno, "cannot create '%s'", tmp);
	while (off < b->len) {
		ssize_t n = write(fd, b->data + off, b->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		off += (size_t)n;
	}
	if (fsync(fd))
		goto fail;
	if (close(fd)) {
		fd = -1;
		goto fail;
	}
	if (rename(tmp, path)) {
		err_errno(e, errno, "cannot rename '%s' to '%s'", tmp, path);
		unlink(tmp);
		return -1;
	}
	return 0;
fail:
	err_errno(e, errno, "cannot write '%s'", tmp);
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	return -1;
}

const char *buf_str(const struct buf *b)
{
	return b->data ? b->data : empty;
}

void buf_reset(struct buf *b)
{
	buf_truncate(b, 0);
}

void buf_truncate(struct buf *b, size_t len)
{
	if (len < b->len) {
		b->len = len;
		b->data[len] = '\0';
	}
}

void buf_rtrim(struct buf *b)
{
	size_t len = b->len;

	while (len && (b->data[len - 1] == ' ' || b->data[len - 1] == '\t' ||
		       b->data[len - 1] == '\n' || b->data[len - 1] == '\r'))
		len--;
	buf_truncate(b, len);
}

void buf_release(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

char *buf_detach(struct buf *b, size_t *len)
{
	char *p = b->data;

	if (!p)
		p = xcalloc(1, 1);
	if (len)
		*len = b->len;
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	return p;
}

/* Out of memory: say so, then abort (no allocation on the way). */
static void die_oom(size_t size)
{
	char msg[80];
	int n = snprintf(msg, sizeof(msg), "tichaos: out of memory allocating "
			 "%zu bytes\n", size);

	if (n > 0 && write(2, msg, (size_t)n) < 0)
		abort();
	abort();
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		die_oom(size);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die_oom(n * size);
	return p;
}

void *xrealloc(void *p, size_t size)
{
	void *q = realloc(p, size ? size : 1);

	if (!q)
		die_oom(size);
	return q;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die_oom(strlen(s) + 1);
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (!p)
		die_oom(n + 1);
	return p;
}

char *xprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	if (vasprintf(&p, fmt, ap) < 0)
		die_oom(strlen(fmt));
	va_end(ap);
	return p;
}

int buf_copy_file(const char *from, const char *to, struct err *e)
{
	struct buf text = BUF_INIT;
	int rc = buf_read_file(&text, from, e) ||
		 buf_write_file(&text, to, 0644, e);

	buf_release(&text);
	return rc ? -1 : 0;
}
