/*
 * The kind contract (core/kind.h).
 */
#include "core/kind.h"

#include <string.h>

const struct kind *kind_find(kind_nth_fn nth, const char *name)
{
	const struct kind *k;

	for (size_t i = 0; (k = nth(i)); i++)
		if (!strcmp(k->name, name))
			return k;
	return NULL;
}

int kind_refuses(const struct kind *k, const char *key)
{
	for (size_t i = 0; k->refuse && k->refuse[i]; i++)
		if (!strcmp(k->refuse[i], key))
			return 1;
	return 0;
}
