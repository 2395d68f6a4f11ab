/*
 * partition: cut the network between the cluster's hosts for `down`
 * (docs/faults.md), as a switch that lost links would: what crosses a cut
 * is dropped without a word (lib/netns.h: a table of nftables in the
 * receiving host's namespace), so TCP connections hang and time out.
 * tichaos itself, on the bridge, reaches every host throughout.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clusters/cluster.h"
#include "core/plan.h"
#include "core/suite.h"
#include "faults/fault.h"
#include "lib/clock.h"
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
	char addr[NETNS_MAX_HOSTS][16];
	int port[NETNS_MAX_HOSTS];
	/* side[i]: the side host i is on (shapes with sides), -1: none */
	int side[NETNS_MAX_HOSTS];
	int nsides;
	/* drop[i][j]: host i drops what comes from host j */
	unsigned char drop[NETNS_MAX_HOSTS][NETNS_MAX_HOSTS];
};

/* Where option `field` was given, else (or with NULL) the item. */
static const struct ynode *at_option(const struct suite_item *it,
				     const void *field, struct ynode *node)
{
	const struct optval *v = field ? suite_optval(it, field) : NULL;

	node->kind = YNODE_SCALAR;
	node->line = v && v->line ? v->line : it->line;
	node->col = v && v->line ? v->col : it->col;
	return node;
}

static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	const struct partition_opts *o = it->opts;
	struct ynode at = { 0 };

	if (fault_check(s, it, e))
		return -1;
	if (o->shape == SHAPE_ONE && !o->t.target)
		return ynode_error(e, s->path, at_option(it, &o->shape, &at),
				   "fault 'partition' with shape one needs a "
				   "'target': the side cut off from the rest");
	if (o->shape != SHAPE_ONE && o->t.target)
		return ynode_error(e, s->path, at_option(it, &o->t.target, &at),
				   "fault 'partition': 'target' goes with "
				   "shape one; shape %s splits every host",
				   shapes[o->shape]);
	if (o->shape != SHAPE_ONE && o->direction != DIR_BOTH)
		return ynode_error(e, s->path, at_option(it, &o->direction,
							 &at),
				   "fault 'partition': 'direction' goes with "
				   "shape one");
	if (fault_opts_of(it)->down <= 0)
		return ynode_error(e, s->path, at_option(it, NULL, &at),
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

	if (comp->sql_port)
		return comp->sql_port;
	colon = url ? strrchr(url, ':') : NULL;
	return colon && colon > strchr(url, ':') ? atoi(colon + 1) : 0;
}

/* The components on hosts of their own, into `hosts`; their count. */
static size_t hosts_of(struct cluster *c,
		       struct component *hosts[NETNS_MAX_HOSTS])
{
	size_t n = 0;

	for (size_t i = 0; i < c->ncomps && n < NETNS_MAX_HOSTS; i++)
		if (c->comps[i].netns)
			hosts[n++] = &c->comps[i];
	return n;
}

static int resolve(struct cluster *c, const struct suite *s,
		   const struct suite_item *it, struct err *e)
{
	const struct partition_opts *o = it->opts;
	struct component *hosts[NETNS_MAX_HOSTS], *named[FAULT_MAX_TARGETS];
	size_t n = hosts_of(c, hosts), k;
	struct ynode at = { 0 };
	char *nft = find_program("nft");

	free(nft);
	if (n < 2)
		return ynode_error(e, s->path, at_option(it, NULL, &at),
				   "fault 'partition' needs components on "
				   "hosts of their own (docs/topology.md, "
				   "Hosts); this cluster has %zu (the local "
				   "cluster with --hosts on makes them)", n);
	if (n < shape_min[o->shape])
		return ynode_error(e, s->path, at_option(it, &o->shape, &at),
				   "fault 'partition': shape %s needs %zu "
				   "hosts at least; this cluster has %zu",
				   shapes[o->shape], shape_min[o->shape], n);
	if (!nft)
		return ynode_error(e, s->path, at_option(it, NULL, &at),
				   "fault 'partition': 'nft' not found "
				   "(install nftables, or run 'make deps')");
	k = o->t.target ? fault_targets(c, o->t.target, 0, named) : 0;
	for (size_t i = 0; i < k; i++)
		if (!named[i]->netns)
			return ynode_error(e, s->path,
					   at_option(it, &o->t.target, &at),
					   "fault 'partition': %s has no host "
					   "of its own to cut off",
					   named[i]->name);
	return 0;
}

/* Shuffle host indices with the planned choice. */
static void shuffle(size_t *order, size_t n, uint64_t choice)
{
	struct rand r;

	rand_seed(&r, choice);
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = 0; i + 1 < n; i++) {
		size_t j = i + (size_t)rand_below(&r, n - i), tmp = order[i];

		order[i] = order[j];
		order[j] = tmp;
	}
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
		rc = netns_cut_of(cut->hosts[i]->netns, &drops, e);
		for (size_t j = 0; j < cut->n && !rc; j++) {
			const char *at = strstr(buf_str(&drops), cut->addr[j]);
			size_t len = strlen(cut->addr[j]);

			/* Whole addresses: "10.0.0.2" is not "10.0.0.21". */
			while (at && at[len] && at[len] != ' ')
				at = strstr(at + 1, cut->addr[j]);
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
			probes[np].addr = cut->addr[j];
			probes[np].port = cut->port[j];
			np++;
		}
	rc = netns_probe(probes, np, timeout_ns, e);
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

/* Fill the hosts of `cut`: components on hosts, their addresses. */
static int gather(struct cluster *c, struct cut *cut, struct err *e)
{
	memset(cut, 0, sizeof(*cut));
	cut->n = hosts_of(c, cut->hosts);
	for (size_t i = 0; i < cut->n; i++) {
		cut->port[i] = port_of(cut->hosts[i]);
		if (netns_addr(cut->hosts[i]->netns, cut->addr[i],
			       sizeof(cut->addr[i]), e))
			return -1;
	}
	return 0;
}

/* Apply the drops of host i; 0 when it has none. */
static int apply(const struct cut *cut, size_t i, int *applied,
		 struct err *e)
{
	const char *addrs[NETNS_MAX_HOSTS];
	size_t k = 0;

	for (size_t j = 0; j < cut->n; j++)
		if (cut->drop[i][j])
			addrs[k++] = cut->addr[j];
	*applied = k > 0;
	return k ? netns_cut(cut->hosts[i]->netns, cut->id, addrs, k, e) : 0;
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
		if (netns_cut(act->targets[i]->netns, cut->id, NULL, 0, &one) &&
		    !rc) {
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
};
