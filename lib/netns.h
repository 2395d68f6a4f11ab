#ifndef TICHAOS_NETNS_H
#define TICHAOS_NETNS_H

/*
 * Hosts on one machine: network namespaces joined by a bridge, and the
 * cuts a partition makes between them (docs/topology.md, "Hosts").
 *
 * A net is named by a tag, a number (the local cluster's port base), and
 * everything it is made of carries the tag in its name, so that whatever
 * a run left behind (killed with SIGKILL) is found by the tag alone:
 *
 *   bridge     "tcb<tag>" in this namespace, with the net's first address
 *   namespace  "tichaos-<tag>-<host>" per host (ip netns: /run/netns)
 *   veth pair  "tcv<tag>-<i>" on the bridge, "eth0" in the namespace,
 *              which has address i + 2 of the net
 *
 * A net is a /28 of 198.18.0.0/15 (RFC 2544, kept for tests) chosen by the
 * tag. A namespace has a route to its /28 and none other: nothing a host
 * sends leaves the machine, and there is no NAT. This namespace (the
 * runner's) reaches every host through the bridge.
 *
 * A cut is a table "inet tichaos" of nftables in a host's namespace that
 * drops what arrives from given addresses, silently, as a switch that
 * lost a link would: TCP connections hang and time out rather than fail
 * at once. Deleting the namespaces deletes their cuts.
 *
 * A degraded link (netns_degrade) is what a host sends out of its eth0
 * made worse, each part with its own tool, all named so that a run's
 * leftovers are found (netns_degraded_of):
 *
 *   loss, duplicate  a table "netdev tichaos_link" of nftables on eth0's
 *                    egress hook: each packet dropped at random, else
 *                    sent twice at random (a copy carries the mark
 *                    0x74630001, which lets it through unduplicated),
 *                    every step counted (netns_link_counts)
 *   rate             tc's token bucket (tbf) as eth0's root queueing
 *                    discipline, handle 7463:, its bucket 10 ms at the
 *                    rate and two frames (3028 bytes) at least: what
 *                    goes at once after a pause
 *   delay, jitter,   tc's netem (sch_netem, which some kernels lack:
 *   reorder          netns_has_netem): the root, handle 7463:, or tbf's
 *                    child, 7464:, when there is a rate too
 *
 * The egress hook comes before the queueing discipline: a dropped packet
 * never waits in it, a copy waits like any other. What the host receives
 * is left alone.
 *
 * A link is degraded the same way on a host reached over SSH (struct
 * nettool_at, lib/nettool.h), on the interface that carries its address.
 *
 * Everything is made with iproute2's `ip` and `tc` and nftables' `nft`,
 * run as programs (lib/nettool.h); it needs root (CAP_NET_ADMIN and
 * CAP_SYS_ADMIN).
 */

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/nettool.h"

/* Hosts of one net, at most: a /28 less the network, the bridge and the
 * broadcast addresses. */
#define NETNS_MAX_HOSTS 13

struct netns_host {
	char name[32];		/* "up-0" */
	char ns[64];		/* "tichaos-24000-up-0" */
	char link[16];		/* "tcv24000-0", its veth on the bridge */
	char addr[16];		/* "198.18.150.2" */
};

struct netns_net {
	int tag;
	/* Whose net it is (the local cluster's directory), kept as the
	 * bridge's alias (ifalias): a net of the same tag that another
	 * owner made is never removed as a leftover. Set by the caller. */
	char owner[256];
	char bridge[16];	/* "tcb24000" */
	char gateway[16];	/* the bridge's address */
	int prefix_len;		/* 28 */
	struct netns_host hosts[NETNS_MAX_HOSTS];
	size_t nhosts;
};

/*
 * Fill `net` for tag `tag` (0 to 65535) and the hosts `names`
 * (NULL-terminated, at most NETNS_MAX_HOSTS, each at most 20 bytes):
 * names and addresses only; nothing is made.
 */
void netns_plan(struct netns_net *net, int tag, const char *const *names);

/*
 * 0 when nets can be made here: root, `ip` and `nft` found, and a
 * namespace "tichaos-<tag>-probe" made, a bridge and a veth pair made in
 * it, its nftables listed, and all of it removed.
 * Else -1 with why not (ERR_INFRA), as one line.
 */
int netns_usable(int tag, struct err *e);

/*
 * Make the bridge, each host's namespace and veth pair, their addresses,
 * links up. Fails on anything already there (netns_remove first), and
 * then removes what it made. ERR_INFRA with `ip`'s own message.
 */
int netns_make(const struct netns_net *net, struct err *e);

/*
 * 1 when the bridge and every host's namespace of `net` exist, 0 when
 * none does, -1 (with `e`) when only some do.
 */
int netns_present(const struct netns_net *net, struct err *e);

/*
 * The owner of the net of tag `tag` (its bridge's alias) into `out`
 * (MAY be NULL): 1 when its bridge exists, 0 when not.
 */
int netns_owner(int tag, char *out, size_t size);

/*
 * Remove every namespace, veth and bridge of tag `tag`, whatever hosts they
 * were made for, unless its bridge belongs to another owner than `owner`
 * (NULL: any; a bridge without an alias belongs to any): then nothing is
 * touched and 1 is returned, with `e` saying whose it is. What was found is
 * appended to `found` (names, space-separated; MAY be NULL). 0 also when
 * there was nothing.
 */
int netns_remove(int tag, const char *owner, struct buf *found,
		 struct err *e);

/*
 * Cut `id` (0 and up: a fault item's, so that cuts of several items
 * overlap and each heals its own): in namespace `ns`, drop everything
 * arriving from the `naddrs` addresses `addrs`, replacing what cut `id`
 * dropped there. naddrs 0 removes cut `id` (and the table with the last
 * cut). Each cut is a chain "c<id>" of the table; a packet any of them
 * drops is dropped.
 */
int netns_cut(const char *ns, int id, const char *const *addrs,
	      size_t naddrs, struct err *e);

/*
 * The addresses namespace `ns` drops (every cut), space-separated, into
 * `out` (empty: none, or no such namespace). -1 when it cannot be told.
 */
int netns_cut_of(const char *ns, struct buf *out, struct err *e);

/* Remove every cut of namespace `ns` (its table). */
int netns_uncut(const char *ns, struct err *e);

/*
 * The same for a host reached otherwise (over SSH): the nft commands of
 * netns_cut into `out` (one argument of `nft`, no single quote in it;
 * without the removal of an empty table), those of netns_uncut, and the
 * addresses a listing of the table (`nft list table inet tichaos`)
 * drops, appended to `out` as netns_cut_of writes them.
 */
void netns_cut_nft(int id, const char *const *addrs, size_t naddrs,
		   struct buf *out);
#define NETNS_UNCUT_NFT "add table inet tichaos; delete table inet tichaos"
void netns_dropped(const char *listing, struct buf *out);

/*
 * The IPv4 address of namespace `ns`'s eth0 into `out` ("198.18.150.2"),
 * and the length of its net's prefix into *prefix_len (MAY be NULL).
 */
int netns_addr(const char *ns, char *out, size_t size, int *prefix_len,
	       struct err *e);

/*
 * A TCP socket (non-blocking, close-on-exec) made in namespace `ns`
 * (NULL: ours), from class `cls` (lib/netcls.h; NULL: the thread's own),
 * the calling thread back in its own namespace when this returns; -1
 * (`e`) when it cannot be made.
 */
int netns_socket(const char *ns, const char *cls, struct err *e);

/* One TCP connect of netns_probe. */
struct netns_probe {
	const char *ns;		/* from inside this namespace; NULL: ours */
	/* and from this class (lib/netcls.h; NULL: the thread's own) */
	const char *cls;
	const char *addr;	/* to addr:port */
	int port;
	/* Out: 1 when the peer answered (connected, or refused: the refusal
	 * came back from it), 0 when it did not, with why not. */
	int answered;
	char why[160];
	/* Out: how long the answer took, from the connect on (answered). */
	int64_t took_ns;
};

/*
 * Connect every probe at once, from inside its namespace, and wait at
 * most `timeout_ns` for all their answers: a probe that had none by then
 * did not answer ("no answer within 1000 ms"). -1 (`e`) when a probe
 * could not be made at all. The calling thread enters each namespace for
 * the socket only and is back in its own when this returns.
 */
int netns_probe(struct netns_probe *probes, size_t n, int64_t timeout_ns,
		struct err *e);

/* How netns_degrade makes a link worse; 0 in a member: not that way. */
struct netns_link {
	int64_t delay_ns;	/* netem: each packet held this long, */
	int64_t jitter_ns;	/* give or take up to this, uniformly */
	int reorder_pm;		/* netem: per mille sent at once, undelayed */
	int loss_pm;		/* nftables: per mille dropped */
	int duplicate_pm;	/* nftables: per mille of the rest sent twice */
	uint64_t rate_bps;	/* tbf: bits per second at most */
};

/*
 * Degrade what host `at` sends out of its interface as `link` says
 * (replacing any degradation it had; docs above); NULL removes it. A
 * failure removes what it made, and says which tool complained
 * (ERR_INFRA). Needs `tc` for rate and netem, `nft` for loss and
 * duplicate.
 */
int netns_degrade(const struct nettool_at *at, const struct netns_link *link,
		  struct err *e);

/*
 * What degrades host `at`'s interface (the queueing disciplines and the
 * table netns_degrade makes), described into `out`: "rate 1Mbit, loss
 * 10.0%, duplicate 5.0%" (empty: nothing, or no such namespace; the
 * queueing disciplines are not looked for where there is no `tc`). -1
 * when it cannot be told.
 */
int netns_degraded_of(const struct nettool_at *at, struct buf *out,
		      struct err *e);

/* What the table of netns_degrade counted since it was made. */
struct netns_link_counts {
	uint64_t sent;		/* packets that came to the egress hook */
	uint64_t dropped;	/* of those, dropped (loss) */
	uint64_t duplicated;	/* of the rest, sent twice (duplicate) */
};

/* The counts of host `at`'s table; -1 when it has none. */
int netns_link_counts(const struct nettool_at *at,
		      struct netns_link_counts *out, struct err *e);

/*
 * 1 when host `at`'s kernel has tc's netem queueing discipline: one
 * added to its loopback (with no delay) and deleted at once; 0 when the
 * kernel does not know it ("Specified qdisc kind is unknown"); -1 with
 * anything else that went wrong.
 */
int netns_has_netem(const struct nettool_at *at, struct err *e);

#endif
