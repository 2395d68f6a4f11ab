#include "runner/runner.h"

int cmd_check(int argc, char **argv)
{
	static const struct opt opts[] = { { NULL, 0, NULL, NULL } };
	int n = opts_parse(command_find("check"), opts, argc, argv);

	if (n != 1)
		die(EXIT_USAGE, "check: expected one RUN_DIR (see 'tichaos help check')");
	die(EXIT_INFRA, "check: cannot check '%s': re-running checkers needs stored runs, which come with the checkers", argv[1]);
}
