/*
 * What the ids check says (checkers/idverdict.h), no history: from a
 * judge's findings made here, the verdict, message and numbers of each
 * case (nothing to judge, every table excluded, a violation with the
 * events between, a duplicate id, a pass with and without exclusions),
 * and the details' members, exactly, in their order. t-ids and t0520
 * check the same on whole histories.
 */
#include <string.h>

#include "checkers/idverdict.h"
#include "lib/clock.h"
#include "lib/intern.h"
#include "tests/unit/tap.h"

#define MS NS_PER_MS

static char t_name[] = "test.t", u_name[] = "test.u";
static char n0[] = "tidb-0", n1[] = "tidb-1";
static char *names[] = { t_name, u_name };
static char *nodes[] = { n0, n1 };
static uint32_t by_name[] = { 0, 1 };

/* Two tables, t with 4 inserts, u with 1; nothing found. */
static void base(struct idjudging *j, struct idtable *tmeta,
		 struct idevents *evs)
{
	memset(tmeta, 0, 2 * sizeof(*tmeta));
	memset(evs, 0, sizeof(*evs));
	tmeta[0].inserts = 4;
	tmeta[1].inserts = 1;
	*j = (struct idjudging){ .tmeta = tmeta, .tables = names,
				 .ntables = 2, .nodes = nodes, .events = evs,
				 .max_report = 20, .inserts = 5,
				 .monotonic = 1, .unique = 1,
				 .order = by_name, .checked = 2, .nops = 5 };
}

/* r's verdict of j, and its details with cut_line and reread. */
static void say(const struct idjudging *j, struct check_result *r,
		size_t cut_line, const char *reread)
{
	memset(r, 0, sizeof(*r));
	r->details = (struct buf)BUF_INIT;
	ok(!idverdict_details(j, cut_line, reread, &r->details, NULL),
	   "details written");
	idverdict(j, r);
}

static void test_skip(void)
{
	struct idtable tmeta[2];
	struct idevents evs;
	struct idjudging j;
	struct check_result r;

	base(&j, tmeta, &evs);
	j.inserts = j.nops = j.checked = 0;
	j.scoped = 1;
	say(&j, &r, 0, "");
	is_str(r.message, "no ok inserts with ids in the history on the "
	       "checked tables", "skip: no insert of the checked tables");
	ok(r.verdict == VERDICT_SKIP, "skip: the verdict");
	check_result_release(&r);

	base(&j, tmeta, &evs);
	j.nops = j.checked = 0;
	j.nexcluded = 2;
	tmeta[0] = (struct idtable){ .excluded = 1, .because = "truncate",
				     .how = "ok", .at = 2000 * MS,
				     .inserts = 4 };
	tmeta[1] = (struct idtable){ .excluded = 1, .because = "drop",
				     .how = "invoke", .at = 2500 * MS,
				     .inserts = 1 };
	say(&j, &r, 0, "");
	is_str(r.message, "no table to check: test.t excluded after "
	       "truncate at 2.000s and more", "skip: every table excluded");
	is_str(r.details.data, "\"tables\":0,\"inserts\":0,\"refused\":0,"
	       "\"violations\":0,\"duplicates\":0,\"excluded\":[{\"table\":\"test.t\","
	       "\"because\":\"truncate\",\"type\":\"ok\",\"at\":2.000,"
	       "\"inserts\":4},{\"table\":\"test.u\",\"because\":\"drop\","
	       "\"type\":\"invoke\",\"at\":2.500,\"inserts\":1}],\"first\":[],"
	       "\"duplicate_ids\":[]", "skip: the excluded in the details");
	check_result_release(&r);
}

static void test_fail(void)
{
	struct idtable tmeta[2];
	struct idevents evs;
	struct idjudging j;
	struct check_result r;
	struct idpair pair = {
		{ 3400 * MS, 3410 * MS, 4003, 0, 1, 1, 18, 0 },
		{ 3600 * MS, 3610 * MS, 5, 0, 0, 0, 21, 0 } };
	struct iddup dup = { 1, 7, 3, {
		{ 1000 * MS, 1010 * MS, 7, 1, INTERN_NONE, 3, 4, 0 },
		{ 1100 * MS, 1120 * MS, 7, 1, 1, 2, 6, 0 } }, 2 };
	struct history_line owner;

	base(&j, tmeta, &evs);
	memset(&owner, 0, sizeof(owner));
	owner.time = 3500 * MS;
	owner.f = "owner";
	owner.target = "tidb/autoid/leader";
	idevents_add(&evs, &owner, owner.time, 0);
	idevents_sort(&evs);
	j.pairs = &pair;
	j.npairs = j.violations = 1;
	j.dups = &dup;
	j.ndups = j.duplicates = 1;
	say(&j, &r, 31, "history.jsonl:9: the line at 1.000s is late");
	is_str(r.message, "test.t: id 5 (tidb-0, invoked 3.600s) after id "
	       "4003 (tidb-1, done 3.410s); between: owner "
	       "tidb/autoid/leader at 3.500s", "fail: the first violation");
	is_str(r.numbers, "inserts=5 violations=1 duplicates=1 refused=0",
	       "fail: numbers");
	is_str(r.details.data, "\"tables\":2,\"inserts\":5,\"refused\":0,"
	       "\"violations\":1,\"duplicates\":1,\"excluded\":[],\"first\":[{\"table\":"
	       "\"test.t\",\"a\":{\"process\":1,\"node\":\"tidb-1\","
	       "\"invoke\":3.400,\"complete\":3.410,\"id\":4003,\"line\":18},"
	       "\"b\":{\"process\":0,\"node\":\"tidb-0\",\"invoke\":3.600,"
	       "\"complete\":3.610,\"id\":5,\"line\":21},\"between\":[\"owner "
	       "tidb/autoid/leader at 3.500s\"]}],\"duplicate_ids\":[{"
	       "\"table\":\"test.u\",\"id\":7,\"count\":3,\"ops\":[{\"process\""
	       ":3,\"node\":null,\"invoke\":1.000,\"complete\":1.010,\"id\":7,"
	       "\"line\":4},{\"process\":2,\"node\":\"tidb-1\",\"invoke\":"
	       "1.100,\"complete\":1.120,\"id\":7,\"line\":6}]}],"
	       "\"ignored_last_line\":31,\"reread\":\"history.jsonl:9: the "
	       "line at 1.000s is late\"", "fail: the details, in order");
	check_result_release(&r);

	j.npairs = 0;
	say(&j, &r, 0, "");
	is_str(r.message, "test.u: id 7 returned 3 times: process 3 (done "
	       "1.010s), tidb-1 (done 1.120s)", "fail: a duplicate id when "
	       "no violation");
	check_result_release(&r);

	/* The second insert of id 7 failed: the primary key refused it. */
	dup.ops[1].refused = 1;
	j.refused = 1;
	say(&j, &r, 0, "");
	is_str(r.message, "test.u: id 7 returned 3 times: process 3 (done "
	       "1.010s), tidb-1 (refused by the primary key 1.120s)",
	       "fail: a duplicate id the primary key refused");
	ok(strstr(r.details.data, "\"refused\":1,") &&
	   strstr(r.details.data, "\"id\":7,\"line\":6,\"refused\":true}"),
	   "fail: counted, and the insert marked, in the details");
	check_result_release(&r);
	j.pairs = &pair;
	j.npairs = 1;
	pair.b.refused = 1;
	say(&j, &r, 0, "");
	ok(!strncmp(r.message, "test.t: id 5 (tidb-0, invoked 3.600s, refused "
		    "by the primary key) after id 4003", 75),
	   "fail: a violation by a refused id");
	check_result_release(&r);
	idevents_release(&evs);
}

static void test_pass(void)
{
	struct idtable tmeta[2];
	struct idevents evs;
	struct idjudging j;
	struct check_result r;

	base(&j, tmeta, &evs);
	say(&j, &r, 0, "");
	is_str(r.message, "2 tables, 5 inserts: ids unique and increasing",
	       "pass: both checks");
	ok(r.verdict == VERDICT_PASS, "pass: the verdict");
	check_result_release(&r);

	tmeta[1].excluded = 1;
	tmeta[1].because = "truncate";
	tmeta[1].how = "info";
	j.checked = 1;
	j.nops = 4;
	j.nexcluded = 1;
	j.monotonic = 0;
	say(&j, &r, 0, "");
	is_str(r.message, "1 table, 4 inserts: ids unique; 1 table excluded "
	       "after DDL", "pass: unique only, one table excluded");
	is_str(r.numbers, "inserts=4 violations=0 duplicates=0 refused=0",
	       "pass: numbers");
	check_result_release(&r);

	j.refused = 1;
	say(&j, &r, 0, "");
	is_str(r.message, "1 table, 4 inserts: ids unique (1 of them refused "
	       "by the primary key, their ids in no other insert); 1 table "
	       "excluded after DDL", "pass: a refused insert said");
	is_str(r.numbers, "inserts=4 violations=0 duplicates=0 refused=1",
	       "pass: its number");
	check_result_release(&r);
	j.unique = 0;
	j.monotonic = 1;
	say(&j, &r, 0, "");
	is_str(r.message, "1 table, 4 inserts: ids increasing (1 of them "
	       "refused by the primary key); 1 table excluded after DDL",
	       "pass: refused, not checked for repeats");
	check_result_release(&r);
}

int main(void)
{
	plan(6 + 12 + 10);
	test_skip();
	test_fail();
	test_pass();
	return exit_status();
}
