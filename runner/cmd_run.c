#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/http.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "lib/sql.h"
#include "runner/batch.h"
#include "runner/run.h"
#include "runner/runner.h"

int cmd_run(int argc, char **argv)
{
	const char *cluster = NULL, *duration = NULL, *seed = NULL;
	const char *out = NULL, *port_base = NULL, *hosts = NULL;
	const char *jobs = NULL, *shard = NULL, *junit = NULL;
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
		{ "jobs", 'j', &jobs, NULL },
		{ "shard", 0, &shard, NULL },
		{ "junit", 0, &junit, NULL },
		{ NULL, 0, NULL, NULL },
	};
	struct batch_options b = { 1, "runs/junit.xml", NULL };
	const char *pass[24];
	int si = 1, sn = 1, np = 0;
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
	if (jobs && parse_int64(jobs, 1, 64, &v, &e))
		die(EXIT_USAGE, "run: -j: %s", e.msg);
	b.jobs = jobs ? (int)v : 1;
	if (shard && batch_shard(shard, &si, &sn))
		die(EXIT_USAGE, "run: --shard: expected I/N, 1 <= I <= N <= "
		    "1000, not '%s'", shard);
	if (out && (jobs || shard))
		die(EXIT_USAGE, "run: --out takes one suite, not -j or --shard");
	if (dry_run && (jobs || shard))
		die(EXIT_USAGE, "run: --dry-run prints one plan, not -j or "
		    "--shard");
	if (b.jobs > 1 && port_base && strcmp(port_base, "auto"))
		die(EXIT_USAGE, "run: --port-base %s with -j: each suite needs "
		    "ports of its own; use --port-base auto", port_base);
	if (junit && !jobs && !shard && n == 1)
		die(EXIT_USAGE, "run: --junit is the file of -j, --shard or "
		    "several suites; one run writes RUN_DIR/junit.xml");
	if (junit)
		b.junit = junit;
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

	if (!dry_run && (jobs || shard || n > 1)) {
		/* Each suite by a tichaos of its own, with these options. */
		if (cluster)
			pass[np++] = "--cluster", pass[np++] = cluster;
		if (duration)
			pass[np++] = "--duration", pass[np++] = duration;
		if (seed)
			pass[np++] = "--seed", pass[np++] = seed;
		if (keep)
			pass[np++] = "--keep-cluster";
		if (keep_data)
			pass[np++] = "--keep-data";
		if (b.jobs > 1 && (!cluster || !strcmp(cluster, "local")))
			pass[np++] = "--port-base", pass[np++] = "auto";
		else if (port_base)
			pass[np++] = "--port-base", pass[np++] = port_base;
		if (hosts)
			pass[np++] = "--hosts", pass[np++] = hosts;
		if (verbose)
			pass[np++] = "--verbose";
		if (quiet)
			pass[np++] = "--quiet";
		pass[np] = NULL;
		b.pass = pass;
		n = (int)batch_select(argv + 1, (size_t)n, si, sn);
		rc = run_batch(argv + 1, (size_t)n, &b, &e);
		if (err_isset(&e))
			fprintf(stderr, "tichaos: %s\n", e.msg);
		return rc;
	}
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
