#ifndef TICHAOS_BANKOPS_H
#define TICHAOS_BANKOPS_H

/*
 * The bank check's operations (checkers/bankops.c): the transfers and
 * reads of the workload that keeps a ledger (core/ledger.h), read from
 * its history's worker records (docs/internals.md, History). A
 * transfer's value names its from, to and amount; a read's, as a
 * replica_read's, the total and accounts it saw, and a replica_read's
 * the replica it read. Each transfer ends ok, failed or unknown (info,
 * or invoked and never completed); each ok read saw the ledger's total
 * (accounts * initial) in every account, or is a bad one, kept with the
 * completion of the last good read before it.
 */

#include <stddef.h>
#include <stdint.h>

#include "checkers/faultwindow.h"
#include "core/ledger.h"
#include "lib/buf.h"
#include "lib/history.h"

/* An operation: a transfer, or a read. */
struct bank_op {
	size_t line;		/* of its completion, else its invoke */
	int process;
	char node[48];
	int64_t invoke, complete;	/* complete -1: never */
	const char *type;	/* "ok", "fail", "info" (static) */
	long long from, to, amount;
	long long total, accounts;	/* reads */
	int replica;		/* a read of the replica (replica_read) */
	int applied;		/* unknown: 1 yes, 0 no, -1 unresolved */
};

struct bank_ops {
	struct ledger w;	/* the workload's accounts */
	long long expected;		/* accounts * initial */
	size_t max_report;	/* bad reads kept */
	/* Open invokes, by process. */
	struct bank_op *open;
	unsigned char *is_open;
	size_t nopen;
	/* Transfers: ok, fail, and unknown (info, never completed). */
	struct bank_op *ok, *failed, *unknown;
	size_t nok, nfailed, nunknown, cok, cfailed, cunknown;
	long long *delta;	/* per account, from the ok ones */
	size_t reads, replica_reads;	/* ok; the replica's of them */
	struct bank_op *bad;	/* the first max_report bad reads */
	size_t nbad, bad_total;
	int64_t *good_before;	/* per bad read: the last good read's
				 * completion before it, or 0 */
	int64_t last_good;
	char bad_line[300];	/* a history that cannot be judged */
};

/*
 * Ready `ops` for a history of the ledger `w` (copied; what it points to
 * is borrowed), keeping the first `max_report` bad reads.
 */
void bank_ops_init(struct bank_ops *ops, const struct ledger *w,
		   size_t max_report);

/*
 * One record of the history: a worker's invoke or completion of a
 * transfer, read or replica_read; any other record is passed over. 0; 1
 * when the history cannot be judged, ops->bad_line saying why
 * ("history.jsonl:7: a transfer without from, to and amount of the
 * accounts", a completion without its invoke).
 */
int bank_ops_line(struct bank_ops *ops, const struct history_line *l);

/* The history ended: the transfers invoked and never completed are
 * unknown too. */
void bank_ops_end(struct bank_ops *ops);

/* Appended to `out`: "transfer 3 -> 7 of 5 (line 12, process 1, tidb-0,
 * 2.100s..2.110s)", "replica read of 395 (4 accounts) (...)". */
void bank_op_text(struct buf *out, const struct bank_op *o);

/*
 * The reads, appended to the details `d`: "reads", "replica_reads",
 * "bad_reads" and "first_bad_reads", each bad read with the faults
 * between the last good read before it and its completion; when one is
 * bad, the failure into `msg` (which holds none yet), naming the first.
 */
void bank_ops_judge_reads(const struct bank_ops *ops,
			  const struct fault_windows *faults, struct buf *d,
			  struct buf *msg);

void bank_ops_release(struct bank_ops *ops);

#endif
