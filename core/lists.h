#ifndef TICHAOS_LISTS_H
#define TICHAOS_LISTS_H

/*
 * Lists: keys kept in tables, round robin (key `k` is the row with `key`
 * = k of tables[(k - 1) % ntables], its list of appended integers,
 * comma-separated, in `column`), which a workload appends to in
 * transactions (the append workload's, docs/suite-format.md). What the
 * check that reads them at the end needs (the append check,
 * docs/checkers.md), every row of the tables whatever keys were used;
 * the workload's kind says it keeps them (struct kind.lists), so the
 * check asks the suite's workloads and knows none.
 */

#include <stddef.h>
#include <stdint.h>

struct lists {
	char *const *tables;
	size_t ntables;
	const char *key;
	const char *column;
};

#endif
