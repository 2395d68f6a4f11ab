/*
 * The HTTP API clients of TiDB, TiCDC and PD (clusters/api.h): one
 * request mechanism, cluster_api(), and what each client reads of the
 * answers.
 */
#include "clusters/api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "clusters/cluster.h"
#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/etcd.h"
#include "lib/http.h"
#include "lib/log.h"

/* A GET is quick; TiCDC answers a DELETE once the owner removed it. */
#define GET_TIMEOUT_NS (5 * NS_PER_SEC)
#define CHANGE_TIMEOUT_NS (60 * NS_PER_SEC)

void api_reply_release(struct api_reply *r)
{
	json_decref(r->doc);
	*r = (struct api_reply)API_REPLY_INIT;
}

int cluster_has_api(const struct cluster *c, unsigned role)
{
	for (size_t i = 0; i < c->ncomps; i++)
		if ((c->comps[i].roles & role) && c->comps[i].http_url)
			return 1;
	return 0;
}

/*
 * The length of the first line of `s`, at most `max`: a Go server's panic
 * caught by its HTTP middleware answers 500 with the panic and its whole
 * stack (a real pd-server's operator API on a cluster with no store).
 */
static size_t first_line(const char *s, size_t max)
{
	size_t n = strcspn(s, "\r\n");

	return n < max ? n : max;
}

/*
 * The failure of a non-2xx answer: TiCDC's {"error_msg", "error_code"}
 * (the code kept in r->code), PD's JSON string, else the body's first
 * line.
 * Returns whether the body was JSON.
 */
static int answer_error(struct api_reply *r, long status, const char *body,
			struct err *e)
{
	json_t *doc = json_loads(body, JSON_DECODE_ANY, NULL);
	json_t *msg = json_object_get(doc, "error_msg");
	json_t *code = json_object_get(doc, "error_code");
	int json = doc != NULL;

	if (json_is_string(code))
		snprintf(r->code, sizeof(r->code), "%s",
			 json_string_value(code));
	if (json_is_string(msg))
		err_set(e, ERR_INFRA, "%s: HTTP %ld: %s", r->where, status,
			json_string_value(msg));
	else if (json_is_string(doc))
		err_set(e, ERR_INFRA, "%s: HTTP %ld: %s", r->where, status,
			json_string_value(doc));
	else
		err_set(e, ERR_INFRA, "%s: HTTP %ld: %.*s", r->where, status,
			(int)first_line(body, 200), body);
	json_decref(doc);
	return json;
}

/*
 * One request to one component, with `auth` (may be NULL): 0, or -1 with
 * `e` and in *next whether another component may be asked.
 */
static int ask(const struct component *comp, const char *method,
	       const char *path, const struct http_opts *auth,
	       const char *body, unsigned flags, struct api_reply *r,
	       int *next, struct err *e)
{
	int get = !strcmp(method, "GET");
	struct buf answer = BUF_INIT;
	json_error_t why;
	char url[1024];
	long status;
	int rc = -1;

	url_origin(comp->http_url, path, url, sizeof(url));
	snprintf(r->where, sizeof(r->where), "%s '%s'", method, url);
	r->code[0] = '\0';
	*next = 1;
	r->status = 0;
	if (http_request_opts(method, url, auth, body, &answer, &status,
			      get ? GET_TIMEOUT_NS : CHANGE_TIMEOUT_NS, e))
		goto out;
	r->status = status;
	buf_rtrim(&answer);
	if (status < 200 || status > 299) {
		int json = answer_error(r, status, buf_str(&answer), e);

		*next = get && (status >= 500 || !json);
	} else if ((flags & API_JSON) &&
		   !(r->doc = json_loads(buf_str(&answer),
					 (flags & API_BIG_INTS ?
					  JSON_DECODE_INT_AS_REAL : 0) |
					 (flags & API_ANY ?
					  JSON_DECODE_ANY : 0), &why))) {
		err_set(e, ERR_INFRA, "%s: not JSON (%s)", r->where, why.text);
		*next = get;
	} else {
		rc = 0;
	}
out:
	buf_release(&answer);
	return rc;
}

/*
 * What TiCDC refused of the topology's ticdc: — its authentication (401:
 * AuthenticateMiddleware), its keyspace check (400 CDC:ErrAPIInvalidParam
 * about the keyspace: KeyspaceCheckerMiddleware, pingcap/ticdc
 * api/middleware) — is the topology's to mend: ERR_USAGE, with what was
 * sent. Any other failure keeps its class.
 */
static int ticdc_error(const struct cluster *c, const struct api_reply *r,
		       const struct err *last, struct err *e)
{
	const struct ticdc_access *a = &c->ticdc;

	/* TiCDC checks a password by logging in to a TiDB it finds in
	 * etcd (pkg/upstream/upstream.go VerifyTiDBUser): a 401 that is
	 * not the TiDB's access denied nor TiCDC's own refusal of the user
	 * (verify) says nothing of the credentials: the TiDB could not be
	 * reached ("tidb instance not found in topology"). */
	if (r->status == 401 && a->user && !strstr(last->msg, "Access denied") &&
	    !strstr(last->msg, "is not allowed") &&
	    !strstr(last->msg, "credential not found"))
		return err_set(e, ERR_INFRA, "%s (TiCDC could not check the "
			       "credentials it was sent: not theirs to mend)",
			       last->msg);
	if (r->status == 401 && a->user)
		return err_set(e, ERR_USAGE, "%s (tichaos sent the topology's "
			       "ticdc: user '%s' with %s%s)", last->msg,
			       a->user, a->password_env ? "the password in $"
			       : "an empty password", a->password_env ?
			       a->password_env : "");
	if (r->status == 401)
		return err_set(e, ERR_USAGE, "%s (the topology's ticdc: names "
			       "no user to send)", last->msg);
	if (r->status == 400 && !strcmp(r->code, "CDC:ErrAPIInvalidParam") &&
	    strstr(last->msg, "keyspace"))
		return err_set(e, ERR_USAGE, "%s (%s)", last->msg,
			       a->keyspace ? "tichaos sent the topology's "
			       "ticdc: keyspace" : "the topology's ticdc: "
			       "names no keyspace");
	return err_set(e, last->class, "%s", last->msg);
}

int cluster_api(struct cluster *c, unsigned role, const char *method,
		const char *path, const char *body, unsigned flags,
		struct api_reply *r, struct err *e)
{
	const struct ticdc_access *a = &c->ticdc;
	const struct http_opts cdc_auth = { a->user, a->password, NULL };
	const struct http_opts *auth =
		role == ROLE_CDC && a->user ? &cdc_auth : NULL;
	struct err last = ERR_INIT;
	int next = 1, rc;

	api_reply_release(r);
	for (size_t i = 0; next && i < c->ncomps; i++) {
		struct component *comp = &c->comps[i];

		if (!(comp->roles & role) || !comp->http_url)
			continue;
		err_clear(&last);
		rc = ask(comp, method, path, auth, body, flags, r, &next,
			 &last);
		if (r->status)
			r->comp = comp;
		if (!rc)
			return 0;
	}
	if (err_isset(&last) && role == ROLE_CDC)
		return ticdc_error(c, r, &last, e);
	if (err_isset(&last))
		return err_set(e, last.class, "%s", last.msg);
	return err_set(e, ERR_INFRA, "no %s component with an HTTP URL",
		       role_name(role));
}

/* TiCDC */

/*
 * The path of a changefeed request: /api/v2/changefeeds[/ID[/OP]], with
 * ?keyspace= when the topology names one (every changefeed route goes
 * through TiCDC's keyspace check: api/v2/api.go in pingcap/ticdc).
 */
static void feed_path(const struct cluster *c, const char *id,
		      const char *op, char *out, size_t size)
{
	const char *ks = c->ticdc.keyspace;

	snprintf(out, size, "/api/v2/changefeeds%s%s%s%s%s%s", id ? "/" : "",
		 id ? id : "", op ? "/" : "", op ? op : "",
		 ks ? "?keyspace=" : "", ks ? ks : "");
}

/* Copy a checked string member (or "" for an absent one). */
static void copy_string(char *out, size_t size, json_t *v)
{
	snprintf(out, size, "%s", v ? json_string_value(v) : "");
}

int cluster_changefeed(struct cluster *c, const char *id,
		       struct changefeed *cf, struct err *e)
{
	struct api_reply r = API_REPLY_INIT;
	json_t *state, *checkpoint, *sink, *error, *message = NULL;
	char path[512];
	int rc;

	feed_path(c, id, NULL, path, sizeof(path));
	if (cluster_api(c, ROLE_CDC, "GET", path, NULL, API_JSON, &r, e)) {
		rc = !strcmp(r.code, "CDC:ErrChangeFeedNotExists") ? 1 : -1;
		goto out;
	}
	rc = http_field(r.doc, "state", WANT_STRING, r.where, &state, e) ||
	     http_field(r.doc, "checkpoint_ts", WANT_INTEGER, r.where,
			&checkpoint, e) ||
	     http_field(r.doc, "sink_uri", WANT_STRING | WANT_OPTIONAL,
			r.where, &sink, e) ||
	     http_field(r.doc, "error", WANT_OBJECT | WANT_OPTIONAL, r.where,
			&error, e) ||
	     (error && http_field(r.doc, "error.message", WANT_STRING,
				  r.where, &message, e)) ? -1 : 0;
	if (!rc) {
		copy_string(cf->state, sizeof(cf->state), state);
		cf->checkpoint_ts = (uint64_t)json_integer_value(checkpoint);
		copy_string(cf->sink_uri, sizeof(cf->sink_uri), sink);
		copy_string(cf->error, sizeof(cf->error), message);
	}
out:
	api_reply_release(&r);
	return rc;
}

void cluster_changefeed_last(struct cluster *c, const char *id, char *out,
			     size_t size)
{
	static const char *const kinds[] = { "last_error", "last_warning" };
	struct api_reply r = API_REPLY_INIT;
	struct err ignored = ERR_INIT;
	char path[512];

	*out = '\0';
	feed_path(c, id, "status", path, sizeof(path));
	if (cluster_api(c, ROLE_CDC, "GET", path, NULL, API_JSON, &r,
			&ignored))
		goto out;
	for (size_t i = 0; i < 2 && !*out; i++) {
		json_t *m = json_object_get(json_object_get(r.doc, kinds[i]),
					    "message");

		if (json_is_string(m) && *json_string_value(m))
			snprintf(out, size, "%s: %s", kinds[i],
				 json_string_value(m));
	}
out:
	api_reply_release(&r);
}

/* Add `name` to the comma-separated list `out` (of `size`) once. */
static void list_once(char *out, size_t size, const char *name)
{
	size_t len = strlen(name), n = strlen(out);

	for (const char *p = out; (p = strstr(p, name)); p += len)
		if ((p == out || p[-1] == ',') && (p[len] == ',' || !p[len]))
			return;
	snprintf(out + n, size - n, "%s%s", n ? "," : "", name);
}

int cluster_capture_archs(struct cluster *c, const char *url,
			  const char *cdc_cluster, char *newer, char *older,
			  size_t size, struct err *e)
{
	struct etcd_kvs kvs = ETCD_KVS_INIT;
	char prefix[512];

	*newer = *older = '\0';
	/* CaptureInfoKeyPrefix, pkg/etcd/etcd.go in pingcap/ticdc. */
	snprintf(prefix, sizeof(prefix), "/tidb/cdc/%s/__cdc_meta__/capture",
		 cdc_cluster);
	if (etcd_election(url, prefix, &kvs, e))
		return -1;
	for (size_t i = 0; i < kvs.n; i++) {
		json_t *info = json_loads(kvs.kvs[i].value, 0, NULL);
		json_t *addr = json_object_get(info, "address");
		const char *comp = json_is_string(addr) ?
			cluster_component_at(c, json_string_value(addr)) : NULL;

		list_once(json_is_true(json_object_get(info, "is-new-arch")) ?
			  newer : older, size, comp ? comp : json_is_string(addr)
			  ? json_string_value(addr) : kvs.kvs[i].key);
		json_decref(info);
	}
	etcd_kvs_release(&kvs);
	return 0;
}

/* A refusal of the access check: its class USAGE, or a 401 TiCDC could
 * not decide (ticdc_error's ERR_INFRA). */
static int refusal(const struct api_reply *r, const struct err *why)
{
	return err_isset(why) && (why->class == ERR_USAGE || r->status == 401);
}

int cluster_ticdc_access(struct cluster *c, const char *id, struct err *e)
{
	struct api_reply r = API_REPLY_INIT;
	struct err why = ERR_INIT;
	const char *ks = c->ticdc.keyspace;
	char path[512];
	int refused;

	/* The changefeed's status (authenticated by pingcap/ticdc, not by
	 * tiflow: cdc/api/v2/api.go), then the one read both authenticate,
	 * /unsafe/metadata, so that credentials tiflow would refuse at the
	 * first change are refused before the run. */
	feed_path(c, id, "status", path, sizeof(path));
	cluster_api(c, ROLE_CDC, "GET", path, NULL, 0, &r, &why);
	refused = refusal(&r, &why);
	if (!refused) {
		err_clear(&why);
		snprintf(path, sizeof(path), "/api/v2/unsafe/metadata%s%s",
			 ks ? "?keyspace=" : "", ks ? ks : "");
		cluster_api(c, ROLE_CDC, "GET", path, NULL, 0, &r, &why);
		refused = refusal(&r, &why);
	}
	if (refused)
		err_set(e, why.class, "%s", why.msg);
	else if (err_isset(&why))
		log_debug("changefeed %s: TiCDC's access not told: %s", id,
			  why.msg);
	api_reply_release(&r);
	return refused ? -1 : 0;
}

/* One changefeed operation: `method` on `path`, its answer not read. */
static int change(struct cluster *c, const char *method, const char *path,
		  const char *body, struct component **via, struct err *e)
{
	struct api_reply r = API_REPLY_INIT;
	int rc = cluster_api(c, ROLE_CDC, method, path, body, 0, &r, e);

	if (via)
		*via = rc ? NULL : r.comp;
	api_reply_release(&r);
	return rc;
}

static int change_id(struct cluster *c, const char *method, const char *id,
		     const char *op, const char *body,
		     struct component **via, struct err *e)
{
	char path[512];

	feed_path(c, id, op, path, sizeof(path));
	return change(c, method, path, body, via, e);
}

int cluster_changefeed_pause(struct cluster *c, const char *id,
			     struct component **via, struct err *e)
{
	return change_id(c, "POST", id, "pause", NULL, via, e);
}

int cluster_changefeed_resume(struct cluster *c, const char *id,
			      struct component **via, struct err *e)
{
	/* TiCDC binds the body as JSON: an empty one is refused. */
	return change_id(c, "POST", id, "resume", "{}", via, e);
}

int cluster_changefeed_remove(struct cluster *c, const char *id,
			      struct component **via, struct err *e)
{
	return change_id(c, "DELETE", id, NULL, NULL, via, e);
}

int cluster_changefeed_create(struct cluster *c, const char *id,
			      const char *sink_uri, uint64_t start_ts,
			      struct component **via, struct err *e)
{
	json_t *doc = json_pack("{s:s, s:s}", "changefeed_id", id, "sink_uri",
				sink_uri);
	char path[512];
	char *body;
	int rc;

	if (doc && start_ts)
		json_object_set_new(doc, "start_ts",
				    json_integer((json_int_t)start_ts));
	body = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
	json_decref(doc);
	if (!body)
		return err_set(e, ERR_INFRA, "out of memory");
	feed_path(c, NULL, NULL, path, sizeof(path));
	rc = change(c, "POST", path, body, via, e);
	memset(body, 0, strlen(body));	/* the sink's password */
	free(body);
	return rc;
}

int cluster_ensure_changefeed(struct cluster *c, struct err *e)
{
	struct err missing = ERR_INIT, refused = ERR_INIT;
	struct component *via;
	struct changefeed cf;

	if (!c->changefeed || !c->sink_uri || !cluster_ticdc(c))
		return 0;
	if (!cluster_changefeed(c, c->changefeed, &cf, &missing)) {
		log_info("changefeed %s exists", c->changefeed);
		return 0;
	}
	/* A keyspace TiCDC refuses: no create would be taken either. */
	if (missing.class == ERR_USAGE)
		return err_set(e, ERR_USAGE, "changefeed %s: %s", c->changefeed,
			       missing.msg);
	if (cluster_changefeed_create(c, c->changefeed, c->sink_uri, 0, &via,
				      &refused))
		return err_set(e, refused.class == ERR_USAGE ? ERR_USAGE
			       : ERR_INFRA, "changefeed %s: not found (%s), "
			       "and creating it failed: %s", c->changefeed,
			       missing.msg, refused.msg);
	log_info("created changefeed %s (%s)", c->changefeed, via->name);
	return 0;
}

/* Releases */

int server_release(const struct component *comp, struct release *out,
		   struct err *e)
{
	int cdc = (comp->roles & ROLE_CDC) != 0;
	struct api_reply r = API_REPLY_INIT;
	const char *v, *at;
	json_t *version;
	int next, rc;

	*out = (struct release){ -1, -1, -1, 0, "" };
	rc = ask(comp, "GET", cdc ? "/api/v2/status" : "/status", NULL, NULL,
		 API_JSON, &r, &next, e) ||
	     http_field(r.doc, "version", WANT_STRING, r.where, &version, e);
	if (rc) {
		rc = r.status == 404 ? 1 : -1;
		goto out;
	}
	v = json_string_value(version);
	/* TiDB: "<MySQL's>-TiDB-v<TiDB's>", its own release last. */
	at = cdc ? v : strstr(v, "-TiDB-");
	at = at ? at + (cdc ? 0 : 6) : NULL;
	if (at && *at == 'v')
		release_parse(at, out);
	snprintf(out->text, sizeof(out->text), "%s", v);
out:
	api_reply_release(&r);
	return rc;
}

/* PD */

int cluster_pd_leader(struct cluster *c, char *name, size_t size,
		      struct err *e)
{
	struct api_reply r = API_REPLY_INIT;
	json_t *n;
	int rc;

	rc = cluster_api(c, ROLE_PD, "GET", "/pd/api/v1/leader", NULL,
			 API_JSON | API_BIG_INTS, &r, e) ||
	     http_field(r.doc, "name", WANT_STRING, r.where, &n, e);
	if (!rc)
		snprintf(name, size, "%s", json_string_value(n));
	api_reply_release(&r);
	return rc ? -1 : 0;
}

static int pd_member(json_t *m, const char *where, struct pd_member *out,
		     struct err *e)
{
	json_t *name, *urls, *first;

	if (http_field(m, "name", WANT_STRING, where, &name, e) ||
	    http_field(m, "client_urls", WANT_ARRAY, where, &urls, e))
		return -1;
	first = json_array_get(urls, 0);
	if (first && !json_is_string(first))
		return err_set(e, ERR_INFRA, "%s: 'client_urls' of '%s' is not "
			       "a list of strings", where,
			       json_string_value(name));
	copy_string(out->name, sizeof(out->name), name);
	copy_string(out->client_url, sizeof(out->client_url), first);
	out->health = -1;
	return 0;
}

int cluster_pd_members(struct cluster *c, struct pd_member **members,
		       size_t *n, struct err *e)
{
	struct api_reply r = API_REPLY_INIT;
	json_t *list;
	int rc = -1;

	*members = NULL;
	*n = 0;
	if (cluster_api(c, ROLE_PD, "GET", "/pd/api/v1/members", NULL,
			API_JSON | API_BIG_INTS, &r, e) ||
	    http_field(r.doc, "members", WANT_ARRAY, r.where, &list, e))
		goto out;
	*members = xcalloc(json_array_size(list) + 1, sizeof(**members));
	for (size_t i = 0; i < json_array_size(list); i++)
		if (pd_member(json_array_get(list, i), r.where,
			      &(*members)[(*n)++], e))
			goto out;
	rc = 0;
out:
	if (rc) {
		free(*members);
		*members = NULL;
		*n = 0;
	}
	api_reply_release(&r);
	return rc;
}

int cluster_pd_health(struct cluster *c, struct pd_member *members, size_t n,
		      struct err *e)
{
	struct api_reply r = API_REPLY_INIT;
	int rc = -1;

	if (cluster_api(c, ROLE_PD, "GET", "/pd/api/v1/health", NULL,
			API_JSON | API_BIG_INTS, &r, e))
		goto out;
	if (!json_is_array(r.doc)) {
		err_set(e, ERR_INFRA, "%s: the answer is not a list", r.where);
		goto out;
	}
	for (size_t i = 0; i < json_array_size(r.doc); i++) {
		json_t *h = json_array_get(r.doc, i), *name, *healthy;

		if (http_field(h, "name", WANT_STRING, r.where, &name, e) ||
		    http_field(h, "health", WANT_BOOL, r.where, &healthy, e))
			goto out;
		for (size_t j = 0; j < n; j++)
			if (!strcmp(members[j].name, json_string_value(name)))
				members[j].health = json_is_true(healthy);
	}
	rc = 0;
out:
	api_reply_release(&r);
	return rc;
}

/* TiDB */

int cluster_ddl_owner(struct cluster *c, char *id, size_t id_size,
		      char *addr, size_t addr_size, struct err *e)
{
	struct api_reply r = API_REPLY_INIT;
	json_t *owner, *servers, *ip, *port;
	char path[300];
	int rc;

	id[0] = addr[0] = '\0';
	rc = cluster_api(c, ROLE_UPSTREAM, "GET", "/info/all", NULL, API_JSON,
			 &r, e) ||
	     http_field(r.doc, "owner_id", WANT_STRING, r.where, &owner, e) ||
	     http_field(r.doc, "all_servers_info", WANT_OBJECT | WANT_OPTIONAL,
			r.where, &servers, e);
	if (rc)
		goto out;
	copy_string(id, id_size, owner);
	/* all_servers_info is keyed by ddl_id; a dot would split the path. */
	if (!servers || !json_object_get(servers, id) || strchr(id, '.'))
		goto out;
	snprintf(path, sizeof(path), "all_servers_info.%s.ip", id);
	rc = http_field(r.doc, path, WANT_STRING, r.where, &ip, e);
	snprintf(path, sizeof(path), "all_servers_info.%s.listening_port", id);
	rc = rc || http_field(r.doc, path, WANT_INTEGER, r.where, &port, e);
	if (!rc)
		snprintf(addr, addr_size, "%s:%lld", json_string_value(ip),
			 (long long)json_integer_value(port));
out:
	api_reply_release(&r);
	return rc ? -1 : 0;
}

/* The captures of a GET /api/v2/captures answer. */
static int parse_captures(struct api_reply *r, struct capture *caps,
			  size_t *n, struct err *e)
{
	json_t *items = r->doc;
	int rc = 0;

	*n = 0;
	if (!json_is_array(items))
		rc = http_field(r->doc, "items", WANT_ARRAY, r->where, &items,
				e);
	for (size_t i = 0; !rc && i < json_array_size(items) &&
			   *n < MAX_CAPTURES; i++) {
		json_t *cap = json_array_get(items, i), *id, *addr, *owner;

		rc = http_field(cap, "id", WANT_STRING, r->where, &id, e) ||
		     http_field(cap, "is_owner", WANT_BOOL, r->where, &owner,
				e) ||
		     http_field(cap, "address", WANT_STRING, r->where, &addr,
				e);
		if (rc)
			break;
		copy_string(caps[*n].id, sizeof(caps[*n].id), id);
		copy_string(caps[*n].address, sizeof(caps[*n].address), addr);
		caps[*n].is_owner = json_is_true(owner);
		(*n)++;
	}
	return rc ? -1 : 0;
}

int cluster_captures(struct cluster *c, struct capture *caps, size_t *n,
		     struct err *e)
{
	struct api_reply r = API_REPLY_INIT;
	int rc;

	*n = 0;
	rc = cluster_api(c, ROLE_CDC, "GET", "/api/v2/captures", NULL,
			 API_JSON, &r, e) ||
	     parse_captures(&r, caps, n, e);
	api_reply_release(&r);
	return rc ? -1 : 0;
}

int capture_listed(const struct cluster *c, const struct component *comp,
		   struct err *e)
{
	struct api_reply r = API_REPLY_INIT;
	struct capture caps[MAX_CAPTURES];
	struct buf seen = BUF_INIT;
	struct err why = ERR_INIT;
	size_t n = 0;
	int next, rc;

	rc = ask(comp, "GET", "/api/v2/captures", NULL, NULL, API_JSON, &r,
		 &next, &why) ||
	     parse_captures(&r, caps, &n, &why);
	if (rc && r.status == 404)
		err_set(e, ERR_USAGE, "%s: %s: " NO_OPEN_API_V2, comp->name,
			why.msg);
	else if (rc)
		err_set(e, why.class, "%s: %s", comp->name, why.msg);
	for (size_t i = 0; !rc && i < n; i++) {
		const char *at = cluster_component_at(c, caps[i].address);

		if (at && !strcmp(at, comp->name))
			goto out;
		buf_printf(&seen, NULL, "%s%s", seen.len ? ", " : "",
			   caps[i].address);
	}
	if (!rc)
		rc = err_set(e, ERR_INFRA, "%s: %s lists no capture at its "
			     "address (it lists %s)", comp->name, r.where,
			     n ? buf_str(&seen) : "none");
out:
	buf_release(&seen);
	api_reply_release(&r);
	return rc ? -1 : 0;
}

int cluster_owner_component(struct cluster *c, const char *service,
			    const char *v, const char **comp, struct err *e)
{
	struct capture caps[MAX_CAPTURES];
	char id[256], addr[300];
	size_t n;

	*comp = cluster_named_by(c, v);
	if (*comp || !*v)
		return 0;
	if (service && !strcmp(service, "ddl") &&
	    cluster_has_api(c, ROLE_UPSTREAM)) {
		if (cluster_ddl_owner(c, id, sizeof(id), addr, sizeof(addr),
				      e))
			return -1;
		if (strcmp(id, v) || !addr[0])
			err_set(e, ERR_INFRA, "GET /info/all names another "
				"owner ('%s')", id);
		else if (!(*comp = cluster_component_at(c, addr)))
			err_set(e, ERR_INFRA, "no component at its address "
				"%s", addr);
		return 0;
	}
	if (service && !strcmp(service, "cdc") &&
	    cluster_has_api(c, ROLE_CDC)) {
		if (cluster_captures(c, caps, &n, e))
			return -1;
		for (size_t i = 0; i < n; i++) {
			if (strcmp(caps[i].id, v))
				continue;
			if (!(*comp = cluster_component_at(c,
							   caps[i].address)))
				err_set(e, ERR_INFRA, "no component at its "
					"address %s", caps[i].address);
			return 0;
		}
		err_set(e, ERR_INFRA, "GET /api/v2/captures lists no capture "
			"'%s'", v);
		return 0;
	}
	err_set(e, ERR_INFRA, "no component is named by it");
	return 0;
}
