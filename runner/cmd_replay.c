#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/http.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "lib/sql.h"
#include "runner/run.h"
#include "runner/runner.h"

/*
 * Run a stored run's suite again with its recorded plan: suite.yaml holds
 * the seed, plan.json the duration it ran for, so the plan drawn is the
 * same; it is compared with plan.json before anything starts.
 */
/*
 * `dir` with every link resolved; a relative `dir` stays relative to the
 * working directory where it lies under it (as run directories are
 * named). `dir` itself when it cannot be resolved.
 */
static const char *resolved(const char *dir, char *out, size_t size)
{
	char real[PATH_MAX], here[PATH_MAX];
	size_t n;

	if (!realpath(dir, real))
		return dir;
	n = *dir != '/' && getcwd(here, sizeof(here)) ? strlen(here) : 0;
	if (n && !strncmp(real, here, n) && real[n] == '/')
		snprintf(out, size, "%s", real + n + 1);
	else
		snprintf(out, size, "%s", real);
	return out;
}

int cmd_replay(int argc, char **argv)
{
	const char *cluster = NULL, *out = NULL, *port_base = NULL;
	const char *hosts = NULL;
	int keep = 0, keep_data = 0, quiet = 0, n, rc;
	const struct opt opts[] = {
		{ "cluster", 0, &cluster, NULL, NULL },
		{ "out", 0, &out, NULL, NULL },
		{ "keep-cluster", 0, NULL, &keep, NULL },
		{ "keep-data", 0, NULL, &keep_data, NULL },
		{ "port-base", 0, &port_base, NULL, NULL },
		{ "hosts", 0, &hosts, NULL, NULL },
		{ "quiet", 0, NULL, &quiet, NULL },
		{ NULL, 0, NULL, NULL, NULL },
	};
	struct run_options o = { 0 };
	struct err e = ERR_INIT;
	char suite[4200], plan[4200], of[PATH_MAX];
	json_t *recorded;

	n = opts_parse(command_find("replay"), opts, argc, argv);
	if (n != 1)
		die(EXIT_USAGE, "replay: expected one RUN_DIR (see 'tichaos "
		    "help replay')");
	o.port_base = opts_port_base("replay", port_base);
	o.hosts = opts_hosts("replay", hosts);
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
	o.keep_data = keep_data;
	o.quiet = quiet;
	/* The directory itself: runs/SUITE/latest names the replay soon. */
	o.replay_of = resolved(argv[1], of, sizeof(of));
	if (quiet)
		log_set_level(LOG_WARN);
	catch_interrupts();
	sql_library_init();
	http_library_init();
	rc = run_suite(suite, &o, &e);
	http_library_end();
	sql_library_end();
	if (err_isset(&e))
		die(rc, "%s", e.msg);
	return rc;
}
