#ifndef TICHAOS_DISKMODE_H
#define TICHAOS_DISKMODE_H

/*
 * What tichaos-diskfs (diskfs/main.c) does to each read, write and sync
 * while a fault is on: nothing, fail a share of them with EIO, fail
 * every write with ENOSPC (a full disk), or delay each of them. Set by
 * one control line at a time; each operation asks diskmode_op what to
 * do, and every operation is counted, so that what the mode did can be
 * said exactly when it ends.
 *
 * Control lines (one, no trailing blanks; KINDS a comma list of read,
 * write, fsync):
 *
 *	off
 *	error PERCENT KINDS SEED	PERCENT (0 to 100, decimals allowed)
 *					of the operations of KINDS fail
 *					with EIO, drawn from SEED
 *	full				every write fails with ENOSPC, and
 *					the file system shows no free space
 *	slow DELAY_NS KINDS		each operation of KINDS waits
 *					DELAY_NS nanoseconds first
 *
 * Thread-safe: FUSE serves operations on several threads.
 */

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"

enum diskop { DISKOP_READ, DISKOP_WRITE, DISKOP_FSYNC, DISKOP_N };

enum diskmode_what { DISKMODE_OFF, DISKMODE_ERROR, DISKMODE_FULL,
		     DISKMODE_SLOW };

struct diskmode {
	pthread_mutex_t lock;
	enum diskmode_what what;
	unsigned kinds;		/* a bit per enum diskop */
	double percent;
	uint64_t rng;
	int64_t delay_ns;
	char line[128];		/* the control line in force */
	/* Since the mode was set: operations seen, failed, time waited. */
	unsigned long long ops[DISKOP_N], failed[DISKOP_N];
	int64_t waited_ns[DISKOP_N];
};

void diskmode_init(struct diskmode *m);

/*
 * Parse `line` without setting anything: 0, or -1 with why in `why`.
 * Its parts into the out parameters that are not NULL.
 */
int diskmode_parse(const char *line, enum diskmode_what *what,
		   unsigned *kinds, double *percent, uint64_t *seed,
		   int64_t *delay_ns, char *why, size_t size);

/*
 * Set the mode `line` says. Appended to `reply`: what the mode that ends
 * did, "ops read N FAILED WAITED_NS write N FAILED WAITED_NS fsync N
 * FAILED WAITED_NS\n", then "mode LINE\n"; or, when `line` is not one,
 * only "mode-error LINE: WHY\n" (the mode in force stays).
 */
void diskmode_set(struct diskmode *m, const char *line, struct buf *reply);

/*
 * An operation of kind `k` begins: counted; 0 to go on, or the -errno it
 * fails with. *delay_ns: how long it waits first (0: not at all); the
 * caller waits, then says how long it really waited (diskmode_waited).
 */
int diskmode_op(struct diskmode *m, enum diskop k, int64_t *delay_ns);

void diskmode_waited(struct diskmode *m, enum diskop k, int64_t ns);

/* Whether the disk is full now (statfs shows no free blocks). */
int diskmode_full(struct diskmode *m);

#endif
