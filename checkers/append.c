/*
 * append: the isolation anomalies of the append workload's transactions
 * (docs/checkers.md, append), from the history alone, so that `tichaos
 * check RUN_DIR` judges a stored run again. Each worker's "txn" invoke is
 * held open by its process until its completion: ok (its reads' lists in
 * the completion's value), fail (rolled back: its appends never
 * happened), info (its outcome unknown: its appends may have), or none
 * (unknown too). checkers/elle.c infers the anomalies; the suite's
 * `model` says which of them fail the run.
 *
 * A record whose value is not a transaction is said with its line
 * (verdict unknown), never a crash.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/barrier.h"
#include "checkers/checker.h"
#include "checkers/elle.h"
#include "checkers/syncpoint_store.h"
#include "clusters/cluster.h"
#include "core/lists.h"
#include "core/suite.h"
#include "lib/history.h"
#include "lib/sql.h"
#include "lib/svg.h"
#include "lib/ynode.h"

static const char *const models[] = { "read-committed",
				      "snapshot-isolation", "serializable",
				      NULL };

struct append_check_opts {
	int model;		/* enum elle_model */
	int64_t sync_timeout;
	const char *changefeed;	/* NULL: the cluster's */
	int64_t syncpoints;	/* 0: none read */
};

#define AT(member) OPT_AT(struct append_check_opts, member)

static const struct optspec opts[] = {
	{ "model", OPT_ENUM, "snapshot-isolation", 0, models, 0, 0,
	  "the isolation the database promises: read-committed, "
	  "snapshot-isolation (TiDB's default) or serializable; the "
	  "anomalies it forbids fail the run, the others are shown",
	  AT(model) },
	{ "sync_timeout", OPT_DURATION, "300s", 0, NULL, 0, 0,
	  "how long the finish mark may take to reach the downstream",
	  AT(sync_timeout) },
	{ "changefeed", OPT_STRING, NULL, 0, NULL, 0, 0,
	  "TiCDC: the changefeed whose checkpoint must pass the finish mark "
	  "(default: the topology's, else tichaos)", AT(changefeed) },
	{ "syncpoints", OPT_INT, "0", 0, NULL, 0, 1000,
	  "TiDB both sides: the lists read at the last N sync points of the "
	  "changefeed (tidb_snapshot), equal on both sides, no transaction "
	  "straddling one; 0: none", AT(syncpoints) },
};

/* The suite's workload that keeps lists, into `out`: 0, or -1. */
static int lists_of(const struct suite *s, struct lists *out)
{
	for (size_t i = 0; i < s->nworkloads; i++)
		if (s->workloads[i].type->lists)
			return s->workloads[i].type->lists(&s->workloads[i],
							   out);
	return -1;
}

static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	struct ynode at = { YNODE_SCALAR, it->line, it->col, NULL, 0, NULL, 0 };
	size_t n = 0;

	for (size_t i = 0; i < s->nworkloads; i++)
		n += s->workloads[i].type->lists != NULL;
	if (n != 1)
		return ynode_error(e, s->path, &at, "check 'append' needs one "
				   "workload of kind 'append' (the suite has "
				   "%zu)", n);
	return 0;
}

struct reading {
	struct elle_txn *t;
	size_t n, cap;
	int64_t last;		/* the history's last time */
	/* Each process's open transaction: an index into t, or -1. */
	long *open;
	size_t nopen;
	char bad[300];
	const char *path;
};

/* The transaction of record `l`'s value into `t` (its mops). 0, or -1
 * when the value is no transaction. */
static int parse_txn(const struct history_line *l, struct elle_txn *t)
{
	json_t *v = l->value ? json_loadb(l->value, l->value_len, 0, NULL)
			     : NULL;
	json_t *ops = json_object_get(v, "txn");
	size_t n = json_array_size(ops);
	int rc = json_is_array(ops) && n ? 0 : -1;

	for (size_t m = 0; m < t->nmops; m++)
		free(t->mops[m].list);
	free(t->mops);
	t->mops = xcalloc(n + 1, sizeof(*t->mops));
	t->nmops = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		json_t *op = json_array_get(ops, i);
		const char *f = json_string_value(json_array_get(op, 0));
		json_t *key = json_array_get(op, 1), *x = json_array_get(op, 2);
		struct elle_mop *m = &t->mops[t->nmops++];

		if (!f || !json_is_integer(key) || (strcmp(f, "append") &&
						    strcmp(f, "r"))) {
			rc = -1;
			break;
		}
		m->key = json_integer_value(key);
		m->read = !strcmp(f, "r");
		if (!m->read) {
			rc = json_is_integer(x) ? 0 : -1;
			m->value = json_integer_value(x);
			continue;
		}
		if (!json_is_array(x))
			continue;	/* not read (yet) */
		m->list = xcalloc(json_array_size(x) + 1, sizeof(*m->list));
		for (size_t k = 0; !rc && k < json_array_size(x); k++) {
			json_t *e = json_array_get(x, k);

			rc = json_is_integer(e) ? 0 : -1;
			m->list[m->nlist++] = json_integer_value(e);
		}
	}
	json_decref(v);
	return rc;
}

/* One more transaction, zeroed. */
static struct elle_txn *new_txn(struct reading *rd)
{
	struct elle_txn *t;

	if (rd->n == rd->cap) {
		rd->cap = rd->cap ? rd->cap * 2 : 256;
		rd->t = xrealloc(rd->t, rd->cap * sizeof(*rd->t));
	}
	t = &rd->t[rd->n++];
	memset(t, 0, sizeof(*t));
	return t;
}

static int bad_line(struct reading *rd, const struct history_line *l,
		    const char *why)
{
	snprintf(rd->bad, sizeof(rd->bad), "%s:%zu: %s", rd->path, l->line,
		 why);
	return 1;
}

static int record(const struct history_line *l, void *arg)
{
	struct reading *rd = arg;
	size_t p = (size_t)l->process;
	struct elle_txn *t;

	if (l->time > rd->last)
		rd->last = l->time;
	if (l->process < 0 || strcmp(l->f, "txn"))
		return 0;
	if (p >= rd->nopen) {
		rd->open = xrealloc(rd->open, (p + 16) * sizeof(*rd->open));
		for (size_t i = rd->nopen; i < p + 16; i++)
			rd->open[i] = -1;
		rd->nopen = p + 16;
	}
	if (!strcmp(l->type, "invoke")) {
		t = new_txn(rd);
		t->line = l->line;
		t->process = l->process;
		t->status = ELLE_INFO;
		t->invoke = l->time;
		t->complete = -1;
		if (parse_txn(l, t))
			return bad_line(rd, l, "a txn whose value is no list "
					"of [\"append\", KEY, VALUE] and "
					"[\"r\", KEY, LIST] operations");
		rd->open[p] = (long)(rd->n - 1);
		return 0;
	}
	if (rd->open[p] < 0)
		return bad_line(rd, l, "a txn completed without its invoke");
	t = &rd->t[rd->open[p]];
	rd->open[p] = -1;
	t->line = l->line;
	t->complete = l->time;
	t->status = !strcmp(l->type, "ok") ? ELLE_OK
		    : !strcmp(l->type, "fail") ? ELLE_FAIL : ELLE_INFO;
	if (t->status == ELLE_OK && parse_txn(l, t))
		return bad_line(rd, l, "an ok txn whose value is no list of "
				"its operations and the lists it read");
	return 0;
}

static void release(struct reading *rd)
{
	for (size_t i = 0; i < rd->n; i++) {
		for (size_t m = 0; m < rd->t[i].nmops; m++)
			free(rd->t[i].mops[m].list);
		free(rd->t[i].mops);
	}
	free(rd->t);
	free(rd->open);
}

/* ",\"cycle\":[{\"txn\":..,\"edge\":..,\"key\":..,\"value\":..},...]"
 * of the first cycle of `kind`, for its drawing; nothing without one. */
static void cycle_json(struct buf *out, const struct elle_result *er,
		       enum elle_kind kind)
{
	size_t n = er->ncycle[kind] < ELLE_CYCLE_MAX ? er->ncycle[kind]
						     : ELLE_CYCLE_MAX;

	if (!n)
		return;
	buf_printf(out, NULL, ",\"cycle_length\":%zu,\"cycle\":[",
		   er->ncycle[kind]);
	for (size_t i = 0; i < n; i++) {
		const struct elle_step *st = &er->cycle[kind][i];

		buf_addstr(out, i ? ",{\"txn\":" : "{\"txn\":", NULL);
		json_quote(out, st->txn, NULL);
		buf_printf(out, NULL, ",\"edge\":\"%s\",\"key\":%lld,"
			   "\"value\":%lld}", st->edge, (long long)st->key,
			   (long long)st->value);
	}
	buf_addch(out, ']', NULL);
}

/* The verdict and its words from what elle_check found. */
static void judge(const struct elle_result *er, enum elle_model model,
		  struct check_result *r)
{
	struct buf forbidden = BUF_INIT, allowed = BUF_INIT;
	const char *first = NULL;
	enum elle_kind fk = ELLE_G0;

	buf_printf(&r->details, NULL, "%s\"model\":\"%s\",\"transactions\":"
		   "{\"ok\":%zu,\"failed\":%zu,\"unknown\":%zu},\"keys\":%zu,"
		   "\"anomalies\":[", r->details.len ? "," : "", models[model],
		   er->ok, er->failed,
		   er->info, er->keys);
	for (int k = 0, any = 0; k < ELLE_NKINDS; k++) {
		int bad = elle_forbidden(model, (enum elle_kind)k);
		struct buf *to = bad ? &forbidden : &allowed;

		if (!er->count[k])
			continue;
		buf_printf(&r->details, NULL, "%s{\"kind\":\"%s\",\"count\":"
			   "%zu,\"forbidden\":%s,\"first\":", any++ ? "," : "",
			   elle_kind_names[k], er->count[k],
			   bad ? "true" : "false");
		json_quote(&r->details, buf_str(&er->first[k]), NULL);
		cycle_json(&r->details, er, (enum elle_kind)k);
		buf_addch(&r->details, '}', NULL);
		buf_printf(to, NULL, "%s%s %zu", to->len ? ", " : "",
			   elle_kind_names[k], er->count[k]);
		if (bad && !first) {
			first = buf_str(&er->first[k]);
			fk = (enum elle_kind)k;
		}
	}
	buf_addch(&r->details, ']', NULL);
	snprintf(r->numbers, sizeof(r->numbers), "txns=%zu forbidden=%s",
		 er->ok + er->failed + er->info,
		 forbidden.len ? buf_str(&forbidden) : "0");
	if (first)
		check_verdict(r, VERDICT_FAIL, "%s, which %s forbids; first "
			      "%s: %s", buf_str(&forbidden), models[model],
			      elle_kind_names[fk], first);
	else
		check_verdict(r, VERDICT_PASS, "%zu ok, %zu failed, %zu "
			      "unknown transactions over %zu keys: no anomaly "
			      "%s forbids%s%s%s", er->ok, er->failed, er->info,
			      er->keys, models[model],
			      allowed.len ? " (allowed: " : "",
			      buf_str(&allowed), allowed.len ? ")" : "");
	buf_release(&forbidden);
	buf_release(&allowed);
}

/* The comma-separated integers of `text` into *list (allocated). */
static size_t parse_list(const char *text, int64_t **list)
{
	size_t n = 0, cap = 1;

	for (const char *p = text; p && *p; p++)
		cap += *p == ',';
	*list = xcalloc(cap + 1, sizeof(**list));
	for (const char *p = text; p && *p;) {
		char *end;
		long long x = strtoll(p, &end, 10);

		if (end == p)
			break;
		(*list)[n++] = x;
		p = *end == ',' ? end + 1 : end;
	}
	return n;
}

/* One key's list as a side holds it. */
struct keylist {
	int64_t key;
	int64_t *list;
	size_t n;
};

/* A side's lists, sorted by key. */
struct side_lists {
	struct keylist *v;
	size_t n, cap;
};

static int cmp_key(const void *a, const void *b)
{
	const struct keylist *x = a, *y = b;

	return (x->key > y->key) - (x->key < y->key);
}

/* Every key's list on one side, every row of the tables read whole. */
static int read_lists(struct sql *s, const struct lists *l, const char *db,
		      struct side_lists *out, struct err *e)
{
	struct buf q = BUF_INIT;
	int rc = 0;

	for (size_t t = 0; !rc && t < l->ntables; t++) {
		struct sql_result res = SQL_RESULT_INIT;

		buf_reset(&q);
		rc = buf_addstr(&q, "SELECT ", e) ||
		     sql_quote_ident(&q, l->key, e) ||
		     buf_addstr(&q, ", ", e) ||
		     sql_quote_ident(&q, l->column, e) ||
		     buf_addstr(&q, " FROM ", e) ||
		     sql_quote_ident(&q, db, e) || buf_addch(&q, '.', e) ||
		     sql_quote_ident(&q, l->tables[t], e) ||
		     sql_query(s, buf_str(&q), &res, e) ? -1 : 0;
		for (size_t i = 0; !rc && i < res.nrows; i++) {
			const char *k = sql_cell(&res, i, l->key);
			struct keylist *kl;

			if (out->n == out->cap) {
				out->cap = out->cap ? out->cap * 2 : 64;
				out->v = xrealloc(out->v, out->cap *
							  sizeof(*out->v));
			}
			kl = &out->v[out->n++];
			kl->key = k ? strtoll(k, NULL, 10) : 0;
			kl->n = parse_list(sql_cell(&res, i, l->column),
					   &kl->list);
		}
		sql_result_release(&res);
	}
	buf_release(&q);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_key);
	return rc;
}

static void side_release(struct side_lists *sl)
{
	for (size_t i = 0; i < sl->n; i++)
		free(sl->v[i].list);
	free(sl->v);
}

/* The upstream's lists, read once the run ended: one more ok
 * transaction, after every other, reading every key. Takes their lists. */
static void final_read(struct reading *rd, struct side_lists *up)
{
	struct elle_txn *t = new_txn(rd);

	t->label = "the final read upstream";
	t->status = ELLE_OK;
	t->invoke = t->complete = rd->last + 1;
	t->mops = xcalloc(up->n + 1, sizeof(*t->mops));
	for (size_t i = 0; i < up->n; i++) {
		struct elle_mop *m = &t->mops[t->nmops++];

		m->read = 1;
		m->key = up->v[i].key;
		m->list = up->v[i].list;
		m->nlist = up->v[i].n;
		up->v[i].list = NULL;
	}
}

/* "[a b c ... z]" of a list. */
static void list_text(struct buf *out, const int64_t *v, size_t n)
{
	buf_addch(out, '[', NULL);
	for (size_t i = 0; i < n; i++) {
		if (n > 6 && i == 3) {
			buf_addstr(out, " ...", NULL);
			i = n - 3;
		}
		buf_printf(out, NULL, "%s%lld", i ? " " : "",
			   (long long)v[i]);
	}
	buf_addch(out, ']', NULL);
}

/* The keys whose lists differ between the sides (a key one side lacks
 * too): how many, the first said in `first`. */
static size_t differ(const struct side_lists *up,
		     const struct side_lists *down, size_t *keys,
		     struct buf *first)
{
	static const struct keylist none = { 0, NULL, 0 };
	size_t count = 0, i = 0, j = 0;

	*keys = 0;
	while (i < up->n || j < down->n) {
		int64_t key = i == up->n ? down->v[j].key
			      : j == down->n ? up->v[i].key
			      : up->v[i].key < down->v[j].key ? up->v[i].key
			      : down->v[j].key;
		const struct keylist *u = i < up->n && up->v[i].key == key
					  ? &up->v[i++] : &none;
		const struct keylist *d = j < down->n && down->v[j].key == key
					  ? &down->v[j++] : &none;

		(*keys)++;
		if (u->n == d->n && (!u->n || !memcmp(u->list, d->list,
						      u->n * sizeof(int64_t))))
			continue;
		if (!count++) {
			buf_printf(first, NULL, "key %lld: downstream ",
				   (long long)key);
			list_text(first, d->list, d->n);
			buf_addstr(first, ", upstream ", NULL);
			list_text(first, u->list, u->n);
		}
	}
	return count;
}

/* Both sides' lists: the downstream's after the barrier. */
struct sides {
	int live;		/* read */
	struct side_lists up, down;
	size_t differ, keys;
	struct buf first;
	char halted[300];
};

/*
 * The live part: the upstream's lists read as a last transaction; after
 * the barrier the downstream's, each key's to equal the upstream's. 0;
 * 1 with r's verdict set (the barrier's); -1 with `e`.
 */
static int live(const struct check_ctx *ctx, const struct suite_item *it,
		const struct lists *l, struct reading *rd, struct sides *sd,
		struct check_result *r, struct err *e)
{
	const struct append_check_opts *o = it->opts;
	const struct component *up, *down;
	struct sql conn[2] = { SQL_INIT, SQL_INIT };
	const char *db = ctx->suite->database;
	int64_t took = 0;
	int rc;

	up = cluster_first_sql(ctx->cluster, ROLE_UPSTREAM);
	down = cluster_first_sql(ctx->cluster, ROLE_DOWNSTREAM);
	rc = !up ? err_set(e, ERR_INFRA, "the cluster has no upstream SQL "
			   "node")
		 : component_connect(up, &conn[0], NULL, 60, e) ||
		   read_lists(&conn[0], l, db, &sd->up, e);
	if (!rc && down) {
		rc = component_connect(down, &conn[1], NULL, 60, e) ? -1 : 0;
		if (!rc)
			rc = barrier_sync(ctx, up, &conn[0], down, &conn[1],
					  o->changefeed, o->sync_timeout, &took,
					  r, sd->halted, sizeof(sd->halted), e);
		if (!rc && !conn[1].my)
			rc = component_connect(down, &conn[1], NULL, 60, e);
		if (!rc)
			rc = read_lists(&conn[1], l, db, &sd->down, e);
		if (!rc)
			sd->differ = differ(&sd->up, &sd->down, &sd->keys,
					    &sd->first);
	}
	if (!rc) {
		buf_printf(&r->details, NULL, "%s\"downstream_differ\":%zu",
			   r->details.len ? "," : "", sd->differ);
		sd->live = 1;
		final_read(rd, &sd->up);
	}
	sql_close(&conn[0]);
	sql_close(&conn[1]);
	return rc;
}

/* Every key's list of component `c` at TSO `ts` (SET @@tidb_snapshot),
 * on a connection of its own. */
static int read_lists_at(const struct component *c, const struct lists *l,
			 const char *db, const char *ts,
			 struct side_lists *out, struct err *e)
{
	struct sql s = SQL_INIT;
	int rc;

	rc = syncpoint_store_connect_at(c, ts, &s, e) ||
	     read_lists(&s, l, db, out, e);
	sql_close(&s);
	return rc ? -1 : 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The history's transactions that snapshot `down` holds some of the
 * appends of, not all (a transaction is applied whole or not at all):
 * how many, the first said in `first`.
 */
static size_t straddled(const struct reading *rd,
			const struct side_lists *down, struct buf *first)
{
	size_t nv = 0, count = 0;
	int64_t *v;

	for (size_t i = 0; i < down->n; i++)
		nv += down->v[i].n;
	v = xcalloc(nv + 1, sizeof(*v));
	nv = 0;
	for (size_t i = 0; i < down->n; i++)
		for (size_t k = 0; k < down->v[i].n; k++)
			v[nv++] = down->v[i].list[k];
	qsort(v, nv, sizeof(*v), cmp_i64);
	for (size_t i = 0; i < rd->n; i++) {
		const struct elle_txn *t = &rd->t[i];
		size_t appends = 0, there = 0;

		if (t->label || t->status == ELLE_FAIL)
			continue;
		for (size_t m = 0; m < t->nmops; m++)
			if (!t->mops[m].read) {
				appends++;
				there += bsearch(&t->mops[m].value, v, nv,
						 sizeof(*v), cmp_i64) != NULL;
			}
		if (!there || there == appends || count++)
			continue;
		elle_txn_name(first, t);
		buf_printf(first, NULL, " straddles it: %zu of its %zu appends "
			   "downstream (", there, appends);
		for (size_t m = 0, k = 0; m < t->nmops; m++)
			if (!t->mops[m].read)
				buf_printf(first, NULL, "%s%lld to key %lld %s",
					   k++ ? ", " : "",
					   (long long)t->mops[m].value,
					   (long long)t->mops[m].key,
					   bsearch(&t->mops[m].value, v, nv,
						   sizeof(*v), cmp_i64)
					   ? "there" : "not");
		buf_addch(first, ')', NULL);
	}
	free(v);
	return count;
}

/* One sync point judged: its details member; 1 when it fails, `why`
 * saying so; -1 when a side could not be read there (said in `pe`). */
static int at_point(const struct check_ctx *ctx, const struct lists *l,
		    const struct reading *rd, const struct component *up,
		    const struct component *down, const struct sync_point *p,
		    struct check_result *r, struct buf *why, struct err *pe)
{
	struct side_lists u = { 0 }, d = { 0 };
	struct buf diff = BUF_INIT, str = BUF_INIT;
	size_t keys = 0, nd = 0, ns = 0;
	int rc;

	buf_printf(&r->details, NULL, "{\"primary_ts\":\"%s\","
		   "\"secondary_ts\":\"%s\"", p->primary_ts, p->secondary_ts);
	rc = read_lists_at(up, l, ctx->suite->database, p->primary_ts, &u,
			   pe) ||
	     read_lists_at(down, l, ctx->suite->database, p->secondary_ts,
			   &d, pe) ? -1 : 0;
	if (rc) {
		buf_addstr(&r->details, ",\"unread\":", NULL);
		json_quote(&r->details, pe->msg, NULL);
	} else {
		nd = differ(&u, &d, &keys, &diff);
		ns = straddled(rd, &d, &str);
		buf_printf(&r->details, NULL, ",\"keys\":%zu,\"differ\":%zu,"
			   "\"straddled\":%zu,\"verdict\":\"%s\"", keys, nd,
			   ns, nd || ns ? "fail" : "pass");
		if (nd || ns)
			buf_printf(why, NULL, "at sync point primary_ts %s, "
				   "secondary_ts %s: %s%s%s", p->primary_ts,
				   p->secondary_ts, buf_str(&str),
				   ns && nd ? "; " : "", buf_str(&diff));
		rc = nd || ns;
	}
	buf_addch(&r->details, '}', NULL);
	side_release(&u);
	side_release(&d);
	buf_release(&diff);
	buf_release(&str);
	return rc;
}

/*
 * The lists at the last o->syncpoints sync points: a violation into
 * `msg`, the pass into `pass`; 1 with r's verdict unknown (no point, a
 * side not TiDB, a point unread); -1 with `e`.
 */
static int at_syncpoints(const struct check_ctx *ctx,
			 const struct append_check_opts *o,
			 const struct lists *l, const struct reading *rd,
			 struct check_result *r, struct buf *msg,
			 struct buf *pass, struct err *e)
{
	const char *cf = cluster_changefeed_id(ctx->cluster, o->changefeed);
	const struct component *up = cluster_first_sql(ctx->cluster,
						       ROLE_UPSTREAM);
	const struct component *down = cluster_first_sql(ctx->cluster,
							 ROLE_DOWNSTREAM);
	struct sync_point *pts = NULL;
	struct buf first = BUF_INIT;
	size_t n = 0, bad = 0, unread = 0;
	int rc = !up || !down ? err_set(e, ERR_INFRA, "the cluster has no "
					"%s SQL node", up ? "downstream"
					: "upstream") : 0;

	rc = rc ? -1 : syncpoint_store_points(ctx, cf, o->syncpoints, "lists",
					      up, down, &pts, &n, r, e);
	buf_addstr(&r->details, ",\"syncpoints\":[", NULL);
	for (size_t i = 0; !rc && i < n; i++) {
		struct err pe = ERR_INIT;
		struct buf why = BUF_INIT;
		int one;

		buf_addstr(&r->details, i ? "," : "", NULL);
		one = at_point(ctx, l, rd, up, down, &pts[i], r, &why, &pe);
		if (one < 0 && !unread++)
			buf_printf(&first, NULL, "first at primary_ts %s, "
				   "secondary_ts %s: %s", pts[i].primary_ts,
				   pts[i].secondary_ts, pe.msg);
		if (one > 0 && !bad++)
			buf_addstr(msg, buf_str(&why), NULL);
		buf_release(&why);
	}
	buf_addch(&r->details, ']', NULL);
	if (bad)
		buf_printf(msg, NULL, " (%zu of %zu sync points of changefeed "
			   "%s fail)", bad, n, cf);
	else if (!rc && n)
		buf_printf(pass, NULL, "; equal lists and no transaction "
			   "straddling at %zu sync points of changefeed %s, "
			   "the last at primary_ts %s, secondary_ts %s", n, cf,
			   pts[n - 1].primary_ts, pts[n - 1].secondary_ts);
	if (!rc && unread && !bad) {
		check_verdict(r, VERDICT_UNKNOWN, "syncpoints: %zu of %zu sync "
			      "points of changefeed %s could not be read; %s",
			      unread, n, cf, buf_str(&first));
		rc = 1;
	}
	free(pts);
	buf_release(&first);
	return rc;
}

/* The downstream's difference added to the verdict: a failure. */
static void downstream_verdict(const struct sides *sd, struct check_result *r)
{
	char was[sizeof(r->message)];

	if (!sd->differ)
		return;
	snprintf(was, sizeof(was), "%s", r->message);
	check_verdict(r, VERDICT_FAIL, "%zu of %zu keys differ downstream%s"
		      "%s; first: %s; the history: %s", sd->differ,
		      sd->keys, sd->halted[0] ? " (compared "
		      "unsynced: " : "", sd->halted[0] ? sd->halted : "",
		      buf_str(&sd->first), was);
}

/* The sync points' violation, or their pass, added to the verdict. -1
 * with `e` when the check broke. */
static int syncpoint_verdict(const struct check_ctx *ctx,
			     const struct append_check_opts *o,
			     const struct lists *l, const struct reading *rd,
			     struct check_result *r, struct err *e)
{
	struct buf msg = BUF_INIT, pass = BUF_INIT;
	char was[sizeof(r->message)];
	enum verdict v = r->verdict;
	int rc = at_syncpoints(ctx, o, l, rd, r, &msg, &pass, e);

	snprintf(was, sizeof(was), "%s", r->message);
	if (!rc && msg.len)
		check_verdict(r, VERDICT_FAIL, "%s; the history: %s",
			      buf_str(&msg), was);
	else if (!rc && pass.len)
		check_verdict(r, v, "%s%s", was, buf_str(&pass));
	buf_release(&msg);
	buf_release(&pass);
	return rc < 0 ? -1 : 0;
}

static int run(const struct check_ctx *ctx, const struct suite_item *it,
	       struct check_result *r, struct err *e)
{
	const struct append_check_opts *o = it->opts;
	struct reading rd = { 0 };
	struct sides sd = { 0 };
	struct elle_result er;
	struct lists l;
	char path[4096];
	int rc, live_rc = 0;

	snprintf(path, sizeof(path), "%s/history.jsonl", ctx->run_dir);
	rd.path = "history.jsonl";
	rc = history_read(path, 0, record, &rd, NULL, e);
	if (rc >= 0 && !rd.bad[0] && ctx->cluster &&
	    !lists_of(ctx->suite, &l))
		live_rc = live(ctx, it, &l, &rd, &sd, r, e);
	if (rc < 0 || live_rc) {
		/* -1: broke; 1: the barrier's verdict stands. */
		rc = rc < 0 || live_rc < 0 ? -1 : 0;
	} else if (rd.bad[0]) {
		check_verdict(r, VERDICT_UNKNOWN, "%s", rd.bad);
	} else if (!rd.n) {
		check_verdict(r, VERDICT_UNKNOWN, "no transaction in the "
			      "history: an append workload records them");
	} else {
		elle_check(rd.t, rd.n, &er);
		judge(&er, (enum elle_model)o->model, r);
		elle_result_release(&er);
		if (sd.live)
			downstream_verdict(&sd, r);
		if (sd.live && o->syncpoints &&
		    syncpoint_verdict(ctx, o, &l, &rd, r, e))
			rc = -1;
	}
	side_release(&sd.up);
	side_release(&sd.down);
	buf_release(&sd.first);
	release(&rd);
	return rc < 0 ? -1 : 0;
}

/* The colour of an edge of each kind. */
static const char *edge_colour(const char *edge)
{
	return !strcmp(edge, "ww") ? "#1f77b4" : !strcmp(edge, "wr")
	       ? "#2ca02c" : "#d62728";
}

/* One cycle of `a` (an anomaly of the details) drawn: its transactions
 * round a circle, each edge an arrow named by its kind, key and value. */
static void draw_cycle(const json_t *a, struct buf *out)
{
	const json_t *cyc = json_object_get(a, "cycle");
	size_t n = json_array_size(cyc);
	const double cx = SVG_W / 2.0, cy = 190, rad = 130, pi = 3.14159265;
	struct buf body = BUF_INIT;

	buf_printf(&body, NULL, "<defs><marker id=\"elle-arrow\" "
		   "viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
		   "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\">"
		   "<path d=\"M0,0 L10,5 L0,10 z\"/></marker></defs>\n");
	for (size_t i = 0; i < n; i++) {
		const json_t *st = json_array_get(cyc, i);
		double a0 = 2 * pi * (double)i / (double)n - pi / 2;
		double a1 = 2 * pi * (double)(i + 1) / (double)n - pi / 2;
		double x0 = cx + rad * cos(a0), y0 = cy + rad * sin(a0);
		double x1 = cx + rad * cos(a1), y1 = cy + rad * sin(a1);
		double dx = x1 - x0, dy = y1 - y0;
		double len = sqrt(dx * dx + dy * dy);
		const char *edge = figure_str(st, "edge");
		char label[96];

		double qx, qy;

		if (len < 1)
			len = 1;
		/* Bowed to its left: an edge back between the same two
		 * transactions bows the other way. */
		qx = (x0 + x1) / 2 - dy / len * 45;
		qy = (y0 + y1) / 2 + dx / len * 45;
		buf_printf(&body, NULL, "<path d=\"M%.1f,%.1f Q%.1f,%.1f "
			   "%.1f,%.1f\" fill=\"none\" stroke=\"%s\" "
			   "stroke-width=\"2\" marker-end=\"url(#elle-arrow)"
			   "\"/>\n", x0 + dx * 8 / len, y0 + dy * 8 / len, qx,
			   qy, x1 - dx * 8 / len, y1 - dy * 8 / len,
			   edge_colour(edge));
		snprintf(label, sizeof(label), "%s key %lld: %lld", edge,
			 (long long)json_integer_value(
				 json_object_get(st, "key")),
			 (long long)json_integer_value(
				 json_object_get(st, "value")));
		/* Its label beside its bow, away from the other edges. */
		buf_printf(&body, NULL, "<text x=\"%.1f\" y=\"%.1f\" "
			   "text-anchor=\"%s\" fill=\"%s\">",
			   (x0 + x1) / 4 + qx / 2 - dy / len * 8,
			   (y0 + y1) / 4 + qy / 2 + dx / len * 8 + 4,
			   -dy / len < -0.3 ? "end" : -dy / len > 0.3 ? "start"
			   : "middle", edge_colour(edge));
		svg_text(&body, label);
		buf_printf(&body, NULL, "</text>\n<circle cx=\"%.1f\" "
			   "cy=\"%.1f\" r=\"6\"/>\n<text x=\"%.1f\" "
			   "y=\"%.1f\" text-anchor=\"middle\">", x0, y0,
			   cx + (rad + 28) * cos(a0),
			   cy + (rad + 28) * sin(a0) + 4);
		svg_text(&body, figure_str(st, "txn"));
		buf_addstr(&body, "</text>\n", NULL);
	}
	buf_addstr(out, "<h4>", NULL);
	svg_text(out, figure_str(a, "kind"));
	buf_printf(out, NULL, ": the first cycle, %lld transactions (ww "
		   "blue, wr green, rw red)</h4>\n<svg xmlns=\"http://www.w3."
		   "org/2000/svg\" width=\"%d\" height=\"380\" role=\"img\" "
		   "class=\"ellecycle\">\n%s</svg>\n",
		   (long long)json_integer_value(json_object_get(a,
							"cycle_length")),
		   SVG_W, buf_str(&body));
	buf_release(&body);
}

/* report.html: each forbidden cycle drawn, and left out of the text. */
static void append_draw(const struct figure *f, const json_t *details,
			json_t *rest, struct buf *out)
{
	const json_t *an = json_object_get(details, "anomalies");
	json_t *rest_an = json_object_get(rest, "anomalies");

	(void)f;
	for (size_t i = 0; i < json_array_size(an); i++) {
		const json_t *a = json_array_get(an, i);

		if (!json_array_size(json_object_get(a, "cycle")) ||
		    !json_is_true(json_object_get(a, "forbidden")))
			continue;
		draw_cycle(a, out);
		json_object_del(json_array_get(rest_an, i), "cycle");
	}
}

const struct checker_type checker_append = {
	.kind = { "append", "isolation anomalies of the append workload's "
		  "transactions (Elle's list-append): G0, G1a, G1b, G1c, "
		  "G-single, G2-item, internal, lost", opts,
		  sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct append_check_opts), .check = check },
	.live = 0,
	.run = run,
	.draw = append_draw,
};
