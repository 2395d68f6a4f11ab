/*
 * consistency: after the run, do the upstream and the downstream hold the
 * same data? (docs/checkers.md, the data loss of TiCDC issue 1192.)
 *
 * 1. Barrier (checkers/barrier.c): a finish mark written upstream must
 *    appear downstream within `sync_timeout` and, on TiCDC, the
 *    changefeed's checkpoint_ts pass the mark's commit_ts; otherwise the
 *    verdict is unknown, with the lag seen.
 * 2. Every table of the suite's database on either side (the table diff,
 *    checkers/tablediff.h): presence, column definitions, then data, in
 *    chunks of about `chunk_rows` rows of the primary key: a single
 *    integer key's range is cut arithmetically; any other key
 *    (composite, string, date, BIGINT UNSIGNED) is cut at every
 *    chunk_rows-th key of the upstream's key order (checkers/tablediff.h
 *    says how, exactly). Both sides checksum every chunk in
 *    parallel (`threads` connections each, and a side done helps the
 *    other with its last chunks): COUNT(*) and the BIT_XOR of a
 *    32-bit row hash (the CRC32 of a mix of the columns' values,
 *    tabledef_row_hash() says how); with one connection a side, the
 *    whole table first, and chunks only when it differs (whole_first).
 *    Mismatching chunks are cut (an integer range in tenths, any other
 *    at its middle key) down to a few thousand rows, whose rows are then
 *    compared in key order. A table without a key is compared whole as a
 *    multiset of rows, with a warning.
 * 3. Differences: missing, extra and changed rows with their keys, and
 *    fix-sql/<db>.<table>.sql — REPLACE for missing and changed rows,
 *    DELETE for extra ones — which, applied downstream, makes it equal.
 */
#include "checkers/barrier.h"
#include "checkers/checker.h"
#include "checkers/tablediff.h"
#include "clusters/cluster.h"
#include "core/suite.h"
#include "lib/clock.h"
#include "lib/history.h"
#include "lib/sql.h"

struct consistency_opts {
	int64_t sync_timeout;
	const char *changefeed;	/* NULL: the cluster's */
	struct optlist tables;	/* empty: every table, on either side */
	int64_t chunk_rows;
	int64_t threads;
	int64_t max_report;
};

#define AT(member) OPT_AT(struct consistency_opts, member)

static const struct optspec opts[] = {
	{ "sync_timeout", OPT_DURATION, "300s", 0, NULL, 0, 0,
	  "how long the finish mark may take to reach the downstream",
	  AT(sync_timeout) },
	{ "changefeed", OPT_STRING, NULL, 0, NULL, 0, 0,
	  "TiCDC: the changefeed whose checkpoint must pass the finish mark "
	  "(default: the topology's, else tichaos)", AT(changefeed) },
	TABLEDIFF_COMPARE_OPTS(struct consistency_opts),
};

static int run(const struct check_ctx *ctx, const struct suite_item *it,
	       struct check_result *r, struct err *e)
{
	struct side sides[2] = { { NULL, SQL_INIT, NULL },
				 { NULL, SQL_INIT, NULL } };
	const struct consistency_opts *o = it->opts;
	const struct tablediff_opts cmp = { o->tables, o->chunk_rows,
					    o->threads, o->max_report, 0 };
	struct tablediff_tally tl = { 0, 0, { 0, 0, 0 }, "" };
	size_t nall = 0;
	int64_t barrier_ns = 0;
	char halted[300] = "";
	int rc = 0;

	sides[UP].comp = cluster_first_sql(ctx->cluster, ROLE_UPSTREAM);
	sides[DOWN].comp = cluster_first_sql(ctx->cluster, ROLE_DOWNSTREAM);
	if (!sides[UP].comp || !sides[DOWN].comp) {
		check_verdict(r, VERDICT_SKIP, "the cluster has no %s SQL node",
			      sides[UP].comp ? "downstream" : "upstream");
		return 0;
	}
	if (tablediff_connect(&sides[UP], e) ||
	    tablediff_connect(&sides[DOWN], e)) {
		rc = -1;
		goto out;
	}
	rc = barrier_sync(ctx, sides[UP].comp, &sides[UP].conn,
			  sides[DOWN].comp, &sides[DOWN].conn, o->changefeed,
			  o->sync_timeout, &barrier_ns, r, halted,
			  sizeof(halted), e);
	/* Waiting for the mark may have dropped the connection. */
	if (!rc && halted[0] && !sides[DOWN].conn.my)
		rc = tablediff_connect(&sides[DOWN], e);
	if (rc)
		goto out;
	rc = tablediff_compare_tables(ctx, &cmp, sides, &tl, &nall, r, e);
	if (rc)
		goto out;
	if (halted[0]) {
		buf_addstr(&r->details, ",\"unsynced\":", NULL);
		json_quote(&r->details, halted, NULL);
	}
	if (tl.differing)
		check_verdict(r, VERDICT_FAIL, "%zu of %zu tables differ%s%s%s; "
			      "first: %s", tl.differing, nall, halted[0] ?
			      " (compared unsynced: " : "", halted,
			      halted[0] ? ")" : "", tl.first);
	else if (halted[0])
		check_verdict(r, VERDICT_UNKNOWN, "%zu tables, %llu rows equal "
			      "on both sides, but unsynced: %s", nall,
			      (unsigned long long)tl.rows, halted);
	else
		check_verdict(r, VERDICT_PASS, "%zu tables, %llu rows equal on "
			      "both sides (sync %.1fs)", nall,
			      (unsigned long long)tl.rows,
			      (double)barrier_ns / NS_PER_SEC);
out:
	if (rc > 0)
		rc = 0;
	for (int s = 0; s < 2; s++)
		sql_close(&sides[s].conn);
	return rc;
}

const struct checker_type checker_consistency = {
	.kind = { "consistency", "upstream and downstream hold the same "
		  "tables and rows (chunked checksums, row diff, fix SQL)",
		  opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct consistency_opts) },
	.live = 1,
	.run = run,
	.draw = tablediff_draw,
};
