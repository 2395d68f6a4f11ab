#ifndef TICHAOS_BANKDIFF_H
#define TICHAOS_BANKDIFF_H

/*
 * The bank check's balances on the two sides (checkers/bankdiff.c;
 * docs/checkers.md, bank): every account of a ledger (core/ledger.h)
 * read from an SQL node, as it is or at a TiDB snapshot, and the sides
 * compared: the downstream's balances after the barrier against the
 * upstream's; at a sync point, each side's total and accounts against
 * the ledger's too. An account is missing on a side that holds no row of
 * its key in its table; a row whose key names no account holds no money.
 */

#include <stddef.h>

#include "checkers/syncpoint_store.h"
#include "core/ledger.h"
#include "lib/buf.h"
#include "lib/err.h"

struct component;
struct sql;

/*
 * Every account's balance of ledger `w` in database `db`, read through
 * `s`: bal[k] and present[k] = 1 for account k+1 (both of w->accounts;
 * present[k] 0 when it is missing). 0, or -1 with `e` set.
 */
int bankdiff_read(struct sql *s, const struct ledger *w, const char *db,
		  long long *bal, unsigned char *present, struct err *e);

/*
 * The same of component `c` at TSO `ts` (SET @@tidb_snapshot), on a
 * connection of its own; a snapshot refused is `e`, naming `c` and the
 * statement.
 */
int bankdiff_read_at(const struct component *c, const struct ledger *w,
		     const char *db, const char *ts, long long *bal,
		     unsigned char *present, struct err *e);

/*
 * The downstream's balances `down` against the upstream's `up`: appended
 * to the details `d`, "downstream_differing" (the first `max_report`
 * accounts that differ, with both sides' balances, null when missing),
 * "upstream_total" and "downstream_total"; to `nums`,
 * " downstream_differing=N"; when an account differs, the failure to
 * `msg` (after "; " when it holds one), naming the first and the totals.
 */
void bankdiff_downstream(const struct ledger *w, size_t max_report,
			 const long long *up, const unsigned char *up_present,
			 const long long *down,
			 const unsigned char *down_present, struct buf *d,
			 struct buf *msg, struct buf *nums);

/*
 * Sync point `p`: the upstream's balances bal[0..accounts),
 * present[0..accounts) read at its primary_ts, the downstream's after
 * them (bal + accounts, present + accounts) at its secondary_ts. Its
 * entry appended to `d` as an object left open ({"primary_ts":...,
 * "first_differing":...), for the caller to close. 0 when both sides
 * hold every account, the ledger's total and the same balances; else 1,
 * what is wrong appended to `why`.
 */
int bankdiff_point(const struct ledger *w, const struct sync_point *p,
		   const long long *bal, const unsigned char *present,
		   struct buf *d, struct buf *why);

#endif
