/*
 * Whether a component is ready (clusters/cluster.h): its SQL answers and
 * its replication runs, etcd is healthy, its HTTP endpoint answers, a
 * TiCDC capture is listed; and how far a replica lags.
 */
#include "clusters/internal.h"

#include <stdio.h>
#include <string.h>

#include "clusters/api.h"
#include "lib/clock.h"
#include "lib/http.h"
#include "lib/parse.h"

struct component *component_source(const struct cluster *c,
				   const struct component *comp)
{
	if (!comp->replicates)
		return NULL;
	return cluster_find((struct cluster *)c, comp->replicates);
}

int component_connect(const struct component *comp, struct sql *s,
		      const char *database, int timeout_s, struct err *e)
{
	return component_connect_read(comp, s, database, timeout_s,
				      timeout_s, e);
}

int component_connect_read(const struct component *comp, struct sql *s,
			   const char *database, int timeout_s,
			   int read_timeout_s, struct err *e)
{
	struct err why = ERR_INIT;

	if (!sql_connect_read(s, comp->sql_host, comp->sql_port,
			      comp->user ? comp->user : "root",
			      comp->password, database, timeout_s,
			      read_timeout_s, &why))
		return 0;
	return err_set(e, why.class, "%s: %s", comp->name, why.msg);
}

int component_sql_open(const struct component *comp, struct sql *s,
		       struct err *e)
{
	return component_connect(comp, s, NULL, 5, e);
}

static int replication_running(const struct component *comp, struct sql *s,
			       struct sql_result *r, struct err *e)
{
	const char *io, *sql_thread, *last;

	if (sql_query(s, "SHOW SLAVE STATUS", r, e))
		return -1;
	if (!r->nrows)
		return err_set(e, ERR_INFRA, "%s: replication is not "
			       "configured", comp->name);
	io = sql_cell(r, 0, "Slave_IO_Running");
	sql_thread = sql_cell(r, 0, "Slave_SQL_Running");
	if (io && !strcmp(io, "Yes") && sql_thread &&
	    !strcmp(sql_thread, "Yes"))
		return 0;
	last = sql_cell(r, 0, "Last_SQL_Error");
	if (!last || !*last)
		last = sql_cell(r, 0, "Last_IO_Error");
	return err_set(e, ERR_INFRA, "%s: replication is not running "
		       "(io %s, sql %s)%s%s", comp->name, io ? io : "?",
		       sql_thread ? sql_thread : "?",
		       last && *last ? ": " : "", last && *last ? last : "");
}

/*
 * `ping_only`: the server answers; replication is not looked at, nor
 * whether TiCDC lists a capture.
 */
static int ready(const struct cluster *c, const struct component *comp,
		 int ping_only, struct err *e)
{
	struct buf body = BUF_INIT;
	int rc = 0;

	if (comp->sql_port) {
		struct sql s = SQL_INIT;
		struct sql_result r = SQL_RESULT_INIT;

		rc = component_sql_open(comp, &s, e) ||
		     sql_exec(&s, "SELECT 1", e);
		if (!rc && !ping_only && component_source(c, comp))
			rc = replication_running(comp, &s, &r, e);
		sql_result_release(&r);
		sql_close(&s);
	}
	if (!rc && comp->etcd_url) {
		char url[512];
		long status;

		snprintf(url, sizeof(url), "%s/health", comp->etcd_url);
		rc = http_request("GET", url, NULL, &body, &status,
				  2 * NS_PER_SEC, e);
		if (!rc && (status != 200 || !strstr(buf_str(&body),
						     "\"true\"")))
			rc = err_set(e, ERR_INFRA, "%s: etcd is not healthy "
				     "(HTTP %ld)", comp->name, status);
	}
	if (!rc && comp->http_url && !ping_only && (comp->roles & ROLE_CDC)) {
		/* A TiCDC capture is ready once it is listed, not when its
		 * HTTP server first answers. */
		rc = capture_listed(c, comp, e);
	} else if (!rc && comp->http_url) {
		long status;

		/* Answering at all is any HTTP answer (TiCDC answers 404 at
		 * its origin, 503 while it starts). */
		rc = http_request("GET", comp->http_url, NULL, NULL, &status,
				  2 * NS_PER_SEC, e);
		if (!rc && !ping_only && (status < 200 || status > 299))
			rc = err_set(e, ERR_INFRA, "%s: '%s' answered HTTP "
				     "%ld", comp->name, comp->http_url,
				     status);
	}
	buf_release(&body);
	return rc ? -1 : 0;
}

int component_ready(const struct cluster *c, const struct component *comp,
		    struct err *e)
{
	return ready(c, comp, 0, e);
}

int component_answers(const struct cluster *c, const struct component *comp,
		      struct err *e)
{
	return ready(c, comp, 1, e);
}

long component_lag(const struct cluster *c, const struct component *comp)
{
	struct sql s = SQL_INIT;
	struct sql_result r = SQL_RESULT_INIT;
	const char *behind;
	long lag = -1;
	int64_t v;

	if (!comp->sql_port || !component_source(c, comp) ||
	    component_sql_open(comp, &s, NULL))
		return -1;
	if (!sql_query(&s, "SHOW SLAVE STATUS", &r, NULL) && r.nrows) {
		behind = sql_cell(&r, 0, "Seconds_Behind_Master");
		if (behind && !parse_int64(behind, 0, INT32_MAX, &v, NULL))
			lag = (long)v;
	}
	sql_result_release(&r);
	sql_close(&s);
	return lag;
}
