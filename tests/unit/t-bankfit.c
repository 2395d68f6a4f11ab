/*
 * The bank check's final balances against its transfers
 * (checkers/bankfit.h): a fit, a lost ok transfer, a failed one that
 * applied, unknown ones applied, not applied, unresolved and fitting no
 * state, a missing account, too many unknown ones; the details, the
 * numbers and the message, exactly. t0525 sets such balances on a real
 * upstream and reads them through the check.
 */
#include <stdio.h>
#include <string.h>

#include "checkers/bankfit.h"
#include "checkers/bankops.h"
#include "checkers/checker.h"
#include "checkers/faultwindow.h"
#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/history.h"
#include "tests/unit/tap.h"

#define MS NS_PER_MS

static char acc_a[] = "acc_a", acc_b[] = "acc_b";
static char *const tables[] = { acc_a, acc_b };
/* Four accounts of 100 in two tables: the total is 400. */
static const struct ledger ledger = { tables, 2, "id", "balance", 4, 100 };

static char kill_text[] = "kill cdc";
static struct fault_window kill_window[] = {
	{ 900 * MS, 1005 * MS, kill_text },
};
static const struct fault_windows faults = { kill_window, 1, 1 };

/* What bankfit_judge made of a history and its final balances. */
struct fit {
	int rc;
	struct check_result r;
	struct buf msg, nums;
	struct bank_ops ops;
};

/*
 * Transfer i of `values` (JSON) by process i: invoked at i s, completed
 * 10 ms later as types[i] ("ok", "fail", "info"; "-": never); then the
 * final balances `final` (a missing account: -1) judged.
 */
static void judge(struct fit *x, const char *const *values,
		  const char *const *types, size_t n, const long long *final,
		  size_t max_report, const char *msg)
{
	long long bal[4];
	unsigned char present[4];

	memset(x, 0, sizeof(*x));
	bank_ops_init(&x->ops, &ledger, max_report);
	for (size_t i = 0; i < n; i++) {
		struct history_line l;

		memset(&l, 0, sizeof(l));
		l.line = 2 * i + 1;
		l.time = (int64_t)(i + 1) * NS_PER_SEC;
		l.process = (int)i;
		l.type = "invoke";
		l.f = "transfer";
		l.node = "up-0";
		l.value = values[i];
		l.value_len = strlen(values[i]);
		bank_ops_line(&x->ops, &l);
		if (!strcmp(types[i], "-"))
			continue;
		l.line++;
		l.time += 10 * MS;
		l.type = types[i];
		bank_ops_line(&x->ops, &l);
	}
	bank_ops_end(&x->ops);
	for (size_t k = 0; k < 4; k++) {
		bal[k] = final[k] < 0 ? 0 : final[k];
		present[k] = final[k] >= 0;
	}
	buf_addstr(&x->msg, msg, NULL);
	x->rc = bankfit_judge(&x->ops, &faults, bal, present, &x->r, &x->msg,
			      &x->nums);
}

static void fit_release(struct fit *x)
{
	check_result_release(&x->r);
	buf_release(&x->msg);
	buf_release(&x->nums);
	bank_ops_release(&x->ops);
}

#define T12 "{\"from\":1,\"to\":2,\"amount\":5}"
#define T21 "{\"from\":2,\"to\":1,\"amount\":5}"
#define T34 "{\"from\":3,\"to\":4,\"amount\":7}"

static void test_fit(void)
{
	const char *const v[] = { T12 }, *const t[] = { "ok" };
	const long long final[] = { 95, 105, 100, 100 };
	struct fit x;

	judge(&x, v, t, 1, final, 20, "");
	is_int(x.rc, 0, "an ok transfer applied: judged");
	is_str(buf_str(&x.r.details), ",\"transfers\":{\"ok\":1,\"fail\":0,"
	       "\"unknown\":0},\"unknown\":[],\"fitting_ways\":1,"
	       "\"differing_accounts\":[],\"explained_by\":[]", "the details");
	is_str(buf_str(&x.nums), " transfers=1 failed=0 unknown=0 applied=0 "
	       "not_applied=0 unresolved=0", "the numbers");
	is_int(x.msg.len, 0, "no failure");
	fit_release(&x);
}

static void test_lost(void)
{
	const char *const v[] = { T12 }, *const t[] = { "ok" };
	const long long final[] = { 100, 100, 100, 100 };
	struct fit x;

	judge(&x, v, t, 1, final, 20, "1 of 2 reads saw other than 400");
	is_str(buf_str(&x.r.details), ",\"transfers\":{\"ok\":1,\"fail\":0,"
	       "\"unknown\":0},\"unknown\":[],\"fitting_ways\":0,"
	       "\"differing_accounts\":[{\"account\":1,\"table\":\"acc_a\","
	       "\"final\":100,\"expected\":95},{\"account\":2,\"table\":"
	       "\"acc_b\",\"final\":100,\"expected\":105}],\"explained_by\":"
	       "[{\"lost\":\"transfer 1 -> 2 of 5 (line 2, process 0, up-0, "
	       "1.000s..1.010s)\",\"between\":[\"kill cdc from 0.900s to "
	       "1.005s\"]}]", "a lost ok transfer: the details");
	is_str(buf_str(&x.msg), "1 of 2 reads saw other than 400; the final "
	       "balances do not fit the transfers: account 1 holds 100, "
	       "expected 95, account 2 holds 100, expected 105 (2 accounts "
	       "differ); an ok transfer that did not apply would explain it: "
	       "transfer 1 -> 2 of 5 (line 2, process 0, up-0, "
	       "1.000s..1.010s); between: kill cdc from 0.900s to 1.005s",
	       "the message, after the one it held");
	fit_release(&x);
}

static void test_failed_applied(void)
{
	const char *const v[] = { T12 }, *const t[] = { "fail" };
	const long long final[] = { 95, 105, 100, 100 };
	struct fit x;

	judge(&x, v, t, 1, final, 20, "");
	ok(strstr(buf_str(&x.r.details), ",\"explained_by\":[{\"applied_fail"
		  "\":\"transfer 1 -> 2 of 5 (line 2, process 0, up-0, "
		  "1.000s..1.010s)\",\"between\":[\"kill cdc from 0.900s to "
		  "1.005s\"]}]") != NULL, "a failed transfer that applied: "
	   "explained by it");
	is_str(buf_str(&x.msg), "the final balances do not fit the "
	       "transfers: account 1 holds 95, expected 100, account 2 holds "
	       "105, expected 100 (2 accounts differ); a failed transfer that "
	       "applied would explain it: transfer 1 -> 2 of 5 (line 2, "
	       "process 0, up-0, 1.000s..1.010s); between: kill cdc from "
	       "0.900s to 1.005s", "the message");
	fit_release(&x);
}

static void test_unknown(void)
{
	const char *const v[] = { T12, T34 }, *const t[] = { "info", "-" };
	const char *const c[] = { T12, T21 }, *const ct[] = { "info", "info" };
	const long long applied[] = { 95, 105, 100, 100 };
	const long long none[] = { 100, 100, 100, 100 };
	const long long neither[] = { 90, 110, 100, 100 };
	struct fit x;

	judge(&x, v, t, 2, applied, 20, "");
	is_str(buf_str(&x.r.details), ",\"transfers\":{\"ok\":0,\"fail\":0,"
	       "\"unknown\":2},\"unknown\":[{\"line\":2,\"resolved\":"
	       "\"applied\",\"text\":\"transfer 1 -> 2 of 5 (line 2, process 0,"
	       " up-0, 1.000s..1.010s)\"},{\"line\":3,\"resolved\":\"not "
	       "applied\",\"text\":\"transfer 3 -> 4 of 7 (line 3, process 1, "
	       "up-0, 2.000s..never completed)\"}],\"fitting_ways\":1,"
	       "\"differing_accounts\":[],\"explained_by\":[]",
	       "an info transfer applied, one never completed not");
	is_str(buf_str(&x.nums), " transfers=0 failed=0 unknown=2 applied=1 "
	       "not_applied=1 unresolved=0", "the numbers");
	is_int(x.msg.len, 0, "no failure");
	fit_release(&x);

	judge(&x, c, ct, 2, none, 1, "");
	ok(strstr(buf_str(&x.r.details), "\"unknown\":[{\"line\":2,"
		  "\"resolved\":\"unresolved\",\"text\":\"transfer 1 -> 2 of 5 "
		  "(line 2, process 0, up-0, 1.000s..1.010s)\"}],"
		  "\"fitting_ways\":2,") != NULL,
	   "two that cancel out: two ways, unresolved, max_report 1 listed");
	is_str(buf_str(&x.nums), " transfers=0 failed=0 unknown=2 applied=0 "
	       "not_applied=0 unresolved=2", "the numbers");
	is_int(x.msg.len, 0, "no failure");
	fit_release(&x);

	judge(&x, v, t, 1, neither, 20, "");
	is_str(buf_str(&x.msg), "the final balances fit no outcome of the 1 "
	       "unknown transfers: account 1 holds 90, expected 100, account "
	       "2 holds 110, expected 100 (2 accounts differ)",
	       "an unknown transfer that fits no state");
	is_str(buf_str(&x.nums), " transfers=0 failed=0 unknown=1 applied=0 "
	       "not_applied=0 unresolved=1", "the numbers");
	fit_release(&x);
}

static void test_missing_and_many(void)
{
	const char *const v[] = { T12 }, *const t[] = { "ok" };
	const long long final[] = { 1, 2, 3, -1 };
	const char *many[21], *mt[21];
	struct fit x;

	judge(&x, v, t, 1, final, 1, "");
	is_str(buf_str(&x.r.details), ",\"transfers\":{\"ok\":1,\"fail\":0,"
	       "\"unknown\":0},\"unknown\":[],\"fitting_ways\":0,"
	       "\"differing_accounts\":[{\"account\":1,\"table\":\"acc_a\","
	       "\"final\":1,\"expected\":95}],\"explained_by\":[]",
	       "four differ: max_report 1 listed, none explained");
	is_str(buf_str(&x.msg), "the final balances do not fit the transfers: "
	       "account 1 holds 1, expected 95, account 2 holds 2, expected "
	       "105, account 3 holds 3, expected 100 (4 accounts differ)",
	       "three named, the missing fourth counted");
	fit_release(&x);

	judge(&x, v, t, 0, final, 20, "");
	ok(strstr(buf_str(&x.r.details), "{\"account\":4,\"table\":\"acc_b\","
		  "\"final\":null,\"expected\":100}") != NULL,
	   "a missing account's final is null");
	fit_release(&x);

	for (size_t i = 0; i < 21; i++) {
		many[i] = T12;
		mt[i] = "info";
	}
	judge(&x, many, mt, 21, final, 20, "");
	is_int(x.rc, -1, "21 unknown transfers: not judged");
	is_int(x.r.verdict, VERDICT_UNKNOWN, "unknown");
	is_str(x.r.message, "21 unknown transfers, more than the 20 the check "
	       "resolves", "saying so");
	is_str(buf_str(&x.r.details), ",\"transfers\":{\"ok\":0,\"fail\":0,"
	       "\"unknown\":21}", "the counts alone");
	fit_release(&x);
}

int main(void)
{
	test_fit();
	test_lost();
	test_failed_applied();
	test_unknown();
	test_missing_and_many();
	return done_testing();
}
