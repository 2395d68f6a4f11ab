/*
 * What a start of a cluster would meet, read before anything starts
 * (clusters/cluster.h, cluster_preflight): a topology's mistakes said
 * one line each, where a start would otherwise wait out its timeout
 * and name the first component that did not come up.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clusters/cluster.h"
#include "clusters/host.h"
#include "lib/buf.h"
#include "lib/ssh.h"

/* The port of `url`'s origin, 0 when it names none. */
static int url_port(const char *url)
{
	char addr[300], *colon, *end;
	long port;

	url_origin(url, NULL, addr, sizeof(addr));
	colon = strrchr(addr, ':');
	if (!colon || !strstr(addr, "://") || strstr(addr, "://") > colon)
		return 0;
	port = strtol(colon + 1, &end, 10);
	return end > colon + 1 && !*end && port > 0 && port <= 65535
	       ? (int)port : 0;
}

/* What starts `comp`: its start, or its supervisor's (NULL: neither),
 * and the topology's name of it in *what. */
static char **starter(const struct component *comp, const char **what)
{
	*what = comp->sup ? "supervisor start" : "start";
	return comp->sup ? comp->sup->start : comp->start;
}

/*
 * Whether the program `comp` starts is there to run on its host: a path
 * (relative to its `dir`) must be an executable file, a bare name found
 * on PATH. 0, or -1 with what is wrong in `why`.
 */
static int program_there(const struct cluster *c,
			 const struct component *comp, struct buf *why)
{
	struct host *h = component_host(c, comp);
	const char *what, *prog = starter(comp, &what)[0];
	struct buf cmd = BUF_INIT;
	struct err e = ERR_INIT;
	int rc;

	if (comp->dir) {
		buf_addstr(&cmd, "cd ", NULL);
		sh_quote(&cmd, comp->dir, NULL);
		buf_addstr(&cmd, " 2>/dev/null || exit 3; ", NULL);
	}
	if (strchr(prog, '/')) {
		buf_addstr(&cmd, "test -f ", NULL);
		sh_quote(&cmd, prog, NULL);
		buf_addstr(&cmd, " || exit 4; test -x ", NULL);
		sh_quote(&cmd, prog, NULL);
		buf_addstr(&cmd, " || exit 5", NULL);
	} else {
		buf_addstr(&cmd, "command -v ", NULL);
		sh_quote(&cmd, prog, NULL);
		buf_addstr(&cmd, " >/dev/null || exit 4", NULL);
	}
	rc = h->ops->shell(h, buf_str(&cmd), NULL, &e);
	buf_release(&cmd);
	switch (rc) {
	case 0:
		return 0;
	case 3:
		buf_printf(why, NULL, "its dir '%s' is not there", comp->dir);
		break;
	case 4:
		buf_printf(why, NULL, "%s: '%s' is not there%s", what, prog,
			   strchr(prog, '/') ? "" : " (not on PATH)");
		break;
	case 5:
		buf_printf(why, NULL, "%s: '%s' is not executable", what,
			   prog);
		break;
	default:
		buf_printf(why, NULL, "%s: '%s' could not be looked for "
			   "on host %s: %s", what, prog, h->name, e.msg[0] ? e.msg
			   : "the shell failed");
	}
	return -1;
}

/*
 * The ports a stopped component will listen on, free on its host: what
 * listens on one is another process, which its start would meet. 0, or
 * -1 with the ports taken in `why`.
 */
static int ports_free(const struct cluster *c, const struct component *comp,
		      struct buf *why)
{
	struct host *h = component_host(c, comp);
	const struct { const char *what; int port; } ports[] = {
		{ "sql", comp->sql_port },
		{ "http_url", comp->http_url ? url_port(comp->http_url) : 0 },
		{ "etcd_url", comp->etcd_url ? url_port(comp->etcd_url) : 0 },
	};
	size_t start = why->len;

	/* In a namespace of its own, its ports are not this machine's. */
	if (comp->netns)
		return 0;
	for (size_t i = 0; i < sizeof(ports) / sizeof(ports[0]); i++) {
		struct buf cmd = BUF_INIT, got = BUF_INIT;
		int seen = 0;

		/* PD's http_url and etcd_url share a port: one look. */
		for (size_t k = 0; k < i; k++)
			seen |= ports[k].port == ports[i].port;
		if (!ports[i].port || seen)
			continue;
		buf_printf(&cmd, NULL, "ss -ltnH 'sport = :%d'",
			   ports[i].port);
		if (h->ops->shell(h, buf_str(&cmd), &got, NULL) == 0 &&
		    got.len)
			buf_printf(why, NULL, "%sport %d (%s) is taken: "
				   "something listens there while it is "
				   "stopped", why->len ? "; " : "",
				   ports[i].port, ports[i].what);
		buf_release(&cmd);
		buf_release(&got);
	}
	return why->len > start ? -1 : 0;
}

/* A stopped component's start: its program there, its ports free. 1
 * (every reason in `why`) when it cannot start, else 0. */
static int cannot_start(const struct cluster *c, const struct component *comp,
			struct buf *why)
{
	int bad = program_there(c, comp, why) < 0;

	return ports_free(c, comp, why) < 0 || bad;
}

/* One component's line: "ok NAME: ..." or "NAME: what is wrong". */
static int one(struct cluster *c, struct component *comp, struct buf *out)
{
	enum component_state s = component_state(c, comp);
	struct buf why = BUF_INIT;
	struct err e = ERR_INIT;
	const char *what;
	char **start = starter(comp, &what);
	int bad = 0;

	if (s == STATE_PAUSED) {
		buf_printf(&why, NULL, "is paused (SIGSTOP)");
		bad = 1;
	} else if (start && s == STATE_UNKNOWN) {
		/* cluster_up starts only what it sees stopped. */
		buf_printf(&why, NULL, "a start command but no pid source "
			   "(pidfile, pid_command or status_pid): tichaos "
			   "cannot tell it stopped, and never starts it");
		bad = 1;
	} else if (s != STATE_STOPPED && !component_answers(c, comp, &e)) {
		buf_printf(out, NULL, "ok %s: %s, answers\n", comp->name,
			   s == STATE_RUNNING ? "running" : "up");
		return 0;
	} else if (s == STATE_RUNNING) {
		buf_printf(&why, NULL, "running, but does not answer: %s",
			   e.msg);
		bad = 1;
	} else if (!start) {
		buf_printf(&why, NULL, "not running, and no start command: "
			   "tichaos cannot start it%s%s", e.msg[0] ? " (" : "",
			   e.msg[0] ? e.msg : "");
		if (e.msg[0])
			buf_addch(&why, ')', NULL);
		bad = 1;
	} else {
		bad = cannot_start(c, comp, &why);
	}
	if (bad)
		buf_printf(out, NULL, "%s: %s\n", comp->name, buf_str(&why));
	else
		buf_printf(out, NULL, "ok %s: stopped, can start\n",
			   comp->name);
	buf_release(&why);
	return bad;
}

int cluster_preflight(struct cluster *c, struct buf *out)
{
	int bad = 0;

	for (size_t i = 0; i < c->ncomps; i++)
		bad += one(c, &c->comps[i], out);
	return bad;
}

int cluster_preflight_start(struct cluster *c, struct err *e)
{
	struct buf all = BUF_INIT;
	int bad = 0;

	for (size_t i = 0; i < c->ncomps; i++) {
		struct component *comp = &c->comps[i];
		struct buf why = BUF_INIT;
		const char *what;

		if (starter(comp, &what) &&
		    component_state(c, comp) == STATE_STOPPED &&
		    cannot_start(c, comp, &why)) {
			buf_printf(&all, NULL, "%s%s: %s", bad ? "; " : "",
				   comp->name, buf_str(&why));
			bad++;
		}
		buf_release(&why);
	}
	if (bad)
		err_set(e, ERR_USAGE, "%d of %zu components cannot start as "
			"they are: %s", bad, c->ncomps, buf_str(&all));
	buf_release(&all);
	return bad ? -1 : 0;
}
