/*
 * List-append anomalies (checkers/elle.h) on histories written by hand,
 * one anomaly planted in each at a known place: the count of each kind,
 * and the first one's explanation, exactly; a clean history has none.
 * A transaction is written "a KEY VALUE" (append) and "r KEY V,V,..."
 * (a read; "r KEY -" read nothing), micro-operations split by ';'.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/elle.h"
#include "tests/unit/tap.h"

#define MAXT 8

static struct elle_txn txns[MAXT];
static size_t ntxns;

/* Transaction `spec` of status `st`, invoked at `inv` and completed at
 * `done` (ms), on the next line. */
static void txn(enum elle_status st, int64_t inv, int64_t done,
		const char *spec)
{
	struct elle_txn *t = &txns[ntxns++];
	char *copy = xstrdup(spec), *m = copy, *end;

	memset(t, 0, sizeof(*t));
	t->line = ntxns * 10;
	t->process = (int)ntxns - 1;
	t->status = st;
	t->invoke = inv * 1000000;
	t->complete = done < 0 ? -1 : done * 1000000;
	t->mops = xcalloc(8, sizeof(*t->mops));
	for (; m; m = end ? end + 1 : NULL) {
		struct elle_mop *op = &t->mops[t->nmops++];
		char kind, vals[128] = "";

		if ((end = strchr(m, ';')))
			*end = '\0';

		if (sscanf(m, " %c %lld %127s", &kind, (long long *)&op->key,
			   vals) < 3)
			abort();
		op->read = kind == 'r';
		if (!op->read) {
			op->value = strtoll(vals, NULL, 10);
			continue;
		}
		op->list = xcalloc(16, sizeof(*op->list));
		for (char *v = vals; strcmp(vals, "-") && *v;) {
			op->list[op->nlist++] = strtoll(v, &v, 10);
			v += *v == ',';
		}
	}
	free(copy);
}

static void reset(void)
{
	for (size_t i = 0; i < ntxns; i++) {
		for (size_t m = 0; m < txns[i].nmops; m++)
			free(txns[i].mops[m].list);
		free(txns[i].mops);
	}
	ntxns = 0;
}

/* The history checked: each kind's count as "KIND=N" where N > 0. */
static void counts(struct elle_result *r, char *out, size_t size)
{
	size_t len = 0;

	out[0] = '\0';
	elle_check(txns, ntxns, r);
	for (int k = 0; k < ELLE_NKINDS; k++)
		if (r->count[k])
			len += (size_t)snprintf(out + len, size - len,
						"%s%s=%zu", len ? " " : "",
						elle_kind_names[k],
						r->count[k]);
}

/* A history, its counts and the first explanation of kind `k`. */
static void expect(const char *what, const char *want, enum elle_kind k,
		   const char *first)
{
	struct elle_result r;
	char got[256];

	counts(&r, got, sizeof(got));
	is_str(got, want, "%s: the anomalies", what);
	if (first)
		is_str(buf_str(&r.first[k]), first, "%s: explained", what);
	elle_result_release(&r);
	reset();
}

int main(void)
{
	txn(ELLE_OK, 0, 1, "a 1 1");
	txn(ELLE_OK, 2, 3, "r 1 1; a 1 2; r 1 1,2");
	txn(ELLE_OK, 4, 5, "r 1 1,2; r 2 -");
	txn(ELLE_FAIL, 6, 7, "a 2 3");
	expect("a serial history and a failed append no one read", "",
	       ELLE_G0, NULL);

	txn(ELLE_OK, 0, 5, "a 1 1; a 2 2");
	txn(ELLE_OK, 0, 5, "a 1 3; a 2 4");
	txn(ELLE_OK, 6, 7, "r 1 1,3; r 2 4,2");
	expect("write cycle", "G0=1", ELLE_G0,
	       "T(line 10, process 0) -(ww key 1: appended after it, then 3)"
	       "-> T(line 20, process 1) -(ww key 2: appended after it, then "
	       "2)-> T(line 10, process 0)");

	txn(ELLE_OK, 0, 5, "a 1 1; r 2 2");
	txn(ELLE_OK, 0, 5, "a 2 2; r 1 1");
	expect("each read the other's append", "G1c=1", ELLE_G1C,
	       "T(line 10, process 0) -(wr key 1: read up to its 1)-> T(line "
	       "20, process 1) -(wr key 2: read up to its 2)-> T(line 10, "
	       "process 0)");

	txn(ELLE_OK, 0, 5, "a 1 1; a 2 2");
	txn(ELLE_OK, 0, 5, "r 1 -; r 2 2");
	txn(ELLE_OK, 6, 7, "r 1 1");
	expect("read skew", "G-single=1", ELLE_G_SINGLE,
	       "T(line 20, process 1) -(rw key 1: read without 1)-> T(line 10, "
	       "process 0) -(wr key 2: read up to its 2)-> T(line 20, process "
	       "1)");

	txn(ELLE_OK, 0, 5, "a 1 1; a 2 2");
	txn(ELLE_OK, 0, 5, "r 1 -; r 2 2");
	txn(ELLE_OK, 6, 7, "r 1 1");
	{
		struct elle_result r;
		char got[256];

		counts(&r, got, sizeof(got));
		is_uint(r.ncycle[ELLE_G_SINGLE], 2, "read skew: its cycle, "
			"step by step: two steps");
		is_str(r.cycle[ELLE_G_SINGLE][0].txn, "T(line 20, process 1)",
		       "first from the reader");
		is_str(r.cycle[ELLE_G_SINGLE][0].edge, "rw", "by its rw");
		is_int(r.cycle[ELLE_G_SINGLE][0].key, 1, "on key 1");
		is_int(r.cycle[ELLE_G_SINGLE][0].value, 1, "missing 1");
		is_str(r.cycle[ELLE_G_SINGLE][1].edge, "wr", "back by a wr");
		is_int(r.cycle[ELLE_G_SINGLE][1].key, 2, "on key 2");
		is_uint(r.ncycle[ELLE_G0], 0, "and no cycle of another kind");
		elle_result_release(&r);
		reset();
	}

	txn(ELLE_OK, 0, 5, "r 1 -; a 2 2");
	txn(ELLE_OK, 0, 5, "r 2 -; a 1 1");
	txn(ELLE_OK, 6, 7, "r 1 1; r 2 2");
	expect("write skew", "G2-item=1", ELLE_G2_ITEM,
	       "T(line 10, process 0) -(rw key 1: read without 1)-> T(line 20, "
	       "process 1) -(rw key 2: read without 2)-> T(line 10, process "
	       "0)");

	txn(ELLE_FAIL, 0, 1, "a 1 5");
	txn(ELLE_OK, 2, 3, "r 1 5");
	expect("a failed append read", "G1a=1", ELLE_G1A,
	       "key 1: 5 was read, appended by T(line 10, process 0), which "
	       "failed (aborted read)");

	txn(ELLE_OK, 0, 5, "a 1 1; a 1 2");
	txn(ELLE_OK, 1, 4, "r 1 1");
	txn(ELLE_OK, 6, 7, "r 1 1,2");
	/* Its read and the append after make a cycle with one rw, too. */
	expect("an intermediate read", "G1b=1 G-single=1", ELLE_G1B,
	       "key 1: T(line 20, process 1) read up to 1, which T(line 10, "
	       "process 0) appended before it appended 2 (intermediate read)");

	txn(ELLE_OK, 0, 1, "a 1 1; r 1 -");
	txn(ELLE_OK, 2, 3, "a 2 8");
	txn(ELLE_OK, 4, 5, "r 2 8; a 2 9; r 2 8");
	expect("reads against the transaction's own", "internal=2",
	       ELLE_INTERNAL, "key 1: T(line 10, process 0) read [], which "
	       "contradicts its own appends");

	txn(ELLE_OK, 0, 1, "a 1 1");
	txn(ELLE_OK, 0, 1, "a 1 2");
	txn(ELLE_OK, 2, 3, "r 1 1,2");
	txn(ELLE_OK, 2, 3, "r 1 2");
	expect("two orders of one key", "incompatible-order=1",
	       ELLE_INCOMPATIBLE, "key 1: T(line 40, process 3) read [2], not "
	       "a prefix of the longest read [1 2]");

	txn(ELLE_OK, 0, 1, "a 1 1");
	txn(ELLE_OK, 2, 3, "r 1 1,1");
	txn(ELLE_OK, 4, 5, "r 2 99");
	expect("an element twice, one no one appended", "duplicate=1 garbage=1",
	       ELLE_DUPLICATE, "key 1: 1 is in its version order twice");

	txn(ELLE_OK, 0, 1, "a 1 1");
	txn(ELLE_OK, 0, 1, "a 1 2");
	txn(ELLE_OK, 2, 3, "r 1 2");
	expect("an ok append a later read lacks", "lost=1", ELLE_LOST,
	       "key 1: T(line 10, process 0) appended 1 and committed; T(line "
	       "30, process 2), begun after, read the key without it (1 "
	       "elements)");

	txn(ELLE_OK, 0, 1, "a 1 7");
	txn(ELLE_INFO, 0, -1, "a 2 7");
	expect("one value appended twice", "duplicate-append=1",
	       ELLE_DUP_APPEND, "7 was appended twice: by T(line 10, process "
	       "0) and by T(line 20, process 1)");

	ok(elle_forbidden(ELLE_SNAPSHOT_ISOLATION, ELLE_G_SINGLE) &&
	   !elle_forbidden(ELLE_SNAPSHOT_ISOLATION, ELLE_G2_ITEM) &&
	   elle_forbidden(ELLE_SERIALIZABLE, ELLE_G2_ITEM) &&
	   !elle_forbidden(ELLE_READ_COMMITTED, ELLE_G_SINGLE) &&
	   elle_forbidden(ELLE_READ_COMMITTED, ELLE_G1C) &&
	   elle_forbidden(ELLE_READ_COMMITTED, ELLE_LOST),
	   "what each model forbids");
	return done_testing();
}
