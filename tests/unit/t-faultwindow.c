/*
 * The fault windows (checkers/faultwindow.h), from nemesis records
 * through lib/faultspan.c: what each span is named, their order, and the
 * windows named between two times, exactly as the bank check writes them
 * into its messages and details.
 */
#include <stdio.h>
#include <string.h>

#include "checkers/faultwindow.h"
#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/faultspan.h"
#include "lib/history.h"
#include "tests/unit/tap.h"

#define N HISTORY_NEMESIS
#define MS NS_PER_MS

/* A nemesis record as the history's reader hands it out. */
static struct history_line rec(int64_t time, const char *type,
			       const char *f, const char *target, int fault,
			       const char *holds, int heal)
{
	struct history_line l;

	memset(&l, 0, sizeof(l));
	l.time = time;
	l.process = N;
	l.type = type;
	l.f = f;
	l.target = target;
	l.fault = fault;
	l.id = -1;
	l.holds = holds;
	l.heal = heal;
	return l;
}

/* The windows of records `v`, read whole and sorted. */
static void read_windows(struct fault_windows *w,
			 const struct history_line *v, size_t n, int64_t last)
{
	struct fault_spans s;

	fault_spans_init(&s, fault_windows_span, w);
	for (size_t i = 0; i < n; i++)
		fault_spans_line(&s, &v[i]);
	if (last >= 0)
		fault_spans_end(&s, last);
	fault_spans_release(&s);
	fault_windows_sort(w);
}

/* The windows meeting [lo, hi]: text after `before`, and the JSON. */
static void between(const struct fault_windows *w, int64_t lo, int64_t hi,
		    const char *before, const char *text, const char *json,
		    const char *what)
{
	struct buf t = BUF_INIT, j = BUF_INIT;

	buf_addstr(&t, before, NULL);
	fault_windows_between(w, lo, hi, &t, &j);
	is_str(buf_str(&t), text, "%s: the text", what);
	is_str(buf_str(&j), json, "%s: the JSON", what);
	buf_release(&t);
	buf_release(&j);
}

/* t0525's kill of the CDC server and its restart. */
static void test_kill_and_restart(void)
{
	const struct history_line v[] = {
		rec(1500 * MS, "invoke", "kill", "cdc", 0, NULL, 0),
		rec(1540 * MS, "info", "kill", "cdc", 0, "down", 0),
		rec(3000 * MS, "invoke", "restart", "cdc", 0, NULL, 1),
		rec(3500 * MS, "info", "restart", "cdc", 0, NULL, 1),
	};
	struct fault_windows w = FAULT_WINDOWS_INIT;

	read_windows(&w, v, 4, -1);
	is_int(w.n, 3, "two steps and a time in effect");
	between(&w, 0, 4010 * MS, "read of 395",
		"read of 395; between: kill cdc from 1.500s to 1.540s, "
		"kill cdc in effect from 1.540s to 3.500s, restart cdc from "
		"3.000s to 3.500s",
		"[\"kill cdc from 1.500s to 1.540s\",\"kill cdc in effect from "
		"1.540s to 3.500s\",\"restart cdc from 3.000s to 3.500s\"]",
		"all three, by start");
	between(&w, 2000 * MS, 2500 * MS, "",
		"; between: kill cdc in effect from 1.540s to 3.500s",
		"[\"kill cdc in effect from 1.540s to 3.500s\"]",
		"inside the time in effect alone");
	between(&w, 3500 * MS, 3600 * MS, "",
		"; between: kill cdc in effect from 1.540s to 3.500s, "
		"restart cdc from 3.000s to 3.500s",
		"[\"kill cdc in effect from 1.540s to 3.500s\",\"restart cdc "
		"from 3.000s to 3.500s\"]",
		"a window ending at lo meets it");
	between(&w, 0, 1500 * MS, "",
		"; between: kill cdc from 1.500s to 1.540s",
		"[\"kill cdc from 1.500s to 1.540s\"]",
		"a window starting at hi meets it");
	between(&w, 3501 * MS, 9000 * MS, "x", "x", "[]",
		"none after: the text untouched, an empty array");
	fault_windows_release(&w);
	ok(w.v == NULL && w.n == 0, "released");
}

static void test_names_and_order(void)
{
	const struct history_line v[] = {
		/* No invoke: a window at one time; no target: f alone. */
		rec(5160 * MS + 999999, "info", "resign", NULL, 1, NULL, 0),
		/* Three from 2 s: by their ends. */
		rec(2000 * MS, "invoke", "pause", "tidb-0", 2, NULL, 0),
		rec(2900 * MS, "info", "pause", "tidb-0", 2, "paused", 0),
		rec(2000 * MS, "info", "clock", "pd-0", 3, "skewed", 0),
		/* An invoke never completed: no window. */
		rec(7000 * MS, "invoke", "kill", "cdc", 4, NULL, 0),
	};
	struct fault_windows w = FAULT_WINDOWS_INIT;

	read_windows(&w, v, 5, 8000 * MS);
	is_int(w.n, 5, "three steps, two times in effect to the end");
	between(&w, 0, 9000 * MS, "",
		"; between: clock pd-0 at 2.000s, "
		"pause tidb-0 from 2.000s to 2.900s, "
		"clock pd-0 in effect from 2.000s to 8.000s, "
		"pause tidb-0 in effect from 2.900s to 8.000s, "
		"resign at 5.160s",
		"[\"clock pd-0 at 2.000s\",\"pause tidb-0 from 2.000s to "
		"2.900s\",\"clock pd-0 in effect from 2.000s to 8.000s\","
		"\"pause tidb-0 in effect from 2.900s to 8.000s\",\"resign at "
		"5.160s\"]",
		"by start, then end; a time in effect named by its injection; "
		"times truncated to ms");
	fault_windows_release(&w);
}

static void test_at_most_twenty(void)
{
	struct history_line v[25];
	struct fault_windows w = FAULT_WINDOWS_INIT;
	struct buf t = BUF_INIT, j = BUF_INIT;
	size_t commas = 0;

	for (int i = 0; i < 25; i++)
		v[i] = rec((int64_t)(i + 1) * NS_PER_SEC, "info", "resign",
			   "ddl", i, NULL, 0);
	read_windows(&w, v, 25, -1);
	fault_windows_between(&w, 0, 100 * NS_PER_SEC, &t, &j);
	for (size_t i = 0; i < j.len; i++)
		commas += buf_str(&j)[i] == ',';
	is_int(commas, 19, "20 named of 25");
	ok(strstr(buf_str(&t), "resign ddl at 20.000s") &&
	   !strstr(buf_str(&t), "resign ddl at 21.000s"),
	   "the first 20: %s", buf_str(&t));
	buf_release(&t);
	buf_release(&j);
	fault_windows_release(&w);

	memset(&w, 0, sizeof(w));
	fault_windows_sort(&w);
	between(&w, 0, 1, "", "", "[]", "no window at all");
	fault_windows_release(&w);
}

int main(void)
{
	test_kill_and_restart();
	test_names_and_order();
	test_at_most_twenty();
	return done_testing();
}
