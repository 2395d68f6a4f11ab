/*
 * kill: send `signal` (KILL or TERM) to the picked components of `target`
 * (a role such as cdc, or a component name), wait until each process is
 * gone; after `down`, start each again with its start command and wait
 * until it is ready. On the local cluster, killing `cdc` kills the
 * replicating downstream server.
 *
 * TERM is a graceful stop, as TiCDC's integration tests stop a capture
 * (tests/integration_tests/_utils/kill_cdc_pid in pingcap/tiflow: TERM,
 * then TERM again every 0.5 s while the process lives, for at most 10 s):
 * sent again every TERM_EVERY_NS until the process is gone, for at most
 * `term_wait`; one still there then gets KILL. The history says for each
 * how long the stop took, how many TERMs it got, and whether it had to be
 * escalated to KILL.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

#include "clusters/cluster.h"
#include "core/plan.h"
#include "core/suite.h"
#include "faults/fault.h"
#include "lib/cancel.h"
#include "lib/clock.h"

static const char *const signals[] = { "KILL", "TERM", NULL };

#define TERM_EVERY_NS (500 * NS_PER_MS)

struct kill_opts {
	struct fault_target_opts t;
	int signal;		/* 0 KILL, 1 TERM */
	int64_t term_wait;
};

static const struct optspec opts[] = {
	FAULT_COMMON_OPTS,
	FAULT_TARGET_OPTS,
	{ "signal", OPT_ENUM, "KILL", 0, signals, 0, 0,
	  "the signal sent", OPT_AT(struct kill_opts, signal) },
	{ "term_wait", OPT_DURATION, "10s", 0, NULL, 0, 0,
	  "TERM: how long to wait for the exit, sending TERM again every "
	  "500ms, before KILL", OPT_AT(struct kill_opts, term_wait) },
};

/* Stop `c` with TERM, repeated, within `wait_ns`, else with KILL. */
static int term_one(struct fault_ctx *ctx, struct component *c,
		    int64_t wait_ns, struct buf *value, struct err *e)
{
	struct host *h = component_host(ctx->cluster, c);
	pid_t pid = component_pid(ctx->cluster, c);
	int64_t start = clock_mono_ns(), deadline = start + wait_ns;
	int signals = 0, escalated = 0;

	if (pid <= 0)
		return err_set(e, ERR_INFRA, "%s is not running", c->name);
	component_ending(c, pid);
	for (;;) {
		int64_t left = deadline - clock_mono_ns();
		if (left <= 0 || cancelled(ctx->cancel, CANCEL_STOP)) {
			escalated = 1;
			if (component_kill(ctx->cluster, c, SIGKILL, e))
				return -1;
			break;
		}
		if (h->ops->signal(h, pid, SIGTERM, e))
			return -1;
		signals++;
		/* A stopped process does not die of TERM until continued. */
		h->ops->signal(h, pid, SIGCONT, NULL);
		if (!h->ops->wait_gone(h, pid, left < TERM_EVERY_NS ? left
				       : TERM_EVERY_NS, NULL))
			break;
	}
	buf_printf(value, NULL, "{\"component\":\"%s\",\"pid\":%ld,"
		   "\"stop_ms\":%lld,\"terms\":%d,\"escalated\":%s}",
		   c->name, (long)pid,
		   (long long)((clock_mono_ns() - start) / NS_PER_MS), signals,
		   escalated ? "true" : "false");
	return 0;
}

/* TERM every target; act->ntargets cut to the ones that went down. */
static int term_targets(struct fault_ctx *ctx, const struct suite_item *it,
			struct fault_action *act, struct buf *value,
			struct err *e)
{
	const struct kill_opts *o = it->opts;
	int64_t wait_ns = o->term_wait;
	size_t done = 0;

	buf_addstr(value, "\"killed\":[", NULL);
	for (size_t i = 0; i < act->ntargets; i++) {
		struct buf one = BUF_INIT;

		if (term_one(ctx, act->targets[i], wait_ns, &one, e)) {
			buf_release(&one);
			break;
		}
		buf_printf(value, NULL, "%s%s", done ? "," : "", buf_str(&one));
		buf_release(&one);
		act->targets[done++] = act->targets[i];
	}
	buf_addch(value, ']', NULL);
	act->ntargets = done;
	return err_isset(e) ? -1 : 0;
}

/*
 * The supervised targets (comp->sup) that `down` keeps down for longer
 * than their supervisor's delay, held stopped by its `stop` until the
 * restart; the others it restarts by itself, which the restart awaits.
 * Appends ",\"held\":[NAMES]" when any was held.
 */
static int hold_targets(struct fault_ctx *ctx, const struct kill_opts *o,
			struct fault_action *act, struct buf *value,
			struct err *e)
{
	size_t held = 0;

	for (size_t i = 0; i < act->ntargets; i++) {
		struct component *c = act->targets[i];

		if (!c->sup || o->t.common.down <= c->sup->delay_ns)
			continue;
		if (component_hold(ctx->cluster, c, e))
			break;
		buf_printf(value, NULL, "%s\"%s\"", held++ ? "," : ",\"held\":[",
			   c->name);
	}
	if (held)
		buf_addch(value, ']', NULL);
	return err_isset(e) ? -1 : 0;
}

static int inject(struct fault_ctx *ctx, const struct suite_item *it,
		  const struct plan_event *ev, struct fault_action *act,
		  struct buf *value, struct err *e)
{
	const struct kill_opts *o = it->opts;
	int sig = o->signal == 0 ? SIGKILL : SIGTERM;

	if (fault_pick(ctx, o->t.target, o->t.pick, ev->choice, act, e))
		return -1;
	buf_printf(value, NULL, "\"signal\":\"%s\",",
		   sig == SIGKILL ? "KILL" : "TERM");
	if (sig == SIGTERM ? term_targets(ctx, it, act, value, e)
			   : fault_signal_targets(ctx, act, sig, "killed",
						  value, e))
		return -1;
	return hold_targets(ctx, o, act, value, e);
}


/* Its components, named in its value's "killed", are drawn down. */
static const struct fault_holds holds = { "down", "down", "down", "#d62728", 1,
					  "killed", NULL };

const struct fault_type fault_kill = {
	.kind = { "kill", "KILL or TERM components of a role, restart them "
		  "after `down`", opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct kill_opts), .check = fault_check,
		  .plan = fault_plan },
	.inject = inject,
	.heal = fault_restart_targets,
	.heal_name = "restart",
	.target = fault_component_target,
	.holds = &holds,
};
