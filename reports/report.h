#ifndef TICHAOS_REPORT_H
#define TICHAOS_REPORT_H

/*
 * Reports of a run (docs/results.md), every one built from results.json
 * (docs/results.md) — plus history.jsonl for the HTML timeline — so that
 * `tichaos report RUN_DIR` rebuilds byte for byte what the run wrote.
 *
 * results.json holds, for every workload, fault and check of the suite, an
 * item with "name", "verdict" (pass, fail, unknown, error, skip),
 * "summary" (the line's text), "message" (the diagnostic of a failure) and
 * "skip" (why it was skipped); a check the suite's expect: entries name
 * may have "known" (the note of the expected failure it is: it fails
 * nothing) or "unmet" (an expected failure that did not occur).
 */

#include <jansson.h>
#include <stdint.h>

#include "lib/buf.h"
#include "lib/err.h"

struct fault_holds;
struct figure_drawer;

/* What a report is built from. */
struct report_run {
	const json_t *results;
	const char *run_dir;
	/*
	 * The ways the fault kinds hold components (core/held.h),
	 * NULL-terminated: what the history's "holds" name. The runner
	 * hands every kind's (faults/fault.h, fault_holds_all).
	 */
	const struct fault_holds *const *holds;
	/*
	 * MAY: the check kinds that draw their part of report.html
	 * (core/figure.h), ended by one whose kind is NULL; the runner
	 * hands every kind's (checkers/checker.h, checker_drawers).
	 */
	const struct figure_drawer *drawers;
};

struct report_type {
	const char *name;	/* "tap", "junit", ... */
	const char *file;	/* in the run directory */
	const char *doc;
	/* MUST: the report of run->results (of the run in run->run_dir). */
	int (*build)(const struct report_run *run, struct buf *out,
		     struct err *e);
};

/* Every report, NULL-terminated (reports/registry.c). */
extern const struct report_type *const report_types[];

/*
 * The sections of results.json that hold items, in the order reports
 * show and number them: "workloads", "faults", "checks", "exits" (the
 * processes that ended on their own; docs/results.md). NULL-terminated.
 */
extern const char *const results_sections[];

/* The exit code the results call for (docs/internals.md, Rules). */
int results_exit_code(const json_t *results);

/*
 * The "exits" item of a component whose process ended on its own
 * `exits` times (clusters/cluster.h, the exit watch), the first at
 * `first_ns` since the run started, with that record's `value` (its
 * JSON: "pid", "last_line", "now"): verdict "fail", its message that
 * last line.
 */
json_t *results_exit_item(const char *component, int exits,
			  int64_t first_ns, const char *value);

/*
 * An item's verdict as reports show it: "known" for a failure the suite
 * declared (its "known" note, from expect:), else its "verdict".
 */
const char *results_item_verdict(const json_t *item);

/*
 * The verdicts of a check item besides its own (its "rechecks": those of
 * `tichaos check` kept beside the recorded one, or the one a failure
 * found later replaced; docs/results.md), one line each appended to
 * `out`, each after `prefix` and ended by `end`.
 */
void results_rechecks_text(const json_t *item, const char *prefix,
			   const char *end, struct buf *out);

/* The top-level verdict for that exit code: pass, fail, error, ... */
const char *results_verdict(const json_t *results);

/*
 * The TAP stream (version 13 syntax, readable by TAP 14 parsers) of the
 * items of `sections` (results_sections, or some of them;
 * NULL-terminated), numbered in that order.
 */
int report_tap_sections(const json_t *results, const char *const *sections,
			struct buf *out, struct err *e);

/* Build every report into the run directory. */
int reports_write(const struct report_run *run, struct err *e);

/* A member's string, "" when it is missing or no string. */
const char *report_str(const json_t *o, const char *key);

/* `s` as XML text or attribute value (&, <, >, " escaped; other control
 * characters but newline and tab as spaces). */
void report_escape_xml(struct buf *out, const char *s);

/* `s` as HTML text or attribute value (&, <, >, " escaped). */
void report_escape_html(struct buf *out, const char *s);

/*
 * DIR/index.html: the trend page of a folder of runs, DIR/<suite>/<run>
 * (reports/index.c); fails when DIR cannot be read or the page written.
 */
int report_index(const char *dir, struct err *e);

/* The summary table (summary.txt; also printed at the end of a run). */
int report_summary_text(const json_t *results, struct buf *out,
			struct err *e);

/*
 * A workload item's verdict, summary, message and skip from its counts
 * ("ok", "fail", "info", "skipped", "ignore_errors"); `skip_reason` says
 * why operations were skipped ("" when none were).
 */
void results_judge_workload(json_t *item, const char *skip_reason);

/*
 * The results of a run that did not finish (verdict "incomplete", as the
 * runner writes them before its workers start): every workload's and
 * fault's counts, and the exits the exit watch recorded, taken from
 * history.jsonl, up to its last complete line.
 * Checks did not run. The verdict stays "incomplete" (exit 4).
 */
int results_recount(json_t *results, const char *run_dir, struct err *e);

/* Write RUN_DIR/results.json as the runner does. */
int results_save(const json_t *results, const char *run_dir, struct err *e);

/* Load RUN_DIR/results.json (ERR_USAGE when it is not there). */
int results_load(const char *run_dir, json_t **results, struct err *e);

#endif
