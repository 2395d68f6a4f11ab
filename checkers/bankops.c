/*
 * The bank check's operations (checkers/bankops.h): each worker's invoke
 * held open by its process until its completion, which files it as a
 * transfer (ok, failed, unknown) or a read (good or bad).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/bankops.h"
#include "lib/clock.h"

static const char *secs(char *out, size_t size, int64_t ns)
{
	snprintf(out, size, "%lld.%03lld", (long long)(ns / NS_PER_SEC),
		 (long long)(ns % NS_PER_SEC / NS_PER_MS));
	return out;
}

void bank_ops_init(struct bank_ops *ops, const struct ledger *w,
		   size_t max_report)
{
	memset(ops, 0, sizeof(*ops));
	ops->w = *w;
	ops->expected = w->accounts * w->initial;
	ops->max_report = max_report;
	ops->delta = xcalloc((size_t)w->accounts, sizeof(*ops->delta));
}

static void push(struct bank_op **v, size_t *n, size_t *cap,
		 const struct bank_op *o)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*v = xrealloc(*v, *cap * sizeof(**v));
	}
	(*v)[(*n)++] = *o;
}

/* The integer member `key` of the value, or -1 when it has none. */
static long long member(json_t *v, const char *key)
{
	json_t *m = json_object_get(v, key);

	return json_is_integer(m) ? (long long)json_integer_value(m) : -1;
}

/* An invoke: its process's open operation. */
static int invoked(struct bank_ops *b, const struct history_line *l)
{
	size_t p = (size_t)l->process;
	struct bank_op *o;

	if (p >= b->nopen) {
		size_t n = p + 16;

		b->open = xrealloc(b->open, n * sizeof(*b->open));
		b->is_open = xrealloc(b->is_open, n);
		memset(b->is_open + b->nopen, 0, n - b->nopen);
		b->nopen = n;
	}
	o = &b->open[p];
	memset(o, 0, sizeof(*o));
	o->line = l->line;
	o->process = l->process;
	snprintf(o->node, sizeof(o->node), "%s", l->node ? l->node : "?");
	o->invoke = l->time;
	o->complete = -1;
	o->type = "info";
	if (!strcmp(l->f, "transfer")) {
		json_t *v = l->value ? json_loadb(l->value, l->value_len, 0,
						  NULL) : NULL;

		o->from = member(v, "from");
		o->to = member(v, "to");
		o->amount = member(v, "amount");
		json_decref(v);
		if (o->from < 1 || o->from > b->w.accounts || o->to < 1 ||
		    o->to > b->w.accounts || o->amount < 0) {
			snprintf(b->bad_line, sizeof(b->bad_line),
				 "history.jsonl:%zu: a transfer without "
				 "from, to and amount of the accounts",
				 l->line);
			return 1;
		}
	}
	b->is_open[p] = 1;
	return 0;
}

static void read_done(struct bank_ops *b, struct bank_op *o,
		      const struct history_line *l)
{
	json_t *v = l->value ? json_loadb(l->value, l->value_len, 0, NULL)
			     : NULL;

	o->total = member(v, "total");
	o->accounts = member(v, "accounts");
	json_decref(v);
	b->reads++;
	b->replica_reads += o->replica;
	if (o->total == b->expected && o->accounts == b->w.accounts) {
		b->last_good = o->complete;
		return;
	}
	if (b->nbad < b->max_report) {
		b->good_before = xrealloc(b->good_before, (b->nbad + 1) *
					  sizeof(*b->good_before));
		b->good_before[b->nbad] = b->last_good;
		b->bad = xrealloc(b->bad, (b->nbad + 1) * sizeof(*b->bad));
		b->bad[b->nbad++] = *o;
	}
	b->bad_total++;
}

/* A replica read's node: the replica its value names. */
static void node_of_replica(struct bank_op *o, const struct history_line *l)
{
	json_t *v = l->value ? json_loadb(l->value, l->value_len, 0, NULL)
			     : NULL;
	const char *name = json_string_value(json_object_get(v, "replica"));

	if (name)
		snprintf(o->node, sizeof(o->node), "%s", name);
	json_decref(v);
}

/* A completion of a worker's operation. */
static int completed(struct bank_ops *b, const struct history_line *l)
{
	size_t p = (size_t)l->process;
	struct bank_op *o;

	if (p >= b->nopen || !b->is_open[p]) {
		snprintf(b->bad_line, sizeof(b->bad_line), "history.jsonl:%zu:"
			 " a completion of %s without its invoke", l->line,
			 l->f);
		return 1;
	}
	o = &b->open[p];
	b->is_open[p] = 0;
	o->complete = l->time;
	o->line = l->line;
	o->type = !strcmp(l->type, "ok") ? "ok" : !strcmp(l->type, "fail")
		  ? "fail" : "info";
	if (!strcmp(l->f, "read") || !strcmp(l->f, "replica_read")) {
		o->replica = !strcmp(l->f, "replica_read");
		if (o->replica)
			node_of_replica(o, l);
		if (o->type[0] == 'o')
			read_done(b, o, l);
		return 0;
	}
	if (o->type[0] == 'o') {
		b->delta[o->from - 1] -= o->amount;
		b->delta[o->to - 1] += o->amount;
		push(&b->ok, &b->nok, &b->cok, o);
	} else if (o->type[0] == 'f') {
		push(&b->failed, &b->nfailed, &b->cfailed, o);
	} else {
		push(&b->unknown, &b->nunknown, &b->cunknown, o);
	}
	return 0;
}

int bank_ops_line(struct bank_ops *ops, const struct history_line *l)
{
	if (l->process < 0 || (strcmp(l->f, "transfer") &&
			       strcmp(l->f, "read") &&
			       strcmp(l->f, "replica_read")))
		return 0;
	if (!strcmp(l->type, "invoke"))
		return invoked(ops, l);
	return completed(ops, l);
}

void bank_ops_end(struct bank_ops *ops)
{
	for (size_t p = 0; p < ops->nopen; p++)
		if (ops->is_open[p] && ops->open[p].from > 0)
			push(&ops->unknown, &ops->nunknown, &ops->cunknown,
			     &ops->open[p]);
}

void bank_op_text(struct buf *out, const struct bank_op *o)
{
	char a[32], c[32];

	if (o->from > 0)
		buf_printf(out, NULL, "transfer %lld -> %lld of %lld ",
			   o->from, o->to, o->amount);
	else
		buf_printf(out, NULL, "%sread of %lld (%lld accounts) ",
			   o->replica ? "replica " : "", o->total,
			   o->accounts);
	buf_printf(out, NULL, "(line %zu, process %d, %s, %ss..%s%s)", o->line,
		   o->process, o->node, secs(a, sizeof(a), o->invoke),
		   o->complete < 0 ? "" : secs(c, sizeof(c), o->complete),
		   o->complete < 0 ? "never completed" : "s");
}

void bank_ops_judge_reads(const struct bank_ops *ops,
			  const struct fault_windows *faults, struct buf *d,
			  struct buf *msg)
{
	buf_printf(d, NULL, ",\"reads\":%zu,\"replica_reads\":%zu,"
		   "\"bad_reads\":%zu,\"first_bad_reads\":[", ops->reads,
		   ops->replica_reads, ops->bad_total);
	for (size_t i = 0; i < ops->nbad; i++) {
		const struct bank_op *o = &ops->bad[i];
		struct buf text = BUF_INIT, json = BUF_INIT;

		bank_op_text(&text, o);
		buf_printf(d, NULL, "%s{\"line\":%zu,\"total\":%lld,"
			   "\"accounts\":%lld,\"text\":", i ? "," : "",
			   o->line, o->total, o->accounts);
		json_quote(d, buf_str(&text), NULL);
		fault_windows_between(faults, ops->good_before[i], o->complete,
				      &text, &json);
		buf_printf(d, NULL, ",\"between\":%s}", buf_str(&json));
		if (!i)
			buf_printf(msg, NULL, "%zu of %zu reads saw other "
				   "than %lld in %lld accounts; first: %s",
				   ops->bad_total, ops->reads, ops->expected,
				   (long long)ops->w.accounts, buf_str(&text));
		buf_release(&text);
		buf_release(&json);
	}
	buf_addch(d, ']', NULL);
}

void bank_ops_release(struct bank_ops *ops)
{
	free(ops->open);
	free(ops->is_open);
	free(ops->ok);
	free(ops->failed);
	free(ops->unknown);
	free(ops->delta);
	free(ops->bad);
	free(ops->good_before);
}
