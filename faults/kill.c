/*
 * kill: send `signal` (KILL or TERM) to the picked components of `target`
 * (a role such as cdc, or a component name), wait until each process is
 * gone; after `down`, start each again with its start command and wait
 * until it is ready. On the local cluster, killing `cdc` kills the
 * replicating downstream server.
 */
#include <signal.h>
#include <stdio.h>

#include "clusters/cluster.h"
#include "faults/fault.h"
#include "lib/clock.h"
#include "runner/plan.h"
#include "runner/suite.h"

static const char *const signals[] = { "KILL", "TERM", NULL };

static const struct optspec opts[] = {
	FAULT_COMMON_OPTS,
	FAULT_TARGET_OPTS,
	{ "signal", OPT_ENUM, "KILL", 0, signals, 0, 0,
	  "the signal sent" },
};

static int inject(struct fault_ctx *ctx, const struct suite_item *it,
		  const struct plan_event *ev, struct fault_action *act,
		  struct buf *value, struct err *e)
{
	int sig = suite_opt(it, "signal")->i == 0 ? SIGKILL : SIGTERM;

	if (fault_pick(ctx, suite_opt(it, "target")->s,
		       (int)suite_opt(it, "pick")->i, ev->choice, act, e))
		return -1;
	buf_printf(value, NULL, "\"signal\":\"%s\",",
		   sig == SIGKILL ? "KILL" : "TERM");
	return fault_signal_targets(ctx, act, sig, "killed", value, e);
}

static int heal(struct fault_ctx *ctx, struct fault_action *act,
		struct buf *value, struct err *e)
{
	int rc = 0;

	buf_addstr(value, "\"restarted\":[", NULL);
	for (size_t i = 0; i < act->ntargets; i++) {
		struct component *c = act->targets[i];
		int64_t start = clock_mono_ns();

		if (component_start(ctx->cluster, c, e)) {
			rc = -1;
			continue;
		}
		buf_printf(value, NULL, "%s{\"component\":\"%s\",\"pid\":%ld,"
			   "\"ready_ms\":%lld}", i ? "," : "", c->name,
			   (long)component_pid(ctx->cluster, c),
			   (long long)((clock_mono_ns() - start) / NS_PER_MS));
	}
	buf_addch(value, ']', NULL);
	return rc;
}

const struct fault_type fault_kill = {
	.kind = { "kill", "KILL or TERM components of a role, restart them "
		  "after `down`", opts, sizeof(opts) / sizeof(opts[0]) },
	.check = fault_check,
	.inject = inject,
	.heal = heal,
	.heal_name = "restart",
};
