/*
 * The ids check's set of ids (checkers/idset.h), no history: every id
 * added once is new and found again after, dense or sparse, across the
 * bitmap's growth down and up and its turn into a hash set; the ends of
 * int64 and 0 among them. t-ids judges whole histories with it.
 */
#include <stdint.h>

#include "checkers/idset.h"
#include "tests/unit/tap.h"

/* Add ids from..to (step), each new: how many were not. */
static int64_t add_range(struct idset *s, int64_t from, int64_t to,
			 int64_t step)
{
	int64_t again = 0;

	for (int64_t id = from; step > 0 ? id <= to : id >= to; id += step)
		again += idset_add(s, id);
	return again;
}

static void test_dense(void)
{
	struct idset s = { 0 };

	is_int(idset_add(&s, 5), 0, "dense: a first id is new");
	is_int(idset_add(&s, 5), 1, "dense: and found again");
	is_int(add_range(&s, 6, 100000, 1), 0, "dense: 6..100000 all new");
	is_int(add_range(&s, 4, -50000, -1), 0, "dense: 4 down to -50000 "
	       "all new");
	is_int(add_range(&s, -50000, 100000, 1), 150001, "dense: each found "
	       "again");
	is_uint(s.n, 150001, "dense: counted once each");
	ok(!s.sparse, "dense: still a bitmap");
	idset_release(&s);
	ok(!s.n && !s.bits, "released: empty");
	is_int(idset_add(&s, 5), 0, "released: 5 new again");
	idset_release(&s);
}

static void test_sparse(void)
{
	struct idset s = { 0 };

	add_range(&s, 1, 20000, 1);
	is_int(idset_add(&s, INT64_C(1) << 62), 0, "far: 2^62 new");
	ok(s.sparse, "far: the set turned into a hash set");
	is_int(add_range(&s, 1, 20000, 1), 20000, "far: the ids from before "
	       "found again");
	is_int(idset_add(&s, INT64_C(1) << 62), 1, "far: 2^62 again");
	is_int(add_range(&s, 20001, 40000, 1), 0, "far: new ones new");
	is_int(idset_add(&s, 0), 0, "sparse: 0 new");
	is_int(idset_add(&s, 0), 1, "sparse: 0 again");
	is_uint(s.n, 40002, "sparse: counted once each");
	idset_release(&s);

	/* Ids 2^44 apart from INT64_MIN up: sparse from the start. */
	for (int64_t k = 0; k < 50000; k++)
		idset_add(&s, INT64_MIN + k * (INT64_C(1) << 44));
	ok(s.sparse && s.n == 50000, "2^44 apart: 50000 in a hash set");
	is_int(idset_add(&s, INT64_MIN), 1, "2^44 apart: INT64_MIN again");
	is_int(idset_add(&s, INT64_MIN + 1), 0, "2^44 apart: INT64_MIN + 1 "
	       "new");
	idset_release(&s);
}

static void test_ends(void)
{
	struct idset s = { 0 };
	const int64_t ids[] = { INT64_MIN, -1, 0, 1, INT64_MAX };
	int news = 0, again = 0;

	for (int round = 0; round < 2; round++)
		for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
			*(round ? &again : &news) += idset_add(&s, ids[i]);
	is_int(news, 0, "ends: INT64_MIN, -1, 0, 1, INT64_MAX each new");
	is_int(again, 5, "ends: each found again");
	is_uint(s.n, 5, "ends: five ids");
	idset_release(&s);
}

int main(void)
{
	plan(9 + 11 + 3);
	test_dense();
	test_sparse();
	test_ends();
	return exit_status();
}
