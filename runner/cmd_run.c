#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/http.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "lib/sql.h"
#include "runner/run.h"
#include "runner/runner.h"

int cmd_run(int argc, char **argv)
{
	const char *cluster = NULL, *duration = NULL, *seed = NULL;
	const char *out = NULL, *port_base = NULL, *hosts = NULL;
	int keep = 0, keep_data = 0, verbose = 0, quiet = 0, dry_run = 0, n, rc = EXIT_PASS;
	const struct opt opts[] = {
		{ "cluster", 0, &cluster, NULL },
		{ "duration", 0, &duration, NULL },
		{ "seed", 0, &seed, NULL },
		{ "out", 0, &out, NULL },
		{ "keep-cluster", 0, NULL, &keep },
		{ "keep-data", 0, NULL, &keep_data },
		{ "port-base", 0, &port_base, NULL },
		{ "hosts", 0, &hosts, NULL },
		{ "verbose", 'v', NULL, &verbose },
		{ "quiet", 0, NULL, &quiet },
		{ "dry-run", 0, NULL, &dry_run },
		{ NULL, 0, NULL, NULL },
	};
	struct run_options o = { 0 };
	struct err e = ERR_INIT;
	int64_t v;

	n = opts_parse(command_find("run"), opts, argc, argv);
	if (n < 1)
		die(EXIT_USAGE, "run: expected SUITE.yaml... (see 'tichaos "
		    "help run')");
	if (duration && parse_duration(duration, &o.duration_ns, &e))
		die(EXIT_USAGE, "run: --duration: %s", e.msg);
	if (duration && o.duration_ns < NS_PER_SEC)
		die(EXIT_USAGE, "run: --duration: at least 1s");
	if (seed && parse_int64(seed, 1, INT64_MAX, &v, &e))
		die(EXIT_USAGE, "run: --seed: %s", e.msg);
	if (seed) {
		o.has_seed = 1;
		o.seed = (uint64_t)v;
	}
	o.port_base = opts_port_base("run", port_base);
	o.hosts = opts_hosts("run", hosts);
	if (verbose && quiet)
		die(EXIT_USAGE, "run: --verbose and --quiet exclude each "
		    "other");
	if (out && n > 1)
		die(EXIT_USAGE, "run: --out takes one suite");
	if (cluster && strcmp(cluster, "local") && port_base)
		die(EXIT_USAGE, "run: --port-base applies to the local cluster");
	if (cluster && strcmp(cluster, "local") && hosts)
		die(EXIT_USAGE, "run: --hosts applies to the local cluster");
	o.cluster = cluster;
	o.out = out;
	o.keep_cluster = keep;
	o.keep_data = keep_data;
	o.quiet = quiet;
	o.dry_run = dry_run;
	if (verbose)
		log_set_level(LOG_DEBUG);
	if (quiet)
		log_set_level(LOG_WARN);

	catch_interrupts();
	sql_library_init();
	http_library_init();
	for (int i = 1; i <= n; i++) {
		int code = run_suite(argv[i], &o, &e);

		if (err_isset(&e)) {
			fflush(stdout);
			fprintf(stderr, "tichaos: %s\n", e.msg);
			err_clear(&e);
		}
		/* The worst outcome wins: interrupted, infra, usage, fail. */
		if (code == EXIT_INTERRUPTED || rc == EXIT_INTERRUPTED)
			rc = EXIT_INTERRUPTED;
		else if (code > rc)
			rc = code;
		if (rc == EXIT_INTERRUPTED)
			break;
	}
	http_library_end();
	sql_library_end();
	return rc;
}
