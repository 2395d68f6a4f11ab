#ifndef TICHAOS_POINTS_H
#define TICHAOS_POINTS_H

/*
 * The operations of a workload one by one, for report.html's point plot
 * of a workload too slow for rates a second to mean anything (a DDL
 * workload's one a second): each completion at its time, with its
 * latency from its invoke and its outcome (Jepsen's latency-point plot,
 * jepsen/src/jepsen/checker/perf.clj). Read from history.jsonl.
 */

#include <stddef.h>
#include <stdint.h>

/* Points kept for one workload at the most; the rest are counted. */
#define POINTS_MAX 20000

struct op_point {
	double at;		/* its completion, seconds from the start */
	double ms;		/* from its invoke */
	char type;		/* 'o' ok, 'f' fail, 'i' info */
	char *what;		/* "truncate db.p: ok, 12.3 ms"; the error */
};

/* One workload's points: its processes first..last (results.json). */
struct op_points {
	int64_t first, last;
	struct op_point *v;
	size_t n, cap, left_out;
};

/*
 * Read the completions of every workload of `w` (n of them, each with
 * its process range set) from the history at `path`, in one pass.
 * A history that cannot be read leaves them empty.
 */
void points_read(struct op_points *w, size_t n, const char *path);

void points_release(struct op_points *w, size_t n);

#endif
