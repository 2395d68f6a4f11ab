#ifndef TICHAOS_IDVERDICT_H
#define TICHAOS_IDVERDICT_H

/*
 * What the ids check says (checkers/idverdict.c), from what its judge
 * found (checkers/idjudge.h): the details, a JSON object's members
 * (docs/checkers.md: tables, inserts, violations, duplicates, excluded,
 * first with the events between each pair, duplicate_ids, and when so
 * ignored_last_line and reread), and the verdict with its one-line
 * message and numbers.
 */

#include <stddef.h>

#include "checkers/checker.h"
#include "checkers/idjudge.h"
#include "lib/buf.h"
#include "lib/err.h"

/*
 * Append the details' members to `d`, in their order: `cut_line` (0:
 * none) a last line the reading passed over, `reread` ("": not) why the
 * history was read again whole. 0, or -1 with `e` set at d's limit.
 */
int idverdict_details(const struct idjudging *j, size_t cut_line,
		      const char *reread, struct buf *d, struct err *e);

/*
 * r's verdict, message and numbers: skip with no ok insert or no table
 * left to check, fail naming the first violation (with the events
 * between its inserts) or else the first duplicate id, pass counting
 * the tables and inserts checked.
 */
void idverdict(const struct idjudging *j, struct check_result *r);

#endif
