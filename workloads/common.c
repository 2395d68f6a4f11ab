#include "workloads/common.h"

#include <stdio.h>
#include <string.h>

#include "core/plan.h"
#include "core/suite.h"
#include "lib/clock.h"
#include "lib/history.h"
#include "lib/sql.h"

int wl_table(struct buf *q, const struct worker *w, const char *table,
	     struct err *e)
{
	return sql_quote_ident(q, w->suite->database, e) ||
	       buf_addch(q, '.', e) || sql_quote_ident(q, table, e) ? -1 : 0;
}

int wl_op(struct worker *w, const char *f, const char *table,
	  const char *const *stmts, int64_t key)
{
	struct err e;
	int64_t id;

	err_clear(&e);	/* not ERR_INIT: no 1 KB to zero per operation */
	if (worker_connect(w))
		return -1;
	worker_invoke(w, f, table);
	for (size_t i = 0; stmts[i]; i++)
		if (sql_exec(&w->conn, stmts[i], &e)) {
			/* Half done is not "did not happen". */
			if (i > 0)
				w->conn.last_class = SQL_AMBIGUOUS;
			break;
		}
	if (err_isset(&e)) {
		worker_complete(w, f, table, -1, &e);
		return -1;
	}
	if (key >= 0) {
		char value[40];

		snprintf(value, sizeof(value), "{\"key\":%lld}",
			 (long long)key);
		worker_complete_value(w, f, table, -1, value, NULL);
		return 0;
	}
	/* An id only where the server gave one out: 0 is no
	 * AUTO_INCREMENT value (an explicit key, a table without one). */
	id = key == -2 ? (int64_t)sql_insert_id(&w->conn) : -1;
	worker_complete(w, f, table, id > 0 ? id : -1, NULL);
	return 0;
}

void wl_error_pause(struct worker *w)
{
	worker_sleep(w, 10 * NS_PER_MS);
}

int wl_insert_row(struct worker *w, const char *table, const char *column,
		  uint64_t seq)
{
	struct buf *q = &w->sql_text;
	const char *stmts[2] = { NULL, NULL };
	int rc;

	/* Built in the worker's buffer, without printf: this is every
	 * operation of the insert workload. */
	buf_reset(q);
	if (buf_addstr(q, "INSERT INTO ", NULL) ||
	    wl_table(q, w, table, NULL) ||
	    buf_addstr(q, " (", NULL) || sql_quote_ident(q, column, NULL) ||
	    buf_addstr(q, ") VALUES ('", NULL) ||
	    buf_addint(q, (long long)seq, NULL) || buf_addstr(q, "')", NULL))
		return -1;
	stmts[0] = buf_str(q);
	rc = wl_op(w, "insert", table, stmts, -2);
	if (rc && !worker_stopping(w))
		wl_error_pause(w);
	return rc;
}

/* A table for EXCHANGE PARTITION: from `with`, else a normal table. */
static char *exchange_target(const struct suite *s,
			     const struct optlist *with, struct rand *r)
{
	size_t normal = 0, pick;

	if (with->n)
		return with->v[rand_below(r, with->n)];
	for (size_t i = 0; i < s->ntables; i++)
		normal += !s->tables[i].partition;
	pick = rand_below(r, normal);
	for (size_t i = 0; i < s->ntables; i++)
		if (!s->tables[i].partition && pick-- == 0)
			return s->tables[i].name;
	return NULL;
}

int wl_plan_every(const struct suite *s, const struct suite_item *it,
		  int item_index, int64_t duration_ns, struct rand *r,
		  struct plan *p, struct err *e)
{
	const struct wl_scheduled_opts *o = it->opts;
	const struct optlist *opv = &o->ops, *tables = &o->common.tables;
	int64_t step = o->every;

	if (step < NS_PER_MS)
		step = NS_PER_MS;
	for (int64_t at = step; at < duration_ns; at += step) {
		struct plan_event ev = { at, item_index, -1, NULL, NULL, NULL,
					 0, 0, NULL };

		ev.op = opv->v[rand_below(r, opv->n)];
		ev.table = tables->v[rand_below(r, tables->n)];
		if (!strcmp(ev.op, "exchange"))
			ev.with = exchange_target(s, &o->exchange_with, r);
		ev.choice = plan_choice(r);
		if (plan_add(p, &ev, e))
			return -1;
	}
	return 0;
}

const char *const workload_scheduled_refuse[] = { "threads", "rate", NULL };

void *workload_thread(void *arg)
{
	struct worker *w = arg;

	worker_begin(w);
	workload_drive(w);
	worker_end(w);
	return NULL;
}

void workload_drive(struct worker *w)
{
	const struct workload_type *t = workload_type_of(w->item);
	const struct plan *plan = w->env->plan;

	if (t->run) {
		t->run(w);
		return;
	}
	for (size_t i = 0; i < plan->n && !worker_stopping(w); i++) {
		const struct plan_event *ev = &plan->events[i];
		int64_t wait;

		if (ev->workload != w->item_index)
			continue;
		wait = ev->at_ns - history_now(w->env->history);
		if (wait > 0 && worker_sleep(w, wait))
			break;
		t->run_op(w, ev);
	}
}

void wl_txn_failed(struct worker *w, const char *f, const char *table,
		   const char *value, const struct err *e)
{
	enum sql_class class = w->conn.last_class;
	struct err ignored;

	err_clear(&ignored);
	if (class != SQL_AMBIGUOUS)
		sql_exec(&w->conn, "ROLLBACK", &ignored);
	w->conn.last_class = SQL_FATAL;
	worker_complete_value(w, f, table, -1, value, e);
	if (class == SQL_AMBIGUOUS)
		sql_close(&w->conn);
}
