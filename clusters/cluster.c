#include "clusters/cluster.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clusters/api.h"
#include "lib/clock.h"
#include "lib/http.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "lib/netns.h"
#include "lib/proc.h"
#include "lib/sql.h"

/* How long a server just started, or stopped by an interrupted run, may
 * take to go on TERM before it is killed. */
#define STOP_GRACE_NS (5 * NS_PER_SEC)

const char *const role_names[] = {
	"upstream", "downstream", "cdc", "pd", "kv", "etcd", NULL,
};

const char *role_name(unsigned role)
{
	for (int i = 0; role_names[i]; i++)
		if (role == 1u << i)
			return role_names[i];
	return NULL;
}

unsigned role_parse(const char *name)
{
	for (int i = 0; role_names[i]; i++)
		if (!strcmp(role_names[i], name))
			return 1u << i;
	return 0;
}

const char *component_state_name(enum component_state s)
{
	switch (s) {
	case STATE_STOPPED:
		return "stopped";
	case STATE_RUNNING:
		return "running";
	case STATE_PAUSED:
		return "paused";
	case STATE_UNKNOWN:
		break;
	}
	return "unknown";
}

char **argv_dup(const char *const *argv)
{
	size_t n = 0;
	char **out;

	while (argv[n])
		n++;
	out = xcalloc(n + 1, sizeof(*out));
	for (size_t i = 0; i < n; i++)
		out[i] = xstrdup(argv[i]);
	return out;
}

void argv_free(char **argv)
{
	for (char **a = argv; a && *a; a++)
		free(*a);
	free(argv);
}

char *absolute_dir(const char *dir)
{
	char cwd[4096], *real = realpath(dir, NULL), *slash, *parent;

	if (real)
		return real;
	/* Not created yet: resolve its parent. */
	slash = strrchr(dir, '/');
	parent = slash ? xstrndup(dir, (size_t)(slash - dir + (slash == dir)))
		       : xstrdup(".");
	real = parent ? realpath(parent, NULL) : NULL;
	free(parent);
	if (real) {
		char *out = xprintf("%s/%s", strcmp(real, "/") ? real : "",
				    slash ? slash + 1 : dir);

		free(real);
		return out;
	}
	if (dir[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return xstrdup(dir);
	return xprintf("%s/%s", cwd, dir);
}

const char *cluster_kind(const char *cluster)
{
	if (!cluster || !strcmp(cluster, "local"))
		return "local";
	if (!strcmp(cluster, "playground") ||
	    !strncmp(cluster, "playground:", 11))
		return "playground";
	return "static";
}

int cluster_interrupted(const struct cluster *c)
{
	return c->give_up_at != CANCEL_NONE &&
	       cancelled(c->cancel, c->give_up_at);
}

const struct cluster_type *cluster_type_find(const char *name)
{
	for (int i = 0; cluster_types[i]; i++)
		if (!strcmp(cluster_types[i]->name, name))
			return cluster_types[i];
	return NULL;
}

const struct cluster_type *cluster_type_of(const char *cluster)
{
	return cluster_type_find(cluster_kind(cluster));
}

int cluster_open(struct cluster *c, const struct cluster_options *o,
		 struct err *e)
{
	const char *kind = cluster_kind(o->cluster);

	memset(c, 0, sizeof(*c));
	c->timeout_ns = 60 * NS_PER_SEC;
	c->type = cluster_type_find(kind);
	if (!c->type)
		return err_set(e, ERR_USAGE, "unknown cluster kind '%s'", kind);
	if (c->type->open(c, o, e)) {
		cluster_close(c);
		return -1;
	}
	return 0;
}

enum hosts_mode hosts_mode_parse(const char *text)
{
	if (!text)
		return HOSTS_DEFAULT;
	if (!strcmp(text, "auto"))
		return HOSTS_AUTO;
	if (!strcmp(text, "on"))
		return HOSTS_ON;
	if (!strcmp(text, "off"))
		return HOSTS_OFF;
	return HOSTS_DEFAULT;
}

void component_release(struct component *comp)
{
	free(comp->name);
	free(comp->host);
	free(comp->sql_host);
	free(comp->user);
	free(comp->password_env);
	if (comp->password)
		memset(comp->password, 0, strlen(comp->password));
	free(comp->password);
	free(comp->replicates);
	free(comp->http_url);
	free(comp->etcd_url);
	for (char **a = comp->start; a && *a; a++)
		free(*a);
	free(comp->start);
	free(comp->dir);
	free(comp->pidfile);
	free(comp->pid_command);
	free(comp->log);
	free(comp->data_dir);
	free(comp->netns);
	memset(comp, 0, sizeof(*comp));
}

void cluster_close(struct cluster *c)
{
	if (c->type && c->type->close)
		c->type->close(c);
	for (size_t i = 0; i < c->ncomps; i++)
		component_release(&c->comps[i]);
	free(c->comps);
	for (size_t i = 0; i < c->nhosts; i++)
		host_release(&c->hosts[i]);
	free(c->hosts);
	free(c->dir);
	free(c->topology_path);
	free(c->changefeed);
	free(c->sink_uri);
	free(c->ticdc.user);
	free(c->ticdc.password_env);
	if (c->ticdc.password)
		memset(c->ticdc.password, 0, strlen(c->ticdc.password));
	free(c->ticdc.password);
	free(c->ticdc.keyspace);
	free(c->tally);
	free(c->etcd_endpoints);
	memset(c, 0, sizeof(*c));
}

/* Does `v` name "host:port" `addr`, not merely begin a longer port
 * ("127.0.0.1:4000" is not in "127.0.0.1:40001")? */
static int names_addr(const char *v, const char *addr)
{
	size_t n = strlen(addr);

	for (const char *p = strstr(v, addr); p; p = strstr(p + 1, addr))
		if (!isdigit((unsigned char)p[n]) &&
		    (p == v || (!isalnum((unsigned char)p[-1]) &&
				p[-1] != '.')))
			return 1;
	return 0;
}

static int is_addr(const char *v, const char *addr)
{
	return !strcmp(v, addr);
}

/*
 * The first component whose SQL address or HTTP origin's host:port
 * ("127.0.0.1:4000") `match`es `v`; NULL when none does.
 */
static const char *component_by_addr(const struct cluster *c, const char *v,
				      int (*match)(const char *v,
						   const char *addr))
{
	for (size_t i = 0; i < c->ncomps; i++) {
		const struct component *comp = &c->comps[i];
		char addr[300];
		const char *host;

		if (comp->sql_port) {
			snprintf(addr, sizeof(addr), "%s:%d", comp->sql_host,
				 comp->sql_port);
			if (match(v, addr))
				return comp->name;
		}
		if (comp->http_url) {
			url_origin(comp->http_url, NULL, addr, sizeof(addr));
			host = strstr(addr, "://");
			if (host && match(v, host + 3))
				return comp->name;
		}
	}
	return NULL;
}

const char *cluster_named_by(const struct cluster *c, const char *v)
{
	const struct component *comp = cluster_find((struct cluster *)c, v);

	return comp ? comp->name : component_by_addr(c, v, names_addr);
}

const char *cluster_component_at(const struct cluster *c, const char *addr)
{
	return component_by_addr(c, addr, is_addr);
}

struct component *cluster_find(struct cluster *c, const char *name)
{
	for (size_t i = 0; i < c->ncomps; i++)
		if (!strcmp(c->comps[i].name, name))
			return &c->comps[i];
	return NULL;
}

const struct component *cluster_first_sql(const struct cluster *c,
					  unsigned role)
{
	for (size_t i = 0; i < c->ncomps; i++)
		if ((c->comps[i].roles & role) && c->comps[i].sql_port)
			return &c->comps[i];
	return NULL;
}

struct host *component_host(const struct cluster *c,
			    const struct component *comp)
{
	for (size_t i = 0; comp->host && i < c->nhosts; i++)
		if (!strcmp(c->hosts[i].name, comp->host))
			return &c->hosts[i];
	return &host_local;
}

int component_host_first(const struct cluster *c, size_t i)
{
	struct host *h = component_host(c, &c->comps[i]);

	if (h == &host_local)
		return c->comps[i].netns != NULL;
	for (size_t j = 0; j < i; j++)
		if (component_host(c, &c->comps[j]) == h)
			return 0;
	return 1;
}

int component_on_loopback(const struct cluster *c,
			  const struct component *comp)
{
	return component_host(c, comp) == &host_local && !comp->netns;
}

/* The cluster's tag: FNV-1a of its directory. */
static uint32_t tag_of(const struct cluster *c)
{
	uint32_t h = 2166136261u;

	for (const char *p = c->dir ? c->dir : ""; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return h;
}

void cluster_netcls_prefix(const struct cluster *c, char *out, size_t size)
{
	netcls_name(tag_of(c), "", out, size);
}

void component_netcls(const struct cluster *c, const struct component *comp,
		      struct netcls_host *h)
{
	memset(h, 0, sizeof(*h));
	netcls_name(tag_of(c), comp->name, h->name, sizeof(h->name));
	h->classid = NETCLS_CLASSID(tag_of(c), comp - c->comps);
}

/* Is `pid` running the component's start command (perhaps through the
 * interpreter of a script)? */
static int runs_component(struct host *h, pid_t pid,
			  const struct component *comp)
{
	struct buf cmdline = BUF_INIT, want = BUF_INIT;
	int same;

	if (!comp->start)
		return h->ops->state(h, pid) != 0;
	/* A process between two execs (a start under a prefix that execs
	 * the component: component_start_under) shows no command line for
	 * a moment (the cmdline op fails on an empty one); a kernel thread
	 * or a zombie shows none for good, a process gone has no state. */
	for (int tries = 0; h->ops->cmdline(h, pid, &cmdline, NULL); tries++) {
		char state = h->ops->state(h, pid);

		if (tries == 50 || !state || state == 'Z' || state == 'X') {
			buf_release(&cmdline);
			return 0;
		}
		clock_sleep_ns(NS_PER_MS);
	}
	for (char **a = comp->start; *a; a++)
		buf_printf(&want, NULL, "%s%s", a == comp->start ? "" : " ",
			   *a);
	/* A script's interpreter comes first: "/usr/bin/perl SCRIPT ...". */
	same = !strcmp(buf_str(&cmdline), buf_str(&want)) ||
	       (cmdline.len > want.len &&
		cmdline.data[cmdline.len - want.len - 1] == ' ' &&
		!strcmp(buf_str(&cmdline) + cmdline.len - want.len,
			buf_str(&want)));
	buf_release(&cmdline);
	buf_release(&want);
	return same;
}

/* A pid printed by a pidfile or a command: 0 when there is none. */
static pid_t parse_pid(struct buf *text)
{
	int64_t v;

	buf_rtrim(text);
	return parse_int64(buf_str(text), 1, INT32_MAX, &v, NULL) ? 0
								: (pid_t)v;
}

/* TiCDC's GET /api/v2/status at http_url's origin: {"pid": N, ...}. */
static pid_t status_pid(const struct component *comp)
{
	struct buf body = BUF_INIT;
	char url[512];
	json_t *doc, *pid;
	long status;
	pid_t v = -1;

	if (!comp->http_url)
		return -1;
	url_origin(comp->http_url, "/api/v2/status", url, sizeof(url));
	if (http_request("GET", url, NULL, &body, &status, 2 * NS_PER_SEC,
			 NULL))
		return 0;	/* nobody answers: not running */
	doc = status == 200 ? json_loads(buf_str(&body), 0, NULL) : NULL;
	pid = json_object_get(doc, "pid");
	if (json_is_integer(pid) && json_integer_value(pid) > 0 &&
	    json_integer_value(pid) <= INT32_MAX)
		v = (pid_t)json_integer_value(pid);
	json_decref(doc);
	buf_release(&body);
	return v;
}

pid_t component_pid(const struct cluster *c, const struct component *comp)
{
	struct host *h = component_host(c, comp);
	struct buf text = BUF_INIT;
	pid_t pid = -1;

	if (comp->pidfile) {
		if (h->ops->read_file(h, comp->pidfile, 0, 64, &text, NULL))
			pid = 0;
		else if ((pid = parse_pid(&text)) &&
			 !runs_component(h, pid, comp))
			pid = 0;
	} else if (comp->pid_command) {
		pid = h->ops->shell(h, comp->pid_command, &text, NULL) ? 0
		      : parse_pid(&text);
		if (pid && !h->ops->state(h, pid))
			pid = 0;
	} else if (comp->status_pid) {
		pid = status_pid(comp);
	}
	buf_release(&text);
	return pid;
}

enum component_state component_state(const struct cluster *c,
				      const struct component *comp)
{
	struct host *h = component_host(c, comp);
	pid_t pid = component_pid(c, comp);

	if (pid < 0)
		return STATE_UNKNOWN;
	if (pid == 0)
		return STATE_STOPPED;
	return h->ops->state(h, pid) == 'T' ? STATE_PAUSED : STATE_RUNNING;
}

void component_last_log_line(const struct cluster *c,
			     const struct component *comp, struct buf *out)
{
	struct host *h = component_host(c, comp);
	struct buf text = BUF_INIT;
	const char *end, *start;
	int64_t size;

	buf_reset(out);
	if (!comp->log || (size = h->ops->file_size(h, comp->log)) < 0)
		return;
	if (h->ops->read_file(h, comp->log, size > 8192 ? size - 8192 : 0,
			      8192, &text, NULL)) {
		buf_release(&text);
		return;
	}
	buf_rtrim(&text);
	end = buf_str(&text) + text.len;
	start = end;
	while (start > buf_str(&text) && start[-1] != '\n')
		start--;
	buf_add(out, start, (size_t)(end - start), NULL);
	buf_release(&text);
}

static struct component *source_of(const struct cluster *c,
				   const struct component *comp)
{
	if (!comp->replicates)
		return NULL;
	return cluster_find((struct cluster *)c, comp->replicates);
}

int component_connect(const struct component *comp, struct sql *s,
		      const char *database, int timeout_s, struct err *e)
{
	struct err why = ERR_INIT;

	if (!sql_connect(s, comp->sql_host, comp->sql_port,
			 comp->user ? comp->user : "root", comp->password,
			 database, timeout_s, &why))
		return 0;
	return err_set(e, why.class, "%s: %s", comp->name, why.msg);
}

static int sql_open(const struct component *comp, struct sql *s,
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

		rc = sql_open(comp, &s, e) || sql_exec(&s, "SELECT 1", e);
		if (!rc && !ping_only && source_of(c, comp))
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

	if (!comp->sql_port || !source_of(c, comp) || sql_open(comp, &s, NULL))
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

int component_replica_stopped(const struct cluster *c,
			      const struct component *comp,
			      struct replica_stop *out, struct err *e)
{
	struct sql s = SQL_INIT;
	int rc = component_replica_stopped_on(c, comp, &s, out, e);

	sql_close(&s);
	return rc;
}

int component_replica_stopped_on(const struct cluster *c,
				 const struct component *comp, struct sql *s,
				 struct replica_stop *out, struct err *e)
{
	struct sql_result r = SQL_RESULT_INIT;
	const char *running, *no, *msg, *file, *at;
	struct buf gtid = BUF_INIT;
	int64_t v = 0;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (!comp->sql_port || !source_of(c, comp))
		return 0;
	if ((!s->my && sql_open(comp, s, e)) ||
	    sql_query(s, "SHOW SLAVE STATUS", &r, e)) {
		/* The next ask opens a new one (the server restarted). */
		sql_close(s);
		goto out;
	}
	rc = 0;
	if (!r.nrows)
		goto out;
	running = sql_cell(&r, 0, "Slave_SQL_Running");
	no = sql_cell(&r, 0, "Last_SQL_Errno");
	if (!running || strcmp(running, "No") || !no ||
	    parse_int64(no, 0, INT32_MAX, &v, NULL) || !v)
		goto out;
	out->sql_errno = (long)v;
	msg = sql_cell(&r, 0, "Last_SQL_Error");
	snprintf(out->error, sizeof(out->error), "%s", msg ? msg : "");
	file = sql_cell(&r, 0, "Relay_Master_Log_File");
	at = sql_cell(&r, 0, "Exec_Master_Log_Pos");
	snprintf(out->position, sizeof(out->position), "%s:%s",
		 file ? file : "?", at ? at : "?");
	if (!sql_value(s, "SELECT @@gtid_slave_pos", &gtid, NULL))
		snprintf(out->gtid, sizeof(out->gtid), "%s", buf_str(&gtid));
	rc = 1;
out:
	buf_release(&gtid);
	sql_result_release(&r);
	return rc;
}

struct replica_tally {
	long before;		/* skipped in the lives that ended */
	long last;		/* the counter at the last ask */
	int64_t uptime;		/* the server's Uptime then */
	int lives;
};

static pthread_mutex_t tally_lock = PTHREAD_MUTEX_INITIALIZER;

int component_replica_skipped(struct cluster *c, const struct component *comp,
			      long *total, int *restarts, struct err *e)
{
	struct sql s = SQL_INIT;
	int rc = component_replica_skipped_on(c, comp, &s, total, restarts, e);

	sql_close(&s);
	return rc;
}

int component_replica_skipped_on(struct cluster *c,
				 const struct component *comp, struct sql *s,
				 long *total, int *restarts, struct err *e)
{
	struct sql_result r = SQL_RESULT_INIT;
	int64_t skipped = -1, uptime = -1;
	size_t i = (size_t)(comp - c->comps);
	struct replica_tally *t;
	int rc;

	rc = (!s->my && sql_open(comp, s, e)) ||
	     sql_query(s, "SHOW GLOBAL STATUS WHERE Variable_name IN "
		       "('Slave_skipped_errors', 'Uptime')", &r, e);
	if (rc)
		sql_close(s);	/* the next ask opens a new one */
	for (size_t row = 0; !rc && row < r.nrows; row++) {
		const char *name = sql_cell(&r, row, "Variable_name");
		const char *v = sql_cell(&r, row, "Value");
		int64_t n;

		if (!name || !v || parse_int64(v, 0, INT64_MAX, &n, NULL))
			continue;
		if (!strcmp(name, "Uptime"))
			uptime = n;
		else
			skipped = n;
	}
	sql_result_release(&r);
	if (!rc && (skipped < 0 || uptime < 0))
		rc = err_set(e, ERR_INFRA, "%s: no Slave_skipped_errors or "
			     "Uptime in SHOW GLOBAL STATUS", comp->name);
	pthread_mutex_lock(&tally_lock);
	if (!c->tally)
		c->tally = xcalloc(c->ncomps + 1, sizeof(*c->tally));
	t = c->tally && i < c->ncomps ? &c->tally[i] : NULL;
	if (t && !rc) {
		/* A new life: its counter began at 0. */
		if (!t->lives || uptime < t->uptime || skipped < t->last) {
			t->before += t->last;
			t->last = 0;
			t->lives++;
		}
		t->last = (long)skipped;
		t->uptime = uptime;
	}
	*total = t ? t->before + t->last : 0;
	*restarts = t && t->lives ? t->lives - 1 : 0;
	pthread_mutex_unlock(&tally_lock);
	return rc ? -1 : 0;
}

static int spawn(struct cluster *c, struct component *comp,
		 const char *const *prefix, struct err *e)
{
	struct host *h = component_host(c, comp);
	struct buf text = BUF_INIT;
	const char *netns[] = { "ip", "netns", "exec", comp->netns, NULL };
	/* Started while a partition has its class: it joins the class
	 * first, so that the cut holds for it too (lib/netcls.h). */
	const char *join[] = { "/bin/sh", "-c", "echo $$ >\"$0\" && exec "
			       "\"$@\"", NULL, NULL };
	const char **host_prefix = comp->netns ? netns : NULL;
	char **argv, procs[700];
	size_t n = 0, k = 0, j = 0;
	pid_t pid;
	int rc;

	if (!comp->start)
		return err_set(e, ERR_INFRA, "%s: no start command in the "
			       "topology", comp->name);
	if (component_on_loopback(c, comp)) {
		struct netcls_host cls;

		component_netcls(c, comp, &cls);
		if (netcls_dir(cls.name, procs, sizeof(procs) - 16)) {
			size_t len = strlen(procs);

			snprintf(procs + len, sizeof(procs) - len,
				 "/cgroup.procs");
			join[3] = procs;
			host_prefix = join;
		}
	}
	/* Its host's namespace or class, then the caller's prefix, then
	 * the command: each execs the next, so the pid stays the
	 * server's. */
	while (host_prefix && host_prefix[n])
		n++;
	while (prefix && prefix[k])
		k++;
	while (comp->start[j])
		j++;
	argv = xcalloc(n + k + j + 1, sizeof(*argv));
	if (n)
		memcpy(argv, (char *const *)host_prefix, n * sizeof(*argv));
	if (k)
		memcpy(argv + n, (char *const *)prefix, k * sizeof(*argv));
	memcpy(argv + n + k, comp->start, j * sizeof(*argv));
	rc = h->ops->spawn(h, argv, comp->dir, comp->log, &pid, e);
	free(argv);
	if (rc)
		return -1;
	log_debug("started %s on %s (pid %ld)", comp->name, h->name,
		  (long)pid);
	rc = comp->pidfile ? buf_printf(&text, e, "%ld\n", (long)pid) ||
			     h->ops->write_file(h, comp->pidfile, &text, e)
			   : 0;
	buf_release(&text);
	if (rc) {
		h->ops->signal(h, pid, SIGKILL, NULL);
		h->ops->wait_gone(h, pid, 5 * NS_PER_SEC, NULL);
		return -1;
	}
	return 0;
}

/*
 * A replica whose SQL thread stopped on an error: that does not mend by
 * waiting. 1 (with `stop`) when `comp` is one, else 0.
 */
static int halted(struct cluster *c, struct component *comp,
		  struct replica_stop *stop)
{
	return comp->replicates &&
	       component_replica_stopped(c, comp, stop, NULL) == 1;
}

/*
 * Wait until the component is ready (ping_only: answers at all). Fails
 * early when its process is gone, or when it lacks what tichaos needs
 * (ERR_USAGE from ready()). A replica stopped on an SQL error fails at
 * once too — unless `restart`: then the server is up, which is what a
 * restart does, and its replication is a failure of its own, for the
 * progress check to report (said here as a warning).
 */
static int await(struct cluster *c, struct component *comp, int ping_only,
		 int restart, struct err *e)
{
	struct replica_stop stop;
	int64_t deadline = clock_mono_ns() + c->timeout_ns;
	struct err last = ERR_INIT;
	struct buf line = BUF_INIT;
	char d[32];

	for (;;) {
		enum component_state state = component_state(c, comp);

		if (cluster_interrupted(c))
			return err_set(e, ERR_INTERRUPTED, "interrupted while "
				       "waiting for %s", comp->name);
		err_clear(&last);
		if (state == STATE_RUNNING || state == STATE_UNKNOWN)
			if (!ready(c, comp, ping_only, &last))
				return 0;
		/* What waiting cannot mend: a server without the API that
		 * tichaos needs (capture_listed). */
		if (last.class == ERR_USAGE)
			return err_set(e, ERR_USAGE, "%s", last.msg);
		if (!ping_only && state == STATE_RUNNING &&
		    halted(c, comp, &stop)) {
			if (!restart)
				return err_set(e, ERR_INFRA, "%s: replication "
					       "stopped on SQL error %ld after "
					       "GTID %s: %s", comp->name,
					       stop.sql_errno, stop.gtid,
					       stop.error);
			log_warn("%s is up; its replication stopped on SQL "
				 "error %ld after GTID %s: %s", comp->name,
				 stop.sql_errno, stop.gtid, stop.error);
			return 0;
		}
		if (state == STATE_STOPPED || state == STATE_PAUSED ||
		    clock_mono_ns() >= deadline) {
			component_last_log_line(c, comp, &line);
			if (state == STATE_STOPPED)
				err_set(e, ERR_INFRA, "%s exited while "
					"starting; last log line: %s",
					comp->name, line.len ? buf_str(&line)
					: "(none)");
			else if (state == STATE_PAUSED)
				err_set(e, ERR_INFRA, "%s is paused (SIGSTOP)",
					comp->name);
			else
				err_set(e, ERR_INFRA, "%s not ready after %s: "
					"%s; last log line: %s", comp->name,
					format_duration(c->timeout_ns, d,
							sizeof(d)),
					last.msg, line.len ? buf_str(&line)
					: "(none)");
			buf_release(&line);
			return -1;
		}
		clock_sleep_ns(100 * NS_PER_MS);
	}
}

int component_start(struct cluster *c, struct component *comp, struct err *e)
{
	return component_start_under(c, comp, NULL, e);
}

int component_start_under(struct cluster *c, struct component *comp,
			  const char *const *prefix, struct err *e)
{
	if (component_state(c, comp) != STATE_STOPPED)
		return err_set(e, ERR_INFRA, "%s is already running",
			       comp->name);
	return spawn(c, comp, prefix, e) || await(c, comp, 0, 1, e) ? -1 : 0;
}

/* Send `sig`, then wait at most `timeout_ns` for the process to go. */
static int kill_within(struct cluster *c, struct component *comp, int sig,
		       int64_t timeout_ns, struct err *e)
{
	struct host *h = component_host(c, comp);
	pid_t pid = component_pid(c, comp);

	if (pid <= 0)
		return err_set(e, ERR_INFRA, "%s is not running", comp->name);
	if (h->ops->signal(h, pid, sig, e))
		return -1;
	/* A stopped process does not die of TERM until continued. */
	if (sig != SIGKILL)
		h->ops->signal(h, pid, SIGCONT, NULL);
	if (h->ops->wait_gone(h, pid, timeout_ns, e))
		return -1;
	log_debug("%s (pid %ld) is gone after signal %d", comp->name,
		  (long)pid, sig);
	return 0;
}

int component_kill(struct cluster *c, struct component *comp, int sig,
		   struct err *e)
{
	return kill_within(c, comp, sig, c->timeout_ns, e);
}

/*
 * TERM, KILL when it is not gone within `grace_ns`; KILL at once after a
 * second ^C. The pidfile is removed.
 */
static int stop_within(struct cluster *c, struct component *comp,
		       int64_t grace_ns, struct err *e)
{
	pid_t pid = component_pid(c, comp);
	struct err ignored = ERR_INIT;

	if (pid > 0 && cancelled(c->cancel, CANCEL_KILL)) {
		if (component_kill(c, comp, SIGKILL, e))
			return -1;
	} else if (pid > 0 && kill_within(c, comp, SIGTERM, grace_ns,
					  &ignored)) {
		log_warn("%s (pid %ld) did not stop on TERM: %s; killing it",
			 comp->name, (long)pid, ignored.msg);
		if (component_kill(c, comp, SIGKILL, e))
			return -1;
	}
	/* Remove the pidfile: ours is stale now, and one whose pid belongs
	 * to another program never was ours to act on. */
	if (comp->pidfile) {
		struct host *h = component_host(c, comp);

		return h->ops->remove(h, comp->pidfile, e);
	}
	return 0;
}

int component_stop(struct cluster *c, struct component *comp, struct err *e)
{
	/* Interrupted, the run must end soon: a server that ignores TERM
	 * (mariadbd does in its first moments) is not waited for long. */
	int64_t grace = cancelled(c->cancel, CANCEL_HURRY) ? STOP_GRACE_NS
							   : c->timeout_ns;

	return stop_within(c, comp, grace, e);
}

static int signal_checked(struct host *h, struct component *comp, pid_t pid,
			  int sig, int stopped, struct err *e)
{
	int64_t deadline = clock_mono_ns() + 5 * NS_PER_SEC;

	if (h->ops->signal(h, pid, sig, e))
		return -1;
	while ((h->ops->state(h, pid) == 'T') != stopped) {
		if (clock_mono_ns() >= deadline)
			return err_set(e, ERR_INFRA, "%s (pid %ld) did not "
				       "%s", comp->name, (long)pid,
				       stopped ? "stop" : "continue");
		clock_sleep_ns(5 * NS_PER_MS);
	}
	return 0;
}

int component_pause(struct cluster *c, struct component *comp, struct err *e)
{
	pid_t pid = component_pid(c, comp);

	if (pid <= 0)
		return err_set(e, ERR_INFRA, "%s is not running", comp->name);
	return signal_checked(component_host(c, comp), comp, pid, SIGSTOP, 1,
			      e);
}

int component_continue(struct cluster *c, struct component *comp,
		       struct err *e)
{
	pid_t pid = component_pid(c, comp);

	if (pid <= 0)
		return err_set(e, ERR_INFRA, "%s is not running", comp->name);
	return signal_checked(component_host(c, comp), comp, pid, SIGCONT, 0,
			      e);
}

static int all_stopped(const struct cluster *c)
{
	for (size_t i = 0; i < c->ncomps; i++)
		if (component_state(c, &c->comps[i]) != STATE_STOPPED)
			return 0;
	return 1;
}

/*
 * The kind's prepare, which may start components itself (a playground
 * does): those running after it that did not before are marked in
 * *started (one byte per component; the caller frees it), for a failed
 * up to stop.
 */
static int prepare(struct cluster *c, unsigned char **started,
		   struct err *e)
{
	char **before = xcalloc(c->ncomps + 1, sizeof(*before));
	size_t nbefore = 0;
	int rc = 0;

	*started = NULL;
	for (size_t i = 0; c->type->prepare && i < c->ncomps; i++)
		if (component_state(c, &c->comps[i]) != STATE_STOPPED)
			before[nbefore++] = xstrdup(c->comps[i].name);
	if (c->type->prepare)
		rc = c->type->prepare(c, e);
	if (!rc)
		*started = xcalloc(c->ncomps + 1, 1);
	for (size_t i = 0; !rc && c->type->prepare && i < c->ncomps; i++) {
		size_t j = 0;

		while (j < nbefore && strcmp(before[j], c->comps[i].name))
			j++;
		(*started)[i] = j == nbefore && component_state(c,
					&c->comps[i]) != STATE_STOPPED;
	}
	for (size_t j = 0; j < nbefore; j++)
		free(before[j]);
	free(before);
	return rc;
}

/*
 * The partitions' tables and classes of the components on this machine's
 * loopback (lib/netcls.h): removed; a table left is a cut an earlier run
 * left, said when `say`.
 */
static int remove_classes(struct cluster *c, int say, struct err *e)
{
	struct buf tables = BUF_INIT;
	char prefix[64];
	int any = 0, rc;

	for (size_t i = 0; i < c->ncomps; i++)
		any |= component_on_loopback(c, &c->comps[i]);
	if (!any)
		return 0;
	cluster_netcls_prefix(c, prefix, sizeof(prefix));
	rc = netcls_remove(prefix, &tables, NULL, e);
	if (say && tables.len)
		log_warn("removed a partition an earlier run left on the "
			 "loopback (nftables %s)", buf_str(&tables));
	buf_release(&tables);
	return rc;
}

int cluster_up(struct cluster *c, struct err *e)
{
	unsigned char *started;
	int rc = -1;

	if (prepare(c, &started, e))
		return -1;
	/* What a killed run's faults left (c->sweep), then the classes. */
	if ((c->sweep && c->sweep(c, e)) || remove_classes(c, 1, e))
		goto out;
	for (size_t i = 0; i < c->ncomps; i++) {
		struct component *comp = &c->comps[i];
		enum component_state state = component_state(c, comp);

		if (state == STATE_PAUSED) {
			err_set(e, ERR_INFRA, "%s is paused (SIGSTOP); continue "
				"it or run 'cluster down'", comp->name);
			goto out;
		}
		if (state == STATE_STOPPED) {
			if (spawn(c, comp, NULL, e))
				goto out;
			started[i] = 1;
		}
	}
	for (size_t i = 0; i < c->ncomps; i++)
		if (await(c, &c->comps[i], 1, 0, e))
			goto out;
	if (c->type->setup && c->type->setup(c, e))
		goto out;
	for (size_t i = 0; i < c->ncomps; i++)
		if (await(c, &c->comps[i], 0, 0, e))
			goto out;
	if (c->topology_path && topology_write(c, c->topology_path, e))
		goto out;
	rc = 0;
out:
	/* A failed up leaves things as they were: what it started, it
	 * stops (the error already names what went wrong). */
	for (size_t i = c->ncomps; rc && i-- > 0;)
		if (started[i])
			stop_within(c, &c->comps[i], STOP_GRACE_NS, NULL);
	/* Down to nothing: the kind's clean-up after a down, too. */
	if (rc && c->type->down && all_stopped(c))
		c->type->down(c, NULL);
	free(started);
	return rc;
}

int cluster_down(struct cluster *c, struct err *e)
{
	int rc = 0;

	/* Last started, first stopped: replicas before their sources. */
	for (size_t i = c->ncomps; i-- > 0;)
		if (c->comps[i].pidfile && component_stop(c, &c->comps[i], e))
			rc = -1;
	if (!rc && remove_classes(c, 0, e))
		rc = -1;
	if (!rc && c->type->down && c->type->down(c, e))
		rc = -1;
	return rc;
}

int election_prefix(const char *service, const char *cdc_cluster,
		    char *prefix, size_t size)
{
	if (!strcmp(service, "ddl"))
		snprintf(prefix, size, "/tidb/ddl/fg/owner");
	else if (!strcmp(service, "autoid"))
		snprintf(prefix, size, "tidb/autoid/leader");
	else if (!strcmp(service, "cdc"))
		snprintf(prefix, size, "/tidb/cdc/%s/__cdc_meta__/owner",
			 cdc_cluster ? cdc_cluster : "default");
	else
		return -1;
	return 0;
}

static pthread_mutex_t endpoints_lock = PTHREAD_MUTEX_INITIALIZER;

const char *cluster_etcd_url(struct cluster *c, const char *name)
{
	struct buf list = BUF_INIT;

	for (size_t i = 0; name && i < c->ncomps; i++)
		if (c->comps[i].etcd_url && !strcmp(c->comps[i].name, name))
			return c->comps[i].etcd_url;
	if (name)
		return NULL;
	pthread_mutex_lock(&endpoints_lock);
	for (size_t i = 0; !c->etcd_endpoints && i < c->ncomps; i++) {
		const struct component *comp = &c->comps[i];

		if (comp->etcd_url && (comp->roles & (ROLE_ETCD | ROLE_PD)))
			buf_printf(&list, NULL, "%s%s", list.len ? "," : "",
				   comp->etcd_url);
	}
	if (!c->etcd_endpoints && list.len)
		c->etcd_endpoints = xstrdup(buf_str(&list));
	pthread_mutex_unlock(&endpoints_lock);
	buf_release(&list);
	return c->etcd_endpoints;
}

int cluster_ticdc(const struct cluster *c)
{
	return cluster_has_api(c, ROLE_CDC);
}

const char *cluster_changefeed_id(const struct cluster *c, const char *asked)
{
	if (asked && *asked)
		return asked;
	return c->changefeed ? c->changefeed : "tichaos";
}

void url_origin(const char *url, const char *path, char *out, size_t size)
{
	const char *host = strstr(url, "://");
	const char *rest = strchr(host ? host + 3 : url, '/');

	snprintf(out, size, "%.*s%s", rest ? (int)(rest - url)
		 : (int)strlen(url), url, path ? path : "");
}

void redact_uri(const char *uri, struct buf *out)
{
	const char *scheme = strstr(uri, "://");
	const char *start = scheme ? scheme + 3 : uri;
	const char *at = strchr(start, '@'), *colon;

	buf_reset(out);
	colon = at ? memchr(start, ':', (size_t)(at - start)) : NULL;
	if (!colon) {
		buf_addstr(out, uri, NULL);
		return;
	}
	buf_add(out, uri, (size_t)(colon + 1 - uri), NULL);
	buf_addstr(out, "***", NULL);
	buf_addstr(out, at, NULL);
}
