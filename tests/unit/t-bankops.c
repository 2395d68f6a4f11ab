/*
 * The bank check's operations (checkers/bankops.h), from worker records
 * as the history's reader hands them out: transfers filed ok, failed or
 * unknown with the ok ones' deltas, reads judged against the ledger's
 * total, the histories that cannot be judged, the operations' text and
 * the reads' details and message, exactly. t0525 reads whole stored
 * histories through the check.
 */
#include <stdio.h>
#include <string.h>

#include "checkers/bankops.h"
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

/* A worker's record; `value` JSON or NULL. */
static struct history_line rec(size_t line, int64_t ms, int process,
			       const char *type, const char *f,
			       const char *value)
{
	struct history_line l;

	memset(&l, 0, sizeof(l));
	l.line = line;
	l.time = ms * MS;
	l.process = process;
	l.type = type;
	l.f = f;
	l.node = "up-0";
	l.fault = -1;
	l.id = -1;
	l.value = value;
	l.value_len = value ? strlen(value) : 0;
	return l;
}

/* Records `v` into `ops`, as the check does: the first 1 stops. */
static int read_ops(struct bank_ops *ops, const struct history_line *v,
		    size_t n, size_t max_report)
{
	int rc = 0;

	bank_ops_init(ops, &ledger, max_report);
	for (size_t i = 0; i < n && !rc; i++)
		rc = bank_ops_line(ops, &v[i]);
	if (!rc)
		bank_ops_end(ops);
	return rc;
}

static const char *text_of(const struct bank_op *o)
{
	static char out[256];
	struct buf b = BUF_INIT;

	bank_op_text(&b, o);
	snprintf(out, sizeof(out), "%s", buf_str(&b));
	buf_release(&b);
	return out;
}

#define T1 "{\"from\":1,\"to\":2,\"amount\":5}"
#define T2 "{\"from\":3,\"to\":4,\"amount\":7}"
#define T3 "{\"from\":2,\"to\":3,\"amount\":1}"

static void test_transfers(void)
{
	const struct history_line v[] = {
		rec(1, 1000, 0, "invoke", "transfer", T1),
		rec(2, 1001, 1, "invoke", "transfer", T2),
		rec(3, 1010, 0, "ok", "transfer", T1),
		rec(4, 1011, 1, "fail", "transfer", T2),
		rec(5, 1020, 0, "invoke", "transfer", T3),
		rec(6, 1030, 0, "info", "transfer", T3),
		/* Never completed: unknown at the end. */
		rec(7, 1040, 2, "invoke", "transfer", T2),
		/* Not the bank's: passed over. */
		rec(8, 1050, 3, "invoke", "insert", NULL),
		rec(9, 1060, HISTORY_MONITOR, "info", "transfer", NULL),
		/* A read never completed: no transfer. */
		rec(10, 1070, 4, "invoke", "read", NULL),
	};
	struct bank_ops ops;

	is_int(read_ops(&ops, v, 10, 20), 0, "read whole");
	is_int(ops.expected, 400, "the total: accounts * initial");
	ok(ops.nok == 1 && ops.nfailed == 1 && ops.nunknown == 2,
	   "1 ok, 1 failed, 2 unknown (%zu, %zu, %zu)", ops.nok,
	   ops.nfailed, ops.nunknown);
	ok(ops.delta[0] == -5 && ops.delta[1] == 5 && ops.delta[2] == 0 &&
	   ops.delta[3] == 0, "the ok transfer's deltas alone");
	is_str(text_of(&ops.ok[0]), "transfer 1 -> 2 of 5 (line 3, process "
	       "0, up-0, 1.000s..1.010s)", "an ok transfer's text");
	is_str(ops.failed[0].type, "fail", "a failed one's type");
	is_str(text_of(&ops.unknown[0]), "transfer 2 -> 3 of 1 (line 6, "
	       "process 0, up-0, 1.020s..1.030s)", "an info transfer's text");
	is_str(text_of(&ops.unknown[1]), "transfer 3 -> 4 of 7 (line 7, "
	       "process 2, up-0, 1.040s..never completed)",
	       "one never completed: after the info ones, its invoke's line");
	is_int(ops.reads, 0, "no read completed");
	bank_ops_release(&ops);
}

static void test_reads(void)
{
	const struct history_line v[] = {
		rec(1, 1000, 1, "invoke", "read", NULL),
		rec(2, 1010, 1, "ok", "read",
		    "{\"total\":400,\"accounts\":4}"),
		rec(3, 2000, 1, "invoke", "replica_read",
		    "{\"replica\":\"down-0\"}"),
		rec(4, 2010, 1, "ok", "replica_read",
		    "{\"replica\":\"down-0\",\"total\":390,\"accounts\":4}"),
		rec(5, 3000, 1, "invoke", "read", NULL),
		rec(6, 3010, 1, "ok", "read",
		    "{\"total\":400,\"accounts\":3}"),
		rec(7, 4000, 1, "invoke", "read", NULL),
		rec(8, 4010, 1, "fail", "read", NULL),
		rec(9, 5000, 1, "invoke", "read", NULL),
		rec(10, 5010, 1, "ok", "read", "{\"total\":395}"),
	};
	struct bank_ops ops;

	is_int(read_ops(&ops, v, 10, 2), 0, "read whole");
	ok(ops.reads == 4 && ops.replica_reads == 1,
	   "4 ok reads, 1 of the replica (a failed one is none)");
	ok(ops.bad_total == 3 && ops.nbad == 2,
	   "3 bad, the first max_report 2 kept");
	is_str(text_of(&ops.bad[0]), "replica read of 390 (4 accounts) "
	       "(line 4, process 1, down-0, 2.000s..2.010s)",
	       "a replica read: named by its replica");
	is_str(text_of(&ops.bad[1]), "read of 400 (3 accounts) (line 6, "
	       "process 1, up-0, 3.000s..3.010s)", "a read of 3 accounts");
	ok(ops.good_before[0] == 1010 * MS && ops.good_before[1] == 1010 * MS,
	   "each with the last good read before it");
	is_int(ops.nok + ops.nfailed + ops.nunknown, 0, "no transfer");
	bank_ops_release(&ops);
}

static void test_unjudgeable(void)
{
	const struct {
		const char *value, *why;
	} bad[] = {
		{ "{\"from\":1,\"to\":2}", "no amount" },
		{ "{\"from\":0,\"to\":2,\"amount\":1}", "from 0" },
		{ "{\"from\":1,\"to\":5,\"amount\":1}", "to past them" },
		{ "{\"from\":1,\"to\":2,\"amount\":-1}", "a negative amount" },
		{ NULL, "no value" },
	};
	struct bank_ops ops;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const struct history_line v[] = {
			rec(1, 1000, 0, "invoke", "read", NULL),
			rec(2, 1010, 0, "ok", "read",
			    "{\"total\":400,\"accounts\":4}"),
			rec(3, 1020, 0, "invoke", "transfer", bad[i].value),
			rec(4, 1030, 0, "ok", "transfer", bad[i].value),
		};

		is_int(read_ops(&ops, v, 4, 20), 1, "%s: stops", bad[i].why);
		is_str(ops.bad_line, "history.jsonl:3: a transfer without "
		       "from, to and amount of the accounts", "%s: the line",
		       bad[i].why);
		bank_ops_release(&ops);
	}
	{
		const struct history_line v[] = {
			rec(1, 1000, 0, "invoke", "read", NULL),
			rec(2, 1010, 0, "ok", "read", NULL),
			rec(3, 1020, 0, "ok", "read", NULL),
		};

		is_int(read_ops(&ops, v, 3, 20), 1, "a second completion");
		is_str(ops.bad_line, "history.jsonl:3: a completion of read "
		       "without its invoke", "is one without its invoke");
		bank_ops_release(&ops);
	}
	{
		const struct history_line v[] = {
			rec(7, 1000, 40, "info", "transfer", T1),
		};

		is_int(read_ops(&ops, v, 1, 20), 1, "a process never seen");
		is_str(ops.bad_line, "history.jsonl:7: a completion of "
		       "transfer without its invoke", "is one too");
		bank_ops_release(&ops);
	}
}

/* t0525's read that saw 395 during a kill, with the kill's windows. */
static void test_judge_reads(void)
{
	const struct history_line v[] = {
		rec(1, 1000, 1, "invoke", "read", NULL),
		rec(2, 1010, 1, "ok", "read",
		    "{\"total\":400,\"accounts\":4}"),
		rec(14, 4000, 1, "invoke", "read", NULL),
		rec(14, 4010, 1, "ok", "read",
		    "{\"total\":395,\"accounts\":4}"),
	};
	char pause[] = "pause tidb-0", kill[] = "kill cdc";
	struct fault_window fw[] = {
		{ 500 * MS, 600 * MS, pause },	/* before the good read */
		{ 1500 * MS, 1540 * MS, kill },
	};
	struct fault_windows faults = { fw, 2, 2 };
	struct buf d = BUF_INIT, msg = BUF_INIT;
	struct bank_ops ops;

	read_ops(&ops, v, 4, 20);
	bank_ops_judge_reads(&ops, &faults, &d, &msg);
	is_str(buf_str(&d), ",\"reads\":2,\"replica_reads\":0,\"bad_reads\":1,"
	       "\"first_bad_reads\":[{\"line\":14,\"total\":395,\"accounts\":4,"
	       "\"text\":\"read of 395 (4 accounts) (line 14, process 1, up-0, "
	       "4.000s..4.010s)\",\"between\":[\"kill cdc from 1.500s to "
	       "1.540s\"]}]", "the details: the faults since the good read");
	is_str(buf_str(&msg), "1 of 2 reads saw other than 400 in 4 accounts; "
	       "first: read of 395 (4 accounts) (line 14, process 1, up-0, "
	       "4.000s..4.010s); between: kill cdc from 1.500s to 1.540s",
	       "the message");
	bank_ops_release(&ops);

	buf_reset(&d);
	buf_reset(&msg);
	read_ops(&ops, v, 2, 20);
	bank_ops_judge_reads(&ops, &faults, &d, &msg);
	is_str(buf_str(&d), ",\"reads\":1,\"replica_reads\":0,\"bad_reads\":0,"
	       "\"first_bad_reads\":[]", "no bad read: the counts");
	is_int(msg.len, 0, "and no message");
	bank_ops_release(&ops);
	buf_release(&d);
	buf_release(&msg);
}

int main(void)
{
	test_transfers();
	test_reads();
	test_unjudgeable();
	test_judge_reads();
	return done_testing();
}
