/*
 * diskfs/overlay.c against a model: random writes, truncates, syncs and
 * losses on a real backing file, checked after each step. What a reader
 * sees is the model's file; after a sync the backing file is that, byte
 * for byte; after a loss the reader sees the last synced state again.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diskfs/overlay.h"
#include "lib/buf.h"
#include "lib/rand.h"
#include "tests/unit/tap.h"
#include "tests/unit/tmpdir.h"

#define MAX_SIZE 20000

struct model {
	unsigned char seen[MAX_SIZE + 4096];	/* what a reader sees */
	size_t seen_size;
	unsigned char synced[MAX_SIZE + 4096];
	size_t synced_size;
};

/* The whole file through overlay_read, against the model's. */
static int reads_as(const struct overlay *o, int fd, const struct model *m)
{
	static unsigned char got[MAX_SIZE + 4096];
	ssize_t n = overlay_read(o, fd, 0, got, sizeof(got));

	return n == (ssize_t)m->seen_size && o->size == m->seen_size &&
	       !memcmp(got, m->seen, m->seen_size);
}

/* The backing file, against the model's synced state. */
static int backing_is(int fd, const struct model *m)
{
	static unsigned char got[MAX_SIZE + 8192];
	ssize_t n = pread(fd, got, sizeof(got), 0);

	return n == (ssize_t)m->synced_size &&
	       !memcmp(got, m->synced, m->synced_size);
}

static void edge_cases(int fd)
{
	struct overlay o;
	unsigned char buf[64];

	if (ftruncate(fd, 0) || pwrite(fd, "abcdefgh", 8, 0) != 8)
		abort();
	overlay_init(&o, 8);
	ok(!overlay_dirty(&o), "a new overlay is clean");
	overlay_write(&o, 2, "XY", 2);
	overlay_write(&o, 4, "Z", 1);
	is_int(o.n, 1, "a write right after another joins it");
	is_int(overlay_read(&o, fd, 0, buf, sizeof(buf)), 8, "read 8");
	ok(!memcmp(buf, "abXYZfgh", 8), "the writes over the file");
	overlay_truncate(&o, 3);
	overlay_truncate(&o, 6);
	is_int(overlay_read(&o, fd, 0, buf, sizeof(buf)), 6, "read 6");
	ok(!memcmp(buf, "abX\0\0\0", 6),
	   "cut to 3 then grown to 6: zeros, not the old bytes");
	is_int(overlay_unsynced_bytes(&o), 1, "1 byte written and kept");
	overlay_drop(&o);
	is_int(overlay_read(&o, fd, 0, buf, sizeof(buf)), 8,
	       "a loss: 8 bytes again");
	ok(!memcmp(buf, "abcdefgh", 8), "as synced");
	ok(!overlay_dirty(&o), "and clean");
	overlay_write(&o, 20, "q", 1);
	is_int(overlay_read(&o, fd, 0, buf, sizeof(buf)), 21,
	       "a write past the end grows it");
	ok(!memcmp(buf + 8, "\0\0\0\0\0\0\0\0\0\0\0\0q", 13),
	   "with a hole of zeros");
	is_int(overlay_flush(&o, fd), 0, "flush");
	ok(!overlay_dirty(&o), "clean once flushed");
	is_int(pread(fd, buf, sizeof(buf), 0), 21, "the backing file: 21");
	ok(!memcmp(buf, "abcdefgh\0\0\0\0\0\0\0\0\0\0\0\0q", 21), "its bytes");
	overlay_release(&o);
}

int main(void)
{
	struct tmpdir t;
	struct model *m = xcalloc(1, sizeof(*m));
	struct overlay o;
	struct rand r;
	int fd, bad = 0, steps = 0, syncs = 0, losses = 0;

	if (tmpdir_create(&t))
		abort();
	fd = open(tmpdir_path(&t, "f"), O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		abort();
	edge_cases(fd);

	if (ftruncate(fd, 0))
		abort();
	overlay_init(&o, 0);
	rand_seed(&r, 42);
	for (steps = 0; steps < 20000 && !bad; steps++) {
		uint64_t kind = rand_below(&r, 100);

		if (kind < 60) {
			size_t len = 1 + (size_t)rand_below(&r, 3000);
			size_t off = (size_t)rand_below(&r, MAX_SIZE - len);
			unsigned char data[3000];

			for (size_t i = 0; i < len; i++)
				data[i] = (unsigned char)rand_below(&r, 256);
			overlay_write(&o, off, data, len);
			memcpy(m->seen + off, data, len);
			if (off + len > m->seen_size)
				m->seen_size = off + len;
		} else if (kind < 75) {
			size_t size = (size_t)rand_below(&r, MAX_SIZE);

			overlay_truncate(&o, size);
			/* Past the end a file is zeros, also where it was
			 * longer once. */
			memset(m->seen + size, 0, sizeof(m->seen) - size);
			m->seen_size = size;
		} else if (kind < 90) {
			if (overlay_flush(&o, fd))
				bad = 1;
			memcpy(m->synced, m->seen, m->seen_size);
			m->synced_size = m->seen_size;
			syncs++;
			if (!backing_is(fd, m)) {
				diag("step %d: the backing file is not what "
				     "was synced", steps);
				bad = 1;
			}
		} else {
			overlay_drop(&o);
			memcpy(m->seen, m->synced, m->synced_size);
			memset(m->seen + m->synced_size, 0,
			       sizeof(m->seen) - m->synced_size);
			m->seen_size = m->synced_size;
			losses++;
			if (!backing_is(fd, m)) {
				diag("step %d: a loss changed the backing "
				     "file", steps);
				bad = 1;
			}
		}
		if (!bad && !reads_as(&o, fd, m)) {
			diag("step %d (kind %llu): a read is not the model's",
			     steps, (unsigned long long)kind);
			bad = 1;
		}
	}
	ok(!bad, "20000 random steps (%d syncs, %d losses): every read the "
	   "model's, the backing file what was synced", syncs, losses);
	overlay_release(&o);
	close(fd);
	free(m);
	tmpdir_remove(&t);
	return done_testing();
}
