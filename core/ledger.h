#ifndef TICHAOS_LEDGER_H
#define TICHAOS_LEDGER_H

/*
 * A ledger: accounts 1..accounts kept in tables, round robin (account
 * `id` is the row with key `id` of tables[(id - 1) % ntables], its money
 * in `column`), each started with `initial`, whose total a workload keeps
 * constant (the bank's, docs/suite-format.md). What a check that judges
 * it needs (the bank check, docs/checkers.md); the workload's kind says
 * it keeps one (struct kind.ledger), so the check asks the suite's
 * workloads and knows none of them.
 */

#include <stddef.h>
#include <stdint.h>

struct ledger {
	char *const *tables;
	size_t ntables;
	const char *key;
	const char *column;
	int64_t accounts;
	int64_t initial;
};

/* The table account `id` (1..accounts) is in. */
static inline const char *ledger_table(const struct ledger *l, int64_t id)
{
	return l->tables[(size_t)(id - 1) % l->ntables];
}

#endif
