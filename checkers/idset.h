#ifndef TICHAOS_IDSET_H
#define TICHAOS_IDSET_H

/*
 * A set of ids (checkers/idset.c), for the ids check's `unique`: every
 * int64 an id, INT64_MIN and 0 among them. While the ids are dense, as
 * auto-increment hands them out, a bitmap over the words they fall in;
 * once a bitmap would take more than four words an id (past the first
 * 1024 words), a hash set, for good. Memory grows with the ids' range
 * while dense and with their number after, never with how often one is
 * added. A zeroed struct is an empty set.
 */

#include <stddef.h>
#include <stdint.h>

/*
 * Each id as an unsigned number in the same order: a bitmap over the
 * words [first, first + nwords) while dense, a hash set (open
 * addressing, 0 empty) once sparse. Read n and sparse; the rest is the
 * set's.
 */
struct idset {
	uint64_t *bits;
	uint64_t first;
	size_t nwords;
	uint64_t *slots;
	size_t nslots;
	int sparse;
	int has_zero;		/* the hash set holds 0 */
	size_t n;		/* ids in the set */
};

/* Add `id`: 1 when it was there already, 0 when it is new. */
int idset_add(struct idset *s, int64_t id);

/* Free what the set holds; it is empty again. */
void idset_release(struct idset *s);

#endif
