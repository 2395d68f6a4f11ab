/*
 * The component model (clusters/cluster.h): roles, the kinds and opening
 * one, finding components by name, address and host, their classes on
 * the loopback, the elections and endpoints the components serve. What
 * is done to a component lives beside it: its pid and state (pid.c),
 * its readiness (ready.c), its replication (replica.c), starting and
 * stopping it and the whole cluster (lifecycle.c).
 */
#include "clusters/cluster.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clusters/api.h"
#include "lib/clock.h"

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
	    !strncmp(cluster, "playground:", 11) ||
	    !strncmp(cluster, "playground,", 11))
		return "playground";
	if (!strncmp(cluster, "tiup-cluster:", 13))
		return "tiup-cluster";
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

char *cluster_lock_path(const char *cluster)
{
	const struct cluster_type *t = cluster_type_of(cluster);

	return t && t->lock_path ? t->lock_path(cluster) : xstrdup(cluster);
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

/* A NULL-terminated list of strings and the list. */
static void free_list(char **list)
{
	for (char **a = list; a && *a; a++)
		free(*a);
	free(list);
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
	free_list(comp->start);
	free(comp->dir);
	free(comp->pidfile);
	free(comp->pid_command);
	free(comp->log);
	free(comp->log_pattern);
	free_list(comp->env);
	free_list(comp->logs);
	if (comp->sup) {
		free_list(comp->sup->stop);
		free_list(comp->sup->start);
		free(comp->sup);
	}
	free(comp->data_dir);
	free(comp->netns);
	free(comp->first_exit);
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
 * The first component whose SQL address, HTTP origin's or etcd URL's
 * host:port ("127.0.0.1:4000") `match`es `v`; NULL when none does.
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
		for (int u = 0; u < 2; u++) {
			const char *url = u ? comp->etcd_url : comp->http_url;

			if (!url)
				continue;
			url_origin(url, NULL, addr, sizeof(addr));
			host = strstr(addr, "://");
			if (host && match(v, host + 3))
				return comp->name;
		}
	}
	return NULL;
}

/* The port the digits after `colon` say, 0 when they are none or none
 * of 1..65535 (a URL's path may follow them). */
static int port_after(const char *colon)
{
	char *end;
	long port = strtol(colon + 1, &end, 10);

	return end > colon + 1 && (!*end || *end == '/') && port > 0 &&
	       port <= 65535 ? (int)port : 0;
}

/* The port of the HTTP origin of `comp`, 0 when it has none. */
static int http_port(const struct component *comp)
{
	char addr[300];
	const char *colon;

	if (!comp->http_url)
		return 0;
	url_origin(comp->http_url, NULL, addr, sizeof(addr));
	colon = strrchr(addr, ':');
	return colon && strstr(addr, "://") < colon ? port_after(colon) : 0;
}

/*
 * The one component that serves SQL or HTTP at `port`, whatever its
 * address; NULL when none or several do. A server advertises the address
 * it finds for itself (TiDB listening on 0.0.0.0 with no
 * advertise-address: util.GetLocalIP(), the host's first address,
 * the tidb-server command's main.go at cd9c676e9ba4), not the one a topology
 * reaches it at: the port tells it where one host holds every
 * component.
 */
static const char *by_port(const struct cluster *c, int port)
{
	const char *found = NULL;

	for (size_t i = 0; port > 0 && i < c->ncomps; i++) {
		const struct component *comp = &c->comps[i];

		if (comp->sql_port != port && http_port(comp) != port)
			continue;
		if (found)
			return NULL;
		found = comp->name;
	}
	return found;
}

/* The port of each "host:port" in `v`, tried by by_port, the first found. */
static const char *by_any_port(const struct cluster *c, const char *v)
{
	for (const char *p = strchr(v, ':'); p; p = strchr(p + 1, ':')) {
		const char *found;
		char *end;
		long port;

		if (p == v || !(isalnum((unsigned char)p[-1]) || p[-1] == ']') ||
		    !isdigit((unsigned char)p[1]))
			continue;
		port = strtol(p + 1, &end, 10);
		if (isalnum((unsigned char)*end) || port <= 0 || port > 65535)
			continue;
		if ((found = by_port(c, (int)port)))
			return found;
	}
	return NULL;
}

const char *cluster_named_by(const struct cluster *c, const char *v)
{
	const struct component *comp = cluster_find((struct cluster *)c, v);
	const char *name = comp ? comp->name
			   : component_by_addr(c, v, names_addr);

	return name ? name : by_any_port(c, v);
}

const char *cluster_component_at(const struct cluster *c, const char *addr)
{
	const char *name = component_by_addr(c, addr, is_addr);
	const char *colon = strrchr(addr, ':');

	return name ? name : colon ? by_port(c, port_after(colon)) : NULL;
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

char *component_expand(const char *text, const char *with)
{
	struct buf out = BUF_INIT;
	const char *at;

	while ((at = strstr(text, "{start}"))) {
		buf_add(&out, text, (size_t)(at - text), NULL);
		buf_addstr(&out, with, NULL);
		text = at + 7;
	}
	buf_addstr(&out, text, NULL);
	return out.len ? buf_detach(&out, NULL) : xstrdup("");
}
