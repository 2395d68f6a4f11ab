#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "lib/http.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "lib/sql.h"
#include "runner/run.h"
#include "runner/runner.h"

static void on_signal(int sig)
{
	(void)sig;
	run_interrupt();
}

/*
 * Run a stored run's suite again with its recorded plan: suite.yaml holds
 * the seed, plan.json the duration it ran for, so the plan drawn is the
 * same; it is compared with plan.json before anything starts.
 */
int cmd_replay(int argc, char **argv)
{
	const char *cluster = NULL, *out = NULL, *port_base = NULL;
	int keep = 0, quiet = 0, n, rc;
	const struct opt opts[] = {
		{ "cluster", 0, &cluster, NULL },
		{ "out", 0, &out, NULL },
		{ "keep-cluster", 0, NULL, &keep },
		{ "port-base", 0, &port_base, NULL },
		{ "quiet", 0, NULL, &quiet },
		{ NULL, 0, NULL, NULL },
	};
	struct run_options o = { 0 };
	struct err e = ERR_INIT;
	struct sigaction sa;
	char suite[4200], plan[4200];
	json_t *recorded;
	int64_t v;

	n = opts_parse(command_find("replay"), opts, argc, argv);
	if (n != 1)
		die(EXIT_USAGE, "replay: expected one RUN_DIR (see 'tichaos "
		    "help replay')");
	if (port_base && !strcmp(port_base, "auto"))
		o.port_base = -1;
	else if (port_base && parse_int64(port_base, 1024, 65531, &v, &e))
		die(EXIT_USAGE, "replay: --port-base: %s", e.msg);
	else if (port_base)
		o.port_base = (int)v;
	snprintf(suite, sizeof(suite), "%s/suite.yaml", argv[1]);
	snprintf(plan, sizeof(plan), "%s/plan.json", argv[1]);
	recorded = json_load_file(plan, 0, NULL);
	if (!json_is_integer(json_object_get(recorded, "duration_ns")))
		die(EXIT_USAGE, "replay: '%s' has no plan.json with a duration",
		    argv[1]);
	/* The run's duration, which --duration may have set. */
	o.duration_ns = json_integer_value(json_object_get(recorded,
							   "duration_ns"));
	json_decref(recorded);
	o.cluster = cluster;
	o.out = out;
	o.keep_cluster = keep;
	o.quiet = quiet;
	o.replay_of = argv[1];
	if (quiet)
		log_set_level(LOG_WARN);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sql_library_init();
	http_library_init();
	rc = run_suite(suite, &o, &e);
	http_library_end();
	sql_library_end();
	if (err_isset(&e))
		die(rc, "%s", e.msg);
	return rc;
}
