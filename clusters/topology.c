/*
 * Topology files: the component list of a cluster as YAML
 * (docs/topology.md). `cluster up` writes one; `--cluster FILE` reads one.
 */
#include "clusters/cluster.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/optspec.h"
#include "lib/parse.h"
#include "lib/ynode.h"

/* "<indent>key: value" for a set value, quoted. */
static int put_at(struct buf *out, const char *indent, const char *key,
		  const char *value, struct err *e)
{
	if (!value)
		return 0;
	return buf_printf(out, e, "%s%s: ", indent, key) ||
	       ynode_quote(out, value, e) || buf_addch(out, '\n', e);
}

/* A key of a component. */
static int put(struct buf *out, const char *key, const char *value,
	       struct err *e)
{
	return put_at(out, "    ", key, value, e);
}

/* "<indent>KEY: [a, b]" for a NULL-terminated list; nothing for NULL. */
static int put_list_at(struct buf *out, const char *indent, const char *key,
		       char **list, struct err *e)
{
	int rc = 0;

	if (!list)
		return 0;
	rc = buf_printf(out, e, "%s%s: [", indent, key);
	for (char **a = list; !rc && *a; a++)
		rc = buf_addstr(out, a == list ? "" : ", ", e) ||
		     ynode_quote(out, *a, e);
	return rc || buf_addstr(out, "]\n", e);
}

/* A list of a component. */
static int put_list(struct buf *out, const char *key, char **list,
		    struct err *e)
{
	return put_list_at(out, "    ", key, list, e);
}

/* "    env: {NAME: VALUE, ...}" for "NAME=VALUE" entries. */
static int put_env(struct buf *out, char **env, struct err *e)
{
	int rc;

	if (!env)
		return 0;
	rc = buf_addstr(out, "    env: {", e);
	for (char **a = env; !rc && *a; a++) {
		const char *eq = strchr(*a, '=');

		rc = buf_printf(out, e, "%s%.*s: ", a == env ? "" : ", ",
				(int)(eq - *a), *a) ||
		     ynode_quote(out, eq + 1, e);
	}
	return rc || buf_addstr(out, "}\n", e);
}

static int put_supervisor(struct buf *out, const struct supervisor *sup,
			  struct err *e)
{
	char d[32];

	return sup && (buf_printf(out, e, "    supervisor:\n      "
				  "restart_sec: %s\n",
				  format_duration(sup->delay_ns, d,
						  sizeof(d))) ||
		       put_list_at(out, "      ", "stop", sup->stop, e) ||
		       put_list_at(out, "      ", "start", sup->start, e))
	       ? -1 : 0;
}

int topology_write(const struct cluster *c, const char *path, struct err *e)
{
	struct buf out = BUF_INIT;
	int rc;

	rc = buf_printf(&out, e, "# The cluster as tichaos sees it "
			"(docs/topology.md).\n"
			"cluster: %s\n", c->type->name);
	if (!rc && c->port_base)
		rc = buf_printf(&out, e, "port_base: %d\n", c->port_base);
	if (!rc && c->timeout_given) {
		char d[32];

		rc = buf_printf(&out, e, "timeout: %s\n",
				format_duration(c->timeout_ns, d, sizeof(d)));
	}
	if (!rc && c->changefeed)
		rc = buf_addstr(&out, "changefeed:\n  id: ", e) ||
		     ynode_quote(&out, c->changefeed, e) ||
		     buf_addch(&out, '\n', e);
	if (!rc && c->changefeed && c->sink_uri) {
		struct buf uri = BUF_INIT;

		redact_uri(c->sink_uri, &uri);
		rc = buf_addstr(&out, "  sink_uri: ", e) ||
		     ynode_quote(&out, buf_str(&uri), e) ||
		     buf_addch(&out, '\n', e);
		buf_release(&uri);
	}
	if (!rc && (c->ticdc.user || c->ticdc.keyspace))
		rc = buf_addstr(&out, "ticdc:\n", e) ||
		     put_at(&out, "  ", "user", c->ticdc.user, e) ||
		     put_at(&out, "  ", "password_env", c->ticdc.password_env,
			    e) ||
		     put_at(&out, "  ", "keyspace", c->ticdc.keyspace, e);
	if (!rc && c->nhosts)
		rc = buf_addstr(&out, "hosts:\n", e);
	for (size_t i = 0; !rc && i < c->nhosts; i++) {
		const struct host *h = &c->hosts[i];
		char d[32];

		rc = buf_addstr(&out, "  - name: ", e) ||
		     ynode_quote(&out, h->name, e) ||
		     buf_printf(&out, e, "\n    timeout: %s\n    ssh:\n"
				"      address: ", format_duration(h->timeout_ns,
							     d, sizeof(d))) ||
		     ynode_quote(&out, h->ssh.address, e) ||
		     buf_printf(&out, e, "\n      port: %d\n      user: ",
				h->ssh.port) ||
		     ynode_quote(&out, h->ssh.user, e) ||
		     buf_addch(&out, '\n', e);
		if (!rc && h->ssh.key)
			rc = buf_addstr(&out, "      key: ", e) ||
			     ynode_quote(&out, h->ssh.key, e) ||
			     buf_addch(&out, '\n', e);
		if (!rc && h->ssh.known_hosts)
			rc = buf_addstr(&out, "      known_hosts: ", e) ||
			     ynode_quote(&out, h->ssh.known_hosts, e) ||
			     buf_addch(&out, '\n', e);
		if (!rc && h->ssh.use_agent)
			rc = buf_addstr(&out, "      agent: true\n", e);
		if (!rc && h->ssh.insecure_host_key)
			rc = buf_addstr(&out, "      insecure_host_key: true\n",
					e);
	}
	rc = rc || buf_addstr(&out, "components:\n", e);
	for (size_t i = 0; !rc && i < c->ncomps; i++) {
		const struct component *comp = &c->comps[i];
		const char *sep = "";

		rc = buf_addstr(&out, "  - name: ", e) ||
		     ynode_quote(&out, comp->name, e) ||
		     buf_addstr(&out, "\n    roles: [", e);
		for (int r = 0; !rc && role_names[r]; r++) {
			if (!(comp->roles & (1u << r)))
				continue;
			rc = buf_printf(&out, e, "%s%s", sep, role_names[r]);
			sep = ", ";
		}
		rc = rc || buf_addstr(&out, "]\n", e) ||
		     put(&out, "host", comp->host, e);
		if (!rc && comp->sql_port) {
			/* The host is the file's text: quoted like it. */
			struct buf sql = BUF_INIT;

			rc = buf_printf(&sql, e, "%s:%d", comp->sql_host,
					comp->sql_port) ||
			     put(&out, "sql", buf_str(&sql), e) ||
			     put(&out, "user", comp->user, e) ||
			     put(&out, "password_env", comp->password_env, e);
			buf_release(&sql);
		}
		rc = rc || put(&out, "replicates", comp->replicates, e) ||
		     put(&out, "http_url", comp->http_url, e) ||
		     put(&out, "etcd_url", comp->etcd_url, e);
		rc = rc || put_list(&out, "start", comp->start, e) ||
		     put(&out, "dir", comp->dir, e) ||
		     put(&out, "pidfile", comp->pidfile, e) ||
		     put(&out, "pid_command", comp->pid_command, e) ||
		     (comp->status_pid && buf_addstr(&out, "    status_pid: "
						     "true\n", e)) ||
		     put(&out, "log", comp->log_pattern ? comp->log_pattern :
			 comp->log, e) ||
		     put_list(&out, "logs", comp->logs, e) ||
		     put_env(&out, comp->env, e) ||
		     put(&out, "data_dir", comp->data_dir, e) ||
		     put(&out, "netns", comp->netns, e) ||
		     put_supervisor(&out, comp->sup, e);
	}
	rc = rc || buf_write_file(&out, path, 0644, e);
	buf_release(&out);
	return rc ? -1 : 0;
}

static const char *const top_keys[] = {
	"cluster", "port_base", "timeout", "changefeed", "ticdc", "hosts",
	"components", NULL,
};

static const char *const host_keys[] = { "name", "ssh", "timeout", NULL };

static const char *const ssh_keys[] = {
	"address", "port", "user", "key", "known_hosts", "agent",
	"insecure_host_key", NULL,
};

static const char *const changefeed_keys[] = { "id", "sink_uri", NULL };

static const char *const ticdc_keys[] = {
	"user", "password_env", "keyspace", NULL,
};

static const char *const comp_keys[] = {
	"name", "roles", "host", "sql", "user", "password_env", "replicates",
	"http_url",
	"etcd_url", "start", "dir", "pidfile", "pid_command", "status_pid",
	"log", "logs", "env", "data_dir", "netns", "supervisor", NULL,
};

static const char *const supervisor_keys[] = {
	"restart_sec", "stop", "start", NULL,
};

struct reader {
	const char *file;
	char *base;		/* directory of the file, for relative paths */
	struct err *e;
	struct cluster *c;
};

static int scalar(struct reader *r, const struct ynode *n,
		  const char *what, const char **out)
{
	if (n->kind != YNODE_SCALAR)
		return ynode_error(r->e, r->file, n, "%s must be a string, not "
				  "%s", what, ynode_kind_name(n->kind));
	if (!*n->value)
		return ynode_error(r->e, r->file, n, "%s must not be empty",
				  what);
	*out = n->value;
	return 0;
}

static int string(struct reader *r, const struct ynode *map,
		  const char *key, int is_path, char **out)
{
	const struct ynode *n = ynode_get(map, key);
	const char *v;

	if (!n)
		return 0;
	if (scalar(r, n, key, &v))
		return -1;
	if (is_path && v[0] != '/') {
		*out = xprintf("%s/%s", r->base, v);
	} else {
		*out = xstrdup(v);
	}
	return 0;
}

static int read_roles(struct reader *r, const struct ynode *n,
		      unsigned *roles)
{
	if (!n)
		return 0;
	if (n->kind != YNODE_SEQ)
		return ynode_error(r->e, r->file, n, "roles must be a list, "
				  "not %s", ynode_kind_name(n->kind));
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *item = n->items[i];
		const char *v, *hint;
		unsigned role;

		if (scalar(r, item, "a role", &v))
			return -1;
		role = role_parse(v);
		if (role) {
			*roles |= role;
			continue;
		}
		hint = ynode_suggest(v, role_names);
		return ynode_error(r->e, r->file, item, "unknown role '%s'%s%s%s",
				  v, hint ? " (did you mean '" : "",
				  hint ? hint : "", hint ? "'?)" : "");
	}
	return 0;
}

/* An argv (`start`, a supervisor's `stop` and `start`): `what` names it. */
static int read_argv(struct reader *r, const struct ynode *n,
		     const char *what, char ***out)
{
	char **argv;

	if (!n)
		return 0;
	if (n->kind != YNODE_SEQ || !n->n)
		return ynode_error(r->e, r->file, n, "%s must be a non-empty "
				  "list (an argv: program and arguments)",
				  what);
	argv = xcalloc(n->n + 1, sizeof(*argv));
	*out = argv;
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *item = n->items[i];

		if (item->kind != YNODE_SCALAR)
			return ynode_error(r->e, r->file, item, "%s "
					  "arguments must be strings", what);
		argv[i] = xstrdup(item->value);
	}
	return 0;
}

/*
 * `supervisor`: what restarts the component by itself, and how it is
 * held stopped and let run. Every key is needed: tichaos waits for its
 * delay and runs its commands instead of starting a copy of its own,
 * which needs a pid source to tell the copy the supervisor started.
 */
static int read_supervisor(struct reader *r, const struct ynode *n,
			   struct component *comp)
{
	const struct ynode *d;
	struct supervisor *sup;

	if (!n)
		return 0;
	if (ynode_check_map(r->file, n, supervisor_keys, "supervisor", r->e))
		return -1;
	for (size_t i = 0; supervisor_keys[i]; i++)
		if (!ynode_get(n, supervisor_keys[i]))
			return ynode_error(r->e, r->file, n, "supervisor "
					  "needs %s", supervisor_keys[i]);
	sup = comp->sup = xcalloc(1, sizeof(*sup));
	d = ynode_get(n, "restart_sec");
	if (d->kind != YNODE_SCALAR ||
	    parse_duration(d->value, &sup->delay_ns, NULL))
		return ynode_error(r->e, r->file, d, "restart_sec must be a "
				  "duration such as 15s");
	if (read_argv(r, ynode_get(n, "stop"), "supervisor stop",
		      &sup->stop) ||
	    read_argv(r, ynode_get(n, "start"), "supervisor start",
		      &sup->start))
		return -1;
	if (comp->start)
		return ynode_error(r->e, r->file, n, "component '%s': its "
				  "supervisor starts it; give its start "
				  "there, not start", comp->name);
	if (!comp->pidfile && !comp->pid_command && !comp->status_pid)
		return ynode_error(r->e, r->file, n, "component '%s': a "
				  "supervised component needs a pid source "
				  "(pid_command, pidfile or status_pid): "
				  "its restart is told by a new pid",
				  comp->name);
	return 0;
}

/*
 * `logs`: a list of paths (one alone is a list of one), each absolute on
 * an SSH host (`remote`), else relative to the file's directory; a
 * pattern only in its last part.
 */
static int read_logs(struct reader *r, const struct ynode *n, int remote,
		     char ***out)
{
	const struct ynode *one[1] = { n };
	const struct ynode *const *items = n && n->kind == YNODE_SEQ ?
					   (const struct ynode *const *)n->items
					   : one;
	size_t count = n && n->kind == YNODE_SEQ ? n->n : 1;
	char **paths;

	if (!n)
		return 0;
	paths = xcalloc(count + 1, sizeof(*paths));
	*out = paths;
	for (size_t i = 0; i < count; i++) {
		const char *v = items[i]->value, *slash;

		if (items[i]->kind != YNODE_SCALAR || !v[0])
			return ynode_error(r->e, r->file, items[i], "logs "
					  "must be paths");
		if (remote && v[0] != '/')
			return ynode_error(r->e, r->file, items[i], "logs "
					  "must be absolute paths on an SSH "
					  "host");
		slash = strrchr(v, '/');
		if (slash && strpbrk(v, "*?[") &&
		    strpbrk(v, "*?[") < slash)
			return ynode_error(r->e, r->file, items[i], "logs: "
					  "a pattern only in the file's name, "
					  "not in '%.*s'", (int)(slash - v),
					  v);
		paths[i] = v[0] == '/' ? xstrdup(v) : xprintf("%s/%s",
							     r->base, v);
	}
	return 0;
}

/* The characters of an environment variable's name (not first a digit). */
#define VAR_NAME_CHARS \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"

/* `env`: a map of environment variables' names to their values. */
static int read_env(struct reader *r, const struct ynode *n, char ***out)
{
	char **env;

	if (!n)
		return 0;
	if (n->kind != YNODE_MAP)
		return ynode_error(r->e, r->file, n, "env must be a map of "
				  "variable names to values, not %s",
				  ynode_kind_name(n->kind));
	env = xcalloc(n->n / 2 + 1, sizeof(*env));
	*out = env;
	for (size_t i = 0; i + 1 < n->n; i += 2) {
		const struct ynode *k = n->items[i], *v = n->items[i + 1];

		if (!k->value[0] || isdigit((unsigned char)k->value[0]) ||
		    strspn(k->value, VAR_NAME_CHARS) != strlen(k->value))
			return ynode_error(r->e, r->file, k, "env: '%s' is no "
					  "variable name", k->value);
		if (v->kind != YNODE_SCALAR)
			return ynode_error(r->e, r->file, v, "env: the value "
					  "of %s must be a string", k->value);
		env[i / 2] = xprintf("%s=%s", k->value, v->value);
	}
	return 0;
}

/*
 * A `log` holding "{start}": kept as its pattern, the log before any
 * start of tichaos's its 0th, and its files collected through `logs`
 * ("{start}" as "*"). The pattern only in the file's name.
 */
static int log_pattern(struct reader *r, const struct ynode *n,
		       struct component *comp)
{
	const char *at = comp->log ? strstr(comp->log, "{start}") : NULL;
	size_t nlogs = 0;
	char *glob;

	if (!at)
		return 0;
	if (strchr(at, '/'))
		return ynode_error(r->e, r->file, ynode_get(n, "log"), "log: "
				  "{start} only in the file's name");
	comp->log_pattern = comp->log;
	comp->log = component_expand(comp->log_pattern, "0");
	glob = component_expand(comp->log_pattern, "*");
	while (comp->logs && comp->logs[nlogs])
		if (!strcmp(comp->logs[nlogs++], glob)) {
			free(glob);
			return 0;
		}
	comp->logs = xrealloc(comp->logs, (nlogs + 2) * sizeof(*comp->logs));
	comp->logs[nlogs] = glob;
	comp->logs[nlogs + 1] = NULL;
	return 0;
}

static int read_sql(struct reader *r, const struct ynode *n,
		    struct component *comp)
{
	const char *v, *colon;
	int64_t port;

	if (!n)
		return 0;
	if (scalar(r, n, "sql", &v))
		return -1;
	colon = strrchr(v, ':');
	if (!colon || colon == v ||
	    parse_int64(colon + 1, 1, 65535, &port, NULL))
		return ynode_error(r->e, r->file, n, "sql must be HOST:PORT, "
				  "not '%s'", v);
	comp->sql_host = xstrndup(v, (size_t)(colon - v));
	comp->sql_port = (int)port;
	return 0;
}

static int boolean(struct reader *r, const struct ynode *map,
		   const char *key, int *out)
{
	const struct ynode *n = ynode_get(map, key);

	if (!n)
		return 0;
	if (n->kind == YNODE_SCALAR && (!strcmp(n->value, "true") ||
					!strcmp(n->value, "false"))) {
		*out = !strcmp(n->value, "true");
		return 0;
	}
	return ynode_error(r->e, r->file, n, "%s must be true or false", key);
}

/* A path on an SSH host: absolute, since it is the remote machine's. */
static int remote_path(struct reader *r, const struct ynode *map,
		       const char *key, char **out)
{
	const struct ynode *n = ynode_get(map, key);

	if (n && n->kind == YNODE_SCALAR && n->value[0] != '/')
		return ynode_error(r->e, r->file, n, "%s must be an absolute "
				  "path on an SSH host", key);
	return string(r, map, key, 0, out);
}

/* The password is the named variable's value: the file never holds it. */
static int read_password(struct reader *r, const struct ynode *n,
			 char **env, char **password)
{
	const char *name, *value;

	if (!n)
		return 0;
	if (scalar(r, n, "password_env", &name))
		return -1;
	value = getenv(name);
	if (!value)
		return ynode_error(r->e, r->file, n, "password_env: the "
				  "environment variable '%s' is not set",
				  name);
	*env = xstrdup(name);
	*password = xstrdup(value);
	return 0;
}

/*
 * ticdc: how TiCDC's Open API is asked. The user goes in an HTTP basic
 * authentication header, which cannot hold a ':' in it; the keyspace is
 * a name as PD accepts one (namePattern in tikv/pd pkg/keyspace/util.go),
 * which needs no escaping in a query.
 */
static int read_ticdc(struct reader *r, const struct ynode *n)
{
	struct ticdc_access *a = &r->c->ticdc;
	const struct ynode *user = ynode_get(n, "user");
	const struct ynode *ks = ynode_get(n, "keyspace");
	const struct ynode *pw = ynode_get(n, "password_env");

	if (ynode_check_map(r->file, n, ticdc_keys, "ticdc", r->e) ||
	    string(r, n, "user", 0, &a->user) ||
	    string(r, n, "keyspace", 0, &a->keyspace))
		return -1;
	if (a->user && strchr(a->user, ':'))
		return ynode_error(r->e, r->file, user, "user: '%s' has a ':', "
				  "which HTTP basic authentication cannot "
				  "send", a->user);
	if (a->keyspace && (strlen(a->keyspace) > 20 ||
			    strspn(a->keyspace, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "abcdefghijklmnopqrstuvwxyz0123456789-_") !=
			    strlen(a->keyspace)))
		return ynode_error(r->e, r->file, ks, "keyspace: '%s' is not "
				  "a keyspace name (1 to 20 letters, digits, "
				  "- and _)", a->keyspace);
	if (pw && !a->user)
		return ynode_error(r->e, r->file, pw, "password_env needs the "
				  "user it is the password of");
	return read_password(r, pw, &a->password_env, &a->password);
}

static int read_component(struct reader *r, const struct ynode *n,
			  struct component *comp)
{
	const struct ynode *name = ynode_get(n, "name"), *host;
	struct err bad = ERR_INIT;
	int remote = 0, sources;

	if (ynode_check_map(r->file, n, comp_keys, "component", r->e))
		return -1;
	if (!name)
		return ynode_error(r->e, r->file, n, "component has no name");
	if (string(r, n, "name", 0, &comp->name))
		return -1;
	if (optspec_check_component(comp->name, &bad) || role_parse(comp->name))
		return ynode_error(r->e, r->file, name, "component name: %s",
				   role_parse(comp->name) ? "a role's name "
				   "cannot name one component" : bad.msg);
	if (read_roles(r, ynode_get(n, "roles"), &comp->roles) ||
	    string(r, n, "host", 0, &comp->host))
		return -1;
	host = ynode_get(n, "host");
	if (comp->host && strcmp(comp->host, "local")) {
		for (size_t i = 0; i < r->c->nhosts; i++)
			remote |= !strcmp(r->c->hosts[i].name, comp->host);
		if (!remote)
			return ynode_error(r->e, r->file, host, "unknown host "
					  "'%s' (hosts: are named under "
					  "hosts:, or 'local')", comp->host);
	}
	if (read_sql(r, ynode_get(n, "sql"), comp) ||
	    string(r, n, "user", 0, &comp->user) ||
	    read_password(r, ynode_get(n, "password_env"), &comp->password_env,
			  &comp->password) ||
	    string(r, n, "replicates", 0, &comp->replicates) ||
	    string(r, n, "http_url", 0, &comp->http_url) ||
	    string(r, n, "etcd_url", 0, &comp->etcd_url) ||
	    read_argv(r, ynode_get(n, "start"), "start", &comp->start) ||
	    read_logs(r, ynode_get(n, "logs"), remote, &comp->logs) ||
	    read_env(r, ynode_get(n, "env"), &comp->env) ||
	    string(r, n, "pid_command", 0, &comp->pid_command) ||
	    string(r, n, "netns", 0, &comp->netns) ||
	    boolean(r, n, "status_pid", &comp->status_pid))
		return -1;
	if (remote ? remote_path(r, n, "dir", &comp->dir) ||
		     remote_path(r, n, "pidfile", &comp->pidfile) ||
		     remote_path(r, n, "log", &comp->log) ||
		     remote_path(r, n, "data_dir", &comp->data_dir)
		   : string(r, n, "dir", 1, &comp->dir) ||
		     string(r, n, "pidfile", 1, &comp->pidfile) ||
		     string(r, n, "log", 1, &comp->log) ||
		     string(r, n, "data_dir", 1, &comp->data_dir))
		return -1;
	if (log_pattern(r, n, comp))
		return -1;
	sources = !!comp->pidfile + !!comp->pid_command + comp->status_pid;
	if (sources > 1)
		return ynode_error(r->e, r->file, n, "component '%s': give one "
				  "pid source (pidfile, pid_command or "
				  "status_pid), not %d", comp->name, sources);
	if (comp->status_pid && !comp->http_url)
		return ynode_error(r->e, r->file, ynode_get(n, "status_pid"),
				  "status_pid needs the component's http_url");
	return read_supervisor(r, ynode_get(n, "supervisor"), comp);
}

static int read_host(struct reader *r, const struct ynode *n, struct host *h)
{
	const struct ynode *ssh = ynode_get(n, "ssh"), *v;
	int agent = 0, insecure = 0;
	int64_t port = 22;

	if (ynode_check_map(r->file, n, host_keys, "host", r->e))
		return -1;
	if (!ynode_get(n, "name"))
		return ynode_error(r->e, r->file, n, "host has no name");
	if (string(r, n, "name", 0, &h->name))
		return -1;
	if (!strcmp(h->name, "local"))
		return ynode_error(r->e, r->file, ynode_get(n, "name"),
				  "'local' is this machine: name SSH hosts "
				  "otherwise");
	if (!ssh)
		return ynode_error(r->e, r->file, n, "host '%s' has no ssh: "
				  "mapping", h->name);
	if (ynode_check_map(r->file, ssh, ssh_keys, "ssh", r->e) ||
	    string(r, ssh, "address", 0, (char **)&h->ssh.address) ||
	    string(r, ssh, "user", 0, (char **)&h->ssh.user) ||
	    string(r, ssh, "key", 1, (char **)&h->ssh.key) ||
	    string(r, ssh, "known_hosts", 1, (char **)&h->ssh.known_hosts) ||
	    boolean(r, ssh, "agent", &agent) ||
	    boolean(r, ssh, "insecure_host_key", &insecure))
		return -1;
	v = ynode_get(ssh, "port");
	if (v && (v->kind != YNODE_SCALAR ||
		  parse_int64(v->value, 1, 65535, &port, NULL)))
		return ynode_error(r->e, r->file, v, "port must be a port "
				  "number");
	if (!h->ssh.address || !h->ssh.user)
		return ynode_error(r->e, r->file, ssh, "ssh needs an address "
				  "and a user");
	if (!h->ssh.key && !agent)
		return ynode_error(r->e, r->file, ssh, "ssh needs a key (or "
				  "agent: true)");
	host_init_ssh(h);
	h->ssh.port = (int)port;
	h->ssh.use_agent = (unsigned)agent;
	h->ssh.insecure_host_key = (unsigned)insecure;
	v = ynode_get(n, "timeout");
	if (v && (v->kind != YNODE_SCALAR ||
		  parse_duration(v->value, &h->timeout_ns, NULL) ||
		  h->timeout_ns <= 0))
		return ynode_error(r->e, r->file, v, "timeout must be a "
				  "duration such as 30s");
	return 0;
}

static int read_hosts(struct reader *r, const struct ynode *list)
{
	struct cluster *c = r->c;

	if (!list)
		return 0;
	if (list->kind != YNODE_SEQ)
		return ynode_error(r->e, r->file, list, "hosts must be a list, "
				  "not %s", ynode_kind_name(list->kind));
	c->hosts = xcalloc(list->n + 1, sizeof(*c->hosts));
	for (size_t i = 0; i < list->n; i++) {
		c->nhosts = i + 1;
		if (read_host(r, list->items[i], &c->hosts[i]))
			return -1;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(c->hosts[j].name, c->hosts[i].name))
				return ynode_error(r->e, r->file,
						  list->items[i], "duplicate "
						  "host name '%s'",
						  c->hosts[i].name);
	}
	return 0;
}

static int syntax_error(struct reader *r, const struct ynode *n)
{
	return ynode_error(r->e, r->file, n, "'%s': write ${NAME}, "
			  "${NAME:-DEFAULT} or ${NAME:+WORD} for an environment "
			  "variable, $${ for ${", n->value);
}

/*
 * The text at *pp up to `stop` ('\0', or the '}' that closes a ${...})
 * expanded into `out`, or only read through when `out` is NULL (a word
 * not taken, whose variables need not be set); *pp left at `stop`.
 */
static int expand_text(struct reader *r, const struct ynode *n,
		       const char **pp, char stop, struct buf *out)
{
	const char *p = *pp, *value;
	char name[128];
	size_t len, depth = 0;
	int set;

	/* A '{' of the text's own ({start}) is closed before the '}' that
	 * closes the word. */
	while (*p && (*p != stop || depth)) {
		if (*p == '{' || (*p == '}' && depth)) {
			depth += *p == '{' ? 1 : (size_t)-1;
			if (out)
				buf_addch(out, *p, NULL);
			p++;
			continue;
		}
		if (p[0] == '$' && p[1] == '$' && p[2] == '{') {
			if (out)
				buf_addstr(out, "${", NULL);
			p += 3;
			continue;
		}
		if (p[0] != '$' || p[1] != '{') {
			if (out)
				buf_addch(out, *p, NULL);
			p++;
			continue;
		}
		p += 2;
		len = strspn(p, VAR_NAME_CHARS);
		if (!len || len >= sizeof(name) ||
		    (p[len] != '}' && strncmp(p + len, ":-", 2) &&
		     strncmp(p + len, ":+", 2)))
			return syntax_error(r, n);
		snprintf(name, sizeof(name), "%.*s", (int)len, p);
		value = getenv(name);
		set = value && *value;
		p += len;
		if (*p == '}') {
			if (out && !set)
				return ynode_error(r->e, r->file, n, "the "
						  "environment variable '%s' "
						  "is not set (${%s:-DEFAULT} "
						  "gives a default)", name,
						  name);
			if (out)
				buf_addstr(out, value, NULL);
			p++;
			continue;
		}
		/* ":-": the value, else the word; ":+": the word when set. */
		if (p[1] == '-' && set && out)
			buf_addstr(out, value, NULL);
		p += 2;
		if (expand_text(r, n, &p, '}', (p[-1] == '-') != set ? out
						: NULL))
			return -1;
		if (*p != '}')
			return syntax_error(r, n);
		p++;
	}
	*pp = p;
	return 0;
}

/*
 * ${NAME}, ${NAME:-DEFAULT} and ${NAME:+WORD} in the scalar `n` replaced
 * as a shell expands them: the environment's value, DEFAULT when NAME is
 * unset or empty, WORD when it is set and not empty (DEFAULT and WORD
 * expanded in turn); $${ writes ${. A variable unset without a default
 * is an error at its line. *emptied: it had a variable and is empty now.
 */
static int expand_scalar(struct reader *r, struct ynode *n, int *emptied)
{
	struct buf out = BUF_INIT;
	const char *p = n->value;

	*emptied = 0;
	if (!strstr(p, "${"))
		return 0;
	if (expand_text(r, n, &p, '\0', &out)) {
		buf_release(&out);
		return -1;
	}
	/* "$${" alone writes "${": only a variable leaves nothing. */
	*emptied = !out.len;
	free(n->value);
	n->value = out.len ? buf_detach(&out, NULL) : xstrdup("");
	buf_release(&out);
	return 0;
}

/*
 * Every scalar value under `n` (not the keys of a map) expanded; in a
 * list, an item that a variable left empty is left out, as a shell
 * leaves out an unquoted expansion that is empty (an argument of a
 * `start` given only where a variable says so).
 */
static int expand(struct reader *r, struct ynode *n)
{
	int emptied;

	if (!n)
		return 0;
	if (n->kind == YNODE_SCALAR)
		return expand_scalar(r, n, &emptied);
	for (size_t i = 0; i < n->n;) {
		struct ynode *item = n->items[i];

		emptied = 0;
		/* A map's keys stay as written. */
		if ((n->kind != YNODE_MAP || i % 2) &&
		    (item && item->kind == YNODE_SCALAR
		     ? expand_scalar(r, item, &emptied) : expand(r, item)))
			return -1;
		if (emptied && n->kind == YNODE_SEQ) {
			ynode_free(item);
			memmove(n->items + i, n->items + i + 1,
				(n->n - i - 1) * sizeof(*n->items));
			n->n--;
		} else {
			i++;
		}
	}
	return 0;
}

int topology_read(struct cluster *c, const char *path, struct err *e)
{
	struct ynode *root = NULL;
	const struct ynode *list, *pb, *cf, *to;
	struct reader r = { path, NULL, e, c };
	const char *slash = strrchr(path, '/');
	char *abs;
	int rc = -1;

	r.base = slash ? xstrndup(path, (size_t)(slash - path + (slash == path)))
		       : xstrdup(".");
	/* Relative paths are the file's directory's, whatever the working
	 * directory of a process that reads them later (a data directory
	 * given as "kv0" was mounted as "./kv0", which /proc/mounts never
	 * names). */
	if ((abs = realpath(r.base, NULL))) {
		free(r.base);
		r.base = abs;
	}
	if (ynode_load_file(path, &root, e))
		goto out;
	if (!root) {
		ynode_error(e, path, NULL, "empty topology");
		goto out;
	}
	if (ynode_check_map(path, root, top_keys, "topology", e) ||
	    expand(&r, root))
		goto out;
	pb = ynode_get(root, "port_base");
	if (pb) {
		int64_t v;
		struct err local = ERR_INIT;

		if (pb->kind != YNODE_SCALAR ||
		    parse_int64(pb->value, 1, 65535, &v, &local)) {
			ynode_error(e, path, pb, "port_base must be a port "
				   "number");
			goto out;
		}
		c->port_base = (int)v;
	}
	to = ynode_get(root, "timeout");
	if (to) {
		struct err local = ERR_INIT;

		if (to->kind != YNODE_SCALAR ||
		    parse_duration(to->value, &c->timeout_ns, &local) ||
		    c->timeout_ns < NS_PER_SEC) {
			ynode_error(e, path, to, "timeout must be a duration of "
				   "1s or more (60s, 5m)");
			goto out;
		}
		c->timeout_given = 1;
	}
	cf = ynode_get(root, "changefeed");
	if (cf && (ynode_check_map(path, cf, changefeed_keys, "changefeed",
				   e) ||
		   string(&r, cf, "id", 0, &c->changefeed) ||
		   string(&r, cf, "sink_uri", 0, &c->sink_uri)))
		goto out;
	if (cf && !c->changefeed) {
		ynode_error(e, path, cf, "changefeed needs an id");
		goto out;
	}
	if (ynode_get(root, "ticdc") && read_ticdc(&r, ynode_get(root, "ticdc")))
		goto out;
	if (read_hosts(&r, ynode_get(root, "hosts")))
		goto out;
	list = ynode_get(root, "components");
	if (!list || list->kind != YNODE_SEQ || !list->n) {
		ynode_error(e, path, list ? list : root, "components must be a "
			   "non-empty list");
		goto out;
	}
	c->comps = xcalloc(list->n, sizeof(*c->comps));
	for (size_t i = 0; i < list->n; i++) {
		c->ncomps = i + 1;
		if (read_component(&r, list->items[i], &c->comps[i]))
			goto out;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(c->comps[j].name, c->comps[i].name)) {
				ynode_error(e, path, list->items[i],
					   "duplicate component name '%s'",
					   c->comps[i].name);
				goto out;
			}
	}
	for (size_t i = 0; i < c->ncomps; i++) {
		const char *src = c->comps[i].replicates;

		if (src && !cluster_find(c, src)) {
			ynode_error(e, path, ynode_get(list->items[i],
						     "replicates"),
				   "unknown component '%s'", src);
			goto out;
		}
	}
	rc = 0;
out:
	ynode_free(root);
	free(r.base);
	return rc;
}
