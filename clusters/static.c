/*
 * A described cluster: the components of a topology file
 * (docs/topology.md), such as the one `cluster up` writes for the local
 * cluster. tichaos starts only what has a start command and stops only
 * what has a pidfile.
 */
#include "clusters/cluster.h"

#include <stdlib.h>
#include <string.h>

static int static_open(struct cluster *c, const struct cluster_options *o,
		       struct err *e)
{
	const char *slash = strrchr(o->cluster, '/');

	c->dir = slash ? strndup(o->cluster, (size_t)(slash - o->cluster))
		       : strdup(".");
	if (!c->dir)
		abort();
	return topology_read(c, o->cluster, e);
}

const struct cluster_type cluster_static = {
	.name = "static",
	.doc = "the components described by a topology file (--cluster FILE)",
	.open = static_open,
};
