/*
 * Interned strings (lib/intern.h).
 */
#include "lib/intern.h"

#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static void grow(struct intern *t)
{
	size_t nslots = t->nslots ? t->nslots * 2 : 64;
	uint32_t *slots = xcalloc(nslots, sizeof(*slots));

	for (size_t i = 0; i < t->n; i++) {
		size_t k = hash_str(t->v[i]) & (nslots - 1);

		while (slots[k])
			k = (k + 1) & (nslots - 1);
		slots[k] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = nslots;
}

uint32_t intern_add(struct intern *t, const char *s, int *added)
{
	size_t k;

	*added = 0;
	if ((t->n + 1) * 2 > t->nslots)
		grow(t);
	k = hash_str(s) & (t->nslots - 1);
	for (; t->slots[k]; k = (k + 1) & (t->nslots - 1))
		if (!strcmp(t->v[t->slots[k] - 1], s))
			return t->slots[k] - 1;
	if (t->n >= INTERN_NONE - 1)
		return INTERN_NONE;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->v = xrealloc(t->v, t->cap * sizeof(*t->v));
	}
	t->v[t->n] = xstrdup(s);
	t->slots[k] = (uint32_t)++t->n;
	*added = 1;
	return (uint32_t)t->n - 1;
}

void intern_release(struct intern *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
