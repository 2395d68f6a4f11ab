#ifndef TICHAOS_CLUSTERS_PORTS_H
#define TICHAOS_CLUSTERS_PORTS_H

/*
 * The local cluster's block of ports of 127.0.0.1 (PORTS_PER_CLUSTER
 * from its base, clusters/cluster.h), held: each port bound by a
 * listening socket of this process, so that no other socket can bind it
 * (SO_REUSEADDR or not) and every look at it (a bind, `ss -l`) sees it
 * taken. A block is chosen by holding it, the check and the choice one
 * step: two runs choosing at once never get the same block, and a
 * server someone else starts on one of its ports afterwards fails then,
 * not ours seconds later.
 *
 * The local cluster holds a port until just before the server that binds
 * it starts, and the rest of an auto block until its servers all listen.
 * The sockets are close-on-exec: no child inherits a hold.
 *
 *	struct port_block b;
 *
 *	port_block_auto(&b, NULL, e);	b.base: held, all of it
 *	...
 *	port_block_release(&b, 0);	up-0 binds base next
 *	...
 *	port_block_release(&b, -1);	every one let go
 */

#include "clusters/cluster.h"

struct port_block {
	/* The block's first port; 0: none. */
	int base;
	/* Port base + i is held by fds[i]; -1: it is not. */
	int fds[PORTS_PER_CLUSTER];
};

/* Fill `b` with the block from `base` (0: none), holding nothing. */
void port_block_init(struct port_block *b, int base);

/*
 * Hold port b->base + i (0 <= i < PORTS_PER_CLUSTER; held already:
 * nothing to do). 0; 1 when another socket has it; -1 with `e` set
 * (ERR_INFRA) when no socket could be made or the port is out of range.
 */
int port_block_hold(struct port_block *b, int i, struct err *e);

/*
 * Let port b->base + i go (-1: every port of the block), for the server
 * that binds it next. One not held: nothing to do.
 */
void port_block_release(struct port_block *b, int i);

/*
 * Choose a block of [lo, hi) and hold every port of it: the bases lo,
 * lo + 10, ... whose block ends below hi, tried from the `start`th
 * (modulo their number) on, passing over those `skip` (MAY be NULL)
 * returns 1 for and those of which a port is held by anyone. 0 with
 * b->base the chosen block; -1 with `e` set (ERR_INFRA) when none is
 * free, `b` then holding nothing. What `b` held before is let go first.
 */
int port_block_find(struct port_block *b, int lo, int hi, int start,
		    int (*skip)(int base), struct err *e);

/*
 * port_block_find from 20000 up to where the kernel's ephemeral ports
 * begin (ip_local_port_range: from there on an outgoing connection may
 * take a port before the server binds it), from a block spread by pid
 * so that runs started together rarely try the same block first.
 */
int port_block_auto(struct port_block *b, int (*skip)(int base),
		    struct err *e);

#endif
