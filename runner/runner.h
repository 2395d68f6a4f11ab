#ifndef TICHAOS_RUNNER_H
#define TICHAOS_RUNNER_H

/*
 * The command-line front end. Only code in runner/ may end the process, and
 * only through die(); exit codes are the contract of docs/internals.md,
 * Rules.
 */

#include "clusters/cluster.h"
#include "lib/err.h"

#define TICHAOS_VERSION "0.1.0"

enum exit_code {
	EXIT_PASS = 0,
	EXIT_FAIL = 1,
	EXIT_USAGE = 2,
	EXIT_INFRA = 3,
	EXIT_INTERRUPTED = 4,
};

struct command {
	const char *name;
	/* One line for `tichaos --help`. */
	const char *summary;
	/* The synopsis and option list for `tichaos help NAME`. */
	const char *usage;
	/* argv[0] is the command name. Returns the exit code. */
	int (*fn)(int argc, char **argv);
};

/* Print "tichaos: <message>" on stderr and exit with `code`. */
__attribute__((noreturn, format(printf, 2, 3)))
void die(int code, const char *fmt, ...);

/* die() with the error's message; the exit code is its class. */
__attribute__((noreturn))
void die_err(const struct err *e);

/* The command named `name`, or NULL. */
const struct command *command_find(const char *name);

/* The values of an option given several times (--set), in order. */
#define OPT_MANY_MAX 16
struct opt_many {
	const char *v[OPT_MANY_MAX + 1];	/* NULL-terminated */
	int n;
};

/*
 * Command-line options of one command. Each entry names a long option
 * ("--seed"), an optional short one ('v'), and where its value goes: a
 * string (`str`), a flag counter (`flag`) for options without a value,
 * or every value of one given several times (`many`).
 */
struct opt {
	const char *name;
	char short_name;
	const char **str;
	int *flag;
	struct opt_many *many;
};

/*
 * Parse argv[1..] of command `cmd` against `opts` (terminated by a zeroed
 * entry). Options and positional arguments may be mixed; "--" ends the
 * options; "--name=value" and "--name value" both work. The positional
 * arguments are moved to the front of argv (from index 1) and their count
 * returned. Unknown options and missing values die with exit 2, e.g.
 * "tichaos: run: unknown option '--no-such-flag'". "-h"/"--help" prints
 * the command's usage and exits 0.
 */
int opts_parse(const struct command *cmd, const struct opt *opts, int argc,
	       char **argv);

/*
 * The value of --port-base for command `cmd`: N (1024..65527), "auto"
 * (-1), or none (NULL: 0, the default). Dies with exit 2 on anything else.
 */
int opts_port_base(const char *cmd, const char *value);

/*
 * The value of --hosts for command `cmd`: on, off, auto, or none (NULL:
 * HOSTS_DEFAULT). Dies with exit 2 on anything else.
 */
enum hosts_mode opts_hosts(const char *cmd, const char *value);

/* From now on SIGINT and SIGTERM call `handler` (no SA_RESTART). */
void catch_signals(void (*handler)(int));

/* From now on SIGINT and SIGTERM ask the run to stop (run_interrupt). */
void catch_interrupts(void);

/* Print the command's usage on `out`. */
void command_usage(const struct command *cmd, int to_stderr);

int cmd_check(int argc, char **argv);
int cmd_cluster(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_shrink(int argc, char **argv);
int cmd_validate(int argc, char **argv);

/*
 * The cluster `name` as a start would meet it (cluster_preflight): a line
 * per component, "ok NAME: ..." on stdout when `say_ok`, what is wrong on
 * stderr. EXIT_PASS, or the exit code of what is wrong: EXIT_USAGE for a
 * topology that cannot be read or a component that cannot start as it
 * is (`validate --cluster`, `run --dry-run --cluster`).
 */
int validate_cluster(const char *name, int say_ok);

#endif
