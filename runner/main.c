#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/runner.h"

static const struct command commands[] = {
	{ "run", "run suites against a cluster and check the outcome",
	  "tichaos run SUITE.yaml... [--cluster local|playground|TOPOLOGY.yaml]\n"
	  "            [--duration D] [--seed N] [--out DIR] [--keep-cluster]\n"
	  "            [--keep-data] [--port-base N] [--hosts on|off|auto]\n"
	  "            [-v] [--quiet] [--dry-run]\n"
	  "            [-j N] [--shard I/N] [--junit FILE]\n"
	  "            [--repeat N] [--until-fail] [--budget D]\n"
	  "            [--results-as-logs DIR] [--set SECTION.KIND.OPTION=V]...\n"
	  "\n"
	  "  --cluster C      'local' (default: start the embedded cluster),\n"
	  "                   'playground[:VERSION]' (start tiup playground\n"
	  "                   with the suite's cluster hints), a topology\n"
	  "                   file to attach to, or 'tiup-cluster:NAME', a\n"
	  "                   cluster tiup cluster deployed, by its name\n"
	  "  --duration D     override the suite's duration (500ms, 15s, 2m, 1h);\n"
	  "                   more or fewer cycles fit, each as the suite\n"
	  "                   times it (nothing inside a cycle is scaled)\n"
	  "  --seed N         the seed of the plan (default: the suite's, or a\n"
	  "                   fresh one)\n"
	  "  --out DIR        the run directory (default runs/SUITE/TIME-sSEED)\n"
	  "  --keep-cluster   leave the cluster running after the run\n"
	  "  --keep-data      keep the data of the cluster the run started\n"
	  "                   (cluster/*/data) when the run passes; a run\n"
	  "                   that does not pass always keeps them\n"
	  "  --port-base N    first port of the local cluster (default 24000)\n"
	  "  --hosts H        the local cluster's components each on a host\n"
	  "                   of its own (on: a network namespace each), all\n"
	  "                   on 127.0.0.1 (off), or on when namespaces can be\n"
	  "                   made here (auto); default: the suite's\n"
	  "                   cluster.local.hosts, else TICHAOS_HOSTS, else\n"
	  "                   auto\n"
	  "  -v, --verbose    debug messages on stderr\n"
	  "  --quiet          only warnings and errors on stderr\n"
	  "  --dry-run        print the plan (plan.json) and stop: nothing is\n"
	  "                   started or written; a topology FILE looked\n"
	  "                   at first, as validate --cluster does; with\n"
	  "                   --repeat N, each run's seed (\"iteration I:\n"
	  "                   seed S\"); with -j or --shard, the suites that\n"
	  "                   would run, a path a line\n"
	  "  -j, --jobs N     run N suites at once, each by a tichaos of its\n"
	  "                   own on a cluster of its own (ports: auto); with\n"
	  "                   several suites, -j or --shard, one TAP stream\n"
	  "                   with a subtest per suite and one JUnit file\n"
	  "  --shard I/N      only the I-th of every N suites, sorted by path:\n"
	  "                   N machines with I = 1..N run each suite once\n"
	  "  --junit FILE     the JUnit file of several suites or of --repeat\n"
	  "                   (default runs/junit.xml)\n"
	  "  --repeat N       run the suite N times (1..100000), each with a\n"
	  "                   seed of its own: with --seed S (or the suite's\n"
	  "                   seed) S, then a series drawn from S that\n"
	  "                   --dry-run lists; else a fresh one each. One TAP\n"
	  "                   stream, a subtest per run, the plan and a\n"
	  "                   summary at the end; a passing run's directory\n"
	  "                   goes once a later run passes too\n"
	  "  --until-fail     stop at the first run that does not exit 0,\n"
	  "                   which is kept whole (runs/SUITE/latest); alone,\n"
	  "                   run until then, ^C or --budget\n"
	  "  --budget D       start no run once D has passed (a run going is\n"
	  "                   not cut), with --repeat or --until-fail\n"
	  "  --results-as-logs DIR\n"
	  "                   for a CI that keeps only *.log files: once a\n"
	  "                   run ends, its files (and logs/, fix-sql/) are\n"
	  "                   copied to DIR/tichaos-SUITE/RUN/, each name\n"
	  "                   ending in .log; with several runs, their JUnit\n"
	  "                   file as DIR/tichaos-junit.xml.log\n"
	  "  --set SECTION.KIND.OPTION=V\n"
	  "                   an option of every item of a kind, as if the\n"
	  "                   suite said V (a YAML value) there, e.g.\n"
	  "                   checks.consistency.diff_config=conf/d.toml;\n"
	  "                   given up to 16 times; the run keeps the suite\n"
	  "                   as run (suite.yaml)\n",
	  cmd_run },
	{ "validate", "parse and validate suites, and a cluster, without "
	  "running them",
	  "tichaos validate [SUITE.yaml...] [--cluster TOPOLOGY.yaml]\n"
	  "\n"
	  "  Each suite read and checked: 'ok FILE', or its first mistake at\n"
	  "  FILE:LINE:COL. --cluster reads the cluster (a topology's\n"
	  "  mistakes at their line) and looks at each component as a start\n"
	  "  would meet it: 'ok NAME: ...', or what is wrong on a line of\n"
	  "  its own: running but not answering, paused, no start command,\n"
	  "  its program not there or not executable on its host, a port it\n"
	  "  listens on taken while it is stopped. Nothing is started.\n"
	  "  Exit 0, or 2 for any mistake (3 when a server could not be\n"
	  "  asked).\n", cmd_validate },
	{ "cluster", "start, stop or inspect a cluster",
	  "tichaos cluster up|down|status [--cluster local|playground|TOPOLOGY.yaml]\n"
	  "            [--dir DIR] [--port-base N|auto] [--hosts on|off|auto]\n"
	  "            [--sshd] [--purge]\n"
	  "       tichaos cluster kill|start|pause|continue COMPONENT\n"
	  "            [--cluster ...] [--dir DIR] [--signal KILL|TERM]\n"
	  "\n"
	  "  up               start the cluster in DIR and wait until it is ready;\n"
	  "                   writes DIR/topology.yaml\n"
	  "  down             stop every component; --purge also removes DIR\n"
	  "  status           one line per component; exit 0 when all are up,\n"
	  "                   3 otherwise\n"
	  "  kill C           send --signal (default KILL) to component C and\n"
	  "                   wait until it is gone\n"
	  "  start C          start a stopped component and wait until ready\n"
	  "  pause C          SIGSTOP component C; continue C sends SIGCONT\n"
	  "  --cluster C      'local' (default), 'playground[:VERSION]', a\n"
	  "                   topology file or 'tiup-cluster:NAME'\n"
	  "  --dir DIR        where the local cluster or the playground's\n"
	  "                   files live (default ./cluster)\n"
	  "  --port-base N    first of the cluster's ports (default 24000);\n"
	  "                   'auto' picks a free block\n"
	  "  --hosts H        up: each component on a host of its own (on),\n"
	  "                   all on 127.0.0.1 (off), or on when network\n"
	  "                   namespaces can be made here (auto; default:\n"
	  "                   TICHAOS_HOSTS, else auto)\n"
	  "  --sshd           up, on hosts: an sshd on each host, and\n"
	  "                   DIR/ssh-topology.yaml, the same cluster over SSH\n",
	  cmd_cluster },
	{ "check", "re-run the checkers on a stored run",
	  "tichaos check RUN_DIR\n"
	  "\n"
	  "  Runs RUN_DIR's checks again: the history's where it is, the\n"
	  "  live ones where the run's cluster answers. Prints and exits by\n"
	  "  what it found, and by the recorded verdict where a check could\n"
	  "  not run. RUN_DIR's record never weakens: a verdict found now\n"
	  "  that says less than the recorded one (a pass after a failure, a\n"
	  "  skip) is kept beside it, in results.json and every report.\n",
	  cmd_check },
	{ "replay", "run again with the recorded plan",
	  "tichaos replay RUN_DIR [--cluster local|TOPOLOGY.yaml] [--out DIR]\n"
	  "            [--keep-cluster] [--keep-data] [--port-base N|auto]\n"
	  "            [--quiet] [--hosts on|off|auto]\n"
	  "\n"
	  "  Runs RUN_DIR/suite.yaml again with the seed and duration it ran\n"
	  "  with: the same faults at the same offsets, the same DDL in the same\n"
	  "  order (checked against RUN_DIR/plan.json), into a new run\n"
	  "  directory whose results.json names the run it replays.\n",
	  cmd_replay },
	{ "shrink", "find a smaller plan that still fails the run's check",
	  "tichaos shrink RUN_DIR [--tries N] [--budget D] [--out DIR]\n"
	  "            [--cluster local|playground|TOPOLOGY.yaml]\n"
	  "            [--port-base N|auto]\n"
	  "\n"
	  "  Replays RUN_DIR's suite with fewer of its plan's events (faults,\n"
	  "  DDL) and then a shorter duration, keeping what still fails the\n"
	  "  check RUN_DIR failed first (delta debugging), and writes the\n"
	  "  smallest failing suite and plan to DIR/smallest, which tichaos\n"
	  "  replay runs; DIR/shrink.json lists every candidate and its runs.\n"
	  "  --tries N        runs of each candidate; it fails when one of\n"
	  "                   them fails the check (default 3)\n"
	  "  --budget D       stop after D (e.g. 30m) with the smallest\n"
	  "                   failing plan found so far (default: none)\n"
	  "  --out DIR        where candidates and the result go (default\n"
	  "                   RUN_DIR/shrink)\n"
	  "  --cluster C      the cluster of every candidate's run (default:\n"
	  "                   a local cluster each)\n"
	  "  --port-base N    the local clusters' ports (default auto)\n",
	  cmd_shrink },
	{ "report", "rebuild the reports of a stored run",
	  "tichaos report RUN_DIR\n"
	  "       tichaos report --index DIR\n"
	  "\n"
	  "  Rebuilds report.tap, junit.xml, summary.txt and report.html from\n"
	  "  RUN_DIR/results.json, prints the TAP stream, and exits with the\n"
	  "  run's code.\n"
	  "  --index DIR      writes DIR/index.html instead: for each suite of\n"
	  "                   DIR/<suite>/<run> (runs/), its last 20 runs with\n"
	  "                   verdict, duration, seed, throughput and links; a\n"
	  "                   suite that passed and failed as the same suite is\n"
	  "                   marked flaky\n", cmd_report },
	{ "list", "every cluster, workload, fault and checker kind",
	  "tichaos list [--options]\n"
	  "\n"
	  "  --options        also every option of each kind: type, default,\n"
	  "                   what it does\n", cmd_list },
	{ "help", "show the usage of a command",
	  "tichaos help [COMMAND]\n", cmd_help },
	{ NULL, NULL, NULL, NULL },
};

void die(int code, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("tichaos: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

void die_err(const struct err *e)
{
	die(e->class == ERR_NONE ? EXIT_INFRA : (int)e->class, "%s", e->msg);
}

const struct command *command_find(const char *name)
{
	for (const struct command *c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static void usage(FILE *out)
{
	fputs("usage: tichaos COMMAND [ARGS]\n"
	      "       tichaos --help | --version | help COMMAND\n\n"
	      "commands:\n", out);
	for (const struct command *c = commands; c->name; c++)
		fprintf(out, "  %-9s %s\n", c->name, c->summary);
	fputs("\nexit codes: 0 all checks passed, 1 a check failed, "
	      "2 usage or suite error,\n"
	      "            3 infrastructure error, 4 interrupted\n", out);
}

void command_usage(const struct command *cmd, int to_stderr)
{
	FILE *out = to_stderr ? stderr : stdout;

	fprintf(out, "usage: %s", cmd->usage);
}

int cmd_help(int argc, char **argv)
{
	static const struct opt opts[] = { { NULL, 0, NULL, NULL, NULL } };
	const struct command *cmd;
	int n = opts_parse(command_find("help"), opts, argc, argv);

	if (n == 0) {
		usage(stdout);
		return EXIT_PASS;
	}
	if (n > 1)
		die(EXIT_USAGE, "help: too many arguments");
	cmd = command_find(argv[1]);
	if (!cmd)
		die(EXIT_USAGE, "help: unknown command '%s'", argv[1]);
	command_usage(cmd, 0);
	return EXIT_PASS;
}

int main(int argc, char **argv)
{
	const struct command *cmd;

	/* A closed pipe on stdout (| head) is an error return, not a kill. */
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return EXIT_PASS;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("tichaos %s\n", TICHAOS_VERSION);
		return EXIT_PASS;
	}
	if (argv[1][0] == '-')
		die(EXIT_USAGE, "unknown option '%s' (see 'tichaos --help')",
		    argv[1]);
	cmd = command_find(argv[1]);
	if (!cmd)
		die(EXIT_USAGE, "unknown command '%s' (see 'tichaos --help')",
		    argv[1]);
	return cmd->fn(argc - 1, argv + 1);
}
