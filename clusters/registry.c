#include "clusters/cluster.h"
#include "core/kind.h"

extern const struct cluster_type cluster_local;
extern const struct cluster_type cluster_static;
extern const struct cluster_type cluster_playground;
extern const struct cluster_type cluster_tiup;

/* The only place a cluster kind is added. */
const struct cluster_type *const cluster_types[] = {
	&cluster_local,
	&cluster_static,
	&cluster_playground,
	&cluster_tiup,
	NULL,
};

const struct cluster_type *cluster_type_at(size_t i)
{
	return REGISTRY_AT(cluster_types, i);
}
