#ifndef TICHAOS_OVERLAY_H
#define TICHAOS_OVERLAY_H

/*
 * What a file's writes since its last fsync are, held apart from the
 * file itself, as a kernel's page cache holds them until they reach the
 * disk (tichaos-diskfs, diskfs/main.c). The backing file holds exactly
 * what was synced; the overlay holds the rest: the extents written since
 * (sorted, not overlapping), the size the program sees, and how much of
 * the backing file still counts after a truncate. A read is the backing
 * file's bytes (zeros past what counts) under the extents; a sync writes
 * the extents and the size to the backing file (overlay_flush); a power
 * loss drops them (overlay_drop). POSIX loses nothing else: what was
 * synced stays, byte for byte.
 *
 * Not thread-safe: one lock per file is the caller's.
 */

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct overlay_extent {
	uint64_t off;
	size_t len;
	size_t cap;		/* data's size: it grows by doubling */
	unsigned char *data;
};

struct overlay {
	uint64_t size;		/* the file's size as its readers see it */
	uint64_t kept;		/* bytes of the backing file that count */
	uint64_t synced;	/* the backing file's size */
	struct overlay_extent *ext;
	size_t n, alloc;
};

/* An overlay over a backing file of `size` bytes, nothing unsynced. */
void overlay_init(struct overlay *o, uint64_t size);

/* Free the extents; `o` is empty. */
void overlay_release(struct overlay *o);

/* Whether anything is unsynced: extents, or a size other than synced. */
int overlay_dirty(const struct overlay *o);

/* Bytes written since the last sync (what a loss drops). */
uint64_t overlay_unsynced_bytes(const struct overlay *o);

/* `len` bytes of `buf` written at `off`. */
void overlay_write(struct overlay *o, uint64_t off, const void *buf,
		   size_t len);

/* The file truncated (or extended with zeros) to `size`. */
void overlay_truncate(struct overlay *o, uint64_t size);

/*
 * Up to `len` bytes at `off` as a reader sees them, from the backing
 * file `fd` and the extents: the count read (0 at or past the end), or
 * -1 with errno (a file system answers with it) when the backing file
 * cannot be read.
 */
ssize_t overlay_read(const struct overlay *o, int fd, uint64_t off,
		     void *buf, size_t len);

/*
 * Write what is unsynced to the backing file `fd` (the caller fsyncs
 * it after): its size cut to what counts, the extents, its size. The
 * overlay is then clean. -1 with errno (nothing dropped) when a write
 * fails.
 */
int overlay_flush(struct overlay *o, int fd);

/* A power loss: everything since the last sync dropped. */
void overlay_drop(struct overlay *o);

#endif
