/*
 * tamper: change the downstream behind the replication's back — delete,
 * update and insert rows of one table directly — recording exactly which
 * keys. It proves the consistency checker can fail; it has no place in a
 * suite meant to pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clusters/cluster.h"
#include "core/plan.h"
#include "core/suite.h"
#include "faults/fault.h"
#include "lib/sql.h"

struct tamper_opts {
	struct fault_opts common;
	struct optlist table;	/* one, as the check says */
	const char *key;
	const char *column;
	int64_t delete;
	int64_t update;
	int64_t insert;
};

static const struct optspec opts[] = {
	FAULT_COMMON_OPTS,
	{ "table", OPT_TABLES, NULL, 1, NULL, 0, 0,
	  "the table changed downstream", OPT_AT(struct tamper_opts, table) },
	{ "key", OPT_IDENT, "id", 0, NULL, 0, 0,
	  "its integer primary key column", OPT_AT(struct tamper_opts, key) },
	{ "column", OPT_IDENT, "data", 0, NULL, 0, 0,
	  "a string column that updates and inserts set",
	  OPT_AT(struct tamper_opts, column) },
	{ "delete", OPT_INT, "0", 0, NULL, 0, 100000,
	  "rows to delete downstream", OPT_AT(struct tamper_opts, delete) },
	{ "update", OPT_INT, "0", 0, NULL, 0, 100000,
	  "rows to update downstream", OPT_AT(struct tamper_opts, update) },
	{ "insert", OPT_INT, "0", 0, NULL, 0, 100000,
	  "rows to insert downstream (keys above every existing one)",
	  OPT_AT(struct tamper_opts, insert) },
};

static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	const struct tamper_opts *o = it->opts;
	struct ynode at = { YNODE_SCALAR, it->line, it->col, NULL, 0, NULL, 0 };

	if (fault_check(s, it, e))
		return -1;
	if (o->table.n != 1)
		return ynode_error(e, s->path, &at, "table in fault 'tamper' "
				   "must name one table");
	if (!o->delete && !o->update && !o->insert)
		return ynode_error(e, s->path, &at, "fault 'tamper' needs "
				   "delete, update or insert above 0");
	return 0;
}

static const char *target(struct fault_ctx *ctx, const struct suite_item *it)
{
	const struct tamper_opts *o = it->opts;

	return o->table.n ? o->table.v[0] : NULL;
}

static int append_keys(struct buf *q, const long long *keys, size_t n,
		       struct err *e)
{
	for (size_t i = 0; i < n; i++)
		if (buf_printf(q, e, "%s%lld", i ? "," : "", keys[i]))
			return -1;
	return 0;
}

static int inject(struct fault_ctx *ctx, const struct suite_item *it,
		  const struct plan_event *ev, struct fault_action *act,
		  struct buf *value, struct err *e)
{
	const struct tamper_opts *o = it->opts;
	const char *table = o->table.v[0];
	const char *key = o->key;
	const char *column = o->column;
	size_t ndel = (size_t)o->delete;
	size_t nupd = (size_t)o->update;
	size_t nins = (size_t)o->insert;
	struct component *down[FAULT_MAX_TARGETS];
	struct sql_result r = SQL_RESULT_INIT;
	struct buf q = BUF_INIT, name = BUF_INIT;
	struct sql s = SQL_INIT;
	long long *keys = NULL, max = 0;
	struct rand rng;
	int rc = -1;

	(void)act;
	if (!fault_targets(ctx->cluster, "downstream", 1, down) ||
	    !down[0]->sql_port)
		return err_set(e, ERR_INFRA, "tamper: no running downstream "
			       "SQL node");
	if (sql_quote_ident(&name, ctx->suite->database, e) ||
	    buf_addch(&name, '.', e) || sql_quote_ident(&name, table, e) ||
	    component_connect(down[0], &s, NULL, 10, e) ||
	    buf_addstr(&q, "SELECT ", e) || sql_quote_ident(&q, key, e) ||
	    buf_printf(&q, e, " FROM %s ORDER BY 1", buf_str(&name)) ||
	    sql_query(&s, buf_str(&q), &r, e))
		goto out;
	if (r.nrows < ndel + nupd) {
		err_set(e, ERR_INFRA, "tamper: %s has %zu rows downstream, "
			"fewer than the %zu to delete and update", table,
			r.nrows, ndel + nupd);
		goto out;
	}
	keys = xcalloc(r.nrows + 1, sizeof(*keys));
	for (size_t i = 0; i < r.nrows; i++) {
		keys[i] = r.cells[i] ? strtoll(r.cells[i], NULL, 10) : 0;
		if (keys[i] > max)
			max = keys[i];
	}
	/* Which rows: a draw from the planned choice. */
	rand_seed(&rng, ev->choice);
	rand_shuffle(&rng, keys, r.nrows, ndel + nupd, sizeof(*keys));
	rc = 0;
	buf_printf(value, NULL, "\"node\":\"%s\",\"table\":\"%s.%s\"",
		   down[0]->name, ctx->suite->database, table);
	if (ndel) {
		buf_reset(&q);
		rc = buf_printf(&q, e, "DELETE FROM %s WHERE ",
				buf_str(&name)) ||
		     sql_quote_ident(&q, key, e) || buf_addstr(&q, " IN (", e) ||
		     append_keys(&q, keys, ndel, e) || buf_addch(&q, ')', e) ||
		     sql_exec(&s, buf_str(&q), e);
		buf_addstr(value, ",\"deleted\":[", NULL);
		append_keys(value, keys, ndel, NULL);
		buf_addch(value, ']', NULL);
	}
	if (!rc && nupd) {
		buf_reset(&q);
		rc = buf_printf(&q, e, "UPDATE %s SET ", buf_str(&name)) ||
		     sql_quote_ident(&q, column, e) ||
		     buf_addstr(&q, " = 'tampered' WHERE ", e) ||
		     sql_quote_ident(&q, key, e) || buf_addstr(&q, " IN (", e) ||
		     append_keys(&q, keys + ndel, nupd, e) ||
		     buf_addch(&q, ')', e) || sql_exec(&s, buf_str(&q), e);
		buf_addstr(value, ",\"updated\":[", NULL);
		append_keys(value, keys + ndel, nupd, NULL);
		buf_addch(value, ']', NULL);
	}
	if (!rc && nins) {
		buf_reset(&q);
		rc = buf_printf(&q, e, "INSERT INTO %s (", buf_str(&name)) ||
		     sql_quote_ident(&q, key, e) || buf_addstr(&q, ", ", e) ||
		     sql_quote_ident(&q, column, e) ||
		     buf_addstr(&q, ") VALUES ", e);
		buf_addstr(value, ",\"inserted\":[", NULL);
		/* Far above anything upstream will reach during the run. */
		for (size_t i = 0; !rc && i < nins; i++) {
			long long k = max + 1000000 + (long long)i;

			rc = buf_printf(&q, e, "%s(%lld, 'tampered')",
					i ? ", " : "", k);
			buf_printf(value, NULL, "%s%lld", i ? "," : "", k);
		}
		buf_addch(value, ']', NULL);
		rc = rc || sql_exec(&s, buf_str(&q), e);
	}
out:
	free(keys);
	sql_result_release(&r);
	sql_close(&s);
	buf_release(&q);
	buf_release(&name);
	return rc || err_isset(e) ? -1 : 0;
}

const struct fault_type fault_tamper = {
	.kind = { "tamper", "delete, update and insert rows downstream behind "
		  "the replication (to prove the checkers can fail)",
		  opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct tamper_opts), .check = check,
		  .plan = fault_plan },
	.inject = inject,
	.target = target,
};
