/*
 * List-append anomalies (checkers/elle.h): the version orders, the
 * checks of each read against them, the dependency graph, its strongly
 * connected components (Tarjan's, iteratively) and the shortest cycle of
 * each kind in each, found by breadth-first search.
 */
#include "checkers/elle.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const elle_kind_names[ELLE_NKINDS] = {
	"G0", "G1a", "G1b", "G1c", "G-single", "G2-item", "internal",
	"incompatible-order", "duplicate", "garbage", "lost",
	"duplicate-append",
};

/* How many nodes of a component a search for its cycles starts from. */
#define ELLE_MAX_STARTS 64
/* How many elements of a list an explanation shows. */
#define ELLE_SHOW 6

enum edge_kind { WW, WR, RW };
static const char *const edge_names[] = { "ww", "wr", "rw" };

struct edge {
	size_t from, to;
	enum edge_kind kind;
	int64_t key, value;	/* the element that makes it */
};

/* Who appended a value. */
struct writer {
	int64_t value;
	size_t txn, mop;
};

/* Where a value stands in its key's version order. */
struct vpos {
	int64_t value;
	size_t key, pos;
};

struct elle {
	const struct elle_txn *t;
	size_t n;
	struct elle_result *r;
	struct writer *w;
	size_t nw;
	int64_t *keys;
	size_t nkeys;
	/* Per key: its version order, the longest ok read of it. */
	const int64_t **order;
	size_t *norder;
	struct vpos *vp;
	size_t nvp;
	struct edge *e;
	size_t ne, ecap;
	/* The graph: out-edges of each transaction, e[first[i]..first[i+1]) */
	size_t *first;
	size_t *comp;		/* component of each transaction */
};

void elle_txn_name(struct buf *out, const struct elle_txn *t)
{
	if (t->label)
		buf_addstr(out, t->label, NULL);
	else
		buf_printf(out, NULL, "T(line %zu, process %d)", t->line,
			   t->process);
}

int elle_forbidden(enum elle_model model, enum elle_kind kind)
{
	if (kind == ELLE_G2_ITEM)
		return model == ELLE_SERIALIZABLE;
	if (kind == ELLE_G_SINGLE)
		return model != ELLE_READ_COMMITTED;
	return 1;
}

/* An anomaly of `kind`: counted; the first explained by `fmt`. */
static void note(struct elle *el, enum elle_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void note(struct elle *el, enum elle_kind kind, const char *fmt, ...)
{
	struct buf *b = &el->r->first[kind];
	char text[600];
	va_list ap;

	if (el->r->count[kind]++)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	buf_addstr(b, text, NULL);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int cmp_writer(const void *a, const void *b)
{
	const struct writer *x = a, *y = b;

	if (x->value != y->value)
		return (x->value > y->value) - (x->value < y->value);
	return (x->txn > y->txn) - (x->txn < y->txn);
}

static int cmp_vpos(const void *a, const void *b)
{
	const struct vpos *x = a, *y = b;

	if (x->value != y->value)
		return (x->value > y->value) - (x->value < y->value);
	return (x->key > y->key) - (x->key < y->key);
}

static const struct writer *writer_of(const struct elle *el, int64_t value)
{
	struct writer k = { value, 0, 0 };
	size_t lo = 0, hi = el->nw;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (cmp_writer(&el->w[mid], &k) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < el->nw && el->w[lo].value == value ? &el->w[lo] : NULL;
}

static size_t key_index(const struct elle *el, int64_t key)
{
	const int64_t *k = bsearch(&key, el->keys, el->nkeys,
				   sizeof(*el->keys), cmp_i64);

	return (size_t)(k - el->keys);
}

static const struct vpos *vpos_of(const struct elle *el, int64_t value)
{
	size_t lo = 0, hi = el->nvp;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (el->vp[mid].value < value)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < el->nvp && el->vp[lo].value == value ? &el->vp[lo] : NULL;
}

/* " [a b c ... z]" of a list, its first and last elements. */
static void list_text(char *out, size_t size, const int64_t *v, size_t n)
{
	size_t len = 0;

	len += (size_t)snprintf(out + len, size - len, "[");
	for (size_t i = 0; i < n && len < size; i++) {
		if (n > ELLE_SHOW && i == ELLE_SHOW / 2) {
			len += (size_t)snprintf(out + len, size - len, " ...");
			i = n - ELLE_SHOW / 2;
		}
		len += (size_t)snprintf(out + len, size - len, "%s%lld",
					i ? " " : "", (long long)v[i]);
	}
	if (len < size)
		snprintf(out + len, size - len, "]");
}

static const char *tname(const struct elle *el, size_t i, char *out,
			 size_t size)
{
	if (el->t[i].label)
		snprintf(out, size, "%s", el->t[i].label);
	else
		snprintf(out, size, "T(line %zu, process %d)", el->t[i].line,
			 el->t[i].process);
	return out;
}

/* Every append's writer; a value appended twice is the history's fault. */
static void writers(struct elle *el)
{
	for (size_t i = 0; i < el->n; i++)
		for (size_t m = 0; m < el->t[i].nmops; m++)
			el->nw += !el->t[i].mops[m].read;
	el->w = xcalloc(el->nw + 1, sizeof(*el->w));
	el->nw = 0;
	for (size_t i = 0; i < el->n; i++)
		for (size_t m = 0; m < el->t[i].nmops; m++)
			if (!el->t[i].mops[m].read)
				el->w[el->nw++] = (struct writer){
					el->t[i].mops[m].value, i, m };
	qsort(el->w, el->nw, sizeof(*el->w), cmp_writer);
	for (size_t i = 1; i < el->nw; i++)
		if (el->w[i].value == el->w[i - 1].value) {
			char a[64], b[64];

			note(el, ELLE_DUP_APPEND, "%lld was appended twice: by "
			     "%s and by %s", (long long)el->w[i].value,
			     tname(el, el->w[i - 1].txn, a, sizeof(a)),
			     tname(el, el->w[i].txn, b, sizeof(b)));
		}
}

/* Every key; each one's version order, its longest ok read. */
static void orders(struct elle *el)
{
	size_t n = 0, k = 0;

	for (size_t i = 0; i < el->n; i++)
		n += el->t[i].nmops;
	el->keys = xcalloc(n + 1, sizeof(*el->keys));
	for (size_t i = 0; i < el->n; i++)
		for (size_t m = 0; m < el->t[i].nmops; m++)
			el->keys[k++] = el->t[i].mops[m].key;
	qsort(el->keys, k, sizeof(*el->keys), cmp_i64);
	for (size_t i = 0; i < k; i++)
		if (!el->nkeys || el->keys[el->nkeys - 1] != el->keys[i])
			el->keys[el->nkeys++] = el->keys[i];
	el->r->keys = el->nkeys;
	el->order = xcalloc(el->nkeys + 1, sizeof(*el->order));
	el->norder = xcalloc(el->nkeys + 1, sizeof(*el->norder));
	for (size_t i = 0; i < el->n; i++) {
		if (el->t[i].status != ELLE_OK)
			continue;
		for (size_t m = 0; m < el->t[i].nmops; m++) {
			const struct elle_mop *op = &el->t[i].mops[m];
			size_t ki = key_index(el, op->key);

			if (op->read && (op->nlist > el->norder[ki] ||
					 !el->order[ki])) {
				el->order[ki] = op->list;
				el->norder[ki] = op->nlist;
			}
		}
	}
}

/* Each value of each order: where it stands, and who wrote it. */
static void positions(struct elle *el)
{
	for (size_t k = 0; k < el->nkeys; k++)
		el->nvp += el->norder[k];
	el->vp = xcalloc(el->nvp + 1, sizeof(*el->vp));
	el->nvp = 0;
	for (size_t k = 0; k < el->nkeys; k++)
		for (size_t p = 0; p < el->norder[k]; p++)
			el->vp[el->nvp++] = (struct vpos){ el->order[k][p], k,
							   p };
	qsort(el->vp, el->nvp, sizeof(*el->vp), cmp_vpos);
	for (size_t i = 0; i < el->nvp; i++) {
		const struct vpos *v = &el->vp[i];
		const struct writer *w = writer_of(el, v->value);
		long long key = (long long)el->keys[v->key];
		char a[64];

		if (i && el->vp[i - 1].value == v->value)
			note(el, ELLE_DUPLICATE, "key %lld: %lld is in its "
			     "version order twice%s", key,
			     (long long)v->value, el->vp[i - 1].key == v->key
			     ? "" : " (and in another key's)");
		else if (!w || el->t[w->txn].mops[w->mop].key !=
			 el->keys[v->key])
			note(el, ELLE_GARBAGE, "key %lld: %lld was read, and "
			     "no transaction appended it to that key", key,
			     (long long)v->value);
		else if (el->t[w->txn].status == ELLE_FAIL)
			note(el, ELLE_G1A, "key %lld: %lld was read, appended "
			     "by %s, which failed (aborted read)", key,
			     (long long)v->value,
			     tname(el, w->txn, a, sizeof(a)));
	}
}

static void add_edge(struct elle *el, size_t from, size_t to,
		     enum edge_kind kind, int64_t key, int64_t value)
{
	if (from == to)
		return;
	if (el->ne == el->ecap) {
		el->ecap = el->ecap ? el->ecap * 2 : 256;
		el->e = xrealloc(el->e, el->ecap * sizeof(*el->e));
	}
	el->e[el->ne++] = (struct edge){ from, to, kind, key, value };
}

/* A read `op` of transaction `i` against its key's version order: a
 * prefix of it, else incompatible; its edges; G1b of its last element. */
static void one_read(struct elle *el, size_t i, const struct elle_mop *op)
{
	size_t k = key_index(el, op->key);
	const int64_t *order = el->order[k];
	const struct writer *w;
	char a[64], b[64], l1[160], l2[160];

	for (size_t p = 0; p < op->nlist; p++)
		if (p >= el->norder[k] || order[p] != op->list[p]) {
			list_text(l1, sizeof(l1), op->list, op->nlist);
			list_text(l2, sizeof(l2), order, el->norder[k]);
			note(el, ELLE_INCOMPATIBLE, "key %lld: %s read %s, not "
			     "a prefix of the longest read %s",
			     (long long)op->key, tname(el, i, a, sizeof(a)),
			     l1, l2);
			return;
		}
	if (op->nlist && (w = writer_of(el, op->list[op->nlist - 1]))) {
		const struct elle_txn *wt = &el->t[w->txn];

		add_edge(el, w->txn, i, WR, op->key, op->list[op->nlist - 1]);
		for (size_t m = w->mop + 1; w->txn != i && m < wt->nmops; m++)
			if (!wt->mops[m].read && wt->mops[m].key == op->key) {
				note(el, ELLE_G1B, "key %lld: %s read up to "
				     "%lld, which %s appended before it "
				     "appended %lld (intermediate read)",
				     (long long)op->key,
				     tname(el, i, a, sizeof(a)),
				     (long long)op->list[op->nlist - 1],
				     tname(el, w->txn, b, sizeof(b)),
				     (long long)wt->mops[m].value);
				break;
			}
	}
	if (op->nlist < el->norder[k] &&
	    (w = writer_of(el, order[op->nlist])))
		add_edge(el, i, w->txn, RW, op->key, order[op->nlist]);
}

/*
 * A transaction's reads against its own earlier read and appends of the
 * same key: a read shows the earlier one whole, then exactly the
 * appends made since (internal consistency).
 */
static void internal(struct elle *el, size_t i)
{
	const struct elle_txn *t = &el->t[i];
	char a[64], l[160];

	for (size_t m = 0; m < t->nmops; m++) {
		const struct elle_mop *op = &t->mops[m], *prior = NULL;
		size_t start = 0, own = 0, j;
		int bad;

		if (!op->read)
			continue;
		for (size_t p = 0; p < m; p++)
			if (t->mops[p].read && t->mops[p].key == op->key) {
				prior = &t->mops[p];
				start = p + 1;
			}
		for (size_t p = start; p < m; p++)
			own += !t->mops[p].read && t->mops[p].key == op->key;
		/* The earlier read whole first; the own appends since last
		 * (others' may stand between, as read committed lets them). */
		bad = op->nlist < own + (prior ? prior->nlist : 0);
		j = op->nlist - own;
		for (size_t p = start; !bad && p < m; p++)
			if (!t->mops[p].read && t->mops[p].key == op->key)
				bad = op->list[j++] != t->mops[p].value;
		for (size_t q = 0; !bad && prior && q < prior->nlist; q++)
			bad = op->list[q] != prior->list[q];
		if (!bad)
			continue;
		list_text(l, sizeof(l), op->list, op->nlist);
		note(el, ELLE_INTERNAL, "key %lld: %s read %s, which "
		     "contradicts its own %s%s", (long long)op->key,
		     tname(el, i, a, sizeof(a)), l, prior ? "earlier read"
		     : "appends", prior && own ? " and appends" : "");
	}
}

/* The ok appends that an ok read begun after their commit missed. */
static void lost(struct elle *el)
{
	for (size_t i = 0; i < el->n; i++) {
		const struct elle_txn *t = &el->t[i];

		if (t->status != ELLE_OK || t->complete < 0)
			continue;
		for (size_t m = 0; m < t->nmops; m++) {
			const struct elle_mop *op = &t->mops[m];
			size_t k;
			char a[64], b[64];

			if (op->read || vpos_of(el, op->value))
				continue;
			k = key_index(el, op->key);
			for (size_t j = 0; j < el->n; j++) {
				const struct elle_txn *r = &el->t[j];
				int reads = 0;

				for (size_t q = 0; q < r->nmops; q++)
					reads |= r->mops[q].read &&
						 r->mops[q].key == op->key;
				if (r->status != ELLE_OK || !reads ||
				    r->invoke <= t->complete)
					continue;
				note(el, ELLE_LOST, "key %lld: %s appended "
				     "%lld and committed; %s, begun after, "
				     "read the key without it (%zu elements)",
				     (long long)op->key,
				     tname(el, i, a, sizeof(a)),
				     (long long)op->value,
				     tname(el, j, b, sizeof(b)),
				     el->norder[k]);
				break;
			}
		}
	}
}

/* ww edges: each element's writer before the next element's. */
static void ww_edges(struct elle *el)
{
	for (size_t k = 0; k < el->nkeys; k++)
		for (size_t p = 1; p < el->norder[k]; p++) {
			const struct writer *a = writer_of(el,
							   el->order[k][p - 1]);
			const struct writer *b = writer_of(el, el->order[k][p]);

			if (a && b)
				add_edge(el, a->txn, b->txn, WW, el->keys[k],
					 el->order[k][p]);
		}
}

static int cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	return (x->from > y->from) - (x->from < y->from);
}

/* The graph's out-edges by transaction (e sorted by `from`). */
static void index_edges(struct elle *el)
{
	if (el->ne)
		qsort(el->e, el->ne, sizeof(*el->e), cmp_edge);
	el->first = xcalloc(el->n + 2, sizeof(*el->first));
	for (size_t i = 0; i < el->ne; i++)
		el->first[el->e[i].from + 1]++;
	for (size_t i = 0; i < el->n; i++)
		el->first[i + 1] += el->first[i];
}

/*
 * The strongly connected components (Tarjan's algorithm without
 * recursion): el->comp[i] each transaction's; returns how many.
 */
static size_t components(struct elle *el)
{
	size_t n = el->n, ncomp = 0, idx = 0, sp = 0, cp = 0;
	size_t *index = xcalloc(n + 1, sizeof(*index));
	size_t *low = xcalloc(n + 1, sizeof(*low));
	size_t *stack = xcalloc(n + 1, sizeof(*stack));
	size_t *call = xcalloc(n + 1, sizeof(*call));	/* node */
	size_t *next = xcalloc(n + 1, sizeof(*next));	/* its edge */
	unsigned char *on = xcalloc(n + 1, 1);

	el->comp = xcalloc(n + 1, sizeof(*el->comp));
	for (size_t root = 0; root < n; root++) {
		if (index[root])
			continue;
		call[cp++] = root;
		index[root] = low[root] = ++idx;
		next[root] = el->first[root];
		stack[sp++] = root;
		on[root] = 1;
		while (cp) {
			size_t v = call[cp - 1];

			if (next[v] < el->first[v + 1]) {
				size_t w = el->e[next[v]++].to;

				if (!index[w]) {
					index[w] = low[w] = ++idx;
					next[w] = el->first[w];
					stack[sp++] = w;
					on[w] = 1;
					call[cp++] = w;
				} else if (on[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			cp--;
			if (cp && low[v] < low[call[cp - 1]])
				low[call[cp - 1]] = low[v];
			if (low[v] != index[v])
				continue;
			for (size_t w;;) {
				w = stack[--sp];
				on[w] = 0;
				el->comp[w] = ncomp;
				if (w == v)
					break;
			}
			ncomp++;
		}
	}
	free(index);
	free(low);
	free(stack);
	free(call);
	free(next);
	free(on);
	return ncomp;
}

/* A breadth-first search's state, reused: a node is seen in this search
 * when its mark is the search's own. */
struct bfs {
	size_t *via;		/* the edge each node was reached by */
	size_t *queue;
	unsigned *mark;
	unsigned search;
	/* The nodes of each component: members[start[c]..start[c + 1]). */
	size_t *members, *start;
};

/*
 * The shortest path from `src` to `dst` over edges of `mask` (1 << kind)
 * inside component `comp`, its edges into path[] (reversed: from dst
 * back); returns its length, 0 when there is none.
 */
static size_t shortest(const struct elle *el, struct bfs *b, size_t src,
		       size_t dst, unsigned mask, size_t comp, size_t *path)
{
	size_t head = 0, tail = 0, len = 0;
	int found = 0;

	b->search++;
	b->queue[tail++] = src;
	b->mark[src] = b->search;
	while (head < tail && !found) {
		size_t v = b->queue[head++];

		for (size_t i = el->first[v]; i < el->first[v + 1]; i++) {
			size_t w = el->e[i].to;

			if (!(mask & (1u << el->e[i].kind)) ||
			    el->comp[w] != comp || b->mark[w] == b->search)
				continue;
			b->mark[w] = b->search;
			b->via[w] = i;
			if (w == dst) {
				found = 1;
				break;
			}
			b->queue[tail++] = w;
		}
	}
	if (!found)
		return 0;
	for (size_t v = dst; v != src; v = el->e[b->via[v]].from)
		path[len++] = b->via[v];
	return len;
}

/* "T1 -(ww key 3: 7 right after it)-> T2 ... -> T1" of a cycle. */
static void cycle_text(const struct elle *el, const size_t *cyc, size_t n,
		       struct buf *out)
{
	char a[64];

	buf_addstr(out, tname(el, el->e[cyc[0]].from, a, sizeof(a)), NULL);
	for (size_t i = 0; i < n; i++) {
		const struct edge *e = &el->e[cyc[i]];

		buf_printf(out, NULL, " -(%s key %lld: %s %lld)-> %s",
			   edge_names[e->kind], (long long)e->key,
			   e->kind == WW ? "appended after it, then"
			   : e->kind == WR ? "read up to its"
			   : "read without", (long long)e->value,
			   tname(el, e->to, a, sizeof(a)));
	}
}

/*
 * The shortest cycle through an edge of `through` (1 << kind) of
 * component `comp`, the rest over `rest`: into cyc[] in order, its
 * length returned (0: none). At most ELLE_MAX_STARTS edges tried.
 */
static size_t cycle_through(const struct elle *el, struct bfs *b, size_t comp,
			    unsigned through, unsigned rest, size_t *cyc,
			    size_t *tmp)
{
	size_t best = 0, tries = 0;

	for (size_t m = b->start[comp]; m < b->start[comp + 1] &&
	     tries < ELLE_MAX_STARTS; m++) {
		size_t v = b->members[m];

		for (size_t i = el->first[v]; i < el->first[v + 1] &&
		     tries < ELLE_MAX_STARTS; i++) {
			const struct edge *e = &el->e[i];
			size_t len;

			if (!(through & (1u << e->kind)) ||
			    el->comp[e->to] != comp)
				continue;
			tries++;
			len = shortest(el, b, e->to, e->from, rest, comp, tmp);
			if (!len || (best && len + 1 >= best))
				continue;
			best = len + 1;
			cyc[0] = i;
			for (size_t k = 0; k < len; k++)
				cyc[1 + k] = tmp[len - 1 - k];
		}
	}
	return best;
}

/*
 * Each component of more than one transaction holds a cycle: the worst
 * kind it has, its shortest cycle of that kind (G0 over ww alone, G1c
 * with a wr, G-single with one rw, else G2-item).
 */
static void cycles(struct elle *el, size_t ncomp)
{
	size_t *cyc = xcalloc(el->n + 2, sizeof(*cyc));
	size_t *tmp = xcalloc(el->n + 2, sizeof(*tmp));
	size_t *fill = xcalloc(ncomp + 1, sizeof(*fill));
	struct bfs b = { xcalloc(el->n + 1, sizeof(size_t)),
			 xcalloc(el->n + 1, sizeof(size_t)),
			 xcalloc(el->n + 1, sizeof(unsigned)), 0,
			 xcalloc(el->n + 1, sizeof(size_t)),
			 xcalloc(ncomp + 2, sizeof(size_t)) };

	for (size_t i = 0; i < el->n; i++)
		b.start[el->comp[i] + 1]++;
	for (size_t c = 0; c < ncomp; c++)
		b.start[c + 1] += b.start[c];
	for (size_t i = 0; i < el->n; i++)
		b.members[b.start[el->comp[i]] + fill[el->comp[i]]++] = i;
	for (size_t c = 0; c < ncomp; c++) {
		static const struct { enum elle_kind kind; unsigned through,
				      rest; } tries[] = {
			{ ELLE_G0, 1u << WW, 1u << WW },
			{ ELLE_G1C, 1u << WR, (1u << WW) | (1u << WR) },
			{ ELLE_G_SINGLE, 1u << RW, (1u << WW) | (1u << WR) },
			{ ELLE_G2_ITEM, 1u << RW, 7u },
		};
		size_t len = 0, t;
		enum elle_kind k;
		struct buf text = BUF_INIT;

		if (b.start[c + 1] - b.start[c] < 2)
			continue;
		for (t = 0; t < 4 && !len; t++)
			len = cycle_through(el, &b, c, tries[t].through,
					    tries[t].rest, cyc, tmp);
		if (!len)
			continue;
		k = tries[t - 1].kind;
		for (size_t i = 0; !el->r->count[k] && i < len &&
		     i < ELLE_CYCLE_MAX; i++) {
			struct elle_step *st = &el->r->cycle[k][i];
			const struct edge *e = &el->e[cyc[i]];

			tname(el, e->from, st->txn, sizeof(st->txn));
			st->edge = edge_names[e->kind];
			st->key = e->key;
			st->value = e->value;
		}
		if (!el->r->count[k])
			el->r->ncycle[k] = len;
		cycle_text(el, cyc, len, &text);
		note(el, k, "%s", buf_str(&text));
		buf_release(&text);
	}
	free(b.via);
	free(b.queue);
	free(b.mark);
	free(b.members);
	free(b.start);
	free(fill);
	free(cyc);
	free(tmp);
}

void elle_check(const struct elle_txn *txns, size_t n, struct elle_result *r)
{
	struct elle el = { 0 };
	size_t ncomp;

	memset(r, 0, sizeof(*r));
	for (int k = 0; k < ELLE_NKINDS; k++)
		r->first[k] = (struct buf)BUF_INIT;
	el.t = txns;
	el.n = n;
	el.r = r;
	/* The history's transactions: not a read the check made itself. */
	for (size_t i = 0; i < n; i++) {
		r->ok += txns[i].status == ELLE_OK && !txns[i].label;
		r->failed += txns[i].status == ELLE_FAIL && !txns[i].label;
		r->info += txns[i].status == ELLE_INFO && !txns[i].label;
	}
	writers(&el);
	orders(&el);
	positions(&el);
	for (size_t i = 0; i < n; i++) {
		if (txns[i].status != ELLE_OK)
			continue;
		for (size_t m = 0; m < txns[i].nmops; m++)
			if (txns[i].mops[m].read)
				one_read(&el, i, &txns[i].mops[m]);
		internal(&el, i);
	}
	lost(&el);
	ww_edges(&el);
	index_edges(&el);
	ncomp = components(&el);
	cycles(&el, ncomp);
	free(el.w);
	free(el.keys);
	free(el.order);
	free(el.norder);
	free(el.vp);
	free(el.e);
	free(el.first);
	free(el.comp);
}

void elle_result_release(struct elle_result *r)
{
	for (int k = 0; k < ELLE_NKINDS; k++)
		buf_release(&r->first[k]);
}
