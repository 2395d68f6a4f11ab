#ifndef TICHAOS_INTERN_H
#define TICHAOS_INTERN_H

/*
 * Interned strings: each distinct string once, named by a dense index
 * (0, 1, 2, ...), for readers of large histories that keep a number per
 * record instead of a string (the ids check's tables and nodes).
 * Open addressing on an FNV-1a hash; the strings are copies, stable until
 * intern_release.
 */

#include <stddef.h>
#include <stdint.h>

#define INTERN_NONE UINT32_MAX

struct intern {
	char **v;		/* v[index]: the string */
	size_t n, cap;
	uint32_t *slots;	/* index + 1; 0 empty */
	size_t nslots;
};

#define INTERN_INIT { NULL, 0, 0, NULL, 0 }

/*
 * The index of `s`, added when new (*added set to 1, else 0);
 * INTERN_NONE only past UINT32_MAX - 1 strings.
 */
uint32_t intern_add(struct intern *t, const char *s, int *added);

void intern_release(struct intern *t);

#endif
