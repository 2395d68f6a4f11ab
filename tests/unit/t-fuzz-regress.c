/*
 * tests/data/fuzz-regressions/NAME/: every input a fuzz harness once broke
 * the loaders with, replayed through the harness's entry point
 * (tests/fuzz/fuzz-NAME.c). A harness aborts when a loader breaks a
 * promise; under `make asan` the sanitizers catch what the fix fixed.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "tests/fuzz/fuzz.h"
#include "tests/unit/tap.h"

static const struct {
	const char *name;
	int (*fn)(const uint8_t *data, size_t size);
} harnesses[] = {
	{ "suite", fuzz_suite },
	{ "topology", fuzz_topology },
	{ "history", fuzz_history },
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replay every file of the harness's directory, in name order. */
static void replay(const char *name, int (*fn)(const uint8_t *, size_t))
{
	char dir[256], path[600];
	char **files = NULL;
	size_t n = 0;
	struct dirent *d;
	DIR *dp;

	snprintf(dir, sizeof(dir), "tests/data/fuzz-regressions/%s", name);
	dp = opendir(dir);
	if (!dp) {
		diag("%s: no inputs", dir);
		return;
	}
	while ((d = readdir(dp))) {
		if (d->d_name[0] == '.' || !strcmp(d->d_name, "README.md"))
			continue;
		files = realloc(files, (n + 1) * sizeof(*files));
		if (!files || !(files[n++] = strdup(d->d_name)))
			abort();
	}
	closedir(dp);
	if (n)
		qsort(files, n, sizeof(*files), by_name);
	for (size_t i = 0; i < n; i++) {
		struct buf input = BUF_INIT;
		struct err e = ERR_INIT;

		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		if (ok(!buf_read_file(&input, path, &e), "read %s", path))
			ok(fn((const uint8_t *)input.data, input.len) == 0,
			   "fuzz-%s replays %s", name, files[i]);
		else
			diag("%s", e.msg);
		buf_release(&input);
		free(files[i]);
	}
	free(files);
}

/* Run from the top of the tree, as `make test` does. */
int main(void)
{
	for (size_t i = 0; i < sizeof(harnesses) / sizeof(harnesses[0]); i++)
		replay(harnesses[i].name, harnesses[i].fn);
	return done_testing();
}
