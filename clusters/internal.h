#ifndef TICHAOS_CLUSTER_INTERNAL_H
#define TICHAOS_CLUSTER_INTERNAL_H

/*
 * What the modules of the component model share and no kind needs
 * (clusters/cluster.h is their public contract): included by
 * clusters/ready.c, replica.c, lifecycle.c, pid.c, exitwatch.c and
 * supervise.c, and
 * their unit tests, only.
 */

#include <pthread.h>
#include <stdint.h>

#include "clusters/cluster.h"
#include "lib/sql.h"

/*
 * Held while a start counts itself and names a component's log anew
 * (comp->starts, comp->log, comp->log_from) and while the exit watch
 * reads them from its own thread.
 */
extern pthread_mutex_t component_log_lock;

/*
 * A supervised component's start (clusters/supervise.c): its supervisor's
 * `start` run, unless tichaos killed it and the supervisor restarts it
 * by itself; either way then waited for as SUP_AWAITED. One under a
 * `prefix` is refused (ERR_USAGE): the supervisor starts it as it does.
 */
int supervised_start(struct cluster *c, struct component *comp,
		     const char *const *prefix, struct err *e);

/* Its stop: the supervisor's `stop`, the process waited for as gone. */
int supervised_stop(struct cluster *c, struct component *comp,
		    struct err *e);

/* The last non-empty line of file `path` on host `h` into `out`
 * (replacing it; empty when there is none). */
void host_last_line(struct host *h, const char *path, struct buf *out);

/* The component `comp` replicates from, or NULL when it replicates from
 * none (or from one the cluster does not have). */
struct component *component_source(const struct cluster *c,
				   const struct component *comp);

/* component_connect with no database and a 5 s timeout: how the
 * cluster's own asks (readiness, replication) connect. */
int component_sql_open(const struct component *comp, struct sql *s,
		       struct err *e);

/*
 * One replica's skipped events over the lives of its server
 * (component_replica_skipped): what the lives that ended skipped, and
 * the counter and Uptime at the last ask.
 */
struct replica_tally {
	long before;		/* skipped in the lives that ended */
	long last;		/* the counter at the last ask */
	int64_t uptime;		/* the server's Uptime then */
	int lives;
};

/*
 * Fold one ask into `t`: the server's Slave_skipped_errors `skipped`
 * and its Uptime `uptime`. An Uptime gone back, or a counter gone down,
 * is a new life of the server, whose counter began at 0.
 */
void replica_tally_add(struct replica_tally *t, long skipped,
		       int64_t uptime);

#endif
