/*
 * A TiDB playground (docs/topology.md): `tiup playground` started by tichaos,
 * its instances found and driven like any other components.
 *
 * Two playgrounds run: the upstream one with the suite's hints (TiDB, PD,
 * TiKV servers, TiCDC captures; one of each by default) and a downstream one
 * (one TiDB, PD and TiKV, no TiCDC, its ports DOWN_PORT_OFFSET up) that the
 * changefeed "tichaos" replicates to; neither starts TiFlash (tiup starts
 * one unless told --tiflash 0). Components, in the order cluster_down stops
 * them backwards:
 *
 *   playground          the upstream `tiup playground` process
 *   pd-N tikv-N tidb-N cdc-N   its instances (pd; kv; upstream; cdc)
 *   playground-down     the downstream `tiup playground`
 *   down-pd-0 down-tikv-0 down-0   its instances (no role; no role;
 *                       downstream)
 *
 * An instance is a process below the playground's pid whose argv names
 * pd-server, tikv-server, tidb-server or `cdc server` (an interpreter in
 * front of it is allowed), or the user's binary of that server, given as
 * `--cluster playground[:VERSION],db=PATH,kv=PATH,pd=PATH,ticdc=PATH`
 * (any of them; tiup's --db.binpath and its like: both playgrounds run
 * them, but for TiCDC, the downstream's none; a `cdc.test` named so is
 * a capture); its command line tells its ports and log file,
 * /proc its working directory. That command line is also its start
 * command: the playground does not restart what a fault killed, tichaos
 * does, through the common component code. Each instance gets a pidfile
 * of tichaos's in DIR, so a restarted instance (a child of tichaos, not
 * of the playground) is still stopped by pid.
 *
 * The downstream's --port-offset needs tiup's playground component
 * v1.16.1 or later: an older one is refused before anything starts
 * (playground_floor).
 *
 * DIR holds playground{,-down}.{pid,log}, NAME.pid and topology.yaml; the
 * playgrounds' data is tiup's, under the tags "tichaos-<hash of DIR>" and
 * that plus "-down", and `cluster down` removes it with `tiup clean`.
 */
#include "clusters/cluster.h"

#include <dirent.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clusters/api.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "lib/proc.h"

/* tiup may download the servers first: starting may take long. */
#define START_TIMEOUT_NS (600 * NS_PER_SEC)
/* The first start of a TiDB bootstraps its system tables. */
#define READY_TIMEOUT_NS (180 * NS_PER_SEC)
/*
 * The downstream playground's --port-offset (pingcap/tiup
 * components/playground main.go: "all components will use
 * default_port+port_offset ... Recommend to set to 10000, 20000"): its
 * ports never meet the upstream's, which each instance only probes for
 * when it starts.
 */
#define DOWN_PORT_OFFSET 10000
/*
 * The first playground with --port-offset (pingcap/tiup#2453, tagged
 * v1.16.1): before it, cobra refuses the flag ("Error: unknown flag:
 * --port-offset") and the downstream never starts.
 */
#define PORT_OFFSET_SINCE 1, 16, 1

#define INSTALL_HINT \
	"install it with: curl --proto '=https' --tlsv1.2 -sSf " \
	"https://tiup-mirrors.pingcap.com/install.sh | sh " \
	"(https://docs.pingcap.com/tidb/stable/tiup-overview), " \
	"or use --cluster local or a topology file"

enum prog { PD, TIKV, TIDB, CDC, NPROGS };

static const char *const programs[NPROGS] = {
	"pd-server", "tikv-server", "tidb-server", "cdc",
};

/* Component names and roles of each program's instances, up- and
 * downstream (the downstream has no TiCDC). */
static const char *const up_names[NPROGS] = { "pd", "tikv", "tidb", "cdc" };
static const char *const down_names[NPROGS] = {
	"down-pd", "down-tikv", "down", "down-cdc",
};
static const unsigned up_roles[NPROGS] = {
	ROLE_PD, ROLE_KV, ROLE_UPSTREAM, ROLE_CDC,
};
static const unsigned down_roles[NPROGS] = { 0, 0, ROLE_DOWNSTREAM, 0 };

/* tiup playground's flag of each program's binary ("--db.binpath"). */
static const char *const binpath_flags[NPROGS] = { "pd", "kv", "db", "ticdc" };

struct playground {
	char *tiup;		/* on PATH, or NULL */
	char *version;		/* NULL: tiup's default */
	/* MAY: the user's binary of each program, absolute. */
	char *binpath[NPROGS];
	char tag[32];
	int counts[NPROGS];	/* of the upstream playground */
};

/* One instance seen below a playground. */
struct instance {
	pid_t pid;
	enum prog prog;
	char **argv;
};

static int cmp_instance(const void *a, const void *b)
{
	const struct instance *x = a, *y = b;

	if (x->prog != y->prog)
		return x->prog < y->prog ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* The file name of a path. */
static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The program an argv runs, counting from the first element that names
 * one, by its name or the user's binary of it (an interpreter may come
 * first); -1 for any other process. */
static int argv_program(const struct playground *pg, char **argv,
			char ***args)
{
	for (char **a = argv; *a; a++) {
		const char *base = base_of(*a);

		for (int p = 0; p < NPROGS; p++) {
			if (strcmp(base, programs[p]) &&
			    (!pg->binpath[p] ||
			     strcmp(base, base_of(pg->binpath[p]))))
				continue;
			if (p == CDC && (!a[1] || strcmp(a[1], "server")))
				return -1;
			*args = a + 1;
			return p;
		}
		/* Only an interpreter and its options come before. */
		if (a != argv && **a != '-')
			return -1;
	}
	return -1;
}

/*
 * The value of flag `name` ("log-file") in Go's flag syntax: -name=V,
 * --name=V, -name V or --name V. NULL when absent.
 */
static const char *flag(char **args, const char *name)
{
	size_t len = strlen(name);

	for (char **a = args; *a; a++) {
		const char *f = *a;

		if (*f++ != '-')
			continue;
		if (*f == '-')
			f++;
		if (strncmp(f, name, len))
			continue;
		if (f[len] == '=')
			return f + len + 1;
		if (!f[len] && a[1])
			return a[1];
	}
	return NULL;
}

/* The first of flags `a` and `b` that is given, else `dflt`. */
static const char *either(char **args, const char *a, const char *b,
			  const char *dflt)
{
	const char *v = flag(args, a);

	if (!v)
		v = flag(args, b);
	return v ? v : dflt;
}

/* "http://h:p,http://..." or "h:p" into "h:p" (the first), 0.0.0.0 and
 * an empty host meaning the loopback. */
static void host_port(const char *v, char *out, size_t size)
{
	const char *s = strstr(v, "://");
	const char *end;
	size_t n;

	s = s ? s + 3 : v;
	end = s + strcspn(s, ",/");
	n = (size_t)(end - s);
	if (!strncmp(s, "0.0.0.0:", 8) || *s == ':') {
		const char *colon = memchr(s, ':', n);

		snprintf(out, size, "127.0.0.1%.*s", (int)(end - colon), colon);
		return;
	}
	snprintf(out, size, "%.*s", (int)n, s);
}

/*
 * Describe instance `in` as component `comp` named `name`: its addresses
 * from its flags, its argv and directory to restart it, a pidfile.
 */
static int describe(struct cluster *c, struct component *comp,
		    const struct instance *in, const char *name,
		    unsigned roles, struct err *e)
{
	char **args = NULL, addr[256];
	const char *v;
	struct buf cwd = BUF_INIT, text = BUF_INIT;
	struct err bad = ERR_INIT;
	int64_t port;
	int rc;

	argv_program(c->priv, in->argv, &args);
	comp->name = xstrdup(name);
	comp->roles = roles;
	comp->host = xstrdup("local");
	comp->start = argv_dup((const char *const *)in->argv);
	comp->pidfile = xprintf("%s/%s.pid", c->dir, name);
	if ((v = flag(args, "log-file")))
		comp->log = xstrdup(v);
	if ((v = flag(args, "data-dir")))
		comp->data_dir = xstrdup(v);
	switch (in->prog) {
	case PD:
		host_port(either(args, "advertise-client-urls", "client-urls",
				 "127.0.0.1:2379"), addr, sizeof(addr));
		comp->etcd_url = xprintf("http://%s", addr);
		comp->http_url = xprintf("http://%s/pd/api/v1/health", addr);
		break;
	case TIKV:
		host_port(either(args, "advertise-status-addr", "status-addr",
				 "127.0.0.1:20180"), addr, sizeof(addr));
		comp->http_url = xprintf("http://%s/status", addr);
		break;
	case TIDB:
		v = flag(args, "host");
		snprintf(addr, sizeof(addr), "%s", v && *v &&
			 strcmp(v, "0.0.0.0") ? v : "127.0.0.1");
		comp->sql_host = xstrdup(addr);
		v = flag(args, "P");
		if (parse_int64(v ? v : "4000", 1, 65535, &port, &bad))
			return err_set(e, ERR_INFRA, "%s (pid %ld): -P: %s",
				       name, (long)in->pid, bad.msg);
		comp->sql_port = (int)port;
		comp->user = xstrdup("root");
		v = flag(args, "status");
		comp->http_url = xprintf("http://%s:%s/status", addr,
					 v ? v : "10080");
		break;
	case CDC:
	default:
		host_port(either(args, "advertise-addr", "addr",
				 "127.0.0.1:8300"), addr, sizeof(addr));
		/* Per capture, not forwarded to the owner (ready() asks
		 * /api/v2/captures). */
		comp->http_url = xprintf("http://%s/api/v2/status", addr);
		break;
	}
	rc = proc_cwd(in->pid, &cwd, e) ? -1 : 0;
	if (!rc)
		comp->dir = xstrdup(buf_str(&cwd));
	rc = rc || buf_printf(&text, e, "%ld\n", (long)in->pid) ||
	     buf_write_file(&text, comp->pidfile, 0644, e);
	buf_release(&cwd);
	buf_release(&text);
	return rc ? -1 : 0;
}

/*
 * Is `pid` below `root` in the process tree, with none of the n instances
 * `v` between them? A process an instance forked (and the moment before
 * it execs something else) is part of that instance, not one of its own.
 */
static int below(pid_t pid, pid_t root, const struct instance *v, size_t n)
{
	for (int depth = 0; pid > 1 && depth < 32; depth++) {
		pid = proc_parent(pid);
		if (pid == root)
			return 1;
		for (size_t i = 0; i < n; i++)
			if (v[i].pid == pid)
				return 0;
	}
	return 0;
}

static void instances_release(struct instance *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		proc_argv_free(v[i].argv);
	free(v);
}

/* The instances below `root`, sorted by program and pid. */
static size_t instances_of(const struct playground *pg, pid_t root,
			   struct instance **out)
{
	struct instance *v = NULL;
	size_t n = 0;
	struct dirent *d;
	DIR *dir = opendir("/proc");

	while (dir && (d = readdir(dir))) {
		struct err bad = ERR_INIT;
		int64_t num;
		pid_t pid;
		char **argv, **args;
		int p;

		/* Only the numbered entries are processes. */
		if (parse_int64(d->d_name, 1, INT32_MAX, &num, &bad))
			continue;
		pid = (pid_t)num;
		if (!below(pid, root, NULL, 0) ||
		    proc_argv(pid, &argv, NULL))
			continue;
		if ((p = argv_program(pg, argv, &args)) < 0) {
			proc_argv_free(argv);
			continue;
		}
		v = xrealloc(v, (n + 1) * sizeof(*v));
		v[n++] = (struct instance){ pid, (enum prog)p, argv };
	}
	if (dir)
		closedir(dir);
	if (n)
		qsort(v, n, sizeof(*v), cmp_instance);
	for (size_t i = 0; i < n;) {
		if (!below(v[i].pid, root, v, n)) {
			proc_argv_free(v[i].argv);
			memmove(&v[i], &v[i + 1], (n - i - 1) * sizeof(*v));
			n--;
		} else {
			i++;
		}
	}
	*out = v;
	return n;
}

static struct component *add_component(struct cluster *c)
{
	struct component *v = xrealloc(c->comps, (c->ncomps + 1) * sizeof(*v));

	c->comps = v;
	memset(&v[c->ncomps], 0, sizeof(*v));
	return &v[c->ncomps++];
}

/* How many of each program a playground runs: upstream or downstream. */
static void counts_of(const struct playground *p, int down, int n[NPROGS])
{
	static const int downstream[NPROGS] = { 1, 1, 1, 0 };

	memcpy(n, down ? downstream : p->counts, NPROGS * sizeof(*n));
}

/* The `tiup playground` component: upstream (down 0) or downstream. */
static void fill_tiup(struct cluster *c, struct component *comp, int down)
{
	struct playground *p = c->priv;
	char *argv[30];
	int i = 0, n[NPROGS];

	counts_of(p, down, n);

	comp->name = xstrdup(down ? "playground-down" : "playground");
	comp->host = xstrdup("local");
	argv[i++] = xstrdup(p->tiup ? p->tiup : "tiup");
	argv[i++] = xstrdup("playground");
	if (p->version)
		argv[i++] = xstrdup(p->version);
	argv[i++] = xstrdup("--db");
	argv[i++] = xprintf("%d", n[TIDB]);
	argv[i++] = xstrdup("--pd");
	argv[i++] = xprintf("%d", n[PD]);
	argv[i++] = xstrdup("--kv");
	argv[i++] = xprintf("%d", n[TIKV]);
	argv[i++] = xstrdup("--ticdc");
	argv[i++] = xprintf("%d", n[CDC]);
	/* tiup starts one TiFlash unless told not to. */
	argv[i++] = xstrdup("--tiflash");
	argv[i++] = xstrdup("0");
	/* Each instance probes for its ports when it starts, and the
	 * upstream TiDB binds 4000/10080 only after its bootstrap: a
	 * downstream started meanwhile could take the same ports. */
	if (down) {
		argv[i++] = xstrdup("--port-offset");
		argv[i++] = xprintf("%d", DOWN_PORT_OFFSET);
	}
	for (int k = 0; k < NPROGS; k++)
		if (p->binpath[k] && n[k]) {
			argv[i++] = xprintf("--%s.binpath", binpath_flags[k]);
			argv[i++] = xstrdup(p->binpath[k]);
		}
	argv[i++] = xstrdup("--without-monitor");
	argv[i++] = xstrdup("--tag");
	argv[i++] = xprintf("%s%s", p->tag, down ? "-down" : "");
	argv[i] = NULL;
	comp->start = xcalloc((size_t)i + 1, sizeof(char *));
	memcpy(comp->start, argv, ((size_t)i + 1) * sizeof(char *));
	comp->dir = xstrdup(c->dir);
	comp->pidfile = xprintf("%s/%s.pid", c->dir, comp->name);
	comp->log = xprintf("%s/%s.log", c->dir, comp->name);
}

/*
 * Wait until the playground `tiup` has every instance it was asked for,
 * then add them as components. Fails when it exits first or takes too
 * long, with the last line it printed.
 */
static int discover(struct cluster *c, struct component *tiup, int down,
		    struct err *e)
{
	int64_t deadline = clock_mono_ns() + START_TIMEOUT_NS;
	struct instance *v = NULL;
	size_t n = 0;
	int rc = 0, want[NPROGS];

	counts_of(c->priv, down, want);
	for (;;) {
		int have[NPROGS] = { 0 }, enough = 1;
		pid_t root = component_pid(c, tiup);
		struct buf line = BUF_INIT;
		char d[32];

		if (root > 0) {
			n = instances_of(c->priv, root, &v);
			for (size_t i = 0; i < n; i++)
				have[v[i].prog]++;
			for (int i = 0; i < NPROGS; i++)
				enough &= have[i] >= want[i];
			if (enough)
				break;
			instances_release(v, n);
			v = NULL;
		}
		if (cluster_interrupted(c))
			return err_set(e, ERR_INTERRUPTED, "interrupted while "
				       "waiting for %s", tiup->name);
		if (root > 0 && clock_mono_ns() < deadline) {
			clock_sleep_ns(200 * NS_PER_MS);
			continue;
		}
		component_last_log_line(c, tiup, &line);
		if (root > 0)
			err_set(e, ERR_INFRA, "%s: not every instance started "
				"after %s (pd %d/%d, tikv %d/%d, tidb %d/%d, "
				"cdc %d/%d); last log line: %s", tiup->name,
				format_duration(START_TIMEOUT_NS, d, sizeof(d)),
				have[PD], want[PD], have[TIKV], want[TIKV],
				have[TIDB], want[TIDB], have[CDC], want[CDC],
				line.len ? buf_str(&line) : "(none)");
		else
			err_set(e, ERR_INFRA, "%s exited while starting; last "
				"log line: %s", tiup->name, line.len ?
				buf_str(&line) : "(none)");
		buf_release(&line);
		return -1;
	}
	for (size_t i = 0, k = 0; i < n && !rc; i++) {
		enum prog prog = v[i].prog;
		char name[64];

		k = i && v[i - 1].prog == prog ? k + 1 : 0;
		snprintf(name, sizeof(name), "%s-%zu", down ? down_names[prog]
			 : up_names[prog], k);
		rc = describe(c, add_component(c), &v[i], name,
			      down ? down_roles[prog] : up_roles[prog], e);
	}
	instances_release(v, n);
	return rc;
}

/* tiup on PATH, or the error saying how to get it. */
static int need_tiup(struct cluster *c, struct err *e)
{
	struct playground *p = c->priv;

	if (p->tiup)
		return 0;
	return err_set(e, ERR_INFRA, "tiup is not on PATH: %s",
		       INSTALL_HINT);
}

/*
 * Is the playground component recent enough for --port-offset? `tiup
 * playground` runs the newest one installed (or installs the newest),
 * whatever TiDB version it is given; `tiup playground --version` asks that
 * one, which prints cobra's version template, "tiup version 1.16.1 tiup"
 * and its build (pingcap/tiup components/playground/main.go, Version from
 * pkg/version); one older than v1.4.0 has no --version and fails with
 * "Error: unknown flag: --version". An answer that says no version is
 * taken as recent enough, with a warning.
 */
static int playground_floor(struct playground *p, struct err *e)
{
	const char *argv[] = { p->tiup, "playground", "--version", NULL };
	struct buf out = BUF_INIT, errout = BUF_INIT;
	struct release r = { -1, -1, -1, 0, "" };
	const char *first, *v;
	int rc;

	rc = proc_capture(argv, &out, &errout, START_TIMEOUT_NS, e);
	if (rc < 0)
		goto out;
	buf_rtrim(&out);
	buf_rtrim(&errout);
	first = buf_str(&out);
	v = strstr(first, "version ");
	if (!rc && v && v < first + strcspn(first, "\n") &&
	    !release_parse(v + 8, &r))
		snprintf(r.text, sizeof(r.text), "v%d.%d.%d", r.major,
			 r.minor, r.patch < 0 ? 0 : r.patch);
	if (rc && strstr(first, "unknown flag: --version"))
		snprintf(r.text, sizeof(r.text), "older than v1.4.0 (it has "
			 "no --version)");
	if (rc && !r.text[0]) {
		const char *text = out.len ? first : buf_str(&errout);
		const char *nl = strrchr(text, '\n');

		rc = err_set(e, ERR_INFRA, "tiup playground --version: exit "
			     "%d: %s", rc, *text ? (nl ? nl + 1 : text)
			     : "(no output)");
	} else if (!r.text[0]) {
		log_warn("tiup playground --version says no version: one "
			 "with --port-offset (>= v1.16.1) is assumed");
	} else if (r.major < 0 || release_older(&r, PORT_OFFSET_SINCE)) {
		rc = err_set(e, ERR_USAGE, "tiup's playground is %s: tichaos "
			     "needs playground >= v1.16.1 (its --port-offset "
			     "for the downstream playground, pingcap/tiup "
			     "components/playground/main.go); update it with "
			     "'tiup update playground'", r.text);
	} else {
		log_debug("tiup's playground is %s", r.text);
	}
out:
	buf_release(&out);
	buf_release(&errout);
	return rc ? -1 : 0;
}

/* Stop every component, last first; 0 when all stopped. */
static int stop_all(struct cluster *c, struct err *e)
{
	int rc = 0;

	for (size_t i = c->ncomps; i-- > 0;)
		if (component_stop(c, &c->comps[i], e))
			rc = -1;
	return rc;
}

static void drop_components(struct cluster *c)
{
	for (size_t i = 0; i < c->ncomps; i++)
		component_release(&c->comps[i]);
	c->ncomps = 0;
}

/* tiup's data of both tags, once nothing of them runs. */
static int clean_tags(struct cluster *c, struct err *e)
{
	struct playground *p = c->priv;

	for (int down = 0; p->tiup && down < 2; down++) {
		char tag[48];
		const char *argv[] = { p->tiup, "clean", tag, NULL };
		struct buf out = BUF_INIT;
		int rc;

		snprintf(tag, sizeof(tag), "%s%s", p->tag, down ? "-down" : "");
		rc = proc_capture(argv, &out, &out, 60 * NS_PER_SEC, e);
		buf_rtrim(&out);
		if (rc > 0)
			err_set(e, ERR_INFRA, "tiup clean %s: exit %d: %s",
				tag, rc, buf_str(&out));
		buf_release(&out);
		if (rc)
			return -1;
	}
	return 0;
}

/*
 * Start both playgrounds and find their instances, unless the upstream
 * one already runs (a second `cluster up`: then what a fault stopped is
 * started again from its recorded command line, by cluster_up).
 */
static int playground_prepare(struct cluster *c, struct err *e)
{
	struct component *up = cluster_find(c, "playground");
	struct component *down;

	if (up && component_state(c, up) == STATE_RUNNING &&
	    cluster_find(c, "down-0"))
		return 0;
	if (need_tiup(c, e) || playground_floor(c->priv, e))
		return -1;
	/* What an earlier up left of itself goes first. */
	if (stop_all(c, e))
		return -1;
	/* A tag's old data (ports, cluster ids) is not reused. */
	if (clean_tags(c, e))
		return -1;
	drop_components(c);
	if (mkdir(c->dir, 0755) && access(c->dir, W_OK))
		return err_set(e, ERR_INFRA, "cannot create '%s'", c->dir);
	fill_tiup(c, add_component(c), 0);
	log_info("starting tiup playground (tag %s)",
		 ((struct playground *)c->priv)->tag);
	/* The topology is written as soon as anything runs: a later
	 * tichaos (cluster down, a run reaping this one's orphans) knows
	 * the playground by the command line it was started with. */
	if (component_start(c, &c->comps[0], e) ||
	    topology_write(c, c->topology_path, e) ||
	    discover(c, &c->comps[0], 0, e))
		goto fail;
	fill_tiup(c, add_component(c), 1);
	down = &c->comps[c->ncomps - 1];
	if (component_start(c, down, e) ||
	    topology_write(c, c->topology_path, e) ||
	    discover(c, down, 1, e))
		goto fail;
	down = cluster_find(c, "down-0");
	if (!down) {
		err_set(e, ERR_INFRA, "playground-down: no TiDB found");
		goto fail;
	}
	free(c->sink_uri);
	c->sink_uri = xprintf("mysql://root@%s:%d/", down->sql_host,
			      down->sql_port);
	return 0;
fail:
	stop_all(c, NULL);
	clean_tags(c, NULL);
	return -1;
}

/* After every component stopped. */
static int playground_down(struct cluster *c, struct err *e)
{
	return clean_tags(c, e);
}

/* Once every server answers: the changefeed to the downstream. */
static int playground_setup(struct cluster *c, struct err *e)
{
	return cluster_ensure_changefeed(c, e);
}

/* "tichaos-" and eight hex digits of the directory's FNV-1a hash. */
static void make_tag(const char *dir, char *tag, size_t size)
{
	uint32_t h = 2166136261u;

	for (const char *s = dir; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	snprintf(tag, size, "tichaos-%08x", (unsigned)h);
}

/*
 * The user's binaries after the first ',' of `cluster`: "db=PATH,..."
 * (tiup's names: pd, kv, db, ticdc), each an executable file, made
 * absolute (tiup runs in the cluster's directory) but not resolved: a
 * symbolic link keeps its name, which the instance's argv shows.
 */
static int binpaths(struct playground *p, const char *cluster,
		    const char *list, struct err *e)
{
	char *copy = xstrdup(list), *next = copy;
	int rc = 0;

	while (next && !rc) {
		char *item = next, *comma = strchr(item, ',');
		char *eq, *path, cwd[PATH_MAX];
		struct stat st;
		int k = NPROGS, there;

		if (comma)
			*comma = '\0';
		next = comma ? comma + 1 : NULL;
		eq = strchr(item, '=');
		if (eq) {
			*eq = '\0';
			for (k = 0; k < NPROGS; k++)
				if (!strcmp(item, binpath_flags[k]))
					break;
		}
		if (k == NPROGS || !eq[1] || p->binpath[k]) {
			rc = err_set(e, ERR_USAGE, "--cluster %s: '%s%s%s': "
				     "expected each of db=PATH, kv=PATH, "
				     "pd=PATH, ticdc=PATH once at most (the "
				     "servers' binaries)", cluster, item,
				     eq ? "=" : "", eq ? eq + 1 : "");
			break;
		}
		path = eq[1] == '/' || !getcwd(cwd, sizeof(cwd))
		       ? xstrdup(eq + 1) : xprintf("%s/%s", cwd, eq + 1);
		there = !stat(path, &st);
		if (!there || !S_ISREG(st.st_mode) || access(path, X_OK))
			rc = err_set(e, ERR_USAGE, "--cluster %s: %s=%s: %s",
				     cluster, item, eq + 1, !there
				     ? "no such file" : "not an executable "
				     "file");
		p->binpath[k] = path;
	}
	free(copy);
	return rc;
}

static int playground_open(struct cluster *c, const struct cluster_options *o,
			   struct err *e)
{
	struct playground *p = xcalloc(1, sizeof(*p));
	const char *comma = strchr(o->cluster, ',');
	size_t head = comma ? (size_t)(comma - o->cluster) : strlen(o->cluster);
	const char *version = memchr(o->cluster, ':', head);
	const int hints[NPROGS] = { o->pd, o->kv, o->tidb, o->captures };
	size_t vlen = version ? head - (size_t)(version + 1 - o->cluster) : 0;

	c->priv = p;
	if (version && (!vlen || strspn(version + 1, "abcdefghijklmnopq"
		"rstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_+") < vlen))
		return err_set(e, ERR_USAGE, "--cluster %s: a version is "
			       "letters, digits and . - _ + (playground:v8.5.0)",
			       o->cluster);
	p->version = version ? xstrndup(version + 1, vlen) : NULL;
	if (comma && binpaths(p, o->cluster, comma + 1, e))
		return -1;
	for (int i = 0; i < NPROGS; i++)
		p->counts[i] = hints[i] > 0 ? hints[i] : 1;
	p->tiup = find_program("tiup");
	c->dir = absolute_dir(o->dir ? o->dir : "cluster");
	c->topology_path = xprintf("%s/topology.yaml", c->dir);
	c->timeout_ns = READY_TIMEOUT_NS;
	make_tag(c->dir, p->tag, sizeof(p->tag));
	/* A playground started before is known by the topology it wrote. */
	if (!access(c->topology_path, F_OK) &&
	    topology_read(c, c->topology_path, e))
		return -1;
	if (!cluster_find(c, "playground")) {
		drop_components(c);
		fill_tiup(c, add_component(c), 0);
	}
	if (!c->changefeed)
		c->changefeed = xstrdup("tichaos");
	return 0;
}

static void playground_close(struct cluster *c)
{
	struct playground *p = c->priv;

	if (!p)
		return;
	free(p->tiup);
	free(p->version);
	for (int k = 0; k < NPROGS; k++)
		free(p->binpath[k]);
	free(p);
	c->priv = NULL;
}

/* A playground's directory holds the pidfile of its `tiup playground`. */
static int playground_made_in(const char *dir)
{
	char *path = xprintf("%s/playground.pid", dir);
	int made = !access(path, F_OK);

	free(path);
	return made;
}

const struct cluster_type cluster_playground = {
	.name = "playground",
	.takes = CLUSTER_TAKES_DIR,
	.made = 1,
	.made_in = playground_made_in,
	.doc = "tiup playground: TiDB, PD, TiKV and TiCDC, replicating to a "
	       "second playground (--cluster playground[:VERSION])",
	.open = playground_open,
	.prepare = playground_prepare,
	.setup = playground_setup,
	.down = playground_down,
	.close = playground_close,
};
