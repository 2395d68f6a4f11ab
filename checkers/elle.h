#ifndef TICHAOS_ELLE_H
#define TICHAOS_ELLE_H

/*
 * Isolation anomalies from a list-append history alone (checkers/elle.c),
 * as Elle infers them (Kingsbury and Alvaro, "Elle: Inferring Isolation
 * Anomalies from Experimental Observations", VLDB 2020; jepsen-io/elle's
 * list-append, whose Go port is pingcap/tipocket pkg/elle): every append
 * of a unique value to a key's list, every read of a key's whole list.
 *
 * The version order of each key is its longest read (every other read
 * must be a prefix of it). Between the transactions, three kinds of
 * dependency: ww (T1 appended x, T2 appended the element right after x),
 * wr (T2 read a list whose last element T1 appended), rw (T1 read a
 * list, and T2 appended the element that comes next). Cycles of them,
 * found in the strongly connected components of the graph, are Adya's
 * G0 (ww alone), G1c (ww and wr), G-single (exactly one rw) and G2-item
 * (two or more). Besides: G1a (a read of an append that failed), G1b (a
 * read that ends at an append its writer followed with another on that
 * key), internal (a read that contradicts its own transaction's earlier
 * read and appends), incompatible orders, duplicated elements, garbage
 * (a value no one appended to that key), lost appends (an ok append that
 * a read begun after its commit does not show), and duplicate appends
 * (the history itself appended one value twice).
 */

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"

enum elle_status { ELLE_OK, ELLE_FAIL, ELLE_INFO };

/* A micro-operation: an append of `value` to `key`, or a read of it. */
struct elle_mop {
	int read;		/* 0: append */
	int64_t key;
	int64_t value;		/* appends */
	int64_t *list;		/* reads that completed ok: the list read */
	size_t nlist;
};

struct elle_txn {
	/* MAY: what it is, when no transaction of the history ("the final
	 * read upstream"); NULL: named by its line and process. */
	const char *label;
	size_t line;		/* its completion's line in the history */
	int process;
	enum elle_status status;
	int64_t invoke, complete;	/* ns; complete -1: never */
	struct elle_mop *mops;
	size_t nmops;
};

/* What is judged an anomaly under each model (the suite's `model`). */
enum elle_model {
	ELLE_READ_COMMITTED,
	ELLE_SNAPSHOT_ISOLATION,
	ELLE_SERIALIZABLE,
};

enum elle_kind {
	ELLE_G0,
	ELLE_G1A,
	ELLE_G1B,
	ELLE_G1C,
	ELLE_G_SINGLE,
	ELLE_G2_ITEM,
	ELLE_INTERNAL,
	ELLE_INCOMPATIBLE,
	ELLE_DUPLICATE,
	ELLE_GARBAGE,
	ELLE_LOST,
	ELLE_DUP_APPEND,
	ELLE_NKINDS
};

/* "G0", "G1a", ..., "duplicate-append". */
extern const char *const elle_kind_names[ELLE_NKINDS];

/* Whether `model` forbids anomalies of `kind`. */
int elle_forbidden(enum elle_model model, enum elle_kind kind);

/* A step of a cycle: from transaction `txn` by an edge to the next. */
struct elle_step {
	char txn[64];		/* its name (elle_txn_name) */
	const char *edge;	/* "ww", "wr", "rw" */
	int64_t key, value;	/* the element that makes the edge */
};

#define ELLE_CYCLE_MAX 16	/* steps of a cycle kept for a drawing */

struct elle_result {
	size_t count[ELLE_NKINDS];
	/* The first cycle of each cycle kind (G0, G1c, G-single, G2-item),
	 * step by step: at most ELLE_CYCLE_MAX of its ncycle steps. */
	struct elle_step cycle[ELLE_NKINDS][ELLE_CYCLE_MAX];
	size_t ncycle[ELLE_NKINDS];
	/* The first of each kind explained: the transactions, the edges
	 * and why each holds, one line ("" when none). */
	struct buf first[ELLE_NKINDS];
	size_t ok, failed, info;	/* transactions */
	size_t keys;
};

/*
 * Judge `n` transactions, in the history's order. Every anomaly of each
 * kind counted, the first explained; a cycle is counted once per
 * strongly connected component that has one, under its worst kind (the
 * shortest cycle of the fewest rw edges). The caller releases `r`.
 */
void elle_check(const struct elle_txn *txns, size_t n, struct elle_result *r);

void elle_result_release(struct elle_result *r);

/* "T(line 12, process 3)" of `t`, appended. */
void elle_txn_name(struct buf *out, const struct elle_txn *t);

#endif
