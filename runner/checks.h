#ifndef TICHAOS_CHECKS_H
#define TICHAOS_CHECKS_H

/*
 * The checks of a suite, run and reported the same way by `tichaos run`
 * and `tichaos check`: one TAP test point and one results.json entry per
 * check (docs/results.md).
 */

#include <stdint.h>

#include <jansson.h>

#include "checkers/checker.h"
#include "lib/buf.h"

struct suite;

/* Run every check of the suite into `out` (one per check item). */
void checks_run(const struct check_ctx *ctx, struct check_result *out);

/*
 * The results.json items of the checks (docs/results.md): name, verdict,
 * summary, message, numbers, took_ms, details. `res` may be NULL (not
 * run: every check skipped). The suite's expect: entries that apply on a
 * cluster of kind `cluster` (cluster_kind(); NULL: any) mark what they
 * declare.
 */
json_t *checks_items(const struct suite *s, const struct check_result *res,
		     const char *cluster);

/*
 * The check items of `tichaos check`, from those a run (or an earlier
 * check) recorded and those just judged (`fresh`, from checks_items);
 * a new reference. No verdict recorded is weakened (docs/results.md,
 * "Checked again"): a fresh verdict becomes the item's only where it
 * says as much as the recorded one or more (an undeclared failure, then
 * a pass or a known failure, then unknown, then skip); the other joins
 * the item's "rechecks" (by "run" or "check", at the run's `started` or
 * `at`), so both stay visible. `recorded` may be NULL.
 */
json_t *checks_merge(const json_t *recorded, const json_t *fresh,
		     const char *started, const char *at);

void checks_release(const struct suite *s, struct check_result *res);

#endif
