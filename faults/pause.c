/*
 * pause: SIGSTOP the picked components of `target` for `down`, then
 * SIGCONT — a server that hangs without dying, as under a long GC pause
 * or a stuck disk.
 */
#include <signal.h>
#include <stdio.h>

#include "clusters/cluster.h"
#include "core/plan.h"
#include "core/suite.h"
#include "faults/fault.h"

static const struct optspec opts[] = {
	FAULT_COMMON_OPTS,
	FAULT_TARGET_OPTS,
};

static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	if (fault_check(s, it, e))
		return -1;
	if (fault_opts_of(it)->down <= 0) {
		struct ynode at = { YNODE_SCALAR, it->line, it->col, NULL, 0,
				    NULL, 0 };

		return ynode_error(e, s->path, &at, "fault 'pause' needs a "
				   "'down' above 0s");
	}
	return 0;
}

static int inject(struct fault_ctx *ctx, const struct suite_item *it,
		  const struct plan_event *ev, struct fault_action *act,
		  struct buf *value, struct err *e)
{
	const struct fault_target_opts *o = it->opts;

	if (fault_pick(ctx, o->target, o->pick, ev->choice, act, e))
		return -1;
	return fault_signal_targets(ctx, act, SIGSTOP, "paused", value, e);
}

static int heal(struct fault_ctx *ctx, struct fault_action *act,
		struct buf *value, struct err *e)
{
	int rc = 0;

	buf_addstr(value, "\"continued\":[", NULL);
	for (size_t i = 0; i < act->ntargets; i++) {
		struct component *c = act->targets[i];

		if (component_continue(ctx->cluster, c, e)) {
			rc = -1;
			continue;
		}
		buf_printf(value, NULL, "%s{\"component\":\"%s\",\"pid\":%ld}",
			   i ? "," : "", c->name,
			   (long)component_pid(ctx->cluster, c));
	}
	buf_addch(value, ']', NULL);
	return rc;
}

/* Its components, named in its value's "paused", are drawn paused. */
static const struct fault_holds holds = { "paused", "paused", "paused",
					  "#ff7f0e", 2, "paused", NULL };

const struct fault_type fault_pause = {
	.kind = { "pause", "SIGSTOP components of a role for `down`, then "
		  "SIGCONT", opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct fault_target_opts), .check = check,
		  .plan = fault_plan },
	.inject = inject,
	.heal = heal,
	.heal_name = "continue",
	.target = fault_component_target,
	.holds = &holds,
};
