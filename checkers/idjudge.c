/*
 * The ids check's judge: each table's largest id, violations and
 * duplicates as the history is read, and what is found at the end
 * (checkers/idjudge.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/idjudge.h"
#include "lib/buf.h"

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
	const struct idop *a = pa, *b = pb;

	if (a->complete != b->complete)
		return a->complete < b->complete ? -1 : 1;
	if (a->invoke != b->invoke)
		return a->invoke < b->invoke ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

/* Violations by B: invoke, completion, line. */
static int cmp_pair(const void *pa, const void *pb)
{
	const struct idop *a = &((const struct idpair *)pa)->b;
	const struct idop *b = &((const struct idpair *)pb)->b;

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

static int cmp_dup_id(const void *pa, const void *pb)
{
	const struct iddup *a = *(const struct iddup *const *)pa;
	const struct iddup *b = *(const struct iddup *const *)pb;

	if (a->table != b->table)
		return a->table < b->table ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

static int cmp_name(const void *pa, const void *pb, void *arg)
{
	char **v = arg;

	return strcmp(v[*(const uint32_t *)pa], v[*(const uint32_t *)pb]);
}

/* ---- a table, as the history is read ----------------------------------- */

void idtable_completed(struct idtable *m, const struct idop *a,
		       const struct idop *b, size_t max_report)
{
	if (m->excluded)
		return;
	if (a && b->id <= a->id) {
		struct idpair p = { *a, *b };

		if (!m->first)
			m->first = xmalloc(max_report * sizeof(*m->first));
		m->violations++;
		keep_smallest(m->first, &m->nfirst, max_report, sizeof(p), &p,
			      cmp_pair);
	}
	if (!m->has_best || b->id > m->best.id) {
		m->best = *b;
		m->has_best = 1;
	}
}

void idtable_seen(struct idtable *m, int64_t id, size_t max_report)
{
	if (!idset_add(&m->seen, id) || idset_add(&m->twice, id))
		return;
	m->duplicates++;
	if (!m->dup_ids)
		m->dup_ids = xmalloc(max_report * sizeof(*m->dup_ids));
	keep_smallest(m->dup_ids, &m->ndup_ids, max_report, sizeof(id), &id,
		      cmp_id);
}

void idtable_forget(struct idtable *m)
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

void idtable_exclude(struct idtable *m, const char *op, const char *how,
		     int64_t at)
{
	if (!m->excluded)
		idtable_forget(m);
	if (!m->excluded || at < m->at) {
		m->excluded = 1;
		m->because = op;
		m->how = how;
		m->at = at;
	}
}

/* ---- what is found at the end ------------------------------------------ */

void idjudge_prepare(struct idjudging *j)
{
	j->order = xmalloc((j->ntables + 1) * sizeof(*j->order));
	for (size_t i = 0; i < j->ntables; i++)
		j->order[i] = (uint32_t)i;
	qsort_r(j->order, j->ntables, sizeof(*j->order), cmp_name,
		j->tables);
	for (size_t i = 0; i < j->ntables; i++) {
		const struct idtable *m = &j->tmeta[i];

		if (!m->inserts)
			continue;
		if (m->excluded) {
			j->nexcluded++;
		} else {
			j->checked++;
			j->nops += m->inserts;
			j->refused += m->refused;
		}
	}
	idevents_sort(j->events);
}

void idjudge_violations(struct idjudging *j)
{
	size_t n = 0;

	for (size_t i = 0; i < j->ntables; i++)
		if (!j->tmeta[i].excluded)
			n += j->tmeta[i].nfirst;
	j->pairs = xmalloc((n + 1) * sizeof(*j->pairs));
	for (size_t i = 0; i < j->ntables; i++) {
		const struct idtable *m = &j->tmeta[i];

		if (m->excluded)
			continue;
		j->violations += m->violations;
		if (m->nfirst)
			memcpy(j->pairs + j->npairs, m->first,
			       m->nfirst * sizeof(*m->first));
		j->npairs += m->nfirst;
	}
	qsort(j->pairs, j->npairs, sizeof(*j->pairs), cmp_pair);
	if (j->npairs > j->max_report)
		j->npairs = j->max_report;
}

size_t idjudge_duplicates(struct idjudging *j)
{
	j->dups = xcalloc(j->max_report, sizeof(*j->dups));
	for (size_t i = 0; i < j->ntables; i++) {
		struct idtable *m = &j->tmeta[j->order[i]];

		if (m->excluded)
			continue;
		j->duplicates += m->duplicates;
		if (m->ndup_ids)
			qsort(m->dup_ids, m->ndup_ids, sizeof(*m->dup_ids),
			      cmp_id);
		for (size_t k = 0; k < m->ndup_ids && j->ndups <
		     j->max_report; k++)
			j->dups[j->ndups++] = (struct iddup){
				j->order[i], m->dup_ids[k], 0, { { 0 } }, 0 };
	}
	if (!j->ndups)
		return 0;
	j->dups_by_id = xmalloc(j->ndups * sizeof(*j->dups_by_id));
	for (size_t i = 0; i < j->ndups; i++)
		j->dups_by_id[i] = &j->dups[i];
	qsort(j->dups_by_id, j->ndups, sizeof(*j->dups_by_id), cmp_dup_id);
	return j->ndups;
}

void idjudge_evidence(struct idjudging *j, const struct idop *op)
{
	struct iddup key = { op->table, op->id, 0, { { 0 } }, 0 }, *k = &key;
	struct iddup **d = bsearch(&k, j->dups_by_id, j->ndups,
				   sizeof(*j->dups_by_id), cmp_dup_id);

	if (!d)
		return;
	(*d)->count++;
	keep_smallest((*d)->ops, &(*d)->nops, IDJUDGE_DUP_OPS, sizeof(*op),
		      op, cmp_op);
}

void idjudge_evidence_done(struct idjudging *j)
{
	for (size_t i = 0; i < j->ndups; i++)
		qsort(j->dups[i].ops, j->dups[i].nops, sizeof(struct idop),
		      cmp_op);
}

void idjudge_release(struct idjudging *j)
{
	free(j->order);
	free(j->pairs);
	free(j->dups);
	free(j->dups_by_id);
	j->order = NULL;
	j->pairs = NULL;
	j->dups = NULL;
	j->dups_by_id = NULL;
	j->npairs = j->ndups = 0;
}

int idjudge_refused_id(const char *error, int64_t *id)
{
	static const char entry[] = "Duplicate entry '";
	const char *p = error ? strstr(error, entry) : NULL, *key;
	char *end;
	long long v;

	if (!p || !strstr(error, "(1062)"))
		return 0;
	p += sizeof(entry) - 1;
	if (*p != '-' && (*p < '0' || *p > '9'))
		return 0;
	errno = 0;
	v = strtoll(p, &end, 10);
	if (errno || strncmp(end, "' for key '", 11))
		return 0;
	key = end + 11;
	end = strchr(key, '\'');
	if (!end || (size_t)(end - key) < 7 ||
	    strncmp(end - 7, "PRIMARY", 7) ||
	    (end - key > 7 && end[-8] != '.'))
		return 0;
	*id = v;
	return 1;
}
