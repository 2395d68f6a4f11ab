/*
 * A file's unsynced writes (diskfs/overlay.h). The extents are kept
 * sorted and apart; a write cuts what it covers out of the extents it
 * meets and goes in as one, joined to the one before it when it follows
 * it at once (a log written in order stays one extent, its buffer grown
 * by doubling).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diskfs/overlay.h"
#include "lib/buf.h"

void overlay_init(struct overlay *o, uint64_t size)
{
	memset(o, 0, sizeof(*o));
	o->size = o->kept = o->synced = size;
}

static void free_extents(struct overlay *o)
{
	for (size_t i = 0; i < o->n; i++)
		free(o->ext[i].data);
	o->n = 0;
}

void overlay_release(struct overlay *o)
{
	free_extents(o);
	free(o->ext);
	memset(o, 0, sizeof(*o));
}

int overlay_dirty(const struct overlay *o)
{
	return o->n || o->size != o->synced || o->kept != o->synced;
}

uint64_t overlay_unsynced_bytes(const struct overlay *o)
{
	uint64_t n = 0;

	for (size_t i = 0; i < o->n; i++)
		n += o->ext[i].len;
	return n;
}

/* Room for one more extent at index `at`. */
static void open_slot(struct overlay *o, size_t at)
{
	if (o->n == o->alloc) {
		o->alloc = o->alloc ? 2 * o->alloc : 8;
		o->ext = xrealloc(o->ext, o->alloc * sizeof(*o->ext));
	}
	memmove(&o->ext[at + 1], &o->ext[at], (o->n - at) * sizeof(*o->ext));
	o->n++;
}

static void close_slot(struct overlay *o, size_t at)
{
	free(o->ext[at].data);
	memmove(&o->ext[at], &o->ext[at + 1],
		(o->n - at - 1) * sizeof(*o->ext));
	o->n--;
}

/* An extent of `len` bytes of `src` at `off`. */
static struct overlay_extent extent(uint64_t off, const void *src, size_t len)
{
	struct overlay_extent x = { off, len, len ? len : 1,
				    xmalloc(len ? len : 1) };

	memcpy(x.data, src, len);
	return x;
}

/*
 * Cut [a, b) out of the extents: one that straddles it keeps its parts
 * outside it. Returns where an extent starting at `a` goes.
 */
static size_t cut(struct overlay *o, uint64_t a, uint64_t b)
{
	size_t i = 0;

	while (i < o->n && o->ext[i].off + o->ext[i].len <= a)
		i++;
	while (i < o->n && o->ext[i].off < b) {
		struct overlay_extent *x = &o->ext[i];
		uint64_t end = x->off + x->len;

		if (x->off < a && end > b) {
			/* Split: [off, a) stays, [b, end) goes after it. */
			struct overlay_extent right =
				extent(b, x->data + (b - x->off), end - b);

			x->len = a - x->off;
			open_slot(o, i + 1);
			o->ext[i + 1] = right;
			return i + 1;
		}
		if (x->off < a) {
			x->len = a - x->off;
			i++;
		} else if (end > b) {
			memmove(x->data, x->data + (b - x->off), end - b);
			x->len = end - b;
			x->off = b;
			return i;
		} else {
			close_slot(o, i);
		}
	}
	return i;
}

void overlay_write(struct overlay *o, uint64_t off, const void *buf,
		   size_t len)
{
	size_t at;

	if (!len)
		return;
	at = cut(o, off, off + len);
	if (at > 0 && o->ext[at - 1].off + o->ext[at - 1].len == off) {
		struct overlay_extent *prev = &o->ext[at - 1];

		/* Doubling: a log written in order costs no copy a write. */
		if (prev->len + len > prev->cap) {
			prev->cap = prev->len + len > 2 * prev->cap
				    ? prev->len + len : 2 * prev->cap;
			prev->data = xrealloc(prev->data, prev->cap);
		}
		memcpy(prev->data + prev->len, buf, len);
		prev->len += len;
	} else {
		open_slot(o, at);
		o->ext[at] = extent(off, buf, len);
	}
	if (off + len > o->size)
		o->size = off + len;
}

void overlay_truncate(struct overlay *o, uint64_t size)
{
	if (size < o->size)
		cut(o, size, UINT64_MAX);
	/* What a later extension shows there is zeros, not old bytes. */
	if (size < o->kept)
		o->kept = size;
	o->size = size;
}

ssize_t overlay_read(const struct overlay *o, int fd, uint64_t off,
		     void *buf, size_t len)
{
	unsigned char *out = buf;
	size_t n, from_file = 0, got = 0;

	if (off >= o->size)
		return 0;
	n = o->size - off < len ? (size_t)(o->size - off) : len;
	if (off < o->kept)
		from_file = o->kept - off < n ? (size_t)(o->kept - off) : n;
	while (got < from_file) {
		ssize_t r = pread(fd, out + got, from_file - got,
				  (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;	/* shorter than it was synced: zeros */
		got += (size_t)r;
	}
	memset(out + got, 0, n - got);
	for (size_t i = 0; i < o->n; i++) {
		const struct overlay_extent *x = &o->ext[i];
		uint64_t a = x->off > off ? x->off : off;
		uint64_t b = x->off + x->len < off + n ? x->off + x->len
						      : off + n;

		if (a < b)
			memcpy(out + (a - off), x->data + (a - x->off),
			       (size_t)(b - a));
	}
	return (ssize_t)n;
}

int overlay_flush(struct overlay *o, int fd)
{
	if (o->kept < o->synced && ftruncate(fd, (off_t)o->kept))
		return -1;
	for (size_t i = 0; i < o->n; i++) {
		const struct overlay_extent *x = &o->ext[i];

		for (size_t done = 0; done < x->len;) {
			ssize_t w = pwrite(fd, x->data + done, x->len - done,
					   (off_t)(x->off + done));

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return -1;
			done += (size_t)w;
		}
	}
	/* Nothing held: the file untouched, its times too (a sync writes
	 * no metadata it did not change). */
	if ((o->n || o->size != o->synced) && ftruncate(fd, (off_t)o->size))
		return -1;
	free_extents(o);
	o->kept = o->synced = o->size;
	return 0;
}

void overlay_drop(struct overlay *o)
{
	free_extents(o);
	o->size = o->kept = o->synced;
}
