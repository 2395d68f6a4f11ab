/*
 * The DDL watch (clusters/cluster.h, cluster_ddl_watch): what the
 * downstream shows of partition DDL, as soon as it shows it.
 */
#include "clusters/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cancel.h"
#include "lib/clock.h"
#include "lib/history.h"

/* What the watch last saw of one component. */
struct ddl_seen {
	struct sql conn;
	struct buf tables;	/* "table\tp0,p1\n" a table, sorted */
	int seen;		/* tables holds a reading */
};

static int watched(const struct component *comp)
{
	return (comp->roles & ROLE_DOWNSTREAM) && comp->sql_port;
}

/* The partitions of every partitioned table of `database`, one line a
 * table: "name\tp0,p1,p2", by name. */
static int read_partitions(const struct component *comp, struct sql *s,
			   const char *database, struct buf *out)
{
	struct buf q = BUF_INIT;
	struct sql_result r = SQL_RESULT_INIT;
	int rc;

	buf_addstr(&q, "SELECT TABLE_NAME AS t, GROUP_CONCAT(PARTITION_NAME "
		   "ORDER BY PARTITION_ORDINAL_POSITION) AS p FROM "
		   "information_schema.PARTITIONS WHERE TABLE_SCHEMA = ", NULL);
	sql_quote_string(&q, database, NULL);
	buf_addstr(&q, " AND PARTITION_NAME IS NOT NULL GROUP BY TABLE_NAME "
		   "ORDER BY TABLE_NAME", NULL);
	rc = (!s->my && component_sql_open(comp, s, NULL)) ||
	     sql_query(s, buf_str(&q), &r, NULL);
	if (rc)
		sql_close(s);	/* the next ask opens another */
	for (size_t i = 0; !rc && i < r.nrows; i++)
		buf_printf(out, NULL, "%s\t%s\n", sql_cell(&r, i, "t"),
			   sql_cell(&r, i, "p") ? sql_cell(&r, i, "p") : "");
	sql_result_release(&r);
	buf_release(&q);
	return rc ? -1 : 0;
}

/* The line of `table` in a reading, or NULL. */
static const char *line_of(const char *reading, const char *table,
			   size_t len)
{
	for (const char *p = reading; p && *p; ) {
		const char *nl = strchr(p, '\n');

		if (!strncmp(p, table, len) && p[len] == '\t')
			return p;
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/* Each table whose partitions differ from the last reading: recorded. */
static void record_changes(struct history *h, struct history_slot *slot,
			   const struct component *comp, const char *database,
			   const char *before, const char *now)
{
	for (const char *p = now; *p; ) {
		const char *tab = strchr(p, '\t'), *nl = strchr(p, '\n');
		const char *old = line_of(before, p, (size_t)(tab - p));
		char table[256];
		struct buf v = BUF_INIT;
		struct history_event ev = { history_now(h), HISTORY_MONITOR,
					    "info", "ddl_applied", table,
					    comp->name, NULL, -1, NULL, NULL,
					    0, 0, 0, NULL, 0 };

		if (!old || strncmp(old, p, (size_t)(nl - p + 1))) {
			char parts[1024];

			snprintf(table, sizeof(table), "%s.%.*s", database,
				 (int)(tab - p), p);
			snprintf(parts, sizeof(parts), "%.*s",
				 (int)(nl - tab - 1), tab + 1);
			buf_addstr(&v, "{\"partitions\":", NULL);
			json_quote(&v, parts, NULL);
			buf_addch(&v, '}', NULL);
			ev.value = buf_str(&v);
			history_record(slot, &ev);
		}
		buf_release(&v);
		p = nl + 1;
	}
}

void cluster_ddl_watch(struct cluster *c, const char *database,
		       struct history *h, struct history_slot *slot,
		       const struct cancel *cancel)
{
	struct ddl_seen *seen = xcalloc(c->ncomps + 1, sizeof(*seen));
	struct buf now = BUF_INIT, swap;

	sql_thread_init();
	while (!cancelled(cancel, CANCEL_STOP)) {
		for (size_t i = 0; i < c->ncomps; i++) {
			struct ddl_seen *s = &seen[i];

			if (!watched(&c->comps[i]))
				continue;
			buf_reset(&now);
			if (read_partitions(&c->comps[i], &s->conn, database,
					    &now))
				continue;
			if (s->seen)
				record_changes(h, slot, &c->comps[i], database,
					       buf_str(&s->tables),
					       buf_str(&now));
			/* This reading is the one to compare with next. */
			swap = s->tables;
			s->tables = now;
			now = swap;
			s->seen = 1;
		}
		cancel_sleep(cancel, CANCEL_STOP, NS_PER_MS);
	}
	for (size_t i = 0; i < c->ncomps; i++) {
		sql_close(&seen[i].conn);
		buf_release(&seen[i].tables);
	}
	buf_release(&now);
	sql_thread_end();
	free(seen);
}
