#include "runner/runner.h"

int cmd_replay(int argc, char **argv)
{
	static const struct opt opts[] = { { NULL, 0, NULL, NULL } };
	int n = opts_parse(command_find("replay"), opts, argc, argv);

	if (n != 1)
		die(EXIT_USAGE, "replay: expected one RUN_DIR (see 'tichaos help replay')");
	die(EXIT_INFRA, "replay: cannot replay '%s': replaying needs a recorded plan, which comes with 'tichaos run'", argv[1]);
}
