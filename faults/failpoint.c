/*
 * failpoint: turn a named failpoint of pingcap/failpoint on in the picked
 * components for `down`, and off on heal. TiDB, PD and TiCDC built with
 * failpoints (failpoint-ctl enable, `make failpoint-enable`) evaluate
 * their failpoint.Inject sites against a registry of terms, which two
 * ways reach:
 *
 * http (the default): the library's own handler, failpoint.HttpHandler
 * (http.go), which the servers mount at the origin of their status or
 * API URL: TiDB at /fail/ (pkg/server/http_status.go, once its failpoint
 * github.com/pingcap/tidb/pkg/server/enableTestAPI is on at its start, as
 * GO_FAILPOINTS turns it on; integrateFailpoint was TiDB 4's), TiCDC's old
 * architecture at /debug/fail/ (RegisterRoutes of pingcap/tiflow's
 * cdc/http.go, under util.FailpointBuild: a failpoint build), PD at
 * /pd/api/v1/fail/
 * (server/api/router.go; built with the tag with_fail, whose
 * server/api/failpoint.go sets enableFailPointAPI). PD forwards every
 * request under /pd from a follower to its leader unless it carries the
 * header PD-Allow-follower-handle (pkg/utils/apiutil/serverapi/
 * middleware.go, redirector): a PUT aimed at a follower would turn the
 * leader's failpoint on, and after a leader change the DELETE would reach
 * another PD. Each request to a pd component carries that header, so it
 * lands where it is aimed, leader or not (seen on three v8.1.2 PDs).
 * PUT NAME with the term as the body enables it (204), GET NAME answers
 * the term and a newline (200), DELETE NAME disables it (204); GET of a
 * disabled one answers 404 "failed to GET: error on NAME: failpoint:
 * failpoint is disabled", of one never enabled 404 "... does not
 * exist". The term is
 * read back after the PUT and the 404 of a disabled one after the
 * DELETE. A process that was started again meanwhile has none: its
 * DELETE answers 400 "failpoint does not exist", and the heal says
 * "restarted".
 *
 * TiCDC's new architecture (pingcap/ticdc) serves no /debug/fail/ but an
 * API of its own, in every build (api/v2/failpoint.go, api/v2/api.go):
 * POST /debug/failpoints {"name":N,"expr":T} enables (200 {}), GET
 * /debug/failpoints lists what it enabled ([{"name","expr"}], sorted),
 * DELETE /debug/failpoints?name=N disables (200; one never enabled, as in
 * a process started again: 500 {"error_msg":"error on N: failpoint:
 * failpoint does not exist"}). A capture whose GET /debug/failpoints
 * answers 200 with a JSON list is taken to serve it (`api` unset); the
 * term is read back from the list, and after the DELETE the name must
 * be gone from it.
 *
 * restart: the component is stopped (TERM) and started again under
 * /usr/bin/env GO_FAILPOINTS="NAME=TERM" (after the GO_FAILPOINTS it ran
 * with, if any, ';' between), which the library reads in its init
 * (failpoints.go: "<FAILPOINT>=<TERMS>[;<FAILPOINT>=<TERMS>...]"), as
 * TiCDC's own failover tests start a capture
 * (tests/integration_tests/NAME/run.sh in pingcap/tiflow: export
 * GO_FAILPOINTS, then run_cdc_server); the heal starts it again as it
 * was. Verified in the process's environment (/proc/PID/environ), so a
 * component of this machine only, and read back over the API too where
 * it answers. A failpoint that must hold from the start (a capture's
 * first owner campaign) needs this way.
 *
 * The term is checked when the suite is, as terms.go parses it
 * (faults/failpoint_term.c).
 *
 * A failpoint outlives a run killed while it is on. Each is recorded in
 * FAILPOINT_DIR of the state root (lib/proc.h) while it is: the
 * process's pid and start time, the runner's pid and start time, and
 * how to turn it off. The next run's
 * sweep turns off (http: DELETE) or stops (restart: TERM, by its pid,
 * so that the cluster starts it again without) what a run that is gone
 * left on, and says so.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clusters/cluster.h"
#include "clusters/host.h"
#include "core/plan.h"
#include "core/suite.h"
#include "faults/failpoint_term.h"
#include "faults/fault.h"
#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/history.h"
#include "lib/http.h"
#include "lib/log.h"
#include "lib/proc.h"

#define FAILPOINT_DIR "failpoints"
#define HTTP_TIMEOUT_NS (5 * NS_PER_SEC)

enum { METHOD_HTTP, METHOD_RESTART };

static const char *const methods[] = { "http", "restart", NULL };

/* The new TiCDC's failpoint API (api/v2/failpoint.go in pingcap/ticdc). */
#define JSON_API "/debug/failpoints"

/* What a request to a pd component carries: it is served where it is
 * aimed, not forwarded to the leader (PD's redirector). */
static const struct http_opts pd_here = {
	NULL, NULL, "PD-Allow-follower-handle: true"
};

/* How a request reaches the failpoint API of `comp`. */
static const struct http_opts *via_of(const struct component *comp)
{
	return comp->roles & ROLE_PD ? &pd_here : NULL;
}

struct failpoint_opts {
	struct fault_target_opts t;
	const char *name;
	const char *term;
	int method;
	const char *api;	/* NULL: by the target's role */
};

static const struct optspec opts[] = {
	FAULT_COMMON_OPTS,
	FAULT_TARGET_OPTS,
	{ "name", OPT_STRING, NULL, 1, NULL, 0, 0,
	  "the failpoint's path: its package's import path, '/', its name "
	  "(github.com/pingcap/tiflow/cdc/owner/ownerFlushDDLError)",
	  OPT_AT(struct failpoint_opts, name) },
	{ "term", OPT_STRING, NULL, 1, NULL, 0, 0,
	  "what it does: return(true), sleep(1000), 50%return, 1*pause, "
	  "off->return(1), ... (pingcap/failpoint terms)",
	  OPT_AT(struct failpoint_opts, term) },
	{ "method", OPT_ENUM, "http", 0, methods, 0, 0,
	  "http: PUT over the component's failpoint API; restart: the "
	  "component started again with GO_FAILPOINTS",
	  OPT_AT(struct failpoint_opts, method) },
	{ "api", OPT_STRING, NULL, 0, NULL, 0, 0,
	  "the failpoint API's path at the origin of the component's "
	  "http_url (default: /debug/failpoints for a cdc that serves it, "
	  "the new TiCDC's, else /debug/fail/; /pd/api/v1/fail/ for pd, "
	  "/fail/ for the rest, as TiDB)",
	  OPT_AT(struct failpoint_opts, api) },
};

/* ---- Checks ----------------------------------------------------------- */

/* A failpoint's path: an import path, '/', a name; nothing a URL or
 * GO_FAILPOINTS would read otherwise. */
static int name_ok(const char *name)
{
	if (!*name || *name == '/')
		return 0;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("._-/~", *p)))
			return 0;
	return 1;
}

static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	const struct failpoint_opts *o = it->opts;
	char why[300];

	if (fault_check(s, it, e))
		return -1;
	if (!name_ok(o->name))
		return fault_error_at(e, s, it, &o->name, "name in fault "
				      "'failpoint' must be a failpoint's path "
				      "(letters, digits, '._-~/'), not '%s'",
				      o->name);
	if (failpoint_term_check(o->term, why, sizeof(why)))
		return fault_error_at(e, s, it, &o->term, "term in fault "
				      "'failpoint' is not a failpoint term: "
				      "%s", why);
	/* GO_FAILPOINTS is split on ';' and each on '=' (failpoints.go). */
	if (o->method == METHOD_RESTART && strpbrk(o->term, ";="))
		return fault_error_at(e, s, it, &o->term, "term in fault "
				      "'failpoint' holds ';' or '=', which "
				      "GO_FAILPOINTS cannot carry (method "
				      "restart)");
	if (o->api && strcmp(o->api, JSON_API) &&
	    (o->api[0] != '/' || o->api[strlen(o->api) - 1] != '/'))
		return fault_error_at(e, s, it, &o->api, "api in fault "
				      "'failpoint' must be a path from '/' to "
				      "'/' (/fail/), or " JSON_API " (the new "
				      "TiCDC's), not '%s'", o->api);
	if (fault_opts_of(it)->down <= 0)
		return fault_error_at(e, s, it, NULL, "fault 'failpoint' needs "
				      "a 'down' above 0s: the heal turns it "
				      "off");
	return 0;
}

/* Where the API of `comp` serves failpoint `name`: "ORIGIN/API/NAME". */
static void fail_url(const struct failpoint_opts *o,
		     const struct component *comp, char *out, size_t size)
{
	const char *api = o->api ? o->api :
			  comp->roles & ROLE_CDC ? "/debug/fail/" :
			  comp->roles & ROLE_PD ? "/pd/api/v1/fail/" : "/fail/";
	char path[1200];

	snprintf(path, sizeof(path), "%s%s", api, o->name);
	url_origin(comp->http_url, path, out, size);
}

/*
 * Whether `comp` serves the new TiCDC's failpoint API: `api` names it, or
 * (`api` unset) a cdc component answers GET ORIGIN/debug/failpoints with
 * 200 and a JSON list. Its URL into `out` when it does.
 */
static int json_api(const struct failpoint_opts *o,
		    const struct component *comp, char *out, size_t size)
{
	struct buf got = BUF_INIT;
	long status = 0;
	json_t *list;
	int yes;

	if (o->api && strcmp(o->api, JSON_API))
		return 0;
	url_origin(comp->http_url, JSON_API, out, size);
	if (o->api)
		return 1;
	if (!(comp->roles & ROLE_CDC) ||
	    http_request("GET", out, NULL, &got, &status, HTTP_TIMEOUT_NS,
			 NULL) || status != 200)
		yes = 0;
	else {
		list = json_loads(buf_str(&got), 0, NULL);
		yes = json_is_array(list);
		json_decref(list);
	}
	buf_release(&got);
	return yes;
}

/* The DELETE URL of failpoint `name` on the API at `api`. */
static void json_delete_url(const char *api, const char *name, char *out,
			    size_t size)
{
	struct buf u = BUF_INIT;

	buf_printf(&u, NULL, "%s?name=", api);
	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		if (isalnum(*c) || strchr("-._~/", *c))
			buf_addch(&u, (char)*c, NULL);
		else
			buf_printf(&u, NULL, "%%%02X", *c);
	snprintf(out, size, "%s", buf_str(&u));
	buf_release(&u);
}

/*
 * http: the targets need an http_url. restart: they must be startable
 * and run on this machine (its environment is where it is verified).
 */
static int resolve(struct cluster *c, const struct suite *s,
		   const struct suite_item *it, struct err *e)
{
	const struct failpoint_opts *o = it->opts;
	struct component *comps[FAULT_MAX_TARGETS];
	size_t n = fault_targets(c, o->t.target, 0, comps);

	for (size_t i = 0; i < n; i++) {
		const struct host *h = component_host(c, comps[i]);

		if (o->method == METHOD_HTTP && !comps[i]->http_url)
			return fault_error_at(e, s, it, &o->t.target,
					      "fault 'failpoint': %s has no "
					      "http_url to reach its failpoint "
					      "API (method restart needs none)",
					      comps[i]->name);
		if (o->method == METHOD_RESTART && comps[i]->sup)
			return fault_error_at(e, s, it, &o->t.target,
					      "fault 'failpoint': %s is started "
					      "by its supervisor, and method "
					      "restart starts it with its "
					      "failpoints itself (method http "
					      "reaches them where it runs)",
					      comps[i]->name);
		if (o->method == METHOD_RESTART && !comps[i]->start)
			return fault_error_at(e, s, it, &o->t.target,
					      "fault 'failpoint': %s has no "
					      "start command, and method "
					      "restart starts it again",
					      comps[i]->name);
		if (o->method == METHOD_RESTART && h != &host_local)
			return fault_error_at(e, s, it, &o->t.target,
					      "fault 'failpoint': %s runs on "
					      "host %s, and method restart "
					      "verifies the environment of a "
					      "process of this machine (method "
					      "http reaches it there)",
					      comps[i]->name, h->name);
	}
	return 0;
}

/* ---- Records, for the sweep ------------------------------------------- */

/*
 * FAILPOINT_DIR/<pid>.<n>: "<method> <pid> <start> <runner> <runner
 * start> <component>\n<url>\n" — method http, pd (http with pd_here),
 * json or restart; url the API's for the failpoint, "-" (restart). Its
 * path into `path`.
 */
static int record(const char *method, pid_t pid, const char *component,
		  const char *url, char *path, size_t size, struct err *e)
{
	struct buf text = BUF_INIT;
	char dir[PATH_MAX];
	int rc = -1;

	if (proc_state_dir(FAILPOINT_DIR, 1, dir, sizeof(dir), e))
		return -1;
	buf_printf(&text, NULL, "%s %ld %lld %ld %lld %s\n%s\n", method,
		   (long)pid, pid > 0 ? proc_start_time(pid) : -1LL,
		   (long)getpid(), proc_start_time(getpid()), component, url);
	for (int n = 0; n < 1000; n++) {
		snprintf(path, size, "%s/%ld.%d", dir, (long)pid, n);
		if (access(path, F_OK) == 0)
			continue;
		rc = buf_write_file(&text, path, 0644, e);
		break;
	}
	if (rc && !err_isset(e))
		err_set(e, ERR_INFRA, "no free record in '%s'", dir);
	buf_release(&text);
	return rc;
}

/* What an injection holds, per target: its record. */
struct failpoints {
	char record[FAULT_MAX_TARGETS][PATH_MAX + 32];
	/* The target serves the new TiCDC's API (json_api), at api[i]. */
	int json[FAULT_MAX_TARGETS];
	char api[FAULT_MAX_TARGETS][1300];
};

static void forget(void *state)
{
	struct failpoints *f = state;

	for (size_t i = 0; i < FAULT_MAX_TARGETS; i++)
		if (f->record[i][0])
			unlink(f->record[i]);
	free(f);
}

/* ---- http ------------------------------------------------------------- */

/* The first line of an answer, for a message. */
static const char *first_line(struct buf *b)
{
	size_t n = strcspn(buf_str(b), "\n");

	if (n > 200)
		n = 200;
	b->data[n] = '\0';
	b->len = n;
	return buf_str(b);
}

/* GET `url` (`via`: may be NULL): *status, the answer in `out`. */
static int get(const char *url, const struct http_opts *via, struct buf *out,
	       long *status, struct err *e)
{
	buf_reset(out);
	return http_request_opts("GET", url, via, NULL, out, status,
				 HTTP_TIMEOUT_NS, e);
}

/*
 * PUT the term, then GET it back: it must be the term. *put: 1 once the
 * PUT answered 204 (it is on, whatever the GET says).
 */
static int enable_http(const struct failpoint_opts *o,
		       const struct component *comp, const char *url,
		       int *put, struct buf *value, struct err *e)
{
	struct buf out = BUF_INIT;
	long status;
	int rc = -1;

	*put = 0;
	if (http_request_opts("PUT", url, via_of(comp), o->term, &out, &status,
			      HTTP_TIMEOUT_NS, e))
		goto out;
	if (status != 204) {
		err_set(e, ERR_INFRA, "PUT '%s': HTTP %ld: %s%s", url, status,
			first_line(&out), status == 404 ? " (no failpoint API "
			"there: a server built with failpoints serves it, TiDB "
			"at /fail/ once its enableTestAPI failpoint is "
			"on; `api` names another path)" : "");
		goto out;
	}
	*put = 1;
	if (get(url, via_of(comp), &out, &status, e))
		goto out;
	buf_rtrim(&out);
	buf_addstr(value, ",\"read_back\":", NULL);
	json_quote(value, status == 200 ? buf_str(&out) : "", NULL);
	if (status != 200 || strcmp(buf_str(&out), o->term))
		err_set(e, ERR_INFRA, "%s: GET '%s' after the PUT answered "
			"HTTP %ld '%s', not the term '%s'", comp->name, url,
			status, first_line(&out), o->term);
	else
		rc = 0;
out:
	buf_release(&out);
	return rc;
}

/*
 * DELETE (`via`: may be NULL), then GET: 404 "disabled". A process
 * started again meanwhile has none (DELETE: 400 "does not exist"):
 * *restarted.
 */
static int disable_http(const char *url, const struct http_opts *via,
			int *restarted, struct err *e)
{
	struct buf out = BUF_INIT;
	long status;
	int rc = -1;

	*restarted = 0;
	if (http_request_opts("DELETE", url, via, NULL, &out, &status,
			      HTTP_TIMEOUT_NS, e))
		goto out;
	if (status == 400 && strstr(buf_str(&out), "does not exist")) {
		*restarted = 1;
		rc = 0;
		goto out;
	}
	if (status != 204) {
		err_set(e, ERR_INFRA, "DELETE '%s': HTTP %ld: %s", url, status,
			first_line(&out));
		goto out;
	}
	if (get(url, via, &out, &status, e))
		goto out;
	if (status != 404 || !strstr(buf_str(&out), "failpoint is disabled"))
		err_set(e, ERR_INFRA, "GET '%s' after the DELETE answered HTTP "
			"%ld '%s', not that it is disabled", url, status,
			first_line(&out));
	else
		rc = 0;
out:
	buf_release(&out);
	return rc;
}

/* A string member of `o`, "" when it has none. */
static const char *member_of(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : "";
}

/*
 * The expression the new TiCDC's list (GET `api`) holds for `name` into
 * `expr`: 1 listed, 0 not, -1 (`e`) when it could not be read.
 */
static int json_listed(const char *api, const char *name, struct buf *expr,
		       struct err *e)
{
	struct buf out = BUF_INIT;
	json_t *list = NULL, *item;
	long status;
	size_t i;
	int rc = -1;

	buf_reset(expr);
	if (get(api, NULL, &out, &status, e))
		goto out;
	list = json_loads(buf_str(&out), 0, NULL);
	if (status != 200 || !json_is_array(list)) {
		err_set(e, ERR_INFRA, "GET '%s': HTTP %ld: %s", api, status,
			first_line(&out));
		goto out;
	}
	rc = 0;
	json_array_foreach(list, i, item)
		if (!strcmp(member_of(item, "name"), name)) {
			buf_addstr(expr, member_of(item, "expr"), NULL);
			rc = 1;
		}
out:
	json_decref(list);
	buf_release(&out);
	return rc;
}

/* POST the failpoint, then find it in the list with its term. */
static int enable_json(const struct failpoint_opts *o,
		       const struct component *comp, const char *api,
		       int *put, struct buf *value, struct err *e)
{
	struct buf out = BUF_INIT, expr = BUF_INIT;
	json_t *body = json_pack("{s:s, s:s}", "name", o->name, "expr",
				 o->term);
	char *text = json_dumps(body, JSON_COMPACT);
	long status;
	int rc = -1, listed;

	*put = 0;
	if (http_request("POST", api, text, &out, &status, HTTP_TIMEOUT_NS,
			 e))
		goto out;
	if (status != 200) {
		err_set(e, ERR_INFRA, "POST '%s' (%s): HTTP %ld: %s", api, text,
			status, first_line(&out));
		goto out;
	}
	*put = 1;
	if ((listed = json_listed(api, o->name, &expr, e)) < 0)
		goto out;
	buf_addstr(value, ",\"read_back\":", NULL);
	json_quote(value, buf_str(&expr), NULL);
	if (!listed || strcmp(buf_str(&expr), o->term))
		err_set(e, ERR_INFRA, "%s: GET '%s' after the POST lists %s%s%s, "
			"not the term '%s'", comp->name, api, listed ? "'" : "",
			listed ? buf_str(&expr) : "no such failpoint",
			listed ? "'" : "", o->term);
	else
		rc = 0;
out:
	free(text);
	json_decref(body);
	buf_release(&out);
	buf_release(&expr);
	return rc;
}

/*
 * DELETE ?name=, then the list must not hold it. A process started again
 * meanwhile never had it (500 "does not exist"): *restarted.
 */
static int disable_json(const char *api, const char *name, int *restarted,
			struct err *e)
{
	struct buf out = BUF_INIT, expr = BUF_INIT;
	char url[1600];
	long status;
	int rc = -1;

	*restarted = 0;
	json_delete_url(api, name, url, sizeof(url));
	if (http_request("DELETE", url, NULL, &out, &status, HTTP_TIMEOUT_NS,
			 e))
		goto out;
	if (status == 500 && strstr(buf_str(&out), "does not exist")) {
		*restarted = 1;
		rc = 0;
		goto out;
	}
	if (status != 200) {
		err_set(e, ERR_INFRA, "DELETE '%s': HTTP %ld: %s", url, status,
			first_line(&out));
		goto out;
	}
	rc = json_listed(api, name, &expr, e);
	if (rc > 0)
		err_set(e, ERR_INFRA, "GET '%s' after the DELETE still lists %s "
			"('%s')", api, name, buf_str(&expr));
	rc = rc ? -1 : 0;
out:
	buf_release(&out);
	buf_release(&expr);
	return rc;
}

/* ---- restart ---------------------------------------------------------- */

/*
 * The GO_FAILPOINTS of process `pid` must hold "NAME=TERM" (`on`) or not
 * (!on); *value its value ("" when unset).
 */
static int environ_says(pid_t pid, const struct failpoint_opts *o, int on,
			const char *who, struct buf *got, struct err *e)
{
	char want[1200];
	int rc = proc_getenv(pid, "GO_FAILPOINTS", got, e);
	int has = 0;

	if (rc < 0)
		return -1;
	snprintf(want, sizeof(want), "%s=%s", o->name, o->term);
	for (const char *p = buf_str(got); !has && *p;) {
		size_t n = strcspn(p, ";");

		has = n == strlen(want) && !strncmp(p, want, n);
		p += n + (p[n] == ';');
	}
	if (has != on)
		return err_set(e, ERR_INFRA, "%s (pid %ld) runs with "
			       "GO_FAILPOINTS='%s', %s '%s'", who, (long)pid,
			       buf_str(got), on ? "without" : "still with",
			       want);
	return 0;
}

/*
 * Stop `comp` and start it again with the failpoint (`on`) or as it was;
 * its environment then says so. Its pid into *pid.
 */
static int restart_with(struct fault_ctx *ctx, const struct failpoint_opts *o,
			struct component *comp, int on, pid_t *pid,
			struct buf *value, struct err *e)
{
	struct buf env = BUF_INIT, got = BUF_INIT;
	const char *prefix[] = { "/usr/bin/env", NULL, NULL };
	pid_t before = component_pid(ctx->cluster, comp);
	int rc = -1;

	/* What it runs with already stays on. */
	if (on) {
		if (before > 0 &&
		    proc_getenv(before, "GO_FAILPOINTS", &got, NULL) == 0 &&
		    got.len)
			buf_printf(&env, NULL, "GO_FAILPOINTS=%s;%s=%s",
				   buf_str(&got), o->name, o->term);
		else
			buf_printf(&env, NULL, "GO_FAILPOINTS=%s=%s", o->name,
				   o->term);
		prefix[1] = buf_str(&env);
	}
	if (component_stop(ctx->cluster, comp, e) ||
	    component_start_under(ctx->cluster, comp, on ? prefix : NULL, e))
		goto out;
	*pid = component_pid(ctx->cluster, comp);
	if (*pid <= 0) {
		err_set(e, ERR_INFRA, "%s has no pid once started", comp->name);
		goto out;
	}
	buf_printf(value, NULL, ",\"pid\":%ld", (long)*pid);
	rc = environ_says(*pid, o, on, comp->name, &got, e);
out:
	buf_release(&env);
	buf_release(&got);
	return rc;
}

/* The term read back over the API, where it answers: recorded. */
static void read_back(const struct failpoint_opts *o,
		      const struct component *comp, struct buf *value)
{
	struct buf out = BUF_INIT;
	char url[1300];
	long status;

	if (!comp->http_url)
		return;
	fail_url(o, comp, url, sizeof(url));
	if (!get(url, via_of(comp), &out, &status, NULL) && status == 200) {
		buf_rtrim(&out);
		buf_addstr(value, ",\"read_back\":", NULL);
		json_quote(value, buf_str(&out), NULL);
	}
	buf_release(&out);
}

/* ---- The hooks -------------------------------------------------------- */

static int inject(struct fault_ctx *ctx, const struct suite_item *it,
		  const struct plan_event *ev, struct fault_action *act,
		  struct buf *value, struct err *e)
{
	const struct failpoint_opts *o = it->opts;
	struct failpoints *f;
	size_t done = 0;
	int rc = 0;

	if (fault_pick(ctx, o->t.target, o->t.pick, ev->choice, act, e))
		return -1;
	act->state = f = xcalloc(1, sizeof(*f));
	buf_printf(value, NULL, "\"method\":\"%s\",\"failpoint\":\"%s\","
		   "\"term\":", methods[o->method], o->name);
	json_quote(value, o->term, NULL);
	buf_addstr(value, ",\"enabled\":[", NULL);
	for (size_t i = 0; i < act->ntargets && !rc; i++) {
		struct component *comp = act->targets[i];
		char url[1300];
		pid_t pid;

		if (i)
			buf_addch(value, ',', NULL);
		buf_printf(value, NULL, "{\"component\":\"%s\"", comp->name);
		if (o->method == METHOD_HTTP) {
			int put = 0;

			f->json[i] = json_api(o, comp, f->api[i],
					      sizeof(f->api[i]));
			if (f->json[i])
				json_delete_url(f->api[i], o->name, url,
						sizeof(url));
			else
				fail_url(o, comp, url, sizeof(url));
			if (f->json[i])
				buf_addstr(value, ",\"api\":\"" JSON_API "\"",
					   NULL);
			pid = component_pid(ctx->cluster, comp);
			/* Recorded first: a PUT that took effect and a run
			 * killed before its answer leave it on. */
			rc = record(f->json[i] ? "json" : via_of(comp) ?
				    "pd" : "http", pid,
				    comp->name, url, f->record[i],
				    sizeof(f->record[i]), e) ||
			     (f->json[i] ? enable_json(o, comp, f->api[i], &put,
						       value, e)
			      : enable_http(o, comp, url, &put, value, e));
			/* On once the PUT took, even when read back wrong. */
			if (put)
				done = i + 1;
			else if (f->record[i][0]) {
				unlink(f->record[i]);
				f->record[i][0] = '\0';
			}
		} else {
			rc = restart_with(ctx, o, comp, 1, &pid, value, e);
			/* Started again, even when not as it should: healed. */
			done = i + 1;
			if (!rc) {
				read_back(o, comp, value);
				rc = record("restart", pid, comp->name,
					    "-", f->record[i],
					    sizeof(f->record[i]), e);
			}
		}
		buf_addch(value, '}', NULL);
	}
	buf_addch(value, ']', NULL);
	act->ntargets = done;
	return rc ? -1 : 0;
}

static int heal(struct fault_ctx *ctx, struct fault_action *act,
		struct buf *value, struct err *e)
{
	const struct failpoint_opts *o = act->item->opts;
	struct failpoints *f = act->state;
	int rc = 0;

	buf_addstr(value, "\"disabled\":[", NULL);
	for (size_t i = 0; i < act->ntargets; i++) {
		struct component *comp = act->targets[i];
		struct err one = ERR_INIT;
		int failed, restarted = 0;
		char url[1300];
		pid_t pid;

		if (i)
			buf_addch(value, ',', NULL);
		buf_printf(value, NULL, "{\"component\":\"%s\"", comp->name);
		if (o->method == METHOD_HTTP && f->json[i]) {
			failed = disable_json(f->api[i], o->name, &restarted,
					      &one);
			if (!failed && restarted)
				buf_addstr(value, ",\"restarted\":true", NULL);
		} else if (o->method == METHOD_HTTP) {
			fail_url(o, comp, url, sizeof(url));
			failed = disable_http(url, via_of(comp), &restarted,
					      &one);
			if (!failed && restarted)
				buf_addstr(value, ",\"restarted\":true", NULL);
		} else {
			failed = restart_with(ctx, o, comp, 0, &pid, value,
					      &one);
		}
		buf_addch(value, '}', NULL);
		if (!failed && f->record[i][0]) {
			unlink(f->record[i]);
			f->record[i][0] = '\0';
		}
		if (failed && !rc) {
			*e = one;
			rc = -1;
		}
	}
	buf_addch(value, ']', NULL);
	return rc;
}

/*
 * Whether the DELETE of a swept record answered as its API does when it
 * turned the failpoint off (http 204, json 200) or found none (http 400,
 * json 500 "does not exist").
 */
static int swept(const char *method, long status, const struct buf *out)
{
	if (!strcmp(method, "json"))
		return status == 200 || (status == 500 &&
					 strstr(buf_str(out), "does not exist"));
	return status == 204 || status == 400;
}

/*
 * What a run killed while a failpoint was on left, whatever its cluster:
 * each recorded one whose runner is gone, turned off when its process
 * still runs (http: DELETE; restart: the process stopped with TERM, by
 * its pid, and the cluster starts it again as it was), and said.
 */
static int sweep_one(const char *path, void *arg)
{
	char method[16], name[128], url[1300];
	struct buf text = BUF_INIT, out = BUF_INIT;
	struct err why = ERR_INIT;
	long long start, runner_start;
	long pid, runner, status;

	(void)arg;
	if (buf_read_file(&text, path, NULL) ||
	    sscanf(buf_str(&text), "%15s %ld %lld %ld %lld %127s %1299s",
		   method, &pid, &start, &runner, &runner_start, name,
		   url) != 7) {
		log_warn("removing '%s': not a record of a failpoint", path);
		buf_release(&text);
		unlink(path);
		return 0;
	}
	buf_release(&text);
	if (!proc_runner_gone(runner, runner_start))
		return 0;
	if (pid > 0 && proc_start_time((pid_t)pid) != start) {
		/* Its process is gone, and the failpoint with it. */
	} else if (!strcmp(method, "restart")) {
		log_warn("%s: stopping pid %ld, which an earlier run started "
			 "with a failpoint (its runner, pid %ld, is gone)",
			 name, pid, runner);
		if (proc_signal((pid_t)pid, SIGTERM, &why) ||
		    proc_wait_gone((pid_t)pid, 10 * NS_PER_SEC, &why))
			proc_signal((pid_t)pid, SIGKILL, NULL);
	} else if (http_request_opts("DELETE", url, strcmp(method, "pd") ? NULL
				     : &pd_here, NULL, &out, &status,
				     HTTP_TIMEOUT_NS, &why) ||
		   !swept(method, status, &out)) {
		log_warn("%s: cannot turn off the failpoint an earlier run "
			 "left on (DELETE '%s': %s)", name, url,
			 why.msg[0] ? why.msg : first_line(&out));
	} else if (status == (strcmp(method, "json") ? 204 : 200)) {
		log_warn("%s: turned off the failpoint an earlier run left on "
			 "(DELETE '%s'; its runner, pid %ld, is gone)", name,
			 url, runner);
	}
	buf_release(&out);
	unlink(path);
	return 0;
}

static int sweep(struct cluster *c, struct err *e)
{
	(void)c;
	return proc_state_each(FAILPOINT_DIR, sweep_one, NULL, e);
}

static const struct fault_detail details[] = {
	{ "failpoint", "failpoint", "", NULL },
	{ "term", "term", "", NULL },
	{ NULL, NULL, NULL, NULL },
};

/* Its components, named in its value's "enabled", are drawn failing. */
static const struct fault_holds holds = { "failpoint", "failpoint on",
					  "had a failpoint on", "#e377c2", 7,
					  "enabled", details };

const struct fault_type fault_failpoint = {
	.kind = { "failpoint", "turn a failpoint of pingcap/failpoint on in "
		  "components for `down` (over their HTTP API, or started "
		  "again with GO_FAILPOINTS)",
		  opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct failpoint_opts), .check = check,
		  .plan = fault_plan },
	.resolve = resolve,
	.inject = inject,
	.heal = heal,
	.heal_name = "disable",
	.target = fault_component_target,
	.forget = forget,
	.holds = &holds,
	.sweep = sweep,
};
