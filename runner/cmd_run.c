#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/http.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "lib/proc.h"
#include "lib/sql.h"
#include "runner/batch.h"
#include "runner/repeat.h"
#include "runner/run.h"
#include "runner/runner.h"

/* What `tichaos run` was given. */
struct args {
	const char *cluster, *duration, *seed, *out, *port_base, *hosts;
	const char *jobs, *shard, *junit, *repeat, *budget, *as_logs;
	int keep, keep_data, verbose, quiet, dry_run, until_fail;
	struct opt_many sets;
};

/* Room for every option pass_options passes, and the caller's --seed. */
#define PASS_MAX (24 + 2 * OPT_MANY_MAX)

/*
 * The options every child run gets (into pass[], at most 14 and the
 * --sets, NULL-ended):
 * what `tichaos run` was given that one run takes, --port-base auto in
 * place of the given one with `auto_ports`. Returns how many.
 */
static int pass_options(const struct args *a, int auto_ports,
			const char **pass)
{
	int np = 0;

	if (a->cluster)
		pass[np++] = "--cluster", pass[np++] = a->cluster;
	if (a->duration)
		pass[np++] = "--duration", pass[np++] = a->duration;
	if (a->keep)
		pass[np++] = "--keep-cluster";
	if (a->keep_data)
		pass[np++] = "--keep-data";
	if (auto_ports)
		pass[np++] = "--port-base", pass[np++] = "auto";
	else if (a->port_base)
		pass[np++] = "--port-base", pass[np++] = a->port_base;
	if (a->hosts)
		pass[np++] = "--hosts", pass[np++] = a->hosts;
	if (a->verbose)
		pass[np++] = "--verbose";
	if (a->quiet)
		pass[np++] = "--quiet";
	if (a->as_logs)
		pass[np++] = "--results-as-logs", pass[np++] = a->as_logs;
	for (int i = 0; i < a->sets.n; i++)
		pass[np++] = "--set", pass[np++] = a->sets.v[i];
	pass[np] = NULL;
	return np;
}

/*
 * --results-as-logs with several runs: each run copies its own; the
 * JUnit file of them all goes there too, as tichaos-junit.xml.log. A
 * copy that fails is said and fails a batch that passed (exit 3).
 */
static int junit_as_log(const struct args *a, const char *junit, int rc)
{
	struct err e = ERR_INIT;

	if (!a->as_logs || (!proc_make_dirs(a->as_logs, &e) &&
			    !run_copy_as_log(junit, a->as_logs,
					     "tichaos-junit.xml", &e)))
		return rc;
	fflush(stdout);
	fprintf(stderr, "tichaos: --results-as-logs: %s\n", e.msg);
	return rc == EXIT_PASS ? EXIT_INFRA : rc;
}

/* Several suites, -j or --shard: each by a tichaos of its own (batch.c). */
static int run_many(const struct args *a, char **suites, int n)
{
	struct batch_options b = { 1, "runs/junit.xml", NULL };
	const char *pass[PASS_MAX];
	struct err e = ERR_INIT;
	int si = 1, sn = 1, np = 0, rc;
	int64_t v;

	if (a->jobs && parse_int64(a->jobs, 1, 64, &v, &e))
		die(EXIT_USAGE, "run: -j: %s", e.msg);
	b.jobs = a->jobs ? (int)v : 1;
	if (a->shard && batch_shard(a->shard, &si, &sn))
		die(EXIT_USAGE, "run: --shard: expected I/N, 1 <= I <= N <= "
		    "1000, not '%s'", a->shard);
	if (a->out)
		die(EXIT_USAGE, "run: --out takes one suite, not -j or --shard");
	if (b.jobs > 1 && a->port_base && strcmp(a->port_base, "auto"))
		die(EXIT_USAGE, "run: --port-base %s with -j: each suite needs "
		    "ports of its own; use --port-base auto", a->port_base);
	if (b.jobs > 1 && !cluster_type_of(a->cluster)->made)
		die(EXIT_USAGE, "run: -j %d with --cluster %s: the suites would "
		    "run on that one cluster at once; -j 1 runs them on it "
		    "one after another", b.jobs, a->cluster);
	if (a->junit)
		b.junit = a->junit;
	np = pass_options(a, b.jobs > 1 && (cluster_type_of(a->cluster)->takes &
					    CLUSTER_TAKES_PORT_BASE), pass);
	if (a->seed)
		pass[np++] = "--seed", pass[np++] = a->seed;
	pass[np] = NULL;
	b.pass = pass;
	n = (int)batch_select(suites, (size_t)n, si, sn);
	/* --dry-run: the suites this share would run, in their order. */
	if (a->dry_run) {
		for (int i = 0; i < n; i++)
			printf("%s\n", suites[i]);
		return EXIT_PASS;
	}
	rc = run_batch(suites, (size_t)n, &b, &e);
	if (err_isset(&e))
		fprintf(stderr, "tichaos: %s\n", e.msg);
	return junit_as_log(a, b.junit, rc);
}

/* --repeat, --until-fail: one suite, each run by a tichaos of its own. */
static int run_repeated(const struct args *a, const struct run_options *o,
			char **suites, int n)
{
	const char *opt = a->repeat ? "--repeat" : "--until-fail";
	struct repeat_options r = { 0 };
	const char *pass[PASS_MAX];
	struct err e = ERR_INIT;
	int rc;

	if (a->repeat && parse_int64(a->repeat, 1, 100000, &r.count, &e))
		die(EXIT_USAGE, "run: --repeat: %s", e.msg);
	if (a->budget && parse_duration(a->budget, &r.budget_ns, &e))
		die(EXIT_USAGE, "run: --budget: %s", e.msg);
	if (a->budget && !r.budget_ns)
		die(EXIT_USAGE, "run: --budget: more than 0s");
	if (a->jobs || a->shard || n > 1)
		die(EXIT_USAGE, "run: %s runs one suite, not -j, --shard or "
		    "several suites", opt);
	if (a->out)
		die(EXIT_USAGE, "run: --out names one run's directory; %s "
		    "makes one per run under runs/", opt);
	if (a->keep)
		die(EXIT_USAGE, "run: --keep-cluster with %s: each run's "
		    "cluster would stay up", opt);
	r.until_fail = a->until_fail;
	r.has_seed = o->has_seed;
	r.seed = o->seed;
	r.dry_run = a->dry_run;
	r.junit = a->junit ? a->junit : "runs/junit.xml";
	pass_options(a, 0, pass);
	r.pass = pass;
	rc = run_repeat(suites[0], &r, &e);
	if (err_isset(&e)) {
		fflush(stdout);
		fprintf(stderr, "tichaos: %s\n", e.msg);
	}
	return r.dry_run ? rc : junit_as_log(a, r.junit, rc);
}

int cmd_run(int argc, char **argv)
{
	struct args a = { NULL };
	int n, rc = EXIT_PASS;
	const struct opt opts[] = {
		{ "cluster", 0, &a.cluster, NULL, NULL },
		{ "duration", 0, &a.duration, NULL, NULL },
		{ "seed", 0, &a.seed, NULL, NULL },
		{ "out", 0, &a.out, NULL, NULL },
		{ "keep-cluster", 0, NULL, &a.keep, NULL },
		{ "keep-data", 0, NULL, &a.keep_data, NULL },
		{ "port-base", 0, &a.port_base, NULL, NULL },
		{ "hosts", 0, &a.hosts, NULL, NULL },
		{ "verbose", 'v', NULL, &a.verbose, NULL },
		{ "quiet", 0, NULL, &a.quiet, NULL },
		{ "dry-run", 0, NULL, &a.dry_run, NULL },
		{ "jobs", 'j', &a.jobs, NULL, NULL },
		{ "shard", 0, &a.shard, NULL, NULL },
		{ "junit", 0, &a.junit, NULL, NULL },
		{ "repeat", 0, &a.repeat, NULL, NULL },
		{ "until-fail", 0, NULL, &a.until_fail, NULL },
		{ "budget", 0, &a.budget, NULL, NULL },
		{ "results-as-logs", 0, &a.as_logs, NULL, NULL },
		{ "set", 0, NULL, NULL, &a.sets },
		{ NULL, 0, NULL, NULL, NULL },
	};
	struct run_options o = { 0 };
	struct err e = ERR_INIT;
	int64_t v;

	n = opts_parse(command_find("run"), opts, argc, argv);
	if (n < 1)
		die(EXIT_USAGE, "run: expected SUITE.yaml... (see 'tichaos "
		    "help run')");
	if (a.duration && parse_duration(a.duration, &o.duration_ns, &e))
		die(EXIT_USAGE, "run: --duration: %s", e.msg);
	if (a.duration && o.duration_ns < NS_PER_SEC)
		die(EXIT_USAGE, "run: --duration: at least 1s");
	if (a.seed && parse_int64(a.seed, 1, INT64_MAX, &v, &e))
		die(EXIT_USAGE, "run: --seed: %s", e.msg);
	if (a.seed) {
		o.has_seed = 1;
		o.seed = (uint64_t)v;
	}
	o.port_base = opts_port_base("run", a.port_base);
	o.hosts = opts_hosts("run", a.hosts);
	if (a.verbose && a.quiet)
		die(EXIT_USAGE, "run: --verbose and --quiet exclude each "
		    "other");
	if (a.out && n > 1)
		die(EXIT_USAGE, "run: --out takes one suite");
	if (a.port_base &&
	    !(cluster_type_of(a.cluster)->takes & CLUSTER_TAKES_PORT_BASE))
		die(EXIT_USAGE, "run: --port-base applies to the local cluster");
	if (a.hosts &&
	    !(cluster_type_of(a.cluster)->takes & CLUSTER_TAKES_HOSTS))
		die(EXIT_USAGE, "run: --hosts applies to the local cluster");
	if (a.budget && !a.repeat && !a.until_fail)
		die(EXIT_USAGE, "run: --budget bounds --repeat or --until-fail");
	if (a.junit && !a.jobs && !a.shard && n == 1 && !a.repeat &&
	    !a.until_fail)
		die(EXIT_USAGE, "run: --junit is the file of -j, --shard, "
		    "--repeat or several suites; one run writes "
		    "RUN_DIR/junit.xml");
	o.cluster = a.cluster;
	o.out = a.out;
	o.keep_cluster = a.keep;
	o.keep_data = a.keep_data;
	o.quiet = a.quiet;
	o.dry_run = a.dry_run;
	o.as_logs = a.as_logs;
	o.sets = a.sets.v;
	o.nsets = (size_t)a.sets.n;
	if (a.verbose)
		log_set_level(LOG_DEBUG);
	if (a.quiet)
		log_set_level(LOG_WARN);
	if (a.repeat || a.until_fail)
		return run_repeated(&a, &o, argv + 1, n);
	if (a.jobs || a.shard || (n > 1 && !a.dry_run))
		return run_many(&a, argv + 1, n);
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
