/*
 * MariaDB replicas (a component that `replicates`): the watch that
 * records, as process "monitor", each stop of a replica's SQL thread on
 * an error, its running again, and the events it skipped
 * (docs/results.md), offered by the kinds whose components may
 * replicate (struct cluster_type's watchers).
 */
#include "clusters/cluster.h"

#include <stdlib.h>

#include "lib/clock.h"
#include "lib/history.h"
#include "lib/sql.h"

/* What the replica watch last recorded of one component. */
struct replica_seen {
	long skipped;
	int stopped;
	struct sql conn;	/* kept open between asks */
};

static int replicates(const struct component *comp)
{
	return comp->replicates && comp->sql_port;
}

static void record_replica(struct history *h, struct history_slot *slot,
			   const struct component *comp, const char *f,
			   const struct buf *value)
{
	struct history_event ev = { history_now(h), HISTORY_MONITOR, "info",
				    f, NULL, NULL, comp->name, -1, NULL,
				    buf_str(value), 0, 0, 0 };

	history_record(slot, &ev);
}

static void watch_replica(struct cluster *c, struct history *h,
			  struct history_slot *slot,
			  const struct component *comp,
			  struct replica_seen *seen)
{
	struct replica_stop stop;
	struct buf v = BUF_INIT;
	long skipped = 0;
	int restarts = 0, rc;

	if (!component_replica_skipped_on(c, comp, &seen->conn, &skipped,
					  &restarts, NULL) &&
	    skipped > seen->skipped) {
		buf_printf(&v, NULL, "{\"skipped\":%ld,\"new\":%ld,"
			   "\"restarts\":%d}", skipped,
			   skipped - seen->skipped, restarts);
		record_replica(h, slot, comp, "replica_skipped", &v);
		seen->skipped = skipped;
	}
	rc = component_replica_stopped_on(c, comp, &seen->conn, &stop, NULL);
	if (rc == 1 && !seen->stopped) {
		buf_reset(&v);
		buf_printf(&v, NULL, "{\"sql_errno\":%ld,\"gtid\":",
			   stop.sql_errno);
		json_quote(&v, stop.gtid, NULL);
		buf_addstr(&v, ",\"position\":", NULL);
		json_quote(&v, stop.position, NULL);
		buf_addstr(&v, ",\"error\":", NULL);
		json_quote(&v, stop.error, NULL);
		buf_addch(&v, '}', NULL);
		record_replica(h, slot, comp, "replica_stopped", &v);
		seen->stopped = 1;
	} else if (rc == 0 && seen->stopped &&
		   !component_ready(c, comp, NULL)) {
		buf_reset(&v);
		buf_addstr(&v, "{}", NULL);
		record_replica(h, slot, comp, "replica_running", &v);
		seen->stopped = 0;
	}
	buf_release(&v);
}

static int replica_wanted(const struct cluster *c)
{
	for (size_t i = 0; i < c->ncomps; i++)
		if (replicates(&c->comps[i]))
			return 1;
	return 0;
}

/* Four times a second, every replica, until the run stops. */
static void replica_run(struct cluster *c, struct history *h,
			struct history_slot *slot,
			const struct cancel *cancel)
{
	struct replica_seen *seen = xcalloc(c->ncomps + 1, sizeof(*seen));

	sql_thread_init();
	while (!cancelled(cancel, CANCEL_STOP)) {
		for (size_t i = 0; i < c->ncomps; i++)
			if (replicates(&c->comps[i]))
				watch_replica(c, h, slot, &c->comps[i],
					      &seen[i]);
		cancel_sleep(cancel, CANCEL_STOP, 250 * NS_PER_MS);
	}
	for (size_t i = 0; i < c->ncomps; i++)
		sql_close(&seen[i].conn);
	sql_thread_end();
	free(seen);
}

const struct cluster_watcher cluster_replica_watch = {
	.name = "replica watch",
	.wanted = replica_wanted,
	.run = replica_run,
};
