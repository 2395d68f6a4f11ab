/*
 * tiup-cluster:NAME — a cluster `tiup cluster deploy` made, attached to by
 * its name (docs/topology.md). What tiup keeps of it is read, nothing
 * written: $TIUP_HOME (default ~/.tiup)/storage/cluster/clusters/NAME/
 * meta.yaml, its ClusterMeta (pingcap/tiup pkg/cluster/spec/spec.go:
 * `user`, `topology` with `global` and the pd_servers, tikv_servers,
 * tidb_servers and cdc_servers lists), and the cluster's own SSH key,
 * ssh/id_rsa beside it, which tiup logs in to every host with as that
 * user. Each instance is a component on an SSH host of its address:
 *
 * - its ports and directories as tiup fills them in (pkg/cluster/spec,
 *   each server's spec: a PD's client_port 2379, TiKV's port 20160 and
 *   status_port 20180, TiDB's port 4000 and status_port 10080, TiCDC's
 *   port 8300; a deploy_dir left out is the global one's
 *   "<component>-<port>", a relative one below /home/<user>; log_dir
 *   "log" and data_dir "data" below it unless absolute);
 * - a systemd unit "<component>-<port>.service" (BaseInstance.ServiceName)
 *   with Restart=always and RestartSec=15s (embed/templates/systemd/
 *   system.service.tpl): supervised (struct component.sup) by
 *   `systemctl stop` and `start` of that unit, through `sudo -n` unless
 *   the user is root, its pid systemd's MainPID (0 when it has none);
 * - its log <log_dir>/<component>.log, and the stderr its run script
 *   appends to, <log_dir>/<component>_stderr.log.
 *
 * Host keys are checked against ~/.ssh/known_hosts, or the file that
 * TICHAOS_KNOWN_HOSTS names: tiup itself does not check them.
 */
#include "clusters/cluster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/parse.h"
#include "lib/ynode.h"

#define PREFIX "tiup-cluster:"

/* How systemd restarts every unit tiup writes (RestartSec=15s). */
#define TIUP_RESTART_NS (15 * NS_PER_SEC)

/* A kind of server in tiup's topology, and what tichaos makes of it. */
struct tiup_server {
	const char *list;	/* its list in the topology */
	const char *comp;	/* tiup's component name: units, logs */
	unsigned roles;
	const char *port_key;	/* the port its unit is named by */
	int port;
	const char *status_key;	/* its status port; NULL: none */
	int status;
};

static const struct tiup_server servers[] = {
	{ "pd_servers", "pd", ROLE_PD, "client_port", 2379, NULL, 0 },
	{ "tikv_servers", "tikv", ROLE_KV, "port", 20160, "status_port",
	  20180 },
	{ "tidb_servers", "tidb", ROLE_UPSTREAM, "port", 4000, "status_port",
	  10080 },
	{ "cdc_servers", "cdc", ROLE_CDC, "port", 8300, NULL, 0 },
};

/* What the instances share: the file, its user, its global section. */
struct meta {
	const char *file;
	const char *user;
	const struct ynode *global;
	char *key;		/* the cluster's SSH key */
};

/* `key` of instance `n` (a string), else of the global section, else
 * `dflt`; one that is not a scalar is an error at its place. */
static int text(const struct meta *m, const struct ynode *n, const char *key,
		const char *dflt, const char **out, struct err *e)
{
	const struct ynode *v = ynode_get(n, key);

	if (!v && m->global)
		v = ynode_get(m->global, key);
	if (v && v->kind != YNODE_SCALAR)
		return ynode_error(e, m->file, v, "%s must be a scalar, not "
				   "%s", key, ynode_kind_name(v->kind));
	*out = v ? v->value : dflt;
	return 0;
}

static int port(const struct meta *m, const struct ynode *n, const char *key,
		int dflt, int *out, struct err *e)
{
	const struct ynode *v = ynode_get(n, key);
	int64_t p = dflt;

	if (!v && m->global && !strcmp(key, "ssh_port"))
		v = ynode_get(m->global, key);
	if (v && (v->kind != YNODE_SCALAR ||
		  parse_int64(v->value, 1, 65535, &p, NULL)))
		return ynode_error(e, m->file, v, "%s must be a port (1 to "
				   "65535)", key);
	*out = (int)p;
	return 0;
}

/*
 * Directory `key` (deploy_dir, data_dir, log_dir) of an instance of
 * `comp` at `port`, as tiup fills it in (pkg/cluster/spec's
 * setCustomDefaults): the instance's own, absolute as it is, relative
 * below `base` (the user's home for deploy_dir, else the deploy_dir);
 * else the global one's (or `dflt`), absolute with "<comp>-<port>" below
 * it, relative below `base` (with "<comp>-<port>" too for deploy_dir).
 */
static int dir_of(const struct meta *m, const struct ynode *n,
		  const char *key, const char *dflt, const char *comp,
		  int port, const char *base, char **out, struct err *e)
{
	int own = ynode_get(n, key) != NULL;
	const char *v;

	if (text(m, n, key, dflt, &v, e))
		return -1;
	if (own)
		*out = v[0] == '/' ? xstrdup(v) : xprintf("%s/%s", base, v);
	else if (v[0] == '/' || !strcmp(key, "deploy_dir"))
		*out = xprintf("%s%s%s/%s-%d", v[0] == '/' ? "" : base,
			       v[0] == '/' ? "" : "/", v, comp, port);
	else
		*out = xprintf("%s/%s", base, v);
	return 0;
}

/* The SSH host at `address`:`ssh_port`, made on first use. */
static const char *host_at(struct cluster *c, const struct meta *m,
			   const char *address, int ssh_port)
{
	const char *known = getenv("TICHAOS_KNOWN_HOSTS");
	struct host *h;
	char *name = xprintf("%s:%d", address, ssh_port);

	for (size_t i = 0; i < c->nhosts; i++)
		if (!strcmp(c->hosts[i].name, name)) {
			free(name);
			return c->hosts[i].name;
		}
	c->hosts = xrealloc(c->hosts, (c->nhosts + 1) * sizeof(*c->hosts));
	h = &c->hosts[c->nhosts++];
	memset(h, 0, sizeof(*h));
	h->name = name;
	h->ssh.address = xstrdup(address);
	h->ssh.user = xstrdup(m->user);
	h->ssh.key = xstrdup(m->key);
	h->ssh.known_hosts = known && *known ? xstrdup(known) : NULL;
	host_init_ssh(h);
	h->ssh.port = ssh_port;
	return h->name;
}

/* argv "[sudo -n] systemctl VERB UNIT". */
static char **systemctl(const struct meta *m, const char *verb,
			const char *unit)
{
	char **argv = xcalloc(6, sizeof(*argv));
	int n = 0;

	if (strcmp(m->user, "root")) {
		argv[n++] = xstrdup("sudo");
		argv[n++] = xstrdup("-n");
	}
	argv[n++] = xstrdup("systemctl");
	argv[n++] = xstrdup(verb);
	argv[n] = xstrdup(unit);
	return argv;
}

/* Instance `n` of server kind `s`, the `index`-th of its kind. */
static int instance(struct cluster *c, const struct meta *m,
		    const struct tiup_server *s, int index,
		    const struct ynode *n, struct component *comp,
		    struct err *e)
{
	const char *address;
	int main_port, status = 0, ssh_port;
	char *unit, *home, *deploy_dir, *log_dir;
	int rc;

	if (n->kind != YNODE_MAP)
		return ynode_error(e, m->file, n, "an instance of %s must be "
				   "a mapping, not %s", s->list,
				   ynode_kind_name(n->kind));
	if (text(m, n, "host", NULL, &address, e) ||
	    port(m, n, s->port_key, s->port, &main_port, e) ||
	    (s->status_key &&
	     port(m, n, s->status_key, s->status, &status, e)) ||
	    port(m, n, "ssh_port", 22, &ssh_port, e))
		return -1;
	if (!address || !*address)
		return ynode_error(e, m->file, n, "an instance of %s needs "
				   "its host", s->list);
	home = xprintf("/home/%s", m->user);
	rc = dir_of(m, n, "deploy_dir", "deploy", s->comp, main_port, home,
		    &deploy_dir, e);
	free(home);
	if (rc)
		return -1;
	if (dir_of(m, n, "log_dir", "log", s->comp, main_port, deploy_dir,
		   &log_dir, e) ||
	    dir_of(m, n, "data_dir", "data", s->comp, main_port, deploy_dir,
		   &comp->data_dir, e)) {
		free(deploy_dir);
		return -1;
	}
	comp->name = xprintf("%s-%d", s->comp, index);
	comp->roles = s->roles;
	comp->host = xstrdup(host_at(c, m, address, ssh_port));
	comp->log = xprintf("%s/%s.log", log_dir, s->comp);
	comp->logs = xcalloc(2, sizeof(*comp->logs));
	comp->logs[0] = xprintf("%s/%s_stderr.log", log_dir, s->comp);
	if (s->roles & ROLE_PD) {
		comp->http_url = xprintf("http://%s:%d/pd/api/v1/health",
					 address, main_port);
		comp->etcd_url = xprintf("http://%s:%d", address, main_port);
	} else if (s->roles & ROLE_CDC) {
		comp->http_url = xprintf("http://%s:%d", address, main_port);
	} else {
		comp->http_url = xprintf("http://%s:%d/status", address,
					 status);
	}
	if (s->roles & ROLE_UPSTREAM) {
		comp->sql_host = xstrdup(address);
		comp->sql_port = main_port;
	}
	unit = xprintf("%s-%d.service", s->comp, main_port);
	comp->pid_command = xprintf("systemctl show -p MainPID --value %s",
				    unit);
	comp->sup = xcalloc(1, sizeof(*comp->sup));
	comp->sup->delay_ns = TIUP_RESTART_NS;
	comp->sup->stop = systemctl(m, "stop", unit);
	comp->sup->start = systemctl(m, "start", unit);
	free(unit);
	free(deploy_dir);
	free(log_dir);
	return 0;
}

/* Every instance of every kind tichaos knows, in tiup's order. */
static int instances(struct cluster *c, const struct meta *m,
		     const struct ynode *topo, struct err *e)
{
	for (size_t k = 0; k < sizeof(servers) / sizeof(servers[0]); k++) {
		const struct ynode *list = ynode_get(topo, servers[k].list);

		if (!list)
			continue;
		if (list->kind != YNODE_SEQ)
			return ynode_error(e, m->file, list, "%s must be a "
					   "list, not %s", servers[k].list,
					   ynode_kind_name(list->kind));
		c->comps = xrealloc(c->comps, (c->ncomps + list->n + 1) *
					      sizeof(*c->comps));
		memset(c->comps + c->ncomps, 0,
		       (list->n + 1) * sizeof(*c->comps));
		for (size_t i = 0; i < list->n; i++)
			if (instance(c, m, &servers[k], (int)i,
				     list->items[i], &c->comps[c->ncomps++],
				     e))
				return -1;
	}
	if (!c->ncomps)
		return err_set(e, ERR_USAGE, "%s: no PD, TiKV, TiDB or TiCDC "
			       "instance in its topology", m->file);
	return 0;
}

/* The cluster's directory in tiup's home, its name checked as tiup
 * checks one (letters, digits, - _ and .). */
static char *cluster_dir(const char *name, struct err *e)
{
	const char *home = getenv("TIUP_HOME"), *user_home = getenv("HOME");

	if (!*name || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM"
			     "NOPQRSTUVWXYZ0123456789-_.") != strlen(name) ||
	    name[0] == '.') {
		err_set(e, ERR_USAGE, "--cluster " PREFIX "%s: not a cluster "
			"name (letters, digits, - _ and .)", name);
		return NULL;
	}
	if (home && *home)
		return xprintf("%s/storage/cluster/clusters/%s", home, name);
	return xprintf("%s/.tiup/storage/cluster/clusters/%s",
		       user_home ? user_home : "", name);
}

static int read_meta(struct cluster *c, const char *name, struct err *e)
{
	struct ynode *root = NULL;
	const struct ynode *user, *topo;
	struct meta m = { 0 };
	char *file;
	int rc = -1;

	file = xprintf("%s/meta.yaml", c->dir);
	m.file = file;
	m.key = xprintf("%s/ssh/id_rsa", c->dir);
	if (ynode_load_file(file, &root, e))
		goto out;
	if (!root || root->kind != YNODE_MAP) {
		ynode_error(e, file, root, "not the meta of a tiup cluster "
			    "(a mapping with user and topology)");
		goto out;
	}
	user = ynode_get(root, "user");
	topo = ynode_get(root, "topology");
	if (!user || user->kind != YNODE_SCALAR || !*user->value ||
	    !topo || topo->kind != YNODE_MAP) {
		ynode_error(e, file, root, "cluster %s: its meta needs user "
			    "and topology", name);
		goto out;
	}
	m.user = user->value;
	m.global = ynode_get(topo, "global");
	rc = instances(c, &m, topo, e);
out:
	ynode_free(root);
	free(m.key);
	free(file);
	return rc;
}

/* A run holds the cluster by its meta.yaml. */
static char *tiup_lock_path(const char *cluster)
{
	struct err ignored = ERR_INIT;
	char *dir = cluster_dir(cluster + strlen(PREFIX), &ignored);
	char *path = dir ? xprintf("%s/meta.yaml", dir) : xstrdup(cluster);

	free(dir);
	return path;
}

static int tiup_open(struct cluster *c, const struct cluster_options *o,
		     struct err *e)
{
	const char *name = o->cluster + strlen(PREFIX);

	c->dir = cluster_dir(name, e);
	if (!c->dir || read_meta(c, name, e))
		return -1;
	/* As a topology's: every host reached now, so that a refused key
	 * or an unknown host key is the first thing said. */
	for (size_t i = 0; i < c->nhosts; i++)
		if (ssh_open(&c->hosts[i].conn, &c->hosts[i].ssh, e))
			return -1;
	return 0;
}

/* Any of its processes may end on its own (systemd restarts it). */
static const struct cluster_watcher *const watchers[] = {
	&cluster_exit_watch, NULL,
};

const struct cluster_type cluster_tiup = {
	.name = "tiup-cluster",
	.doc = "a cluster tiup cluster deployed, by its name "
	       "(--cluster tiup-cluster:NAME; its home: TIUP_HOME)",
	.open = tiup_open,
	.lock_path = tiup_lock_path,
	.watchers = watchers,
};
