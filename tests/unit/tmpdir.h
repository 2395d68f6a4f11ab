#ifndef TICHAOS_TMPDIR_H
#define TICHAOS_TMPDIR_H

/*
 * A scratch directory for unit tests, and plain-libc file helpers (so that
 * a test of lib/buf.c does not check itself with lib/buf.c).
 *
 *	struct tmpdir t;
 *
 *	if (tmpdir_create(&t))
 *		...;
 *	write_text(tmpdir_path(&t, "pidfile"), "123\n");
 *	...
 *	tmpdir_remove(&t);	removes it and everything under it
 *
 * tmpdir_path() returns a pointer into `t`: it stays valid until the next
 * call, so copy it when two paths are needed at once.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tmpdir {
	char dir[256];
	char path[512];
	int created;
};

/* mkdtemp a fresh directory under /tmp. 0, or -1 with errno set. */
static inline int tmpdir_create(struct tmpdir *t)
{
	snprintf(t->dir, sizeof(t->dir), "/tmp/tichaos-unit.XXXXXX");
	t->path[0] = '\0';
	t->created = mkdtemp(t->dir) != NULL;
	return t->created ? 0 : -1;
}

/* "<dir>/<name>", borrowed until the next call. */
static inline const char *tmpdir_path(struct tmpdir *t, const char *name)
{
	snprintf(t->path, sizeof(t->path), "%s/%s", t->dir, name);
	return t->path;
}

static inline int tmpdir_remove_one(const char *path, const struct stat *st,
				    int type, struct FTW *ftw)
{
	return remove(path) ? -1 : 0;
}

/* Remove the directory and everything in it. 0, or -1. */
static inline int tmpdir_remove(struct tmpdir *t)
{
	if (!t->created)
		return -1;	/* nothing of ours to remove */
	t->created = 0;
	return nftw(t->dir, tmpdir_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Create or truncate `path` holding `text`. 0, or -1. */
static inline int write_text(const char *path, const char *text)
{
	size_t len = strlen(text), off = 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			return -1;
		}
		off += (size_t)n;
	}
	return close(fd);
}

/*
 * Read at most size - 1 bytes of `path` into `out`, NUL-terminated. The
 * number of bytes read, or -1 (and out is "").
 */
static inline ssize_t read_text(const char *path, char *out, size_t size)
{
	size_t off = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	out[0] = '\0';
	if (fd < 0)
		return -1;
	while (off + 1 < size) {
		ssize_t n = read(fd, out + off, size - 1 - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			out[0] = '\0';
			return -1;
		}
		if (!n)
			break;
		off += (size_t)n;
	}
	out[off] = '\0';
	close(fd);
	return (ssize_t)off;
}

/* How many descriptors this process has open, or -1: a test's check
 * that nothing it called left one. */
static inline int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *ent;
	int n = -1;	/* opendir's own */

	if (!d)
		return -1;
	while ((ent = readdir(d)))
		if (ent->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

#endif
