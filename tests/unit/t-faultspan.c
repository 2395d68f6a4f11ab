/* lib/faultspan.c: the faults' spans, from the nemesis's records alone. */

#include <stdio.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/faultspan.h"
#include "lib/history.h"
#include "tests/unit/tap.h"

/* What the callback saw, one span a line: "step 1-2 kill tag 0". */
struct seen {
	struct buf said;
	size_t steps;		/* the tag of the next STEP */
	size_t stop_at;		/* return -1 at this span (from 1); 0: never */
	size_t n;
};

static int seen_span(const struct fault_span *s, size_t *tag, void *arg)
{
	struct seen *w = arg;
	static const char *const kinds[] = { "step", "unfinished",
					     "in-effect" };

	w->n++;
	buf_printf(&w->said, NULL, "%s %lld-%lld", kinds[s->kind],
		   (long long)s->start, (long long)s->end);
	if (s->kind == FAULT_SPAN_IN_EFFECT)
		buf_printf(&w->said, NULL, " of %zu%s", s->inject,
			   s->healed ? "" : " not healed");
	else
		buf_printf(&w->said, NULL, " %s %s", s->line->f,
			   s->line->target ? s->line->target : "-");
	if (s->kind == FAULT_SPAN_STEP)
		*tag = 10 + w->steps++;
	buf_addch(&w->said, '\n', NULL);
	return w->stop_at && w->n == w->stop_at ? -1 : 0;
}

/* A record of the history as its reader hands it out. */
static struct history_line rec(int64_t time, int process, const char *type,
			       const char *f, int fault, const char *holds,
			       int heal)
{
	struct history_line l;

	memset(&l, 0, sizeof(l));
	l.time = time;
	l.process = process;
	l.type = type;
	l.f = f;
	l.target = "cdc";
	l.fault = fault;
	l.id = -1;
	l.holds = holds;
	l.heal = heal;
	return l;
}

#define N HISTORY_NEMESIS

static const char *read_all(const struct history_line *v, size_t n,
			    int64_t last, size_t stop_at, int *rc)
{
	static char out[2048];
	struct fault_spans s;
	struct seen w;

	memset(&w, 0, sizeof(w));
	w.stop_at = stop_at;
	fault_spans_init(&s, seen_span, &w);
	*rc = 0;
	for (size_t i = 0; i < n && !*rc; i++)
		*rc = fault_spans_line(&s, &v[i]);
	if (!*rc)
		*rc = fault_spans_end(&s, last);
	fault_spans_release(&s);
	snprintf(out, sizeof(out), "%s", buf_str(&w.said));
	buf_release(&w.said);
	return out;
}

static void test_kill_healed(void)
{
	const struct history_line v[] = {
		rec(1, N, "invoke", "kill", 0, NULL, 0),
		rec(2, N, "info", "kill", 0, "down", 0),
		rec(3, 4, "ok", "insert", -1, NULL, 0),
		rec(5, N, "invoke", "restart", 0, NULL, 1),
		rec(6, N, "info", "restart", 0, NULL, 1),
	};
	int rc;

	is_str(read_all(v, 5, 9, 0, &rc),
	       "step 1-2 kill cdc\n"
	       "step 5-6 restart cdc\n"
	       "in-effect 2-6 of 10\n",
	       "a kill and its restart: two steps, then its time in effect");
	ok(rc == 0, "read whole");
}

static void test_unfinished_and_end(void)
{
	const struct history_line v[] = {
		rec(1, N, "invoke", "pause", 1, NULL, 0),
		rec(2, N, "info", "pause", 1, "paused", 0),
		rec(3, N, "invoke", "kill", 0, NULL, 0),
		rec(4, N, "invoke", "resign", 2, NULL, 0),
		rec(5, N, "info", "resign", 2, NULL, 0),
		rec(6, N, "invoke", "kill", 3, NULL, 0),
		rec(7, N, "fail", "kill", 3, "down", 0),
		rec(8, N, "invoke", "partition", 0, NULL, 0),
		rec(9, N, "info", "partition", 0, "cut", 0),
		rec(10, N, "invoke", "rejoin", 5, NULL, 1),
	};
	int rc;

	is_str(read_all(v, 10, 20, 0, &rc),
	       "step 1-2 pause cdc\n"
	       "unfinished 3-4 kill cdc\n"
	       "step 4-5 resign cdc\n"
	       "step 8-9 partition cdc\n"
	       "unfinished 10-20 rejoin cdc\n"
	       "in-effect 9-20 of 12 not healed\n"
	       "in-effect 2-20 of 10 not healed\n",
	       "an invoke cut by the next, a failed injection (no span), "
	       "the history's end: items in effect to it, in item order");
	ok(rc == 0, "read whole");
}

static void test_marks_decide(void)
{
	const struct history_line v[] = {
		/* A heal with nothing in effect: a step only. */
		rec(1, N, "info", "restart", 0, NULL, 1),
		/* No "holds": a step only, nothing in effect. */
		rec(2, N, "info", "kill", 0, NULL, 0),
		rec(3, N, "info", "restart", 0, NULL, 1),
		/* An item past any suite's: a step only. */
		rec(4, N, "info", "kill", 100000, "down", 0),
		/* The monitor's and a worker's records: not faults. */
		rec(5, HISTORY_MONITOR, "info", "owner", -1, "down", 1),
		rec(6, 2, "invoke", "insert", -1, NULL, 0),
		/* A heal that failed leaves it in effect. */
		rec(7, N, "info", "clock", 1, "skewed", 0),
		rec(8, N, "fail", "reset_clock", 1, NULL, 1),
	};
	int rc;

	is_str(read_all(v, 8, 9, 0, &rc),
	       "step 1-1 restart cdc\n"
	       "step 2-2 kill cdc\n"
	       "step 3-3 restart cdc\n"
	       "step 4-4 kill cdc\n"
	       "step 7-7 clock cdc\n"
	       "in-effect 7-9 of 14 not healed\n",
	       "the marks alone decide what is in effect");
	ok(rc == 0, "read whole");
}

static void test_stop(void)
{
	const struct history_line v[] = {
		rec(1, N, "info", "kill", 0, "down", 0),
		rec(2, N, "info", "restart", 0, NULL, 1),
		rec(3, N, "info", "kill", 0, "down", 0),
	};
	int rc;

	is_str(read_all(v, 3, 9, 2, &rc), "step 1-1 kill cdc\n"
	       "step 2-2 restart cdc\n", "the callback's -1 stops reading");
	ok(rc == -1, "and is returned");
}

int main(void)
{
	test_kill_healed();
	test_unfinished_and_end();
	test_marks_decide();
	test_stop();
	return done_testing();
}
