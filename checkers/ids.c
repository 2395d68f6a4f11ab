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
 */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/checker.h"
#include "checkers/idplot.h"
#include "core/suite.h"
#include "lib/clock.h"
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

#define MAX_BETWEEN 50		/* events listed per violation */
#define MAX_DUP_OPS 10		/* operations listed per duplicate id */
#define NO_NAME INTERN_NONE
/* Invokes and completions the reorder window holds (header comment). */
#define IDS_WINDOW ((size_t)1 << 16)
/* Places a line may be out of its own process's time order. */
#define LANE_SLACK 16
#define NONE32 UINT32_MAX	/* no flight, no lane */

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

struct pair {			/* a violation: b after a, id not above */
	struct op a, b;
};

/*
 * The ids of a table, each as an unsigned number in the same order
 * (ordered()): a bitmap over the words [first, first + nwords) while
 * they are dense, a hash set (open addressing, 0 empty) once not.
 */
struct idset {
	uint64_t *bits;
	uint64_t first;
	size_t nwords;
	uint64_t *slots;
	size_t nslots;
	int sparse;
	int has_zero;		/* the hash set holds 0 */
	size_t n;
};

struct table {
	unsigned in_scope:1;
	unsigned excluded:1;
	unsigned has_best:1;
	const char *because;	/* the first DDL op (static) */
	const char *how;	/* "ok", "info", "invoke" (never completed) */
	int64_t at;
	size_t inserts;
	/* Monotonic: the largest id completed so far, and the first
	 * max_report violations by B (a heap, the last one on top). */
	struct op best;
	size_t violations;
	struct pair *first;
	size_t nfirst;
	/* Unique: ids seen, ids seen twice, and the smallest max_report of
	 * those (a heap, the largest on top). */
	struct idset seen, twice;
	size_t duplicates;
	int64_t *dup_ids;
	size_t ndup_ids;
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
	uint32_t flight;	/* its operation in the window */
	uint32_t lane;		/* its process's lane */
	uint32_t last_table;	/* the last table and node it named */
	uint32_t last_node;
};

/* An operation from its invoke until its completion leaves the window. */
struct flight {
	struct op b;		/* its invoke's time; the rest from its ok */
	struct op a;		/* has_a: its table's largest id at b's invoke */
	uint32_t table;		/* its invoke's, then the one `a` is of */
	uint32_t invoke_line;
	uint32_t next;		/* free list */
	unsigned has_a:1;
	unsigned out:1;		/* its invoke left the window */
	unsigned done:1;	/* its ok insert was read */
	unsigned dropped:1;	/* it ended without an insert to check */
};

enum due_kind { DUE_INVOKE, DUE_COMPLETE };

struct due {			/* an invoke or completion in the window */
	int64_t time;
	uint32_t flight;
	uint32_t kind;
};

struct due_key {		/* where a due goes in time order */
	int64_t time;
	uint32_t kind;
	uint32_t line;
	int64_t invoke;
};

struct lane {			/* one process's dues in time order: a ring */
	struct due *v;
	size_t cap, head, n;
};

struct lane_ref {		/* a lane in the heap, with its first's time */
	int64_t time;
	uint32_t lane;
};

struct event {			/* a nemesis fault or monitor record */
	int64_t start, end;
	int fault;		/* nemesis: rendered as a span */
	int unfinished;
	size_t seq;
	char *text;
};

struct dup {			/* a listed duplicate id, with its inserts */
	uint32_t table;
	int64_t id;
	size_t count;
	struct op ops[MAX_DUP_OPS];	/* the first, by completion */
	size_t nops;
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
	struct table *tmeta;
	size_t tmeta_cap;
	size_t inserts;		/* of the tables in scope */
	struct pending *pend;	/* open addressing by process */
	size_t npend, pend_slots;
	struct event *events;
	size_t nevents, events_cap;
	struct fault_spans spans;	/* the nemesis's records read */
	int64_t last_time;
	/* The reorder window: SIZE_MAX holds all, in `all`, sorted at the
	 * end; else lanes merged through a heap of lanes by their first. */
	size_t window;
	struct flight *flights;
	size_t nflights, flights_cap;
	uint32_t free_flight;
	struct lane *lanes;
	struct lane_ref *lane_heap;
	size_t nlanes, lanes_cap, nlane_heap;
	struct due *all;
	size_t nall, all_cap;
	size_t held;		/* dues in the window */
	int let_out_any;
	struct due_key last_out;
	/* The listed duplicate ids; by (table, id) for the second pass. */
	struct dup *dups;
	struct dup **dups_by_id;
	size_t ndups;
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

/* ---- sets of ids ------------------------------------------------------- */

/* An id as an unsigned number in the same order. */
static uint64_t ordered(int64_t id)
{
	return (uint64_t)id ^ (UINT64_C(1) << 63);
}

static uint64_t mix(uint64_t u)
{
	u ^= u >> 33;
	u *= UINT64_C(0xff51afd7ed558ccd);
	return u ^ u >> 33;
}

static void rehash(struct idset *s, size_t nslots)
{
	uint64_t *old = s->slots;
	size_t nold = s->nslots;

	s->slots = xcalloc(nslots, sizeof(*s->slots));
	s->nslots = nslots;
	for (size_t i = 0; i < nold; i++) {
		size_t k = mix(old[i]) & (nslots - 1);

		if (!old[i])
			continue;
		while (s->slots[k])
			k = (k + 1) & (nslots - 1);
		s->slots[k] = old[i];
	}
	free(old);
}

/* Add u to the hash set: 1 when it was there already. */
static int hash_add(struct idset *s, uint64_t u)
{
	size_t k;

	if (!u) {
		if (s->has_zero)
			return 1;
		s->has_zero = 1;
		s->n++;
		return 0;
	}
	if ((s->n + 1) * 2 > s->nslots)
		rehash(s, s->nslots ? s->nslots * 2 : 1024);
	for (k = mix(u) & (s->nslots - 1); s->slots[k];
	     k = (k + 1) & (s->nslots - 1))
		if (s->slots[k] == u)
			return 1;
	s->slots[k] = u;
	s->n++;
	return 0;
}

/* The bitmap's ids into a hash set, for good. */
static void go_sparse(struct idset *s)
{
	uint64_t *bits = s->bits;

	s->sparse = 1;
	s->bits = NULL;
	s->n = 0;
	for (size_t i = 0; i < s->nwords; i++)
		for (uint64_t w = bits[i]; w; w &= w - 1)
			hash_add(s, (s->first + i) * 64 +
				 (uint64_t)__builtin_ctzll(w));
	s->nwords = 0;
	free(bits);
}

/*
 * Make the bitmap cover word w, at least doubling it; or, when that
 * takes more than four words an id past the first 1024, go sparse.
 */
static void widen(struct idset *s, uint64_t w)
{
	uint64_t from = s->first, to = s->first + s->nwords;
	uint64_t *bits;

	if (!s->nwords) {
		from = w;
		to = w + 1;
	} else if (w < from) {
		from = from > s->nwords ? from - s->nwords : 0;
		from = w < from ? w : from;
	} else {
		to = w + 1 > to + s->nwords ? w + 1 : to + s->nwords;
	}
	if (to - from > 4 * s->n + 1024) {
		go_sparse(s);
		return;
	}
	bits = xcalloc(to - from, sizeof(*bits));
	if (s->nwords)
		memcpy(bits + (s->first - from), s->bits,
		       s->nwords * sizeof(*bits));
	free(s->bits);
	s->bits = bits;
	s->first = from;
	s->nwords = to - from;
}

/* Add `id`: 1 when it was there already. */
static int idset_add(struct idset *s, int64_t id)
{
	uint64_t u = ordered(id), bit = UINT64_C(1) << (u % 64), *word;

	if (!s->sparse && u / 64 - s->first >= s->nwords)
		widen(s, u / 64);
	if (s->sparse)
		return hash_add(s, u);
	word = &s->bits[u / 64 - s->first];
	if (*word & bit)
		return 1;
	*word |= bit;
	s->n++;
	return 0;
}

static void idset_release(struct idset *s)
{
	free(s->bits);
	free(s->slots);
	memset(s, 0, sizeof(*s));
}

/* ---- the first max_report ---------------------------------------------- */

/*
 * Keep the `cap` smallest elements by `cmp` in `v`, a heap of *n
 * elements of `size` bytes with the largest on top: `elem` goes in when
 * there is room, or in the place of the largest when smaller than it.
 */
static void keep_smallest(void *v, size_t *n, size_t cap, size_t size,
			  const void *elem,
			  int (*cmp)(const void *, const void *))
{
	char *h = v;
	size_t i;

	if (*n < cap) {
		for (i = (*n)++; i && cmp(h + (i - 1) / 2 * size, elem) < 0;
		     i = (i - 1) / 2)
			memcpy(h + i * size, h + (i - 1) / 2 * size, size);
		memcpy(h + i * size, elem, size);
		return;
	}
	if (cmp(elem, h) >= 0)
		return;
	for (i = 0;;) {
		size_t c = 2 * i + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && cmp(h + c * size, h + (c + 1) * size) < 0)
			c++;
		if (cmp(h + c * size, elem) <= 0)
			break;
		memcpy(h + i * size, h + c * size, size);
		i = c;
	}
	memcpy(h + i * size, elem, size);
}

/* Inserts by completion: how the feed and duplicate listings order them. */
static int cmp_op(const void *pa, const void *pb)
{
	const struct op *a = pa, *b = pb;

	if (a->complete != b->complete)
		return a->complete < b->complete ? -1 : 1;
	if (a->invoke != b->invoke)
		return a->invoke < b->invoke ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

/* Violations by B: invoke, completion, line. */
static int cmp_pair(const void *pa, const void *pb)
{
	const struct op *a = &((const struct pair *)pa)->b;
	const struct op *b = &((const struct pair *)pb)->b;

	if (a->invoke != b->invoke)
		return a->invoke < b->invoke ? -1 : 1;
	if (a->complete != b->complete)
		return a->complete < b->complete ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

static int cmp_id(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	return a < b ? -1 : a > b;
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
static void forget(struct table *m)
{
	free(m->first);
	free(m->dup_ids);
	idset_release(&m->seen);
	idset_release(&m->twice);
	m->first = NULL;
	m->dup_ids = NULL;
	m->nfirst = m->ndup_ids = m->violations = m->duplicates = 0;
	m->has_best = 0;
}

/* A DDL `op` on table `t` may have taken effect at `at`. */
static void exclude_at(struct ids *x, uint32_t t, const char *op,
		       const char *how, int64_t at)
{
	struct table *m = &x->tmeta[t];

	if (!m->excluded)
		forget(m);
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
	x->pend[k].flight = NONE32;
	x->pend[k].lane = NONE32;
	x->pend[k].last_table = x->pend[k].last_node = NO_NAME;
	x->npend++;
	return &x->pend[k];
}

/* ---- the reorder window ------------------------------------------------ */

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

static struct due_key key_of(const struct ids *x, const struct due *d)
{
	const struct flight *f = &x->flights[d->flight];

	if (d->kind == DUE_INVOKE)
		return (struct due_key){ d->time, DUE_INVOKE, f->invoke_line,
					 0 };
	return (struct due_key){ d->time, DUE_COMPLETE, f->b.line,
				 f->b.invoke };
}

static int cmp_key(const struct due_key *a, const struct due_key *b)
{
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->invoke != b->invoke)
		return a->invoke < b->invoke ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

static int earlier(const struct ids *x, const struct due *a,
		   const struct due *b)
{
	struct due_key ka, kb;

	if (a->time != b->time)
		return a->time < b->time;
	ka = key_of(x, a);
	kb = key_of(x, b);
	return cmp_key(&ka, &kb) < 0;
}

static int cmp_due(const void *pa, const void *pb, void *arg)
{
	struct due_key a = key_of(arg, pa), b = key_of(arg, pb);

	return cmp_key(&a, &b);
}

#define LANE(l, i) ((l)->v[((l)->head + (i)) & ((l)->cap - 1)])

/* Two lanes whose first dues are at one time: by the rest of the key. */
static int lane_tie(const struct ids *x, const struct lane_ref *a,
		    const struct lane_ref *b)
{
	return earlier(x, &LANE(&x->lanes[a->lane], 0),
		       &LANE(&x->lanes[b->lane], 0));
}

static int lane_before(const struct ids *x, const struct lane_ref *a,
		       const struct lane_ref *b)
{
	return a->time != b->time ? a->time < b->time : lane_tie(x, a, b);
}

static void lane_up(struct ids *x, size_t i)
{
	struct lane_ref ref = x->lane_heap[i], *h = x->lane_heap;

	for (; i && lane_before(x, &ref, &h[(i - 1) / 2]); i = (i - 1) / 2)
		h[i] = h[(i - 1) / 2];
	h[i] = ref;
}

static void lane_down(struct ids *x, size_t i)
{
	struct lane_ref ref = x->lane_heap[i], *h = x->lane_heap;
	size_t n = x->nlane_heap;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && lane_before(x, &h[c + 1], &h[c]))
			c++;
		if (!lane_before(x, &h[c], &ref))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = ref;
}

/* Where lane `lane` is in the heap (its first due just changed: rare). */
static size_t lane_at(const struct ids *x, uint32_t lane)
{
	size_t i = 0;

	while (x->lane_heap[i].lane != lane)
		i++;
	return i;
}

static uint32_t lane_new(struct ids *x)
{
	if (x->nlanes == x->lanes_cap) {
		x->lanes_cap = x->lanes_cap ? x->lanes_cap * 2 : 16;
		x->lanes = xrealloc(x->lanes, x->lanes_cap *
				    sizeof(*x->lanes));
		x->lane_heap = xrealloc(x->lane_heap, x->lanes_cap *
					sizeof(*x->lane_heap));
	}
	memset(&x->lanes[x->nlanes], 0, sizeof(x->lanes[0]));
	return (uint32_t)x->nlanes++;
}

static void lane_grow(struct lane *l)
{
	size_t cap = l->cap ? l->cap * 2 : 16;
	struct due *v = xmalloc(cap * sizeof(*v));

	for (size_t i = 0; i < l->n; i++)
		v[i] = LANE(l, i);
	free(l->v);
	l->v = v;
	l->cap = cap;
	l->head = 0;
}

/* The history must be read again whole: why (header comment). */
static int reread(struct ids *x, size_t line, int64_t at, const char *why)
{
	char s[32];

	snprintf(x->reread, sizeof(x->reread), "history.jsonl:%zu: the "
		 "line at %ss %s", line, secs(s, sizeof(s), at), why);
	return 1;
}

/* Due `d` into its process's lane, by time: 1 when too far back. */
static int lane_add(struct ids *x, uint32_t lane, struct due d,
		    size_t line)
{
	struct lane *l = &x->lanes[lane];
	size_t i;

	for (i = l->n; i && earlier(x, &d, &LANE(l, i - 1)); i--)
		if (l->n - i == LANE_SLACK)
			return reread(x, line, d.time, "is out of its "
				      "process's time order");
	if (l->n == l->cap)
		lane_grow(l);
	for (size_t k = l->n; k > i; k--)
		LANE(l, k) = LANE(l, k - 1);
	LANE(l, i) = d;
	x->held++;
	if (++l->n == 1) {
		x->lane_heap[x->nlane_heap] = (struct lane_ref){ d.time, lane };
		lane_up(x, x->nlane_heap++);
	} else if (!i) {
		size_t at = lane_at(x, lane);

		x->lane_heap[at].time = d.time;
		lane_up(x, at);
	}
	return 0;
}

/* The earliest due of the window, out of it. */
static struct due lane_next(struct ids *x)
{
	struct lane *l = &x->lanes[x->lane_heap[0].lane];
	struct due d = LANE(l, 0);

	l->head = (l->head + 1) & (l->cap - 1);
	x->held--;
	if (--l->n) {
		x->lane_heap[0].time = LANE(l, 0).time;
		lane_down(x, 0);
		return d;
	}
	if (l->cap > 1024) {
		free(l->v);
		l->v = NULL;
		l->cap = l->head = 0;
	}
	if (--x->nlane_heap) {
		x->lane_heap[0] = x->lane_heap[x->nlane_heap];
		lane_down(x, 0);
	}
	return d;
}

/* An invoke in time order: what its table's largest id is now. */
static void invoked(struct ids *x, uint32_t f)
{
	struct flight *fl = &x->flights[f];
	const struct table *m;

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
static void completed(struct ids *x, uint32_t f)
{
	struct flight *fl = &x->flights[f];
	struct table *m = &x->tmeta[fl->b.table];

	if (!m->excluded) {
		if (fl->has_a && fl->b.id <= fl->a.id) {
			struct pair p = { fl->a, fl->b };

			if (!m->first)
				m->first = xmalloc(x->max_report *
						   sizeof(*m->first));
			m->violations++;
			keep_smallest(m->first, &m->nfirst, x->max_report,
				      sizeof(p), &p, cmp_pair);
		}
		if (!m->has_best || fl->b.id > m->best.id) {
			m->best = fl->b;
			m->has_best = 1;
		}
	}
	flight_free(x, f);
}

static void let_out(struct ids *x, struct due d)
{
	x->last_out = key_of(x, &d);
	x->let_out_any = 1;
	if (d.kind == DUE_INVOKE)
		invoked(x, d.flight);
	else
		completed(x, d.flight);
}

/*
 * Due `d` of pending p's operation into the window, letting the earliest
 * out while it holds too many. 1 when it comes too late: x->reread says
 * why.
 */
static int due_add(struct ids *x, struct pending *p, struct due d,
		   size_t line)
{
	if (x->window == SIZE_MAX) {
		if (x->nall == x->all_cap) {
			x->all_cap = x->all_cap ? x->all_cap * 2 : 1024;
			x->all = xrealloc(x->all, x->all_cap *
					  sizeof(*x->all));
		}
		x->all[x->nall++] = d;
		return 0;
	}
	if (x->let_out_any) {
		struct due_key k = key_of(x, &d);

		if (cmp_key(&k, &x->last_out) < 0)
			return reread(x, line, d.time, "came after the "
				      "reorder window had let out a later one");
	}
	if (p->lane == NONE32)
		p->lane = lane_new(x);
	if (lane_add(x, p->lane, d, line))
		return 1;
	while (x->held > x->window)
		let_out(x, lane_next(x));
	return 0;
}

/* Everything still in the window, in time order. */
static void drain(struct ids *x)
{
	while (x->nlane_heap)
		let_out(x, lane_next(x));
	if (x->nall)
		qsort_r(x->all, x->nall, sizeof(*x->all), cmp_due, x);
	for (size_t i = 0; i < x->nall; i++)
		let_out(x, x->all[i]);
	x->nall = 0;
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

/*
 * A span of the faults (lib/faultspan.h) as an event: a step, and an
 * invoke that never completed, by their records; a time in effect by its
 * injection's text, "... in effect".
 */
static int fault_event(const struct fault_span *s, size_t *tag, void *arg)
{
	struct ids *x = arg;
	struct history_line l;
	char *text;
	int rc;

	if (s->kind != FAULT_SPAN_IN_EFFECT) {
		l = *s->line;
		l.time = s->end;
		*tag = x->nevents;
		if (add_event(x, &l, s->start, 1, x->e))
			return -1;
		x->events[x->nevents - 1].unfinished =
			s->kind == FAULT_SPAN_UNFINISHED;
		return 0;
	}
	memset(&l, 0, sizeof(l));
	l.time = s->end;
	text = xprintf("%s in effect", x->events[s->inject].text);
	l.f = text;
	rc = add_event(x, &l, s->start, 1, x->e);
	free(text);
	return rc;
}

static int make_op(struct ids *x, const struct history_line *r,
		   struct pending *p, uint32_t table, size_t line,
		   struct op *op, struct err *e)
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
	op->line = cap32(line);
	return 0;
}

/* Unique: the id into its table's sets. */
static void seen(struct ids *x, struct table *m, int64_t id)
{
	if (!idset_add(&m->seen, id) || idset_add(&m->twice, id))
		return;
	m->duplicates++;
	if (!m->dup_ids)
		m->dup_ids = xmalloc(x->max_report * sizeof(*m->dup_ids));
	keep_smallest(m->dup_ids, &m->ndup_ids, x->max_report,
		      sizeof(id), &id, cmp_id);
}

static int cmp_dup_id(const void *pa, const void *pb)
{
	const struct dup *a = *(const struct dup *const *)pa;
	const struct dup *b = *(const struct dup *const *)pb;

	if (a->table != b->table)
		return a->table < b->table ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* The second pass: an insert that got a listed duplicate id. */
static void evidence(struct ids *x, const struct op *op)
{
	struct dup key = { op->table, op->id, 0, { { 0 } }, 0 }, *k = &key;
	struct dup **d = bsearch(&k, x->dups_by_id, x->ndups,
				 sizeof(*x->dups_by_id), cmp_dup_id);

	if (!d)
		return;
	(*d)->count++;
	keep_smallest((*d)->ops, &(*d)->nops, MAX_DUP_OPS, sizeof(*op), op,
		      cmp_op);
}

/* An insert of a table in scope, into the window. */
static int land(struct ids *x, struct pending *p, const struct op *op,
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
	return due_add(x, p, (struct due){ op->complete, f, DUE_COMPLETE },
		       line);
}

static int ok_insert(struct ids *x, struct pending *p,
		     const struct history_line *r, size_t line, struct err *e)
{
	struct op op;
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
		}
		settle(x, p);
		return 0;
	}
	if (make_op(x, r, p, t, line, &op, e))
		return -1;
	if (x->pass == PASS_EVIDENCE) {
		evidence(x, &op);
		settle(x, p);
		return 0;
	}
	x->inserts++;
	x->tmeta[t].inserts++;
	if (x->unique)
		seen(x, &x->tmeta[t], op.id);
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
	return due_add(x, p, (struct due){ r->time, f, DUE_INVOKE }, line);
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

	if (!p || (r->ddl && !(ddl = ddl_name(x, r->f))))
		return p ? too_many(e) : -1;
	if (is_invoke(r->type))
		return invoke(x, p, r, ddl, line, e);
	if (!ddl && is_ok(r->type) && r->has_id)
		return ok_insert(x, p, r, line, e);
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
	if (r->process == HISTORY_MONITOR)
		return strcmp(r->type, "info") ? 0
		       : add_event(x, r, r->time, 0, x->e);
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
	drain(x);
	return fault_spans_end(&x->spans, x->last_time);
}

/* ---- judging ----------------------------------------------------------- */

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

/* What judging finds, step by step (judge). */
struct judging {
	size_t ntables, checked, nexcluded;
	size_t nops;			/* inserts of the checked tables */
	size_t violations, npairs;	/* pairs: the first max_report */
	size_t duplicates;		/* listed: x->dups */
	struct pair *pairs;
	uint32_t *order;		/* tables by name */
	int64_t max_span;		/* the longest event */
	struct window *win;
};

/* Tables by name (for the listings) and counted; events in time order. */
static void prepare(struct ids *x, struct judging *j)
{
	j->order = xmalloc((j->ntables + 1) * sizeof(*j->order));
	j->win = xmalloc(sizeof(*j->win));
	for (size_t i = 0; i < j->ntables; i++)
		j->order[i] = (uint32_t)i;
	qsort_r(j->order, j->ntables, sizeof(*j->order), cmp_name,
		x->tables.v);
	for (size_t i = 0; i < j->ntables; i++) {
		const struct table *m = &x->tmeta[i];

		if (!m->inserts)
			continue;
		if (m->excluded) {
			j->nexcluded++;
		} else {
			j->checked++;
			j->nops += m->inserts;
		}
	}
	if (x->nevents)
		qsort(x->events, x->nevents, sizeof(*x->events), cmp_event);
	for (size_t i = 0; i < x->nevents; i++)
		if (x->events[i].end - x->events[i].start > j->max_span)
			j->max_span = x->events[i].end - x->events[i].start;
}

/* The first max_report violations of the checked tables, by B. */
static void gather_violations(struct ids *x, struct judging *j)
{
	size_t n = 0;

	for (size_t i = 0; i < j->ntables; i++)
		if (!x->tmeta[i].excluded)
			n += x->tmeta[i].nfirst;
	j->pairs = xmalloc((n + 1) * sizeof(*j->pairs));
	for (size_t i = 0; i < j->ntables; i++) {
		const struct table *m = &x->tmeta[i];

		if (m->excluded)
			continue;
		j->violations += m->violations;
		if (m->nfirst)
			memcpy(j->pairs + j->npairs, m->first,
			       m->nfirst * sizeof(*m->first));
		j->npairs += m->nfirst;
	}
	qsort(j->pairs, j->npairs, sizeof(*j->pairs), cmp_pair);
	if (j->npairs > x->max_report)
		j->npairs = x->max_report;
}

/* The first max_report duplicate ids of the checked tables, by table
 * name and id, and (a second pass) the inserts that got them. */
static int gather_duplicates(struct ids *x, struct judging *j,
			     struct err *e)
{
	x->dups = xcalloc(x->max_report, sizeof(*x->dups));
	for (size_t i = 0; i < j->ntables; i++) {
		struct table *m = &x->tmeta[j->order[i]];

		if (m->excluded)
			continue;
		j->duplicates += m->duplicates;
		if (m->ndup_ids)
			qsort(m->dup_ids, m->ndup_ids, sizeof(*m->dup_ids),
			      cmp_id);
		for (size_t k = 0; k < m->ndup_ids && x->ndups <
		     x->max_report; k++)
			x->dups[x->ndups++] = (struct dup){
				j->order[i], m->dup_ids[k], 0, { { 0 } }, 0 };
	}
	if (!x->ndups)
		return 0;
	x->dups_by_id = xmalloc(x->ndups * sizeof(*x->dups_by_id));
	for (size_t i = 0; i < x->ndups; i++)
		x->dups_by_id[i] = &x->dups[i];
	qsort(x->dups_by_id, x->ndups, sizeof(*x->dups_by_id), cmp_dup_id);
	/* The same pairing of invokes and oks, on a clean slate. */
	free(x->pend);
	x->pend = NULL;
	x->npend = x->pend_slots = 0;
	x->pass = PASS_EVIDENCE;
	if (read_history(x, e))
		return -1;
	if (x->bad[0])
		return err_set(e, ERR_INFRA, "ids: reading again: %s", x->bad);
	for (size_t i = 0; i < x->ndups; i++)
		qsort(x->dups[i].ops, x->dups[i].nops, sizeof(struct op),
		      cmp_op);
	return 0;
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
		const struct op *a = &j->pairs[i].a, *b = &j->pairs[i].b;

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
static int duplicates_json(const struct ids *x, struct buf *d,
			   struct err *e)
{
	if (buf_addstr(d, ",\"duplicate_ids\":[", e))
		return -1;
	for (size_t i = 0; i < x->ndups; i++) {
		const struct dup *k = &x->dups[i];

		if (buf_addstr(d, i ? ",{\"table\":" : "{\"table\":", e) ||
		    json_quote(d, x->tables.v[k->table], e) ||
		    buf_printf(d, e, ",\"id\":%lld,\"count\":%zu,\"ops\":[",
			       (long long)k->id, k->count))
			return -1;
		for (size_t m = 0; m < k->nops; m++)
			if ((m && buf_addch(d, ',', e)) ||
			    op_json(d, x, &k->ops[m], e))
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
	const struct op *a = &j->pairs[0].a, *b = &j->pairs[0].b;
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
static void say_duplicate(const struct ids *x, struct buf *msg)
{
	const struct dup *k = &x->dups[0];
	char s1[32], w1[64];

	buf_printf(msg, NULL, "%s: id %lld returned ", x->tables.v[k->table],
		   (long long)k->id);
	if (k->count == 2)
		buf_addstr(msg, "twice: ", NULL);
	else
		buf_printf(msg, NULL, "%zu times: ", k->count);
	for (size_t m = 0; m < k->nops && m < 3; m++)
		buf_printf(msg, NULL, "%s%s (done %ss)", m ? ", " : "",
			   who(x, &k->ops[m], w1, sizeof(w1)),
			   secs(s1, sizeof(s1), k->ops[m].complete));
	if (k->count > 3)
		buf_printf(msg, NULL, " and %zu more", k->count - 3);
}

static void verdict(const struct ids *x, struct judging *j,
		    struct check_result *r)
{
	struct buf msg = BUF_INIT;
	char s1[32];

	if (!x->inserts) {
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
	} else if (x->ndups) {
		say_duplicate(x, &msg);
		check_verdict(r, VERDICT_FAIL, "%s", buf_str(&msg));
	} else {
		check_verdict(r, VERDICT_PASS, "%zu table%s, %zu inserts: ids "
			      "%s%s%s", j->checked, j->checked == 1 ? "" : "s",
			      j->nops, x->unique ? "unique" : "",
			      x->unique && x->monotonic ? " and " : "",
			      x->monotonic ? "increasing" : "");
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
 * The judge, step by step: prepare (tables, exclusions, events), the
 * violations of monotonicity, the duplicate ids and their inserts, the
 * details, the verdict.
 */
static int judge(struct ids *x, const char *reread, struct check_result *r,
		 struct err *e)
{
	struct judging j;
	struct buf *d = &r->details;
	int rc;

	memset(&j, 0, sizeof(j));
	j.ntables = x->tables.n;
	prepare(x, &j);
	if (x->monotonic)
		gather_violations(x, &j);
	rc = (x->unique && gather_duplicates(x, &j, e)) ||
	     buf_printf(d, e, "\"tables\":%zu,\"inserts\":%zu,"
			"\"violations\":%zu,\"duplicates\":%zu", j.checked,
			j.nops, j.violations, j.duplicates) ||
	     excluded_json(x, &j, d, e) || violations_json(x, &j, d, e) ||
	     duplicates_json(x, d, e) ||
	     (x->cut_line && buf_printf(d, e, ",\"ignored_last_line\":%zu",
					x->cut_line)) ||
	     (reread[0] && (buf_addstr(d, ",\"reread\":", e) ||
			    json_quote(d, reread, e)));
	if (!rc)
		verdict(x, &j, r);
	free(j.pairs);
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

/* Free what a reading kept; the options and the scope stay. */
static void ids_release(struct ids *x)
{
	for (size_t i = 0; i < x->tables.n; i++)
		forget(&x->tmeta[i]);
	intern_release(&x->tables);
	intern_release(&x->nodes);
	intern_release(&x->ddl_ops);
	free(x->tmeta);
	free(x->pend);
	for (size_t i = 0; i < x->nevents; i++)
		free(x->events[i].text);
	free(x->events);
	fault_spans_release(&x->spans);
	free(x->flights);
	for (size_t i = 0; i < x->nlanes; i++)
		free(x->lanes[i].v);
	free(x->lanes);
	free(x->lane_heap);
	free(x->all);
	free(x->dups);
	free(x->dups_by_id);
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
	x->window = window;
	x->free_flight = NONE32;
	fault_spans_init(&x->spans, fault_event, x);
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
