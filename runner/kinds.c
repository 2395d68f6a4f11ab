/*
 * The registries the runner feeds the core (runner/kinds.h).
 */
#include "runner/kinds.h"

#include "checkers/checker.h"
#include "clusters/cluster.h"
#include "faults/fault.h"
#include "reports/report.h"
#include "workloads/workload.h"

/* The i-th cluster kind's name, from clusters/registry.c. */
static const char *cluster_kind_name(size_t i)
{
	const struct cluster_type *t = cluster_type_at(i);

	return t ? t->name : NULL;
}

/* The i-th cluster kind's own section of a suite, or NULL. */
static const struct suite_section_type *cluster_section(size_t i)
{
	const struct cluster_type *t = cluster_type_at(i);

	return t ? t->suite : NULL;
}

const struct suite_kinds tichaos_kinds = {
	.workloads = workload_kind,
	.faults = fault_kind,
	.checks = checker_kind,
	.cluster_kind = cluster_kind_name,
	.cluster_section = cluster_section,
};

int kinds_reports_write(const json_t *results, const char *dir,
			struct err *e)
{
	return reports_write(&(struct report_run){
		.results = results,
		.run_dir = dir,
		.holds = fault_holds_all(),
		.drawers = checker_drawers(),
	}, e);
}
