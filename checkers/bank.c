/*
 * bank: the bank workload's money is never made or lost (Jepsen's bank;
 * docs/checkers.md, bank). With the suite's one bank workload
 * (workloads/bank.h: accounts, initial, tables):
 *
 * reads: every ok read saw the total accounts * initial in every
 *   account; so did every ok replica_read (the workload's reads of a
 *   MySQL / MariaDB replica, which applies transactions whole and in
 *   order, while the run goes on). A read that did not is named with the
 *   faults between the last read before it that saw them (or the start)
 *   and its completion.
 * balances (live): each account's final balance upstream is its initial
 *   one plus the ok transfers to it, minus those from it, with the info
 *   transfers (outcome unknown; an invoke that never completed is one)
 *   resolved: every way of counting each as applied or not is tried
 *   (at most BANKFIT_MAX_UNKNOWN of them, checkers/bankfit.h, else the
 *   verdict is unknown), and one is applied when it is in every way that
 *   makes the balances match, not applied when in none, unresolved when
 *   in some. When no way matches, the accounts that differ are named,
 *   and so are the ok transfers that alone would explain the difference
 *   had they not applied, and the failed ones had they applied, with the
 *   faults from their invoke to their completion.
 * downstream (live): after the barrier the consistency check waits on
 *   too (barrier_sync), the downstream's balances and total equal the
 *   upstream's; differing accounts are named.
 * syncpoints (live, option syncpoints > 0, TiDB on both sides): at each
 *   of the last N sync points TiCDC recorded (syncpoint_store_read), the
 *   upstream read at tidb_snapshot = primary_ts and the downstream at
 *   secondary_ts: transfers are transactions, so each side holds every
 *   account and the total accounts * initial, and the downstream's
 *   balances are the upstream's. A violation names the point's TSOs, the
 *   totals and the first differing account. No point recorded, a side
 *   not TiDB, a snapshot refused (TiDB error 8055, older than GC's safe
 *   point): unknown, saying which, unless a violation stands.
 *
 * Offline (no cluster) the reads are judged and the rest is skipped: a
 * bad read fails, else the verdict is skip, with the reason.
 *
 * Its modules: the history's transfers and reads (checkers/bankops.h),
 * the final balances against the transfers (bankfit.h), the balances on
 * the two sides and at sync points (bankdiff.h), and the faults named
 * with a violation (faultwindow.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/bankdiff.h"
#include "checkers/bankfit.h"
#include "checkers/bankops.h"
#include "checkers/barrier.h"
#include "checkers/checker.h"
#include "checkers/faultwindow.h"
#include "checkers/syncpoint_store.h"
#include "clusters/cluster.h"
#include "core/ledger.h"
#include "core/suite.h"
#include "core/worker.h"
#include "lib/faultspan.h"
#include "lib/history.h"
#include "lib/sql.h"
#include "lib/ynode.h"

struct bank_check_opts {
	int64_t sync_timeout;
	const char *changefeed;	/* NULL: the cluster's */
	int64_t max_report;
	int64_t syncpoints;	/* 0: none read */
};

#define AT(member) OPT_AT(struct bank_check_opts, member)

static const struct optspec opts[] = {
	{ "sync_timeout", OPT_DURATION, "300s", 0, NULL, 0, 0,
	  "how long the finish mark may take to reach the downstream",
	  AT(sync_timeout) },
	{ "changefeed", OPT_STRING, NULL, 0, NULL, 0, 0,
	  "TiCDC: the changefeed whose checkpoint must pass the finish mark "
	  "and whose sync points are read (default: the topology's, else "
	  "tichaos)", AT(changefeed) },
	{ "max_report", OPT_INT, "20", 0, NULL, 1, 1000,
	  "reads, transfers and accounts listed per kind of violation",
	  AT(max_report) },
	{ "syncpoints", OPT_INT, "0", 0, NULL, 0, 1000,
	  "TiDB both sides: the totals and balances read at the last N sync "
	  "points of the changefeed (tidb_snapshot); 0: none",
	  AT(syncpoints) },
};

struct bank {
	struct bank_ops ops;	/* the history's transfers and reads */
	/* Faults, from the nemesis's records read so far. */
	struct fault_windows faults;
	struct fault_spans spans;
	char at_points[300];	/* the sync points' pass, or "" */
};

static int record(const struct history_line *l, void *arg)
{
	struct bank *b = arg;

	if (l->process == HISTORY_NEMESIS)
		return fault_spans_line(&b->spans, l);
	return bank_ops_line(&b->ops, l);
}

/* The suite's workload that keeps a ledger, into `out` (kind `check`
 * makes sure there is one): 0, or -1 when there is none. */
static int ledger_of(const struct suite *s, struct ledger *out)
{
	for (size_t i = 0; i < s->nworkloads; i++)
		if (s->workloads[i].type->ledger)
			return s->workloads[i].type->ledger(&s->workloads[i],
							    out);
	return -1;
}

static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	struct ynode at = { YNODE_SCALAR, it->line, it->col, NULL, 0, NULL, 0 };
	size_t n = 0;

	for (size_t i = 0; i < s->nworkloads; i++)
		n += s->workloads[i].type->ledger != NULL;
	if (n != 1)
		return ynode_error(e, s->path, &at, "check 'bank' needs one "
				   "workload of kind 'bank' (the suite has "
				   "%zu)", n);
	return 0;
}

/*
 * The live parts: the balances upstream, the barrier, the downstream's.
 * 0, 1 with r's verdict set (the barrier's, or unknown), -1 with `e`.
 */
static int live(struct bank *b, const struct check_ctx *ctx,
		const struct suite_item *it, struct check_result *r,
		struct buf *msg, struct buf *nums, struct err *e)
{
	const struct bank_check_opts *o = it->opts;
	const struct component *up, *down;
	struct sql conn[2] = { SQL_INIT, SQL_INIT };
	const struct ledger *w = &b->ops.w;
	size_t n = (size_t)w->accounts;
	long long *bal = xcalloc(2 * n, sizeof(*bal));
	unsigned char *present = xcalloc(2 * n, 1);
	char halted[300] = "";
	int64_t took = 0;
	int rc;

	up = cluster_first_sql(ctx->cluster, ROLE_UPSTREAM);
	down = cluster_first_sql(ctx->cluster, ROLE_DOWNSTREAM);
	rc = !up || !down ? err_set(e, ERR_INFRA, "the cluster has no %s SQL "
				    "node", up ? "downstream" : "upstream")
	     : component_connect(up, &conn[0], NULL, 60, e) ||
	       bankdiff_read(&conn[0], w, ctx->suite->database, bal, present,
			     e);
	if (!rc && bankfit_judge(&b->ops, &b->faults, bal, present, r, msg,
				 nums) < 0)
		rc = 1;		/* unknown, said by bankfit_judge */
	rc = rc || component_connect(down, &conn[1], NULL, 60, e);
	if (!rc) {
		buf_addch(&r->details, ',', NULL);
		rc = barrier_sync(ctx, up, &conn[0], down, &conn[1],
				  o->changefeed, o->sync_timeout, &took, r,
				  halted, sizeof(halted), e);
	}
	if (!rc && !conn[1].my)
		rc = component_connect(down, &conn[1], NULL, 60, e);
	rc = rc || bankdiff_read(&conn[1], w, ctx->suite->database, bal + n,
				 present + n, e);
	if (!rc)
		bankdiff_downstream(w, b->ops.max_report, bal, present,
				    bal + n, present + n, &r->details, msg,
				    nums);
	if (!rc && halted[0] && !msg->len) {
		check_verdict(r, VERDICT_UNKNOWN, "the balances fit, but the "
			      "downstream is unsynced: %s", halted);
		rc = 1;
	} else if (!rc && halted[0]) {
		buf_printf(msg, NULL, " (compared unsynced: %s)", halted);
	}
	sql_close(&conn[0]);
	sql_close(&conn[1]);
	free(bal);
	free(present);
	return rc;
}

/*
 * The balances at the last o->syncpoints sync points: violations into
 * `msg`, b->at_points the pass; 1 with r's verdict unknown (no point, a
 * side not TiDB, a point unread); -1 with `e`.
 */
static int at_syncpoints(struct bank *b, const struct check_ctx *ctx,
			 const struct bank_check_opts *o,
			 struct check_result *r, struct buf *msg,
			 struct buf *nums, struct err *e)
{
	const char *cf = cluster_changefeed_id(ctx->cluster, o->changefeed);
	const struct component *up = cluster_first_sql(ctx->cluster,
						       ROLE_UPSTREAM);
	const struct component *down = cluster_first_sql(ctx->cluster,
							 ROLE_DOWNSTREAM);
	const struct ledger *w = &b->ops.w;
	size_t n = 0, na = (size_t)w->accounts, bad = 0, unread = 0, i;
	long long *bal = xcalloc(2 * na, sizeof(*bal));
	unsigned char *present = xcalloc(2 * na, 1);
	struct buf why = BUF_INIT, first = BUF_INIT;
	struct sync_point *pts = NULL;
	struct err pe = ERR_INIT;
	int rc;

	rc = syncpoint_store_points(ctx, cf, o->syncpoints, "balances", up,
				    down, &pts, &n, r, e);
	buf_addstr(&r->details, ",\"syncpoints\":[", NULL);
	for (i = 0; !rc && i < n && !check_interrupted(ctx); i++) {
		const char *db = ctx->suite->database;

		buf_addstr(&r->details, i ? "," : "", NULL);
		buf_reset(&why);
		err_clear(&pe);
		if (bankdiff_read_at(up, w, db, pts[i].primary_ts, bal,
				     present, &pe) ||
		    bankdiff_read_at(down, w, db, pts[i].secondary_ts,
				     bal + na, present + na, &pe)) {
			buf_printf(&r->details, NULL, "{\"primary_ts\":\"%s\","
				   "\"secondary_ts\":\"%s\",\"unread\":",
				   pts[i].primary_ts, pts[i].secondary_ts);
			json_quote(&r->details, pe.msg, NULL);
			buf_addch(&r->details, '}', NULL);
			if (!unread++)
				buf_printf(&first, NULL, "first at primary_ts "
					   "%s, secondary_ts %s: %s",
					   pts[i].primary_ts,
					   pts[i].secondary_ts, pe.msg);
			continue;
		}
		if (bankdiff_point(w, &pts[i], bal, present, &r->details,
				   &why) && !bad++)
			buf_printf(msg, NULL, "%s%s", msg->len ? "; " : "",
				   buf_str(&why));
		buf_printf(&r->details, NULL, ",\"verdict\":\"%s\"}",
			   why.len ? "fail" : "pass");
	}
	buf_addch(&r->details, ']', NULL);
	if (bad)
		buf_printf(msg, NULL, " (%zu of %zu sync points of changefeed "
			   "%s differ)", bad, n, cf);
	if (!rc)
		buf_printf(nums, NULL, " syncpoints=%zu syncpoints_differing="
			   "%zu syncpoints_unread=%zu", n, bad, unread);
	if (!rc && i < n) {
		check_verdict(r, VERDICT_UNKNOWN, "interrupted after %zu of "
			      "%zu sync points of changefeed %s", i, n, cf);
		rc = 1;
	} else if (!rc && unread) {
		check_verdict(r, VERDICT_UNKNOWN, "syncpoints: %zu of %zu sync "
			      "points of changefeed %s could not be read; %s",
			      unread, n, cf, buf_str(&first));
		rc = 1;
	} else if (!rc) {
		snprintf(b->at_points, sizeof(b->at_points), "; the total %lld "
			 "and equal balances at %zu sync points of changefeed "
			 "%s, the last at primary_ts %s, secondary_ts %s",
			 b->ops.expected, n, cf, pts[n - 1].primary_ts,
			 pts[n - 1].secondary_ts);
	}
	buf_release(&why);
	buf_release(&first);
	free(pts);
	free(bal);
	free(present);
	return rc;
}

static void bank_release(struct bank *b)
{
	fault_windows_release(&b->faults);
	fault_spans_release(&b->spans);
	bank_ops_release(&b->ops);
}

/* Read the history into `b`: 0; 1 with r's verdict set; -1. */
static int read_run(struct bank *b, const struct check_ctx *ctx,
		    struct check_result *r, struct err *e)
{
	struct history_reading info;
	char path[4096];

	snprintf(path, sizeof(path), "%s/history.jsonl", ctx->run_dir);
	if (history_read(path, HISTORY_STRICT, record, b, &info, e))
		return -1;
	if (info.bad[0] || b->ops.bad_line[0]) {
		check_verdict(r, VERDICT_UNKNOWN, "%s",
			      info.bad[0] ? info.bad : b->ops.bad_line);
		return 1;
	}
	bank_ops_end(&b->ops);
	fault_windows_sort(&b->faults);
	return 0;
}

static void verdict(const struct bank *b, const struct check_ctx *ctx,
		    struct check_result *r, const struct buf *msg,
		    const struct buf *nums)
{
	const struct bank_ops *ops = &b->ops;
	size_t applied = 0, unresolved = 0;
	struct buf first = BUF_INIT;

	snprintf(r->numbers, sizeof(r->numbers), "reads=%zu replica_reads=%zu "
		 "bad_reads=%zu%s", ops->reads, ops->replica_reads,
		 ops->bad_total, buf_str(nums));
	if (msg->len) {
		check_verdict(r, VERDICT_FAIL, "%s", buf_str(msg));
		return;
	}
	if (!ctx->cluster) {
		check_verdict(r, VERDICT_SKIP, "%zu reads saw the total %lld; "
			      "the balances and the downstream are not "
			      "checked: the cluster is not up", ops->reads,
			      ops->expected);
		return;
	}
	for (size_t u = 0; u < ops->nunknown; u++) {
		applied += ops->unknown[u].applied == 1;
		if (ops->unknown[u].applied < 0 && !unresolved++)
			bank_op_text(&first, &ops->unknown[u]);
	}
	check_verdict(r, VERDICT_PASS, "%zu reads saw the total %lld; %zu ok "
		      "transfers and %zu of %zu unknown ones applied fit the "
		      "final balances, equal downstream%s%zu unresolved%s%s%s",
		      ops->reads, ops->expected, ops->nok, applied,
		      ops->nunknown,
		      unresolved ? "; " : " (", unresolved,
		      unresolved ? ", first: " : ")", buf_str(&first),
		      b->at_points);
	buf_release(&first);
}

static int run(const struct check_ctx *ctx, const struct suite_item *it,
	       struct check_result *r, struct err *e)
{
	const struct bank_check_opts *o = it->opts;
	struct buf msg = BUF_INIT, nums = BUF_INIT;
	struct ledger w;
	struct bank b;
	int rc;

	memset(&b, 0, sizeof(b));
	fault_spans_init(&b.spans, fault_windows_span, &b.faults);
	if (ledger_of(ctx->suite, &w)) {
		check_verdict(r, VERDICT_UNKNOWN, "the suite has no workload "
			      "of kind 'bank'");
		return 0;
	}
	bank_ops_init(&b.ops, &w, (size_t)o->max_report);
	rc = read_run(&b, ctx, r, e);
	if (!rc) {
		buf_printf(&r->details, NULL, "\"expected_total\":%lld",
			   b.ops.expected);
		bank_ops_judge_reads(&b.ops, &b.faults, &r->details, &msg);
	}
	if (!rc && ctx->cluster)
		rc = live(&b, ctx, it, r, &msg, &nums, e);
	if (!rc && ctx->cluster && o->syncpoints)
		rc = at_syncpoints(&b, ctx, o, r, &msg, &nums, e);
	if (rc == 1 && msg.len) {
		/* A violation found stands, whatever kept the rest out. */
		buf_printf(&msg, NULL, "; %s", r->message);
		rc = 0;
	}
	if (!rc)
		verdict(&b, ctx, r, &msg, &nums);
	bank_release(&b);
	buf_release(&msg);
	buf_release(&nums);
	return rc < 0 ? -1 : 0;
}

const struct checker_type checker_bank = {
	.kind = { "bank", "the bank workload's total never changes; final "
		  "balances fit the transfers; the downstream's equal the "
		  "upstream's", opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct bank_check_opts), .check = check },
	.live = 0,
	.run = run,
};
