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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/checker.h"
#include "checkers/elle.h"
#include "lib/history.h"

static const char *const models[] = { "read-committed",
				      "snapshot-isolation", "serializable",
				      NULL };

struct append_check_opts {
	int model;		/* enum elle_model */
};

static const struct optspec opts[] = {
	{ "model", OPT_ENUM, "snapshot-isolation", 0, models, 0, 0,
	  "the isolation the database promises: read-committed, "
	  "snapshot-isolation (TiDB's default) or serializable; the "
	  "anomalies it forbids fail the run, the others are shown",
	  OPT_AT(struct append_check_opts, model) },
};

struct reading {
	struct elle_txn *t;
	size_t n, cap;
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

	if (l->process < 0 || strcmp(l->f, "txn"))
		return 0;
	if (p >= rd->nopen) {
		rd->open = xrealloc(rd->open, (p + 16) * sizeof(*rd->open));
		for (size_t i = rd->nopen; i < p + 16; i++)
			rd->open[i] = -1;
		rd->nopen = p + 16;
	}
	if (!strcmp(l->type, "invoke")) {
		if (rd->n == rd->cap) {
			rd->cap = rd->cap ? rd->cap * 2 : 256;
			rd->t = xrealloc(rd->t, rd->cap * sizeof(*rd->t));
		}
		t = &rd->t[rd->n];
		memset(t, 0, sizeof(*t));
		t->line = l->line;
		t->process = l->process;
		t->status = ELLE_INFO;
		t->invoke = l->time;
		t->complete = -1;
		if (parse_txn(l, t))
			return bad_line(rd, l, "a txn whose value is no list "
					"of [\"append\", KEY, VALUE] and "
					"[\"r\", KEY, LIST] operations");
		rd->open[p] = (long)rd->n++;
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

/* The verdict and its words from what elle_check found. */
static void judge(const struct elle_result *er, enum elle_model model,
		  struct check_result *r)
{
	struct buf forbidden = BUF_INIT, allowed = BUF_INIT;
	const char *first = NULL;
	enum elle_kind fk = ELLE_G0;

	buf_printf(&r->details, NULL, "\"model\":\"%s\",\"transactions\":"
		   "{\"ok\":%zu,\"failed\":%zu,\"unknown\":%zu},\"keys\":%zu,"
		   "\"anomalies\":[", models[model], er->ok, er->failed,
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

static int run(const struct check_ctx *ctx, const struct suite_item *it,
	       struct check_result *r, struct err *e)
{
	const struct append_check_opts *o = it->opts;
	struct reading rd = { 0 };
	struct elle_result er;
	char path[4096];
	int rc;

	snprintf(path, sizeof(path), "%s/history.jsonl", ctx->run_dir);
	rd.path = "history.jsonl";
	rc = history_read(path, 0, record, &rd, NULL, e);
	if (rc < 0) {
		release(&rd);
		return -1;
	}
	if (rd.bad[0]) {
		check_verdict(r, VERDICT_UNKNOWN, "%s", rd.bad);
	} else if (!rd.n) {
		check_verdict(r, VERDICT_UNKNOWN, "no transaction in the "
			      "history: an append workload records them");
	} else {
		elle_check(rd.t, rd.n, &er);
		judge(&er, (enum elle_model)o->model, r);
		elle_result_release(&er);
	}
	release(&rd);
	return 0;
}

const struct checker_type checker_append = {
	.kind = { "append", "isolation anomalies of the append workload's "
		  "transactions (Elle's list-append): G0, G1a, G1b, G1c, "
		  "G-single, G2-item, internal, lost", opts,
		  sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct append_check_opts) },
	.live = 0,
	.run = run,
};
