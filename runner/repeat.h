#ifndef TICHAOS_REPEAT_H
#define TICHAOS_REPEAT_H

/*
 * tichaos run --repeat N / --until-fail over one suite (runner/repeat.c):
 * each iteration by a child tichaos (runner/job.h) with a seed of its
 * own, one after another; one TAP stream with a subtest per iteration and
 * a summary, one JUnit file with a testsuite per iteration.
 */

#include <stdint.h>

#include "lib/err.h"

struct repeat_options {
	int64_t count;		/* iterations at most; 0: no bound */
	int until_fail;		/* stop at the first that does not pass */
	int64_t budget_ns;	/* no iteration starts after it; 0: none */
	int has_seed;		/* --seed given: the base of the series */
	uint64_t seed;
	int dry_run;		/* print the seeds and stop */
	const char *junit;	/* the combined JUnit file */
	/* The options every child's `tichaos run SUITE` gets besides its
	 * --seed, NULL-ended, at most 24. */
	const char *const *pass;
};

/*
 * The iterations' seeds: with a base seed (--seed, else the suite's
 * `seed:`) rand_series_seed(base, i), else a fresh one each. Each
 * iteration's run directory is kept unless it passed and a later
 * iteration passed too. Returns the worst of the iterations' exit codes
 * (interrupted above all); EXIT_USAGE with `e` set when the suite does
 * not load, or --dry-run has no base seed to list.
 */
int run_repeat(const char *path, const struct repeat_options *r,
	       struct err *e);

#endif
