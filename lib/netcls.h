#ifndef TICHAOS_NETCLS_H
#define TICHAOS_NETCLS_H

/*
 * Hosts on one loopback: the components of a cluster that all listen on
 * this machine's 127.0.0.1 (the local cluster without namespaces, the
 * playground, a topology of local servers), told apart by the class of
 * what they send, and the cuts a partition makes between them
 * (docs/faults.md, "partition").
 *
 * A class is a cgroup of cgroup v1's net_cls controller: a directory
 * "tichaos-<tag>-<component>" of its hierarchy (found in /proc/self/mounts,
 * else mounted at NETCLS_MOUNT, and left mounted) with the classid
 * NETCLS_CLASSID(tag, i), which no other cluster's class has (what two
 * runs at once cut stays their own). A socket carries the class of the
 * thread that made it, and moving a process into a class moves the
 * sockets it holds (net/core/netclassid_cgroup.c, update_classid_task),
 * so connections made before the move are cut too.
 *
 * A cut of host H is a table "inet <H's class name>" of nftables in this
 * namespace, on the output hook, where the sender's class is known:
 *
 *   chain m    what H sends sets H's label on its connection (conntrack's
 *              labels: NETCLS_LABEL), so that a connection says who is
 *              on it
 *   chain c<id>  per fault item: what the given classes send to one of
 *              H's listening ports (a connection they open to H), or on a
 *              connection that carries H's label (one H opened to them,
 *              or one they opened before the cut that H has since sent
 *              on), is dropped, silently, so that TCP connections hang as
 *              across a lost link
 *
 * H then hears nothing from those classes; a cut both ways is the two
 * hosts' tables. Until H sends on a connection opened before the cut,
 * what the others send on it still arrives: one TCP window at most, as
 * H's acknowledgements are dropped (a cut both ways). What this
 * machine's other processes, tichaos among them, send is of no class and
 * never cut.
 *
 * Everything is named "tichaos-<tag>-", so that what a run killed with
 * SIGKILL left is found by the tag (netcls_remove). It needs root.
 */

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/buf.h"
#include "lib/err.h"

#define NETCLS_MOUNT "/run/tichaos/net_cls"
/*
 * The class of component i of the cluster with tag `tag`: the tag's low
 * 24 bits, then i + 1 (at most 255) in the low byte. Two clusters' classes
 * differ unless their tags' low 24 bits are the same (one pair of
 * directories in 2^24); a component's label is its place, i + 1, which
 * only its own cluster's classes are matched with.
 */
#define NETCLS_CLASSID(tag, i) \
	(((uint32_t)(tag) << 8) | (uint32_t)((i) + 1 < 255 ? (i) + 1 : 255))
/* The connection label (a bit of conntrack's) of what a class sends. */
#define NETCLS_LABEL(classid) ((unsigned)((classid) & 0xffu))
#define NETCLS_MAX_PORTS 16

struct netcls_host {
	char name[96];		/* "tichaos-1f2e3d4c-up-0" */
	uint32_t classid;
	/* The TCP ports its processes listen on (netcls_ports). */
	int ports[NETCLS_MAX_PORTS];
	size_t nports;
};

/* "tichaos-<tag as 8 hex digits>-<component>" into `out`. */
void netcls_name(uint32_t tag, const char *component, char *out,
		 size_t size);

/*
 * 0 when classes and cuts can be made here: root, `nft` found, and the
 * net_cls hierarchy found or mounted. Else -1 with why not (ERR_INFRA).
 */
int netcls_usable(struct err *e);

/*
 * The directory of class `name` into `out`: 1 when it exists, 0 when not
 * (no hierarchy, or no such class).
 */
int netcls_dir(const char *name, char *out, size_t size);

/*
 * Make class `h` (if missing) and move process `pid` (0: none) and every
 * process below it into it, with their sockets.
 */
int netcls_join(const struct netcls_host *h, pid_t pid, struct err *e);

/*
 * The TCP ports process `pid` and the processes below it listen on, into
 * h->ports (at most NETCLS_MAX_PORTS, ascending).
 */
int netcls_ports(struct netcls_host *h, pid_t pid, struct err *e);

/*
 * Cut `id` of host `h`: drop what the `nfrom` classes `from` send to h
 * (above), replacing what cut `id` dropped; nfrom 0 removes cut `id`
 * (and h's table with its last cut).
 */
int netcls_cut(const struct netcls_host *h, int id,
	       const struct netcls_host *const *from, size_t nfrom,
	       struct err *e);

/*
 * The classes host `name`'s table drops, by every cut, space-separated
 * as "0x2e3d4c02" into `out` (empty: none). -1 when it cannot be told.
 */
int netcls_cut_of(const char *name, struct buf *out, struct err *e);

/*
 * Remove the tables and classes whose names begin with `prefix`
 * ("tichaos-<tag>-"): the tables' names appended to `tables`, the
 * classes' to `classes` (space-separated; MAY be NULL). A class's
 * processes go back to the hierarchy's root first.
 */
int netcls_remove(const char *prefix, struct buf *tables, struct buf *classes,
		  struct err *e);

/*
 * Move the calling thread into class `name` (NULL or "": nowhere), its
 * class until now saved in `saved` for netcls_leave. For a socket of that
 * class (lib/netns.c's probes).
 */
int netcls_enter(const char *name, char *saved, size_t size, struct err *e);
void netcls_leave(const char *saved);

#endif
