#ifndef TICHAOS_API_H
#define TICHAOS_API_H

/*
 * Clients of the servers' HTTP APIs, asked through the cluster's
 * components (docs/topology.md): TiDB's status port (the http_url of upstream
 * components), TiCDC's Open API v2 (cdc), PD's API (pd).
 *
 * Every field read from an answer is checked for presence and type
 * (http_field); every failure is one line naming the request that got it:
 * "GET 'http://127.0.0.1:8300/api/v2/changefeeds/cf': HTTP 500: <the
 * server's error message>", "...: not JSON (<jansson's reason>)", "...: no
 * 'state' in the answer". The shapes, and where each comes from:
 * tests/data/http/README.md; what was verified against what:
 * docs/topology.md.
 */

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"
#include "lib/parse.h"

struct cluster;
struct component;

/* cluster_api() flags. */
#define API_JSON	1	/* the answer must be JSON: kept in doc */
#define API_BIG_INTS	2	/* numbers decoded as reals: PD's uint64
				 * member ids pass jansson's json_int_t
				 * (no integer is read from such a document) */
#define API_ANY		4	/* with API_JSON: any JSON value, not only
				 * an object or array (PD answers some
				 * requests with a bare JSON string) */

/* What answered one cluster_api() call. */
struct api_reply {
	/* API_JSON: the 2xx answer (owned: api_reply_release). */
	json_t *doc;
	/* The component that answered last; NULL when none did. */
	struct component *comp;
	/* The HTTP status of the last answer; 0 when none came. */
	long status;
	/* "METHOD 'URL'" of the last request, to lead messages. */
	char where[1100];
	/* The "error_code" of a TiCDC error answer ("CDC:Err..."), else "". */
	char code[128];
};

#define API_REPLY_INIT { NULL, NULL, 0, "", "" }

/*
 * `method` `path` at the origin of the http_url of each component with
 * `role`, in order, with `body` (NULL: none) sent as JSON; to ROLE_CDC
 * with the topology's ticdc: user and password (c->ticdc), if any, as
 * HTTP basic authentication. A 2xx answer is
 * success (with API_JSON it must parse: *r->doc). A GET goes on to the
 * next component when one does not answer, answers 5xx, or answers
 * something that is not JSON; any other method only when one does not
 * answer (a server that answered has acted, or refused). Failures keep
 * the last one: "METHOD 'URL': HTTP 400: <error_msg of a TiCDC error, the
 * string of a PD error, else the body's start>", "cannot GET 'URL': ...",
 * "no cdc component with an HTTP URL". What TiCDC refuses of c->ticdc (a
 * 401 of its authentication, a 400 CDC:ErrAPIInvalidParam of its keyspace
 * check) is ERR_USAGE, with what tichaos sent appended: "... (tichaos
 * sent the topology's ticdc: user 'cdc' with the password in $TICDC_PW)". `r` (API_REPLY_INIT, or one used
 * before) is filled either way and released by the caller.
 */
int cluster_api(struct cluster *c, unsigned role, const char *method,
		const char *path, const char *body, unsigned flags,
		struct api_reply *r, struct err *e);

/* Free r->doc; `r` is API_REPLY_INIT again. */
void api_reply_release(struct api_reply *r);

/* 1 when a component with `role` has an HTTP URL to ask. */
int cluster_has_api(const struct cluster *c, unsigned role);

/*
 * TiCDC's Open API v2 (pingcap/tiflow cdc/api/v2; the new TiCDC's,
 * pingcap/ticdc api/v2, keeps its paths). Every changefeed request
 * carries ?keyspace= when c->ticdc names one.
 */

/* One capture as GET /api/v2/captures lists it. */
struct capture {
	char id[128];
	char address[256];	/* "host:port" */
	int is_owner;
};

/* Most captures read from one answer. */
#define MAX_CAPTURES 64

/*
 * GET /api/v2/captures on the cluster's captures ({"items": [{"id",
 * "is_owner", "address"}], ...}; older TiCDC answered the bare list):
 * at most MAX_CAPTURES into `caps`, their count in *n. Every field is
 * required.
 */
int cluster_captures(struct cluster *c, struct capture *caps, size_t *n,
		     struct err *e);

/*
 * Whether TiCDC lists the capture `comp` runs: GET /api/v2/captures on
 * `comp` itself (which TiCDC forwards to its owner) lists a capture whose
 * address is comp's (cluster_component_at). A restarted capture is ready
 * only then: its HTTP server answers (and /api/v2/health, which the owner
 * answers for the whole cluster) before it has registered. -1 with what
 * it answered or listed otherwise; ERR_USAGE when it has no such API
 * (HTTP 404: a TiCDC older than 6.6), which no waiting mends.
 */
int capture_listed(const struct cluster *c, const struct component *comp,
		   struct err *e);

/*
 * Which architecture TiCDC's captures run, from their capture info in
 * etcd at `url` (/tidb/cdc/<cdc_cluster>/__cdc_meta__/capture/<id>):
 * one cdc binary runs either, tiflow's unless started with --newarch,
 * TICDC_NEWARCH=true or its config's newarch (cmd/cdc/server/server.go in
 * pingcap/ticdc, isNewArchEnabled), and only the new one writes
 * "is-new-arch": true there (server/server_prepare.go registerNodeToEtcd,
 * pkg/config/capture.go). Both status APIs answer alike, so this is where
 * they are told apart. Into `newer` and `older` the components (else the
 * addresses) that run each, comma-separated, "" when none; 0, or -1 with
 * `e` when etcd cannot be read.
 */
int cluster_capture_archs(struct cluster *c, const char *url,
			  const char *cdc_cluster, char *newer, char *older,
			  size_t size, struct err *e);

struct changefeed {
	char state[32];		/* "normal", "stopped", "failed", ... */
	uint64_t checkpoint_ts;	/* a TSO */
	/* As TiCDC shows it (a password masked), "" when not shown. */
	char sink_uri[1024];
	/* error.message of a changefeed with an error, else "". */
	char error[512];
};

/*
 * GET /api/v2/changefeeds/{id}: its state, checkpoint_ts, sink_uri and
 * error. 0; 1 when TiCDC says it does not exist (CDC:ErrChangeFeedNotExists,
 * `e` set too); -1 otherwise. *cf is written only on success.
 */
int cluster_changefeed(struct cluster *c, const char *id,
		       struct changefeed *cf, struct err *e);

/*
 * Why a changefeed does not advance, as TiCDC last said it:
 * GET /api/v2/changefeeds/{id}/status, "last_error: MESSAGE" or else
 * "last_warning: MESSAGE" (a changefeed in state "warning" retries, e.g.
 * a DDL the downstream refuses, with its checkpoint held: the changefeed's
 * own GET shows no error then; cdc/api/v2/changefeed.go status in
 * pingcap/tiflow v8.1.0, seen on cdc v8.1.0). "" when it says neither or
 * cannot be asked (`out` is best effort, for a failure's message).
 */
void cluster_changefeed_last(struct cluster *c, const char *id, char *out,
			     size_t size);

/*
 * The changefeed operations, each one request that TiCDC forwards to its
 * owner; they return once TiCDC accepted it (HTTP 2xx), which does not
 * mean it is done: callers verify with cluster_changefeed(). `via` (may be
 * NULL) receives the capture that answered.
 *
 * pause:  POST /api/v2/changefeeds/{id}/pause
 * resume: POST /api/v2/changefeeds/{id}/resume with {} (no new checkpoint)
 * remove: DELETE /api/v2/changefeeds/{id}
 * create: POST /api/v2/changefeeds {changefeed_id, sink_uri[, start_ts]}
 *         (start_ts 0: TiCDC's default, now). The sink URI is never
 *         printed.
 */
int cluster_changefeed_pause(struct cluster *c, const char *id,
			     struct component **via, struct err *e);
int cluster_changefeed_resume(struct cluster *c, const char *id,
			      struct component **via, struct err *e);
int cluster_changefeed_remove(struct cluster *c, const char *id,
			      struct component **via, struct err *e);
int cluster_changefeed_create(struct cluster *c, const char *id,
			      const char *sink_uri, uint64_t start_ts,
			      struct component **via, struct err *e);

/*
 * Whether TiCDC takes the topology's ticdc: user, password and keyspace
 * for the changes of changefeed `id`, asked without changing anything:
 * GET /api/v2/changefeeds/{id}/status, which the new TiCDC puts behind
 * the keyspace check and authentication of pause, resume, create and
 * remove (pingcap/ticdc api/v2/api.go), then GET /api/v2/unsafe/metadata,
 * the one read tiflow's TiCDC authenticates too (cdc/api/v2/api.go). -1
 * when it refused them: ERR_USAGE for a 401 of the credentials or a 400
 * of its keyspace check, ERR_INFRA for a 401 of a check TiCDC could not
 * make (no TiDB to log in to). 0 otherwise, also when TiCDC does not
 * tell (one without the route answers 404); a change then meets any
 * refusal itself.
 */
int cluster_ticdc_access(struct cluster *c, const char *id, struct err *e);

/*
 * Make sure the topology's changefeed exists: when it names a sink_uri
 * and TiCDC does not show it, create it. Nothing to do without TiCDC or a
 * sink_uri.
 */
int cluster_ensure_changefeed(struct cluster *c, struct err *e);

/* Releases: what version a server says it runs (struct release,
 * release_older: lib/parse.h). */

/*
 * The release `comp` runs, by its role: a TiCDC capture's from GET
 * /api/v2/status ("version": "v8.5.0"; pingcap/tiflow
 * cdc/api/v2/status.go, version.ReleaseVersion), a TiDB's from GET
 * /status on its status port ("version": "8.0.11-TiDB-v7.5.0", MySQL's
 * version then TiDB's; pingcap/tidb pkg/server/http_status.go). 0 with
 * *out (major -1 when the version says no release); 1 when the server
 * has no such API (HTTP 404: a TiCDC older than 6.6 has no Open API v2),
 * `e` set; -1 when it could not be asked.
 */
int server_release(const struct component *comp, struct release *out,
		   struct err *e);

/* What a TiCDC without /api/v2 lacks, after "<name>: <its 404>: ". */
#define NO_OPEN_API_V2 \
	"no Open API v2; tichaos needs TiCDC >= 6.6 (cdc/api/v2 in " \
	"pingcap/tiflow)"

/* PD's API (tikv/pd server/api). */

/* PD's leader by name: GET /pd/api/v1/leader on any pd component. */
int cluster_pd_leader(struct cluster *c, char *name, size_t size,
		      struct err *e);

struct pd_member {
	char name[128];
	char client_url[256];	/* the first of its client_urls, or "" */
	int health;		/* 1 healthy, 0 not, -1 not said */
};

/*
 * PD's members, GET /pd/api/v1/members: *members (caller frees) holds *n
 * of them in PD's order, health -1.
 */
int cluster_pd_members(struct cluster *c, struct pd_member **members,
		       size_t *n, struct err *e);

/* Their health by name from GET /pd/api/v1/health. */
int cluster_pd_health(struct cluster *c, struct pd_member *members, size_t n,
		      struct err *e);

/* TiDB's status port (pingcap/tidb server/handler). */

/*
 * The component that owner value `v` of election `service` ("ddl",
 * "cdc", "autoid"; NULL for another election) stands for: one it names
 * (cluster_named_by: the autoid leader's "host:status_port"); for "ddl"
 * the TiDB that GET /info/all lists with that ddl_id (a uuid); for "cdc"
 * the capture GET /api/v2/captures lists with that id, by its address.
 * 0 with *comp, NULL when `v` stands for none (`e` then says why: what
 * the server listed); -1 when the servers could not be asked (`e`).
 */
int cluster_owner_component(struct cluster *c, const char *service,
			    const char *v, const char **comp, struct err *e);

/*
 * The DDL owner by GET /info/all on the upstream components: its ddl_id
 * ("" when nobody owns) and the SQL address "ip:listening_port" that
 * all_servers_info gives for it ("" when it is not listed).
 */
int cluster_ddl_owner(struct cluster *c, char *id, size_t id_size,
		      char *addr, size_t addr_size, struct err *e);

#endif
