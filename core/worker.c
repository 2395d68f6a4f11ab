/*
 * The worker API (core/worker.h): pacing, connections, sleeps, and the
 * history records of every operation.
 */
#include "core/worker.h"

#include <stdio.h>
#include <string.h>

#include "core/suite.h"
#include "lib/cancel.h"
#include "lib/clock.h"
#include "lib/hist.h"
#include "lib/history.h"
#include "lib/log.h"

const char *dialect_name(int dialect)
{
	switch (dialect) {
	case DIALECT_TIDB:
		return "TiDB";
	case DIALECT_MARIADB:
		return "MariaDB";
	default:
		return "MySQL";
	}
}

void worker_begin(struct worker *w)
{
	sql_thread_init();
	w->slot = history_slot(w->env->history);
}

void worker_end(struct worker *w)
{
	sql_close(&w->conn);
	buf_release(&w->sql_text);
	sql_thread_end();
}

int worker_stopping(const struct worker *w)
{
	return cancelled(w->env->cancel, CANCEL_STOP);
}

int worker_sleep(struct worker *w, int64_t ns)
{
	return cancel_sleep(w->env->cancel, CANCEL_STOP, ns);
}

void worker_pace(struct worker *w)
{
	int64_t now;

	if (!w->pace_ns)
		return;
	now = clock_mono_ns();
	if (!w->next_ns || w->next_ns < now - NS_PER_SEC)
		w->next_ns = now;
	if (w->next_ns > now)
		worker_sleep(w, w->next_ns - now);
	w->next_ns += w->pace_ns;
}

int worker_connect(struct worker *w)
{
	struct err e;

	if (w->conn.my && !worker_stopping(w))
		return 0;	/* the usual case: no error to clear */
	while (!worker_stopping(w)) {
		err_clear(&e);
		if (w->conn.my)
			return 0;
		if (!w->env->connect(w->comp, &w->conn, w->suite->database,
				     5, &e)) {
			w->backoff_ns = 0;
			return 0;
		}
		log_debug("worker %d: %s", w->process, e.msg);
		w->backoff_ns = w->backoff_ns ? w->backoff_ns * 2
					      : 50 * NS_PER_MS;
		if (w->backoff_ns > NS_PER_SEC)
			w->backoff_ns = NS_PER_SEC;
		worker_sleep(w, w->backoff_ns);
	}
	return -1;
}

/*
 * "db.table": the last one is kept, so that the two records of an
 * operation on the same table as the last one format nothing.
 */
static const char *qualified(struct worker *w, const char *table)
{
	size_t at = w->qualified_table;
	int n;

	if (at && !strcmp(w->qualified + at, table))
		return w->qualified;
	n = snprintf(w->qualified, sizeof(w->qualified), "%s.%s",
		     w->suite->database, table);
	/* Kept for the next record only when whole. */
	w->qualified_table = n >= 0 && (size_t)n < sizeof(w->qualified)
			     ? strlen(w->suite->database) + 1 : 0;
	return w->qualified;
}

static void record(struct worker *w, int64_t time, const char *type,
		   const char *f, const char *table, int64_t id,
		   const char *error, const char *value)
{
	struct history_event ev = { time, w->process, type, f, NULL, w->node,
				    NULL, id, error, value,
				    (w->item->type->flags & KIND_DDL) != 0, 0,
				    0, NULL, 0 };

	if (table)
		ev.table = qualified(w, table);
	history_record(w->slot, &ev);
}

int64_t worker_invoke(struct worker *w, const char *f, const char *table)
{
	return worker_invoke_value(w, f, table, NULL);
}

int64_t worker_invoke_value(struct worker *w, const char *f,
			    const char *table, const char *value)
{
	int64_t now = history_now(w->env->history);

	record(w, now, "invoke", f, table, -1, NULL, value);
	w->invoked_ns = now;
	return now;
}

void worker_complete(struct worker *w, const char *f, const char *table,
		     int64_t id, const struct err *err)
{
	worker_complete_value(w, f, table, id, NULL, err);
}

void worker_complete_value(struct worker *w, const char *f,
			   const char *table, int64_t id, const char *value,
			   const struct err *err)
{
	int64_t now = history_now(w->env->history);
	size_t at = w->step_ns ? (size_t)(now / w->step_ns) : 0;

	if (err && err_isset(err) && at < w->steps)
		w->errors_per_step[at]++;

	if (!err || !err_isset(err)) {
		size_t step = w->step_ns ? (size_t)(now / w->step_ns) : 0;

		record(w, now, "ok", f, table, id, NULL, value);
		__atomic_add_fetch(&w->ok, 1, __ATOMIC_RELAXED);
		if (step < w->steps) {
			hist_add(&w->latency[step], now - w->invoked_ns);
			w->ok_per_step[step]++;
		}
		return;
	}
	if (w->conn.last_class == SQL_AMBIGUOUS) {
		/* It may have happened; the connection is suspect. */
		record(w, now, "info", f, table, -1, err->msg, value);
		__atomic_add_fetch(&w->info, 1, __ATOMIC_RELAXED);
		sql_close(&w->conn);
		return;
	}
	record(w, now, "fail", f, table, -1, err->msg, value);
	__atomic_add_fetch(&w->fail, 1, __ATOMIC_RELAXED);
}

void worker_refuse(struct worker *w, const char *f, const char *table,
		   const char *value, const char *why)
{
	char text[240];

	snprintf(text, sizeof(text), HISTORY_REFUSED "%s", why);
	record(w, history_now(w->env->history), "fail", f, table, -1, text,
	       value);
	__atomic_add_fetch(&w->refused, 1, __ATOMIC_RELAXED);
}

void worker_skip(struct worker *w, const char *f, const char *table,
		 const char *why)
{
	char text[200];
	int64_t now = history_now(w->env->history);

	snprintf(text, sizeof(text), "skipped: %s", why);
	record(w, now, "invoke", f, table, -1, NULL, NULL);
	record(w, now, "fail", f, table, -1, text, NULL);
	snprintf(w->skip_reason, sizeof(w->skip_reason), "%s", why);
	__atomic_add_fetch(&w->skipped, 1, __ATOMIC_RELAXED);
}
