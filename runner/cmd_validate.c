#include "runner/runner.h"

int cmd_validate(int argc, char **argv)
{
	static const struct opt opts[] = { { NULL, 0, NULL, NULL } };
	int n = opts_parse(command_find("validate"), opts, argc, argv);

	if (n < 1)
		die(EXIT_USAGE, "validate: expected SUITE.yaml... (see 'tichaos help validate')");
	die(EXIT_INFRA, "validate: cannot validate '%s': the suite loader is not in this build yet", argv[1]);
}
