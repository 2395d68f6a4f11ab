#include "runner/runner.h"

int cmd_report(int argc, char **argv)
{
	static const struct opt opts[] = { { NULL, 0, NULL, NULL } };
	int n = opts_parse(command_find("report"), opts, argc, argv);

	if (n != 1)
		die(EXIT_USAGE, "report: expected one RUN_DIR (see 'tichaos help report')");
	die(EXIT_INFRA, "report: cannot report '%s': reports need stored runs, which come with 'tichaos run'", argv[1]);
}
