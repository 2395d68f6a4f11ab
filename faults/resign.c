/*
 * resign: move an etcd-elected owner without restarting anything
 * (docs/internals.md, The cases). TiDB's owners — the DDL owner, the autoid
 * leader, the TiCDC owner — are etcd elections: candidates put
 * "<prefix>/<lease-hex>", the key with the lowest create revision owns.
 * Deleting the owner's key (or revoking its lease) makes the owner retire
 * and campaign again, so the next candidate leads. `via: http` uses the
 * servers' own resign APIs instead (TiDB's status port, TiCDC's Open API);
 * PD's leader always resigns over HTTP. `until_back` resigns until the first
 * owner leads again: the A -> B -> A of TiDB issue 52600.
 *
 * `service: etcd` moves etcd's own Raft leader: the leader is asked to
 * hand its leadership to another member (drawn from the plan's choice) with
 * etcd's MoveLeader (server/etcdserver/api/v3rpc/maintenance.go in
 * etcd-io/etcd; `etcdctl move-leader`), and the move is seen in the
 * members' status; `until_back` moves it back to the first.
 *
 * A leadership is a term: the owner's key and its create revision. TiDB's
 * owner manager (pkg/owner/manager.go in pingcap/tidb, campaignLoop)
 * retires when its key is deleted and campaigns again on the same etcd
 * session: its new key has the same name ("prefix/<lease hex>") and a new
 * create revision. So the leadership moved when the term changed, whether
 * or not the key's name did.
 *
 * `hold`: the bug of issue 52600 needs B to lead and allocate before A
 * leads again. Each new leader keeps the leadership for `hold` before the
 * next move (and after the last), and each round is verified: the term
 * lasted the whole hold, and at least one insert succeeded while it did
 * (the history's ok inserts). A round that did not happen so is a fault
 * that did not take effect.
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
#include "lib/etcd.h"
#include "lib/history.h"
#include "lib/http.h"
#include "lib/log.h"

static const char *const services[] = {
	"autoid", "ddl", "cdc", "pd", "etcd", NULL,
};
enum { SVC_AUTOID, SVC_DDL, SVC_CDC, SVC_PD, SVC_ETCD };

/* Members of an etcd cluster a move looks at, at most. */
#define MAX_MEMBERS 16
static const char *const leases[] = { "keep", "revoke", NULL };
static const char *const vias[] = { "etcd", "http", NULL };

#define MAX_ROUNDS 10

struct resign_opts {
	struct fault_opts common;
	int service;		/* SVC_*, -1: not given (election) */
	const char *election;	/* NULL: not given (service) */
	int lease;		/* 0 keep, 1 revoke */
	int via;		/* 0 etcd, 1 http, -1: the service's default */
	int until_back;
	const char *cdc_cluster;
	const char *etcd;	/* NULL: every etcd and pd component */
	int64_t timeout;
	int64_t hold;
};

#define AT(member) OPT_AT(struct resign_opts, member)

static const struct optspec opts[] = {
	FAULT_COMMON_OPTS,
	{ "service", OPT_ENUM, NULL, 0, services, 0, 0,
	  "the owner to move: autoid, ddl, cdc (etcd elections), pd, or "
	  "etcd (its Raft leader)",
	  AT(service) },
	{ "election", OPT_STRING, NULL, 0, NULL, 0, 0,
	  "any etcd election, by key prefix (instead of service)",
	  AT(election) },
	{ "lease", OPT_ENUM, "keep", 0, leases, 0, 0,
	  "keep: delete the owner's key; revoke: revoke its lease",
	  AT(lease) },
	{ "via", OPT_ENUM, NULL, 0, vias, 0, 0,
	  "etcd: through the election; http: the servers' resign API "
	  "(default: http for cdc and pd, etcd otherwise)", AT(via) },
	{ "until_back", OPT_BOOL, "false", 0, NULL, 0, 0,
	  "resign again until the first owner leads again (A -> B -> A)",
	  AT(until_back) },
	{ "cdc_cluster", OPT_STRING, "default", 0, NULL, 0, 0,
	  "service cdc: the TiCDC cluster id in the owner key",
	  AT(cdc_cluster) },
	{ "etcd", OPT_COMPONENT, NULL, 0, NULL, 0, 0,
	  "the component whose etcd URL to use (default: every etcd and pd "
	  "component, the next when one does not answer)", AT(etcd) },
	{ "timeout", OPT_DURATION, "30s", 0, NULL, 0, 0,
	  "how long to wait for a new owner after each resign", AT(timeout) },
	{ "hold", OPT_DURATION, "0s", 0, NULL, 0, 0,
	  "how long each new owner keeps the lead before the next move "
	  "(verified: it led throughout, and an insert succeeded)",
	  AT(hold) },
};

/* One leadership: the owner's key, its create revision, its value. */
struct term {
	char key[512];
	char value[256];
	int64_t create_revision;
	int64_t lease;
};

static int same_term(const struct term *a, const struct term *b)
{
	return !strcmp(a->key, b->key) &&
	       a->create_revision == b->create_revision;
}

/*
 * Through the servers' resign API? By default for TiCDC: deleting a
 * capture's owner key (or revoking its lease) makes tiflow's capture
 * exit and come back under a new capture id (cdc/capture/capture.go in
 * pingcap/tiflow: ErrCaptureSuicide), a restart, not a resign; POST
 * /api/v2/owner/resign (TiCDC >= 6.6) hands the ownership over. On
 * TiCDC's new architecture via etcd is refused (newarch_refused). PD's
 * leader resigns over HTTP only.
 */
static int uses_http(const struct suite_item *it)
{
	const struct resign_opts *o = it->opts;

	if (o->service == SVC_PD)
		return 1;
	if (o->via >= 0)
		return o->via == 1;
	return o->service == SVC_CDC;
}

/* What the history's `target` names: the service, or the election. */
static const char *target(struct fault_ctx *ctx, const struct suite_item *it)
{
	const struct resign_opts *o = it->opts;

	return o->service >= 0 ? services[o->service] : o->election;
}

static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	const struct resign_opts *o = it->opts;

	if (fault_check(s, it, e))
		return -1;
	if ((o->service >= 0) == (o->election != NULL))
		return fault_error_at(e, s, it, NULL, "fault 'resign' needs "
				      "one of 'service' or 'election'");
	if (o->election && (o->election[0] == '\0' ||
			    strchr(o->election, '\n')))
		return fault_error_at(e, s, it, NULL, "election in fault "
				      "'resign' must be a key prefix");
	if (o->hold > 0 && (o->service == SVC_PD || o->service == SVC_ETCD))
		return fault_error_at(e, s, it, &o->hold, "hold in fault "
				      "'resign' needs an etcd election (%s)",
				      o->service == SVC_PD ? "PD's leader "
				      "resigns over HTTP" : "etcd's leader is "
				      "moved, not elected by keys");
	/* lease says how an owner's key goes: a resign without one
	 * (over HTTP, PD, etcd's leader) has no use for it. */
	if (suite_optval(it, &o->lease)->given &&
	    (uses_http(it) || o->service == SVC_ETCD))
		return fault_error_at(e, s, it, &o->lease, "lease in fault "
				      "'resign' needs a resign through an etcd "
				      "election (%s deletes no key)",
				      o->service == SVC_ETCD ? "moving etcd's "
				      "leader" : "one over HTTP");
	if (o->via == 1 && (o->election || o->service == SVC_AUTOID ||
			    o->service == SVC_ETCD))
		return fault_error_at(e, s, it, &o->via, "via: http needs "
				      "service ddl, cdc or pd (%s has no HTTP "
				      "resign)", o->election ? "an election"
				      : services[o->service]);
	return 0;
}

/*
 * The election a resign item moves: its key prefix (empty for PD, whose
 * leader resigns over HTTP) and the etcd URL to read it from.
 */
static int resign_election(struct cluster *c, const struct suite_item *it,
			   char *prefix, size_t prefix_size, const char **url,
			   struct err *e)
{
	const struct resign_opts *o = it->opts;
	const char *name = o->etcd;

	if (o->election)
		snprintf(prefix, prefix_size, "%s", o->election);
	else if (election_prefix(services[o->service], o->cdc_cluster, prefix,
				 prefix_size))
		prefix[0] = '\0';	/* pd, etcd: no election keys */
	*url = cluster_etcd_url(c, name);
	if (!*url && prefix[0])
		return err_set(e, ERR_INFRA, "resign: no %s%s%swith an etcd "
			       "URL in the cluster", name ? "component '" : "",
			       name ? name : "etcd or pd component ",
			       name ? "' " : "");
	return 0;
}

/* The owner's term in the election, key "" when none owns. */
static int read_owner(const char *url, const char *prefix, struct term *t,
		      struct err *e)
{
	struct etcd_kvs kvs = ETCD_KVS_INIT;
	const struct etcd_kv *o;

	memset(t, 0, sizeof(*t));
	if (etcd_election(url, prefix, &kvs, e))
		return -1;
	o = etcd_owner(&kvs);
	if (o) {
		snprintf(t->key, sizeof(t->key), "%s", o->key);
		snprintf(t->value, sizeof(t->value), "%s", o->value);
		t->create_revision = o->create_revision;
		t->lease = o->lease;
	}
	etcd_kvs_release(&kvs);
	return 0;
}

/*
 * The owner's term, its value as the component it stands for when the
 * election is TiCDC's: a capture's id changes each time it restarts, its
 * address (from /api/v2/captures) does not, so A -> B -> A is told by
 * address. A value that stands for no component stays as it is; when
 * TiCDC cannot be asked, the owner is not known (-1).
 */
static int owner_of(struct fault_ctx *ctx, const char *url,
		    const char *prefix, int service, struct term *t,
		    struct err *e)
{
	const char *comp = NULL;
	struct err why = ERR_INIT;

	if (read_owner(url, prefix, t, e))
		return -1;
	if (service != SVC_CDC || !t->key[0])
		return 0;
	if (cluster_owner_component(ctx->cluster, "cdc", t->value, &comp,
				    &why))
		return err_set(e, why.class, "which capture owns '%s' "
			       "('%s'): %s", prefix, t->value, why.msg);
	if (comp)
		snprintf(t->value, sizeof(t->value), "%s", comp);
	return 0;
}

static int hurried(const struct fault_ctx *ctx)
{
	return cancelled(ctx->cancel, CANCEL_STOP);
}

/*
 * Let term `t` lead for `hold_ns`, then verify that it led throughout
 * (the same term, read every 100 ms) and that an insert succeeded
 * meanwhile. Appends ",\"held_ms\":N,\"inserts\":K" to the round.
 */
static int hold(struct fault_ctx *ctx, const char *url, const char *prefix,
		const struct term *t, int64_t hold_ns, struct buf *value,
		struct err *e)
{
	uint64_t before = history_ok_inserts(ctx->history);
	int64_t start = clock_mono_ns(), held;
	struct term now = *t;

	for (;;) {
		struct err ignored = ERR_INIT;

		held = clock_mono_ns() - start;
		if (!read_owner(url, prefix, &now, &ignored) &&
		    !same_term(&now, t))
			break;
		if (held >= hold_ns || hurried(ctx))
			break;
		cancel_sleep(ctx->cancel, CANCEL_STOP,
			     hold_ns - held < 100 * NS_PER_MS ? hold_ns - held
							     : 100 * NS_PER_MS);
	}
	buf_printf(value, NULL, ",\"held_ms\":%lld,\"inserts\":%llu",
		   (long long)(held / NS_PER_MS),
		   (unsigned long long)(history_ok_inserts(ctx->history) -
					before));
	if (!same_term(&now, t))
		return err_set(e, ERR_INFRA, "'%s' led '%s' for only %lldms of "
			       "its %llds hold (then '%s')", t->value, prefix,
			       (long long)(held / NS_PER_MS),
			       (long long)(hold_ns / NS_PER_SEC),
			       now.key[0] ? now.value : "no owner");
	if (held < hold_ns)
		return err_set(e, ERR_INFRA, "the run ended while '%s' held "
			       "'%s' (%lldms of %llds)", t->value, prefix,
			       (long long)(held / NS_PER_MS),
			       (long long)(hold_ns / NS_PER_SEC));
	if (history_ok_inserts(ctx->history) == before)
		return err_set(e, ERR_INFRA, "no insert succeeded while '%s' "
			       "led '%s' (%llds)", t->value, prefix,
			       (long long)(hold_ns / NS_PER_SEC));
	return 0;
}

/*
 * POST the service's resign API on every component that may own it, one
 * after the other, until one accepts. Each is given at most `timeout`;
 * when none accepts, the message has every server's answer.
 */
static int http_resign(struct cluster *c, int service, int64_t timeout,
		       struct err *e)
{
	const char *path = service == SVC_DDL ? "/ddl/owner/resign"
			   : service == SVC_CDC ? "/api/v2/owner/resign"
			   : service == SVC_PD ? "/pd/api/v1/leader/resign"
			   : NULL;
	unsigned role = service == SVC_DDL ? ROLE_UPSTREAM
			: service == SVC_CDC ? ROLE_CDC : ROLE_PD;
	struct buf answers = BUF_INIT;
	int asked = 0;

	if (!path)
		return err_set(e, ERR_USAGE, "resign: service '%s' has no "
			       "HTTP resign", services[service]);
	if (timeout > 10 * NS_PER_SEC)
		timeout = 10 * NS_PER_SEC;
	for (size_t i = 0; i < c->ncomps; i++) {
		const struct component *comp = &c->comps[i];
		struct err last = ERR_INIT;
		struct buf body = BUF_INIT;
		char url[512];
		long status;

		if (!(comp->roles & role) || !comp->http_url)
			continue;
		asked++;
		url_origin(comp->http_url, path, url, sizeof(url));
		if (!http_request("POST", url, NULL, &body, &status, timeout,
				  &last) && status == 200) {
			buf_release(&body);
			buf_release(&answers);
			return 0;
		}
		buf_rtrim(&body);
		buf_printf(&answers, NULL, "%s%s: ", answers.len ? "; " : "",
			   comp->name);
		if (err_isset(&last))
			buf_addstr(&answers, last.msg, NULL);
		else
			buf_printf(&answers, NULL, "POST '%s': HTTP %ld: %.200s",
				   url, status, buf_str(&body));
		buf_release(&body);
	}
	if (!asked)
		err_set(e, ERR_INFRA, "resign: no %s component with an HTTP "
			"URL", role_name(role));
	else
		err_set(e, ERR_INFRA, "resign via http: no server resigned: %s",
			buf_str(&answers));
	buf_release(&answers);
	return -1;
}

/* PD: resign over HTTP, then see the leader change. */
static int pd_resign(struct fault_ctx *ctx, int64_t timeout,
		     struct buf *value, struct err *e)
{
	int64_t start = clock_mono_ns();
	char from[256], to[256] = "";

	if (cluster_pd_leader(ctx->cluster, from, sizeof(from), e) ||
	    http_resign(ctx->cluster, SVC_PD, timeout, e))
		return -1;
	do {
		struct err ignored = ERR_INIT;

		if (!cluster_pd_leader(ctx->cluster, to, sizeof(to), &ignored) &&
		    strcmp(to, from))
			break;
		to[0] = '\0';
		clock_sleep_ns(50 * NS_PER_MS);
	} while (clock_mono_ns() - start < timeout);
	buf_addstr(value, "\"service\":\"pd\",\"from\":", NULL);
	json_quote(value, from, NULL);
	buf_addstr(value, ",\"to\":", NULL);
	json_quote(value, to, NULL);
	if (!to[0])
		return err_set(e, ERR_INFRA, "the PD leader '%s' did not change "
			       "within %llds", from,
			       (long long)(timeout / NS_PER_SEC));
	return 0;
}

/*
 * The leader of members `m` into `id`, waiting for one until `deadline`:
 * during an election, or while a member that rejoined deposes the leader,
 * etcd has none for a moment. The wait is added to *waited.
 */
static int await_leader(struct fault_ctx *ctx, const struct etcd_member *m,
			size_t n, int64_t deadline, char *id, size_t size,
			int64_t *waited, struct err *e)
{
	int64_t start = clock_mono_ns();

	for (;;) {
		struct err last = ERR_INIT;
		int rc = etcd_leader_among(m, n, id, size, &last);

		if (!rc || clock_mono_ns() >= deadline || hurried(ctx)) {
			*waited += clock_mono_ns() - start;
			if (rc < 0)
				return err_set(e, last.class, "%s", last.msg);
			return rc ? err_set(e, ERR_INFRA, "etcd has no leader "
					    "to move") : 0;
		}
		clock_sleep_ns(20 * NS_PER_MS);
	}
}

/*
 * Move the leader from *from to `to`, and see it there by `deadline`
 * (`timeout` after the round began). When *from is no longer the leader
 * (the leadership moved by itself since it was read), the leader is read
 * again into *from, and 1 says so: the caller draws another `to`.
 */
static int move_leader(struct fault_ctx *ctx, const struct etcd_member *m,
		       size_t n, const struct etcd_member **from,
		       const struct etcd_member *to, int64_t deadline,
		       int64_t timeout, int64_t *waited, struct err *e)
{
	char now[24] = "";
	int rc = etcd_move_leader((*from)->client_url, to->id, e);

	if (rc == ETCD_NOT_LEADER) {
		err_clear(e);
		if (await_leader(ctx, m, n, deadline, now, sizeof(now),
				 waited, e))
			return -1;
		*from = etcd_member_find(m, n, now);
		return 1;
	}
	if (rc)
		return -1;
	for (;;) {
		struct err last = ERR_INIT;

		if (!etcd_leader_among(m, n, now, sizeof(now), &last) &&
		    !strcmp(now, to->id))
			return 0;
		if (clock_mono_ns() >= deadline || hurried(ctx))
			return err_set(e, ERR_INFRA, "etcd's leader did not "
				       "move from %s to %s within %llds%s%s",
				       (*from)->name, to->name,
				       (long long)(timeout / NS_PER_SEC),
				       err_isset(&last) ? "; last: " : "",
				       last.msg);
		clock_sleep_ns(20 * NS_PER_MS);
	}
}

/*
 * etcd: move its Raft leader to another member, drawn with the plan's
 * choice (and back to the first with until_back). A leader is waited for
 * when etcd has none, and a leadership that moved by itself before the
 * move is moved from where it went, each within the fault's timeout a
 * round; `waited_ms` says how long etcd had no leader to move.
 */
static int etcd_resign(struct fault_ctx *ctx, const struct suite_item *it,
		       const struct plan_event *ev, const char *url,
		       struct buf *value, struct err *e)
{
	const struct resign_opts *o = it->opts;
	struct etcd_member m[MAX_MEMBERS];
	const struct etcd_member *first, *from, *to;
	int64_t deadline = clock_mono_ns() + o->timeout, waited = 0;
	char id[24];
	size_t n = 0;
	int rounds = 0, rc = 0;

	if (etcd_members(url, m, MAX_MEMBERS, &n, e))
		return -1;
	if (n < 2)
		return err_set(e, ERR_INFRA, "etcd has %zu member: its leader "
			       "has nowhere to move", n);
	if (await_leader(ctx, m, n, deadline, id, sizeof(id), &waited, e))
		return -1;
	first = from = etcd_member_find(m, n, id);
	buf_printf(value, NULL, "\"service\":\"etcd\",\"from\":\"%s\","
		   "\"rounds\":[", from->name);
	do {
		int64_t start = clock_mono_ns();
		size_t k = (size_t)(ev->choice % (n - 1));

		deadline = start + o->timeout;
		do {
			/* The k-th other member; back to the first after. */
			to = rounds && from != first ? first
			     : &m[k + (&m[k] >= from)];
			rc = move_leader(ctx, m, n, &from, to, deadline,
					 o->timeout, &waited, e);
		} while (rc == 1);
		if (rc)
			break;
		buf_printf(value, NULL, "%s{\"from\":\"%s\",\"to\":\"%s\","
			   "\"ms\":%lld}", rounds ? "," : "", from->name,
			   to->name,
			   (long long)((clock_mono_ns() - start) / NS_PER_MS));
		rounds++;
		from = to;
	} while (o->until_back && from != first && rounds < MAX_ROUNDS);
	buf_printf(value, NULL, "],\"to\":\"%s\",\"waited_ms\":%lld",
		   from->name, (long long)(waited / NS_PER_MS));
	return err_isset(e) ? -1 : 0;
}

static int inject(struct fault_ctx *ctx, const struct suite_item *it,
		  const struct plan_event *ev, struct fault_action *act,
		  struct buf *value, struct err *e)
{
	const struct resign_opts *o = it->opts;
	char prefix[512];
	int service = o->service;
	int via_http = uses_http(it);
	int revoke = o->lease == 1;
	int until_back = o->until_back;
	int64_t timeout = o->timeout;
	int64_t hold_ns = o->hold;
	struct term first, owner, now;
	const char *url;
	int rounds = 0, away = 0;

	(void)act;
	if (resign_election(ctx->cluster, it, prefix, sizeof(prefix), &url, e))
		return -1;
	if (service == SVC_PD)
		return pd_resign(ctx, timeout, value, e);
	if (service == SVC_ETCD)
		return etcd_resign(ctx, it, ev, url, value, e);
	if (owner_of(ctx, url, prefix, service, &owner, e))
		return -1;
	if (!owner.key[0])
		return err_set(e, ERR_INFRA, "no owner in election '%s'",
			       prefix);
	first = owner;
	buf_addstr(value, "\"election\":", NULL);
	json_quote(value, prefix, NULL);
	buf_addstr(value, ",\"from\":", NULL);
	json_quote(value, owner.value, NULL);
	buf_addstr(value, ",\"rounds\":[", NULL);
	do {
		int64_t start = clock_mono_ns(), deadline = start + timeout;
		int rc, moved;

		if (via_http)
			rc = http_resign(ctx->cluster, service, timeout, e);
		else if (revoke)
			rc = etcd_lease_revoke(url, owner.lease, e);
		else
			rc = etcd_delete(url, owner.key, NULL, e);
		if (rc)
			break;
		/* A new term: another key leads, or the same key again with
		 * a new create revision (TiDB campaigns again on the same
		 * session). */
		for (;;) {
			struct err last = ERR_INIT;

			if (!owner_of(ctx, url, prefix, service, &now,
				      &last) &&
			    now.key[0] && !same_term(&now, &owner))
				break;
			if (clock_mono_ns() >= deadline || hurried(ctx)) {
				err_set(e, ERR_INFRA, "the owner of '%s' did "
					"not change within %llds%s%s", prefix,
					(long long)(timeout / NS_PER_SEC),
					err_isset(&last) ? "; last: " : "",
					last.msg);
				break;
			}
			clock_sleep_ns(20 * NS_PER_MS);
		}
		if (err_isset(e))
			break;
		buf_addstr(value, rounds ? ",{\"from\":" : "{\"from\":",
			   NULL);
		json_quote(value, owner.value, NULL);
		buf_addstr(value, ",\"to\":", NULL);
		json_quote(value, now.value, NULL);
		buf_printf(value, NULL, ",\"ms\":%lld",
			   (long long)((clock_mono_ns() - start) / NS_PER_MS));
		rounds++;
		/* The same server leading again is a new term, not a move
		 * away: the deleted key was a dead process's, whose lease
		 * outlives it (a restarted TiDB campaigns behind its old
		 * key, seen on TiDB cd9c676e9ba4), or no other server
		 * campaigns. A -> B -> A resigns again at once. */
		moved = strcmp(now.value, owner.value) != 0;
		owner = now;
		if (moved && strcmp(owner.value, first.value))
			away = 1;
		rc = hold_ns > 0 && (moved || !until_back) ?
		     hold(ctx, url, prefix, &owner, hold_ns, value, e) : 0;
		buf_addch(value, '}', NULL);
		if (rc)
			break;
	} while (until_back && (!away || strcmp(owner.value, first.value)) &&
		 rounds < MAX_ROUNDS);
	buf_addstr(value, "],\"to\":", NULL);
	json_quote(value, owner.value, NULL);
	if (!err_isset(e) && until_back && !away)
		err_set(e, ERR_INFRA, "no server but '%s' led '%s' in %d "
			"resigns: no other took it", first.value, prefix,
			MAX_ROUNDS);
	else if (!err_isset(e) && until_back &&
		 strcmp(owner.value, first.value))
		err_set(e, ERR_INFRA, "'%s' did not lead '%s' again within %d "
			"resigns", first.value, prefix, MAX_ROUNDS);
	return err_isset(e) ? -1 : 0;
}

/*
 * The autoid leader election and the AUTO_ID_CACHE=1 allocation it serves
 * came with TiDB 6.4 (pingcap/tidb pkg/autoid_service/autoid.go): on an
 * older TiDB the election is never held and the resign could only time
 * out. Refused when a TiDB says it runs an older release.
 */
static int autoid_floor(struct cluster *c, const struct suite *s,
			const struct suite_item *it, struct err *e)
{
	const struct resign_opts *o = it->opts;

	for (size_t i = 0; i < c->ncomps; i++) {
		const struct component *comp = &c->comps[i];
		struct err why = ERR_INIT;
		struct release r;

		if (!(comp->roles & ROLE_UPSTREAM) || !comp->http_url)
			continue;
		if (server_release(comp, &r, &why) || r.major < 0) {
			log_warn("%s: cannot tell its TiDB release (%s): the "
				 "autoid service (TiDB >= 6.4) is assumed",
				 comp->name, err_isset(&why) ? why.msg
				 : r.text);
			continue;
		}
		if (release_older(&r, 6, 4, 0))
			return fault_error_at(e, s, it, &o->service,
					      "service autoid in fault 'resign' "
					      "needs TiDB >= 6.4 (the autoid "
					      "service, pkg/autoid_service/"
					      "autoid.go in pingcap/tidb): %s "
					      "runs %s", comp->name, r.text);
	}
	return 0;
}

/*
 * Through etcd, TiCDC's new architecture is not resigned: its
 * coordinator watches no owner key (server/module_election.go in
 * pingcap/ticdc, campaignCoordinator: it runs until it stops, and stops
 * when coordinator.go's owner-change handler, fed by the node manager's
 * GetOwnerID every 50 ms, sees another capture's id there), so with its
 * key deleted it goes on coordinating beside the next one until then,
 * and alone it goes on with no key at all, campaigning no more; a lease
 * revoked ends its etcd session, and the server exits (server/server.go
 * watchEtcdSession: ErrCaptureSuicide). Refused, naming the capture.
 */
static int newarch_refused(struct cluster *c, const struct suite *s,
			   const struct suite_item *it, const char *url,
			   struct err *e)
{
	const struct resign_opts *o = it->opts;
	struct err why = ERR_INIT;
	char at[300], older[300];

	if (cluster_capture_archs(c, url, o->cdc_cluster, at, older,
				  sizeof(at), &why)) {
		log_warn("resign cdc via etcd: cannot tell the captures' "
			 "architecture (%s): the old one is assumed", why.msg);
		return 0;
	}
	if (!*at)
		return 0;
	*strchrnul(at, ',') = '\0';	/* one of them */
	return fault_error_at(e, s, it, &o->via, "via: etcd in fault "
			      "'resign' cdc needs TiCDC's old architecture: "
			      "%s runs the new one, whose coordinator does not "
			      "step down when its owner key is deleted "
			      "(server/module_election.go in pingcap/ticdc); "
			      "use via: http", at);
}

/* The election's etcd and, via http or for PD, servers to ask. */
static int resolve(struct cluster *c, const struct suite *s,
		   const struct suite_item *it, struct err *e)
{
	const struct resign_opts *o = it->opts;
	int service = o->service;
	unsigned role = service == SVC_DDL ? ROLE_UPSTREAM
			: service == SVC_CDC ? ROLE_CDC : ROLE_PD;
	struct err why = ERR_INIT;
	char prefix[512];
	const char *url;

	if (resign_election(c, it, prefix, sizeof(prefix), &url, &why))
		return fault_error_at(e, s, it, NULL, "fault 'resign' needs "
				      "an etcd: no %s with an etcd URL in this "
				      "cluster", o->etcd ? "such component"
				      : "etcd or pd component");
	if (service == SVC_AUTOID && autoid_floor(c, s, it, e))
		return -1;
	if (service == SVC_CDC && !uses_http(it) &&
	    newarch_refused(c, s, it, url, e))
		return -1;
	if (service == SVC_ETCD) {
		struct etcd_member m[MAX_MEMBERS];
		size_t n = 0;

		if (etcd_members(url, m, MAX_MEMBERS, &n, &why))
			return fault_error_at(e, s, it, NULL, "fault "
					      "'resign' etcd: cannot list etcd's "
					      "members: %s", why.msg);
		if (n < 2)
			return fault_error_at(e, s, it, NULL, "fault "
					      "'resign' etcd needs an etcd of 2 "
					      "members at least to move its "
					      "leader; this one has %zu (the local "
					      "cluster has 3 on hosts of their "
					      "own)", n);
	}
	if (!uses_http(it))
		return 0;
	for (size_t i = 0; i < c->ncomps; i++)
		if ((c->comps[i].roles & role) && c->comps[i].http_url)
			return 0;
	return fault_error_at(e, s, it, NULL, "fault 'resign' %s: no %s "
			      "component with an http_url in this cluster to "
			      "ask", services[service], role_name(role));
}

static int election(struct cluster *c, const struct suite_item *it,
		    struct fault_election *out, struct err *e)
{
	const struct resign_opts *o = it->opts;

	memset(out, 0, sizeof(*out));
	if (resign_election(c, it, out->prefix, sizeof(out->prefix),
			    &out->url, e))
		return -1;
	if (!out->prefix[0] || !out->url)
		return 0;
	out->service = o->service >= 0 ? services[o->service] : NULL;
	return 1;
}

const struct fault_type fault_resign = {
	.kind = { "resign", "move an etcd-elected owner (autoid, DDL, TiCDC) "
		  "or the PD leader without a restart",
		  opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct resign_opts), .check = check,
		  .plan = fault_plan },
	.resolve = resolve,
	.target = target,
	.inject = inject,
	.election = election,
};
