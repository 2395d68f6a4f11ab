#include <stdio.h>

#include "checkers/checker.h"
#include "clusters/cluster.h"
#include "faults/fault.h"
#include "runner/runner.h"
#include "workloads/workload.h"

/* Kinds of every registry are listed the same way. */
#define LIST(title, types)                                                   \
	do {                                                                 \
		int n = 0;                                                   \
		printf("%s:\n", title);                                      \
		for (; types[n]; n++)                                        \
			printf("  %-20s %s\n", types[n]->name,               \
			       types[n]->doc);                               \
		if (!n)                                                      \
			printf("  (none registered yet)\n");                 \
	} while (0)

int cmd_list(int argc, char **argv)
{
	static const struct opt opts[] = { { NULL, 0, NULL, NULL } };

	if (opts_parse(command_find("list"), opts, argc, argv))
		die(EXIT_USAGE, "list: takes no arguments");
	LIST("clusters", cluster_types);
	printf("\n");
	LIST("workloads", workload_types);
	printf("\n");
	LIST("faults", fault_types);
	printf("\n");
	LIST("checkers", checker_types);
	return fflush(stdout) ? EXIT_INFRA : EXIT_PASS;
}
