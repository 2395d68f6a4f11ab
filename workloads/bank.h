#ifndef TICHAOS_WORKLOADS_BANK_H
#define TICHAOS_WORKLOADS_BANK_H

/*
 * The bank workload's options and layout (docs/suite-format.md, bank).
 * The bank check (checkers/bank.c, docs/checkers.md) sees them through
 * the kind's ledger hook (core/ledger.h), not this header.
 *
 * Accounts 1..accounts live in the item's tables round robin: account
 * `id` is the row with key `id` of tables[(id - 1) % ntables], its money
 * in `column`. Each starts with `initial`, so the total is always
 * accounts * initial.
 */

#include <stdint.h>

#include "workloads/workload.h"

struct bank_opts {
	struct workload_opts common;
	const char *key;
	const char *column;
	int64_t accounts;
	int64_t initial;
	int64_t max_transfer;
	int64_t transfer_weight;
	int64_t read_weight;
	int64_t replica_read_weight;
	int cross_tables;
};

/* The table account `id` (1..accounts) is in. */
static inline const char *bank_table(const struct bank_opts *o, int64_t id)
{
	return o->common.tables.v[(size_t)(id - 1) % o->common.tables.n];
}

#endif
