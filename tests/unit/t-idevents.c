/*
 * The events the ids check lists between two inserts
 * (checkers/idevents.h), no history: each record's text from its f,
 * target and value (sides, rounds, from and to); the faults' spans as
 * events, a time in effect named after its injection; which events meet
 * a window, in the order shown, and how each is shown; the time as the
 * check writes it. t-ids judges whole histories with them.
 */
#include <string.h>

#include "checkers/idevents.h"
#include "lib/buf.h"
#include "lib/clock.h"
#include "tests/unit/tap.h"

#define MS NS_PER_MS

/* A record at `time` of f, target and value (NULL: none). */
static struct history_line rec(int64_t time, const char *f,
			       const char *target, const char *value)
{
	struct history_line l;

	memset(&l, 0, sizeof(l));
	l.time = time;
	l.process = HISTORY_MONITOR;
	l.type = "info";
	l.f = f;
	l.target = target;
	l.value = value;
	l.value_len = value ? strlen(value) : 0;
	return l;
}

/* The text idevents_add makes of a record. */
static void expect_text(const char *f, const char *target, const char *value,
			const char *want, const char *what)
{
	struct idevents evs = { 0 };
	struct history_line l = rec(1, f, target, value);

	idevents_add(&evs, &l, 1, 0);
	is_str(evs.v[0].text, want, "text: %s", what);
	idevents_release(&evs);
}

static void test_text(void)
{
	expect_text("owner", "tidb/autoid/leader",
		    "{\"from\":\"tidb-1\",\"to\":\"tidb-0\"}",
		    "owner tidb/autoid/leader tidb-1 -> tidb-0", "from, to");
	expect_text("owner", "ticdc/owner", "{\"from\":null,\"to\":\"cdc-0\"}",
		    "owner ticdc/owner none -> cdc-0", "from null: none");
	expect_text("kill", "tidb-0", "{\"to\":\"tidb-1\"}",
		    "kill tidb-0 to tidb-1", "to only");
	expect_text("resign", "autoid", "{\"rounds\":[{\"from\":\"tidb-0\","
		    "\"to\":\"tidb-1\"},{\"to\":\"tidb-0\"}]}",
		    "resign autoid tidb-0 -> tidb-1 -> tidb-0", "rounds");
	expect_text("partition", "tidb-0", "{\"sides\":[[\"tidb-0\"],"
		    "[\"tidb-1\",\"pd-0\"]]}",
		    "partition tidb-0 (tidb-0 | tidb-1 pd-0)", "sides");
	expect_text("pause", NULL, NULL, "pause", "f alone");
}

static void test_spans(void)
{
	struct idevents evs = { 0 };
	struct history_line inject = rec(3005 * MS, "partition", "tidb-0",
					 "{\"sides\":[[\"tidb-0\"],"
					 "[\"tidb-1\"]]}");
	struct history_line invoke = rec(7000 * MS, "kill", "pd-0", NULL);
	struct fault_span step = { FAULT_SPAN_STEP, 3000 * MS, 3005 * MS,
				   &inject, 0, 0 };
	struct fault_span held = { FAULT_SPAN_IN_EFFECT, 3005 * MS,
				   6010 * MS, NULL, 0, 1 };
	struct fault_span open = { FAULT_SPAN_UNFINISHED, 7000 * MS,
				   9000 * MS, &invoke, 0, 0 };
	size_t tag = 99;

	ok(!idevents_span(&step, &tag, &evs) && tag == 0, "spans: a step, "
	   "tagged with its index");
	held.inject = tag;
	ok(!idevents_span(&held, &tag, &evs) &&
	   !idevents_span(&open, &tag, &evs) && evs.n == 3, "spans: its time "
	   "in effect and an unfinished invoke");
	is_str(evs.v[1].text, "partition tidb-0 (tidb-0 | tidb-1) in effect",
	       "spans: in effect, named after its injection");
	ok(evs.v[0].fault && evs.v[1].fault && evs.v[2].unfinished &&
	   !evs.v[1].unfinished, "spans: faults, the last unfinished");
	idevents_sort(&evs);
	is_int(evs.max_span, 3005 * MS, "spans: the longest, in effect");
	idevents_release(&evs);
}

/* The lines of the events that meet [lo, hi], "; "-separated. */
static const char *shown(const struct idevents *evs, int64_t lo, int64_t hi,
			 struct buf *b, size_t *all)
{
	struct idevents_window w;

	idevents_between(evs, lo, hi, &w);
	buf_reset(b);
	for (size_t i = 0; i < w.n; i++) {
		if (i)
			buf_addstr(b, "; ", NULL);
		idevent_line(b, w.ev[i], w.lo, w.hi);
	}
	*all = w.all;
	return buf_str(b);
}

static void test_between(void)
{
	struct idevents evs = { 0 };
	struct history_line owner = rec(3500 * MS, "owner", "x", NULL);
	struct history_line step = rec(3550 * MS, "resign", "autoid", NULL);
	struct history_line kill = rec(8000 * MS, "kill", "tidb-0", NULL);
	struct history_line far = rec(100 * MS, "owner", "y", NULL);
	struct buf b = BUF_INIT;
	size_t all;

	/* Added out of time order: the kill, from 1s to 8s, first. */
	idevents_add(&evs, &kill, 1000 * MS, 1);
	idevents_add(&evs, &far, 100 * MS, 0);
	idevents_add(&evs, &owner, 3500 * MS, 0);
	idevents_add(&evs, &step, 3400 * MS, 1);
	idevents_sort(&evs);
	is_str(shown(&evs, 3410 * MS, 3600 * MS, &b, &all),
	       "kill tidb-0 from 1.000s to 8.000s; owner x at 3.500s; "
	       "resign autoid at 3.550s", "between: by when each is shown");
	is_uint(all, 3, "between: three met the window");
	is_str(shown(&evs, 7000 * MS, 9000 * MS, &b, &all),
	       "kill tidb-0 at 8.000s", "between: a fault done inside the "
	       "window shown at its end");
	is_str(shown(&evs, 9000 * MS, 9500 * MS, &b, &all), "",
	       "between: none after every event");
	idevents_release(&evs);

	for (int i = 0; i < IDEVENTS_SHOWN + 5; i++) {
		struct history_line l = rec((1000 + i) * MS, "owner", "z",
					    NULL);

		idevents_add(&evs, &l, l.time, 0);
	}
	idevents_sort(&evs);
	shown(&evs, 0, 2000 * MS, &b, &all);
	is_uint(all, IDEVENTS_SHOWN + 5, "between: every one counted");
	is_str(strrchr(buf_str(&b), ';'), "; owner z at 1.049s",
	       "between: the first IDEVENTS_SHOWN listed");
	idevents_release(&evs);
	buf_release(&b);
}

static void test_secs(void)
{
	char s[32];

	is_str(ids_secs(s, sizeof(s), 12300 * MS + 999999), "12.300",
	       "secs: truncated to the ms");
	is_str(ids_secs(s, sizeof(s), -5 * MS), "-0.005", "secs: negative");
	is_str(ids_secs(s, sizeof(s), -999999), "0.000", "secs: under a ms "
	       "before 0: no sign");
	is_str(ids_secs(s, sizeof(s), 0), "0.000", "secs: 0");
}

int main(void)
{
	plan(6 + 5 + 6 + 4);
	test_text();
	test_spans();
	test_between();
	test_secs();
	return exit_status();
}
