/*
 * The bank check's two sides compared (checkers/bankdiff.h), no server:
 * the downstream's balances against the upstream's, and both at a sync
 * point against each other and the ledger's total; the details, the
 * numbers and the messages, exactly. Reading the balances needs a
 * server: t0525 (MariaDB) and t0541 (at TiDB snapshots, through
 * tests/helpers/fake-tidb-sql.pl) read them through the check.
 */
#include <stdio.h>
#include <string.h>

#include "checkers/bankdiff.h"
#include "checkers/syncpoint_store.h"
#include "lib/buf.h"
#include "tests/unit/tap.h"

static char acc_a[] = "acc_a", acc_b[] = "acc_b";
static char *const tables[] = { acc_a, acc_b };
/* Four accounts of 100 in two tables: the total is 400. */
static const struct ledger ledger = { tables, 2, "id", "balance", 4, 100 };

struct sides {
	struct buf d, msg, nums;
};

static void downstream(struct sides *s, const long long *up,
		       const unsigned char *up_present, const long long *down,
		       const unsigned char *down_present, size_t max_report,
		       const char *msg)
{
	memset(s, 0, sizeof(*s));
	buf_addstr(&s->msg, msg, NULL);
	bankdiff_downstream(&ledger, max_report, up, up_present, down,
			    down_present, &s->d, &s->msg, &s->nums);
}

static void sides_release(struct sides *s)
{
	buf_release(&s->d);
	buf_release(&s->msg);
	buf_release(&s->nums);
}

static void test_downstream(void)
{
	const long long up[] = { 95, 105, 100, 100 };
	const long long down[] = { 95, 104, 100, 7 };
	const unsigned char all[] = { 1, 1, 1, 1 }, no4[] = { 1, 1, 1, 0 };
	struct sides s;

	downstream(&s, up, all, up, all, 20, "");
	is_str(buf_str(&s.d), ",\"downstream_differing\":[],"
	       "\"upstream_total\":400,\"downstream_total\":400",
	       "equal: the details");
	is_str(buf_str(&s.nums), " downstream_differing=0", "the numbers");
	is_int(s.msg.len, 0, "no failure");
	sides_release(&s);

	downstream(&s, up, all, down, no4, 20, "the balances fit no outcome");
	is_str(buf_str(&s.d), ",\"downstream_differing\":[{\"account\":2,"
	       "\"table\":\"acc_b\",\"upstream\":105,\"downstream\":104},"
	       "{\"account\":4,\"table\":\"acc_b\",\"upstream\":100,"
	       "\"downstream\":null}],\"upstream_total\":400,"
	       "\"downstream_total\":299",
	       "a balance changed, one missing: the details");
	is_str(buf_str(&s.nums), " downstream_differing=2", "the numbers");
	is_str(buf_str(&s.msg), "the balances fit no outcome; the downstream "
	       "differs: account 2 (acc_b) is 104 downstream, 105 upstream "
	       "(2 accounts differ; totals 299 downstream, 400 upstream)",
	       "the message names the first, after the one it held");
	sides_release(&s);

	downstream(&s, down, no4, up, all, 1, "");
	is_str(buf_str(&s.d), ",\"downstream_differing\":[{\"account\":2,"
	       "\"table\":\"acc_b\",\"upstream\":104,\"downstream\":105}],"
	       "\"upstream_total\":299,\"downstream_total\":400",
	       "max_report 1: one listed");
	is_str(buf_str(&s.msg), "the downstream differs: account 2 (acc_b) is "
	       "105 downstream, 104 upstream (2 accounts differ; totals 400 "
	       "downstream, 299 upstream)", "the message");
	sides_release(&s);

	downstream(&s, down, no4, up, no4, 20, "");
	ok(strstr(buf_str(&s.d), "{\"account\":4,") == NULL,
	   "missing on both sides: not differing");
	sides_release(&s);

	downstream(&s, up, no4, down, all, 20, "");
	ok(strstr(buf_str(&s.msg), "account 2 (acc_b) is 104 downstream, "
		  "105 upstream (2 accounts differ;") != NULL &&
	   strstr(buf_str(&s.d), "{\"account\":4,\"table\":\"acc_b\","
		  "\"upstream\":null,\"downstream\":7}") != NULL,
	   "missing upstream: null upstream");
	sides_release(&s);
	{
		const long long z[] = { 0, 0, 0, 0 };
		const unsigned char none[] = { 0, 0, 0, 0 };

		downstream(&s, z, none, up, all, 20, "");
		is_str(buf_str(&s.msg), "the downstream differs: account 1 "
		       "(acc_a) is 95 downstream, missing upstream (4 accounts "
		       "differ; totals 400 downstream, 0 upstream)",
		       "the first missing upstream");
		sides_release(&s);
		downstream(&s, up, all, z, none, 20, "");
		is_str(buf_str(&s.msg), "the downstream differs: account 1 "
		       "(acc_a) is missing downstream, 95 upstream (4 accounts "
		       "differ; totals 0 downstream, 400 upstream)",
		       "the first missing downstream");
		sides_release(&s);
	}
}

static void test_point(void)
{
	struct sync_point p;
	/* Upstream, then downstream. */
	const long long same[] = { 95, 105, 100, 100, 95, 105, 100, 100 };
	const long long other[] = { 95, 105, 100, 100, 95, 104, 100, 101 };
	const long long lost[] = { 100, 100, 100, 90, 100, 100, 100, 90 };
	const unsigned char all[] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	const unsigned char down1[] = { 1, 1, 1, 1, 0, 1, 1, 1 };
	struct buf d = BUF_INIT, why = BUF_INIT;

	memset(&p, 0, sizeof(p));
	snprintf(p.primary_ts, sizeof(p.primary_ts), "449000000000000001");
	snprintf(p.secondary_ts, sizeof(p.secondary_ts), "449000000000000002");

	is_int(bankdiff_point(&ledger, &p, same, all, &d, &why), 0,
	       "equal, the total: no violation");
	is_str(buf_str(&d), "{\"primary_ts\":\"449000000000000001\","
	       "\"secondary_ts\":\"449000000000000002\",\"upstream_total\":400,"
	       "\"upstream_accounts\":4,\"downstream_total\":400,"
	       "\"downstream_accounts\":4,\"first_differing\":null",
	       "its entry, left open");
	is_int(why.len, 0, "nothing wrong");

	buf_reset(&d);
	is_int(bankdiff_point(&ledger, &p, other, all, &d, &why), 1,
	       "a balance differs: a violation");
	ok(strstr(buf_str(&d), "\"downstream_total\":400,"
		  "\"downstream_accounts\":4,\"first_differing\":{"
		  "\"account\":2,"
		  "\"upstream\":105,\"downstream\":104}") != NULL,
	   "the first differing account in the entry");
	is_str(buf_str(&why), "at sync point primary_ts 449000000000000001, "
	       "secondary_ts 449000000000000002: upstream 400 in 4 accounts, "
	       "downstream 400 in 4 accounts (expected 400 in 4); account 2 "
	       "(acc_b) is 104 downstream, 105 upstream", "why");

	buf_reset(&d);
	buf_reset(&why);
	is_int(bankdiff_point(&ledger, &p, lost, all, &d, &why), 1,
	       "both sides equal, the total not: a violation");
	is_str(buf_str(&why), "at sync point primary_ts 449000000000000001, "
	       "secondary_ts 449000000000000002: upstream 390 in 4 accounts, "
	       "downstream 390 in 4 accounts (expected 400 in 4)",
	       "why: no account named");

	buf_reset(&d);
	buf_reset(&why);
	is_int(bankdiff_point(&ledger, &p, same, down1, &d, &why), 1,
	       "an account missing downstream: a violation");
	ok(strstr(buf_str(&d), "\"downstream_total\":305,"
		  "\"downstream_accounts\":3,\"first_differing\":{"
		  "\"account\":1,"
		  "\"upstream\":95,\"downstream\":null}") != NULL,
	   "null in the entry");
	is_str(buf_str(&why), "at sync point primary_ts 449000000000000001, "
	       "secondary_ts 449000000000000002: upstream 400 in 4 accounts, "
	       "downstream 305 in 3 accounts (expected 400 in 4); account 1 "
	       "(acc_a) is missing downstream, 95 upstream", "why");
	buf_release(&d);
	buf_release(&why);
}

int main(void)
{
	test_downstream();
	test_point();
	return done_testing();
}
