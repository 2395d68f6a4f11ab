/*
 * Supervised components (struct component.sup, docs/topology.md): a
 * supervisor of their own restarts them when they end, as systemd does a
 * unit with Restart=always after RestartSec (tiup cluster deploys every
 * server so: pingcap/tiup, embed/templates/systemd/system.service.tpl,
 * Restart=always, RestartSec=15s). tichaos never starts a copy beside
 * the supervisor's: a start it makes is the supervisor's `start`, a
 * restart after its own kill is the supervisor's doing, waited for, and
 * a component held down longer than the supervisor's delay is held by
 * the supervisor's `stop` (systemd's stop cancels a pending restart:
 * systemd.service(5), Restart=).
 */
#include "clusters/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "lib/ssh.h"

/* How much of a supervisor command's output an error keeps. */
#define SUP_OUTPUT_MAX 300

/*
 * Run the supervisor's command `argv` (its `what`: "stop", "start") on
 * the component's host, its output and errors into an error when it
 * does not exit 0.
 */
static int sup_run(struct cluster *c, struct component *comp, char **argv,
		   const char *what, struct err *e)
{
	struct host *h = component_host(c, comp);
	struct buf cmd = BUF_INIT, out = BUF_INIT;
	int rc;

	for (char **a = argv; *a; a++) {
		if (a != argv)
			buf_addch(&cmd, ' ', NULL);
		sh_quote(&cmd, *a, NULL);
	}
	buf_addstr(&cmd, " 2>&1", NULL);
	rc = h->ops->shell(h, buf_str(&cmd), &out, e);
	if (rc > 0) {
		buf_rtrim(&out);
		if (out.len > SUP_OUTPUT_MAX)
			buf_truncate(&out, SUP_OUTPUT_MAX);
		buf_truncate(&cmd, cmd.len - strlen(" 2>&1"));
		err_set(e, ERR_INFRA, "%s: its supervisor's %s (%s) exited "
			"%d%s%s", comp->name, what, buf_str(&cmd), rc,
			out.len ? ": " : "", buf_str(&out));
	} else if (!rc) {
		log_debug("%s: its supervisor's %s ran on %s", comp->name,
			  what, h->name);
	}
	buf_release(&cmd);
	buf_release(&out);
	return rc ? -1 : 0;
}

int supervised_start(struct cluster *c, struct component *comp,
		     const char *const *prefix, struct err *e)
{
	if (prefix && prefix[0])
		return err_set(e, ERR_USAGE, "%s is started by its "
			       "supervisor: it cannot be started under '%s' "
			       "(a fault that restarts it so cannot act on "
			       "it)", comp->name, prefix[0]);
	__atomic_store_n(&comp->starting, 1, __ATOMIC_SEQ_CST);
	/* Killed by tichaos: its supervisor restarts it, after its delay. */
	if (comp->sup_state != SUP_AWAITED &&
	    sup_run(c, comp, comp->sup->start, "start", e)) {
		__atomic_store_n(&comp->starting, 0, __ATOMIC_SEQ_CST);
		return -1;
	}
	comp->sup_state = SUP_AWAITED;
	return 0;
}

/* What still runs (the supervisor's own restart, before its stop) goes
 * by tichaos's doing: marked, then waited for. */
static int sup_stop(struct cluster *c, struct component *comp,
		    struct err *e)
{
	struct host *h = component_host(c, comp);
	pid_t pid = component_pid(c, comp);

	if (pid > 0)
		component_ending(comp, pid);
	if (sup_run(c, comp, comp->sup->stop, "stop", e))
		return -1;
	return pid > 0 ? h->ops->wait_gone(h, pid, c->timeout_ns, e) : 0;
}

int supervised_stop(struct cluster *c, struct component *comp,
		    struct err *e)
{
	if (sup_stop(c, comp, e))
		return -1;
	comp->sup_state = SUP_NONE;
	return 0;
}

int component_hold(struct cluster *c, struct component *comp, struct err *e)
{
	if (!comp->sup)
		return err_set(e, ERR_INFRA, "%s has no supervisor to hold it "
			       "stopped", comp->name);
	__atomic_store_n(&comp->starting, 1, __ATOMIC_SEQ_CST);
	if (sup_stop(c, comp, e))
		return -1;
	comp->sup_state = SUP_HELD;
	return 0;
}
