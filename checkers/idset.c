/*
 * A set of ids, a bitmap while dense and a hash set once not
 * (checkers/idset.h).
 */
#include <stdlib.h>
#include <string.h>

#include "checkers/idset.h"
#include "lib/buf.h"

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
int idset_add(struct idset *s, int64_t id)
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

void idset_release(struct idset *s)
{
	free(s->bits);
	free(s->slots);
	memset(s, 0, sizeof(*s));
}
