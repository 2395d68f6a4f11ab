#ifndef TICHAOS_HIST_H
#define TICHAOS_HIST_H

/*
 * Latency histograms, HDR style: log-linear buckets (16 per power of
 * two, so a value is known within 1/16) over microseconds up to about an
 * hour. Recording is one array increment; each worker thread keeps its
 * own, one per second of the run, merged when the run is over — so
 * measuring costs the workload nothing it would notice.
 */

#include <stdint.h>

#define HIST_SUB 16
#define HIST_SUB_BITS 4	/* log2(HIST_SUB) */
#define HIST_BUCKETS (HIST_SUB * 33)

struct hist {
	uint32_t counts[HIST_BUCKETS];
};

/* Record one latency. */
void hist_add(struct hist *h, int64_t ns);

/* Add every count of `from` to `into`. */
void hist_merge(struct hist *into, const struct hist *from);

/* Values recorded. */
uint64_t hist_count(const struct hist *h);

/*
 * The q-quantile (0 < q <= 1) in nanoseconds: the upper edge of the bucket
 * holding it (at most 1/16 above the true value). 0 for an empty
 * histogram.
 */
int64_t hist_quantile(const struct hist *h, double q);

#endif
