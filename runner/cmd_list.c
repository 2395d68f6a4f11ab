#include <stdio.h>
#include <string.h>

#include "checkers/checker.h"
#include "clusters/cluster.h"
#include "faults/fault.h"
#include "lib/buf.h"
#include "runner/runner.h"
#include "workloads/workload.h"

static void list_kinds(const char *title, kind_nth_fn nth, int options)
{
	const struct kind *k;
	size_t i;

	printf("\n%s:\n", title);
	for (i = 0; (k = nth(i)); i++) {
		printf("  %-20s %s\n", k->name, k->doc);
		if (options && k->nopts) {
			struct buf out = BUF_INIT;

			optspec_describe(k->opts, k->nopts, &out, NULL);
			fputs(buf_str(&out), stdout);
			buf_release(&out);
		}
	}
	if (!i)
		printf("  (none registered yet)\n");
}

int cmd_list(int argc, char **argv)
{
	int options = 0;
	const struct opt opts[] = {
		{ "options", 0, NULL, &options, NULL },
		{ NULL, 0, NULL, NULL, NULL },
	};

	if (opts_parse(command_find("list"), opts, argc, argv))
		die(EXIT_USAGE, "list: takes no arguments");
	printf("clusters:\n");
	for (int i = 0; cluster_types[i]; i++)
		printf("  %-20s %s\n", cluster_types[i]->name,
		       cluster_types[i]->doc);
	list_kinds("workloads", workload_kind, options);
	list_kinds("faults", fault_kind, options);
	list_kinds("checkers", checker_kind, options);
	return fflush(stdout) ? EXIT_INFRA : EXIT_PASS;
}
