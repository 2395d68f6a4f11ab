/*
 * ids: the AUTO_INCREMENT ids inserts got back are unique per table and
 * increase in real time (AUTO_ID_CACHE=1, TiDB issue 52600;
 * docs/internals.md, The cases; docs/checkers.md). Judged from
 * history.jsonl alone, so `tichaos check` works offline.
 *
 * An insert is an ok record with an "id" (whatever the workload calls the
 * operation); it was invoked at the time of its process's preceding
 * invoke record and completed at the ok's. So is a fail record whose
 * error is the table's primary key refusing an integer id (1062,
 * "Duplicate entry 'N' for key 'PRIMARY'", or 'T.PRIMARY' as TiDB and
 * MySQL 8 say): tichaos's inserts never name the id, so the server gave
 * out N, which a row already had — a repeated id, which a suite with
 * ignore_errors would otherwise count as a failed insert and hide. It
 * is judged as an insert that got N, marked refused, and counted.
 *
 * monotonic: inserts A, B on one table with A.complete < B.invoke need
 *   id(B) > id(A). The invokes and completions are taken in time order
 *   (of two at one time, an invoke first; completions at one time by
 *   invoke, then line). Each table keeps the largest id completed so far
 *   and the insert that got it; an operation takes its table's at its
 *   invoke, and at its completion an id at or below that one violates,
 *   with that insert as its A.
 * unique: each table's ids go into a set: a bitmap while they are dense
 *   (auto-increment), a hash set once a bitmap would take more than four
 *   words an id; an id found in it again is a duplicate, counted once in
 *   a second such set. The inserts that got one of the listed duplicate
 *   ids are found by a second pass over the file, for those ids only.
 *
 * Kept are the operations in flight, each table's largest id and sets,
 * and per table the first max_report violations (by B's invoke) and
 * smallest duplicate ids; counts are exact. Not the inserts: memory
 * grows with the ids' range, the tables and the faults, not the length
 * of the history.
 *
 * The file is only roughly in time order. Each worker is one thread that
 * reads the clock and queues its line at once, so a process's lines are
 * in its time order; but each thread has its own buffer, which the
 * flusher appends whole, one after another, every HISTORY_FLUSH_MS
 * (lib/history.h), so a line can come after lines other threads queued
 * up to about a flush interval later than it (more when a thread was
 * held up between its clock and its queue). Invokes and completions go
 * through a reorder window: a lane a process, merged in time order by a
 * heap of lanes, the earliest let out once more than IDS_WINDOW are held
 * (at 10000 inserts a second, three seconds of the run). A line that
 * arrives after the window let out a later one, one more than LANE_SLACK
 * places out of its process's own order, or an ok on another table than
 * its invoke whose invoke is out already, would be judged wrongly in a
 * stream: the check then reads the whole file again, holding every
 * operation and sorting them at the end (about 130 bytes an operation),
 * gives the verdict a file in time order gets, and says why in the
 * details ("reread").
 *
 * A table on which a table or partition DDL (a record marked "ddl") may
 * have taken effect (ok, info, or invoked and never completed) restarts
 * its ids legitimately; it is left out of both checks and listed as
 * excluded, and so is the second table a DDL's value names ("with": an
 * exchange of partition). What was kept for it goes at its first such
 * DDL; its inserts are counted.
 *
 * With a violation go the events "between" A and B: monitor records at a
 * time in [A.complete, B.invoke], and nemesis faults that took effect
 * (info, or invoked and never completed) whose span from invoke to
 * completion meets that window — and, for a fault that is healed later
 * (kill, partition), its time in effect, from the injection to its heal
 * (or the end of the history), so that a pair of inserts wholly inside a
 * partition names it. Every such event is kept (they are few).
 *
 * A line that is no record, or an ok insert without its invoke, before
 * its invoke, or without a table, ends the reading: the verdict is
 * unknown, naming the first such line.
 *
 * This file reads the history and pairs each invoke with its completion;
 * the sets of ids are checkers/idset.h's, the reorder window
 * checkers/idwindow.h's, the events between checkers/idevents.h's, what
 * is kept of each table and found at the end checkers/idjudge.h's, the
 * details and the verdict checkers/idverdict.h's.
 */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/checker.h"
#include "checkers/idevents.h"
#include "checkers/idjudge.h"
#include "checkers/idplot.h"
#include "checkers/idverdict.h"
#include "checkers/idwindow.h"
#include "core/suite.h"
#include "lib/faultspan.h"
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

#define NO_NAME INTERN_NONE
/* Invokes and completions the reorder window holds (header comment). */
#define IDS_WINDOW ((size_t)1 << 16)
#define NONE32 UINT32_MAX	/* no flight */

/* ---- the state of a run of the checker --------------------------------- */

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
	uint32_t flight;	/* its operation in the window */
	uint32_t lane;		/* its process's lane */
	uint32_t last_table;	/* the last table and node it named */
	uint32_t last_node;
};

/* An operation from its invoke until its completion leaves the window. */
struct flight {
	struct idop b;		/* its invoke's time; the rest from its ok */
	struct idop a;		/* has_a: its table's best at b's invoke */
	uint32_t table;		/* its invoke's, then the one `a` is of */
	uint32_t invoke_line;
	uint32_t next;		/* free list */
	unsigned has_a:1;
	unsigned out:1;		/* its invoke left the window */
	unsigned done:1;	/* its ok insert was read */
	unsigned dropped:1;	/* it ended without an insert to check */
};

enum pass { PASS_JUDGE, PASS_EVIDENCE };

struct ids {
	const struct check_ctx *ctx;
	const struct suite_item *it;
	int monotonic, unique;
	size_t max_report;
	char **scope;		/* "db.table" of the `tables` option */
	size_t nscope;
	enum pass pass;
	struct intern tables, nodes, ddl_ops;
	struct idtable *tmeta;
	size_t tmeta_cap;
	size_t inserts;		/* of the tables in scope */
	struct pending *pend;	/* open addressing by process */
	size_t npend, pend_slots;
	struct idevents events;
	struct fault_spans spans;	/* the nemesis's records read */
	int64_t last_time;
	/* The operations in flight, through the reorder window: one of
	 * IDS_WINDOW dues, or SIZE_MAX to hold all, sorted at the end. */
	struct flight *flights;
	size_t nflights, flights_cap;
	uint32_t free_flight;
	struct idwindow window;
	/* What the judge finds; the listed duplicates for the second pass. */
	struct idjudging judging;
	size_t cut_line;	/* a last line without its newline */
	struct err *e;		/* where record() says what broke */
	/* Why the file was read again whole (header comment). */
	char reread[200];
	/* Set when the history cannot be judged. */
	char bad[400];
};

/* More distinct names (tables, nodes) than an index holds. */
static int too_many(struct err *e)
{
	return err_set(e, ERR_INFRA, "ids: more than %u distinct names in "
		       "the history", INTERN_NONE - 1);
}

/* The history cannot be judged: the first reason, and the reading stops. */
static int bad(struct ids *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int bad(struct ids *x, const char *fmt, ...)
{
	va_list ap;

	if (!x->bad[0]) {
		va_start(ap, fmt);
		vsnprintf(x->bad, sizeof(x->bad), fmt, ap);
		va_end(ap);
	}
	return 1;
}

static uint32_t cap32(size_t n)
{
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

static uint32_t cap_line(size_t n)
{
	return n > IDOP_LINE_MAX ? IDOP_LINE_MAX : (uint32_t)n;
}


/* ---- tables and processes ---------------------------------------------- */

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

/* table_of, asked of process p's last table first: a process mostly
 * keeps to its tables. */
static uint32_t table_named(struct ids *x, struct pending *p,
			    const char *name, struct err *e)
{
	if (p->last_table == NO_NAME ||
	    strcmp(x->tables.v[p->last_table], name))
		p->last_table = table_of(x, name, e);
	return p->last_table;
}

/* What was kept to judge table m (excluded, or the check is over). */
/* A DDL `op` on table `t` may have taken effect at `at`. */
static void exclude_at(struct ids *x, uint32_t t, const char *op,
		       const char *how, int64_t at)
{
	idtable_exclude(&x->tmeta[t], op, how, at);
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
	x->pend[k].flight = NONE32;
	x->pend[k].lane = IDWINDOW_NO_LANE;
	x->pend[k].last_table = x->pend[k].last_node = NO_NAME;
	x->npend++;
	return &x->pend[k];
}

/* ---- operations in flight --------------------------------------------- */

static uint32_t flight_new(struct ids *x, struct err *e)
{
	uint32_t f = x->free_flight;

	if (f != NONE32) {
		x->free_flight = x->flights[f].next;
	} else {
		if (x->nflights >= NONE32)
			return err_set(e, ERR_INFRA, "ids: more than %u "
				       "operations in flight", NONE32 - 1),
			       NONE32;
		if (x->nflights == x->flights_cap) {
			x->flights_cap = x->flights_cap ? x->flights_cap * 2
							: 1024;
			x->flights = xrealloc(x->flights, x->flights_cap *
					      sizeof(*x->flights));
		}
		f = (uint32_t)x->nflights++;
	}
	memset(&x->flights[f], 0, sizeof(x->flights[f]));
	return f;
}

static void flight_free(struct ids *x, uint32_t f)
{
	x->flights[f].next = x->free_flight;
	x->free_flight = f;
}

/* Where due `d` goes in time order (struct idwindow_key). */
static struct idwindow_key due_key(const struct idwindow_due *d, void *arg)
{
	const struct ids *x = arg;
	const struct flight *f = &x->flights[d->ref];

	if (d->kind == IDWINDOW_INVOKE)
		return (struct idwindow_key){ d->time, IDWINDOW_INVOKE,
					      f->invoke_line, 0 };
	return (struct idwindow_key){ d->time, IDWINDOW_COMPLETE, f->b.line,
				      f->b.invoke };
}

/* The history must be read again whole: why (header comment). */
static int reread(struct ids *x, size_t line, int64_t at, const char *why)
{
	char s[32];

	snprintf(x->reread, sizeof(x->reread), "history.jsonl:%zu: the "
		 "line at %ss %s", line, ids_secs(s, sizeof(s), at), why);
	return 1;
}

/* An invoke in time order: what its table's largest id is now. */
static void invoked(struct ids *x, uint32_t f)
{
	struct flight *fl = &x->flights[f];
	const struct idtable *m;

	if (fl->dropped) {
		flight_free(x, f);
		return;
	}
	fl->out = 1;
	if (fl->done)
		fl->table = fl->b.table;
	if (fl->table == NO_NAME)
		return;
	m = &x->tmeta[fl->table];
	if (m->has_best) {
		fl->a = m->best;
		fl->has_a = 1;
	}
}

/* A completion in time order: judged against its invoke's largest id,
 * then the largest if larger. */
/* A completion in time order: judged against its invoke's largest id,
 * then the largest if larger. */
static void completed(struct ids *x, uint32_t f)
{
	struct flight *fl = &x->flights[f];

	idtable_completed(&x->tmeta[fl->b.table], fl->has_a ? &fl->a : NULL,
			  &fl->b, x->max_report);
	flight_free(x, f);
}

/* A due let out of the window, in time order. */
static void let_out(struct idwindow_due d, void *arg)
{
	if (d.kind == IDWINDOW_INVOKE)
		invoked(arg, d.ref);
	else
		completed(arg, d.ref);
}

/*
 * Due `d` of pending p's operation into the window. 1 when it comes too
 * late: x->reread says why.
 */
static int due_add(struct ids *x, struct pending *p, struct idwindow_due d,
		   size_t line)
{
	const char *why;

	if (!idwindow_add(&x->window, &p->lane, d, &why))
		return 0;
	return reread(x, line, d.time, why);
}

/* ---- collecting -------------------------------------------------------- */

/* Pending p's operation is over without an insert to judge. */
static void settle(struct ids *x, struct pending *p)
{
	if (p->flight != NONE32) {
		if (x->flights[p->flight].out)
			flight_free(x, p->flight);
		else
			x->flights[p->flight].dropped = 1;
		p->flight = NONE32;
	}
	p->kind = P_NONE;
}

/* An open invoke that never completed: a DDL may have happened. */
static void unfinished(struct ids *x, struct pending *p)
{
	if (p->kind == P_DDL && p->table != NO_NAME)
		exclude_at(x, p->table, p->ddl, "invoke", p->time);
	settle(x, p);
}


static int make_op(struct ids *x, const struct history_line *r,
		   struct pending *p, uint32_t table, size_t line,
		   struct idop *op, struct err *e)
{
	int added;

	op->node = NO_NAME;
	if (r->node && (p->last_node == NO_NAME ||
			strcmp(x->nodes.v[p->last_node], r->node)) &&
	    (p->last_node = intern_add(&x->nodes, r->node, &added)) ==
	    NO_NAME)
		return too_many(e);
	if (r->node)
		op->node = p->last_node;
	op->invoke = p->time;
	op->complete = r->time;
	op->id = r->id;
	op->table = table;
	op->process = (int32_t)r->process;
	op->line = cap_line(line);
	return 0;
}

/* An insert of a table in scope, into the window. */
static int land(struct ids *x, struct pending *p, const struct idop *op,
		size_t line)
{
	uint32_t f = p->flight;
	struct flight *fl;

	p->flight = NONE32;
	p->kind = P_NONE;
	if (f == NONE32)
		return 0;
	fl = &x->flights[f];
	fl->b = *op;
	fl->done = 1;
	if (fl->out && fl->table != op->table)
		return reread(x, line, op->complete, "is an ok insert on "
			      "another table than its invoke's");
	return due_add(x, p, (struct idwindow_due){ op->complete, f,
						    IDWINDOW_COMPLETE },
		       line);
}

/* An insert that got r->id: an ok insert, or (`refused`) a failed one
 * the primary key refused. */
static int ok_insert(struct ids *x, struct pending *p,
		     const struct history_line *r, int refused, size_t line,
		     struct err *e)
{
	struct idop op;
	uint32_t t;

	if (p->kind != P_OP)
		return bad(x, "history.jsonl:%zu: ok insert of process %lld "
			   "without its invoke", line, (long long)r->process);
	if (r->time < p->time)
		return bad(x, "history.jsonl:%zu: ok insert at %lld before "
			   "its invoke at %lld (line %zu)", line,
			   (long long)r->time, (long long)p->time, p->line);
	if (!r->table)
		return bad(x, "history.jsonl:%zu: ok insert without a "
			   "\"table\"", line);
	if ((t = table_named(x, p, r->table, e)) == NO_NAME)
		return -1;
	if (!x->tmeta[t].in_scope || x->tmeta[t].excluded) {
		if (x->pass == PASS_JUDGE && x->tmeta[t].in_scope) {
			x->inserts++;
			x->tmeta[t].inserts++;
			x->tmeta[t].refused += (size_t)refused;
		}
		settle(x, p);
		return 0;
	}
	if (make_op(x, r, p, t, line, &op, e))
		return -1;
	op.refused = refused != 0;
	if (x->pass == PASS_EVIDENCE) {
		idjudge_evidence(&x->judging, &op);
		settle(x, p);
		return 0;
	}
	x->inserts++;
	x->tmeta[t].inserts++;
	x->tmeta[t].refused += (size_t)refused;
	if (x->unique)
		idtable_seen(&x->tmeta[t], op.id, x->max_report);
	return land(x, p, &op, line);
}

static int invoke(struct ids *x, struct pending *p,
		  const struct history_line *r, const char *ddl, size_t line,
		  struct err *e)
{
	struct flight *fl;
	uint32_t f;

	unfinished(x, p);
	p->kind = ddl ? P_DDL : P_OP;
	p->ddl = ddl;
	p->table = NO_NAME;
	if (r->table && (p->table = table_named(x, p, r->table, e)) ==
	    NO_NAME)
		return -1;
	p->time = r->time;
	p->line = line;
	if (ddl || x->pass != PASS_JUDGE || !x->monotonic)
		return 0;
	if ((f = flight_new(x, e)) == NONE32)
		return -1;
	p->flight = f;
	fl = &x->flights[f];
	fl->b.invoke = r->time;
	fl->table = p->table;
	fl->invoke_line = cap32(line);
	return due_add(x, p, (struct idwindow_due){ r->time, f,
						    IDWINDOW_INVOKE }, line);
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

/*
 * An invoke, an ok: told by a letter or two, as history_read lets only
 * invoke, ok, fail and info through (the worker's lines are most of a
 * history).
 */
static int is_invoke(const char *type)
{
	return type[0] == 'i' && type[2] == 'v';
}

static int is_ok(const char *type)
{
	return type[0] == 'o';
}

static int worker(struct ids *x, const struct history_line *r, size_t line,
		  struct err *e)
{
	struct pending *p = pending_of(x, r->process, e);
	const char *ddl = NULL;
	struct history_line refused;
	int64_t id;

	if (!p || (r->ddl && !(ddl = ddl_name(x, r->f))))
		return p ? too_many(e) : -1;
	if (is_invoke(r->type))
		return invoke(x, p, r, ddl, line, e);
	if (!ddl && is_ok(r->type) && r->has_id)
		return ok_insert(x, p, r, 0, line, e);
	if (!ddl && r->type[0] == 'f' && p->kind == P_OP && r->table &&
	    idjudge_refused_id(r->error, &id)) {
		refused = *r;
		refused.id = id;
		refused.has_id = 1;
		return ok_insert(x, p, &refused, 1, line, e);
	}
	/* Another op's completion, or one without its invoke. */
	if (p->kind != (ddl ? P_DDL : P_OP) || p->ddl != ddl)
		unfinished(x, p);
	settle(x, p);
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

	if (x->pass == PASS_EVIDENCE)
		return r->process >= 0 ? worker(x, r, r->line, x->e) : 0;
	if (r->time > x->last_time)
		x->last_time = r->time;
	if (r->process == HISTORY_NEMESIS)
		return fault_spans_line(&x->spans, r);
	if (r->process == HISTORY_MONITOR) {
		if (!strcmp(r->type, "info"))
			idevents_add(&x->events, r, r->time, 0);
		return 0;
	}
	return worker(x, r, r->line, x->e);
}

/*
 * Read the history (x->pass says for what). 0 also when it cannot be
 * judged (x->bad set) or must be read again whole (x->reread).
 */
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
	if (x->bad[0] || x->reread[0] || x->pass == PASS_EVIDENCE)
		return 0;
	/* Invokes the history ends on. */
	for (size_t i = 0; i < x->pend_slots; i++)
		if (x->pend[i].process >= 0)
			unfinished(x, &x->pend[i]);
	idwindow_drain(&x->window);
	return fault_spans_end(&x->spans, x->last_time);
}

/* ---- judging ----------------------------------------------------------- */

/* What the judge reads of the reading (borrowed; anew after the second). */
static void lend(struct ids *x)
{
	struct idjudging *j = &x->judging;

	j->tmeta = x->tmeta;
	j->tables = x->tables.v;
	j->ntables = x->tables.n;
	j->nodes = x->nodes.v;
	j->events = &x->events;
	j->max_report = x->max_report;
	j->inserts = x->inserts;
	j->scoped = x->nscope != 0;
	j->monotonic = x->monotonic;
	j->unique = x->unique;
}

/* The first max_report duplicate ids and (a second pass) the inserts
 * that got them. */
static int find_duplicates(struct ids *x, struct err *e)
{
	if (!idjudge_duplicates(&x->judging))
		return 0;
	/* The same pairing of invokes and oks, on a clean slate. */
	free(x->pend);
	x->pend = NULL;
	x->npend = x->pend_slots = 0;
	x->pass = PASS_EVIDENCE;
	if (read_history(x, e))
		return -1;
	if (x->bad[0])
		return err_set(e, ERR_INFRA, "ids: reading again: %s", x->bad);
	idjudge_evidence_done(&x->judging);
	lend(x);
	return 0;
}

/*
 * The judge, step by step: prepare (tables, exclusions, events), the
 * violations of monotonicity, the duplicate ids and their inserts, the
 * details, the verdict.
 */
static int judge(struct ids *x, const char *reread, struct check_result *r,
		 struct err *e)
{
	lend(x);
	idjudge_prepare(&x->judging);
	if (x->monotonic)
		idjudge_violations(&x->judging);
	if ((x->unique && find_duplicates(x, e)) ||
	    idverdict_details(&x->judging, x->cut_line, reread, &r->details,
			      e))
		return -1;
	idverdict(&x->judging, r);
	return 0;
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

/* Free what a reading kept; the options and the scope stay. */
static void ids_release(struct ids *x)
{
	for (size_t i = 0; i < x->tables.n; i++)
		idtable_forget(&x->tmeta[i]);
	intern_release(&x->tables);
	intern_release(&x->nodes);
	intern_release(&x->ddl_ops);
	free(x->tmeta);
	free(x->pend);
	idevents_release(&x->events);
	fault_spans_release(&x->spans);
	free(x->flights);
	idwindow_release(&x->window);
	idjudge_release(&x->judging);
}

/* A clean slate for a reading with a window of `window` dues. */
static void ids_init(struct ids *x, size_t window)
{
	const struct ids_opts *o = x->it->opts;
	struct ids keep = *x;

	memset(x, 0, sizeof(*x));
	x->ctx = keep.ctx;
	x->it = keep.it;
	x->scope = keep.scope;
	x->nscope = keep.nscope;
	x->monotonic = o->monotonic;
	x->unique = o->unique;
	x->max_report = (size_t)o->max_report;
	x->free_flight = NONE32;
	idwindow_init(&x->window, window, due_key, let_out, x);
	fault_spans_init(&x->spans, idevents_span, &x->events);
}

static int scope(struct ids *x, const struct optlist *tables,
		 struct err *e)
{
	if (!tables->n)
		return 0;
	x->scope = xcalloc(tables->n, sizeof(*x->scope));
	for (size_t i = 0; i < tables->n; i++) {
		struct buf name = BUF_INIT;

		if (buf_printf(&name, e, "%s.%s", x->ctx->suite->database,
			       tables->v[i]))
			return -1;
		x->scope[x->nscope++] = buf_detach(&name, NULL);
	}
	return 0;
}

static int run(const struct check_ctx *ctx, const struct suite_item *it,
	       struct check_result *r, struct err *e)
{
	const struct ids_opts *o = it->opts;
	char reread[sizeof(((struct ids *)0)->reread)] = "";
	struct ids x;
	int rc = -1;

	memset(&x, 0, sizeof(x));
	x.ctx = ctx;
	x.it = it;
	ids_init(&x, IDS_WINDOW);
	if (scope(&x, &o->tables, e) || read_history(&x, e))
		goto out;
	if (x.reread[0] && !x.bad[0]) {
		snprintf(reread, sizeof(reread), "%s", x.reread);
		ids_release(&x);
		ids_init(&x, SIZE_MAX);
		if (read_history(&x, e))
			goto out;
	}
	if (x.bad[0]) {
		check_verdict(r, VERDICT_UNKNOWN, "%s", x.bad);
		rc = 0;
		goto out;
	}
	rc = judge(&x, reread, r, e);
out:
	ids_release(&x);
	for (size_t i = 0; i < x.nscope; i++)
		free(x.scope[i]);
	free(x.scope);
	return rc;
}

const struct checker_type checker_ids = {
	.kind = { "ids", "AUTO_INCREMENT ids unique and increasing in real "
		  "time across servers, from the history (TiDB 52600)",
		  opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct ids_opts), .check = check },
	.live = 0,
	.run = run,
	.draw = ids_draw,
};
