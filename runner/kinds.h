#ifndef TICHAOS_KINDS_H
#define TICHAOS_KINDS_H

/*
 * Every kind of this build, as the core's suite loader takes them: the
 * registries of workloads/, faults/ and checkers/ (docs/internals.md,
 * Layers).
 */

#include <jansson.h>

#include "core/suite.h"
#include "lib/err.h"

extern const struct suite_kinds tichaos_kinds;

/*
 * Build every report of the run in `dir` from its `results`
 * (reports/report.h, reports_write), with what this build's kinds
 * describe: how each fault kind holds, and each check kind's drawing.
 */
int kinds_reports_write(const json_t *results, const char *dir,
			struct err *e);

#endif
