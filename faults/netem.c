/*
 * netem: degrade what the picked components' hosts send, for `down`
 * (docs/faults.md), as a bad link would: packets lost, sent twice, held
 * back (and some sent ahead of the held ones), or no more than a rate a
 * second. Each host's eth0 is degraded on its way out (lib/netns.h,
 * netns_degrade): loss and duplicate with a table of nftables, rate with
 * tc's tbf, delay, its jitter and reorder with tc's netem, which not
 * every kernel has: an item that needs it is refused before anything
 * starts where it is missing. What the host receives is left alone. On
 * an SSH host the same commands run there, through its connection, on
 * the interface that carries its address, and the rate's transfer is
 * sent by bash's /dev/tcp there.
 *
 * Both steps are verified by measuring, from here (the bridge):
 *
 *   loss,       connects to a port nothing listens on, each answered by
 *   duplicate   one reset from the host, in rounds of FLOOD_BATCH until
 *               each percentage expects FLOOD_EXPECT packets of its own
 *               (at most FLOOD_MAX_BATCHES rounds); the table's counters
 *               must then say it dropped (sent twice) as many as the
 *               percentage of what it saw, within 6 standard deviations
 *               and COUNT_SLACK packets, and at least one when
 *               FLOOD_EXPECT were expected (missed with a chance of
 *               e^-20). Healed: the table is gone and every connect of a
 *               round is answered.
 *   delay       DELAY_PROBES connects at once (REORDER_PROBES with
 *               reorder); the median must take delay - delay_jitter at
 *               least (netem's jitter is uniform: none takes less), and
 *               with reorder the share answered sooner must be the
 *               percentage, within the same bounds. Healed: the median
 *               is below delay - delay_jitter.
 *   rate        a transfer out of the host over one TCP connection (a
 *               second at the rate, and 20 of tbf's buckets at least):
 *               its throughput must be at most the rate and
 *               RATE_TOLERANCE more. Healed: above the rate.
 */
#include <arpa/inet.h>
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
#include "lib/netns.h"
#include "lib/parse.h"
#include "lib/proc.h"
#include "lib/throughput.h"

struct netem_opts {
	struct fault_target_opts t;
	int64_t delay;
	int64_t delay_jitter;
	double reorder;		/* percentages; 0: none */
	double loss;
	double duplicate;
	const char *rate;	/* "1mbit"; NULL: none */
};

static const struct optspec opts[] = {
	FAULT_COMMON_OPTS,
	FAULT_TARGET_OPTS,
	{ "delay", OPT_DURATION, NULL, 0, NULL, 0, 0,
	  "netem: how long each packet the target sends is held",
	  OPT_AT(struct netem_opts, delay) },
	{ "delay_jitter", OPT_DURATION, NULL, 0, NULL, 0, 0,
	  "netem: the delay varies by up to this either way, uniformly "
	  "(below delay)", OPT_AT(struct netem_opts, delay_jitter) },
	{ "reorder", OPT_FLOAT, NULL, 0, NULL, 0, 0,
	  "netem, with delay: the percentage of packets sent at once, ahead "
	  "of the delayed ones", OPT_AT(struct netem_opts, reorder) },
	{ "loss", OPT_FLOAT, NULL, 0, NULL, 0, 0,
	  "the percentage of packets the target sends that are dropped "
	  "(nftables)", OPT_AT(struct netem_opts, loss) },
	{ "duplicate", OPT_FLOAT, NULL, 0, NULL, 0, 0,
	  "the percentage of the rest that are sent twice (nftables)",
	  OPT_AT(struct netem_opts, duplicate) },
	{ "rate", OPT_STRING, NULL, 0, NULL, 0, 0,
	  "the most the target sends a second: 100kbit to 1gbit (tc's tbf)",
	  OPT_AT(struct netem_opts, rate) },
};

#define RATE_MIN 100000
#define RATE_MAX 1000000000
/* How far above the rate a measured throughput may be, relative. */
#define RATE_TOLERANCE 0.1
/* A transfer at the rate lasts this long, and is this big at least. */
#define TRANSFER_NS NS_PER_SEC
#define TRANSFER_MIN (64 * 1024)
/* Where the probes connect: a port nothing listens on. */
#define CLOSED_PORT 1
#define FLOOD_BATCH 200
#define FLOOD_MAX_BATCHES 100
#define FLOOD_WAIT_NS (50 * NS_PER_MS)
/*
 * The round after a heal, whose every connect must be answered: waited
 * for long enough that a busy machine answers it, and less than the
 * first retransmission of a SYN (Linux's TCP_TIMEOUT_INIT, 1 s), so
 * that a connect whose SYN a table still dropped is not answered by its
 * second try.
 */
#define REACH_WAIT_NS (800 * NS_PER_MS)
#define FLOOD_EXPECT 20
/* Packets the counters may be off by, read one rule after another. */
#define COUNT_SLACK 2
#define DELAY_PROBES 21
#define REORDER_PROBES 101

/* The percentage options, in the order they are checked. */
static const struct {
	const char *name;
	size_t at;
} percents[] = {
	{ "reorder", offsetof(struct netem_opts, reorder) },
	{ "loss", offsetof(struct netem_opts, loss) },
	{ "duplicate", offsetof(struct netem_opts, duplicate) },
};

/* Percentage `pct` in tenths, or -1 when it is not 0 or 0.1 to 100 in
 * steps of 0.1. */
static int per_mille(double pct)
{
	int pm = (int)(pct * 10 + 0.5);
	double off = pct * 10 - pm;

	if (pct > 100 || off > 1e-6 || off < -1e-6 || (pct > 0 && !pm))
		return -1;
	return pm;
}

static int check_values(const struct suite *s, const struct suite_item *it,
			struct err *e)
{
	const struct netem_opts *o = it->opts;
	struct err why = ERR_INIT;
	uint64_t bps;

	for (size_t i = 0; i < sizeof(percents) / sizeof(*percents); i++) {
		const double *v = (const double *)((const char *)o +
						   percents[i].at);

		if (per_mille(*v) < 0)
			return fault_error_at(e, s, it, v,
					      "%s in fault 'netem' must be a "
					      "percentage from 0.1 to 100 in "
					      "steps of 0.1 (0: none), not %g",
					      percents[i].name, *v);
	}
	if (o->rate && parse_rate(o->rate, &bps, &why))
		return fault_error_at(e, s, it, &o->rate,
				      "rate in fault 'netem': %s", why.msg);
	if (o->rate && (bps < RATE_MIN || bps > RATE_MAX))
		return fault_error_at(e, s, it, &o->rate,
				      "rate in fault 'netem' must be from "
				      "100kbit to 1gbit, not %s", o->rate);
	return 0;
}

static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	const struct netem_opts *o = it->opts;
	char d[32];

	if (fault_check(s, it, e))
		return -1;
	if (!o->delay && !o->reorder && !o->loss && !o->duplicate && !o->rate)
		return fault_error_at(e, s, it, NULL,
				      "fault 'netem' needs at least one of "
				      "delay, loss, duplicate, reorder, rate");
	if (check_values(s, it, e))
		return -1;
	if (o->delay_jitter && o->delay_jitter >= o->delay)
		return fault_error_at(e, s, it, &o->delay_jitter,
				      "fault 'netem': 'delay_jitter' must be "
				      "below 'delay' (%s)",
				      format_duration(o->delay, d, sizeof(d)));
	if (o->reorder && !o->delay)
		return fault_error_at(e, s, it, &o->reorder,
				      "fault 'netem': 'reorder' needs a "
				      "'delay': netem sends that share at once "
				      "and delays the rest");
	if (fault_opts_of(it)->down <= 0)
		return fault_error_at(e, s, it, NULL,
				      "fault 'netem' needs a 'down' above 0s: "
				      "the heal is what restores the link");
	return 0;
}

/* `name` (tc, nft) is installed here, else a refusal saying so. */
static int need_program(const struct suite *s, const struct suite_item *it,
			const char *name, const char *package, struct err *e)
{
	char *path = find_program(name);

	if (path) {
		free(path);
		return 0;
	}
	return fault_error_at(e, s, it, NULL, "fault "
			      "'netem': '%s' not found (install %s, or run "
			      "'make deps')", name, package);
}

/* Component `comp`'s SSH host, or NULL (it runs here). */
static struct host *ssh_host(struct cluster *c, const struct component *comp)
{
	struct host *h = component_host(c, comp);

	return h == &host_local ? NULL : h;
}

/* The host whose link to degrade for `comp`: its namespace, or its SSH
 * host. */
static int at_of(struct cluster *c, const struct component *comp,
		 struct nettool_at *at, struct err *e)
{
	struct host *h = ssh_host(c, comp);

	if (h)
		return host_link_at(h, at, e);
	nettool_at_ns(at, comp->netns);
	return 0;
}

/* `comp` has a host of its own: a namespace here, or an SSH host at an
 * IPv4 address (what the probes connect to). */
static int own_host(struct cluster *c, const struct suite *s,
		    const struct suite_item *it, const struct component *comp,
		    struct err *e)
{
	const struct netem_opts *o = it->opts;
	struct host *h = ssh_host(c, comp);
	struct in_addr a;

	if (h && inet_pton(AF_INET, h->ssh.address, &a) != 1)
		return fault_error_at(e, s, it, &o->t.target,
				      "fault 'netem': host %s's address '%s' "
				      "is no IPv4 address (what the probes "
				      "measure)", h->name, h->ssh.address);
	if (!h && !comp->netns)
		return fault_error_at(e, s, it, &o->t.target,
				      "fault 'netem': %s has no host "
				      "of its own whose link to "
				      "degrade (docs/topology.md, "
				      "Hosts; the local cluster with "
				      "--hosts on makes them)",
				      comp->name);
	return 0;
}

/* Netem in the kernel of `comp`'s host, for a delay. */
static int has_netem(struct cluster *c, const struct suite *s,
		     const struct suite_item *it,
		     const struct component *comp, struct err *e)
{
	const struct netem_opts *o = it->opts;
	struct nettool_at at;
	int has = at_of(c, comp, &at, e) ? -1 : netns_has_netem(&at, e);

	if (has == 0)
		return fault_error_at(e, s, it, &o->delay,
				      "fault 'netem': the kernel has no netem "
				      "queueing discipline (sch_netem), which "
				      "delay, delay_jitter and reorder need");
	return has < 0 ? -1 : 0;
}

/* Every component `target` names has a host of its own, here with the
 * tools its degradation needs, and netem in the kernel for a delay (on
 * every SSH host, and the first here: one kernel). */
static int resolve(struct cluster *c, const struct suite *s,
		   const struct suite_item *it, struct err *e)
{
	const struct netem_opts *o = it->opts;
	struct component *named[FAULT_MAX_TARGETS];
	size_t n = fault_targets(c, o->t.target, 0, named);
	int here = 0;

	for (size_t i = 0; i < n; i++) {
		if (own_host(c, s, it, named[i], e))
			return -1;
		here |= !ssh_host(c, named[i]);
	}
	if (here && (o->delay || o->rate) &&
	    need_program(s, it, "tc", "iproute2", e))
		return -1;
	if (here && (o->loss || o->duplicate) &&
	    need_program(s, it, "nft", "nftables", e))
		return -1;
	for (size_t i = 0, local = 0; o->delay && i < n; i++) {
		if (!ssh_host(c, named[i]) && local++)
			continue;
		if (has_netem(c, s, it, named[i], e))
			return -1;
	}
	return 0;
}

static void link_of(const struct netem_opts *o, struct netns_link *link)
{
	memset(link, 0, sizeof(*link));
	link->delay_ns = o->delay;
	link->jitter_ns = o->delay_jitter;
	link->reorder_pm = per_mille(o->reorder);
	link->loss_pm = per_mille(o->loss);
	link->duplicate_pm = per_mille(o->duplicate);
	if (o->rate)
		parse_rate(o->rate, &link->rate_bps, NULL);
}

/*
 * `x` of `n` packets, each drawn with probability `p`: within 6 standard
 * deviations and COUNT_SLACK of n p (compared squared), and at least one
 * when FLOOD_EXPECT were expected. Else an error naming `comp` and `what`
 * it did.
 */
static int plausible(const struct component *comp, const char *what,
		     uint64_t x, uint64_t n, double p, struct err *e)
{
	double mu = (double)n * p;
	double off = (double)x > mu ? (double)x - mu : mu - (double)x;

	off = off > COUNT_SLACK ? off - COUNT_SLACK : 0;
	if (off * off <= 36 * mu * (1 - p) && (x > 0 || mu < FLOOD_EXPECT))
		return 0;
	return err_set(e, ERR_INFRA, "%s %s %llu of %llu packets: not %g%% of "
		       "them (%.0f expected)", comp->name, what,
		       (unsigned long long)x, (unsigned long long)n, p * 100,
		       mu);
}

/* `batches` rounds of FLOOD_BATCH connects from here to CLOSED_PORT of
 * `addr`, each round abandoned after `wait_ns`; *answered: how many
 * were. */
static int flood(const char *addr, size_t batches, int64_t wait_ns,
		 size_t *answered, struct err *e)
{
	struct netns_probe *p = xcalloc(FLOOD_BATCH, sizeof(*p));
	int rc = 0;

	*answered = 0;
	for (size_t b = 0; b < batches && !rc; b++) {
		for (size_t i = 0; i < FLOOD_BATCH; i++) {
			p[i].ns = NULL;
			p[i].addr = addr;
			p[i].port = CLOSED_PORT;
		}
		rc = netns_probe(p, FLOOD_BATCH, wait_ns, e);
		for (size_t i = 0; !rc && i < FLOOD_BATCH; i++)
			*answered += p[i].answered;
	}
	free(p);
	return rc;
}

/* Loss and duplicate, from the table's counters after a flood. */
static int measure_counts(const struct component *comp,
			  const struct nettool_at *at, const char *addr,
			  const struct netns_link *link, struct buf *value,
			  struct err *e)
{
	double l = link->loss_pm / 1000.0, d = link->duplicate_pm / 1000.0;
	double need = l > 0 ? FLOOD_EXPECT / l : 0;
	struct netns_link_counts c;
	uint64_t passed;
	size_t batches, answered;
	int rc;

	if (d > 0 && l < 1 && FLOOD_EXPECT / (d * (1 - l)) > need)
		need = FLOOD_EXPECT / (d * (1 - l));
	batches = (size_t)((need + FLOOD_BATCH - 1) / FLOOD_BATCH);
	if (batches < 1)
		batches = 1;
	if (batches > FLOOD_MAX_BATCHES)
		batches = FLOOD_MAX_BATCHES;
	if (flood(addr, batches, FLOOD_WAIT_NS, &answered, e) ||
	    netns_link_counts(at, &c, e))
		return -1;
	passed = c.sent > c.dropped ? c.sent - c.dropped : 0;
	buf_printf(value, NULL, ",\"probes\":{\"answered\":%zu,\"of\":%zu}",
		   answered, batches * FLOOD_BATCH);
	if (l > 0)
		buf_printf(value, NULL, ",\"loss\":{\"sent\":%llu,"
			   "\"dropped\":%llu}", (unsigned long long)c.sent,
			   (unsigned long long)c.dropped);
	if (d > 0)
		buf_printf(value, NULL, ",\"duplicate\":{\"sent\":%llu,"
			   "\"duplicated\":%llu}", (unsigned long long)passed,
			   (unsigned long long)c.duplicated);
	rc = l > 0 ? plausible(comp, "dropped", c.dropped, c.sent, l, e) : 0;
	if (!rc && d > 0)
		rc = plausible(comp, "sent twice", c.duplicated, passed, d, e);
	return rc;
}

/* Once healed: one round of connects, every one answered. */
static int measure_reach(const struct component *comp, const char *addr,
			 struct buf *value, struct err *e)
{
	size_t answered;

	if (flood(addr, 1, REACH_WAIT_NS, &answered, e))
		return -1;
	buf_printf(value, NULL, ",\"probes\":{\"answered\":%zu,\"of\":%d}",
		   answered, FLOOD_BATCH);
	if (answered < FLOOD_BATCH)
		return err_set(e, ERR_INFRA, "%s answered %zu of %d connects "
			       "after the heal", comp->name, answered,
			       FLOOD_BATCH);
	return 0;
}

static int by_value(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Delay (and reorder): connect times from here. */
static int measure_delay(const struct component *comp, const char *addr,
			 const struct netns_link *link, int healed,
			 struct buf *value, struct err *e)
{
	size_t n = link->reorder_pm ? REORDER_PROBES : DELAY_PROBES, k = 0;
	struct netns_probe *p = xcalloc(n, sizeof(*p));
	int64_t *took = xcalloc(n, sizeof(*took)), median = 0;
	int64_t least = link->delay_ns - link->jitter_ns;
	size_t sooner = 0;
	int rc;

	for (size_t i = 0; i < n; i++) {
		p[i].addr = addr;
		p[i].port = CLOSED_PORT;
	}
	rc = netns_probe(p, n, link->delay_ns + link->jitter_ns +
			 2 * NS_PER_SEC, e);
	for (size_t i = 0; !rc && i < n; i++)
		if (p[i].answered) {
			took[k++] = p[i].took_ns;
			sooner += p[i].took_ns < least;
		}
	qsort(took, k, sizeof(*took), by_value);
	median = k ? took[k / 2] : 0;
	if (!rc)
		buf_printf(value, NULL, ",\"connect\":{\"answered\":%zu,"
			   "\"of\":%zu,\"median_us\":%lld,\"sooner\":%zu}", k,
			   n, (long long)(median / 1000), sooner);
	if (!rc && !k)
		rc = err_set(e, ERR_INFRA, "no connect to %s was answered: %s",
			     comp->name, p[0].why);
	else if (!rc && healed && median >= least)
		rc = err_set(e, ERR_INFRA, "connects to %s still take %lldus "
			     "(the median) after the heal, not less than "
			     "%lldus", comp->name, (long long)(median / 1000),
			     (long long)(least / 1000));
	else if (!rc && !healed && !link->reorder_pm && median < least)
		rc = err_set(e, ERR_INFRA, "connects to %s take %lldus (the "
			     "median), less than the delay (%lldus at least)",
			     comp->name, (long long)(median / 1000),
			     (long long)(least / 1000));
	else if (!rc && !healed && link->reorder_pm)
		rc = plausible(comp, "answered sooner than the delay", sooner,
			       k, link->reorder_pm / 1000.0, e);
	free(took);
	free(p);
	return rc;
}

/* Rate: a transfer out of the host. */
static int measure_rate(const struct component *comp,
			const struct nettool_at *at,
			const struct netns_link *link, int healed,
			struct buf *value, struct err *e)
{
	uint64_t bytes = link->rate_bps / 8 * (TRANSFER_NS / NS_PER_MS) / 1000;
	struct throughput t;
	double bps;

	if (bytes < TRANSFER_MIN)
		bytes = TRANSFER_MIN;
	/* Four times as long as at the rate, and 5 s more. */
	if (throughput_measure(at, bytes, (int64_t)(bytes * 8 * 4 /
			       link->rate_bps) * NS_PER_SEC + 5 * NS_PER_SEC,
			       &t, e))
		return -1;
	bps = (double)t.bytes * 8 * NS_PER_SEC /
	      (double)(t.took_ns > 0 ? t.took_ns : 1);
	buf_printf(value, NULL, ",\"rate\":{\"bytes\":%llu,\"ms\":%lld,"
		   "\"kbit_per_s\":%.0f}", (unsigned long long)t.bytes,
		   (long long)(t.took_ns / NS_PER_MS), bps / 1000);
	if (!healed && bps > (double)link->rate_bps * (1 + RATE_TOLERANCE))
		return err_set(e, ERR_INFRA, "%s sent %.0fkbit a second, more "
			       "than the rate allows (%llukbit and %g%%)",
			       comp->name,
			       bps / 1000, (unsigned long long)
			       (link->rate_bps / 1000), RATE_TOLERANCE * 100);
	if (healed && bps <= (double)link->rate_bps)
		return err_set(e, ERR_INFRA, "%s sends %.0fkbit a second after "
			       "the heal, no more than the rate it had "
			       "(%llukbit)", comp->name, bps / 1000,
			       (unsigned long long)(link->rate_bps / 1000));
	return 0;
}

/*
 * Measure the link of `comp` as `link` degrades it (or, once `healed`,
 * as it was before) and append {"component":...} with what was measured.
 */
static int measure(const struct component *comp, const struct nettool_at *at,
		   const struct netns_link *link, int healed,
		   struct buf *value, struct err *e)
{
	struct buf left = BUF_INIT;
	char addr[16];
	int rc = 0;

	buf_printf(value, NULL, "{\"component\":\"%s\"", comp->name);
	if (at->ns)
		rc = netns_addr(at->ns, addr, sizeof(addr), NULL, e);
	else
		snprintf(addr, sizeof(addr), "%s", at->addr);
	if (!rc && healed && !(rc = netns_degraded_of(at, &left, e)) &&
	    left.len)
		rc = err_set(e, ERR_INFRA, "%s's link is still degraded after "
			     "the heal (%s)", comp->name, buf_str(&left));
	if (!rc && (link->loss_pm || link->duplicate_pm))
		rc = healed ? measure_reach(comp, addr, value, e)
			    : measure_counts(comp, at, addr, link, value,
					     e);
	if (!rc && link->delay_ns)
		rc = measure_delay(comp, addr, link, healed, value, e);
	if (!rc && link->rate_bps)
		rc = measure_rate(comp, at, link, healed, value, e);
	buf_addch(value, '}', NULL);
	buf_release(&left);
	return rc;
}

/* The options in effect, as JSON members. */
static void describe(const struct netem_opts *o, struct buf *value)
{
	char d[32];

	if (o->delay)
		buf_printf(value, NULL, "\"delay\":\"%s\",",
			   format_duration(o->delay, d, sizeof(d)));
	if (o->delay_jitter)
		buf_printf(value, NULL, "\"delay_jitter\":\"%s\",",
			   format_duration(o->delay_jitter, d, sizeof(d)));
	if (o->reorder)
		buf_printf(value, NULL, "\"reorder\":%g,", o->reorder);
	if (o->loss)
		buf_printf(value, NULL, "\"loss\":%g,", o->loss);
	if (o->duplicate)
		buf_printf(value, NULL, "\"duplicate\":%g,", o->duplicate);
	if (o->rate)
		buf_printf(value, NULL, "\"rate\":\"%s\",", o->rate);
}

static int inject(struct fault_ctx *ctx, const struct suite_item *it,
		  const struct plan_event *ev, struct fault_action *act,
		  struct buf *value, struct err *e)
{
	const struct netem_opts *o = it->opts;
	struct netns_link link;
	size_t picked, done = 0;
	int rc = 0;

	link_of(o, &link);
	if (fault_pick(ctx, o->t.target, o->t.pick, ev->choice, act, e))
		return -1;
	picked = act->ntargets;
	describe(o, value);
	buf_addstr(value, "\"degraded\":[", NULL);
	for (size_t i = 0; i < picked && !rc; i++) {
		struct component *comp = act->targets[i];
		struct nettool_at at;

		if (at_of(ctx->cluster, comp, &at, e) ||
		    netns_degrade(&at, &link, e))
			break;
		/* Degraded, however it measures: healed. */
		done = i + 1;
		if (i)
			buf_addch(value, ',', NULL);
		rc = measure(comp, &at, &link, 0, value, e);
	}
	buf_addch(value, ']', NULL);
	act->ntargets = done;
	return done < picked || rc ? -1 : 0;
}

static int heal(struct fault_ctx *ctx, struct fault_action *act,
		struct buf *value, struct err *e)
{
	struct netns_link link;
	int rc = 0;

	link_of(act->item->opts, &link);
	buf_addstr(value, "\"restored\":[", NULL);
	for (size_t i = 0; i < act->ntargets; i++) {
		struct component *comp = act->targets[i];
		struct err one = ERR_INIT;
		struct nettool_at at;

		if (i)
			buf_addch(value, ',', NULL);
		if (at_of(ctx->cluster, comp, &at, &one) ||
		    netns_degrade(&at, NULL, &one))
			buf_printf(value, NULL, "{\"component\":\"%s\"}",
				   comp->name);
		else
			measure(comp, &at, &link, 1, value, &one);
		if (err_isset(&one) && !rc) {
			*e = one;
			rc = -1;
		}
	}
	buf_addch(value, ']', NULL);
	return rc;
}

static const struct fault_detail details[] = {
	{ "delay", "delay", "", NULL },
	{ "delay_jitter", "jitter", "", NULL },
	{ "reorder", "reorder", "%", NULL },
	{ "loss", "loss", "%", NULL },
	{ "duplicate", "duplicate", "%", NULL },
	{ "rate", "rate", "", NULL },
	{ NULL, NULL, NULL, NULL },
};

/*
 * A degraded link an earlier run left on `comp`'s host (its namespace
 * here, or its SSH host): removed, and said. Over SSH, a host whose
 * degradation cannot be told (its address on none of its interfaces, no
 * nft there, no root) was never degraded: the netem fault needs all that.
 */
static int remove_degraded(struct cluster *c, const struct component *comp,
			   struct err *e)
{
	struct host *h = component_host(c, comp);
	struct buf found = BUF_INIT;
	struct nettool_at at;
	int rc = 0;

	if (h == &host_local) {
		nettool_at_ns(&at, comp->netns);
		rc = netns_degraded_of(&at, &found, e);
	} else if (host_link_at(h, &at, NULL) ||
		   netns_degraded_of(&at, &found, NULL)) {
		buf_reset(&found);
	}
	if (!rc && found.len) {
		log_warn("%s: removing a degraded link an earlier run left "
			 "(%s)", comp->name, buf_str(&found));
		rc = netns_degrade(&at, NULL, e);
	}
	buf_release(&found);
	return rc;
}

/* What a run killed while netem held left: the degraded links of the
 * components' hosts, removed (the fault's sweep). */
static int sweep(struct cluster *c, struct err *e)
{
	for (size_t i = 0; i < c->ncomps; i++)
		if (component_host_first(c, i) &&
		    remove_degraded(c, &c->comps[i], e))
			return -1;
	return 0;
}

/* Its links, named in its value's "degraded", are drawn degraded. */
static const struct fault_holds holds = { "degraded", "degraded", "degraded",
					  "#17becf", 4, "degraded", details };

const struct fault_type fault_netem = {
	.kind = { "netem", "degrade what the target's hosts send for `down`: "
		  "delay, loss, duplicate, reorder, rate (measured)",
		  opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct netem_opts), .check = check,
		  .plan = fault_plan },
	.resolve = resolve,
	.inject = inject,
	.heal = heal,
	.heal_name = "restore_link",
	.target = fault_component_target,
	.holds = &holds,
	.sweep = sweep,
};
