/*
 * The embedded default cluster (docs/topology.md): real servers from Debian
 * packages on 127.0.0.1, all under one directory.
 *
 *   up-0    upstream            mariadbd, binlog + GTID, server_id 1
 *   down-0  downstream, cdc     mariadbd replicating from up-0 (GTID,
 *                               crash-safe, parallel apply); its applier
 *                               plays the CDC role
 *
 * Crash safety of the replica under kill -9: row changes and their GTID
 * commit together in InnoDB (mysql.gtid_slave_pos), so a restart neither
 * loses nor repeats a row. DDL is not covered: a kill right after such a
 * statement completed can leave its GTID unrecorded, the restart runs it
 * again, and partition DDL is not idempotent (REORGANIZE or REMOVE
 * PARTITIONING twice fails). That is a real failure of the replica and it
 * is shown: no error is skipped unless the suite says so
 * (cluster.local.replica_skip_errors, counted by the progress check);
 * docs/found.md has the figures.
 *
 * A suite's server options (cluster.local.upstream/downstream.options)
 * come after tichaos's own in my.cnf, so they win; server_options reports
 * what each server runs with.
 *
 * Ports: base, base+1 (SQL), base+2 (etcd client), base+3 (etcd peer),
 * held until their servers bind them (clusters/ports.h).
 * Layout of DIR: one directory per component (data/, my.cnf, log,
 * pidfile), DIR/port-base, DIR/topology.yaml.
 */
#include "clusters/local.h"
#include "clusters/ports.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/suite.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/netns.h"
#include "lib/parse.h"
#include "lib/proc.h"
#include "lib/sql.h"

/* The components: up-0, down-0, then etcd-0 .. etcd-(N-1): one member
 * on loopback, ETCD_MEMBERS on hosts (c->ncomps: 2 + members). */
enum { UP, DOWN, ETCD, MAX_COMPS = ETCD + 3 };

#define ETCD_MEMBERS 3

/* The replication account lives only on these loopback servers. */
#define REPL_USER "tichaos_repl"
#define REPL_PASSWORD "tichaos_repl"

struct local {
	char *mariadbd;
	char *install_db;
	char *etcd;
	/* The port base the directory was last prepared with, or 0. */
	int recorded_base;
	/* The suite's: errors down-0 skips; options of up-0 [0] and
	 * down-0 [1] (name, value, ..., NULL). */
	long *skip_errors;
	size_t nskip_errors;
	char **options[2];
	/* 1: each component on a host of its own (lib/netns.h), `net`;
	 * 0: all on 127.0.0.1. `why` says how that was decided. */
	int hosts;
	char why[512];
	struct netns_net net;
	/* The hosts mode the directory was last prepared with: -1 none. */
	int recorded_hosts;
	/* An sshd on each host was asked for (cluster up --sshd). */
	int sshd;
	/* The ports of 127.0.0.1 held for the cluster (clusters/ports.h):
	 * an auto block from its choice, a stopped server's from prepare
	 * until just before it starts, the rest until setup. */
	struct port_block held;
};

static const char *const host_names[] = {
	"up-0", "down-0", "etcd-0", "etcd-1", "etcd-2", NULL,
};

/* etcd member `m`'s client and peer ports: N+2, N+3, then 2 more each. */
static int etcd_port(const struct cluster *c, int m, int peer)
{
	return c->port_base + 2 + 2 * m + peer;
}

/* A cluster of another's hosts has the tag of base `base` (lib/netns.h). */
static int hosts_taken(int base)
{
	return netns_owner(base, NULL, 0);
}

/* The ports on 127.0.0.1 of component `i` (UP, DOWN, ETCD + m) into
 * ports[2], 0 for none; on hosts of their own, none. */
static void loopback_ports(const struct cluster *c, int i, int ports[2])
{
	const struct local *l = c->priv;

	ports[0] = l->hosts ? 0 : c->comps[i].sql_port;
	ports[1] = 0;
	if (!l->hosts && i >= ETCD) {
		ports[0] = etcd_port(c, i - ETCD, 0);
		ports[1] = etcd_port(c, i - ETCD, 1);
	}
}

static int read_recorded_base(const char *dir)
{
	char *path = xprintf("%s/port-base", dir);
	struct buf text = BUF_INIT;
	int64_t v = 0;

	if (!buf_read_file(&text, path, NULL)) {
		buf_rtrim(&text);
		if (parse_int64(buf_str(&text), 1, 65535, &v, NULL))
			v = 0;
	}
	buf_release(&text);
	free(path);
	return (int)v;
}

/* The address of component `i` (UP, DOWN, ETCD): its host's, or
 * loopback. */
static const char *address_of(const struct local *l, int i)
{
	return l->hosts ? l->net.hosts[i].addr : "127.0.0.1";
}

/* Its host's namespace, or NULL. */
static char *netns_of(const struct local *l, int i)
{
	return l->hosts ? xstrdup(l->net.hosts[i].ns) : NULL;
}

static void fill_mariadb(struct cluster *c, struct component *comp,
			 const char *name, unsigned roles, int port,
			 const char *mariadbd)
{
	struct local *l = c->priv;
	int i = comp - c->comps;
	char *cnf = xprintf("--defaults-file=%s/%s/my.cnf", c->dir, name);
	const char *argv[] = { mariadbd, cnf, NULL };

	comp->name = xstrdup(name);
	comp->roles = roles;
	comp->host = xstrdup("local");
	comp->netns = netns_of(l, i);
	comp->sql_host = xstrdup(address_of(l, i));
	comp->sql_port = port;
	comp->user = xstrdup("root");
	comp->start = argv_dup(argv);
	comp->dir = xprintf("%s/%s", c->dir, name);
	comp->pidfile = xprintf("%s/%s/tichaos.pid", c->dir, name);
	comp->log = xprintf("%s/%s/mariadbd.log", c->dir, name);
	comp->data_dir = xprintf("%s/%s/data", c->dir, name);
	free(cnf);
}

/* "etcd-0=http://A:P,etcd-1=...": every member's peer URL. */
static char *initial_cluster(const struct cluster *c)
{
	const struct local *l = c->priv;
	struct buf b = BUF_INIT;

	for (size_t m = 0; m + ETCD < c->ncomps; m++)
		buf_printf(&b, NULL, "%setcd-%zu=http://%s:%d", m ? "," : "",
			   m, address_of(l, ETCD + (int)m),
			   etcd_port(c, (int)m, 1));
	return buf_detach(&b, NULL);
}

static void fill_etcd(struct cluster *c, struct component *comp, int m,
		      const char *etcd)
{
	struct local *l = c->priv;
	const char *addr = address_of(l, ETCD + m);
	char *name = xprintf("etcd-%d", m);
	char *client = xprintf("http://%s:%d", addr, etcd_port(c, m, 0));
	char *peer = xprintf("http://%s:%d", addr, etcd_port(c, m, 1));
	char *initial = initial_cluster(c);
	char *token = xprintf("tichaos-%d", c->port_base);
	char *data = xprintf("%s/%s/data", c->dir, name);
	const char *argv[] = {
		etcd, "--name", name, "--data-dir", data,
		"--listen-client-urls", client,
		"--advertise-client-urls", client,
		"--listen-peer-urls", peer,
		"--initial-advertise-peer-urls", peer,
		"--initial-cluster", initial,
		"--initial-cluster-token", token,
		"--logger", "zap", "--log-outputs", "stderr",
		NULL,
	};

	comp->name = name;
	comp->roles = ROLE_ETCD;
	comp->host = xstrdup("local");
	comp->netns = netns_of(l, ETCD + m);
	comp->etcd_url = client;
	comp->start = argv_dup(argv);
	comp->dir = xprintf("%s/%s", c->dir, name);
	comp->pidfile = xprintf("%s/%s/tichaos.pid", c->dir, name);
	comp->log = xprintf("%s/%s/etcd.log", c->dir, name);
	comp->data_dir = data;
	free(peer);
	free(initial);
	free(token);
}

/* The hosts mode DIR/hosts records: 1 on, 0 off, -1 none. */
static int read_recorded_hosts(const char *dir)
{
	char *path = xprintf("%s/hosts", dir);
	struct buf text = BUF_INIT;
	int v = -1;

	if (!buf_read_file(&text, path, NULL)) {
		buf_rtrim(&text);
		v = !strcmp(buf_str(&text), "on") ? 1
		    : !strcmp(buf_str(&text), "off") ? 0 : -1;
	}
	buf_release(&text);
	free(path);
	return v;
}

static void fill_all(struct cluster *c)
{
	struct local *l = c->priv;
	const char *mariadbd = l->mariadbd ? l->mariadbd : "mariadbd";

	netns_plan(&l->net, c->port_base, host_names);
	snprintf(l->net.owner, sizeof(l->net.owner), "%s", c->dir);
	fill_mariadb(c, &c->comps[UP], "up-0", ROLE_UPSTREAM, c->port_base,
		     mariadbd);
	fill_mariadb(c, &c->comps[DOWN], "down-0", ROLE_DOWNSTREAM | ROLE_CDC,
		     c->port_base + 1, mariadbd);
	c->comps[DOWN].replicates = xstrdup("up-0");
	c->ncomps = ETCD + (l->hosts ? ETCD_MEMBERS : 1);
	for (int m = 0; ETCD + m < (int)c->ncomps; m++)
		fill_etcd(c, &c->comps[ETCD + m], m, l->etcd ? l->etcd
							     : "etcd");
}

/* What was asked of the hosts: `asked`, else TICHAOS_HOSTS, else
 * auto. */
static int hosts_asked(enum hosts_mode asked, enum hosts_mode *mode,
		       struct err *e)
{
	const char *env = getenv("TICHAOS_HOSTS");

	*mode = asked;
	if (*mode != HOSTS_DEFAULT)
		return 0;
	if (!env || !*env) {
		*mode = HOSTS_AUTO;
		return 0;
	}
	*mode = hosts_mode_parse(env);
	if (*mode == HOSTS_DEFAULT)
		return err_set(e, ERR_USAGE, "TICHAOS_HOSTS: expected on, off "
			       "or auto, not '%s'", env);
	return 0;
}

/* Hosts or loopback for a cluster that is not running; `env`: the mode
 * is TICHAOS_HOSTS's. */
static void choose_hosts(struct cluster *c, enum hosts_mode mode, int env)
{
	struct local *l = c->priv;
	struct err why = ERR_INIT;

	l->hosts = mode != HOSTS_OFF;
	if (mode != HOSTS_AUTO)
		snprintf(l->why, sizeof(l->why), env ? "TICHAOS_HOSTS is %s"
			 : "hosts %s was asked for", l->hosts ? "on" : "off");
	else if (!netns_usable(c->port_base, &why))
		snprintf(l->why, sizeof(l->why), "network namespaces can be "
			 "made here");
	else {
		l->hosts = 0;
		snprintf(l->why, sizeof(l->why), "network namespaces cannot "
			 "be made here: %s", why.msg);
	}
}

static int local_open(struct cluster *c, const struct cluster_options *o,
		      struct err *e)
{
	struct local *l = xcalloc(1, sizeof(*l));
	const struct local_suite *suite = o->section;
	const char *dir = o->dir ? o->dir : "cluster";
	enum hosts_mode asked = o->hosts, mode;
	int running = 0;

	c->priv = l;
	l->sshd = o->sshd;
	port_block_init(&l->held, 0);
	if (strlen(dir) > 200)
		return err_set(e, ERR_USAGE, "cluster directory '%s' is too "
			       "long (at most 200 bytes)", dir);
	/* The command line, else the suite, else TICHAOS_HOSTS. */
	if (asked == HOSTS_DEFAULT && suite)
		asked = suite->hosts;
	if (hosts_asked(asked, &mode, e))
		return -1;
	c->dir = absolute_dir(dir);
	c->topology_path = xprintf("%s/topology.yaml", c->dir);
	if (suite && suite->nskip_errors) {
		l->skip_errors = xcalloc(suite->nskip_errors,
					sizeof(*l->skip_errors));
		memcpy(l->skip_errors, suite->skip_errors,
		       suite->nskip_errors * sizeof(*l->skip_errors));
		l->nskip_errors = suite->nskip_errors;
		c->skip_errors = l->skip_errors;
		c->nskip_errors = l->nskip_errors;
	}
	for (int side = 0; suite && side < 2; side++)
		if (suite->options[side])
			l->options[side] = argv_dup((const char **)
						    suite->options[side]);
	l->recorded_base = read_recorded_base(c->dir);
	l->recorded_hosts = read_recorded_hosts(c->dir);
	l->mariadbd = find_program("mariadbd");
	l->install_db = find_program("mariadb-install-db");
	l->etcd = find_program("etcd");

	c->port_base = l->recorded_base ? l->recorded_base : DEFAULT_PORT_BASE;
	c->comps = xcalloc(MAX_COMPS, sizeof(*c->comps));
	/* First as recorded, to see whether it is running. */
	l->hosts = l->recorded_hosts == 1;
	fill_all(c);
	for (size_t i = 0; i < c->ncomps; i++)
		if (component_state(c, &c->comps[i]) != STATE_STOPPED)
			running = 1;
	if (running) {
		if (o->port_base > 0 && o->port_base != c->port_base)
			return err_set(e, ERR_USAGE, "the cluster in '%s' is "
				       "running with port base %d; run "
				       "'cluster down' first", c->dir,
				       c->port_base);
		/* TICHAOS_HOSTS is a default: what runs wins over it. */
		if ((asked == HOSTS_ON && !l->hosts) ||
		    (asked == HOSTS_OFF && l->hosts))
			return err_set(e, ERR_USAGE, "the cluster in '%s' is "
				       "running with hosts %s; run 'cluster "
				       "down' first", c->dir,
				       l->hosts ? "on" : "off");
		snprintf(l->why, sizeof(l->why), "as it runs");
	} else {
		if (o->port_base > 0)
			c->port_base = o->port_base;
		else if (o->port_base < 0) {
			/* Nor the tag of another cluster's hosts. */
			if (port_block_auto(&l->held, hosts_taken, e))
				return -1;
			c->port_base = l->held.base;
		}
		choose_hosts(c, mode, asked == HOSTS_DEFAULT);
		for (size_t i = 0; i < c->ncomps; i++)
			component_release(&c->comps[i]);
		fill_all(c);
	}
	if (l->sshd && !l->hosts)
		return err_set(e, ERR_USAGE, "--sshd needs hosts of their own "
			       "(%s)", l->why);
	return 0;
}

static int make_dir(const char *path, struct err *e)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		return err_errno(e, errno, "cannot create '%s'", path);
	return 0;
}

static int write_text(const char *path, const struct buf *text,
		      struct err *e)
{
	return buf_write_file(text, path, 0644, e);
}

static const char *run_as_user(void)
{
	struct passwd *pw = getpwuid(geteuid());

	return pw ? pw->pw_name : "root";
}

static int write_config(struct cluster *c, const struct component *comp,
			int server_id, struct err *e)
{
	struct local *l = c->priv;
	struct buf cnf = BUF_INIT;
	char *path = xprintf("%s/my.cnf", comp->dir);
	int rc, side;

	rc = buf_printf(&cnf, e,
		"# written by tichaos cluster up; rewritten at every start\n"
		"[mariadbd]\n"
		"datadir=%s\n"
		"port=%d\n"
		"bind-address=%s\n"
		"socket=%s/mariadbd.sock\n"
		"tmpdir=%s/tmp\n"
		"pid-file=%s/mariadbd.pid\n"
		"log-error=%s\n"
		"user=%s\n"
		"skip-name-resolve\n"
		"server-id=%d\n"
		"innodb-buffer-pool-size=128M\n"
		"innodb-log-file-size=16M\n"
		"innodb-flush-log-at-trx-commit=2\n"
		"performance-schema=OFF\n"
		"max-connections=1000\n"
		"character-set-server=utf8mb4\n",
		comp->data_dir, comp->sql_port, comp->sql_host, comp->dir,
		comp->dir, comp->dir, comp->log, run_as_user(), server_id);
	/* On a host of its own, root comes from the bridge's address. */
	if (!rc && l->hosts)
		rc = buf_printf(&cnf, e, "init-file=%s/init.sql\n", comp->dir);
	if (!rc && server_id == 1)
		rc = buf_addstr(&cnf,
			"log-bin=binlog\n"
			"binlog-format=ROW\n"
			"gtid-strict-mode=ON\n"
			"sync-binlog=0\n", e);
	if (!rc && server_id != 1)
		rc = buf_addstr(&cnf,
			"relay-log=relay-bin\n"
			"relay-log-recovery=ON\n"
			"slave-parallel-threads=4\n"
			"slave-parallel-mode=optimistic\n"
			"slave-net-timeout=10\n"
			"gtid-pos-auto-engines=InnoDB\n", e);
	side = server_id == 1 ? 0 : 1;
	if (!rc && side && l->nskip_errors) {
		rc = buf_addstr(&cnf, "# the suite's replica_skip_errors\n"
				"slave-skip-errors=", e);
		for (size_t i = 0; !rc && i < l->nskip_errors; i++)
			rc = buf_printf(&cnf, e, "%s%ld", i ? "," : "",
					l->skip_errors[i]);
		rc = rc || buf_addch(&cnf, '\n', e);
	}
	if (!rc && l->options[side] && l->options[side][0])
		rc = buf_printf(&cnf, e, "# the suite's options "
				"(cluster.local.%s)\n",
				side ? "downstream" : "upstream");
	for (char **o = l->options[side]; !rc && o && o[0]; o += 2)
		rc = buf_printf(&cnf, e, "%s=%s\n", o[0], o[1]);
	rc = rc || write_text(path, &cnf, e);
	buf_release(&cnf);
	free(path);
	if (!rc && l->hosts) {
		/* Not in the binlog: each server grants it on its own. */
		path = xprintf("%s/init.sql", comp->dir);
		rc = buf_printf(&cnf, e, "SET sql_log_bin = 0;\n"
				"CREATE USER IF NOT EXISTS 'root'@'%s';\n"
				"GRANT ALL PRIVILEGES ON *.* TO 'root'@'%s' "
				"WITH GRANT OPTION;\n", l->net.gateway,
				l->net.gateway) ||
		     write_text(path, &cnf, e);
		buf_release(&cnf);
		free(path);
	}
	return rc ? -1 : 0;
}

/*
 * Wait for mariadb-install-db: its exit code, or -1 after 120 s or once
 * the runner is interrupted (the caller kills it).
 */
static int install_wait(struct cluster *c, struct proc *p, struct err *e)
{
	int64_t deadline = clock_mono_ns() + 120 * NS_PER_SEC;

	for (;;) {
		struct err slice = ERR_INIT;
		int code = proc_wait(p, 100 * NS_PER_MS, &slice);

		if (code >= 0)
			return code;
		if (cluster_interrupted(c))
			return err_set(e, ERR_INTERRUPTED, "interrupted while "
				       "initialising the cluster");
		if (clock_mono_ns() >= deadline)
			return err_set(e, slice.class, "%s", slice.msg);
	}
}

/*
 * Initialise the data directories that do not exist yet, in parallel.
 * Each is created under a temporary name and renamed when complete, so an
 * interrupted initialisation is redone, never half-used.
 */
static int install_data(struct cluster *c, struct local *l, struct err *e)
{
	struct proc procs[2] = { PROC_INIT, PROC_INIT };
	char *tmp[2] = { NULL, NULL }, *logs[2] = { NULL, NULL };
	char *datadir_opt[2] = { NULL, NULL }, *user_opt = NULL;
	char *tmpdir_opt[2] = { NULL, NULL };
	const char *argv[2][8];
	int rc = 0;

	user_opt = xprintf("--user=%s", run_as_user());
	for (int i = 0; i < 2; i++) {
		struct component *comp = &c->comps[i == 0 ? UP : DOWN];
		struct stat st;

		if (!stat(comp->data_dir, &st))
			continue;
		tmp[i] = xprintf("%s.init", comp->data_dir);
		logs[i] = xprintf("%s/install-db.log", comp->dir);
		datadir_opt[i] = xprintf("--datadir=%s", tmp[i]);
		/* Bootstraps running side by side collide on temporary
		 * table names in a shared tmpdir. */
		tmpdir_opt[i] = xprintf("--tmpdir=%s/tmp", comp->dir);
		if (proc_remove_tree(tmp[i], e)) {
			rc = -1;
			break;
		}
		argv[i][0] = l->install_db;
		argv[i][1] = "--no-defaults";
		argv[i][2] = datadir_opt[i];
		argv[i][3] = "--auth-root-authentication-method=normal";
		argv[i][4] = "--skip-test-db";
		argv[i][5] = user_opt;
		argv[i][6] = tmpdir_opt[i];
		argv[i][7] = NULL;
		procs[i].argv = argv[i];
		procs[i].out = logs[i];
		procs[i].append = 1;
		procs[i].err_to_out = 1;
		/* Its own process group: the mariadbd it starts goes with
		 * it when it has to be killed. */
		procs[i].new_session = 1;
		log_info("initialising %s in '%s'", comp->name,
			 comp->data_dir);
		if (proc_start(&procs[i], e)) {
			rc = -1;
			break;
		}
	}
	for (int i = 0; i < 2; i++) {
		struct component *comp = &c->comps[i == 0 ? UP : DOWN];
		int code;

		if (!procs[i].pid)
			continue;
		code = install_wait(c, &procs[i], e);
		if (code < 0) {
			kill(-procs[i].pid, SIGKILL);
			proc_wait(&procs[i], -1, NULL);
			rc = -1;
		} else if (code != 0) {
			rc = err_set(e, ERR_INFRA, "%s: mariadb-install-db "
				     "failed with exit code %d (see '%s')",
				     comp->name, code, logs[i]);
		} else if (!rc && rename(tmp[i], comp->data_dir)) {
			rc = err_errno(e, errno, "cannot rename '%s'", tmp[i]);
		}
	}
	for (int i = 0; i < 2; i++) {
		free(tmp[i]);
		free(logs[i]);
		free(datadir_opt[i]);
		free(tmpdir_opt[i]);
	}
	free(user_opt);
	return rc;
}

/* Is `name` one of the `  --name...` lines of mariadbd's help? */
static int in_help(const char *help, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = strstr(help, "\n  --"); p;
	     p = strstr(p + 1, "\n  --"))
		if (!strncmp(p + 5, name, n) && strchr("[= \n", p[5 + n]))
			return 1;
	return 0;
}

/*
 * The suite's option names must be mariadbd's (`--verbose --help` lists
 * them, '_' read as '-'; "loose-" asks for none, "skip-", "enable-" and
 * "disable-" prefix a boolean): refused by name before anything starts,
 * not found in a server log after a failed start.
 */
static int check_options(const struct local *l, struct err *e)
{
	static const char *const prefixes[] = {
		"", "skip-", "enable-", "disable-", NULL,
	};
	const char *argv[] = { l->mariadbd, "--no-defaults", "--verbose",
			       "--help", NULL };
	struct buf help = BUF_INIT;
	int rc = 0;

	if (!l->options[0] && !l->options[1])
		return 0;
	if (proc_capture(argv, &help, NULL, 30 * NS_PER_SEC, e) < 0)
		return -1;
	for (int side = 0; !rc && side < 2; side++)
		for (char **o = l->options[side]; !rc && o && o[0]; o += 2) {
			char name[80];
			int known = 0;
			size_t i;

			for (i = 0; o[0][i] && i + 1 < sizeof(name); i++)
				name[i] = o[0][i] == '_' ? '-' : o[0][i];
			name[i] = '\0';
			for (int p = 0; prefixes[p] && !known; p++)
				known = !strncmp(name, prefixes[p],
						 strlen(prefixes[p])) &&
					in_help(buf_str(&help),
						name + strlen(prefixes[p]));
			if (!known && strncmp(name, "loose-", 6))
				rc = err_set(e, ERR_USAGE, "cluster.local.%s "
					     "option '%s' is not an option of "
					     "%s (see '%s --verbose --help')",
					     side ? "downstream" : "upstream",
					     o[0], l->mariadbd, l->mariadbd);
		}
	buf_release(&help);
	return rc;
}

/*
 * The hosts: made when nothing runs (whatever an earlier run left of
 * them removed first, and said), else checked (cluster_up removes the
 * cuts an earlier run left). Then which hosts they are, and why.
 */
static int make_hosts(struct cluster *c, struct err *e)
{
	struct local *l = c->priv;
	struct buf found = BUF_INIT, line = BUF_INIT;
	int running = 0, rc = 0;

	for (size_t i = 0; i < c->ncomps; i++)
		running |= component_state(c, &c->comps[i]) != STATE_STOPPED;
	if (!running) {
		rc = netns_remove(c->port_base, c->dir, &found, e);
		/* Another cluster's hosts of the same tag: not ours to
		 * remove, and in the way only of hosts of our own. */
		if (rc == 1 && !l->hosts) {
			err_clear(e);
			rc = 0;
		}
		if (found.len)
			log_warn("removed what an earlier cluster in '%s' left "
				 "of its hosts: %s", c->dir, buf_str(&found));
		rc = rc || (l->hosts && netns_make(&l->net, e));
	} else if (l->hosts && netns_present(&l->net, e) != 1) {
		rc = err_isset(e) ? -1 : err_set(e, ERR_INFRA, "the hosts of "
						 "the cluster in '%s' are "
						 "gone; run 'cluster down'",
						 c->dir);
	}
	if (!rc && l->hosts) {
		for (size_t i = 0; i < l->net.nhosts; i++)
			buf_printf(&line, NULL, "%s %s %s", i ? "," : "",
				   l->net.hosts[i].name, l->net.hosts[i].addr);
		log_info("hosts: one network namespace per component, on "
			 "bridge %s (%s/%d):%s (%s)", l->net.bridge,
			 l->net.gateway, l->net.prefix_len, buf_str(&line),
			 l->why);
	} else if (!rc) {
		log_info("hosts: none, every component on 127.0.0.1 (%s)",
			 l->why);
	}
	buf_release(&found);
	buf_release(&line);
	return rc ? -1 : 0;
}

static int local_prepare(struct cluster *c, struct err *e)
{
	struct local *l = c->priv;
	struct buf text = BUF_INIT;
	char *path;
	int rc;

	if (!l->mariadbd || !l->install_db)
		return err_set(e, ERR_INFRA, "mariadbd not found (install "
			       "mariadb-server, or run 'make deps')");
	if (!l->etcd)
		return err_set(e, ERR_INFRA, "etcd not found (install "
			       "etcd-server, or run 'make deps')");
	if (check_options(l, e))
		return -1;
	/* The stopped servers' ports are held until they start (on hosts
	 * of their own, the ports are theirs): another's server taking one
	 * after this check fails, not ours. */
	if (!l->held.base)
		port_block_init(&l->held, c->port_base);
	for (int i = 0; i < (int)c->ncomps; i++) {
		struct component *comp = &c->comps[i];
		int ports[2];

		if (component_state(c, comp) != STATE_STOPPED)
			continue;
		loopback_ports(c, i, ports);
		for (int p = 0; p < 2 && ports[p]; p++) {
			rc = port_block_hold(&l->held, ports[p] - c->port_base,
					     e);
			if (rc < 0)
				return -1;
			if (rc)
				return err_set(e, ERR_INFRA, "port %d of %s is "
					       "already in use (choose another "
					       "--port-base)", ports[p],
					       comp->name);
		}
	}
	if (make_dir(c->dir, e))
		return -1;
	for (size_t i = 0; i < c->ncomps; i++) {
		char *tmp = xprintf("%s/tmp", c->comps[i].dir);
		int bad = make_dir(c->comps[i].dir, e) || make_dir(tmp, e);

		free(tmp);
		if (bad)
			return -1;
	}
	/* etcd keeps its members' peer URLs in its data: a new port base or
	 * new hosts need new members. Its data are only elections, so
	 * nothing is lost. */
	for (size_t i = ETCD; i < c->ncomps; i++)
		if (((l->recorded_base && l->recorded_base != c->port_base) ||
		     (l->recorded_hosts >= 0 &&
		      l->recorded_hosts != l->hosts)) &&
		    proc_remove_tree(c->comps[i].data_dir, e))
			return -1;
	if (write_config(c, &c->comps[UP], 1, e) ||
	    write_config(c, &c->comps[DOWN], 2, e) ||
	    install_data(c, l, e) || make_hosts(c, e))
		return -1;
	path = xprintf("%s/port-base", c->dir);
	rc = buf_printf(&text, e, "%d\n", c->port_base) ||
	     write_text(path, &text, e);
	free(path);
	buf_reset(&text);
	path = xprintf("%s/hosts", c->dir);
	rc = rc || buf_printf(&text, e, "%s\n", l->hosts ? "on" : "off") ||
	     write_text(path, &text, e);
	free(path);
	buf_release(&text);
	if (!rc) {
		l->recorded_base = c->port_base;
		l->recorded_hosts = l->hosts;
	}
	/* cluster_up starts the stopped servers next: theirs to bind. */
	for (int i = 0; !rc && i < (int)c->ncomps; i++) {
		int ports[2];

		loopback_ports(c, i, ports);
		for (int p = 0; p < 2 && ports[p]; p++)
			port_block_release(&l->held, ports[p] - c->port_base);
	}
	return rc ? -1 : 0;
}


static int local_setup(struct cluster *c, struct err *e)
{
	struct local *l = c->priv;
	struct component *up = &c->comps[UP], *down = &c->comps[DOWN];
	struct sql s = SQL_INIT;
	struct sql_result r = SQL_RESULT_INIT;
	struct buf q = BUF_INIT;
	const char *port, *host, *using;
	int64_t port_now = 0;
	int rc;

	/* Every server listens: its ports are its own to keep. */
	port_block_release(&l->held, -1);
	/* The replica connects from its own address. */
	rc = sql_connect(&s, up->sql_host, up->sql_port, "root", NULL, NULL,
			 10, e) ||
	     buf_printf(&q, e, "CREATE USER IF NOT EXISTS '" REPL_USER "'@'%s' "
			"IDENTIFIED BY '" REPL_PASSWORD "'", down->sql_host) ||
	     sql_exec(&s, buf_str(&q), e);
	buf_reset(&q);
	rc = rc || buf_printf(&q, e, "GRANT REPLICATION SLAVE ON *.* TO '"
			      REPL_USER "'@'%s'", down->sql_host) ||
	     sql_exec(&s, buf_str(&q), e);
	buf_reset(&q);
	sql_close(&s);
	if (rc)
		return -1;
	if (sql_connect(&s, down->sql_host, down->sql_port, "root", NULL,
			NULL, 10, e) ||
	    sql_query(&s, "SHOW SLAVE STATUS", &r, e))
		goto out;
	port = sql_cell(&r, 0, "Master_Port");
	host = sql_cell(&r, 0, "Master_Host");
	using = sql_cell(&r, 0, "Using_Gtid");
	if (port && !parse_int64(port, 0, 65535, &port_now, NULL) &&
	    port_now == up->sql_port && host && !strcmp(host, up->sql_host) &&
	    using &&
	    !strcmp(using, "Slave_Pos")) {
		rc = 0;
		goto out;
	}
	log_info("pointing %s's replication at %s:%d", down->name,
		 up->sql_host, up->sql_port);
	rc = buf_printf(&q, e, "CHANGE MASTER TO MASTER_HOST='%s', "
			"MASTER_PORT=%d, MASTER_USER='" REPL_USER "', "
			"MASTER_PASSWORD='" REPL_PASSWORD "', "
			"MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1",
			up->sql_host, up->sql_port) ||
	     sql_exec(&s, "STOP SLAVE", e) ||
	     sql_exec(&s, buf_str(&q), e) ||
	     sql_exec(&s, "START SLAVE", e);
out:
	if (err_isset(e))
		rc = -1;
	sql_result_release(&r);
	sql_close(&s);
	buf_release(&q);
	return rc || (l->sshd && local_sshd_up(c, &l->net, e)) ? -1 : 0;
}

/*
 * The options of a my.cnf's [mariadbd] section into `configured` (a bare
 * option is "ON"), and each one's value in the running server's SHOW
 * GLOBAL VARIABLES into `effective` (null when it is no variable).
 */
static int server_options(const struct component *comp,
			  json_t *configured, json_t *effective,
			  struct err *e)
{
	char *path = xprintf("%s/my.cnf", comp->dir);
	struct buf text = BUF_INIT;
	struct sql s = SQL_INIT;
	struct sql_result r = SQL_RESULT_INIT;
	char *line, *next;
	int rc;

	rc = buf_read_file(&text, path, e) ||
	     component_connect(comp, &s, NULL, 10, e) ||
	     sql_query(&s, "SHOW GLOBAL VARIABLES", &r, e);
	for (line = rc ? NULL : text.data; line; line = next) {
		char *eq, var[80];
		const char *value = NULL;
		size_t i;

		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		if (!line[0] || line[0] == '#' || line[0] == '[')
			continue;
		eq = strchr(line, '=');
		if (eq)
			*eq = '\0';
		json_object_set_new(configured, line, json_string(eq ? eq + 1
								   : "ON"));
		for (i = 0; line[i] && i + 1 < sizeof(var); i++)
			var[i] = line[i] == '-' ? '_' : line[i];
		var[i] = '\0';
		for (size_t row = 0; row < r.nrows; row++) {
			const char *name = sql_cell(&r, row, "Variable_name");

			if (name && !strcmp(name, var))
				value = sql_cell(&r, row, "Value");
		}
		json_object_set_new(effective, line, value ? json_string(value)
							   : json_null());
	}
	sql_result_release(&r);
	sql_close(&s);
	buf_release(&text);
	free(path);
	return rc ? -1 : 0;
}

static int local_server_options(struct cluster *c, json_t **out,
				struct err *e)
{
	*out = json_object();
	for (size_t i = 0; i < c->ncomps; i++) {
		const struct component *comp = &c->comps[i];
		json_t *configured = json_object(), *effective = json_object();

		if (!comp->sql_port) {
			json_decref(configured);
			json_decref(effective);
			continue;
		}
		json_object_set_new(*out, comp->name, json_pack(
			"{s:o, s:o}", "configured", configured,
			"effective", effective));
		if (server_options(comp, configured, effective, e))
			return -1;
	}
	return 0;
}

/* Every server is stopped: their hosts go, sshd, cuts and all. */
static int local_down(struct cluster *c, struct err *e)
{
	struct local *l = c->priv;
	struct buf found = BUF_INIT;
	int rc = local_sshd_down(c, &l->net, e);

	/* Another cluster's hosts of the same tag are left alone. */
	if (!rc && netns_remove(c->port_base, c->dir, &found, e) == 1)
		err_clear(e);
	else if (err_isset(e))
		rc = -1;

	if (found.len)
		log_info("removed the hosts of the cluster in '%s': %s",
			 c->dir, buf_str(&found));
	buf_release(&found);
	return rc;
}

static void local_close(struct cluster *c)
{
	struct local *l = c->priv;

	if (!l)
		return;
	port_block_release(&l->held, -1);
	free(l->mariadbd);
	free(l->install_db);
	free(l->etcd);
	free(l->skip_errors);
	for (int side = 0; side < 2; side++)
		argv_free(l->options[side]);
	free(l);
	c->priv = NULL;
}

/* A local cluster's directory holds its port base from its first up. */
static int local_made_in(const char *dir)
{
	return read_recorded_base(dir) > 0;
}

/* down-0 may stop, restart and skip; either server may end on its own. */
static const struct cluster_watcher *const watchers[] = {
	&cluster_replica_watch, &cluster_exit_watch, NULL,
};

const struct cluster_type cluster_local = {
	.name = "local",
	.takes = CLUSTER_TAKES_PORT_BASE | CLUSTER_TAKES_HOSTS |
		 CLUSTER_TAKES_DIR | CLUSTER_TAKES_PURGE,
	.lacks = REQUIRE_TIDB | REQUIRE_TICDC,
	.made = 1,
	.made_in = local_made_in,
	.suite = &local_suite_section,
	.watchers = watchers,
	.doc = "MariaDB upstream, replicating MariaDB downstream (the cdc "
	       "role) and etcd, each on a host of its own (a network "
	       "namespace) or all on 127.0.0.1",
	.open = local_open,
	.prepare = local_prepare,
	.setup = local_setup,
	.down = local_down,
	.server_options = local_server_options,
	.close = local_close,
};
