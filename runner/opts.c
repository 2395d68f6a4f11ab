#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clusters/cluster.h"
#include "lib/parse.h"
#include "runner/run.h"
#include "runner/runner.h"

static const struct opt *find_long(const struct opt *opts, const char *name,
				   size_t len)
{
	for (const struct opt *o = opts; o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, name, len))
			return o;
	return NULL;
}

static const struct opt *find_short(const struct opt *opts, char c)
{
	for (const struct opt *o = opts; o->name; o++)
		if (o->short_name && o->short_name == c)
			return o;
	return NULL;
}

int opts_parse(const struct command *cmd, const struct opt *opts, int argc,
	       char **argv)
{
	int npos = 0, only_positional = 0;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const struct opt *o;
		const char *value = NULL;

		if (only_positional || arg[0] != '-' || !arg[1]) {
			argv[++npos] = argv[i];
			continue;
		}
		if (!strcmp(arg, "--")) {
			only_positional = 1;
			continue;
		}
		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			command_usage(cmd, 0);
			exit(EXIT_PASS);
		}
		if (arg[1] == '-') {
			const char *eq = strchr(arg + 2, '=');
			size_t len = eq ? (size_t)(eq - arg - 2)
					: strlen(arg + 2);

			o = find_long(opts, arg + 2, len);
			if (eq)
				value = eq + 1;
		} else {
			o = arg[2] ? NULL : find_short(opts, arg[1]);
		}
		if (!o)
			die(EXIT_USAGE, "%s: unknown option '%s' (see 'tichaos "
			    "help %s')", cmd->name, arg, cmd->name);
		if (o->flag) {
			if (value)
				die(EXIT_USAGE, "%s: option '--%s' takes no "
				    "value", cmd->name, o->name);
			(*o->flag)++;
			continue;
		}
		if (!value) {
			if (i + 1 >= argc)
				die(EXIT_USAGE, "%s: option '--%s' needs a "
				    "value", cmd->name, o->name);
			value = argv[++i];
		}
		if (o->many && o->many->n == OPT_MANY_MAX)
			die(EXIT_USAGE, "%s: option '--%s' at most %d times",
			    cmd->name, o->name, OPT_MANY_MAX);
		if (o->many)
			o->many->v[o->many->n++] = value;
		else
			*o->str = value;
	}
	return npos;
}

int opts_port_base(const char *cmd, const char *value)
{
	struct err e = ERR_INIT;
	int64_t v;

	if (!value)
		return 0;
	if (!strcmp(value, "auto"))
		return -1;
	if (parse_int64(value, 1024, 65535 - PORTS_PER_CLUSTER, &v, &e))
		die(EXIT_USAGE, "%s: --port-base: %s", cmd, e.msg);
	return (int)v;
}

enum hosts_mode opts_hosts(const char *cmd, const char *value)
{
	enum hosts_mode mode = hosts_mode_parse(value);

	if (value && mode == HOSTS_DEFAULT)
		die(EXIT_USAGE, "%s: --hosts: expected on, off or auto, not "
		    "'%s'", cmd, value);
	return mode;
}

static void on_signal(int sig)
{
	(void)sig;
	run_interrupt();
}

void catch_signals(void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void catch_interrupts(void)
{
	catch_signals(on_signal);
}
