/*
 * ids: the AUTO_INCREMENT ids inserts got back are unique per table and
 * increase in real time (AUTO_ID_CACHE=1, TiDB issue 52600;
 * docs/internals.md, The cases; docs/checkers.md). Judged from
 * history.jsonl alone, so `tichaos check` works offline.
 *
 * An insert is an ok record with an "id" (whatever the workload calls the
 * operation); it was invoked at the time of its process's preceding
 * invoke record and completed at the ok's.
 *
 * monotonic: inserts A, B on one table with A.complete < B.invoke need
 *   id(B) > id(A). One sweep over the inserts in invoke order, feeding in
 *   those completed strictly before each invoke (a second order, by
 *   completion): each table keeps the largest id completed so far, and a B
 *   at or below it violates, with that insert as its A.
 * unique: sorted by (table, id), equal neighbours are duplicates.
 *
 * A table on which a table or partition DDL (a record marked "ddl") may
 * have taken effect (ok, info, or invoked and never completed) restarts
 * its ids legitimately; it is left out of both checks and listed as
 * excluded, and so is the second table a DDL's value names ("with": an
 * exchange of partition).
 *
 * With a violation go the events "between" A and B: monitor records at a
 * time in [A.complete, B.invoke], and nemesis faults that took effect
 * (info, or invoked and never completed) whose span from invoke to
 * completion meets that window — and, for a fault that is healed later
 * (kill, partition), its time in effect, from the injection to its heal
 * (or the end of the history), so that a pair of inserts wholly inside a
 * partition names it.
 *
 * The history is not in time order (every thread flushes its own lines),
 * and may be millions of lines: each line is parsed in place by a small
 * validating JSON scanner and only a fixed-size record per insert is kept.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/checker.h"
#include "core/suite.h"
#include "faults/fault.h"
#include "lib/clock.h"
#include "lib/history.h"
#include "lib/intern.h"
#include "lib/ynode.h"

struct ids_opts {
	struct optlist tables;	/* empty: every table with inserts */
	int monotonic;
	int unique;
	int64_t max_report;
};

static const struct optspec opts[] = {
	{ "tables", OPT_TABLES, NULL, 0, NULL, 0, 0,
	  "the tables to check (default: every table with ok inserts in "
	  "the history)", OPT_AT(struct ids_opts, tables) },
	{ "monotonic", OPT_BOOL, "true", 0, NULL, 0, 0,
	  "an insert invoked after another completed gets a larger id",
	  OPT_AT(struct ids_opts, monotonic) },
	{ "unique", OPT_BOOL, "true", 0, NULL, 0, 0,
	  "no id is returned twice in a table",
	  OPT_AT(struct ids_opts, unique) },
	{ "max_report", OPT_INT, "20", 0, NULL, 1, 1000,
	  "violations and duplicates listed in the details",
	  OPT_AT(struct ids_opts, max_report) },
};

#define MAX_BETWEEN 50		/* events listed per violation */
#define MAX_DUP_OPS 10		/* operations listed per duplicate id */
#define NO_NAME INTERN_NONE

/* ---- the state of a run of the checker --------------------------------- */

struct op {			/* an ok insert with an id */
	int64_t invoke;
	int64_t complete;
	int64_t id;
	uint32_t table;
	uint32_t node;		/* NO_NAME: none recorded */
	int32_t process;
	uint32_t line;		/* of the ok record */
};

struct table {
	unsigned in_scope:1;
	unsigned excluded:1;
	const char *because;	/* the first DDL op (static) */
	const char *how;	/* "ok", "info", "invoke" (never completed) */
	int64_t at;
	size_t inserts;		/* checked */
	size_t rank;		/* by name */
};

/* An open invoke: a DDL, or another operation (an insert if its ok
 * carries an id). */
enum pending_kind { P_NONE, P_OP, P_DDL };

struct pending {		/* a worker's open invoke */
	int64_t process;	/* -1: free slot */
	enum pending_kind kind;
	const char *ddl;
	uint32_t table;
	int64_t time;
	size_t line;
};

struct event {			/* a nemesis fault or monitor record */
	int64_t start, end;
	int fault;		/* nemesis: rendered as a span */
	int unfinished;
	size_t seq;
	char *text;
};

struct ids {
	const struct check_ctx *ctx;
	const struct suite_item *it;
	char **scope;		/* "db.table" of the `tables` option */
	size_t nscope;
	struct intern tables, nodes, ddl_ops;
	struct table *tmeta;
	size_t tmeta_cap;
	struct op *ops;
	size_t nops, ops_cap;
	struct pending *pend;	/* open addressing by process */
	size_t npend, pend_slots;
	struct event *events;
	size_t nevents, events_cap;
	/* in_effect[i]: 1 + the event of fault item i's injection not
	 * healed yet, 0: none (faults that are healed later). */
	size_t *in_effect;
	size_t nin_effect;
	int nemesis_open;	/* the nemesis's invoke awaiting completion */
	int64_t nemesis_time;
	char nemesis_f[64];
	char nemesis_target[256];
	int64_t last_time;
	size_t cut_line;	/* a last line without its newline */
	struct err *e;		/* where record() says what broke */
	/* Set when the history cannot be judged. */
	char bad[400];
};

/* ---- collecting -------------------------------------------------------- */

/* More distinct names (tables, nodes) than an index holds. */
static int too_many(struct err *e)
{
	return err_set(e, ERR_INFRA, "ids: more than %u distinct names in "
		       "the history", INTERN_NONE - 1);
}

static uint32_t table_of(struct ids *x, const char *name, struct err *e)
{
	int added;
	uint32_t t = intern_add(&x->tables, name, &added);

	if (t == NO_NAME)
		return too_many(e), NO_NAME;
	if (!added)
		return t;
	if (x->tables.n > x->tmeta_cap) {
		x->tmeta_cap = x->tmeta_cap ? x->tmeta_cap * 2 : 16;
		x->tmeta = xrealloc(x->tmeta,
				    x->tmeta_cap * sizeof(*x->tmeta));
	}
	memset(&x->tmeta[t], 0, sizeof(x->tmeta[t]));
	x->tmeta[t].in_scope = !x->nscope;
	for (size_t i = 0; i < x->nscope; i++)
		if (!strcmp(x->scope[i], name))
			x->tmeta[t].in_scope = 1;
	return t;
}

/* A DDL `op` on table `t` may have taken effect at `at`. */
static void exclude_at(struct ids *x, uint32_t t, const char *op,
		       const char *how, int64_t at)
{
	struct table *m = &x->tmeta[t];

	if (!m->excluded || at < m->at) {
		m->excluded = 1;
		m->because = op;
		m->how = how;
		m->at = at;
	}
}

static int exclude(struct ids *x, const char *table, const char *op,
		   const char *how, int64_t at, struct err *e)
{
	uint32_t t = table_of(x, table, e);

	if (t == NO_NAME)
		return -1;
	exclude_at(x, t, op, how, at);
	return 0;
}

static struct pending *pending_of(struct ids *x, int64_t process,
				  struct err *e)
{
	size_t k;

	if ((x->npend + 1) * 2 > x->pend_slots) {
		size_t n = x->pend_slots ? x->pend_slots * 2 : 64;
		struct pending *p = xmalloc(n * sizeof(*p));

		for (size_t i = 0; i < n; i++)
			p[i].process = -1;
		for (size_t i = 0; i < x->pend_slots; i++) {
			if (x->pend[i].process < 0)
				continue;
			k = (size_t)x->pend[i].process * 2654435761u & (n - 1);
			while (p[k].process >= 0)
				k = (k + 1) & (n - 1);
			p[k] = x->pend[i];
		}
		free(x->pend);
		x->pend = p;
		x->pend_slots = n;
	}
	k = (size_t)process * 2654435761u & (x->pend_slots - 1);
	for (; x->pend[k].process >= 0; k = (k + 1) & (x->pend_slots - 1))
		if (x->pend[k].process == process)
			return &x->pend[k];
	x->pend[k].process = process;
	x->pend[k].kind = P_NONE;
	x->npend++;
	return &x->pend[k];
}

/* An open invoke that never completed: a DDL may have happened. */
static void unfinished(struct ids *x, struct pending *p)
{
	if (p->kind == P_DDL && p->table != NO_NAME)
		exclude_at(x, p->table, p->ddl, "invoke", p->time);
	p->kind = P_NONE;
}

/* Append " X" for a from/to member: a string, or null as "none". */
static void add_party(struct buf *b, const json_t *v)
{
	if (json_is_string(v))
		buf_printf(b, NULL, "%s", json_string_value(v));
	else
		buf_addstr(b, "none", NULL);
}

/* "<f> <target> <from> -> ... -> <to>" from a record and its value. */
static char *event_text(const struct history_line *r)
{
	struct buf b = BUF_INIT;
	json_t *v = NULL, *rounds;

	buf_addstr(&b, r->f, NULL);
	if (r->target)
		buf_printf(&b, NULL, " %s", r->target);
	if (r->value)
		v = json_loadb(r->value, r->value_len, JSON_DECODE_ANY |
			       JSON_ALLOW_NUL, NULL);
	if (json_array_size(json_object_get(v, "sides"))) {
		size_t i, j;
		json_t *side, *name;

		/* Who was on which side: " (a | b c)". */
		buf_addstr(&b, " (", NULL);
		json_array_foreach(json_object_get(v, "sides"), i, side) {
			buf_addstr(&b, i ? " | " : "", NULL);
			json_array_foreach(side, j, name)
				if (json_is_string(name))
					buf_printf(&b, NULL, "%s%s", j ? " " : "",
						   json_string_value(name));
		}
		buf_addch(&b, ')', NULL);
	}
	rounds = json_object_get(v, "rounds");
	if (json_array_size(rounds) && json_object_get(
	    json_array_get(rounds, 0), "from")) {
		size_t i;
		json_t *round;

		buf_addch(&b, ' ', NULL);
		add_party(&b, json_object_get(json_array_get(rounds, 0),
					      "from"));
		json_array_foreach(rounds, i, round) {
			buf_addstr(&b, " -> ", NULL);
			add_party(&b, json_object_get(round, "to"));
		}
	} else if (json_object_get(v, "from") || json_object_get(v, "to")) {
		if (json_object_get(v, "from")) {
			buf_addch(&b, ' ', NULL);
			add_party(&b, json_object_get(v, "from"));
		}
		if (json_object_get(v, "to")) {
			buf_addstr(&b, json_object_get(v, "from") ? " -> "
								  : " to ",
				   NULL);
			add_party(&b, json_object_get(v, "to"));
		}
	}
	json_decref(v);
	return buf_detach(&b, NULL);
}

static int add_event(struct ids *x, const struct history_line *r, int64_t start,
		     int fault, struct err *e)
{
	struct event *ev;

	if (x->nevents == x->events_cap) {
		x->events_cap = x->events_cap ? x->events_cap * 2 : 32;
		x->events = xrealloc(x->events,
				     x->events_cap * sizeof(*x->events));
	}
	ev = &x->events[x->nevents];
	ev->start = start;
	ev->end = r->time;
	ev->fault = fault;
	ev->unfinished = 0;
	ev->seq = x->nevents;
	ev->text = event_text(r);
	x->nevents++;
	return 0;
}

/* The nemesis's open invoke never completed: it may last until `until`. */
static int open_fault(struct ids *x, int64_t until, struct err *e)
{
	struct history_line open;

	memset(&open, 0, sizeof(open));
	open.time = until;
	open.f = x->nemesis_f;
	open.target = x->nemesis_target[0] ? x->nemesis_target : NULL;
	if (add_event(x, &open, x->nemesis_time, 1, e))
		return -1;
	x->events[x->nevents - 1].unfinished = 1;
	x->nemesis_open = 0;
	return 0;
}

/* The span [from, to] of fault `inject` in effect, as an event. */
static int add_span(struct ids *x, size_t inject, int64_t to, struct err *e)
{
	struct history_line span;
	char *text;
	int rc;

	memset(&span, 0, sizeof(span));
	span.time = to;
	text = xprintf("%s in effect", x->events[inject].text);
	span.f = text;
	rc = add_event(x, &span, x->events[inject].end, 1, e);
	free(text);
	return rc;
}

/*
 * An injection of a fault that is healed later opens its time in effect;
 * its heal (the same fault item) closes it as an event of its own.
 */
static int in_effect(struct ids *x, const struct history_line *r,
		     struct err *e)
{
	const struct fault_type *injected = fault_type_named(r->f);
	size_t at;

	if (r->fault < 0 || r->fault >= 100000)
		return 0;
	at = (size_t)r->fault;
	if (at >= x->nin_effect) {
		x->in_effect = xrealloc(x->in_effect, (at + 1) *
					sizeof(*x->in_effect));
		memset(x->in_effect + x->nin_effect, 0, (at + 1 -
		       x->nin_effect) * sizeof(*x->in_effect));
		x->nin_effect = at + 1;
	}
	if (fault_healed_by(r->f) && x->in_effect[at]) {
		size_t inject = x->in_effect[at] - 1;

		x->in_effect[at] = 0;
		return add_span(x, inject, r->time, e);
	}
	if (injected && injected->heal)
		x->in_effect[at] = x->nevents;
	return 0;
}

/* Faults still in effect when the history ends: until its last time. */
static int close_in_effect(struct ids *x, struct err *e)
{
	for (size_t i = 0; i < x->nin_effect; i++)
		if (x->in_effect[i]) {
			size_t inject = x->in_effect[i] - 1;

			x->in_effect[i] = 0;
			if (add_span(x, inject, x->last_time, e))
				return -1;
		}
	return 0;
}

static int nemesis(struct ids *x, const struct history_line *r, struct err *e)
{
	int64_t start = r->time;

	if (!strcmp(r->type, "invoke")) {
		if (x->nemesis_open) {
			/* Its completion never came: keep it as unfinished. */
			if (open_fault(x, r->time, e))
				return -1;
		}
		x->nemesis_open = 1;
		x->nemesis_time = r->time;
		snprintf(x->nemesis_f, sizeof(x->nemesis_f), "%s", r->f);
		snprintf(x->nemesis_target, sizeof(x->nemesis_target), "%s",
			 r->target ? r->target : "");
		return 0;
	}
	if (x->nemesis_open && !strcmp(x->nemesis_f, r->f))
		start = x->nemesis_time;
	else if (x->nemesis_open && open_fault(x, r->time, e))
		return -1;
	x->nemesis_open = 0;
	if (!strcmp(r->type, "fail"))
		return 0;
	if (add_event(x, r, start, 1, e))
		return -1;
	return in_effect(x, r, e);
}

static int add_op(struct ids *x, const struct history_line *r,
		  const struct pending *p, uint32_t table, size_t line,
		  struct err *e)
{
	struct op *op;
	uint32_t node = NO_NAME;
	int added;

	if (r->node && (node = intern_add(&x->nodes, r->node, &added)) ==
	    NO_NAME)
		return too_many(e);
	if (x->nops == x->ops_cap) {
		x->ops_cap = x->ops_cap ? x->ops_cap * 2 : 1024;
		x->ops = xrealloc(x->ops, x->ops_cap * sizeof(*x->ops));
	}
	op = &x->ops[x->nops++];
	op->invoke = p->time;
	op->complete = r->time;
	op->id = r->id;
	op->table = table;
	op->node = node;
	op->process = (int32_t)r->process;
	op->line = line > UINT32_MAX ? UINT32_MAX : (uint32_t)line;
	return 0;
}

/* The value's "with" of a DDL: a second table it changed (an exchange). */
static int ddl_partner(struct ids *x, const struct history_line *r,
		       const char *ddl, const char *how, struct err *e)
{
	json_t *v = json_loadb(r->value, r->value_len, JSON_DECODE_ANY, NULL);
	const char *with = json_string_value(json_object_get(v, "with"));
	const char *dot = strchr(r->table, '.');
	int rc = 0;

	if (with && *with) {
		struct buf name = BUF_INIT;

		if (!strchr(with, '.') && dot)
			buf_add(&name, r->table, (size_t)(dot - r->table) + 1,
				NULL);
		buf_addstr(&name, with, NULL);
		rc = exclude(x, buf_str(&name), ddl, how, r->time, e);
		buf_release(&name);
	}
	json_decref(v);
	return rc;
}

/* The name of DDL `f`, kept as long as the check (NULL: too many). */
static const char *ddl_name(struct ids *x, const char *f)
{
	int added;
	uint32_t k = intern_add(&x->ddl_ops, f, &added);

	return k == NO_NAME ? NULL : x->ddl_ops.v[k];
}

static int worker(struct ids *x, const struct history_line *r, size_t line,
		  struct err *e)
{
	struct pending *p = pending_of(x, r->process, e);
	const char *ddl = NULL;

	if (!p || (r->ddl && !(ddl = ddl_name(x, r->f))))
		return p ? too_many(e) : -1;
	if (!strcmp(r->type, "invoke")) {
		unfinished(x, p);
		p->kind = ddl ? P_DDL : P_OP;
		p->ddl = ddl;
		p->table = NO_NAME;
		if (r->table && (p->table = table_of(x, r->table, e)) ==
		    NO_NAME)
			return -1;
		p->time = r->time;
		p->line = line;
		return 0;
	}
	if (!ddl && !strcmp(r->type, "ok") && r->has_id) {
		uint32_t t;

		if (p->kind != P_OP) {
			snprintf(x->bad, sizeof(x->bad), "history.jsonl:%zu: "
				 "ok insert of process %lld without its "
				 "invoke", line, (long long)r->process);
			return 0;
		}
		if (r->time < p->time) {
			snprintf(x->bad, sizeof(x->bad), "history.jsonl:%zu: "
				 "ok insert at %lld before its invoke at %lld "
				 "(line %zu)", line, (long long)r->time,
				 (long long)p->time, p->line);
			return 0;
		}
		if (!r->table) {
			snprintf(x->bad, sizeof(x->bad), "history.jsonl:%zu: "
				 "ok insert without a \"table\"", line);
			return 0;
		}
		if ((t = table_of(x, r->table, e)) == NO_NAME)
			return -1;
		if (x->tmeta[t].in_scope && add_op(x, r, p, t, line, e))
			return -1;
		p->kind = P_NONE;
		return 0;
	}
	/* Another op's completion, or one without its invoke. */
	if (p->kind != (ddl ? P_DDL : P_OP) || p->ddl != ddl)
		unfinished(x, p);
	p->kind = P_NONE;
	if (ddl && r->table && strcmp(r->type, "fail")) {
		/* Static: r's strings live in the line buffer. */
		const char *how = !strcmp(r->type, "ok") ? "ok" : "info";

		if (exclude(x, r->table, ddl, how, r->time, e))
			return -1;
		if (r->value && ddl_partner(x, r, ddl, how, e))
			return -1;
	}
	return 0;
}

static int record(const struct history_line *r, void *arg)
{
	struct ids *x = arg;

	if (r->time > x->last_time)
		x->last_time = r->time;
	if (r->process == HISTORY_NEMESIS)
		return nemesis(x, r, x->e);
	if (r->process == HISTORY_MONITOR)
		return strcmp(r->type, "info") ? 0
		       : add_event(x, r, r->time, 0, x->e);
	return worker(x, r, r->line, x->e);
}

/* Read the history. 0 also when it cannot be judged (x->bad set). */
static int read_history(struct ids *x, struct err *e)
{
	struct history_reading info;
	struct err why = ERR_INIT;
	struct buf path = BUF_INIT;
	int rc;

	if (buf_printf(&path, e, "%s/history.jsonl", x->ctx->run_dir))
		return -1;
	x->e = e;
	rc = history_read(buf_str(&path), HISTORY_STRICT, record, x, &info,
			  &why);
	buf_release(&path);
	x->cut_line = info.cut;
	/* A history that cannot be read, or holds a line that is no
	 * record, cannot be judged: the verdict says why. */
	if (rc && !err_isset(e))
		snprintf(x->bad, sizeof(x->bad), "%s", why.msg);
	else if (!x->bad[0] && info.bad[0])
		snprintf(x->bad, sizeof(x->bad), "%s", info.bad);
	if (rc && err_isset(e))
		return -1;
	if (x->bad[0])
		return 0;
	/* Invokes the history ends on. */
	for (size_t i = 0; i < x->pend_slots; i++)
		if (x->pend[i].process >= 0)
			unfinished(x, &x->pend[i]);
	if (x->nemesis_open && open_fault(x, x->last_time, e))
		return -1;
	return close_in_effect(x, e);
}

/* ---- judging ----------------------------------------------------------- */

struct key {			/* a sort key and the op it belongs to */
	int64_t a;
	int64_t b;
	uint32_t op;
};

static int cmp_key(const void *pa, const void *pb)
{
	const struct key *a = pa, *b = pb;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	if (a->b != b->b)
		return a->b < b->b ? -1 : 1;
	return a->op < b->op ? -1 : a->op > b->op;
}

static int cmp_op(const void *pa, const void *pb)
{
	const struct op *a = pa, *b = pb;

	if (a->complete != b->complete)
		return a->complete < b->complete ? -1 : 1;
	if (a->invoke != b->invoke)
		return a->invoke < b->invoke ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

static int cmp_event(const void *pa, const void *pb)
{
	const struct event *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int cmp_name(const void *pa, const void *pb, void *arg)
{
	char **v = arg;

	return strcmp(v[*(const uint32_t *)pa], v[*(const uint32_t *)pb]);
}

/* "12.300" for a time in ns (truncated to ms). */
static const char *secs(char *out, size_t size, int64_t ns)
{
	uint64_t ms = ns < 0 ? (uint64_t)(-(ns / NS_PER_MS))
			     : (uint64_t)(ns / NS_PER_MS);

	snprintf(out, size, "%s%llu.%03llu", ns < 0 && ms ? "-" : "",
		 (unsigned long long)(ms / 1000),
		 (unsigned long long)(ms % 1000));
	return out;
}

static const char *who(const struct ids *x, const struct op *op, char *out,
		       size_t size)
{
	if (op->node != NO_NAME)
		return x->nodes.v[op->node];
	snprintf(out, size, "process %d", (int)op->process);
	return out;
}

static int op_json(struct buf *d, const struct ids *x, const struct op *op,
		   struct err *e)
{
	char inv[32], done[32];

	if (buf_printf(d, e, "{\"process\":%d,\"node\":", (int)op->process))
		return -1;
	if (op->node == NO_NAME ? buf_addstr(d, "null", e)
				: json_quote(d, x->nodes.v[op->node], e))
		return -1;
	return buf_printf(d, e, ",\"invoke\":%s,\"complete\":%s,\"id\":%lld,"
			  "\"line\":%u}",
			  secs(inv, sizeof(inv), op->invoke),
			  secs(done, sizeof(done), op->complete),
			  (long long)op->id, op->line);
}

/*
 * When an event is shown for the window [lo, hi]: a monitor record at its
 * time; a fault at its completion when that is inside the window, else
 * from its invoke.
 */
static int64_t shown_at(const struct event *ev, int64_t lo, int64_t hi)
{
	if (!ev->fault)
		return ev->end;
	if (!ev->unfinished && ev->end >= lo && ev->end <= hi)
		return ev->end;
	return ev->start;
}

static void event_line(struct buf *out, const struct event *ev, int64_t lo,
		       int64_t hi)
{
	char a[32], b[32];

	if (ev->unfinished)
		buf_printf(out, NULL, "%s from %ss, unfinished", ev->text,
			   secs(a, sizeof(a), ev->start));
	else if (shown_at(ev, lo, hi) == ev->end)
		buf_printf(out, NULL, "%s at %ss", ev->text,
			   secs(a, sizeof(a), ev->end));
	else
		buf_printf(out, NULL, "%s from %ss to %ss", ev->text,
			   secs(a, sizeof(a), ev->start),
			   secs(b, sizeof(b), ev->end));
}

struct window {
	int64_t lo, hi;
	const struct event *ev[MAX_BETWEEN];
	size_t n;		/* in ev, ordered by shown_at */
	size_t all;		/* that met the window */
};

static int cmp_shown(const void *pa, const void *pb, void *arg)
{
	const struct event *a = *(const struct event *const *)pa;
	const struct event *b = *(const struct event *const *)pb;
	const struct window *w = arg;
	int64_t ta = shown_at(a, w->lo, w->hi), tb = shown_at(b, w->lo, w->hi);

	if (ta != tb)
		return ta < tb ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/*
 * The events whose span meets [lo, hi] (the first MAX_BETWEEN of them by
 * start), in the order they are shown. Events are sorted by start and
 * none spans more than max_span.
 */
static void between(const struct ids *x, int64_t max_span, int64_t lo,
		    int64_t hi, struct window *w)
{
	int64_t from = lo < INT64_MIN + max_span ? INT64_MIN : lo - max_span;
	size_t l = 0, r = x->nevents;

	w->lo = lo;
	w->hi = hi;
	w->n = w->all = 0;
	while (l < r) {
		size_t m = l + (r - l) / 2;

		if (x->events[m].start < from)
			l = m + 1;
		else
			r = m;
	}
	for (; l < x->nevents && x->events[l].start <= hi; l++) {
		if (x->events[l].end < lo)
			continue;
		if (w->all++ < MAX_BETWEEN)
			w->ev[w->n++] = &x->events[l];
	}
	qsort_r(w->ev, w->n, sizeof(*w->ev), cmp_shown, w);
}

struct pair {
	uint32_t a, b;
};

/* What judging finds, step by step (judge). */
struct judging {
	int monotonic, unique;
	size_t max_report;
	size_t ntables, checked, nexcluded;
	size_t nops;			/* inserts of the checked tables */
	size_t violations, npairs;	/* pairs: the first max_report */
	size_t duplicates, ndups;	/* dups: index into keys */
	struct key *keys;
	struct pair *pairs;
	uint32_t *dups;
	uint32_t *order;		/* tables by name */
	int64_t max_span;		/* the longest event */
	struct window *win;
};

/* Tables by name (for the listings); the inserts of the excluded ones
 * dropped; ops in completion order, events in time order. */
static int prepare(struct ids *x, struct judging *j, struct err *e)
{
	j->order = xmalloc((j->ntables + 1) * sizeof(*j->order));
	j->win = xmalloc(sizeof(*j->win));
	for (size_t i = 0; i < j->ntables; i++)
		j->order[i] = (uint32_t)i;
	qsort_r(j->order, j->ntables, sizeof(*j->order), cmp_name,
		x->tables.v);
	for (size_t i = 0; i < j->ntables; i++)
		x->tmeta[j->order[i]].rank = i;
	for (size_t i = 0; i < x->nops; i++) {
		struct table *m = &x->tmeta[x->ops[i].table];

		if (m->excluded) {
			if (!m->inserts++)
				j->nexcluded++;
			continue;
		}
		if (!m->inserts++)
			j->checked++;
		x->ops[j->nops++] = x->ops[i];
	}
	/* From here on an op's index is its place in completion order. */
	if (j->nops)
		qsort(x->ops, j->nops, sizeof(*x->ops), cmp_op);
	if (x->nevents)
		qsort(x->events, x->nevents, sizeof(*x->events), cmp_event);
	for (size_t i = 0; i < x->nevents; i++)
		if (x->events[i].end - x->events[i].start > j->max_span)
			j->max_span = x->events[i].end - x->events[i].start;
	if (j->nops)
		j->keys = xmalloc(j->nops * sizeof(*j->keys));
	return 0;
}

/*
 * Monotonic: an insert b invoked after an insert a of its table
 * completed must get a larger id. Inserts in invoke order; for each, the
 * largest id of its table completed before it, fed in completion order.
 */
static int find_violations(struct ids *x, struct judging *j, struct err *e)
{
	struct key *keys = j->keys;
	uint32_t *best;

	best = xmalloc((j->ntables + 1) * sizeof(*best));
	j->pairs = xmalloc(j->max_report * sizeof(*j->pairs));
	for (size_t i = 0; i < j->nops; i++)
		keys[i] = (struct key){ x->ops[i].invoke, x->ops[i].complete,
					(uint32_t)i };
	qsort(keys, j->nops, sizeof(*keys), cmp_key);
	for (size_t i = 0; i < j->ntables; i++)
		best[i] = UINT32_MAX;
	for (size_t i = 0, k = 0; i < j->nops; i++) {
		const struct op *b = &x->ops[keys[i].op];

		/* Feed in every insert completed before b's invoke. */
		for (; k < j->nops && x->ops[k].complete < b->invoke; k++) {
			const struct op *a = &x->ops[k];
			uint32_t *t = &best[a->table];

			if (*t == UINT32_MAX || a->id > x->ops[*t].id)
				*t = (uint32_t)k;
		}
		if (best[b->table] != UINT32_MAX &&
		    b->id <= x->ops[best[b->table]].id &&
		    j->violations++ < j->max_report)
			j->pairs[j->npairs++] = (struct pair){
				best[b->table], keys[i].op };
	}
	free(best);
	return 0;
}

/* Unique: no id twice in a table. Inserts by table and id; each run of
 * equal keys is one duplicate id. */
static int find_duplicates(struct ids *x, struct judging *j, struct err *e)
{
	struct key *keys = j->keys;

	j->dups = xmalloc(j->max_report * sizeof(*j->dups));
	for (size_t i = 0; i < j->nops; i++)
		keys[i] = (struct key){ (int64_t)x->tmeta[x->ops[i].table].rank,
					x->ops[i].id, (uint32_t)i };
	qsort(keys, j->nops, sizeof(*keys), cmp_key);
	for (size_t i = 0; i + 1 < j->nops; i++) {
		if (keys[i].a != keys[i + 1].a || keys[i].b != keys[i + 1].b ||
		    (i && keys[i - 1].a == keys[i].a &&
		     keys[i - 1].b == keys[i].b))
			continue;
		if (j->duplicates++ < j->max_report)
			j->dups[j->ndups++] = (uint32_t)i;
	}
	return 0;
}

/* How many inserts share the id of duplicate `k` (an index into keys). */
static size_t dup_count(const struct judging *j, size_t k)
{
	size_t n = 0;

	while (k + n < j->nops && j->keys[k + n].a == j->keys[k].a &&
	       j->keys[k + n].b == j->keys[k].b)
		n++;
	return n;
}

/* The details' "excluded": the tables dropped after DDL, by name. */
static int excluded_json(const struct ids *x, const struct judging *j,
			 struct buf *d, struct err *e)
{
	char s1[32];

	if (buf_addstr(d, ",\"excluded\":[", e))
		return -1;
	for (size_t i = 0, n = 0; i < j->ntables; i++) {
		const struct table *m = &x->tmeta[j->order[i]];

		if (!m->excluded || !m->inserts)
			continue;
		if (buf_addstr(d, n++ ? ",{\"table\":" : "{\"table\":", e) ||
		    json_quote(d, x->tables.v[j->order[i]], e) ||
		    buf_printf(d, e, ",\"because\":\"%s\",\"type\":\"%s\","
			       "\"at\":%s,\"inserts\":%zu}", m->because,
			       m->how, secs(s1, sizeof(s1), m->at),
			       m->inserts))
			return -1;
	}
	return buf_addch(d, ']', e);
}

/* The details' "first": each violation with the events between. */
static int violations_json(const struct ids *x, struct judging *j,
			   struct buf *d, struct err *e)
{
	struct buf line = BUF_INIT;
	int rc = buf_addstr(d, ",\"first\":[", e);

	for (size_t i = 0; !rc && i < j->npairs; i++) {
		const struct op *a = &x->ops[j->pairs[i].a];
		const struct op *b = &x->ops[j->pairs[i].b];

		rc = buf_addstr(d, i ? ",{\"table\":" : "{\"table\":", e) ||
		     json_quote(d, x->tables.v[a->table], e) ||
		     buf_addstr(d, ",\"a\":", e) || op_json(d, x, a, e) ||
		     buf_addstr(d, ",\"b\":", e) || op_json(d, x, b, e) ||
		     buf_addstr(d, ",\"between\":[", e);
		if (rc)
			break;
		between(x, j->max_span, a->complete, b->invoke, j->win);
		for (size_t k = 0; !rc && k < j->win->n; k++) {
			buf_reset(&line);
			event_line(&line, j->win->ev[k], j->win->lo,
				   j->win->hi);
			rc = (k && buf_addch(d, ',', e)) ||
			     json_quote(d, buf_str(&line), e);
		}
		if (!rc && j->win->all > j->win->n)
			rc = buf_printf(d, e, ",\"and %zu more\"",
					j->win->all - j->win->n);
		rc = rc || buf_addstr(d, "]}", e);
	}
	buf_release(&line);
	return rc || buf_addch(d, ']', e) ? -1 : 0;
}

/* The details' "duplicate_ids": each with its inserts. */
static int duplicates_json(const struct ids *x, const struct judging *j,
			   struct buf *d, struct err *e)
{
	if (buf_addstr(d, ",\"duplicate_ids\":[", e))
		return -1;
	for (size_t i = 0; i < j->ndups; i++) {
		size_t k = j->dups[i], n = dup_count(j, k);
		const struct op *first = &x->ops[j->keys[k].op];

		if (buf_addstr(d, i ? ",{\"table\":" : "{\"table\":", e) ||
		    json_quote(d, x->tables.v[first->table], e) ||
		    buf_printf(d, e, ",\"id\":%lld,\"count\":%zu,\"ops\":[",
			       (long long)first->id, n))
			return -1;
		for (size_t m = 0; m < n && m < MAX_DUP_OPS; m++)
			if ((m && buf_addch(d, ',', e)) ||
			    op_json(d, x, &x->ops[j->keys[k + m].op], e))
				return -1;
		if (buf_addstr(d, "]}", e))
			return -1;
	}
	return buf_addch(d, ']', e);
}

/* The first violation, with the events between its two inserts. */
static void say_violation(const struct ids *x, struct judging *j,
			  struct buf *msg)
{
	const struct op *a = &x->ops[j->pairs[0].a];
	const struct op *b = &x->ops[j->pairs[0].b];
	char s1[32], s2[32], w1[64], w2[64];
	size_t shown = 0;

	buf_printf(msg, NULL, "%s: id %lld (%s, invoked %ss) after id %lld "
		   "(%s, done %ss)", x->tables.v[a->table], (long long)b->id,
		   who(x, b, w1, sizeof(w1)), secs(s1, sizeof(s1), b->invoke),
		   (long long)a->id, who(x, a, w2, sizeof(w2)),
		   secs(s2, sizeof(s2), a->complete));
	between(x, j->max_span, a->complete, b->invoke, j->win);
	/* As many as fit in a message. */
	for (; shown < j->win->n && msg->len < 380; shown++) {
		buf_addstr(msg, shown ? ", " : "; between: ", NULL);
		event_line(msg, j->win->ev[shown], j->win->lo, j->win->hi);
	}
	if (!j->win->all)
		buf_addstr(msg, "; no fault or owner change between", NULL);
	else if (shown < j->win->all)
		buf_printf(msg, NULL, " and %zu more", j->win->all - shown);
}

/* The first duplicate id, with (up to three of) its inserts. */
static void say_duplicate(const struct ids *x, const struct judging *j,
			  struct buf *msg)
{
	size_t k = j->dups[0], n = dup_count(j, k);
	const struct op *first = &x->ops[j->keys[k].op];
	char s1[32], w1[64];

	buf_printf(msg, NULL, "%s: id %lld returned ",
		   x->tables.v[first->table], (long long)first->id);
	if (n == 2)
		buf_addstr(msg, "twice: ", NULL);
	else
		buf_printf(msg, NULL, "%zu times: ", n);
	for (size_t m = 0; m < n && m < 3; m++) {
		const struct op *op = &x->ops[j->keys[k + m].op];

		buf_printf(msg, NULL, "%s%s (done %ss)", m ? ", " : "",
			   who(x, op, w1, sizeof(w1)),
			   secs(s1, sizeof(s1), op->complete));
	}
	if (n > 3)
		buf_printf(msg, NULL, " and %zu more", n - 3);
}

static void verdict(const struct ids *x, struct judging *j,
		    struct check_result *r)
{
	struct buf msg = BUF_INIT;
	char s1[32];

	if (!x->nops) {
		check_verdict(r, VERDICT_SKIP, "no ok inserts with ids in the "
			      "history%s", x->nscope ? " on the checked tables"
			      : "");
	} else if (!j->nops) {
		size_t i = 0;

		while (!x->tmeta[j->order[i]].excluded ||
		       !x->tmeta[j->order[i]].inserts)
			i++;
		check_verdict(r, VERDICT_SKIP, "no table to check: %s excluded "
			      "after %s at %ss%s", x->tables.v[j->order[i]],
			      x->tmeta[j->order[i]].because,
			      secs(s1, sizeof(s1), x->tmeta[j->order[i]].at),
			      j->nexcluded > 1 ? " and more" : "");
	} else if (j->npairs) {
		say_violation(x, j, &msg);
		check_verdict(r, VERDICT_FAIL, "%s", buf_str(&msg));
	} else if (j->ndups) {
		say_duplicate(x, j, &msg);
		check_verdict(r, VERDICT_FAIL, "%s", buf_str(&msg));
	} else {
		check_verdict(r, VERDICT_PASS, "%zu table%s, %zu inserts: ids "
			      "%s%s%s", j->checked, j->checked == 1 ? "" : "s",
			      j->nops, j->unique ? "unique" : "",
			      j->unique && j->monotonic ? " and " : "",
			      j->monotonic ? "increasing" : "");
		if (j->nexcluded) {
			size_t len = strlen(r->message);

			snprintf(r->message + len, sizeof(r->message) - len,
				 "; %zu table%s excluded after DDL",
				 j->nexcluded, j->nexcluded == 1 ? "" : "s");
		}
	}
	snprintf(r->numbers, sizeof(r->numbers),
		 "inserts=%zu violations=%zu duplicates=%zu", j->nops,
		 j->violations, j->duplicates);
	buf_release(&msg);
}

/*
 * The judge, step by step: prepare (tables, exclusions, orders), the
 * violations of monotonicity, the duplicate ids, the details, the
 * verdict.
 */
static int judge(struct ids *x, struct check_result *r, struct err *e)
{
	struct judging j;
	struct buf *d = &r->details;
	int rc;

	const struct ids_opts *o = x->it->opts;

	memset(&j, 0, sizeof(j));
	j.monotonic = o->monotonic;
	j.unique = o->unique;
	j.max_report = (size_t)o->max_report;
	j.ntables = x->tables.n;
	rc = prepare(x, &j, e) ||
	     (j.monotonic && j.nops && find_violations(x, &j, e)) ||
	     (j.unique && j.nops && find_duplicates(x, &j, e)) ||
	     buf_printf(d, e, "\"tables\":%zu,\"inserts\":%zu,"
			"\"violations\":%zu,\"duplicates\":%zu", j.checked,
			j.nops, j.violations, j.duplicates) ||
	     excluded_json(x, &j, d, e) || violations_json(x, &j, d, e) ||
	     duplicates_json(x, &j, d, e) ||
	     (x->cut_line && buf_printf(d, e, ",\"ignored_last_line\":%zu",
					x->cut_line));
	if (!rc)
		verdict(x, &j, r);
	free(j.keys);
	free(j.pairs);
	free(j.dups);
	free(j.order);
	free(j.win);
	return rc ? -1 : 0;
}

static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	const struct ids_opts *o = it->opts;
	struct ynode at = { YNODE_SCALAR, it->line, it->col, NULL, 0, NULL, 0 };

	if (!o->monotonic && !o->unique)
		return ynode_error(e, s->path, &at, "check 'ids': monotonic "
				   "and unique are both false, nothing to "
				   "check");
	return 0;
}

static int run(const struct check_ctx *ctx, const struct suite_item *it,
	       struct check_result *r, struct err *e)
{
	const struct ids_opts *o = it->opts;
	const struct optlist *tables = &o->tables;
	struct ids x;
	int rc = -1;

	memset(&x, 0, sizeof(x));
	x.ctx = ctx;
	x.it = it;
	if (tables->n) {
		x.scope = xcalloc(tables->n, sizeof(*x.scope));
		for (size_t i = 0; i < tables->n; i++) {
			struct buf name = BUF_INIT;

			if (buf_printf(&name, e, "%s.%s", ctx->suite->database,
				       tables->v[i]))
				goto out;
			x.scope[x.nscope++] = buf_detach(&name, NULL);
		}
	}
	if (read_history(&x, e))
		goto out;
	if (x.bad[0]) {
		check_verdict(r, VERDICT_UNKNOWN, "%s", x.bad);
		rc = 0;
		goto out;
	}
	rc = judge(&x, r, e);
out:
	for (size_t i = 0; i < x.nscope; i++)
		free(x.scope[i]);
	free(x.scope);
	intern_release(&x.tables);
	intern_release(&x.nodes);
	intern_release(&x.ddl_ops);
	free(x.tmeta);
	free(x.ops);
	free(x.pend);
	for (size_t i = 0; i < x.nevents; i++)
		free(x.events[i].text);
	free(x.events);
	free(x.in_effect);
	return rc;
}

const struct checker_type checker_ids = {
	.kind = { "ids", "AUTO_INCREMENT ids unique and increasing in real "
		  "time across servers, from the history (TiDB 52600)",
		  opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct ids_opts), .check = check },
	.live = 0,
	.run = run,
};
