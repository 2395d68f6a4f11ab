/*
 * changefeed: disturb TiCDC's changefeed through its Open API v2, put it
 * back after `down`, and verify every step in the changefeed's state.
 *
 * action pause: pause it (state "stopped"); the heal resumes it from its
 * own checkpoint (state "normal"). action recreate: read its
 * checkpoint_ts, remove it (TiCDC no longer knows it); the heal creates
 * it again with the same id and sink URI and start_ts = that checkpoint,
 * so that nothing written meanwhile is lost. A step TiCDC accepted but
 * that does not show within `timeout` is undone at once (resume, create)
 * and reported as not taking effect.
 *
 * Needs TiCDC: a suite with this fault must say `requires: [ticdc]`, so
 * that it is skipped on clusters without it (the local one). A TiCDC that
 * refuses the topology's ticdc: user, password or keyspace refuses the run
 * before it starts, where it tells (cluster_ticdc_access).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clusters/api.h"
#include "clusters/cluster.h"
#include "core/suite.h"
#include "faults/fault.h"
#include "lib/cancel.h"
#include "lib/clock.h"
#include "lib/history.h"
#include "lib/parse.h"

static const char *const actions[] = { "pause", "recreate", NULL };
enum { ACT_PAUSE, ACT_RECREATE };

struct changefeed_opts {
	struct fault_opts common;
	int action;		/* ACT_* */
	const char *changefeed;	/* NULL: the cluster's */
	int64_t timeout;
};

static const struct optspec opts[] = {
	FAULT_COMMON_OPTS,
	{ "action", OPT_ENUM, NULL, 1, actions, 0, 0,
	  "pause: pause it, resume after `down`; recreate: remove it, create "
	  "it again from its checkpoint after `down`",
	  OPT_AT(struct changefeed_opts, action) },
	{ "changefeed", OPT_STRING, NULL, 0, NULL, 0, 0,
	  "the changefeed id (default: the topology's, else tichaos)",
	  OPT_AT(struct changefeed_opts, changefeed) },
	{ "timeout", OPT_DURATION, "30s", 0, NULL, 0, 0,
	  "how long each step may take to show in the changefeed's state",
	  OPT_AT(struct changefeed_opts, timeout) },
};

static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	struct ynode at = { YNODE_SCALAR, it->line, it->col, NULL, 0, NULL, 0 };

	if (fault_check(s, it, e))
		return -1;
	if (!(s->requires & REQUIRE_TICDC))
		return ynode_error(e, s->path, &at, "fault 'changefeed' needs "
				   "TiCDC: the suite must say 'requires: "
				   "[ticdc]'");
	return 0;
}

/*
 * A TiCDC that refuses the topology's ticdc: credentials or keyspace
 * (pingcap/ticdc api/middleware) would refuse every step: that costs no
 * run.
 */
static int resolve(struct cluster *c, const struct suite *s,
		   const struct suite_item *it, struct err *e)
{
	const struct changefeed_opts *o = it->opts;
	const char *id = cluster_changefeed_id(c, o->changefeed);
	struct err why = ERR_INIT;

	if (!cluster_ticdc(c) || !cluster_ticdc_access(c, id, &why))
		return 0;
	/* TiCDC that cannot check credentials is no fault of the suite's. */
	if (why.class == ERR_INFRA)
		return err_set(e, ERR_INFRA, "fault 'changefeed': changefeed "
			       "%s: %s", id, why.msg);
	return fault_error_at(e, s, it, NULL, "fault 'changefeed': "
			      "changefeed %s: %s", id, why.msg);
}

static const char *feed_id(struct fault_ctx *ctx, const struct suite_item *it)
{
	const struct changefeed_opts *o = it->opts;

	return cluster_changefeed_id(ctx->cluster, o->changefeed);
}

/*
 * Ask for the changefeed until its state is `want` (NULL: until TiCDC no
 * longer knows it), at most `timeout` (in an injection, less when the run
 * hurries to its end). On success *cf is its last state.
 */
static int await(struct fault_ctx *ctx, const char *id, const char *want,
		 int64_t timeout, int may_hurry, struct changefeed *cf,
		 struct err *e)
{
	int64_t deadline = clock_mono_ns() + timeout;
	struct err last = ERR_INIT;
	char d[32];
	int rc;

	for (;;) {
		err_clear(&last);
		rc = cluster_changefeed(ctx->cluster, id, cf, &last);
		if (want ? rc == 0 && !strcmp(cf->state, want) : rc == 1)
			return 0;
		if (clock_mono_ns() >= deadline ||
		    (may_hurry && cancelled(ctx->cancel, CANCEL_STOP)))
			break;
		clock_sleep_ns(100 * NS_PER_MS);
	}
	format_duration(timeout, d, sizeof(d));
	if (rc != 0)
		return err_set(e, ERR_INFRA, "changefeed %s: not %s after %s: "
			       "%s", id, want ? want : "removed", d, last.msg);
	return err_set(e, ERR_INFRA, "changefeed %s: state %s, not %s, after "
		       "%s%s%s", id, cf->state, want ? want : "removed", d,
		       cf->error[0] ? "; error: " : "", cf->error);
}

/* ,"state":S,"checkpoint_ts":N */
static void add_state(struct buf *value, const struct changefeed *cf)
{
	buf_addstr(value, ",\"state\":", NULL);
	json_quote(value, cf->state, NULL);
	buf_printf(value, NULL, ",\"checkpoint_ts\":%llu",
		   (unsigned long long)cf->checkpoint_ts);
}

static int pause_feed(struct fault_ctx *ctx, const char *id, int64_t timeout,
		      struct fault_action *act, struct buf *value,
		      struct err *e)
{
	struct err unseen = ERR_INIT;
	struct component *via;
	struct changefeed cf;

	if (cluster_changefeed_pause(ctx->cluster, id, &via, e))
		return -1;
	buf_addstr(value, ",\"via\":", NULL);
	json_quote(value, via->name, NULL);
	if (await(ctx, id, "stopped", timeout, 1, &cf, &unseen)) {
		/* Paused later, it would stay paused: resume it now. */
		cluster_changefeed_resume(ctx->cluster, id, NULL, NULL);
		return err_set(e, unseen.class, "%s (resumed again)",
			       unseen.msg);
	}
	add_state(value, &cf);
	act->targets[0] = via;
	act->ntargets = 1;
	return 0;
}

/*
 * The sink URI to create changefeed `id` again with: the topology's for
 * the topology's changefeed; else the one TiCDC shows, unless it holds a
 * password (TiCDC masks those).
 */
static int sink_for(struct cluster *c, const char *id,
		    const struct changefeed *cf, char *out, size_t size,
		    struct err *e)
{
	struct buf redacted = BUF_INIT;
	const char *uri = cf->sink_uri;
	int masked;

	if (c->changefeed && c->sink_uri && !strcmp(c->changefeed, id))
		uri = c->sink_uri;
	else if (!uri[0])
		return err_set(e, ERR_INFRA, "changefeed %s: TiCDC shows no "
			       "sink_uri to create it again with", id);
	redact_uri(uri, &redacted);
	masked = uri == cf->sink_uri && strcmp(buf_str(&redacted), uri);
	buf_release(&redacted);
	if (masked)
		return err_set(e, ERR_INFRA, "changefeed %s: TiCDC masks the "
			       "password of its sink URI; give the changefeed "
			       "with its sink_uri in the topology", id);
	if (strlen(uri) >= size)
		return err_set(e, ERR_INFRA, "changefeed %s: its sink URI is "
			       "longer than %zu bytes", id, size - 1);
	snprintf(out, size, "%s", uri);
	return 0;
}

/*
 * What the heal of a removal creates the changefeed again with: the
 * checkpoint to start from, and the sink URI, which is never written
 * anywhere and wiped when let go.
 */
struct removed {
	uint64_t start_ts;
	char sink_uri[1024];
};

static void forget(void *state)
{
	memset(state, 0, sizeof(struct removed));
	free(state);
}

static int remove_feed(struct fault_ctx *ctx, const char *id, int64_t timeout,
		       struct fault_action *act, struct buf *value,
		       struct err *e)
{
	struct buf redacted = BUF_INIT;
	struct err unseen = ERR_INIT;
	struct removed *r = xcalloc(1, sizeof(*r));
	struct component *via;
	struct changefeed cf;

	act->state = r;
	if (cluster_changefeed(ctx->cluster, id, &cf, e) ||
	    sink_for(ctx->cluster, id, &cf, r->sink_uri,
		     sizeof(r->sink_uri), e))
		return -1;
	r->start_ts = cf.checkpoint_ts;
	add_state(value, &cf);
	redact_uri(r->sink_uri, &redacted);
	buf_addstr(value, ",\"sink_uri\":", NULL);
	json_quote(value, buf_str(&redacted), NULL);
	buf_release(&redacted);
	if (cluster_changefeed_remove(ctx->cluster, id, &via, e))
		return -1;
	buf_addstr(value, ",\"via\":", NULL);
	json_quote(value, via->name, NULL);
	if (await(ctx, id, NULL, timeout, 1, &cf, &unseen)) {
		/* Removed later, it would be lost: create it now (refused
		 * while it exists). */
		cluster_changefeed_create(ctx->cluster, id, r->sink_uri,
					  r->start_ts, NULL, NULL);
		return err_set(e, unseen.class, "%s (created again)",
			       unseen.msg);
	}
	act->targets[0] = via;
	act->ntargets = 1;
	return 0;
}

static int inject(struct fault_ctx *ctx, const struct suite_item *it,
		  const struct plan_event *ev, struct fault_action *act,
		  struct buf *value, struct err *e)
{
	const struct changefeed_opts *o = it->opts;
	const char *id = feed_id(ctx, it);
	int action = o->action;
	int64_t timeout = o->timeout;
	int rc;

	(void)ev;
	buf_addstr(value, "\"changefeed\":", NULL);
	json_quote(value, id, NULL);
	buf_printf(value, NULL, ",\"action\":\"%s\"", actions[action]);
	rc = action == ACT_PAUSE ? pause_feed(ctx, id, timeout, act, value, e)
	     : remove_feed(ctx, id, timeout, act, value, e);
	return rc;
}

static int heal(struct fault_ctx *ctx, struct fault_action *act,
		struct buf *value, struct err *e)
{
	const struct suite_item *it = act->item;
	const struct changefeed_opts *o = it->opts;
	const char *id = feed_id(ctx, it);
	int64_t timeout = o->timeout;
	struct changefeed cf;
	int rc;

	buf_addstr(value, "\"changefeed\":", NULL);
	json_quote(value, id, NULL);
	if (o->action == ACT_PAUSE) {
		buf_addstr(value, ",\"action\":\"resume\"", NULL);
		rc = cluster_changefeed_resume(ctx->cluster, id, NULL, e);
	} else {
		const struct removed *r = act->state;

		buf_printf(value, NULL, ",\"action\":\"create\",\"start_ts\":"
			   "%llu", (unsigned long long)r->start_ts);
		rc = cluster_changefeed_create(ctx->cluster, id, r->sink_uri,
					       r->start_ts, NULL, e);
	}
	if (rc || await(ctx, id, "normal", timeout, 0, &cf, e))
		return -1;
	add_state(value, &cf);
	return 0;
}

const struct fault_type fault_changefeed = {
	.kind = { "changefeed", "pause TiCDC's changefeed, or remove it, and "
		  "put it back after `down` (TiCDC only)",
		  opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct changefeed_opts), .check = check,
		  .plan = fault_plan },
	.resolve = resolve,
	.inject = inject,
	.heal = heal,
	.heal_name = "restore",
	.forget = forget,
	.target = feed_id,
};
