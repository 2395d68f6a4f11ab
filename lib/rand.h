#ifndef TICHAOS_RAND_H
#define TICHAOS_RAND_H

/*
 * A seeded PRNG (xoshiro256**, seeded through splitmix64) so that one seed
 * reproduces a run. Not for secrets.
 *
 * A run draws its plan from one generator; each thread gets its own with
 * rand_split(), which derives a child from the parent's stream: the same
 * parent state and the same order of splits give the same children.
 */

#include <stddef.h>
#include <stdint.h>

struct rand {
	uint64_t s[4];
};

/* Seed a generator. Any seed (0 included) gives a valid state. */
void rand_seed(struct rand *r, uint64_t seed);

/* Next 64 random bits. */
uint64_t rand_next(struct rand *r);

/* Uniform in [0, n) without modulo bias; 0 when n is 0. */
uint64_t rand_below(struct rand *r, uint64_t n);

/*
 * A partial Fisher-Yates shuffle of the `n` elements of `size` bytes at
 * `base`: the first `k` (at most n) become a uniform draw of k of them,
 * one rand_below per position, so a seed draws the same ones again.
 */
void rand_shuffle(struct rand *r, void *base, size_t n, size_t k,
		  size_t size);

/* Uniform in [0, 1). */
double rand_double(struct rand *r);

/* Seed `child` from `parent`, advancing the parent. */
void rand_split(struct rand *parent, struct rand *child);

/*
 * A fresh seed from the system (getrandom, else time and pid), in
 * [1, 10^12): short enough to read back and pass as --seed.
 */
uint64_t rand_fresh_seed(void);

/*
 * The seed of the i-th of a series of runs from `base` (tichaos run
 * --repeat): `base` itself for i = 1; for i > 1 the (i-1)-th output of
 * splitmix64 started at `base` (x = base + (i-1) * 0x9e3779b97f4a7c15,
 * mixed), modulo 10^12, and 1 in place of 0: in [1, 10^12) like a fresh
 * seed. The same base gives the same series; i = 0 is taken as 1.
 */
uint64_t rand_series_seed(uint64_t base, uint64_t i);

#endif
