/*
 * bank: the bank workload's money is never made or lost (Jepsen's bank;
 * docs/checkers.md, bank). With the suite's one bank workload
 * (workloads/bank.h: accounts, initial, tables):
 *
 * reads: every ok read saw the total accounts * initial in every
 *   account; so did every ok replica_read (the workload's reads of a
 *   MySQL / MariaDB replica, which applies transactions whole and in
 *   order, while the run goes on). A read that did not is named with the
 *   faults between the last read before it that saw them (or the start)
 *   and its completion.
 * balances (live): each account's final balance upstream is its initial
 *   one plus the ok transfers to it, minus those from it, with the info
 *   transfers (outcome unknown; an invoke that never completed is one)
 *   resolved: every way of counting each as applied or not is tried
 *   (at most MAX_UNKNOWN of them, else the verdict is unknown), and one
 *   is applied when it is in every way that makes the balances match,
 *   not applied when in none, unresolved when in some. When no way
 *   matches, the accounts that differ are named, and so are the ok
 *   transfers that alone would explain the difference had they not
 *   applied, and the failed ones had they applied, with the faults from
 *   their invoke to their completion.
 * downstream (live): after the barrier the consistency check waits on
 *   too (barrier_sync), the downstream's balances and total equal the
 *   upstream's; differing accounts are named.
 * syncpoints (live, option syncpoints > 0, TiDB on both sides): at each
 *   of the last N sync points TiCDC recorded (syncpoint_store_read), the
 *   upstream read at tidb_snapshot = primary_ts and the downstream at
 *   secondary_ts: transfers are transactions, so each side holds every
 *   account and the total accounts * initial, and the downstream's
 *   balances are the upstream's. A violation names the point's TSOs, the
 *   totals and the first differing account. No point recorded, a side
 *   not TiDB, a snapshot refused (TiDB error 8055, older than GC's safe
 *   point): unknown, saying which, unless a violation stands.
 *
 * Offline (no cluster) the reads are judged and the rest is skipped: a
 * bad read fails, else the verdict is skip, with the reason.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/barrier.h"
#include "checkers/checker.h"
#include "checkers/syncpoint_store.h"
#include "clusters/cluster.h"
#include "core/ledger.h"
#include "core/suite.h"
#include "core/worker.h"
#include "lib/clock.h"
#include "lib/faultspan.h"
#include "lib/history.h"
#include "lib/sql.h"
#include "lib/ynode.h"

struct bank_check_opts {
	int64_t sync_timeout;
	const char *changefeed;	/* NULL: the cluster's */
	int64_t max_report;
	int64_t syncpoints;	/* 0: none read */
};

#define AT(member) OPT_AT(struct bank_check_opts, member)

static const struct optspec opts[] = {
	{ "sync_timeout", OPT_DURATION, "300s", 0, NULL, 0, 0,
	  "how long the finish mark may take to reach the downstream",
	  AT(sync_timeout) },
	{ "changefeed", OPT_STRING, NULL, 0, NULL, 0, 0,
	  "TiCDC: the changefeed whose checkpoint must pass the finish mark "
	  "and whose sync points are read (default: the topology's, else "
	  "tichaos)", AT(changefeed) },
	{ "max_report", OPT_INT, "20", 0, NULL, 1, 1000,
	  "reads, transfers and accounts listed per kind of violation",
	  AT(max_report) },
	{ "syncpoints", OPT_INT, "0", 0, NULL, 0, 1000,
	  "TiDB both sides: the totals and balances read at the last N sync "
	  "points of the changefeed (tidb_snapshot); 0: none",
	  AT(syncpoints) },
};

/* Unknown transfers resolved at most: 2^MAX_UNKNOWN ways are tried. */
#define MAX_UNKNOWN 20
#define MAX_BETWEEN 20	/* faults named per violation */

/* An operation: a transfer, or a read. */
struct op {
	size_t line;		/* of its completion, else its invoke */
	int process;
	char node[48];
	int64_t invoke, complete;	/* complete -1: never */
	const char *type;	/* "ok", "fail", "info" (static) */
	long long from, to, amount;
	long long total, accounts;	/* reads */
	int replica;		/* a read of the replica (replica_read) */
	int applied;		/* unknown: 1 yes, 0 no, -1 unresolved */
};

struct fault_window {
	int64_t start, end;
	char *text;
};

struct bank {
	struct ledger w;	/* the workload's accounts */
	long long expected;		/* accounts * initial */
	size_t max_report;
	/* Open invokes, by process. */
	struct op *open;
	unsigned char *is_open;
	size_t nopen;
	/* Transfers: ok, fail, and unknown (info, never completed). */
	struct op *ok, *failed, *unknown;
	size_t nok, nfailed, nunknown, cok, cfailed, cunknown;
	long long *delta;	/* per account, from the ok ones */
	size_t reads, replica_reads;	/* ok; the replica's of them */
	struct op *bad;		/* the first max_report bad reads */
	size_t nbad, bad_total;
	int64_t *good_before;	/* per bad read: the last good read's
				 * completion before it, or 0 */
	int64_t last_good;
	/* Faults, from the nemesis's records read so far. */
	struct fault_window *faults;
	size_t nfaults, cfaults;
	struct fault_spans spans;
	char bad_line[300];	/* a history that cannot be judged */
	char at_points[300];	/* the sync points' pass, or "" */
};

static const char *secs(char *out, size_t size, int64_t ns)
{
	snprintf(out, size, "%lld.%03lld", (long long)(ns / NS_PER_SEC),
		 (long long)(ns % NS_PER_SEC / NS_PER_MS));
	return out;
}

static void add_fault(struct bank *b, int64_t start, int64_t end,
		      char *text)
{
	if (b->nfaults == b->cfaults) {
		b->cfaults = b->cfaults ? b->cfaults * 2 : 16;
		b->faults = xrealloc(b->faults, b->cfaults *
				     sizeof(*b->faults));
	}
	b->faults[b->nfaults].start = start;
	b->faults[b->nfaults].end = end;
	b->faults[b->nfaults++].text = text;
}

/*
 * A span of the faults (lib/faultspan.h): a step that took effect, and a
 * time in effect by its injection's text, "... in effect". An invoke that
 * never completed is not shown.
 */
static int fault_span(const struct fault_span *s, size_t *tag, void *arg)
{
	struct bank *b = arg;
	const struct history_line *l = s->line;

	if (s->kind == FAULT_SPAN_STEP) {
		*tag = b->nfaults;
		add_fault(b, s->start, s->end, xprintf("%s%s%s", l->f,
			  l->target ? " " : "", l->target ? l->target : ""));
	} else if (s->kind == FAULT_SPAN_IN_EFFECT) {
		add_fault(b, s->start, s->end, xprintf("%s in effect",
			  b->faults[s->inject].text));
	}
	return 0;
}

static void push(struct op **v, size_t *n, size_t *cap, const struct op *o)
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
static int invoked(struct bank *b, const struct history_line *l)
{
	size_t p = (size_t)l->process;
	struct op *o;

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

static void read_done(struct bank *b, struct op *o,
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
static void node_of_replica(struct op *o, const struct history_line *l)
{
	json_t *v = l->value ? json_loadb(l->value, l->value_len, 0, NULL)
			     : NULL;
	const char *name = json_string_value(json_object_get(v, "replica"));

	if (name)
		snprintf(o->node, sizeof(o->node), "%s", name);
	json_decref(v);
}

/* A completion of a worker's operation. */
static int completed(struct bank *b, const struct history_line *l)
{
	size_t p = (size_t)l->process;
	struct op *o;

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

static int record(const struct history_line *l, void *arg)
{
	struct bank *b = arg;

	if (l->process == HISTORY_NEMESIS)
		return fault_spans_line(&b->spans, l);
	if (l->process < 0 || (strcmp(l->f, "transfer") &&
			       strcmp(l->f, "read") &&
			       strcmp(l->f, "replica_read")))
		return 0;
	if (!strcmp(l->type, "invoke"))
		return invoked(b, l);
	return completed(b, l);
}

/* Transfers invoked and never completed are unknown too. */
static void never_completed(struct bank *b)
{
	for (size_t p = 0; p < b->nopen; p++)
		if (b->is_open[p] && b->open[p].from > 0)
			push(&b->unknown, &b->nunknown, &b->cunknown,
			     &b->open[p]);
}

/* ", between: a, b" of the faults meeting [lo, hi], into `out`. */
static void between(const struct bank *b, int64_t lo, int64_t hi,
		    struct buf *text, struct buf *json)
{
	size_t n = 0;
	char s[32], t[32];

	buf_addch(json, '[', NULL);
	for (size_t i = 0; i < b->nfaults && n < MAX_BETWEEN; i++) {
		const struct fault_window *f = &b->faults[i];
		char *one;

		if (f->end < lo || f->start > hi)
			continue;
		one = f->start == f->end ? xprintf("%s at %ss", f->text,
						   secs(s, sizeof(s), f->end))
			: xprintf("%s from %ss to %ss", f->text,
				  secs(s, sizeof(s), f->start),
				  secs(t, sizeof(t), f->end));
		buf_addstr(text, n ? ", " : "; between: ", NULL);
		buf_addstr(text, one, NULL);
		buf_addstr(json, n ? "," : "", NULL);
		json_quote(json, one, NULL);
		free(one);
		n++;
	}
	buf_addch(json, ']', NULL);
}

/* "transfer 3 -> 7 of 5 (line 12, process 1, tidb-0, 2.100s..2.110s)" */
static void op_text(struct buf *out, const struct op *o)
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

/* The reads: details "reads", "bad_reads"; the failure in `msg`. */
static void judge_reads(const struct bank *b, struct check_result *r,
			struct buf *msg)
{
	struct buf *d = &r->details;

	buf_printf(d, NULL, ",\"reads\":%zu,\"replica_reads\":%zu,"
		   "\"bad_reads\":%zu,\"first_bad_reads\":[", b->reads,
		   b->replica_reads, b->bad_total);
	for (size_t i = 0; i < b->nbad; i++) {
		struct buf text = BUF_INIT, json = BUF_INIT;

		op_text(&text, &b->bad[i]);
		buf_printf(d, NULL, "%s{\"line\":%zu,\"total\":%lld,"
			   "\"accounts\":%lld,\"text\":", i ? "," : "",
			   b->bad[i].line, b->bad[i].total,
			   b->bad[i].accounts);
		json_quote(d, buf_str(&text), NULL);
		between(b, b->good_before[i], b->bad[i].complete, &text,
			&json);
		buf_printf(d, NULL, ",\"between\":%s}", buf_str(&json));
		if (!i)
			buf_printf(msg, NULL, "%zu of %zu reads saw other "
				   "than %lld in %lld accounts; first: %s",
				   b->bad_total, b->reads, b->expected,
				   (long long)b->w.accounts, buf_str(&text));
		buf_release(&text);
		buf_release(&json);
	}
	buf_addch(d, ']', NULL);
}

/* Every account's balance on one side: present[k] when account k+1 is. */
static int read_balances(struct sql *s, const struct bank *b,
			 const char *db, long long *bal,
			 unsigned char *present, struct err *e)
{
	const struct ledger *w = &b->w;
	struct buf q = BUF_INIT;
	int rc = 0;

	memset(present, 0, (size_t)w->accounts);
	for (size_t t = 0; !rc && t < w->ntables; t++) {
		struct sql_result res = SQL_RESULT_INIT;

		buf_reset(&q);
		rc = buf_addstr(&q, "SELECT ", e) ||
		     sql_quote_ident(&q, w->key, e) ||
		     buf_addstr(&q, " AS k, ", e) ||
		     sql_quote_ident(&q, w->column, e) ||
		     buf_addstr(&q, " AS v FROM ", e) ||
		     sql_quote_ident(&q, db, e) || buf_addch(&q, '.', e) ||
		     sql_quote_ident(&q, w->tables[t], e) ||
		     sql_query(s, buf_str(&q), &res, e);
		for (size_t i = 0; !rc && i < res.nrows; i++) {
			const char *k = sql_cell(&res, i, "k");
			const char *v = sql_cell(&res, i, "v");
			long long id = k ? strtoll(k, NULL, 10) : 0;

			if (id < 1 || id > w->accounts)
				continue;	/* not an account: no money */
			bal[id - 1] = v ? strtoll(v, NULL, 10) : 0;
			present[id - 1] = 1;
		}
		sql_result_release(&res);
	}
	buf_release(&q);
	return rc ? -1 : 0;
}

/* Does applying the unknown transfers of `mask` leave no residual? */
static int fits(const struct bank *b, const long long *residual,
		uint32_t mask, long long *scratch, const size_t *touched,
		size_t ntouched)
{
	for (size_t i = 0; i < ntouched; i++)
		scratch[touched[i]] = residual[touched[i]];
	for (size_t u = 0; u < b->nunknown; u++)
		if (mask & (UINT32_C(1) << u)) {
			scratch[b->unknown[u].from - 1] += b->unknown[u].amount;
			scratch[b->unknown[u].to - 1] -= b->unknown[u].amount;
		}
	for (size_t i = 0; i < ntouched; i++)
		if (scratch[touched[i]])
			return 0;
	return 1;
}

/*
 * Resolve the unknown transfers against `residual` (final - initial - ok
 * deltas, per account): how many ways fit; each unknown's `applied`.
 */
static uint64_t resolve(struct bank *b, const long long *residual)
{
	size_t n = (size_t)b->w.accounts, ntouched = 0;
	size_t *touched = xcalloc(2 * b->nunknown + 1, sizeof(*touched));
	unsigned char *is_touched = xcalloc(n, 1);
	long long *scratch = xcalloc(n, sizeof(*scratch));
	uint64_t *in = xcalloc(b->nunknown + 1, sizeof(*in)), ways = 0;
	int outside = 0;

	for (size_t u = 0; u < b->nunknown; u++) {
		long long acc[2] = { b->unknown[u].from, b->unknown[u].to };

		for (int k = 0; k < 2; k++)
			if (!is_touched[acc[k] - 1]) {
				is_touched[acc[k] - 1] = 1;
				touched[ntouched++] = (size_t)acc[k] - 1;
			}
	}
	for (size_t k = 0; k < n; k++)
		outside |= !is_touched[k] && residual[k];
	for (uint64_t m = 0; !outside && m < (UINT64_C(1) << b->nunknown);
	     m++)
		if (fits(b, residual, (uint32_t)m, scratch, touched,
			 ntouched)) {
			ways++;
			for (size_t u = 0; u < b->nunknown; u++)
				in[u] += (m >> u) & 1;
		}
	for (size_t u = 0; u < b->nunknown; u++)
		b->unknown[u].applied = !ways ? -1 : in[u] == ways ? 1
					: in[u] == 0 ? 0 : -1;
	free(touched);
	free(is_touched);
	free(scratch);
	free(in);
	return ways;
}

/*
 * The transfers of `v` that alone explain `residual`: ok ones that did
 * not apply (sign 1) or failed ones that did (sign -1). Into the details
 * as "explained_by" and, the first, into `msg`.
 */
static void explain(const struct bank *b, const long long *residual,
		    size_t differing, const struct op *v, size_t n, int sign,
		    struct buf *d, struct buf *msg, size_t *listed)
{
	for (size_t i = 0; i < n && differing == 2 &&
	     *listed < b->max_report; i++) {
		const struct op *o = &v[i];
		struct buf text = BUF_INIT, json = BUF_INIT;

		if (residual[o->from - 1] != sign * o->amount ||
		    residual[o->to - 1] != -sign * o->amount)
			continue;
		op_text(&text, o);
		buf_printf(d, NULL, "%s{\"%s\":", *listed ? "," : "",
			   sign > 0 ? "lost" : "applied_fail");
		json_quote(d, buf_str(&text), NULL);
		between(b, o->invoke, o->complete, &text, &json);
		buf_printf(d, NULL, ",\"between\":%s}", buf_str(&json));
		if (!*listed)
			buf_printf(msg, NULL, "; %s: %s", sign > 0 ?
				   "an ok transfer that did not apply would "
				   "explain it" : "a failed transfer that "
				   "applied would explain it", buf_str(&text));
		(*listed)++;
		buf_release(&text);
		buf_release(&json);
	}
}

/* The unknown transfers and how each was resolved, into the details. */
static void unknown_json(const struct bank *b, struct buf *d,
			 size_t counts[3])
{
	buf_addstr(d, ",\"unknown\":[", NULL);
	for (size_t u = 0; u < b->nunknown; u++) {
		const struct op *o = &b->unknown[u];
		struct buf text = BUF_INIT;

		counts[o->applied < 0 ? 2 : o->applied ? 0 : 1]++;
		if (u >= b->max_report)
			continue;
		op_text(&text, o);
		buf_addstr(d, u ? "," : "", NULL);
		buf_printf(d, NULL, "{\"line\":%zu,\"resolved\":\"%s\","
			   "\"text\":", o->line, o->applied < 0 ?
			   "unresolved" : o->applied ? "applied" :
			   "not applied");
		json_quote(d, buf_str(&text), NULL);
		buf_addch(d, '}', NULL);
		buf_release(&text);
	}
	buf_addch(d, ']', NULL);
}

/*
 * The final balances upstream against the history: details, numbers'
 * part in `nums`, a failure in `msg`. -1: too many unknown transfers to
 * resolve (r's verdict unknown says so).
 */
static int judge_balances(struct bank *b, const long long *final,
			  const unsigned char *present,
			  struct check_result *r, struct buf *msg,
			  struct buf *nums)
{
	size_t n = (size_t)b->w.accounts, differing = 0, listed = 0;
	long long *residual = xcalloc(n, sizeof(*residual));
	struct buf *d = &r->details;
	size_t counts[3] = { 0, 0, 0 };
	uint64_t ways;

	for (size_t k = 0; k < n; k++) {
		residual[k] = (present[k] ? final[k] : 0) - b->w.initial -
			      b->delta[k];
		differing += residual[k] != 0;
	}
	buf_printf(d, NULL, ",\"transfers\":{\"ok\":%zu,\"fail\":%zu,"
		   "\"unknown\":%zu}", b->nok, b->nfailed, b->nunknown);
	if (b->nunknown > MAX_UNKNOWN) {
		check_verdict(r, VERDICT_UNKNOWN, "%zu unknown transfers, more "
			      "than the %d the check resolves", b->nunknown,
			      MAX_UNKNOWN);
		free(residual);
		return -1;
	}
	ways = resolve(b, residual);
	unknown_json(b, d, counts);
	buf_printf(nums, NULL, " transfers=%zu failed=%zu unknown=%zu "
		   "applied=%zu not_applied=%zu unresolved=%zu", b->nok,
		   b->nfailed, b->nunknown, ways ? counts[0] : 0,
		   ways ? counts[1] : 0, counts[2]);
	buf_printf(d, NULL, ",\"fitting_ways\":%llu,\"differing_accounts\":[",
		   (unsigned long long)ways);
	for (size_t k = 0, i = 0; !ways && k < n; k++) {
		long long want = b->w.initial + b->delta[k];

		if (!residual[k])
			continue;
		if (i < b->max_report) {
			buf_printf(d, NULL, "%s{\"account\":%zu,\"table\":",
				   i ? "," : "", k + 1);
			json_quote(d, ledger_table(&b->w, (int64_t)k + 1), NULL);
			if (present[k])
				buf_printf(d, NULL, ",\"final\":%lld",
					   final[k]);
			else
				buf_addstr(d, ",\"final\":null", NULL);
			buf_printf(d, NULL, ",\"expected\":%lld}", want);
		}
		if (!i && b->nunknown)
			buf_printf(msg, NULL, "%sthe final balances fit no "
				   "outcome of the %zu unknown transfers: ",
				   msg->len ? "; " : "", b->nunknown);
		else if (!i)
			buf_printf(msg, NULL, "%sthe final balances do not "
				   "fit the transfers: ", msg->len ? "; " : "");
		if (i < 3 && present[k])
			buf_printf(msg, NULL, "%saccount %zu holds %lld, "
				   "expected %lld", i ? ", " : "", k + 1,
				   final[k], want);
		else if (i < 3)
			buf_printf(msg, NULL, "%saccount %zu is missing",
				   i ? ", " : "", k + 1);
		i++;
	}
	buf_addstr(d, "],\"explained_by\":[", NULL);
	if (!ways) {
		buf_printf(msg, NULL, " (%zu accounts differ)", differing);
		explain(b, residual, differing, b->ok, b->nok, 1, d, msg,
			&listed);
		explain(b, residual, differing, b->failed, b->nfailed, -1, d,
			msg, &listed);
	}
	buf_addch(d, ']', NULL);
	free(residual);
	return 0;
}

static void number_or_null(struct buf *d, int present, long long v)
{
	if (present)
		buf_printf(d, NULL, "%lld", v);
	else
		buf_addstr(d, "null", NULL);
}

/* The downstream's balances against the upstream's `up`. */
static void judge_downstream(const struct bank *b, const long long *up,
			     const unsigned char *up_present,
			     const long long *down,
			     const unsigned char *down_present,
			     struct check_result *r, struct buf *msg,
			     struct buf *nums)
{
	size_t n = (size_t)b->w.accounts, differing = 0;
	long long total[2] = { 0, 0 };
	struct buf *d = &r->details;

	buf_addstr(d, ",\"downstream_differing\":[", NULL);
	for (size_t k = 0; k < n; k++) {
		total[0] += up_present[k] ? up[k] : 0;
		total[1] += down_present[k] ? down[k] : 0;
		if (up_present[k] == down_present[k] &&
		    (!up_present[k] || up[k] == down[k]))
			continue;
		if (differing < b->max_report) {
			buf_printf(d, NULL, "%s{\"account\":%zu,\"table\":",
				   differing ? "," : "", k + 1);
			json_quote(d, ledger_table(&b->w, (int64_t)k + 1), NULL);
			buf_addstr(d, ",\"upstream\":", NULL);
			number_or_null(d, up_present[k], up[k]);
			buf_addstr(d, ",\"downstream\":", NULL);
			number_or_null(d, down_present[k], down[k]);
			buf_addch(d, '}', NULL);
		}
		if (!differing)
			buf_printf(msg, NULL, "%sthe downstream differs: "
				   "account %zu (%s) is ", msg->len ? "; " : "",
				   k + 1, ledger_table(&b->w, (int64_t)k + 1));
		if (!differing && down_present[k])
			buf_printf(msg, NULL, "%lld", down[k]);
		else if (!differing)
			buf_addstr(msg, "missing", NULL);
		if (!differing && up_present[k])
			buf_printf(msg, NULL, " downstream, %lld upstream",
				   up[k]);
		else if (!differing)
			buf_addstr(msg, " downstream, missing upstream", NULL);
		differing++;
	}
	buf_printf(d, NULL, "],\"upstream_total\":%lld,\"downstream_total\":"
		   "%lld", total[0], total[1]);
	if (differing)
		buf_printf(msg, NULL, " (%zu accounts differ; totals %lld "
			   "downstream, %lld upstream)", differing, total[1],
			   total[0]);
	buf_printf(nums, NULL, " downstream_differing=%zu", differing);
}

/* The suite's workload that keeps a ledger, into `out` (kind `check`
 * makes sure there is one): 0, or -1 when there is none. */
static int ledger_of(const struct suite *s, struct ledger *out)
{
	for (size_t i = 0; i < s->nworkloads; i++)
		if (s->workloads[i].type->ledger)
			return s->workloads[i].type->ledger(&s->workloads[i],
							    out);
	return -1;
}

static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	struct ynode at = { YNODE_SCALAR, it->line, it->col, NULL, 0, NULL, 0 };
	size_t n = 0;

	for (size_t i = 0; i < s->nworkloads; i++)
		n += s->workloads[i].type->ledger != NULL;
	if (n != 1)
		return ynode_error(e, s->path, &at, "check 'bank' needs one "
				   "workload of kind 'bank' (the suite has "
				   "%zu)", n);
	return 0;
}

/*
 * The live parts: the balances upstream, the barrier, the downstream's.
 * 0, 1 with r's verdict set (the barrier's, or unknown), -1 with `e`.
 */
static int live(struct bank *b, const struct check_ctx *ctx,
		const struct suite_item *it, struct check_result *r,
		struct buf *msg, struct buf *nums, struct err *e)
{
	const struct bank_check_opts *o = it->opts;
	const struct component *up, *down;
	struct sql conn[2] = { SQL_INIT, SQL_INIT };
	size_t n = (size_t)b->w.accounts;
	long long *bal = xcalloc(2 * n, sizeof(*bal));
	unsigned char *present = xcalloc(2 * n, 1);
	char halted[300] = "";
	int64_t took = 0;
	int rc;

	up = cluster_first_sql(ctx->cluster, ROLE_UPSTREAM);
	down = cluster_first_sql(ctx->cluster, ROLE_DOWNSTREAM);
	rc = !up || !down ? err_set(e, ERR_INFRA, "the cluster has no %s SQL "
				    "node", up ? "downstream" : "upstream")
	     : component_connect(up, &conn[0], NULL, 60, e) ||
	       read_balances(&conn[0], b, ctx->suite->database, bal,
			     present, e);
	if (!rc && judge_balances(b, bal, present, r, msg, nums) < 0)
		rc = 1;		/* unknown, said by judge_balances */
	rc = rc || component_connect(down, &conn[1], NULL, 60, e);
	if (!rc) {
		buf_addch(&r->details, ',', NULL);
		rc = barrier_sync(ctx, up, &conn[0], down, &conn[1],
				  o->changefeed, o->sync_timeout, &took, r,
				  halted, sizeof(halted), e);
	}
	if (!rc && !conn[1].my)
		rc = component_connect(down, &conn[1], NULL, 60, e);
	rc = rc || read_balances(&conn[1], b, ctx->suite->database, bal + n,
				 present + n, e);
	if (!rc)
		judge_downstream(b, bal, present, bal + n, present + n, r, msg,
				 nums);
	if (!rc && halted[0] && !msg->len) {
		check_verdict(r, VERDICT_UNKNOWN, "the balances fit, but the "
			      "downstream is unsynced: %s", halted);
		rc = 1;
	} else if (!rc && halted[0]) {
		buf_printf(msg, NULL, " (compared unsynced: %s)", halted);
	}
	sql_close(&conn[0]);
	sql_close(&conn[1]);
	free(bal);
	free(present);
	return rc;
}

/* The balances of `c` at TSO `ts` (tidb_snapshot). */
static int read_at(const struct component *c, const struct bank *b,
		   const char *db, const char *ts, long long *bal,
		   unsigned char *present, struct err *e)
{
	struct sql s = SQL_INIT;
	struct err se = ERR_INIT;
	char set[64];
	int rc;

	snprintf(set, sizeof(set), "SET @@tidb_snapshot = '%s'", ts);
	rc = component_connect(c, &s, NULL, 60, e);
	if (!rc && sql_exec(&s, set, &se))
		rc = err_set(e, se.class, "%s: %s: %s", c->name, set, se.msg);
	rc = rc || read_balances(&s, b, db, bal, present, e);
	sql_close(&s);
	return rc ? -1 : 0;
}

/*
 * Point `p`: the upstream's balances `bal`, `present` at primary_ts, the
 * downstream's (+ accounts) at secondary_ts. Its entry into `d`; when it
 * is a violation, 1 with what it is in `why`.
 */
static int judge_point(const struct bank *b, const struct sync_point *p,
		       const long long *bal, const unsigned char *present,
		       struct buf *d, struct buf *why)
{
	size_t n = (size_t)b->w.accounts, first = SIZE_MAX;
	long long total[2] = { 0, 0 }, count[2] = { 0, 0 };
	const long long *down = bal + n;
	const unsigned char *dp = present + n;

	for (size_t k = 0; k < n; k++) {
		total[0] += present[k] ? bal[k] : 0;
		total[1] += dp[k] ? down[k] : 0;
		count[0] += present[k];
		count[1] += dp[k];
		if (first == SIZE_MAX && (present[k] != dp[k] ||
					  (present[k] && bal[k] != down[k])))
			first = k;
	}
	buf_printf(d, NULL, "{\"primary_ts\":\"%s\",\"secondary_ts\":\"%s\","
		   "\"upstream_total\":%lld,\"upstream_accounts\":%lld,"
		   "\"downstream_total\":%lld,\"downstream_accounts\":%lld,"
		   "\"first_differing\":", p->primary_ts, p->secondary_ts,
		   total[0], count[0], total[1], count[1]);
	if (first == SIZE_MAX) {
		buf_addstr(d, "null", NULL);
	} else {
		buf_printf(d, NULL, "{\"account\":%zu,\"upstream\":", first + 1);
		number_or_null(d, present[first], bal[first]);
		buf_addstr(d, ",\"downstream\":", NULL);
		number_or_null(d, dp[first], down[first]);
		buf_addch(d, '}', NULL);
	}
	if (total[0] == b->expected && total[1] == b->expected &&
	    count[0] == b->w.accounts && count[1] == b->w.accounts &&
	    first == SIZE_MAX)
		return 0;
	buf_printf(why, NULL, "at sync point primary_ts %s, secondary_ts %s: "
		   "upstream %lld in %lld accounts, downstream %lld in %lld "
		   "accounts (expected %lld in %lld)", p->primary_ts,
		   p->secondary_ts, total[0], count[0], total[1], count[1],
		   b->expected, (long long)b->w.accounts);
	if (first != SIZE_MAX) {
		buf_printf(why, NULL, "; account %zu (%s) is ", first + 1,
			   ledger_table(&b->w, (int64_t)first + 1));
		if (dp[first])
			buf_printf(why, NULL, "%lld", down[first]);
		buf_addstr(why, dp[first] ? " downstream, " :
			   "missing downstream, ", NULL);
		if (present[first])
			buf_printf(why, NULL, "%lld upstream", bal[first]);
		else
			buf_addstr(why, "missing upstream", NULL);
	}
	return 1;
}

/* Both sides TiDB, and the points: 0; 1 with r's verdict unknown. */
static int read_points(const struct check_ctx *ctx, const char *cf,
		       int64_t want, const struct component *up,
		       const struct component *down, struct sync_point **pts,
		       size_t *n, struct check_result *r, struct err *e)
{
	struct sql s = SQL_INIT;
	struct buf v = BUF_INIT;
	char why[ERR_MSG_MAX + 200] = "";
	int rc;

	if (ctx->dialect != DIALECT_TIDB) {
		check_verdict(r, VERDICT_UNKNOWN, "syncpoints: %s is %s, not "
			      "TiDB: the sync points' balances are read at "
			      "TiDB snapshots (tidb_snapshot) on both sides",
			      up->name, ctx->dialect < 0 ? "unknown" :
			      dialect_name(ctx->dialect));
		return 1;
	}
	rc = syncpoint_store_not_tidb(down, &v, e);
	if (!rc && v.len)
		check_verdict(r, VERDICT_UNKNOWN, "syncpoints: %s is not TiDB "
			      "(%s): TiCDC records sync points only in a TiDB "
			      "downstream", down->name, buf_str(&v));
	rc = rc ? -1 : v.len ? 1 : 0;
	buf_release(&v);
	if (!rc)
		rc = component_connect(down, &s, NULL, 60, e) ||
		     syncpoint_store_read(&s, down->name, cf,
					  ctx->cluster->ticdc.keyspace, want,
					  pts, n, why, sizeof(why), e) ? -1 : 0;
	sql_close(&s);
	if (!rc && !*n) {
		check_verdict(r, VERDICT_UNKNOWN, "syncpoints: %s", why);
		rc = 1;
	}
	return rc;
}

/*
 * The balances at the last o->syncpoints sync points: violations into
 * `msg`, b->at_points the pass; 1 with r's verdict unknown (no point, a
 * side not TiDB, a point unread); -1 with `e`.
 */
static int at_syncpoints(struct bank *b, const struct check_ctx *ctx,
			 const struct bank_check_opts *o,
			 struct check_result *r, struct buf *msg,
			 struct buf *nums, struct err *e)
{
	const char *cf = cluster_changefeed_id(ctx->cluster, o->changefeed);
	const struct component *up = cluster_first_sql(ctx->cluster,
						       ROLE_UPSTREAM);
	const struct component *down = cluster_first_sql(ctx->cluster,
							 ROLE_DOWNSTREAM);
	size_t n = 0, na = (size_t)b->w.accounts, bad = 0, unread = 0, i;
	long long *bal = xcalloc(2 * na, sizeof(*bal));
	unsigned char *present = xcalloc(2 * na, 1);
	struct buf why = BUF_INIT, first = BUF_INIT;
	struct sync_point *pts = NULL;
	struct err pe = ERR_INIT;
	int rc;

	rc = read_points(ctx, cf, o->syncpoints, up, down, &pts, &n, r, e);
	buf_addstr(&r->details, ",\"syncpoints\":[", NULL);
	for (i = 0; !rc && i < n && !check_interrupted(ctx); i++) {
		const char *db = ctx->suite->database;

		buf_addstr(&r->details, i ? "," : "", NULL);
		buf_reset(&why);
		err_clear(&pe);
		if (read_at(up, b, db, pts[i].primary_ts, bal, present, &pe) ||
		    read_at(down, b, db, pts[i].secondary_ts, bal + na,
			    present + na, &pe)) {
			buf_printf(&r->details, NULL, "{\"primary_ts\":\"%s\","
				   "\"secondary_ts\":\"%s\",\"unread\":",
				   pts[i].primary_ts, pts[i].secondary_ts);
			json_quote(&r->details, pe.msg, NULL);
			buf_addch(&r->details, '}', NULL);
			if (!unread++)
				buf_printf(&first, NULL, "first at primary_ts "
					   "%s, secondary_ts %s: %s",
					   pts[i].primary_ts,
					   pts[i].secondary_ts, pe.msg);
			continue;
		}
		if (judge_point(b, &pts[i], bal, present, &r->details, &why) &&
		    !bad++)
			buf_printf(msg, NULL, "%s%s", msg->len ? "; " : "",
				   buf_str(&why));
		buf_printf(&r->details, NULL, ",\"verdict\":\"%s\"}",
			   why.len ? "fail" : "pass");
	}
	buf_addch(&r->details, ']', NULL);
	if (bad)
		buf_printf(msg, NULL, " (%zu of %zu sync points of changefeed "
			   "%s differ)", bad, n, cf);
	if (!rc)
		buf_printf(nums, NULL, " syncpoints=%zu syncpoints_differing="
			   "%zu syncpoints_unread=%zu", n, bad, unread);
	if (!rc && i < n) {
		check_verdict(r, VERDICT_UNKNOWN, "interrupted after %zu of "
			      "%zu sync points of changefeed %s", i, n, cf);
		rc = 1;
	} else if (!rc && unread) {
		check_verdict(r, VERDICT_UNKNOWN, "syncpoints: %zu of %zu sync "
			      "points of changefeed %s could not be read; %s",
			      unread, n, cf, buf_str(&first));
		rc = 1;
	} else if (!rc) {
		snprintf(b->at_points, sizeof(b->at_points), "; the total %lld "
			 "and equal balances at %zu sync points of changefeed "
			 "%s, the last at primary_ts %s, secondary_ts %s",
			 b->expected, n, cf, pts[n - 1].primary_ts,
			 pts[n - 1].secondary_ts);
	}
	buf_release(&why);
	buf_release(&first);
	free(pts);
	free(bal);
	free(present);
	return rc;
}

static void bank_release(struct bank *b)
{
	for (size_t i = 0; i < b->nfaults; i++)
		free(b->faults[i].text);
	free(b->faults);
	fault_spans_release(&b->spans);
	free(b->open);
	free(b->is_open);
	free(b->ok);
	free(b->failed);
	free(b->unknown);
	free(b->delta);
	free(b->bad);
	free(b->good_before);
}

/* Faults by start, then end (named in that order). */
static int by_start(const void *pa, const void *pb)
{
	const struct fault_window *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->end > b->end) - (a->end < b->end);
}

/* Read the history into `b`: 0; 1 with r's verdict set; -1. */
static int read_run(struct bank *b, const struct check_ctx *ctx,
		    struct check_result *r, struct err *e)
{
	struct history_reading info;
	char path[4096];

	snprintf(path, sizeof(path), "%s/history.jsonl", ctx->run_dir);
	if (history_read(path, HISTORY_STRICT, record, b, &info, e))
		return -1;
	if (info.bad[0] || b->bad_line[0]) {
		check_verdict(r, VERDICT_UNKNOWN, "%s",
			      info.bad[0] ? info.bad : b->bad_line);
		return 1;
	}
	never_completed(b);
	if (b->nfaults)		/* no NULL to qsort (UBSan) */
		qsort(b->faults, b->nfaults, sizeof(*b->faults), by_start);
	return 0;
}

static void verdict(const struct bank *b, const struct check_ctx *ctx,
		    struct check_result *r, const struct buf *msg,
		    const struct buf *nums)
{
	size_t applied = 0, unresolved = 0;
	struct buf first = BUF_INIT;

	snprintf(r->numbers, sizeof(r->numbers), "reads=%zu replica_reads=%zu "
		 "bad_reads=%zu%s", b->reads, b->replica_reads, b->bad_total,
		 buf_str(nums));
	if (msg->len) {
		check_verdict(r, VERDICT_FAIL, "%s", buf_str(msg));
		return;
	}
	if (!ctx->cluster) {
		check_verdict(r, VERDICT_SKIP, "%zu reads saw the total %lld; "
			      "the balances and the downstream are not "
			      "checked: the cluster is not up", b->reads,
			      b->expected);
		return;
	}
	for (size_t u = 0; u < b->nunknown; u++) {
		applied += b->unknown[u].applied == 1;
		if (b->unknown[u].applied < 0 && !unresolved++)
			op_text(&first, &b->unknown[u]);
	}
	check_verdict(r, VERDICT_PASS, "%zu reads saw the total %lld; %zu ok "
		      "transfers and %zu of %zu unknown ones applied fit the "
		      "final balances, equal downstream%s%zu unresolved%s%s%s",
		      b->reads, b->expected, b->nok, applied, b->nunknown,
		      unresolved ? "; " : " (", unresolved,
		      unresolved ? ", first: " : ")", buf_str(&first),
		      b->at_points);
	buf_release(&first);
}

static int run(const struct check_ctx *ctx, const struct suite_item *it,
	       struct check_result *r, struct err *e)
{
	const struct bank_check_opts *o = it->opts;
	struct buf msg = BUF_INIT, nums = BUF_INIT;
	struct bank b;
	int rc;

	memset(&b, 0, sizeof(b));
	fault_spans_init(&b.spans, fault_span, &b);
	if (ledger_of(ctx->suite, &b.w)) {
		check_verdict(r, VERDICT_UNKNOWN, "the suite has no workload "
			      "of kind 'bank'");
		return 0;
	}
	b.expected = b.w.accounts * b.w.initial;
	b.max_report = (size_t)o->max_report;
	b.delta = xcalloc((size_t)b.w.accounts, sizeof(*b.delta));
	rc = read_run(&b, ctx, r, e);
	if (!rc) {
		buf_printf(&r->details, NULL, "\"expected_total\":%lld",
			   b.expected);
		judge_reads(&b, r, &msg);
	}
	if (!rc && ctx->cluster)
		rc = live(&b, ctx, it, r, &msg, &nums, e);
	if (!rc && ctx->cluster && o->syncpoints)
		rc = at_syncpoints(&b, ctx, o, r, &msg, &nums, e);
	if (rc == 1 && msg.len) {
		/* A violation found stands, whatever kept the rest out. */
		buf_printf(&msg, NULL, "; %s", r->message);
		rc = 0;
	}
	if (!rc)
		verdict(&b, ctx, r, &msg, &nums);
	bank_release(&b);
	buf_release(&msg);
	buf_release(&nums);
	return rc < 0 ? -1 : 0;
}

const struct checker_type checker_bank = {
	.kind = { "bank", "the bank workload's total never changes; final "
		  "balances fit the transfers; the downstream's equal the "
		  "upstream's", opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct bank_check_opts), .check = check },
	.live = 0,
	.run = run,
};
