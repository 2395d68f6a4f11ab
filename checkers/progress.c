/*
 * progress: replication keeps going after the faults. On TiCDC the
 * changefeed's checkpoint_ts must advance and its state be "normal"
 * (Open API v2); on the local cluster the replica's threads must run and
 * its lag reach 0. A replica whose SQL thread stopped on an error fails
 * at once, with the error's code and text (the event or query it could
 * not apply), the last GTID it applied and the source's binlog position.
 */
#include <stdio.h>
#include <string.h>

#include "checkers/checker.h"
#include "clusters/api.h"
#include "clusters/cluster.h"
#include "lib/clock.h"
#include "lib/history.h"
#include "lib/http.h"
#include "lib/parse.h"
#include "runner/suite.h"

static const struct optspec opts[] = {
	{ "timeout", OPT_DURATION, "60s", 0, NULL, 0, 0,
	  "how long replication may take to show progress" },
	{ "changefeed", OPT_STRING, NULL, 0, NULL, 0, 0,
	  "TiCDC: the changefeed id (default: the topology's, else "
	  "tichaos)" },
};

static int ticdc(const struct check_ctx *ctx, const struct suite_item *it,
		 struct check_result *r, struct err *e)
{
	const char *id = cluster_changefeed_id(ctx->cluster,
					       suite_opt(it, "changefeed")->s);
	int64_t deadline = clock_mono_ns() + suite_opt(it, "timeout")->i;
	struct changefeed cf;
	uint64_t first;

	if (cluster_changefeed(ctx->cluster, id, &cf, e))
		return -1;
	first = cf.checkpoint_ts;
	for (;;) {
		if (cluster_changefeed(ctx->cluster, id, &cf, e))
			return -1;
		if (!strcmp(cf.state, "normal") && cf.checkpoint_ts > first)
			break;
		if (clock_mono_ns() >= deadline || check_interrupted(ctx)) {
			check_verdict(r, VERDICT_FAIL, "changefeed %s: state %s, "
				      "checkpoint_ts %llu did not advance%s%s",
				      id, cf.state,
				      (unsigned long long)cf.checkpoint_ts,
				      cf.error[0] ? "; error: " : "", cf.error);
			break;
		}
		clock_sleep_ns(500 * NS_PER_MS, NULL);
	}
	buf_printf(&r->details, NULL, "\"changefeed\":\"%s\",\"state\":\"%s\","
		   "\"checkpoint_from\":%llu,\"checkpoint_to\":%llu", id,
		   cf.state, (unsigned long long)first,
		   (unsigned long long)cf.checkpoint_ts);
	if (cf.error[0]) {
		buf_addstr(&r->details, ",\"error\":", NULL);
		json_quote(&r->details, cf.error, NULL);
	}
	if (r->verdict != VERDICT_FAIL)
		check_verdict(r, VERDICT_PASS, "changefeed %s normal, "
			      "checkpoint advanced", id);
	return 0;
}

static int run(const struct check_ctx *ctx, const struct suite_item *it,
	       struct check_result *r, struct err *e)
{
	struct cluster *c = ctx->cluster;
	int64_t timeout = suite_opt(it, "timeout")->i, start = clock_mono_ns();
	size_t replicas = 0, behind = 0;
	char first[400] = "";

	if (cluster_ticdc(c))
		return ticdc(ctx, it, r, e);
	buf_addstr(&r->details, "\"replicas\":[", NULL);
	for (size_t i = 0; i < c->ncomps; i++) {
		const struct component *comp = &c->comps[i];
		struct replica_stop stop;
		struct err why = ERR_INIT;
		int stopped = 0;
		long lag = -1;

		if (!comp->replicates)
			continue;
		for (;;) {
			err_clear(&why);
			if (!component_ready(c, comp, &why)) {
				lag = component_lag(c, comp);
				if (lag == 0)
					break;
			} else if (component_replica_stopped(c, comp, &stop,
							     NULL) == 1) {
				/* A SQL thread stopped on an error stays
				 * stopped: said at once, never waited out
				 * (it is not ready, so only then asked). */
				stopped = 1;
				err_clear(&why);
				err_set(&why, ERR_INFRA, "replication "
					"stopped on SQL error %ld after GTID "
					"%s (%s): %s",
					stop.sql_errno, stop.gtid[0]
					? stop.gtid : "?", stop.position,
					stop.error);
				break;
			}
			if (clock_mono_ns() - start >= timeout ||
			    check_interrupted(ctx))
				break;
			clock_sleep_ns(100 * NS_PER_MS, NULL);
		}
		buf_printf(&r->details, NULL, "%s{\"component\":\"%s\","
			   "\"lag\":%ld,\"error\":", replicas ? "," : "",
			   comp->name, lag);
		json_quote(&r->details, why.msg, NULL);
		if (stopped) {
			buf_printf(&r->details, NULL, ",\"sql_errno\":%ld,"
				   "\"gtid\":", stop.sql_errno);
			json_quote(&r->details, stop.gtid, NULL);
			buf_addstr(&r->details, ",\"position\":", NULL);
			json_quote(&r->details, stop.position, NULL);
		}
		buf_addch(&r->details, '}', NULL);
		replicas++;
		if (lag != 0) {
			behind++;
			if (!first[0])
				snprintf(first, sizeof(first), "%s: %s",
					 comp->name, err_isset(&why) ? why.msg
					 : "still behind");
		}
	}
	buf_addch(&r->details, ']', NULL);
	snprintf(r->numbers, sizeof(r->numbers), "replicas=%zu behind=%zu",
		 replicas, behind);
	if (!replicas)
		check_verdict(r, VERDICT_SKIP, "no replica or changefeed in "
			      "the cluster");
	else if (behind)
		check_verdict(r, VERDICT_FAIL, "%zu of %zu replicas not caught "
			      "up; %s", behind, replicas, first);
	else
		check_verdict(r, VERDICT_PASS, "%zu replica%s running, caught "
			      "up in %.1fs", replicas, replicas == 1 ? "" : "s",
			      (double)(clock_mono_ns() - start) / NS_PER_SEC);
	return 0;
}

const struct checker_type checker_progress = {
	.kind = { "progress", "replication keeps going: the changefeed's "
		  "checkpoint advances, or the replica catches up",
		  opts, sizeof(opts) / sizeof(opts[0]) },
	.live = 1,
	.run = run,
};
