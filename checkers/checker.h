#ifndef TICHAOS_CHECKER_H
#define TICHAOS_CHECKER_H

/*
 * Checkers: what turns a run into a verdict (docs/checkers.md). A checker
 * kind is a const struct checker_type registered in checkers/registry.c;
 * callers go through checker_run(), which times the check and fills in the
 * verdict's name.
 *
 * History checkers (ids) read only the run directory, so `tichaos check
 * RUN_DIR` works offline; live checkers (consistency, progress) need the
 * cluster and are skipped — verdict skip, with the reason — without it.
 */

#include <stddef.h>
#include <stdint.h>

#include "core/figure.h"
#include "core/kind.h"
#include "core/suite.h"
#include "lib/buf.h"
#include "lib/err.h"

struct cancel;
struct cluster;
struct suite;
struct suite_item;

enum verdict {
	VERDICT_PASS,
	VERDICT_FAIL,
	VERDICT_UNKNOWN,	/* could not decide: reported as a failure */
	VERDICT_SKIP,
};

/* "pass", "fail", "unknown", "skip". */
const char *verdict_name(enum verdict v);

struct check_result {
	enum verdict verdict;
	/* One line for TAP and the summary: what was found. */
	char message[512];
	/*
	 * JSON object members (no braces) with the details a report shows:
	 * counts, first keys or ids, pairs of operations, hits. Written by
	 * the checker, valid JSON once wrapped in braces.
	 */
	struct buf details;
	/* Key numbers for summary.txt, "missing=7 extra=2". */
	char numbers[256];
	int64_t took_ns;
};

/* What a checker works with; filled by the runner or `tichaos check`. */
struct check_ctx {
	const struct suite *suite;
	/* The cluster, when it is up; NULL offline. */
	struct cluster *cluster;
	/* The run directory: history.jsonl, logs/, fix-sql/ are in it. */
	const char *run_dir;
	/* The SQL dialect of the upstream (enum dialect), -1 offline. */
	int dialect;
	/* MAY: the run's token (lib/cancel.h); at CANCEL_HURRY (^C) long
	 * waits end early (verdict unknown, "interrupted"). */
	const struct cancel *cancel;
};

/* Non-zero when the check should give up waiting. */
int check_interrupted(const struct check_ctx *ctx);

struct checker_type {
	/* Name, doc, options, and the core's `check` hook. */
	struct kind kind;
	/* Non-zero: needs ctx->cluster; skipped without it. */
	int live;
	/*
	 * MUST: judge, filling `r` (verdict, message, details, numbers).
	 * Returns 0 when a verdict was reached — pass, fail, unknown or
	 * skip — and -1 with `e` set only when the checker itself broke
	 * (then the verdict is unknown with that reason).
	 */
	int (*run)(const struct check_ctx *ctx, const struct suite_item *it,
		   struct check_result *r, struct err *e);
	/*
	 * MAY: draw on report.html what a failed verdict's details show
	 * better drawn than printed (core/figure.h); the report asks it
	 * through checker_drawers().
	 */
	figure_draw *draw;
};

/* The checker kind of item `it`. */
static inline const struct checker_type *
checker_type_of(const struct suite_item *it)
{
	return (const struct checker_type *)it->type;
}

/* Every checker kind, NULL-terminated. */
extern const struct checker_type *const checker_types[];

/* Every checker kind that draws, as the reports take them (struct
 * report_run.drawers): ended by one whose kind is NULL. */
const struct figure_drawer *checker_drawers(void);

/* The i-th checker kind, NULL past the end. */
const struct kind *checker_kind(size_t i);

/*
 * Run check item `it` into `r` (initialised here; the caller releases it
 * with check_result_release). A live checker without a cluster is skipped;
 * a checker that broke gives verdict unknown with the reason.
 */
void checker_run(const struct check_ctx *ctx, const struct suite_item *it,
		 struct check_result *r);

void check_result_release(struct check_result *r);

/*
 * Fill r's verdict and message (printf-style): one line, well-formed UTF-8
 * (any other byte becomes '?'), truncated to fit.
 */
void check_verdict(struct check_result *r, enum verdict v, const char *fmt,
		   ...) __attribute__((format(printf, 3, 4)));

#endif
