/*
 * The ids check's reorder window (checkers/idwindow.h), no history: dues
 * of several lanes, each in its own order but not in each other's, let
 * out in time order once the window holds too many, and all at the
 * drain; at one time an invoke first, completions by invoke, then line;
 * a due that comes after a later one was let out, or too far back in
 * its own lane, refused saying why; a window of SIZE_MAX holding all and
 * sorting them. t-ids drives it through whole histories.
 */
#include <stdint.h>
#include <string.h>

#include "checkers/idwindow.h"
#include "tests/unit/tap.h"

#define MAX_DUES 64

/* The dues a test adds, by ref, and the refs in the order let out. */
struct feed {
	struct idwindow_key key[MAX_DUES];
	uint32_t out[MAX_DUES];
	size_t nout;
};

static struct idwindow_key key_of(const struct idwindow_due *d, void *arg)
{
	const struct feed *f = arg;

	return f->key[d->ref];
}

static void out(struct idwindow_due d, void *arg)
{
	struct feed *f = arg;

	f->out[f->nout++] = d.ref;
}

/* Due `ref` (time, kind, line, invoke) into lane *lane: idwindow_add's. */
static int add(struct idwindow *w, struct feed *f, uint32_t *lane,
	       uint32_t ref, int64_t time, uint32_t kind, uint32_t line,
	       int64_t invoke, const char **why)
{
	f->key[ref] = (struct idwindow_key){ time, kind, line, invoke };
	return idwindow_add(w, lane, (struct idwindow_due){ time, ref, kind },
			    why);
}

/* The refs let out, as "3 1 2". */
static const char *order(const struct feed *f, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = 0;
	for (size_t i = 0; i < f->nout && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%u",
					i ? " " : "", f->out[i]);
	return buf;
}

static void test_merge(void)
{
	struct feed f;
	struct idwindow w;
	uint32_t lane[3] = { IDWINDOW_NO_LANE, IDWINDOW_NO_LANE,
			     IDWINDOW_NO_LANE };
	const char *why = NULL;
	char buf[200];
	int refused = 0;

	memset(&f, 0, sizeof(f));
	idwindow_init(&w, 4, key_of, out, &f);
	/* Lane 0 at 10, 40, 70; lane 1 at 20, 50; lane 2 at 5, 30, 60,
	 * added lane by lane, each lane in its order. */
	refused |= add(&w, &f, &lane[0], 0, 10, IDWINDOW_INVOKE, 1, 0, &why);
	refused |= add(&w, &f, &lane[1], 1, 20, IDWINDOW_INVOKE, 2, 0, &why);
	refused |= add(&w, &f, &lane[2], 2, 5, IDWINDOW_INVOKE, 3, 0, &why);
	refused |= add(&w, &f, &lane[0], 3, 40, IDWINDOW_INVOKE, 4, 0, &why);
	is_uint(f.nout, 0, "merge: four held, none let out");
	ok(lane[0] != lane[1] && lane[1] != lane[2] && lane[0] != lane[2] &&
	   lane[2] != IDWINDOW_NO_LANE, "merge: a lane each");
	refused |= add(&w, &f, &lane[1], 4, 50, IDWINDOW_INVOKE, 5, 0, &why);
	is_str(order(&f, buf, sizeof(buf)), "2", "merge: a fifth lets out "
	       "the earliest, at 5");
	refused |= add(&w, &f, &lane[2], 5, 30, IDWINDOW_INVOKE, 6, 0, &why);
	refused |= add(&w, &f, &lane[2], 6, 60, IDWINDOW_INVOKE, 7, 0, &why);
	refused |= add(&w, &f, &lane[0], 7, 70, IDWINDOW_INVOKE, 8, 0, &why);
	ok(!refused, "merge: nothing refused");
	idwindow_drain(&w);
	is_str(order(&f, buf, sizeof(buf)), "2 0 1 5 3 4 6 7",
	       "merge: all in time order after the drain");
	idwindow_release(&w);
}

static void test_ties(void)
{
	struct feed f;
	struct idwindow w;
	uint32_t a = IDWINDOW_NO_LANE, b = IDWINDOW_NO_LANE;
	const char *why = NULL;
	char buf[200];

	memset(&f, 0, sizeof(f));
	idwindow_init(&w, 16, key_of, out, &f);
	/* At time 100: completions of invokes at 50 (line 9) and 40 (lines
	 * 8 and 7), and an invoke, in two lanes. */
	add(&w, &f, &a, 0, 100, IDWINDOW_COMPLETE, 9, 50, &why);
	add(&w, &f, &b, 1, 100, IDWINDOW_COMPLETE, 8, 40, &why);
	add(&w, &f, &a, 2, 100, IDWINDOW_COMPLETE, 7, 40, &why);
	add(&w, &f, &b, 3, 100, IDWINDOW_INVOKE, 10, 0, &why);
	idwindow_drain(&w);
	is_str(order(&f, buf, sizeof(buf)), "3 2 1 0", "ties: the invoke, "
	       "then completions by invoke, then line");
	idwindow_release(&w);
}

static void test_refused(void)
{
	struct feed f;
	struct idwindow w;
	uint32_t a = IDWINDOW_NO_LANE, b = IDWINDOW_NO_LANE;
	const char *why = NULL;
	uint32_t ref = 0;
	int rc = 0;

	memset(&f, 0, sizeof(f));
	idwindow_init(&w, 2, key_of, out, &f);
	for (int64_t t = 10; t <= 40; t += 10)
		rc |= add(&w, &f, &a, ref++, t, IDWINDOW_INVOKE, 1, 0, &why);
	is_uint(f.nout, 2, "late: two let out, at 10 and 20");
	ok(!rc, "late: in order, none refused");
	is_int(add(&w, &f, &b, ref++, 15, IDWINDOW_INVOKE, 1, 0, &why), 1,
	       "late: a due at 15 after 20 was let out is refused");
	is_str(why, "came after the reorder window had let out a later one",
	       "late: saying why");
	is_int(add(&w, &f, &b, ref++, 20, IDWINDOW_COMPLETE, 1, 5, &why), 0,
	       "late: one at 20 after the invoke at 20 is not");
	idwindow_release(&w);

	/* A lane of 20 dues held; one that goes back 16 places is taken,
	 * one that would go back 17 is refused. */
	memset(&f, 0, sizeof(f));
	idwindow_init(&w, 1000, key_of, out, &f);
	a = IDWINDOW_NO_LANE;
	ref = 0;
	for (int64_t t = 100; t < 120; t++)
		add(&w, &f, &a, ref++, t, IDWINDOW_INVOKE, 1, 0, &why);
	is_int(add(&w, &f, &a, ref++, 104, IDWINDOW_COMPLETE, 1, 0, &why), 0,
	       "own order: 16 places back taken");
	why = NULL;
	is_int(add(&w, &f, &a, ref++, 103, IDWINDOW_COMPLETE, 1, 0, &why), 1,
	       "own order: 18 places back refused");
	is_str(why, "is out of its process's time order",
	       "own order: saying why");
	idwindow_drain(&w);
	is_uint(f.nout, 21, "own order: what was taken let out");
	idwindow_release(&w);
}

static void test_all(void)
{
	struct feed f;
	struct idwindow w;
	uint32_t a = IDWINDOW_NO_LANE;
	const char *why = NULL;
	char buf[200];
	int rc = 0;

	memset(&f, 0, sizeof(f));
	idwindow_init(&w, SIZE_MAX, key_of, out, &f);
	for (uint32_t i = 0; i < 40; i++)
		rc |= add(&w, &f, &a, i, (int64_t)(40 - i) % 7 * 10 + i % 3,
			  IDWINDOW_INVOKE, i, 0, &why);
	ok(!rc && !f.nout, "all: forty held, out of order, none refused");
	is_uint(a, IDWINDOW_NO_LANE, "all: no lanes");
	idwindow_drain(&w);
	rc = 0;
	for (size_t i = 1; i < f.nout; i++) {
		struct idwindow_key *p = &f.key[f.out[i - 1]];
		struct idwindow_key *q = &f.key[f.out[i]];

		rc |= p->time > q->time ||
		      (p->time == q->time && p->line > q->line);
	}
	ok(f.nout == 40 && !rc, "all: let out sorted at the drain");
	/* At 0 ops 12 and 33 (by line), at 1 op 19, at 2 ops 5 and 26. */
	order(&f, buf, sizeof(buf));
	buf[13] = 0;
	is_str(buf, "12 33 19 5 26", "all: the earliest first");
	idwindow_release(&w);
}

int main(void)
{
	plan(5 + 1 + 9 + 4);
	test_merge();
	test_ties();
	test_refused();
	test_all();
	return exit_status();
}
