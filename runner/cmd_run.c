#include <string.h>

#include "lib/parse.h"
#include "runner/runner.h"

int cmd_run(int argc, char **argv)
{
	const char *cluster = NULL, *duration = NULL, *seed = NULL;
	const char *out = NULL, *port_base = NULL;
	int keep = 0, verbose = 0, quiet = 0, n;
	const struct opt opts[] = {
		{ "cluster", 0, &cluster, NULL },
		{ "duration", 0, &duration, NULL },
		{ "seed", 0, &seed, NULL },
		{ "out", 0, &out, NULL },
		{ "keep-cluster", 0, NULL, &keep },
		{ "port-base", 0, &port_base, NULL },
		{ "verbose", 'v', NULL, &verbose },
		{ "quiet", 0, NULL, &quiet },
		{ NULL, 0, NULL, NULL },
	};
	struct err e = ERR_INIT;
	int64_t v;

	n = opts_parse(command_find("run"), opts, argc, argv);
	if (n < 1)
		die(EXIT_USAGE, "run: expected SUITE.yaml... (see 'tichaos "
		    "help run')");
	if (duration && parse_duration(duration, &v, &e))
		die(EXIT_USAGE, "run: --duration: %s", e.msg);
	if (seed && parse_int64(seed, 0, INT64_MAX, &v, &e))
		die(EXIT_USAGE, "run: --seed: %s", e.msg);
	if (port_base && strcmp(port_base, "auto") &&
	    parse_int64(port_base, 1024, 65531, &v, &e))
		die(EXIT_USAGE, "run: --port-base: %s", e.msg);
	if (verbose && quiet)
		die(EXIT_USAGE, "run: --verbose and --quiet exclude each "
		    "other");
	die(EXIT_INFRA, "run: cannot run '%s' on the %s cluster: the suite "
	    "loader is not in this build yet", argv[1],
	    cluster ? cluster : "local");
}
