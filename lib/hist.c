#include "hist.h"

/* The bucket of `us` microseconds: exact below HIST_SUB, then HIST_SUB
 * buckets per power of two. */
static int bucket(uint64_t us)
{
	int e;

	if (us < HIST_SUB)
		return (int)us;
	/* The shift that brings us into [HIST_SUB, 2 * HIST_SUB): its top
	 * bit's position less log2(HIST_SUB), found in one instruction (a
	 * latency is recorded at every operation). */
	e = 63 - __builtin_clzll(us) - HIST_SUB_BITS;
	if (e + 1 >= HIST_BUCKETS / HIST_SUB)
		return HIST_BUCKETS - 1;
	return (e + 1) * HIST_SUB + (int)((us >> e) - HIST_SUB);
}

/* The largest microsecond value in bucket `b`. */
static uint64_t upper(int b)
{
	int e = b / HIST_SUB - 1, sub = b % HIST_SUB;

	if (b < HIST_SUB)
		return (uint64_t)b;
	return (((uint64_t)(HIST_SUB + sub) + 1) << e) - 1;
}

void hist_add(struct hist *h, int64_t ns)
{
	h->counts[bucket(ns > 0 ? (uint64_t)ns / 1000 : 0)]++;
}

void hist_merge(struct hist *into, const struct hist *from)
{
	for (int b = 0; b < HIST_BUCKETS; b++)
		into->counts[b] += from->counts[b];
}

uint64_t hist_count(const struct hist *h)
{
	uint64_t n = 0;

	for (int b = 0; b < HIST_BUCKETS; b++)
		n += h->counts[b];
	return n;
}

int64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t total = hist_count(h), want, seen = 0;

	if (!total)
		return 0;
	want = (uint64_t)(q * (double)total + 0.999999);
	if (want < 1)
		want = 1;
	for (int b = 0; b < HIST_BUCKETS; b++) {
		seen += h->counts[b];
		if (seen >= want)
			return (int64_t)upper(b) * 1000;
	}
	return (int64_t)upper(HIST_BUCKETS - 1) * 1000;
}
