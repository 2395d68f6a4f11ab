/*
 * region: move TiKV's regions under the workload through PD's operator API
 * (docs/faults.md): transfer a region's leader to another store, split it,
 * merge it into the region after it, or scatter its peers. The regions are
 * those of the suite's tables (or of `tables`), as TiDB's status port
 * lists them (GET /tables/{db}/{table}/regions, pingcap/tidb
 * pkg/server/handler/tikvhandler/tikv_handler.go: TableRegions, one per
 * partition for a partitioned table); the region, and for transfer_leader
 * the store, are drawn from the plan's choice. Each region is read from
 * PD before and after (GET /pd/api/v1/region/id/{id}, tikv/pd
 * server/api/region.go; pkg/response/region.go RegionInfo), the operator
 * is created with POST /pd/api/v1/operators (tikv/pd
 * server/api/operator.go, pkg/schedule/handler/handler.go
 * HandleOperatorCreation) and the change is verified in what PD then
 * shows, polled until `timeout`:
 *
 *   transfer_leader  the leader's store is the one asked for
 *   split            the region's version went up; the split key is the
 *                    boundary that moved, the new region the one PD now
 *                    has on the other side of it
 *   merge            the region (the source) is gone, and the region that
 *                    followed it (the target) covers both ranges
 *   scatter          the operator PD made for it ended with SUCCESS
 *                    (GET /pd/api/v1/operators/{id}), or its peers moved;
 *                    PD making none is "nothing_to_move"
 *
 * PD refusing the operator (a merge of a region with a pending peer, say)
 * is the fault not taking effect, with PD's message. A region fault has
 * no heal: what it did stays done.
 *
 * Needs TiKV and PD: a suite with this fault must say `requires: [tidb]`,
 * and the cluster must give a pd component and a TiDB (upstream) with an
 * http_url.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clusters/api.h"
#include "clusters/cluster.h"
#include "core/plan.h"
#include "core/suite.h"
#include "faults/fault.h"
#include "lib/cancel.h"
#include "lib/clock.h"
#include "lib/history.h"
#include "lib/http.h"
#include "lib/parse.h"

static const char *const ops[] = {
	"transfer_leader", "split", "merge", "scatter", NULL,
};
enum { OP_TRANSFER_LEADER, OP_SPLIT, OP_MERGE, OP_SCATTER };

/* TiKV's split check policies PD passes on (pdpb.CheckPolicy); `usekey`
 * needs keys, which the fault does not make up. */
static const char *const policies[] = { "scan", "approximate", NULL };

struct region_opts {
	struct fault_opts common;
	int op;
	struct optlist tables;	/* empty: every table of the suite */
	int policy;
	int64_t timeout;
};

#define AT(member) OPT_AT(struct region_opts, member)

static const struct optspec opts[] = {
	FAULT_COMMON_OPTS,
	{ "op", OPT_ENUM, NULL, 1, ops, 0, 0,
	  "transfer_leader, split, merge (into the next region) or scatter",
	  AT(op) },
	{ "tables", OPT_TABLES, NULL, 0, NULL, 0, 0,
	  "whose regions (default: every table of the suite)", AT(tables) },
	{ "policy", OPT_ENUM, NULL, 0, policies, 0, 0,
	  "op split: how TiKV finds the split key, scan or approximate "
	  "(default scan)", AT(policy) },
	{ "timeout", OPT_DURATION, "30s", 0, NULL, 0, 0,
	  "how long the change may take to show in PD", AT(timeout) },
};

/* Peers of a region looked at, at most. */
#define MAX_PEERS 16

/* A region as PD shows it. */
struct region {
	uint64_t id;
	char start[512];	/* hex, upper case, as PD writes keys */
	char end[512];		/* "": the end of the key space */
	uint64_t conf_ver;
	uint64_t version;
	uint64_t leader_store;	/* 0: no leader */
	uint64_t stores[MAX_PEERS];
	int voter[MAX_PEERS];
	size_t npeers;
	int64_t approximate_keys;	/* -1: PD did not say */
};

/* A region TiDB lists for a table (or one of its partitions). */
struct listed {
	uint64_t id;
	const char *table;
	char partition[128];
};

/* The regions one injection draws from, each once. */
struct regions {
	struct listed *v;
	size_t n, alloc;
};

static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	const struct region_opts *o = it->opts;
	struct ynode at = { YNODE_SCALAR, it->line, it->col, NULL, 0, NULL, 0 };

	if (fault_check(s, it, e))
		return -1;
	if (!(s->requires & REQUIRE_TIDB))
		return ynode_error(e, s->path, &at, "fault 'region' needs TiKV "
				   "and PD: the suite must say 'requires: "
				   "[tidb]'");
	if (suite_optval(it, &o->policy)->given && o->op != OP_SPLIT)
		return fault_error_at(e, s, it, &o->policy, "policy in fault "
				      "'region' applies to op split only");
	if (suite_optval(it, &o->common.down)->given)
		return fault_error_at(e, s, it, &o->common.down, "fault "
				      "'region' has no heal: 'down' does not "
				      "apply");
	if (o->timeout < 100 * NS_PER_MS)
		return fault_error_at(e, s, it, &o->timeout, "timeout in fault "
				      "'region' must be at least 100ms");
	return 0;
}

/* The component it needs of each API, once the cluster is known. */
static int resolve(struct cluster *c, const struct suite *s,
		   const struct suite_item *it, struct err *e)
{
	if (!cluster_has_api(c, ROLE_PD))
		return fault_error_at(e, s, it, NULL, "fault 'region' needs "
				      "PD's API: no pd component with an "
				      "http_url in this cluster");
	if (!cluster_has_api(c, ROLE_UPSTREAM))
		return fault_error_at(e, s, it, NULL, "fault 'region' needs "
				      "TiDB's status port: no upstream "
				      "component with an http_url in this "
				      "cluster");
	return 0;
}

static const char *target(struct fault_ctx *ctx, const struct suite_item *it)
{
	const struct region_opts *o = it->opts;

	(void)ctx;
	return o->tables.n == 1 ? o->tables.v[0] : NULL;
}

static uint64_t uint_of(json_t *v)
{
	return v ? (uint64_t)json_integer_value(v) : 0;
}

/* Fill `r` from PD's RegionInfo `doc` (zero members are left out). */
static int parse_region(json_t *doc, const char *where, struct region *r,
			struct err *e)
{
	json_t *id, *start, *end, *conf, *version, *leader, *peers, *keys, *p;
	size_t i;

	memset(r, 0, sizeof(*r));
	if (http_field(doc, "id", WANT_INTEGER, where, &id, e) ||
	    http_field(doc, "start_key", WANT_STRING, where, &start, e) ||
	    http_field(doc, "end_key", WANT_STRING, where, &end, e) ||
	    http_field(doc, "epoch.conf_ver", WANT_INTEGER | WANT_OPTIONAL,
		       where, &conf, e) ||
	    http_field(doc, "epoch.version", WANT_INTEGER | WANT_OPTIONAL,
		       where, &version, e) ||
	    http_field(doc, "leader.store_id", WANT_INTEGER | WANT_OPTIONAL,
		       where, &leader, e) ||
	    http_field(doc, "peers", WANT_ARRAY | WANT_OPTIONAL, where,
		       &peers, e) ||
	    http_field(doc, "approximate_keys", WANT_INTEGER | WANT_OPTIONAL,
		       where, &keys, e))
		return -1;
	r->approximate_keys = keys ? json_integer_value(keys) : -1;
	r->id = uint_of(id);
	snprintf(r->start, sizeof(r->start), "%s", json_string_value(start));
	snprintf(r->end, sizeof(r->end), "%s", json_string_value(end));
	r->conf_ver = uint_of(conf);
	r->version = uint_of(version);
	r->leader_store = uint_of(leader);
	json_array_foreach(peers, i, p) {
		json_t *store, *role;

		if (http_field(p, "store_id", WANT_INTEGER, where, &store, e) ||
		    http_field(p, "role_name", WANT_STRING | WANT_OPTIONAL,
			       where, &role, e))
			return -1;
		if (r->npeers == MAX_PEERS)
			break;
		r->stores[r->npeers] = uint_of(store);
		/* GetStoreVoter: any peer but a learner. */
		r->voter[r->npeers++] = !role ||
			strcmp(json_string_value(role), "Learner");
	}
	return 0;
}

/*
 * GET a region from PD at `path`: 0 with `r`, 1 when PD has none there
 * (404), -1 otherwise.
 */
static int pd_region(struct fault_ctx *ctx, const char *path,
		     struct region *r, struct err *e)
{
	struct api_reply a = API_REPLY_INIT;
	int rc;

	if (cluster_api(ctx->cluster, ROLE_PD, "GET", path, NULL, API_JSON, &a,
			e))
		rc = a.status == 404 ? 1 : -1;
	else
		rc = parse_region(a.doc, a.where, r, e);
	api_reply_release(&a);
	return rc;
}

static int region_by_id(struct fault_ctx *ctx, uint64_t id, struct region *r,
			struct err *e)
{
	char path[128];

	snprintf(path, sizeof(path), "/pd/api/v1/region/id/%llu",
		 (unsigned long long)id);
	return pd_region(ctx, path, r, e);
}

/* The region holding key `hex` (PD's hex). */
static int region_by_key(struct fault_ctx *ctx, const char *hex,
			 struct region *r, struct err *e)
{
	char path[1100];

	snprintf(path, sizeof(path), "/pd/api/v1/region/key/%s?format=hex",
		 hex);
	return pd_region(ctx, path, r, e);
}

/* ,"NAME":{"id":..,"start_key":..,...} */
static void add_region(struct buf *value, const char *name,
		       const struct region *r)
{
	buf_printf(value, NULL, ",\"%s\":{\"id\":%llu,\"start_key\":", name,
		   (unsigned long long)r->id);
	json_quote(value, r->start, NULL);
	buf_addstr(value, ",\"end_key\":", NULL);
	json_quote(value, r->end, NULL);
	buf_printf(value, NULL, ",\"conf_ver\":%llu,\"version\":%llu,"
		   "\"leader_store\":%llu,\"stores\":[",
		   (unsigned long long)r->conf_ver,
		   (unsigned long long)r->version,
		   (unsigned long long)r->leader_store);
	for (size_t i = 0; i < r->npeers; i++)
		buf_printf(value, NULL, "%s%llu", i ? "," : "",
			   (unsigned long long)r->stores[i]);
	buf_addstr(value, "]}", NULL);
}

/* Add the record regions of one TableRegions object `t` to `out`. */
static int add_listed(json_t *t, const char *table, int partitioned,
		      const char *where, struct regions *out, struct err *e)
{
	json_t *name, *regions, *r, *id;
	size_t i, k;

	if (http_field(t, "name", WANT_STRING, where, &name, e) ||
	    http_field(t, "record_regions", WANT_ARRAY | WANT_OPTIONAL, where,
		       &regions, e))
		return -1;
	json_array_foreach(regions, i, r) {
		struct listed *l;

		if (http_field(r, "region_id", WANT_INTEGER, where, &id, e))
			return -1;
		for (k = 0; k < out->n && out->v[k].id != uint_of(id); k++)
			;
		if (k < out->n)
			continue;
		if (out->n == out->alloc) {
			out->alloc = out->alloc ? 2 * out->alloc : 64;
			out->v = xrealloc(out->v, out->alloc * sizeof(*out->v));
		}
		l = &out->v[out->n++];
		l->id = uint_of(id);
		l->table = table;
		snprintf(l->partition, sizeof(l->partition), "%s",
			 partitioned ? json_string_value(name) : "");
	}
	return 0;
}

/* The regions of the item's tables as TiDB lists them, each once. */
static int list_regions(struct fault_ctx *ctx, const struct suite_item *it,
			struct regions *out, struct err *e)
{
	const struct region_opts *o = it->opts;
	const struct suite *s = ctx->suite;
	size_t ntables = o->tables.n ? o->tables.n : s->ntables;

	for (size_t i = 0; i < ntables; i++) {
		const char *table = o->tables.n ? o->tables.v[i]
				    : s->tables[i].name;
		struct api_reply a = API_REPLY_INIT;
		char path[512];
		json_t *t;
		size_t k;
		int rc = 0;

		snprintf(path, sizeof(path), "/tables/%s/%s/regions",
			 s->database, table);
		if (cluster_api(ctx->cluster, ROLE_UPSTREAM, "GET", path, NULL,
				API_JSON, &a, e))
			rc = -1;
		else if (json_is_array(a.doc))
			json_array_foreach(a.doc, k, t) {
				if (!rc)
					rc = add_listed(t, table, 1, a.where,
							out, e);
			}
		else
			rc = add_listed(a.doc, table, 0, a.where, out, e);
		api_reply_release(&a);
		if (rc)
			return -1;
	}
	if (!out->n)
		return err_set(e, ERR_INFRA, "TiDB lists no region of %s%s",
			       ntables == 1 ? "table " : "the suite's tables",
			       ntables == 1 ? (o->tables.n ? o->tables.v[0]
					       : s->tables[0].name) : "");
	return 0;
}

/* POST an operator to PD: PD's refusal is the error, as PD says it. */
static int add_operator(struct fault_ctx *ctx, const char *body,
			struct err *e)
{
	struct api_reply a = API_REPLY_INIT;
	int rc = cluster_api(ctx->cluster, ROLE_PD, "POST",
			     "/pd/api/v1/operators", body, 0, &a, e);

	api_reply_release(&a);
	return rc;
}

/* What an injection waits for, and what it read last. */
struct watch {
	int op;
	const struct region *before;
	uint64_t to_store;		/* transfer_leader */
	const struct region *target;	/* merge: the target before */
	struct region now;		/* the region as read last */
	int read;			/* `now` holds a read */
	char prior[1024];		/* scatter: PD's operator before */
	char status[32];		/* scatter: the operator's status */
	char shows[1200];	/* what PD showed instead */
};

/*
 * The operator PD keeps for region `id` (GET /pd/api/v1/operators/{id}:
 * "status: SUCCESS, operator: scatter-region {...} (..., createAt:...)",
 * a JSON string, pkg/schedule/operator/operator_controller.go
 * OpWithStatus), up to `size` bytes of it; "" when PD has none.
 */
static int operator_text(struct fault_ctx *ctx, uint64_t id, char *text,
			 size_t size, struct err *e)
{
	struct api_reply a = API_REPLY_INIT;
	char path[128];

	text[0] = '\0';
	snprintf(path, sizeof(path), "/pd/api/v1/operators/%llu",
		 (unsigned long long)id);
	if (cluster_api(ctx->cluster, ROLE_PD, "GET", path, NULL,
			API_JSON | API_ANY, &a, e)) {
		int none = a.status == 500 && strstr(e->msg,
						     "ErrOperatorNotFound");

		api_reply_release(&a);
		if (!none)
			return -1;
		err_clear(e);
		return 0;
	}
	snprintf(text, size, "%s", json_is_string(a.doc) ?
		 json_string_value(a.doc) : "");
	api_reply_release(&a);
	return 0;
}

/*
 * The status of a scatter operator in `text` ("SUCCESS", "RUNNING", ...),
 * unless it is the one PD kept from before (`prior`: PD keeps an ended
 * operator's record for 10 minutes) or another kind of operator: "".
 */
static void scatter_status(const char *text, const char *prior, char *status,
			   size_t size)
{
	const char *comma = strchr(text, ',');

	status[0] = '\0';
	if (!strcmp(text, prior) || strncmp(text, "status: ", 8) || !comma ||
	    strncmp(comma, ", operator: scatter-region ", 27))
		return;
	snprintf(status, size, "%.*s", (int)(comma - text - 8), text + 8);
}

/* Whether the peers of `a` and `b` are on the same stores, in any order. */
static int same_stores(const struct region *a, const struct region *b)
{
	if (a->npeers != b->npeers)
		return 0;
	for (size_t i = 0; i < a->npeers; i++) {
		size_t k = 0;

		while (k < b->npeers && b->stores[k] != a->stores[i])
			k++;
		if (k == b->npeers)
			return 0;
	}
	return 1;
}

/*
 * Read what PD shows now: 1 when the change is there, 0 when not yet, -1
 * when it cannot be read (asked again), -2 when it will never come (a
 * scatter operator that ended otherwise).
 */
static int seen(struct fault_ctx *ctx, struct watch *w, struct err *e)
{
	const struct region *b = w->before;
	uint64_t id = w->op == OP_MERGE ? w->target->id : b->id;
	struct region now;
	int rc;

	if (w->op == OP_MERGE) {
		struct region src;

		rc = region_by_id(ctx, b->id, &src, e);
		if (rc == 0)
			snprintf(w->shows, sizeof(w->shows), "PD still has "
				 "region %llu", (unsigned long long)b->id);
		if (rc != 1)
			return rc < 0 ? -1 : 0;
	}
	rc = region_by_id(ctx, id, &now, e);
	if (rc)
		return rc < 0 ? -1 : (snprintf(w->shows, sizeof(w->shows),
					       "PD has no region %llu",
					       (unsigned long long)id), 0);
	/* The operator after the region: peers seen moved, its status is
	 * at least as new (read before, it said RUNNING of an operator
	 * that finished between the two reads: t0456 on a loaded machine). */
	if (w->op == OP_SCATTER) {
		char text[1024];

		if (operator_text(ctx, b->id, text, sizeof(text), e))
			return -1;
		scatter_status(text, w->prior, w->status, sizeof(w->status));
	}
	w->now = now;
	w->read = 1;
	switch (w->op) {
	case OP_TRANSFER_LEADER:
		snprintf(w->shows, sizeof(w->shows), "PD shows its leader on "
			 "store %llu", (unsigned long long)w->now.leader_store);
		return w->now.leader_store == w->to_store;
	case OP_SPLIT:
		snprintf(w->shows, sizeof(w->shows), "PD shows version %llu",
			 (unsigned long long)w->now.version);
		return w->now.version > b->version;
	case OP_MERGE:
		snprintf(w->shows, sizeof(w->shows), "PD shows region %llu "
			 "from '%s' to '%s'", (unsigned long long)id,
			 w->now.start, w->now.end);
		return !strcmp(w->now.start, b->start) &&
		       !strcmp(w->now.end, w->target->end);
	}
	snprintf(w->shows, sizeof(w->shows), "its operator: %s",
		 w->status[0] ? w->status : "none");
	if (!strcmp(w->status, "SUCCESS") || !same_stores(&w->now, b))
		return 1;
	return w->status[0] && strcmp(w->status, "RUNNING") ? -2 : 0;
}

/* What each op waits to see, for the message when it is not seen. */
static void wanted(const struct watch *w, char *out, size_t size)
{
	unsigned long long id = w->before->id;

	if (w->op == OP_TRANSFER_LEADER)
		snprintf(out, size, "region %llu: its leader on store %llu", id,
			 (unsigned long long)w->to_store);
	else if (w->op == OP_SPLIT)
		snprintf(out, size, "region %llu: a split (version above %llu)",
			 id, (unsigned long long)w->before->version);
	else if (w->op == OP_MERGE)
		snprintf(out, size, "region %llu: its merge into region %llu",
			 id, (unsigned long long)w->target->id);
	else
		snprintf(out, size, "region %llu: its scatter", id);
}

/*
 * Poll PD every 100 ms until the change of `w` shows, at most `timeout`
 * (less when the run ends); "after" in `value` is what was read last.
 */
static int await(struct fault_ctx *ctx, struct watch *w, int64_t timeout,
		 struct buf *value, struct err *e)
{
	int64_t deadline = clock_mono_ns() + timeout;
	struct err last = ERR_INIT;
	char what[256], d[32];
	int rc;

	for (;;) {
		err_clear(&last);
		rc = seen(ctx, w, &last);
		if (rc == 1 || rc == -2 || clock_mono_ns() >= deadline ||
		    cancelled(ctx->cancel, CANCEL_STOP))
			break;
		cancel_sleep(ctx->cancel, CANCEL_STOP, 100 * NS_PER_MS);
	}
	if (w->op == OP_SCATTER && w->status[0]) {
		buf_addstr(value, ",\"status\":", NULL);
		json_quote(value, w->status, NULL);
	}
	if (w->read)
		add_region(value, "after", &w->now);
	if (rc == 1)
		return 0;
	wanted(w, what, sizeof(what));
	if (rc == -2)
		return err_set(e, ERR_INFRA, "%s: its operator ended with "
			       "status %s", what, w->status);
	format_duration(timeout, d, sizeof(d));
	if (cancelled(ctx->cancel, CANCEL_STOP))
		return err_set(e, ERR_INFRA, "%s not seen before the run "
			       "ended: %s", what, rc == -1 ? last.msg
			       : w->shows);
	if (rc == -1)
		return err_set(e, ERR_INFRA, "%s not seen within %s; last: %s",
			       what, d, last.msg);
	return err_set(e, ERR_INFRA, "%s not seen within %s: %s", what, d,
		       w->shows);
}

static int transfer_leader(struct fault_ctx *ctx, const struct region *b,
			   struct rand *r, int64_t timeout,
			   struct buf *value, struct err *e)
{
	struct watch w = { .op = OP_TRANSFER_LEADER, .before = b };
	uint64_t to[MAX_PEERS];
	size_t n = 0;
	char body[256];

	for (size_t i = 0; i < b->npeers; i++)
		if (b->voter[i] && b->stores[i] != b->leader_store)
			to[n++] = b->stores[i];
	if (!n)
		return err_set(e, ERR_INFRA, "region %llu has no voter outside "
			       "store %llu (its leader's) to move its leader "
			       "to", (unsigned long long)b->id,
			       (unsigned long long)b->leader_store);
	w.to_store = to[rand_below(r, n)];
	buf_printf(value, NULL, ",\"from_store\":%llu,\"to_store\":%llu",
		   (unsigned long long)b->leader_store,
		   (unsigned long long)w.to_store);
	snprintf(body, sizeof(body), "{\"name\":\"transfer-leader\","
		 "\"region_id\":%llu,\"to_store_id\":%llu}",
		 (unsigned long long)b->id, (unsigned long long)w.to_store);
	if (add_operator(ctx, body, e))
		return -1;
	return await(ctx, &w, timeout, value, e);
}

/*
 * Whether a split that was not seen found no key to split at: TiKV's
 * split check by scan or by approximation finds none in a region without
 * keys, sends PD nothing, and PD's operator waits out its step's time
 * (tikv/pd pkg/schedule/operator/step.go, SplitRegion, FastStepWaitTime).
 * Told by what PD counts in it (approximate_keys 0, from TiKV's
 * heartbeats) before and after, the region unchanged, the wait not cut
 * short by the run's end.
 */
static int no_keys(struct fault_ctx *ctx, const struct watch *w)
{
	return w->read && !cancelled(ctx->cancel, CANCEL_STOP) &&
	       w->before->approximate_keys == 0 &&
	       w->now.approximate_keys == 0 &&
	       w->now.version == w->before->version;
}

/*
 * Split: the boundary that moved is the split key; the new region is the
 * one PD has on the other side of it (TiKV keeps the id on the right by
 * default, right-derive-when-split).
 */
static int split(struct fault_ctx *ctx, const struct region *b, int policy,
		 int64_t timeout, struct buf *value, struct err *e)
{
	struct watch w = { .op = OP_SPLIT, .before = b };
	struct region other;
	const char *key, *at;
	char body[256];
	int rc;

	buf_printf(value, NULL, ",\"policy\":\"%s\"", policies[policy]);
	snprintf(body, sizeof(body), "{\"name\":\"split-region\","
		 "\"region_id\":%llu,\"policy\":\"%s\"}",
		 (unsigned long long)b->id, policies[policy]);
	if (add_operator(ctx, body, e))
		return -1;
	if (await(ctx, &w, timeout, value, e)) {
		if (!no_keys(ctx, &w))
			return -1;
		err_clear(e);
		buf_addstr(value, ",\"nothing_to_move\":true", NULL);
		return 0;
	}
	if (strcmp(w.now.start, b->start)) {
		key = w.now.start;
		at = b->start;
	} else {
		key = w.now.end;
		at = w.now.end;
	}
	buf_addstr(value, ",\"split_key\":", NULL);
	json_quote(value, key, NULL);
	if (!at[0])
		return err_set(e, ERR_INFRA, "region %llu: version %llu but its "
			       "range did not change ('%s' to '%s')",
			       (unsigned long long)b->id,
			       (unsigned long long)w.now.version, w.now.start,
			       w.now.end);
	rc = region_by_key(ctx, at, &other, e);
	if (rc == 1)
		return err_set(e, ERR_INFRA, "region %llu split at '%s': PD has "
			       "no region at '%s'", (unsigned long long)b->id,
			       key, at);
	if (rc)
		return -1;
	add_region(value, "new_region", &other);
	return 0;
}

/* PD refuses to merge a region without all its replicas, or with a
 * pending or down peer (AddMergeRegionOperator). */
#define MERGE_REFUSAL "ErrRegionAbnormalPeer"

/*
 * PD's refusal in `e`, and why PD refuses, which its message does not
 * say: it merges only regions with every replica it wants (max-replicas,
 * 3 by default; filter.IsRegionReplicated) and no pending or down peer
 * (tikv/pd pkg/schedule/handler/handler.go AddMergeRegionOperator, read
 * at v8.1.2). A PD over one TiKV refused every merge so.
 */
static void merge_refused(const struct region *source,
			  const struct region *target, struct err *e)
{
	enum err_class class = e->class;
	char was[ERR_MSG_MAX];

	snprintf(was, sizeof(was), "%s", e->msg);
	err_clear(e);
	err_set(e, class, "%s (PD merges only regions with all the "
		"replicas it wants, max-replicas, and no pending or down peer: "
		"region %llu has %zu peer%s, region %llu %zu)", was,
		(unsigned long long)source->id, source->npeers,
		source->npeers == 1 ? "" : "s",
		(unsigned long long)target->id, target->npeers);
}

/* Merge region `b` (the source) into the region after it. */
static int merge(struct fault_ctx *ctx, const struct region *b,
		 int64_t timeout, struct buf *value, struct err *e)
{
	struct watch w = { .op = OP_MERGE, .before = b };
	struct region target;
	char body[256];
	int rc;

	if (!b->end[0])
		return err_set(e, ERR_INFRA, "region %llu is the last region: "
			       "none after it to merge into",
			       (unsigned long long)b->id);
	rc = region_by_key(ctx, b->end, &target, e);
	if (rc == 1)
		return err_set(e, ERR_INFRA, "PD has no region at '%s', after "
			       "region %llu", b->end,
			       (unsigned long long)b->id);
	if (rc)
		return -1;
	w.target = &target;
	buf_printf(value, NULL, ",\"source\":%llu,\"target\":%llu",
		   (unsigned long long)b->id, (unsigned long long)target.id);
	add_region(value, "target_before", &target);
	snprintf(body, sizeof(body), "{\"name\":\"merge-region\","
		 "\"source_region_id\":%llu,\"target_region_id\":%llu}",
		 (unsigned long long)b->id, (unsigned long long)target.id);
	if (add_operator(ctx, body, e)) {
		if (strstr(e->msg, MERGE_REFUSAL))
			merge_refused(b, &target, e);
		return -1;
	}
	return await(ctx, &w, timeout, value, e);
}

/* PD refuses to scatter a hot region (AddScatterRegionOperator). */
#define HOT_REFUSAL "is a hot region"

/*
 * Ask PD to scatter region `b`, PD's operator for it before in `prior`:
 * 0 asked; 1 refused because PD holds the region hot, written at its
 * hot threshold (500 "region N is a hot region", tikv/pd
 * pkg/schedule/handler/handler.go AddScatterRegionOperator, read at
 * v8.1.2 and a186e0cc); -1 (`e`) otherwise.
 */
static int scatter_ask(struct fault_ctx *ctx, const struct region *b,
		       char *prior, size_t size, struct err *e)
{
	char body[256];

	snprintf(body, sizeof(body), "{\"name\":\"scatter-region\","
		 "\"region_id\":%llu}", (unsigned long long)b->id);
	if (operator_text(ctx, b->id, prior, size, e))
		return -1;
	if (!add_operator(ctx, body, e))
		return 0;
	if (!strstr(e->msg, HOT_REFUSAL))
		return -1;
	err_clear(e);
	return 1;
}

/*
 * Scatter, once asked (scatter_ask): PD adds the operator its scatterer
 * made before it answers, so an answer of 200 with no new scatter
 * operator kept for the region means the scatterer made none: the layout
 * it chose is the one there (pkg/schedule/scatter/region_scatterer.go,
 * isSameDistribution). That is what happened, recorded as
 * "nothing_to_move", not a fault that failed.
 */
static int scatter(struct fault_ctx *ctx, const struct region *b,
		   const char *prior, int64_t timeout, struct buf *value,
		   struct err *e)
{
	struct watch w = { .op = OP_SCATTER, .before = b };
	char text[1024];

	snprintf(w.prior, sizeof(w.prior), "%s", prior);
	if (operator_text(ctx, b->id, text, sizeof(text), e))
		return -1;
	scatter_status(text, w.prior, w.status, sizeof(w.status));
	if (!w.status[0]) {
		buf_addstr(value, ",\"nothing_to_move\":true", NULL);
		return 0;
	}
	return await(ctx, &w, timeout, value, e);
}


/* The table, partition and id of region `l`, into `value`. */
static void listed_value(struct buf *value, const struct listed *l)
{
	buf_addstr(value, ",\"table\":", NULL);
	json_quote(value, l->table, NULL);
	if (l->partition[0]) {
		buf_addstr(value, ",\"partition\":", NULL);
		json_quote(value, l->partition, NULL);
	}
	buf_printf(value, NULL, ",\"region\":%llu",
		   (unsigned long long)l->id);
}

/*
 * The region an injection acts on, read from PD into `b`: the drawn one,
 * `regions` at `at`; for a scatter, asked (PD's operator before it in
 * `prior`), where PD holds it hot the next in their order that PD takes,
 * the ids it refused in `hot` (a JSON list's members). Its table and id
 * into `value`. -1 (`e`) when PD cannot be asked, or every region is hot.
 */
static int pick_region(struct fault_ctx *ctx, const struct region_opts *o,
		       const struct regions *regions, size_t at,
		       struct region *b, char *prior, size_t size,
		       struct buf *hot, struct buf *value, struct err *e)
{
	size_t mark = value->len;

	for (size_t k = 0; k < regions->n; k++) {
		const struct listed *l = &regions->v[(at + k) % regions->n];
		int rc = region_by_id(ctx, l->id, b, e);

		listed_value(value, l);
		if (rc == 1)
			err_set(e, ERR_INFRA, "region %llu, which TiDB lists "
				"for %s, is not in PD",
				(unsigned long long)l->id, l->table);
		if (rc || o->op != OP_SCATTER)
			return rc ? -1 : 0;
		if ((rc = scatter_ask(ctx, b, prior, size, e)) <= 0)
			return rc;
		buf_printf(hot, NULL, "%s%llu", hot->len ? "," : "",
			   (unsigned long long)l->id);
		buf_truncate(value, mark);
	}
	return err_set(e, ERR_INFRA, "PD refused to scatter each of the %zu "
		       "regions: \"region N " HOT_REFUSAL "\" (written at its "
		       "hot threshold)", regions->n);
}

static int inject(struct fault_ctx *ctx, const struct suite_item *it,
		  const struct plan_event *ev, struct fault_action *act,
		  struct buf *value, struct err *e)
{
	const struct region_opts *o = it->opts;
	struct regions regions = { NULL, 0, 0 };
	struct buf hot = BUF_INIT;
	struct region before;
	char prior[1024];
	struct rand r;
	int rc = -1;

	(void)act;
	rand_seed(&r, ev->choice);
	buf_printf(value, NULL, "\"op\":\"%s\"", ops[o->op]);
	if (list_regions(ctx, it, &regions, e))
		goto out;
	rc = pick_region(ctx, o, &regions, rand_below(&r, regions.n), &before,
			 prior, sizeof(prior), &hot, value, e);
	if (hot.len)
		buf_printf(value, NULL, ",\"hot_refused\":[%s]", buf_str(&hot));
	if (rc)
		goto out;
	add_region(value, "before", &before);
	if (o->op == OP_TRANSFER_LEADER)
		rc = transfer_leader(ctx, &before, &r, o->timeout, value, e);
	else if (o->op == OP_SPLIT)
		rc = split(ctx, &before, o->policy < 0 ? 0 : o->policy,
			   o->timeout, value, e);
	else if (o->op == OP_MERGE)
		rc = merge(ctx, &before, o->timeout, value, e);
	else
		rc = scatter(ctx, &before, prior, o->timeout, value, e);
out:
	buf_release(&hot);
	free(regions.v);
	return rc ? -1 : 0;
}

const struct fault_type fault_region = {
	.kind = { "region", "transfer a TiKV region's leader, split, merge or "
		  "scatter it through PD (TiDB only; no heal)",
		  opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct region_opts), .check = check,
		  .plan = fault_plan },
	.resolve = resolve,
	.target = target,
	.inject = inject,
};
