#ifndef TICHAOS_KINDS_H
#define TICHAOS_KINDS_H

/*
 * Every kind of this build, as the core's suite loader takes them: the
 * registries of workloads/, faults/ and checkers/ (docs/internals.md,
 * Layers).
 */

#include "core/suite.h"

extern const struct suite_kinds tichaos_kinds;

#endif
