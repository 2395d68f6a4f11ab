/*
 * The balances on the two sides (checkers/bankdiff.h): one query per
 * table of the ledger, and the comparisons that name what differs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/bankdiff.h"
#include "clusters/cluster.h"
#include "lib/history.h"
#include "lib/sql.h"

int bankdiff_read(struct sql *s, const struct ledger *w, const char *db,
		  long long *bal, unsigned char *present, struct err *e)
{
	struct buf q = BUF_INIT;
	int rc = 0;

	memset(present, 0, (size_t)w->accounts);
	for (size_t t = 0; !rc && t < w->ntables; t++) {
		struct sql_result res = SQL_RESULT_INIT;

		buf_reset(&q);
		rc = buf_addstr(&q, "SELECT ", e) ||
		     sql_quote_ident(&q, w->key, e) ||
		     buf_addstr(&q, " AS k, ", e) ||
		     sql_quote_ident(&q, w->column, e) ||
		     buf_addstr(&q, " AS v FROM ", e) ||
		     sql_quote_ident(&q, db, e) || buf_addch(&q, '.', e) ||
		     sql_quote_ident(&q, w->tables[t], e) ||
		     sql_query(s, buf_str(&q), &res, e);
		for (size_t i = 0; !rc && i < res.nrows; i++) {
			const char *k = sql_cell(&res, i, "k");
			const char *v = sql_cell(&res, i, "v");
			long long id = k ? strtoll(k, NULL, 10) : 0;

			if (id < 1 || id > w->accounts)
				continue;	/* not an account: no money */
			bal[id - 1] = v ? strtoll(v, NULL, 10) : 0;
			present[id - 1] = 1;
		}
		sql_result_release(&res);
	}
	buf_release(&q);
	return rc ? -1 : 0;
}

int bankdiff_read_at(const struct component *c, const struct ledger *w,
		     const char *db, const char *ts, long long *bal,
		     unsigned char *present, struct err *e)
{
	struct sql s = SQL_INIT;
	int rc;

	rc = syncpoint_store_connect_at(c, ts, &s, e) ||
	     bankdiff_read(&s, w, db, bal, present, e);
	sql_close(&s);
	return rc ? -1 : 0;
}

static void number_or_null(struct buf *d, int present, long long v)
{
	if (present)
		buf_printf(d, NULL, "%lld", v);
	else
		buf_addstr(d, "null", NULL);
}

void bankdiff_downstream(const struct ledger *w, size_t max_report,
			 const long long *up, const unsigned char *up_present,
			 const long long *down,
			 const unsigned char *down_present, struct buf *d,
			 struct buf *msg, struct buf *nums)
{
	size_t n = (size_t)w->accounts, differing = 0;
	long long total[2] = { 0, 0 };

	buf_addstr(d, ",\"downstream_differing\":[", NULL);
	for (size_t k = 0; k < n; k++) {
		total[0] += up_present[k] ? up[k] : 0;
		total[1] += down_present[k] ? down[k] : 0;
		if (up_present[k] == down_present[k] &&
		    (!up_present[k] || up[k] == down[k]))
			continue;
		if (differing < max_report) {
			buf_printf(d, NULL, "%s{\"account\":%zu,\"table\":",
				   differing ? "," : "", k + 1);
			json_quote(d, ledger_table(w, (int64_t)k + 1), NULL);
			buf_addstr(d, ",\"upstream\":", NULL);
			number_or_null(d, up_present[k], up[k]);
			buf_addstr(d, ",\"downstream\":", NULL);
			number_or_null(d, down_present[k], down[k]);
			buf_addch(d, '}', NULL);
		}
		if (!differing)
			buf_printf(msg, NULL, "%sthe downstream differs: "
				   "account %zu (%s) is ", msg->len ? "; " : "",
				   k + 1, ledger_table(w, (int64_t)k + 1));
		if (!differing && down_present[k])
			buf_printf(msg, NULL, "%lld", down[k]);
		else if (!differing)
			buf_addstr(msg, "missing", NULL);
		if (!differing && up_present[k])
			buf_printf(msg, NULL, " downstream, %lld upstream",
				   up[k]);
		else if (!differing)
			buf_addstr(msg, " downstream, missing upstream", NULL);
		differing++;
	}
	buf_printf(d, NULL, "],\"upstream_total\":%lld,\"downstream_total\":"
		   "%lld", total[0], total[1]);
	if (differing)
		buf_printf(msg, NULL, " (%zu accounts differ; totals %lld "
			   "downstream, %lld upstream)", differing, total[1],
			   total[0]);
	buf_printf(nums, NULL, " downstream_differing=%zu", differing);
}

int bankdiff_point(const struct ledger *w, const struct sync_point *p,
		   const long long *bal, const unsigned char *present,
		   struct buf *d, struct buf *why)
{
	size_t n = (size_t)w->accounts, first = SIZE_MAX;
	long long expected = w->accounts * w->initial;
	long long total[2] = { 0, 0 }, count[2] = { 0, 0 };
	const long long *down = bal + n;
	const unsigned char *dp = present + n;

	for (size_t k = 0; k < n; k++) {
		total[0] += present[k] ? bal[k] : 0;
		total[1] += dp[k] ? down[k] : 0;
		count[0] += present[k];
		count[1] += dp[k];
		if (first == SIZE_MAX && (present[k] != dp[k] ||
					  (present[k] && bal[k] != down[k])))
			first = k;
	}
	buf_printf(d, NULL, "{\"primary_ts\":\"%s\",\"secondary_ts\":\"%s\","
		   "\"upstream_total\":%lld,\"upstream_accounts\":%lld,"
		   "\"downstream_total\":%lld,\"downstream_accounts\":%lld,"
		   "\"first_differing\":", p->primary_ts, p->secondary_ts,
		   total[0], count[0], total[1], count[1]);
	if (first == SIZE_MAX) {
		buf_addstr(d, "null", NULL);
	} else {
		buf_printf(d, NULL, "{\"account\":%zu,\"upstream\":",
			   first + 1);
		number_or_null(d, present[first], bal[first]);
		buf_addstr(d, ",\"downstream\":", NULL);
		number_or_null(d, dp[first], down[first]);
		buf_addch(d, '}', NULL);
	}
	if (total[0] == expected && total[1] == expected &&
	    count[0] == w->accounts && count[1] == w->accounts &&
	    first == SIZE_MAX)
		return 0;
	buf_printf(why, NULL, "at sync point primary_ts %s, secondary_ts %s: "
		   "upstream %lld in %lld accounts, downstream %lld in %lld "
		   "accounts (expected %lld in %lld)", p->primary_ts,
		   p->secondary_ts, total[0], count[0], total[1], count[1],
		   expected, (long long)w->accounts);
	if (first != SIZE_MAX) {
		buf_printf(why, NULL, "; account %zu (%s) is ", first + 1,
			   ledger_table(w, (int64_t)first + 1));
		if (dp[first])
			buf_printf(why, NULL, "%lld", down[first]);
		buf_addstr(why, dp[first] ? " downstream, " :
			   "missing downstream, ", NULL);
		if (present[first])
			buf_printf(why, NULL, "%lld upstream", bal[first]);
		else
			buf_addstr(why, "missing upstream", NULL);
	}
	return 1;
}
