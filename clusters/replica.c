/*
 * MariaDB replicas (a component that `replicates`, clusters/cluster.h):
 * whether a replica's SQL thread stopped on an error, the events it
 * skipped counted over its server's restarts, and the watch that
 * records, as process "monitor", each stop, its running again and the
 * events skipped (docs/results.md), offered by the kinds whose
 * components may replicate (struct cluster_type's watchers).
 */
#include "clusters/internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/history.h"
#include "lib/parse.h"

int component_replica_stopped(const struct cluster *c,
			      const struct component *comp,
			      struct replica_stop *out, struct err *e)
{
	struct sql s = SQL_INIT;
	int rc = component_replica_stopped_on(c, comp, &s, out, e);

	sql_close(&s);
	return rc;
}

int component_replica_stopped_on(const struct cluster *c,
				 const struct component *comp, struct sql *s,
				 struct replica_stop *out, struct err *e)
{
	struct sql_result r = SQL_RESULT_INIT;
	const char *running, *no, *msg, *file, *at;
	struct buf gtid = BUF_INIT;
	int64_t v = 0;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (!comp->sql_port || !component_source(c, comp))
		return 0;
	if ((!s->my && component_sql_open(comp, s, e)) ||
	    sql_query(s, "SHOW SLAVE STATUS", &r, e)) {
		/* The next ask opens a new one (the server restarted). */
		sql_close(s);
		goto out;
	}
	rc = 0;
	if (!r.nrows)
		goto out;
	running = sql_cell(&r, 0, "Slave_SQL_Running");
	no = sql_cell(&r, 0, "Last_SQL_Errno");
	if (!running || strcmp(running, "No") || !no ||
	    parse_int64(no, 0, INT32_MAX, &v, NULL) || !v)
		goto out;
	out->sql_errno = (long)v;
	msg = sql_cell(&r, 0, "Last_SQL_Error");
	snprintf(out->error, sizeof(out->error), "%s", msg ? msg : "");
	file = sql_cell(&r, 0, "Relay_Master_Log_File");
	at = sql_cell(&r, 0, "Exec_Master_Log_Pos");
	snprintf(out->position, sizeof(out->position), "%s:%s",
		 file ? file : "?", at ? at : "?");
	if (!sql_value(s, "SELECT @@gtid_slave_pos", &gtid, NULL))
		snprintf(out->gtid, sizeof(out->gtid), "%s", buf_str(&gtid));
	rc = 1;
out:
	buf_release(&gtid);
	sql_result_release(&r);
	return rc;
}

static pthread_mutex_t tally_lock = PTHREAD_MUTEX_INITIALIZER;

void replica_tally_add(struct replica_tally *t, long skipped,
		       int64_t uptime)
{
	/* A new life: its counter began at 0. */
	if (!t->lives || uptime < t->uptime || skipped < t->last) {
		t->before += t->last;
		t->last = 0;
		t->lives++;
	}
	t->last = skipped;
	t->uptime = uptime;
}

int component_replica_skipped(struct cluster *c, const struct component *comp,
			      long *total, int *restarts, struct err *e)
{
	struct sql s = SQL_INIT;
	int rc = component_replica_skipped_on(c, comp, &s, total, restarts, e);

	sql_close(&s);
	return rc;
}

int component_replica_skipped_on(struct cluster *c,
				 const struct component *comp, struct sql *s,
				 long *total, int *restarts, struct err *e)
{
	struct sql_result r = SQL_RESULT_INIT;
	int64_t skipped = -1, uptime = -1;
	size_t i = (size_t)(comp - c->comps);
	struct replica_tally *t;
	int rc;

	rc = (!s->my && component_sql_open(comp, s, e)) ||
	     sql_query(s, "SHOW GLOBAL STATUS WHERE Variable_name IN "
		       "('Slave_skipped_errors', 'Uptime')", &r, e);
	if (rc)
		sql_close(s);	/* the next ask opens a new one */
	for (size_t row = 0; !rc && row < r.nrows; row++) {
		const char *name = sql_cell(&r, row, "Variable_name");
		const char *v = sql_cell(&r, row, "Value");
		int64_t n;

		if (!name || !v || parse_int64(v, 0, INT64_MAX, &n, NULL))
			continue;
		if (!strcmp(name, "Uptime"))
			uptime = n;
		else
			skipped = n;
	}
	sql_result_release(&r);
	if (!rc && (skipped < 0 || uptime < 0))
		rc = err_set(e, ERR_INFRA, "%s: no Slave_skipped_errors or "
			     "Uptime in SHOW GLOBAL STATUS", comp->name);
	pthread_mutex_lock(&tally_lock);
	if (!c->tally)
		c->tally = xcalloc(c->ncomps + 1, sizeof(*c->tally));
	t = c->tally && i < c->ncomps ? &c->tally[i] : NULL;
	if (t && !rc)
		replica_tally_add(t, (long)skipped, uptime);
	*total = t ? t->before + t->last : 0;
	*restarts = t && t->lives ? t->lives - 1 : 0;
	pthread_mutex_unlock(&tally_lock);
	return rc ? -1 : 0;
}

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
				    buf_str(value), 0, 0, 0, NULL, 0 };

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
