#ifndef TICHAOS_CHECKS_H
#define TICHAOS_CHECKS_H

/*
 * The checks of a suite, run and reported the same way by `tichaos run`
 * and `tichaos check`: one TAP test point and one results.json entry per
 * check (docs/results.md).
 */

#include <stdint.h>

#include "checkers/checker.h"
#include "lib/buf.h"

struct suite;

/* Run every check of the suite into `out` (one per check item). */
void checks_run(const struct check_ctx *ctx, struct check_result *out);

/*
 * Append one TAP test point per check, numbered from *point + 1, with a
 * YAML block under failures (fail and unknown). Returns the exit code the
 * checks call for: 1 when one failed, else 3 when one could not decide,
 * else 0.
 */
int checks_tap(struct buf *tap, int *point, const struct suite *s,
	       const struct check_result *res, const char *run_dir,
	       uint64_t seed, struct err *e);

/* Append "\"checks\":[...]" for results.json. */
int checks_json(struct buf *out, const struct suite *s,
		const struct check_result *res, struct err *e);

void checks_release(const struct suite *s, struct check_result *res);

#endif
