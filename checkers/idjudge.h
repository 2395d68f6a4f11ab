#ifndef TICHAOS_IDJUDGE_H
#define TICHAOS_IDJUDGE_H

/*
 * The ids check's judge (checkers/idjudge.c): what it keeps of each
 * table while the history is read, in time order, and what it finds in
 * that at the end. Per table: monotonic, the largest id completed so far
 * and the insert that got it, every violation counted and the first
 * max_report (by B) kept; unique, the ids seen and seen twice
 * (checkers/idset.h), every duplicate id counted and the smallest
 * max_report kept. At the end: the tables by name, those checked and
 * excluded, the first max_report violations of all, and the first
 * max_report duplicate ids (by table name and id), for whose inserts
 * the caller reads the history again (idjudge_evidence). The verdict
 * and the details are checkers/idverdict.h's.
 */

#include <stddef.h>
#include <stdint.h>

#include "checkers/idevents.h"
#include "checkers/idset.h"

/* Inserts listed per duplicate id. */
#define IDJUDGE_DUP_OPS 10

struct idop {			/* an ok insert with an id */
	int64_t invoke;
	int64_t complete;
	int64_t id;
	uint32_t table;
	uint32_t node;		/* INTERN_NONE: none recorded */
	int32_t process;
	uint32_t line:31;	/* of the ok record (or the fail one) */
	/* A failed insert the table's primary key refused: the id given
	 * out again, its row not written (1062, Duplicate entry). */
	uint32_t refused:1;
};
#define IDOP_LINE_MAX 0x7fffffffu

struct idpair {			/* a violation: b after a, id not above */
	struct idop a, b;
};

/*
 * The id a failed insert's `error` says the table's primary key refused
 * (1062: "Duplicate entry '42' for key 'PRIMARY'", 'test.t.PRIMARY'):
 * 1 with *id, 0 for any other error (another key, a key of several
 * columns: '4-x'). Such an insert is judged as one that got the id.
 */
int idjudge_refused_id(const char *error, int64_t *id);

/* A table as the judge keeps it; zeroed, one with nothing seen. */
struct idtable {
	unsigned in_scope:1;
	unsigned excluded:1;
	unsigned has_best:1;
	const char *because;	/* the first DDL op (borrowed, lasting) */
	const char *how;	/* "ok", "info", "invoke" (never completed) */
	int64_t at;
	size_t inserts;		/* refused ones included */
	size_t refused;
	/* Monotonic: the largest id completed so far, and the first
	 * max_report violations by B (a heap, the last one on top). */
	struct idop best;
	size_t violations;
	struct idpair *first;
	size_t nfirst;
	/* Unique: ids seen, ids seen twice, and the smallest max_report of
	 * those (a heap, the largest on top). */
	struct idset seen, twice;
	size_t duplicates;
	int64_t *dup_ids;
	size_t ndup_ids;
};

/*
 * Monotonic: insert `b` completed, in time order, `a` (NULL: none) the
 * table's best when b was invoked. b violates when its id is not above
 * a's; then b is the best if larger. Nothing on an excluded table.
 */
void idtable_completed(struct idtable *m, const struct idop *a,
		       const struct idop *b, size_t max_report);

/* Unique: `id` was returned on table m. */
void idtable_seen(struct idtable *m, int64_t id, size_t max_report);

/*
 * A DDL `op` (borrowed, lasting) on table m may have taken effect at
 * `at` (`how`: "ok", "info", "invoke"): what was kept to judge it goes,
 * and the earliest such DDL is the one it is excluded after.
 */
void idtable_exclude(struct idtable *m, const char *op, const char *how,
		     int64_t at);

/* Free what was kept to judge m; its exclusion and counts of inserts
 * stay. */
void idtable_forget(struct idtable *m);

struct iddup {			/* a listed duplicate id, with its inserts */
	uint32_t table;
	int64_t id;
	size_t count;
	struct idop ops[IDJUDGE_DUP_OPS];	/* the first, by completion */
	size_t nops;
};

/*
 * What judging finds, step by step. The caller sets the first part
 * (borrowed: it stays the caller's), the judge fills the rest.
 */
struct idjudging {
	struct idtable *tmeta;	/* by table index */
	char **tables;		/* their names */
	size_t ntables;
	char **nodes;		/* nodes' names, by struct idop's node */
	struct idevents *events;	/* all read */
	size_t max_report;
	size_t inserts;		/* ok inserts of the tables in scope */
	int scoped;		/* the `tables` option names some */
	int monotonic, unique;

	uint32_t *order;	/* tables by name */
	size_t checked, nexcluded;
	size_t nops;		/* inserts of the checked tables */
	size_t refused;		/* of them, refused by the primary key */
	size_t violations, npairs;	/* pairs: the first max_report */
	struct idpair *pairs;
	size_t duplicates;	/* counted; listed: dups */
	struct iddup *dups;
	struct iddup **dups_by_id;	/* by (table, id) */
	size_t ndups;
};

/* The tables by name, those checked and excluded counted; the events
 * in time order (idevents_sort). */
void idjudge_prepare(struct idjudging *j);

/* The first max_report violations of the checked tables, by B. */
void idjudge_violations(struct idjudging *j);

/*
 * The first max_report duplicate ids of the checked tables, by table
 * name and id (their dup_ids sorted in place), their inserts not yet
 * found: the number listed. When not 0, the caller reads the history
 * again, hands idjudge_evidence every insert of a checked table, then
 * calls idjudge_evidence_done.
 */
size_t idjudge_duplicates(struct idjudging *j);

/* The second reading: insert `op`, if it got a listed duplicate id. */
void idjudge_evidence(struct idjudging *j, const struct idop *op);

/* Every insert handed over: each listed id's, by completion. */
void idjudge_evidence_done(struct idjudging *j);

/* Free what the judge found; the caller's part stays. */
void idjudge_release(struct idjudging *j);

#endif
