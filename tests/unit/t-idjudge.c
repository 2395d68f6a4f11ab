/*
 * The ids check's judge (checkers/idjudge.h), no history: a table's
 * largest id and its violations, the first max_report kept by B and
 * every one counted; its duplicate ids, each counted once and the
 * smallest kept; exclusion after the earliest DDL; and at the end the
 * tables by name, the violations of all by B, the duplicate ids by table
 * name and id with the inserts handed to the evidence. t-ids judges
 * whole histories with it.
 */
#include <string.h>

#include "checkers/idjudge.h"
#include "lib/intern.h"
#include "tests/unit/tap.h"

/* Insert of table t invoked at `invoke` us, done 1 us later. */
static struct idop insert(uint32_t t, int64_t invoke, int64_t id)
{
	struct idop op = { invoke * 1000, invoke * 1000 + 1000, id, t,
			   INTERN_NONE, 0, (uint32_t)invoke, 0 };

	return op;
}

/* Feed inserts one after another, each invoked after the last's
 * completion (A its table's best then). */
static void feed(struct idtable *m, uint32_t t, const int64_t *ids,
		 size_t n, int64_t from, size_t max_report)
{
	for (size_t i = 0; i < n; i++) {
		struct idop b = insert(t, from + (int64_t)i * 10, ids[i]);

		idtable_completed(m, m->has_best ? &m->best : NULL, &b,
				  max_report);
	}
}

static void test_monotonic(void)
{
	struct idtable m;
	const int64_t ids[] = { 1, 2, 9, 3, 4, 10, 5, 11 };

	memset(&m, 0, sizeof(m));
	feed(&m, 0, ids, 8, 0, 2);
	is_uint(m.violations, 3, "monotonic: 3 and 4 after 9, 5 after 10");
	is_uint(m.nfirst, 2, "monotonic: max_report of them kept");
	ok(m.first[0].b.id + m.first[1].b.id == 7 &&
	   m.first[0].a.id == 9 && m.first[1].a.id == 9,
	   "monotonic: the first two by B: 3 and 4 after 9");
	is_int(m.best.id, 11, "monotonic: the largest is the best");
	idtable_exclude(&m, "truncate", "ok", 500);
	idtable_exclude(&m, "truncate", "invoke", 400);
	idtable_exclude(&m, "drop", "info", 450);
	ok(m.excluded && !m.first && !m.violations && !m.has_best,
	   "excluded: what was kept goes");
	ok(!strcmp(m.how, "invoke") && m.at == 400, "excluded: after the "
	   "earliest DDL");
	feed(&m, 0, ids, 8, 1000, 2);
	is_uint(m.violations, 0, "excluded: no longer judged");
	idtable_forget(&m);
}

static void test_unique(void)
{
	struct idtable m;
	const int64_t ids[] = { 5, 7, 5, 9, 5, 3, 7, 3, 1 };

	memset(&m, 0, sizeof(m));
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		idtable_seen(&m, ids[i], 2);
	is_uint(m.duplicates, 3, "unique: 5, 7 and 3 again, 5 counted once");
	is_uint(m.ndup_ids, 2, "unique: max_report kept");
	ok(m.dup_ids[0] + m.dup_ids[1] == 3 + 5, "unique: the smallest, 3 "
	   "and 5");
	idtable_forget(&m);
	ok(!m.dup_ids && !m.seen.n && !m.duplicates, "forget: all of it");
}

static void test_found(void)
{
	struct idtable tmeta[2];
	char u[] = "test.u", t[] = "test.t", *names[] = { u, t };
	struct idevents evs = { 0 };
	struct idjudging j;
	const int64_t t_ids[] = { 1, 4, 2, 4 }, u_ids[] = { 8, 8, 6 };

	memset(tmeta, 0, sizeof(tmeta));
	memset(&j, 0, sizeof(j));
	for (size_t i = 0; i < 4; i++)
		idtable_seen(&tmeta[1], t_ids[i], 3);
	for (size_t i = 0; i < 3; i++)
		idtable_seen(&tmeta[0], u_ids[i], 3);
	feed(&tmeta[1], 1, t_ids, 4, 100, 3);
	feed(&tmeta[0], 0, u_ids, 3, 50, 3);
	tmeta[0].inserts = 3;
	tmeta[1].inserts = 4;
	j = (struct idjudging){ .tmeta = tmeta, .tables = names,
				.ntables = 2, .events = &evs, .max_report = 3,
				.monotonic = 1, .unique = 1 };
	idjudge_prepare(&j);
	ok(j.order[0] == 1 && j.order[1] == 0, "found: tables by name");
	ok(j.checked == 2 && j.nops == 7 && !j.nexcluded, "found: two "
	   "checked, seven inserts");
	idjudge_violations(&j);
	is_uint(j.violations, 4, "found: every violation counted");
	ok(j.npairs == 3 && j.pairs[0].b.table == 0 &&
	   j.pairs[0].b.invoke == 60000 && j.pairs[2].b.invoke == 120000,
	   "found: the first three by B: u's two, then t's 2");
	is_uint(idjudge_duplicates(&j), 2, "found: two duplicate ids");
	ok(j.dups[0].table == 1 && j.dups[0].id == 4 && j.dups[1].table == 0 &&
	   j.dups[1].id == 8, "found: by table name, then id");
	for (int k = 0; k < 2; k++) {
		struct idop a = insert(1, 200 - k * 50, 4);
		struct idop b = insert(0, 300, 7);

		idjudge_evidence(&j, &a);
		idjudge_evidence(&j, &b);
	}
	idjudge_evidence_done(&j);
	ok(j.dups[0].count == 2 && j.dups[0].nops == 2 &&
	   j.dups[0].ops[0].invoke == 150000 && !j.dups[1].count,
	   "evidence: id 4's two inserts by completion, none other");
	idjudge_release(&j);
	idtable_forget(&tmeta[0]);
	idtable_forget(&tmeta[1]);
}

int main(void)
{
	plan(7 + 4 + 7);
	test_monotonic();
	test_unique();
	test_found();
	return exit_status();
}
