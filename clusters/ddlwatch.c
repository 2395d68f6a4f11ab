/*
 * The DDL watch (clusters/cluster.h, cluster_ddl_watch): what the
 * downstream shows of partition DDL, as soon as it shows it.
 */
#include "clusters/internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/cancel.h"
#include "lib/clock.h"
#include "lib/history.h"

/* What the watch last saw of one component. */
struct ddl_seen {
	struct sql conn;
	struct buf tables;	/* "table\tp0,p1\n" a table, sorted */
	int seen;		/* tables holds a reading */
	struct buf running;	/* "\nID HASH\n..." the statements seen running */
};

static int watched(const struct component *comp)
{
	return (comp->roles & ROLE_DOWNSTREAM) && comp->sql_port;
}

/* The SQL connection of a component, open; -1 (closed) on an error. */
static int ask(const struct component *comp, struct sql *s, const char *q,
	       struct sql_result *r)
{
	if ((!s->my && component_sql_open(comp, s, NULL)) ||
	    sql_query(s, q, r, NULL)) {
		sql_close(s);	/* the next ask opens another */
		return -1;
	}
	return 0;
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
	rc = ask(comp, s, buf_str(&q), &r);
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

/* Where `word` (upper case) is in `s`, case aside, or NULL. */
static const char *find_word(const char *s, const char *word)
{
	size_t n = strlen(word);

	for (; *s; s++)
		if (!strncasecmp(s, word, n))
			return s;
	return NULL;
}

/* A partition DDL as partition_ddl names its operations, by the clause
 * it runs (workloads/partition_ddl.c); NULL for any other statement. */
static const char *partition_op(const char *q)
{
	static const struct { const char *clause, *op; } ops[] = {
		{ "EXCHANGE PARTITION", "exchange" },
		{ "TRUNCATE PARTITION", "truncate" },
		{ "REORGANIZE PARTITION", "reorganize" },
		{ "REMOVE PARTITIONING", "remove_repartition" },
		{ "PARTITION BY", "remove_repartition" },
		{ "DROP PARTITION", "drop_add" },
		{ "ADD PARTITION", "drop_add" },
	};

	while (isspace((unsigned char)*q))
		q++;
	if (strncasecmp(q, "ALTER", 5) || !isspace((unsigned char)q[5]))
		return NULL;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (find_word(q, ops[i].clause))
			return ops[i].op;
	return NULL;
}

/* One identifier at `*p` (`quoted` or bare) into `out`; 0 when none. */
static int ident(const char **p, char *out, size_t size)
{
	const char *s = *p;
	size_t n = 0;

	if (*s == '`') {
		for (s++; *s && !(*s == '`' && s[1] != '`'); s++) {
			if (*s == '`')
				s++;	/* `` is one ` */
			if (n + 1 < size)
				out[n++] = *s;
		}
		if (*s != '`')
			return 0;
		s++;
	} else {
		while (isalnum((unsigned char)*s) || *s == '_' || *s == '$') {
			if (n + 1 < size)
				out[n++] = *s;
			s++;
		}
	}
	out[n] = '\0';
	*p = s;
	return n > 0;
}

/* The table of "ALTER TABLE [db.]t ...", its database `db` unless the
 * statement names one: "db.t" in `out`; 0 when it names none. */
static int altered_table(const char *q, const char *db, char *out,
			 size_t size)
{
	const char *p = find_word(q, "TABLE");
	char a[128], b[128];

	if (!p)
		return 0;
	for (p += 5; isspace((unsigned char)*p); p++)
		;
	if (!ident(&p, a, sizeof(a)))
		return 0;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '.') {
		for (p++; isspace((unsigned char)*p); p++)
			;
		if (!ident(&p, b, sizeof(b)))
			return 0;
		snprintf(out, size, "%s.%s", a, b);
	} else if (db) {
		snprintf(out, size, "%s.%s", db, a);
	} else {
		return 0;
	}
	return 1;
}

/* FNV-1a of a statement: which one a session runs, in a few bytes. */
static unsigned long long statement_hash(const char *q)
{
	unsigned long long h = 14695981039346656037ULL;

	for (; *q; q++)
		h = (h ^ (unsigned char)*q) * 1099511628211ULL;
	return h;
}

/*
 * Each partition DDL of `database` some session of `comp` runs now and
 * did not at the last ask (a new session id, or a new statement):
 * recorded. `running` is replaced by what runs now.
 */
static void record_running(struct history *h, struct history_slot *slot,
			   const struct component *comp, struct sql *s,
			   const char *database, struct buf *running)
{
	struct sql_result r = SQL_RESULT_INIT;
	struct buf now = BUF_INIT;

	/* Every session but this one, a replica's SQL thread too (its
	 * COMMAND is not "Query"); UPPER: TiDB's collation is binary. */
	if (ask(comp, s, "SELECT ID AS id, DB AS db, INFO AS q FROM "
		"information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() "
		"AND UPPER(INFO) LIKE '%PARTITION%'", &r))
		return;
	buf_addch(&now, '\n', NULL);
	for (size_t i = 0; i < r.nrows; i++) {
		const char *q = sql_cell(&r, i, "q"), *op;
		char key[64], table[256];
		struct buf v = BUF_INIT;
		struct history_event ev = { history_now(h), HISTORY_MONITOR,
					    "info", "ddl_running", table,
					    comp->name, NULL, -1, NULL, NULL,
					    0, 0, 0, NULL, 0 };
		size_t dot = strlen(database);

		if (!q || !(op = partition_op(q)) ||
		    !altered_table(q, sql_cell(&r, i, "db"), table,
				   sizeof(table)) ||
		    strncmp(table, database, dot) || table[dot] != '.')
			continue;
		/* "\nID HASH\n": session 5's key is no part of 15's. */
		snprintf(key, sizeof(key), "\n%s %llx\n", sql_cell(&r, i, "id"),
			 statement_hash(q));
		buf_addstr(&now, key + 1, NULL);
		if (strstr(buf_str(running), key))
			continue;
		buf_addstr(&v, "{\"op\":", NULL);
		json_quote(&v, op, NULL);
		buf_addstr(&v, ",\"query\":", NULL);
		json_quote(&v, q, NULL);
		buf_addch(&v, '}', NULL);
		ev.value = buf_str(&v);
		history_record(slot, &ev);
		buf_release(&v);
	}
	sql_result_release(&r);
	buf_release(running);
	*running = now;
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
		       unsigned what, struct history *h,
		       struct history_slot *slot, const struct cancel *cancel)
{
	struct ddl_seen *seen = xcalloc(c->ncomps + 1, sizeof(*seen));
	struct buf now = BUF_INIT, swap;

	sql_thread_init();
	while (!cancelled(cancel, CANCEL_STOP)) {
		for (size_t i = 0; i < c->ncomps; i++) {
			struct ddl_seen *s = &seen[i];

			if (!watched(&c->comps[i]))
				continue;
			if (what & DDL_WATCH_RUNNING)
				record_running(h, slot, &c->comps[i], &s->conn,
					       database, &s->running);
			if (!(what & DDL_WATCH_PARTITIONS))
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
		buf_release(&seen[i].running);
	}
	buf_release(&now);
	sql_thread_end();
	free(seen);
}
