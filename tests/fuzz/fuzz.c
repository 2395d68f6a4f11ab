/* The scratch directory and failure helper shared by the harnesses. */
#include "tests/fuzz/fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char scratch[4096];

static int remove_one(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	return remove(path) ? -1 : 0;
}

static void remove_scratch(void)
{
	if (scratch[0])
		nftw(scratch, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

void fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("fuzz: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

const char *fuzz_dir(void)
{
	const char *tmp = getenv("TMPDIR");

	if (scratch[0])
		return scratch;
	/* tmpfs when there is one: loaders write files with fsync. */
	if (!tmp || !*tmp)
		tmp = access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm";
	snprintf(scratch, sizeof(scratch), "%s/tichaos-fuzz.XXXXXX", tmp);
	if (!mkdtemp(scratch))
		fuzz_fail("cannot create '%s': %s", scratch, strerror(errno));
	atexit(remove_scratch);
	return scratch;
}

const char *fuzz_file(const char *name, const void *data, size_t size)
{
	static struct {
		const char *name;
		char path[4200];
	} files[8];
	size_t i, off = 0;
	int fd;

	for (i = 0; i < 8 && files[i].name && strcmp(files[i].name, name); i++)
		;
	if (i == 8)
		fuzz_fail("too many scratch files");
	if (!files[i].name) {
		files[i].name = name;
		snprintf(files[i].path, sizeof(files[i].path), "%s/%s",
			 fuzz_dir(), name);
	}
	fd = open(files[i].path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		  0644);
	if (fd < 0)
		fuzz_fail("cannot create '%s': %s", files[i].path,
			  strerror(errno));
	while (off < size) {
		ssize_t n = write(fd, (const char *)data + off, size - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			fuzz_fail("cannot write '%s': %s", files[i].path,
				  strerror(errno));
		off += (size_t)n;
	}
	if (close(fd))
		fuzz_fail("cannot close '%s': %s", files[i].path,
			  strerror(errno));
	return files[i].path;
}
