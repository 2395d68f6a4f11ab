/*
 * partition: cut the network between the cluster's hosts for `down`
 * (docs/faults.md), as a switch that lost links would: what crosses a cut
 * is dropped without a word, so TCP connections hang and time out. The
 * hosts are the components on hosts of their own when there are any (a
 * table of nftables in the receiving host's namespace, lib/netns.h, or on
 * its SSH host), else those on this machine's loopback, told apart by
 * class (a table per receiving host here, lib/netcls.h). tichaos itself
 * reaches every host throughout.
 *
 * Who is cut off from whom is the shape, drawn from the planned choice as
 * Jepsen's nemeses draw theirs (jepsen.nemesis: partition-random-node,
 * partition-random-halves, partition-majorities-ring, bridge):
 *
 *   one       the picked components of `target` against the rest;
 *             `direction` in (they hear nothing) or out (nothing they
 *             send arrives) cuts one way only, which stops a TCP
 *             handshake either way but lets through what the other way
 *             still carries (UDP, the ACKs of a connection that was
 *             sending)
 *   halves    the hosts shuffled, the first n/2 against the rest
 *   majority  a minority against a majority ((n-1)/2 against the rest)
 *   bridge    two halves cut from each other, but one host between them
 *             that both still reach
 *   ring      each host reaches a majority (itself and its nearest
 *             neighbours on a shuffled ring), no two the same one; 5 hosts
 *             at least
 *
 * Both steps are verified by TCP connects from inside the hosts to each
 * other's servers, all at once: every connect across a cut must go
 * unanswered within `probe_timeout` and every other one must be answered
 * (a refusal is an answer); after the heal every one must be answered.
 * The history says who was on which side, what each host dropped and what
 * the probes found.
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clusters/cluster.h"
#include "clusters/host.h"
#include "core/plan.h"
#include "core/suite.h"
#include "faults/fault.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/netcls.h"
#include "lib/netns.h"
#include "lib/proc.h"
#include "lib/rand.h"

static const char *const shapes[] = {
	"one", "halves", "majority", "bridge", "ring", NULL,
};

enum { SHAPE_ONE, SHAPE_HALVES, SHAPE_MAJORITY, SHAPE_BRIDGE, SHAPE_RING };

static const char *const directions[] = { "both", "in", "out", NULL };

enum { DIR_BOTH, DIR_IN, DIR_OUT };

/* Hosts a shape needs at least. */
static const size_t shape_min[] = { 2, 2, 2, 3, 5 };

struct partition_opts {
	struct fault_target_opts t;
	int shape;
	int direction;
	int64_t probe_timeout;
};

static const struct optspec opts[] = {
	FAULT_COMMON_OPTS,
	{ "target", OPT_COMPONENT, NULL, 0, NULL, 0, 0,
	  "shape one: the role or component cut off from the rest",
	  OPT_AT(struct fault_target_opts, target) },
	{ "pick", OPT_ENUM, "one", 0, fault_pick_names, 0, 0,
	  "shape one: which of the target's running components",
	  OPT_AT(struct fault_target_opts, pick) },
	{ "shape", OPT_ENUM, "one", 0, shapes, 0, 0,
	  "who is cut from whom: one (the target against the rest), "
	  "halves, majority, bridge, ring",
	  OPT_AT(struct partition_opts, shape) },
	{ "direction", OPT_ENUM, "both", 0, directions, 0, 0,
	  "shape one: both ways, in (the target hears nothing) or out "
	  "(nothing the target sends arrives)",
	  OPT_AT(struct partition_opts, direction) },
	{ "probe_timeout", OPT_DURATION, "1s", 0, NULL, 0, 0,
	  "how long a connect across the cut must go unanswered",
	  OPT_AT(struct partition_opts, probe_timeout) },
};

/* The hosts of a partition and who drops whose packets. */
struct cut {
	int id;			/* the fault item's: its own chain */
	size_t n;
	struct component *hosts[NETNS_MAX_HOSTS];
	/* Its SSH host, where the cut is made over SSH; NULL: its netns,
	 * or its class when `loopback`. */
	struct host *ssh[NETNS_MAX_HOSTS];
	int loopback;
	struct netcls_host cls[NETNS_MAX_HOSTS];
	char addr[NETNS_MAX_HOSTS][16];
	/* What a listing of the cuts names the host by: its address, or
	 * its classid on the loopback ("0x2e3d4c02"). */
	char mark[NETNS_MAX_HOSTS][16];
	int port[NETNS_MAX_HOSTS];
	/* side[i]: the side host i is on (shapes with sides), -1: none */
	int side[NETNS_MAX_HOSTS];
	int nsides;
	/* drop[i][j]: host i drops what comes from host j */
	unsigned char drop[NETNS_MAX_HOSTS][NETNS_MAX_HOSTS];
};

static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	const struct partition_opts *o = it->opts;

	if (fault_check(s, it, e))
		return -1;
	if (o->shape == SHAPE_ONE && !o->t.target)
		return fault_error_at(e, s, it, &o->shape,
				      "fault 'partition' with shape one needs "
				      "a 'target': the side cut off from the "
				      "rest");
	if (o->shape != SHAPE_ONE && o->t.target)
		return fault_error_at(e, s, it, &o->t.target,
				      "fault 'partition': 'target' goes with "
				      "shape one; shape %s splits every host",
				      shapes[o->shape]);
	if (o->shape != SHAPE_ONE && suite_optval(it, &o->t.pick)->given)
		return fault_error_at(e, s, it, &o->t.pick,
				      "fault 'partition': 'pick' goes with "
				      "shape one; shape %s splits every host",
				      shapes[o->shape]);
	if (o->shape != SHAPE_ONE && o->direction != DIR_BOTH)
		return fault_error_at(e, s, it, &o->direction,
				      "fault 'partition': 'direction' goes "
				      "with shape one");
	if (fault_opts_of(it)->down <= 0)
		return fault_error_at(e, s, it, NULL,
				      "fault 'partition' needs a 'down' above "
				      "0s: the heal is what joins the hosts "
				      "again");
	return 0;
}

/* The port a host's server listens on: SQL, else etcd's, else HTTP's. */
static int port_of(const struct component *comp)
{
	const char *url = comp->etcd_url ? comp->etcd_url : comp->http_url;
	const char *colon;
	char *end;
	long port;

	if (comp->sql_port)
		return comp->sql_port;
	colon = url ? strrchr(url, ':') : NULL;
	if (!colon || colon == strchr(url, ':'))
		return 0;
	port = strtol(colon + 1, &end, 10);
	return end != colon + 1 && (!*end || *end == '/') && port > 0 &&
	       port <= 65535 ? (int)port : 0;
}

/* Component `comp`'s SSH host, or NULL (it runs here). */
static struct host *ssh_host(struct cluster *c, const struct component *comp)
{
	struct host *h = component_host(c, comp);

	return h == &host_local ? NULL : h;
}

/*
 * The hosts, into `hosts`: the components on hosts of their own (each in
 * a network namespace here, or on an SSH host) when there are any, else
 * those on this machine's loopback, told apart by class. Their count.
 */
static size_t hosts_of(struct cluster *c,
		       struct component *hosts[NETNS_MAX_HOSTS])
{
	size_t n = 0;
	int own;

	for (size_t i = 0; i < c->ncomps && n < NETNS_MAX_HOSTS; i++)
		if (c->comps[i].netns || ssh_host(c, &c->comps[i]))
			hosts[n++] = &c->comps[i];
	own = n > 0;
	for (size_t i = 0; !own && i < c->ncomps && n < NETNS_MAX_HOSTS; i++)
		if (component_on_loopback(c, &c->comps[i]) &&
		    port_of(&c->comps[i]))
			hosts[n++] = &c->comps[i];
	return n;
}

/* Two components on one SSH host, or one that is no IPv4 address. */
static int ssh_hosts_fit(struct cluster *c, struct component **hosts,
			 size_t n, struct buf *why)
{
	for (size_t i = 0; i < n; i++) {
		struct host *h = ssh_host(c, hosts[i]);
		struct in_addr a;

		if (!h)
			continue;
		if (inet_pton(AF_INET, h->ssh.address, &a) != 1) {
			buf_printf(why, NULL, "host %s's address '%s' is no "
				   "IPv4 address (what a cut drops)", h->name,
				   h->ssh.address);
			return -1;
		}
		for (size_t j = 0; j < i; j++)
			if (ssh_host(c, hosts[j]) == h) {
				buf_printf(why, NULL, "%s and %s share host "
					   "%s: a cut is made per host",
					   hosts[j]->name, hosts[i]->name,
					   h->name);
				return -1;
			}
	}
	return 0;
}

/* Cuts on the loopback: classes need root and net_cls. */
static int loopback_fits(const struct suite *s, const struct suite_item *it,
			 struct err *e)
{
	struct err why = ERR_INIT;

	if (netcls_usable(&why))
		return fault_error_at(e, s, it, NULL,
				      "fault 'partition' on the loopback "
				      "cannot tell the components apart: %s "
				      "(or use hosts: docs/topology.md)",
				      why.msg);
	return 0;
}

static int resolve(struct cluster *c, const struct suite *s,
		   const struct suite_item *it, struct err *e)
{
	const struct partition_opts *o = it->opts;
	struct component *hosts[NETNS_MAX_HOSTS], *named[FAULT_MAX_TARGETS];
	size_t n = hosts_of(c, hosts), k;
	char *nft = find_program("nft");
	struct buf why = BUF_INIT;
	int have_nft = nft != NULL;

	free(nft);
	if (n < 2)
		return fault_error_at(e, s, it, NULL,
				      "fault 'partition' needs two components "
				      "at least; this cluster has %zu", n);
	if (component_on_loopback(c, hosts[0]) && loopback_fits(s, it, e))
		return -1;
	if (n < shape_min[o->shape])
		return fault_error_at(e, s, it, &o->shape,
				      "fault 'partition': shape %s needs %zu "
				      "hosts at least; this cluster has %zu",
				      shapes[o->shape], shape_min[o->shape], n);
	if (!have_nft && n > 0 && hosts[0]->netns)
		return fault_error_at(e, s, it, NULL,
				      "fault 'partition': 'nft' not found "
				      "(install nftables, or run 'make deps')");
	if (ssh_hosts_fit(c, hosts, n, &why)) {
		fault_error_at(e, s, it, NULL, "fault "
			       "'partition': %s", buf_str(&why));
		buf_release(&why);
		return -1;
	}
	k = o->t.target ? fault_targets(c, o->t.target, 0, named) : 0;
	for (size_t i = 0; i < k; i++) {
		size_t h = 0;

		while (h < n && hosts[h] != named[i])
			h++;
		if (h == n)
			return fault_error_at(e, s, it, &o->t.target,
					      "fault 'partition': %s has no "
					      "host of its own to cut off",
					      named[i]->name);
	}
	return 0;
}

/* Host indices in an order drawn from the planned choice. */
static void shuffle(size_t *order, size_t n, uint64_t choice)
{
	struct rand r;

	rand_seed(&r, choice);
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	rand_shuffle(&r, order, n, n ? n - 1 : 0, sizeof(*order));
}

/* Cut every host of side a from every host of side b, both ways. */
static void cut_sides(struct cut *cut, int a, int b)
{
	for (size_t i = 0; i < cut->n; i++)
		for (size_t j = 0; j < cut->n; j++)
			if (cut->side[i] == a && cut->side[j] == b)
				cut->drop[i][j] = cut->drop[j][i] = 1;
}

/* The shapes that split the hosts of `cut` by a shuffle. */
static void shape_shuffled(struct cut *cut, int shape, uint64_t choice)
{
	size_t order[NETNS_MAX_HOSTS], n = cut->n;
	size_t first = shape == SHAPE_HALVES ? n / 2 : (n - 1) / 2;

	shuffle(order, n, choice);
	if (shape == SHAPE_RING) {
		/* Each sees itself and `reach` neighbours either way: a
		 * majority (n/2 + 1) of the hosts. */
		size_t reach = (n / 2 + 1) / 2;

		cut->nsides = 0;
		for (size_t a = 0; a < n; a++) {
			cut->side[order[a]] = -1;
			for (size_t b = 0; b < n; b++) {
				size_t d = a > b ? a - b : b - a;

				if (d > n - d)
					d = n - d;
				cut->drop[order[a]][order[b]] = d > reach;
			}
		}
		return;
	}
	for (size_t i = 0; i < n; i++)
		cut->side[order[i]] = i < first ? 0
				      : shape != SHAPE_BRIDGE ? 1
				      : i == first ? 1 : 2;
	cut->nsides = shape == SHAPE_BRIDGE ? 3 : 2;
	cut_sides(cut, 0, shape == SHAPE_BRIDGE ? 2 : 1);
}

/* Who is on which side and who drops whom, for event `ev`. */
static int draw(struct fault_ctx *ctx, const struct suite_item *it,
		const struct plan_event *ev, struct cut *cut,
		struct fault_action *act, struct err *e)
{
	const struct partition_opts *o = it->opts;

	if (o->shape != SHAPE_ONE) {
		shape_shuffled(cut, o->shape, ev->choice);
		return 0;
	}
	if (fault_pick(ctx, o->t.target, o->t.pick, ev->choice, act, e))
		return -1;
	cut->nsides = 2;
	for (size_t i = 0; i < cut->n; i++) {
		cut->side[i] = 1;
		for (size_t j = 0; j < act->ntargets; j++)
			if (act->targets[j] == cut->hosts[i])
				cut->side[i] = 0;
	}
	act->ntargets = 0;
	for (size_t i = 0; i < cut->n; i++)
		for (size_t j = 0; j < cut->n; j++)
			if (cut->side[i] == 0 && cut->side[j] == 1) {
				cut->drop[i][j] = o->direction != DIR_OUT;
				cut->drop[j][i] = o->direction != DIR_IN;
			}
	return 0;
}

static void append_names(struct buf *value, const struct cut *cut,
			 const unsigned char *pick)
{
	int first = 1;

	buf_addch(value, '[', NULL);
	for (size_t i = 0; i < cut->n; i++)
		if (pick[i]) {
			buf_printf(value, NULL, "%s\"%s\"", first ? "" : ",",
				   cut->hosts[i]->name);
			first = 0;
		}
	buf_addch(value, ']', NULL);
}

/* "sides":[[...],...] (when the shape has them) and "cuts":[...]. */
static void describe(const struct cut *cut, struct buf *value)
{
	unsigned char pick[NETNS_MAX_HOSTS];
	int first = 1;

	if (cut->nsides) {
		buf_addstr(value, "\"sides\":[", NULL);
		for (int s = 0; s < cut->nsides; s++) {
			for (size_t i = 0; i < cut->n; i++)
				pick[i] = cut->side[i] == s;
			if (s)
				buf_addch(value, ',', NULL);
			append_names(value, cut, pick);
		}
		buf_addstr(value, "],", NULL);
	}
	buf_addstr(value, "\"cuts\":[", NULL);
	for (size_t i = 0; i < cut->n; i++) {
		int any = 0;

		for (size_t j = 0; j < cut->n; j++)
			any |= pick[j] = cut->drop[i][j];
		if (!any)
			continue;
		buf_printf(value, NULL, "%s{\"host\":\"%s\",\"drops\":",
			   first ? "" : ",", cut->hosts[i]->name);
		append_names(value, cut, pick);
		buf_addch(value, '}', NULL);
		first = 0;
	}
	buf_addch(value, ']', NULL);
}

/* Run nft commands `script` on SSH host `h`. */
static int ssh_nft(struct host *h, const char *script, struct buf *out,
		   struct err *e)
{
	char *cmd = xprintf("nft '%s'", script);
	struct buf text = BUF_INIT;
	int code = h->ops->shell(h, cmd, &text, e);

	if (code > 0)
		err_set(e, ERR_INFRA, "%s: 'nft' failed (exit %d; it needs "
			"root there): %s", h->name, code, buf_str(&text));
	else if (!code && out)
		buf_addstr(out, buf_str(&text), NULL);
	buf_release(&text);
	free(cmd);
	return code == 0 ? 0 : -1;
}

/* What host i drops, by every cut, into `out`. */
static int host_dropped(const struct cut *cut, size_t i, struct buf *out,
			struct err *e)
{
	struct buf text = BUF_INIT;
	int code;

	if (cut->loopback)
		return netcls_cut_of(cut->cls[i].name, out, e);
	if (!cut->ssh[i])
		return netns_cut_of(cut->hosts[i]->netns, out, e);
	buf_reset(out);
	code = cut->ssh[i]->ops->shell(cut->ssh[i], "nft list table inet "
				       "tichaos 2>/dev/null", &text, e);
	if (code == 0)
		netns_dropped(buf_str(&text), out);
	buf_release(&text);
	return code < 0 ? -1 : 0;
}

/* Make host i drop what comes from hosts `from` (cut `id`; none: remove
 * it). */
static int host_cut(const struct cut *cut, size_t i, const size_t *from,
		    size_t k, struct err *e)
{
	const struct netcls_host *classes[NETNS_MAX_HOSTS];
	const char *addrs[NETNS_MAX_HOSTS];
	struct buf script = BUF_INIT;
	int rc;

	for (size_t j = 0; j < k; j++) {
		classes[j] = &cut->cls[from[j]];
		addrs[j] = cut->addr[from[j]];
	}
	if (cut->loopback)
		return netcls_cut(&cut->cls[i], cut->id, classes, k, e);
	if (!cut->ssh[i])
		return netns_cut(cut->hosts[i]->netns, cut->id, addrs, k, e);
	netns_cut_nft(cut->id, addrs, k, &script);
	rc = ssh_nft(cut->ssh[i], buf_str(&script), NULL, e);
	/* The last cut removed: the table goes too, nothing is left. */
	if (!rc && !k) {
		buf_reset(&script);
		rc = ssh_nft(cut->ssh[i], "list table inet tichaos", &script,
			     e);
		if (!rc && !strstr(buf_str(&script), "chain "))
			rc = ssh_nft(cut->ssh[i], NETNS_UNCUT_NFT, NULL, e);
	}
	buf_release(&script);
	return rc;
}

/*
 * Probes from SSH host `h`, all at once in one shell: bash's /dev/tcp
 * under timeout(1), whose exit 124 says no answer came (a refusal fails
 * at once: an answer).
 */
static int ssh_probe(struct host *h, struct netns_probe *p, size_t n,
		     int64_t timeout_ns, struct err *e)
{
	struct buf cmd = BUF_INIT, out = BUF_INIT;
	int code;

	for (size_t i = 0; i < n; i++)
		buf_printf(&cmd, NULL, "(timeout %.3f bash -c 'exec 3<>"
			   "/dev/tcp/%s/%d' 2>/dev/null; echo \"%zu $?\") & ",
			   (double)timeout_ns / NS_PER_SEC, p[i].addr,
			   p[i].port, i);
	buf_addstr(&cmd, "wait", NULL);
	code = h->ops->shell(h, buf_str(&cmd), &out, e);
	for (size_t i = 0; code == 0 && i < n; i++) {
		char want[32];
		const char *at;

		snprintf(want, sizeof(want), "%zu ", i);
		for (at = buf_str(&out); at && strncmp(at, want, strlen(want));
		     at = strchr(at, '\n') ? strchr(at, '\n') + 1 : NULL)
			;
		p[i].answered = at &&
				strtol(at + strlen(want), NULL, 10) != 124;
		if (!p[i].answered)
			snprintf(p[i].why, sizeof(p[i].why), "no answer from "
				 "%s:%d within %lld ms (from %s)", p[i].addr,
				 p[i].port, (long long)(timeout_ns /
							NS_PER_MS), h->name);
	}
	if (code > 0)
		err_set(e, ERR_INFRA, "%s: the probes failed (exit %d)",
			h->name, code);
	buf_release(&cmd);
	buf_release(&out);
	return code == 0 ? 0 : -1;
}

/* One SSH host's probes, on a thread of its own. */
struct ssh_probing {
	struct host *h;
	struct netns_probe *p;
	size_t n;
	int64_t timeout_ns;
	struct err e;
	int rc;
};

static void *ssh_probe_main(void *arg)
{
	struct ssh_probing *s = arg;

	s->rc = ssh_probe(s->h, s->p, s->n, s->timeout_ns, &s->e);
	return NULL;
}

/* Probe from here, the namespaces and every SSH host, all at once. */
static int probe_all(const struct cut *cut, struct netns_probe *probes,
		     size_t np, int64_t timeout_ns, struct err *e)
{
	struct netns_probe here[NETNS_MAX_HOSTS * (NETNS_MAX_HOSTS + 1)];
	struct ssh_probing remote[NETNS_MAX_HOSTS];
	pthread_t threads[NETNS_MAX_HOSTS];
	int started[NETNS_MAX_HOSTS];
	size_t nh = 0, per = cut->n - 1;
	int rc;

	/* probes: each host's `per` (every other host), then here's
	 * cut->n (every host): np in all. */
	for (size_t i = 0; i < cut->n; i++)
		if (!cut->ssh[i])
			for (size_t k = 0; k < per; k++)
				here[nh++] = probes[i * per + k];
	for (size_t k = cut->n * per; k < np; k++)
		here[nh++] = probes[k];
	for (size_t i = 0; i < cut->n; i++) {
		struct ssh_probing *s = &remote[i];

		*s = (struct ssh_probing){ cut->ssh[i], &probes[i * per], per,
					   timeout_ns, ERR_INIT, 0 };
		started[i] = cut->ssh[i] && !pthread_create(&threads[i], NULL,
							    ssh_probe_main, s);
		if (cut->ssh[i] && !started[i])
			ssh_probe_main(s);
	}
	rc = netns_probe(here, nh, timeout_ns, e);
	nh = 0;
	for (size_t i = 0; i < cut->n; i++) {
		if (started[i])
			pthread_join(threads[i], NULL);
		if (cut->ssh[i] && remote[i].rc && !err_isset(e)) {
			*e = remote[i].e;
			rc = -1;
		}
		for (size_t k = 0; !cut->ssh[i] && k < per; k++)
			probes[i * per + k] = here[nh++];
	}
	for (size_t k = cut->n * per; !rc && k < np; k++)
		probes[k] = here[nh++];
	return rc;
}

/*
 * What every host drops now, by every cut (other fault items' too), as
 * the kernel has it: now[i][j], host i drops host j.
 */
static int in_kernel(const struct cut *cut,
		     unsigned char now[NETNS_MAX_HOSTS][NETNS_MAX_HOSTS],
		     struct err *e)
{
	struct buf drops = BUF_INIT;
	int rc = 0;

	memset(now, 0, NETNS_MAX_HOSTS * NETNS_MAX_HOSTS);
	for (size_t i = 0; i < cut->n && !rc; i++) {
		rc = host_dropped(cut, i, &drops, e);
		for (size_t j = 0; j < cut->n && !rc; j++) {
			const char *at = strstr(buf_str(&drops), cut->mark[j]);
			size_t len = strlen(cut->mark[j]);

			/* Whole addresses: "10.0.0.2" is not "10.0.0.21". */
			while (at && at[len] && at[len] != ' ')
				at = strstr(at + 1, cut->mark[j]);
			now[i][j] = at != NULL;
		}
	}
	buf_release(&drops);
	return rc;
}

/*
 * Probe every host from every other, and every host from here: a connect
 * from i to j must go unanswered exactly when j drops i or i drops j, as
 * the kernel has it (a TCP handshake needs both ways: a one-way cut stops
 * it either way; another item's cut counts too), and this cut must be in
 * the kernel as drawn, or gone once `healed`. Appends "probes":{...}; -1
 * with what was wrong.
 */
static int verify(const struct cut *cut, int healed, int64_t timeout_ns,
		  struct buf *value, struct err *e)
{
	struct netns_probe probes[NETNS_MAX_HOSTS * (NETNS_MAX_HOSTS + 1)];
	unsigned char now[NETNS_MAX_HOSTS][NETNS_MAX_HOSTS];
	size_t np = 0, ncut = 0, nopen = 0;
	int64_t start = clock_mono_ns();
	int rc;

	if (in_kernel(cut, now, e))
		return -1;
	for (size_t i = 0; i < cut->n; i++)
		for (size_t j = 0; j < cut->n; j++)
			if (!healed && cut->drop[i][j] && !now[i][j])
				return err_set(e, ERR_INFRA, "%s does not drop "
					       "what comes from %s, though "
					       "cut", cut->hosts[i]->name,
					       cut->hosts[j]->name);

	for (size_t i = 0; i <= cut->n; i++)
		for (size_t j = 0; j < cut->n; j++) {
			if (i == j)
				continue;
			probes[np].ns = i < cut->n ? cut->hosts[i]->netns
						   : NULL;
			probes[np].cls = i < cut->n && cut->loopback
					 ? cut->cls[i].name : NULL;
			probes[np].addr = cut->addr[j];
			probes[np].port = cut->port[j];
			np++;
		}
	rc = probe_all(cut, probes, np, timeout_ns, e);
	for (size_t i = 0, p = 0; !rc && i <= cut->n; i++)
		for (size_t j = 0; j < cut->n && !rc; j++) {
			const char *from = i < cut->n ? cut->hosts[i]->name
						      : "tichaos";
			int dropped = i < cut->n &&
				      (now[j][i] || now[i][j]);

			if (i == j)
				continue;
			if (dropped && probes[p].answered)
				rc = err_set(e, ERR_INFRA, "the cut did not "
					     "take: %s reached %s (%s:%d)",
					     from, cut->hosts[j]->name,
					     probes[p].addr, probes[p].port);
			else if (!dropped && !probes[p].answered)
				rc = err_set(e, ERR_INFRA, "%s does not reach "
					     "%s%s: %s", from,
					     cut->hosts[j]->name, healed
					     ? " after the heal"
					     : ", though nothing cuts them",
					     probes[p].why);
			ncut += dropped;
			nopen += !dropped;
			p++;
		}
	buf_printf(value, NULL, "%s\"probes\":{\"unanswered\":%zu,"
		   "\"answered\":%zu,\"ms\":%lld}", value->len ? "," : "",
		   ncut, nopen,
		   (long long)((clock_mono_ns() - start) / NS_PER_MS));
	return rc;
}

/*
 * Host i on the loopback: its class, with the process that runs it (if
 * any) and its ports, those it is configured with and those it listens
 * on, and the address it answers at.
 */
static int gather_class(struct cluster *c, struct cut *cut, size_t i,
			struct err *e)
{
	const struct component *comp = cut->hosts[i];
	struct netcls_host *h = &cut->cls[i];
	const char *url = comp->etcd_url ? comp->etcd_url : comp->http_url;
	pid_t pid = component_pid(c, comp);
	size_t k = 0;

	component_netcls(c, comp, h);
	if (netcls_join(h, pid > 0 ? pid : 0, e) ||
	    (pid > 0 && netcls_ports(h, pid, e)))
		return -1;
	while (k < h->nports && h->ports[k] != cut->port[i])
		k++;
	if (k == h->nports && h->nports < NETCLS_MAX_PORTS)
		h->ports[h->nports++] = cut->port[i];
	snprintf(cut->mark[i], sizeof(cut->mark[i]), "0x%08x",
		 (unsigned)h->classid);
	if (comp->sql_port && comp->sql_host)
		snprintf(cut->addr[i], sizeof(cut->addr[i]), "%s",
			 comp->sql_host);
	else if (url && strstr(url, "://"))
		snprintf(cut->addr[i], sizeof(cut->addr[i]), "%.*s",
			 (int)strcspn(strstr(url, "://") + 3, ":/"),
			 strstr(url, "://") + 3);
	if (inet_addr(cut->addr[i]) == INADDR_NONE)
		snprintf(cut->addr[i], sizeof(cut->addr[i]), "127.0.0.1");
	return 0;
}

/* Fill the hosts of `cut`: components on hosts, their addresses. */
static int gather(struct cluster *c, struct cut *cut, struct err *e)
{
	memset(cut, 0, sizeof(*cut));
	cut->n = hosts_of(c, cut->hosts);
	cut->loopback = cut->n && component_on_loopback(c, cut->hosts[0]);
	for (size_t i = 0; i < cut->n; i++) {
		cut->port[i] = port_of(cut->hosts[i]);
		cut->ssh[i] = ssh_host(c, cut->hosts[i]);
		if (cut->loopback) {
			if (gather_class(c, cut, i, e))
				return -1;
			continue;
		}
		if (cut->ssh[i])
			snprintf(cut->addr[i], sizeof(cut->addr[i]), "%s",
				 cut->ssh[i]->ssh.address);
		else if (netns_addr(cut->hosts[i]->netns, cut->addr[i],
				    sizeof(cut->addr[i]), NULL, e))
			return -1;
		snprintf(cut->mark[i], sizeof(cut->mark[i]), "%s",
			 cut->addr[i]);
	}
	return 0;
}

/* Apply the drops of host i; 0 when it has none. */
static int apply(const struct cut *cut, size_t i, int *applied,
		 struct err *e)
{
	size_t from[NETNS_MAX_HOSTS], k = 0;

	for (size_t j = 0; j < cut->n; j++)
		if (cut->drop[i][j])
			from[k++] = j;
	*applied = k > 0;
	return k ? host_cut(cut, i, from, k, e) : 0;
}

static int inject(struct fault_ctx *ctx, const struct suite_item *it,
		  const struct plan_event *ev, struct fault_action *act,
		  struct buf *value, struct err *e)
{
	const struct partition_opts *o = it->opts;
	struct cut *cut = xcalloc(1, sizeof(*cut));
	int rc;

	act->ntargets = 0;
	rc = gather(ctx->cluster, cut, e) || draw(ctx, it, ev, cut, act, e);
	cut->id = act->item_index;
	if (rc) {
		free(cut);
		return -1;
	}
	act->state = cut;
	buf_printf(value, NULL, "\"shape\":\"%s\",\"direction\":\"%s\",",
		   shapes[o->shape], directions[o->direction]);
	describe(cut, value);
	/* act->targets: the hosts that drop something, to be healed. */
	for (size_t i = 0; i < cut->n && !rc; i++) {
		int applied = 0;

		rc = apply(cut, i, &applied, e);
		if (applied && !rc)
			act->targets[act->ntargets++] = cut->hosts[i];
	}
	return rc || verify(cut, 0, o->probe_timeout, value, e) ? -1 : 0;
}

static int heal(struct fault_ctx *ctx, struct fault_action *act,
		struct buf *value, struct err *e)
{
	const struct partition_opts *o = act->item->opts;
	const struct cut *cut = act->state;
	int rc = 0;

	(void)ctx;
	buf_addstr(value, "\"rejoined\":[", NULL);
	for (size_t i = 0; i < act->ntargets; i++) {
		struct err one = ERR_INIT;

		buf_printf(value, NULL, "%s\"%s\"", i ? "," : "",
			   act->targets[i]->name);
		size_t h = 0;

		while (h + 1 < cut->n && cut->hosts[h] != act->targets[i])
			h++;
		if (host_cut(cut, h, NULL, 0, &one) && !rc) {
			*e = one;
			rc = -1;
		}
	}
	buf_addch(value, ']', NULL);
	return rc || verify(cut, 1, o->probe_timeout, value, e) ? -1 : 0;
}

static const char *target(struct fault_ctx *ctx, const struct suite_item *it)
{
	const struct partition_opts *o = it->opts;

	(void)ctx;
	return o->t.target ? o->t.target : shapes[o->shape];
}

/* Who was cut from whom: its "cuts" (describe). */
/*
 * What component `comp`'s host drops by the cuts of a partition, into
 * `found`: its namespace's here, or its SSH host's (a host without
 * nftables, or that does not let us list it, has none).
 */
static int cuts_of(struct cluster *c, const struct component *comp,
		   struct buf *found, struct err *e)
{
	struct host *h = component_host(c, comp);
	struct buf text = BUF_INIT;

	if (h == &host_local)
		return comp->netns ? netns_cut_of(comp->netns, found, e) : 0;
	buf_reset(found);
	if (h->ops->shell(h, "nft list table inet tichaos 2>/dev/null", &text,
			  NULL) == 0)
		netns_dropped(buf_str(&text), found);
	buf_release(&text);
	return 0;
}

/*
 * What a run killed while a partition held left: the cuts on the
 * components' hosts, here or over SSH; removed, each said (the fault's
 * sweep). A cut on the loopback is a table of the components' classes
 * (lib/netcls.h), which goes with them when cluster_up removes them,
 * said as one an earlier run left.
 */
static int sweep(struct cluster *c, struct err *e)
{
	struct buf found = BUF_INIT;
	int rc = 0;

	for (size_t i = 0; !rc && i < c->ncomps; i++) {
		const struct component *comp = &c->comps[i];
		struct host *h = component_host(c, comp);

		if (!component_host_first(c, i))
			continue;
		rc = cuts_of(c, comp, &found, e);
		if (rc || !found.len)
			continue;
		log_warn("%s: removing a partition an earlier run left (it "
			 "dropped what came from %s)", comp->name,
			 buf_str(&found));
		if (h == &host_local)
			rc = netns_uncut(comp->netns, e);
		else if (h->ops->shell(h, "nft '" NETNS_UNCUT_NFT "'", NULL, e))
			rc = err_isset(e) ? -1 : err_set(e, ERR_INFRA, "%s: "
				"cannot remove its cut (nft)", h->name);
	}
	buf_release(&found);
	return rc;
}

/* Its hosts, named in its value's "cuts", are drawn cut off. */
static const struct fault_holds holds = { "cut", "cut off", "cut off",
					  "#9467bd", 3, NULL, NULL };

const struct fault_type fault_partition = {
	.kind = { "partition", "cut the network between hosts for `down`: "
		  "the target from the rest, or a shape (halves, majority, "
		  "bridge, ring)",
		  opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct partition_opts), .check = check,
		  .plan = fault_plan },
	.resolve = resolve,
	.inject = inject,
	.heal = heal,
	.heal_name = "rejoin",
	.target = target,
	.forget = free,
	.holds = &holds,
	.sweep = sweep,
};
