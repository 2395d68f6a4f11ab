/*
 * The registries the runner feeds the core (runner/kinds.h).
 */
#include "runner/kinds.h"

#include "checkers/checker.h"
#include "faults/fault.h"
#include "workloads/workload.h"

const struct suite_kinds tichaos_kinds = {
	.workloads = workload_kind,
	.faults = fault_kind,
	.checks = checker_kind,
};
