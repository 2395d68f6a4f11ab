#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clusters/api.h"
#include "clusters/cluster.h"
#include "faults/fault.h"
#include "lib/clock.h"
#include "lib/etcd.h"
#include "lib/http.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "lib/proc.h"
#include "lib/sql.h"
#include "runner/runner.h"

static void roles_text(unsigned roles, char *out, size_t size)
{
	size_t off = 0;

	out[0] = '\0';
	for (int r = 0; role_names[r]; r++)
		if (roles & (1u << r))
			off += (size_t)snprintf(out + off, size - off, "%s%s",
						off ? "," : "", role_names[r]);
	if (!off)
		snprintf(out, size, "-");
}

static void address_text(const struct component *comp, char *out,
			 size_t size)
{
	if (comp->sql_port)
		snprintf(out, size, "%s:%d", comp->sql_host, comp->sql_port);
	else if (comp->etcd_url)
		snprintf(out, size, "%s", comp->etcd_url);
	else if (comp->http_url)
		snprintf(out, size, "%s", comp->http_url);
	else
		snprintf(out, size, "-");
}

/*
 * The DDL owner as TiDB's GET /info/all tells it: its id, then the
 * component at the address TiDB lists for it (or the address).
 */
static void ddl_owner_http(struct cluster *c)
{
	char id[256], addr[300];
	struct err e = ERR_INIT;
	const char *comp;

	if (cluster_ddl_owner(c, id, sizeof(id), addr, sizeof(addr), &e)) {
		printf("%-10s ? (%s)\n", "ddl", e.msg);
		return;
	}
	comp = addr[0] ? cluster_component_at(c, addr) : NULL;
	printf("%-10s %s%s%s%s [/info/all]\n", "ddl", id[0] ? id : "-",
	       addr[0] ? " (" : "", comp ? comp : addr, addr[0] ? ")" : "");
}

/*
 * The owner of one etcd election: its value, and the component it stands
 * for (cluster_owner_component: a TiCDC capture id by the address
 * /api/v2/captures lists for it).
 */
static void election_owner(struct cluster *c, const char *url,
			   const char *service)
{
	struct etcd_kvs kvs = ETCD_KVS_INIT;
	const struct etcd_kv *o;
	struct err e = ERR_INIT;
	const char *comp;
	char prefix[256];
	int named;

	election_prefix(service, NULL, prefix, sizeof(prefix));
	if (etcd_election(url, prefix, &kvs, &e)) {
		printf("%-10s ? (%s)\n", service, e.msg);
		etcd_kvs_release(&kvs);
		return;
	}
	o = etcd_owner(&kvs);
	comp = NULL;
	if (o)
		cluster_owner_component(c, service, o->value, &comp, NULL);
	named = comp && strcmp(comp, o->value);
	printf("%-10s %s%s%s%s\n", service, o ? o->value : "-",
	       named ? " (" : "", named ? comp : "", named ? ")" : "");
	etcd_kvs_release(&kvs);
}

/*
 * Who leads each election: the DDL owner, the autoid leader and the TiCDC
 * owner from etcd (any etcd or pd component that answers), the DDL owner from
 * TiDB's /info/all too, PD's leader from PD.
 */
static void owners(struct cluster *c)
{
	static const char *const services[] = { "ddl", "autoid", "cdc", NULL };
	const char *url = cluster_etcd_url(c, NULL);
	int pd = cluster_has_api(c, ROLE_PD);
	int tidb = cluster_has_api(c, ROLE_UPSTREAM);

	if (!url && !pd && !tidb)
		return;
	printf("\n%-10s %s\n", "ELECTION", "OWNER");
	for (int s = 0; services[s]; s++) {
		if (url)
			election_owner(c, url, services[s]);
		if (tidb && !strcmp(services[s], "ddl"))
			ddl_owner_http(c);
	}
	if (pd) {
		struct err e = ERR_INIT;
		char name[256];

		if (cluster_pd_leader(c, name, sizeof(name), &e))
			printf("%-10s ? (%s)\n", "pd", e.msg);
		else
			printf("%-10s %s\n", "pd", name);
	}
}

/*
 * PD's members (GET /pd/api/v1/members) with their health (GET
 * /pd/api/v1/health): name, healthy or unhealthy (? when /health does not
 * list it), the first client URL and the component at its address.
 */
static void pd_members(struct cluster *c)
{
	struct pd_member *m;
	struct err e = ERR_INIT, why = ERR_INIT;
	size_t n;

	printf("\n%-20s %-10s %s\n", "PD MEMBER", "HEALTH", "CLIENT URL");
	if (cluster_pd_members(c, &m, &n, &e)) {
		printf("? (%s)\n", e.msg);
		return;
	}
	cluster_pd_health(c, m, n, &why);
	for (size_t i = 0; i < n; i++) {
		const char *host, *comp;
		char origin[300];

		url_origin(m[i].client_url, NULL, origin, sizeof(origin));
		host = strstr(origin, "://");
		comp = host ? cluster_component_at(c, host + 3) : NULL;

		printf("%-20s %-10s %s%s%s%s\n", m[i].name,
		       m[i].health < 0 ? "?" : m[i].health ? "healthy"
		       : "unhealthy", m[i].client_url[0] ? m[i].client_url : "-",
		       comp ? " (" : "", comp ? comp : "", comp ? ")" : "");
	}
	if (err_isset(&why))
		printf("health ? (%s)\n", why.msg);
	free(m);
}

/* One line of `cluster status`, kept until every column's width is known. */
struct status_row {
	char roles[128], addr[256], pid[16], lag[32];
	const char *state;
};

static void width_at_least(int *w, const char *text)
{
	int n = (int)strlen(text);

	if (n > *w)
		*w = n;
}

/*
 * The component table. Columns are as wide as their longest cell (the
 * header's at least), so that an address of a host of its own, longer
 * than 127.0.0.1's, still leaves two spaces before its state.
 */
static int status(struct cluster *c)
{
	struct status_row *rows = xcalloc(c->ncomps ? c->ncomps : 1,
					  sizeof(*rows));
	int all_up = 1, wname = 4, wroles = 5, wpid = 3, waddr = 7, wstate = 5;

	for (size_t i = 0; i < c->ncomps; i++) {
		struct component *comp = &c->comps[i];
		struct status_row *r = &rows[i];
		enum component_state st = component_state(c, comp);
		struct err e = ERR_INIT;
		pid_t p = component_pid(c, comp);
		long behind;

		r->state = component_state_name(st);
		snprintf(r->pid, sizeof(r->pid), "-");
		snprintf(r->lag, sizeof(r->lag), "-");
		if (p > 0)
			snprintf(r->pid, sizeof(r->pid), "%ld", (long)p);
		if (st == STATE_RUNNING || st == STATE_UNKNOWN) {
			if (component_ready(c, comp, &e)) {
				r->state = st == STATE_RUNNING ? "not-ready"
							       : "down";
				log_warn("%s", e.msg);
			} else {
				r->state = "running";
			}
		}
		if (strcmp(r->state, "running"))
			all_up = 0;
		behind = strcmp(r->state, "running") ? -1
						     : component_lag(c, comp);
		if (behind >= 0)
			snprintf(r->lag, sizeof(r->lag), "%lds", behind);
		roles_text(comp->roles, r->roles, sizeof(r->roles));
		address_text(comp, r->addr, sizeof(r->addr));
		width_at_least(&wname, comp->name);
		width_at_least(&wroles, r->roles);
		width_at_least(&wpid, r->pid);
		width_at_least(&waddr, r->addr);
		width_at_least(&wstate, r->state);
	}
	printf("%-*s  %-*s  %-*s  %-*s  %-*s  %s\n", wname, "NAME", wroles,
	       "ROLES", wpid, "PID", waddr, "ADDRESS", wstate, "STATE", "LAG");
	for (size_t i = 0; i < c->ncomps; i++)
		printf("%-*s  %-*s  %-*s  %-*s  %-*s  %s\n", wname,
		       c->comps[i].name, wroles, rows[i].roles, wpid,
		       rows[i].pid, waddr, rows[i].addr, wstate, rows[i].state,
		       rows[i].lag);
	free(rows);
	owners(c);
	if (cluster_has_api(c, ROLE_PD))
		pd_members(c);
	return all_up ? EXIT_PASS : EXIT_INFRA;
}

/* Signal names for --signal: the ones a fault may send. */
static int parse_signal(const char *name)
{
	static const struct {
		const char *name;
		int sig;
	} sigs[] = {
		{ "KILL", SIGKILL }, { "TERM", SIGTERM }, { "INT", SIGINT },
		{ "QUIT", SIGQUIT }, { "HUP", SIGHUP },
	};

	if (!strncmp(name, "SIG", 3))
		name += 3;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!strcmp(sigs[i].name, name))
			return sigs[i].sig;
	return 0;
}

/* kill / start / pause / continue one component by name. */
static int component_action(struct cluster *c, const char *action,
			    const char *name, int sig, struct err *e)
{
	struct component *comp = cluster_find(c, name);

	if (!comp) {
		err_set(e, ERR_USAGE, "cluster: no component '%s' in the "
			"cluster", name);
		return -1;
	}
	if (!strcmp(action, "kill"))
		return component_kill(c, comp, sig, e);
	if (!strcmp(action, "start"))
		return component_start(c, comp, e);
	if (!strcmp(action, "pause"))
		return component_pause(c, comp, e);
	return component_continue(c, comp, e);
}

/*
 * The token of `cluster up`: SIGINT or SIGTERM hurries it, a second one
 * kills (lib/cancel.h).
 */
static struct cancel interrupts = CANCEL_INIT;

static void on_interrupt(int sig)
{
	(void)sig;
	cancel_escalate(&interrupts, CANCEL_HURRY);
}

/* A component that ran before `cluster up`: its name and its pid then. */
struct ran {
	char *name;
	pid_t pid;
};

/*
 * Every component that runs (or is not known to be stopped) before
 * `cluster up` starts anything; *n of them. Caller frees with ran_free.
 */
static struct ran *ran_before(struct cluster *c, size_t *n)
{
	struct ran *v = xcalloc(c->ncomps + 1, sizeof(*v));

	*n = 0;
	for (size_t i = 0; i < c->ncomps; i++) {
		struct component *comp = &c->comps[i];

		if (component_state(c, comp) == STATE_STOPPED)
			continue;
		v[*n].name = xstrdup(comp->name);
		v[(*n)++].pid = component_pid(c, comp);
	}
	return v;
}

static void ran_free(struct ran *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

/*
 * Did `comp` (running now as `pid`) run before? The same name and the
 * same pid: a component restarted since (a playground's prepare stops
 * what an earlier up left of itself) is this up's.
 */
static int ran_then(const struct ran *v, size_t n,
		    const struct component *comp, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, comp->name) && v[i].pid == pid)
			return 1;
	return 0;
}

/*
 * `cluster up` was interrupted (`why`: where). cluster_up stops what it
 * started when it gives up, but not once it has succeeded (a signal after
 * its last look, or during the status), nor what it failed to stop: each
 * component running now that did not run before is stopped by pid, last
 * first (SIGKILL at once after a second signal), then the kind's clean-up
 * once nothing runs. What ran before keeps running (a cluster that was
 * up before: nothing is stopped). Sets `e` to one line saying so (any
 * earlier error is replaced); returns EXIT_INTERRUPTED.
 */
static int stop_started(struct cluster *c, const struct ran *before,
			size_t nbefore, const char *why, struct err *e)
{
	struct err stop = ERR_INIT;
	struct buf kept = BUF_INIT;
	char msg[ERR_MSG_MAX];
	int stopped = 0, nothing_runs = 1, all_kept = 1;

	snprintf(msg, sizeof(msg), "%s", why);
	for (size_t i = c->ncomps; i-- > 0;) {
		struct component *comp = &c->comps[i];
		pid_t pid;

		if (component_state(c, comp) == STATE_STOPPED) {
			all_kept = 0;
			continue;
		}
		pid = component_pid(c, comp);
		if (pid <= 0 || ran_then(before, nbefore, comp, pid)) {
			/* Not ours, or not to be told by a pid. */
			buf_printf(&kept, NULL, "%s%s", kept.len ? ", " : "",
				   comp->name);
			nothing_runs = 0;
			continue;
		}
		all_kept = 0;
		if (component_stop(c, comp, &stop))
			nothing_runs = 0;
		else
			stopped = 1;
	}
	/* cluster_up cleaned up after itself when it stopped everything. */
	if (stopped && nothing_runs && c->type->down)
		c->type->down(c, &stop);
	err_clear(e);
	if (err_isset(&stop))
		err_set(e, ERR_INTERRUPTED, "%s: cannot stop what this "
			"'cluster up' started: %s", msg, stop.msg);
	else if (all_kept && c->ncomps)
		err_set(e, ERR_INTERRUPTED, "%s: this 'cluster up' started "
			"nothing; the cluster in '%s' keeps running", msg,
			c->dir);
	else if (kept.len)
		err_set(e, ERR_INTERRUPTED, "%s: stopped what this 'cluster "
			"up' started; running before it, left running: %s",
			msg, buf_str(&kept));
	else
		err_set(e, ERR_INTERRUPTED, "%s: stopped what this 'cluster "
			"up' started; nothing of the cluster in '%s' runs",
			msg, c->dir);
	buf_release(&kept);
	return EXIT_INTERRUPTED;
}

/*
 * `cluster up`, then the status. SIGINT and SIGTERM count in the cluster's
 * interrupt count from here on: waits for readiness give up at the first,
 * stops are SIGKILL at once from the second. Interrupted at any point, it
 * stops what it started (stop_started) and exits 4.
 */
static int up(struct cluster *c, struct err *e)
{
	int64_t start = clock_mono_ns();
	struct ran *before;
	size_t nbefore;
	int rc = EXIT_PASS;

	c->cancel = &interrupts;
	c->give_up_at = CANCEL_HURRY;
	c->sweep = fault_sweep;
	catch_signals(on_interrupt);
	before = ran_before(c, &nbefore);
	if (cluster_up(c, e)) {
		rc = (int)e->class;
	} else if (!cancelled(&interrupts, CANCEL_HURRY)) {
		log_info("cluster in '%s' is ready (%.1fs)", c->dir,
			 (double)(clock_mono_ns() - start) / NS_PER_SEC);
		rc = status(c);
	}
	/* A cluster refused as too old was stopped by cluster_up. */
	if (cancelled(&interrupts, CANCEL_HURRY) && rc != EXIT_USAGE) {
		if (err_isset(e) && e->class != ERR_INTERRUPTED)
			log_error("%s", e->msg);
		rc = stop_started(c, before, nbefore,
				  e->class == ERR_INTERRUPTED ? e->msg :
				  err_isset(e) ? "interrupted" :
				  "interrupted once the cluster was ready", e);
	}
	ran_free(before, nbefore);
	return rc;
}

/*
 * `up` and `down` of a cluster a run is attached to would take its
 * faults from under it: an up removes the partitions' classes and cuts it
 * finds, as left by an earlier run, and a down stops its servers. The
 * topology file that the run locks (run.c, lock_cluster) is locked here
 * too, for as long as this command runs: 0 (*fd, -1 when there is no
 * such file yet, as before a local cluster's first up), or -1 naming
 * the run that holds it (ERR_INFRA).
 */
static int lock_against_runs(const struct cluster *c, const char *cluster,
			     int *fd, struct err *e)
{
	char *path = c->topology_path ? xstrdup(c->topology_path)
		     : cluster ? cluster_lock_path(cluster) : NULL;
	pid_t holder;
	int rc = 0;

	*fd = -1;
	if (path && !access(path, F_OK))
		rc = proc_lock_file(path, fd, &holder, e);
	if (rc == 1)
		err_set(e, ERR_INFRA, "cluster %s is in use by a run%s%ld%s: "
			"what its faults hold would be taken from under it; "
			"stop the run first", path, holder ? " (pid " : "",
			(long)holder, holder ? ")" : "");
	free(path);
	return rc ? -1 : 0;
}

static const char *const actions[] = {
	"up", "down", "status", "kill", "start", "pause", "continue", NULL,
};

int cmd_cluster(int argc, char **argv)
{
	const char *cluster = NULL, *dir = NULL, *port_base = NULL;
	const char *signal_name = NULL, *hosts = NULL;
	int purge = 0, verbose = 0, sshd = 0, n, rc = EXIT_PASS;
	int sig = SIGKILL;
	const struct opt opts[] = {
		{ "cluster", 0, &cluster, NULL, NULL },
		{ "dir", 0, &dir, NULL, NULL },
		{ "port-base", 0, &port_base, NULL, NULL },
		{ "hosts", 0, &hosts, NULL, NULL },
		{ "purge", 0, NULL, &purge, NULL },
		{ "sshd", 0, NULL, &sshd, NULL },
		{ "signal", 0, &signal_name, NULL, NULL },
		{ "verbose", 'v', NULL, &verbose, NULL },
		{ NULL, 0, NULL, NULL, NULL },
	};
	struct cluster_options o = { .cluster = NULL };
	struct cluster c;
	struct err e = ERR_INIT;
	const char *action;
	int per_component, known = 0, lock = -1;

	n = opts_parse(command_find("cluster"), opts, argc, argv);
	if (n < 1)
		die(EXIT_USAGE, "cluster: expected an action (see 'tichaos "
		    "help cluster')");
	action = argv[1];
	for (int i = 0; actions[i]; i++)
		known |= !strcmp(actions[i], action);
	if (!known)
		die(EXIT_USAGE, "cluster: unknown action '%s' (expected up, "
		    "down, status, kill, start, pause or continue)", action);
	per_component = strcmp(action, "up") && strcmp(action, "down") &&
			strcmp(action, "status");
	if (per_component && n != 2)
		die(EXIT_USAGE, "cluster: %s takes one COMPONENT", action);
	if (!per_component && n != 1)
		die(EXIT_USAGE, "cluster: %s takes no arguments", action);
	if (verbose)
		log_set_level(LOG_DEBUG);
	if (port_base && !(cluster_type_of(cluster)->takes &
			   CLUSTER_TAKES_PORT_BASE))
		die(EXIT_USAGE, "cluster: --port-base applies to the local "
		    "cluster, not to '%s'", cluster);
	if (dir && !(cluster_type_of(cluster)->takes & CLUSTER_TAKES_DIR))
		die(EXIT_USAGE, "cluster: --dir applies to the local cluster "
		    "and the playground, not to '%s'", cluster);
	if (purge && strcmp(action, "down"))
		die(EXIT_USAGE, "cluster: --purge goes with 'down'");
	if (signal_name && strcmp(action, "kill"))
		die(EXIT_USAGE, "cluster: --signal goes with 'kill'");
	if (signal_name && !(sig = parse_signal(signal_name)))
		die(EXIT_USAGE, "cluster: --signal: unknown signal '%s' "
		    "(expected KILL, TERM, INT, QUIT or HUP)", signal_name);
	if (hosts && !(cluster_type_of(cluster)->takes & CLUSTER_TAKES_HOSTS))
		die(EXIT_USAGE, "cluster: --hosts applies to the local "
		    "cluster, not to '%s'", cluster);
	if (hosts && strcmp(action, "up"))
		die(EXIT_USAGE, "cluster: --hosts goes with 'up'");
	if (sshd && (strcmp(action, "up") ||
		     !(cluster_type_of(cluster)->takes & CLUSTER_TAKES_HOSTS)))
		die(EXIT_USAGE, "cluster: --sshd goes with 'up' of the local "
		    "cluster");
	o.sshd = sshd;
	o.port_base = opts_port_base("cluster", port_base);
	o.hosts = opts_hosts("cluster", hosts);
	o.cluster = cluster;
	o.dir = dir;

	sql_library_init();
	http_library_init();
	if (cluster_open(&c, &o, &e)) {
		rc = (int)e.class;
		goto out;
	}
	if (!per_component && strcmp(action, "status") &&
	    lock_against_runs(&c, cluster, &lock, &e)) {
		rc = (int)e.class;
	} else if (!strcmp(action, "up")) {
		rc = up(&c, &e);
	} else if (!strcmp(action, "down")) {
		c.sweep = fault_sweep;
		if (cluster_down(&c, &e))
			rc = (int)e.class;
		else if (purge && (c.type->takes & CLUSTER_TAKES_PURGE)) {
			const char *rm[] = { "rm", "-rf", "--", c.dir, NULL };

			if (proc_capture(rm, NULL, NULL, 60 * NS_PER_SEC,
					 &e))
				rc = (int)e.class;
		}
	} else if (!strcmp(action, "status")) {
		rc = status(&c);
	} else if (component_action(&c, action, argv[2], sig, &e)) {
		rc = (int)e.class;
	}
	if (lock >= 0)
		close(lock);
	cluster_close(&c);
out:
	http_library_end();
	sql_library_end();
	if (err_isset(&e))
		die_err(&e);
	return rc;
}
