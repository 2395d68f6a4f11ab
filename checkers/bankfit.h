#ifndef TICHAOS_BANKFIT_H
#define TICHAOS_BANKFIT_H

/*
 * The bank check's final balances against its transfers
 * (checkers/bankfit.c; docs/checkers.md, bank): each account's final
 * balance is its initial one plus the ok transfers to it, minus those
 * from it, with the unknown transfers resolved. Every way of counting
 * each unknown one as applied or not is tried (at most
 * 2^BANKFIT_MAX_UNKNOWN), and one is applied when it is in every way
 * that makes the balances match, not applied when in none, unresolved
 * when in some. When no way matches, the accounts that differ are named,
 * and so are the ok transfers that alone would explain the difference
 * had they not applied, and the failed ones had they applied, each with
 * the faults from its invoke to its completion.
 */

#include "checkers/bankops.h"
#include "checkers/checker.h"
#include "checkers/faultwindow.h"
#include "lib/buf.h"

/* Unknown transfers resolved at most. */
#define BANKFIT_MAX_UNKNOWN 20

/*
 * The final balances `final` of ops's accounts (account k+1's is
 * final[k] when present[k], else it is missing) against ops's
 * transfers: each unknown transfer's `applied` set; appended to
 * r->details, "transfers", "unknown" (the first ops->max_report, how
 * each was resolved), "fitting_ways", "differing_accounts" and
 * "explained_by" (as many of each); to `nums`, the numbers' part
 * (" transfers=... unresolved=N"); when no way fits, the failure to
 * `msg` (after "; " when it holds one). 0, or -1 when there are more
 * than BANKFIT_MAX_UNKNOWN unknown transfers: r's verdict is unknown,
 * saying so, and only "transfers" is appended.
 */
int bankfit_judge(struct bank_ops *ops, const struct fault_windows *faults,
		  const long long *final, const unsigned char *present,
		  struct check_result *r, struct buf *msg, struct buf *nums);

#endif
