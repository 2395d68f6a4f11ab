/*
 * A described cluster: the components of a topology file
 * (docs/topology.md), such as the one `cluster up` writes for the local
 * cluster. tichaos starts only what has a start command and stops only
 * what has a pidfile. Its SSH hosts are connected to when it opens.
 */
#include "clusters/cluster.h"

#include <stdlib.h>
#include <string.h>

static int static_open(struct cluster *c, const struct cluster_options *o,
		       struct err *e)
{
	const char *slash = strrchr(o->cluster, '/');

	c->dir = slash ? xstrndup(o->cluster, (size_t)(slash - o->cluster))
		       : xstrdup(".");
	if (topology_read(c, o->cluster, e))
		return -1;
	/* SSH hosts are reached now, so a refused key or an unreachable
	 * host is the first thing said, not a component seen as stopped. */
	for (size_t i = 0; i < c->nhosts; i++) {
		struct host *h = &c->hosts[i];

		if (ssh_open(&h->conn, &h->ssh, e))
			return -1;
	}
	return 0;
}

/* A topology's MariaDB replicas may stop, restart and skip; any of its
 * processes may end on its own. */
static const struct cluster_watcher *const watchers[] = {
	&cluster_replica_watch, &cluster_exit_watch, NULL,
};

const struct cluster_type cluster_static = {
	.name = "static",
	.doc = "the components described by a topology file (--cluster FILE)",
	.open = static_open,
	.watchers = watchers,
};
