/*
 * checkers/ids.c through the core API (checker_run), no cluster and no
 * command: the stored histories of tests/data/histories/, each with the
 * suite it ran, judged as `tichaos check` judges them (t0520-ids.sh runs
 * the same through the command).
 */
#include <stdio.h>
#include <string.h>

#include "checkers/checker.h"
#include "core/suite.h"
#include "lib/err.h"
#include "lib/log.h"
#include "runner/kinds.h"
#include "tests/unit/tap.h"

#define HISTORIES "tests/data/histories"

/* The ids check of the stored run `name` into r (released by caller). */
static int judge(const char *name, struct check_result *r)
{
	struct check_ctx ctx = { NULL, NULL, NULL, -1, NULL };
	char dir[256], path[300];
	struct err e = ERR_INIT;
	struct suite s;

	snprintf(dir, sizeof(dir), HISTORIES "/%s", name);
	snprintf(path, sizeof(path), "%s/suite.yaml", dir);
	if (suite_load(&s, path, &tichaos_kinds, &e)) {
		diag("%s: %s", name, e.msg);
		suite_release(&s);
		return -1;
	}
	ctx.suite = &s;
	ctx.run_dir = dir;
	checker_run(&ctx, &s.checks[0], r);
	suite_release(&s);
	return 0;
}

static void expect(const char *name, enum verdict v, const char *message,
		   const char *numbers)
{
	struct check_result r;

	if (judge(name, &r)) {
		skip(3, "a stored run that cannot be loaded");
		return;
	}
	is_str(verdict_name(r.verdict), verdict_name(v), "%s: verdict",
	       name);
	is_str(r.message, message, "%s: message", name);
	is_str(r.numbers, numbers, "%s: numbers", name);
	check_result_release(&r);
}

int main(void)
{
	log_set_level(LOG_ERROR);
	plan(21);
	expect("autoid-52600", VERDICT_FAIL, "test.t: id 5 (tidb-0, invoked "
	       "3.600s) after id 4003 (tidb-1, done 3.410s); between: owner "
	       "tidb/autoid/leader tidb-1 -> tidb-0 at 3.500s, resign autoid "
	       "tidb-0 -> tidb-1 -> tidb-0 at 3.550s",
	       "inserts=10 violations=3 duplicates=0");
	expect("clean", VERDICT_PASS, "1 table, 10 inserts: ids unique and "
	       "increasing", "inserts=10 violations=0 duplicates=0");
	expect("duplicate", VERDICT_FAIL, "test.t: id 3 returned twice: "
	       "tidb-1 (done 2.040s), tidb-0 (done 2.050s)",
	       "inserts=6 violations=0 duplicates=1");
	expect("ddl", VERDICT_PASS, "1 table, 6 inserts: ids unique and "
	       "increasing; 1 table excluded after DDL",
	       "inserts=6 violations=0 duplicates=0");
	/* A pair wholly inside a partition: its time in effect, with who
	 * was on which side, is what was between them. */
	expect("partitioned", VERDICT_FAIL, "test.t: id 3 (tidb-0, invoked "
	       "3.600s) after id 4001 (tidb-1, done 3.210s); between: "
	       "partition tidb-0 (tidb-0 | tidb-1 pd-0) in effect from "
	       "3.005s to 6.010s", "inserts=5 violations=1 duplicates=0");
	/* A last line a kill cut short is not read. */
	expect("cut-line", VERDICT_PASS, "1 table, 10 inserts: ids unique "
	       "and increasing", "inserts=10 violations=0 duplicates=0");
	/* A line that is no record: the one history reader says where. */
	expect("garbage", VERDICT_UNKNOWN, "history.jsonl:7:96: not JSON: "
	       "expected ',' or '}'", "");
	return exit_status();
}
