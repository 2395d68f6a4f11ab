#ifndef TICHAOS_BATCH_H
#define TICHAOS_BATCH_H

/*
 * tichaos run over several suites (runner/batch.c): each by a child
 * tichaos of its own, `jobs` at once, one TAP stream with a subtest per
 * suite, one JUnit file with a testsuite per suite.
 */

#include <stddef.h>

#include "lib/err.h"

struct batch_options {
	int jobs;		/* suites run at once, >= 1 */
	const char *junit;	/* the combined JUnit file */
	/* The options every child's `tichaos run SUITE` gets, NULL-ended. */
	const char *const *pass;
};

/* "I/N", 1 <= I <= N <= 1000: *index, *count, 0; else -1. */
int batch_shard(const char *spec, int *index, int *count);

/*
 * Sort `suites` by path and keep the `index`-th of every `count` (1-based),
 * in place: the shards 1..count of one list hold each suite exactly once.
 * Returns how many are kept.
 */
size_t batch_select(char **suites, size_t n, int index, int count);

/* Run the suites; the worst exit code (interrupted above all). */
int run_batch(char **suites, size_t n, const struct batch_options *b,
	      struct err *e);

#endif
