/*
 * checkers/ids.c through the core API (checker_run), no cluster and no
 * command: the stored histories of tests/data/histories/, each with the
 * suite it ran, judged as `tichaos check` judges them (t0520-ids.sh runs
 * the same through the command); and histories made here, larger than the
 * reorder window, written out of time order as the history's flusher
 * writes them, and beyond what the window holds; ids dense and sparse;
 * tens of thousands of violations and duplicates, counted exactly.
 */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "checkers/checker.h"
#include "core/suite.h"
#include "lib/err.h"
#include "lib/log.h"
#include "runner/kinds.h"
#include "tests/unit/tap.h"
#include "tests/unit/tmpdir.h"

#define HISTORIES "tests/data/histories"
#define T0 1000000000LL		/* the first operation's invoke, ns */

/* The ids check of the run in `dir` into r (released by caller). */
static int judge_dir(const char *dir, struct check_result *r)
{
	struct check_ctx ctx = { NULL, NULL, NULL, -1, NULL };
	struct err e = ERR_INIT;
	struct suite s;
	char path[600];

	snprintf(path, sizeof(path), "%s/suite.yaml", dir);
	if (suite_load(&s, path, &tichaos_kinds, &e)) {
		diag("%s: %s", dir, e.msg);
		suite_release(&s);
		return -1;
	}
	ctx.suite = &s;
	ctx.run_dir = dir;
	checker_run(&ctx, &s.checks[0], r);
	suite_release(&s);
	return 0;
}

/* The ids check of the stored run `name` into r (released by caller). */
static int judge(const char *name, struct check_result *r)
{
	char dir[256];

	snprintf(dir, sizeof(dir), HISTORIES "/%s", name);
	return judge_dir(dir, r);
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

/* ---- histories made here ----------------------------------------------- */

/* The lines of a history, each with the thread (slot) that queued it. */
struct made {
	char **text;
	int *slot;
	long long *time;
	size_t n, cap;
};

static void add_line(struct made *h, int slot, long long time,
		     const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void add_line(struct made *h, int slot, long long time,
		     const char *fmt, ...)
{
	char text[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 1024;
		h->text = realloc(h->text, h->cap * sizeof(*h->text));
		h->slot = realloc(h->slot, h->cap * sizeof(*h->slot));
		h->time = realloc(h->time, h->cap * sizeof(*h->time));
	}
	h->text[h->n] = strdup(text);
	h->slot[h->n] = slot;
	h->time[h->n++] = time;
}

/* An insert by `process` (node tidb-0 or tidb-1 by its parity) that got
 * `id`: its invoke and ok lines. */
static void insert(struct made *h, int process, const char *invoke_table,
		   const char *table, long long invoke, long long done,
		   long long id)
{
	add_line(h, process, invoke, "{\"time\":%lld,\"process\":%d,\"type\":"
		 "\"invoke\",\"f\":\"insert\",\"table\":\"%s\",\"node\":"
		 "\"tidb-%d\"}", invoke, process, invoke_table, process % 2);
	add_line(h, process, done, "{\"time\":%lld,\"process\":%d,\"type\":"
		 "\"ok\",\"f\":\"insert\",\"table\":\"%s\",\"node\":\"tidb-%d\","
		 "\"id\":%lld}", done, process, table, process % 2, id);
}

/* Operation i of the usual shape: process i % 4, invoked at T0 + i us,
 * done 500 ns later. */
static void op(struct made *h, long long i, long long id)
{
	insert(h, (int)(i % 4), "test.t", "test.t", T0 + i * 1000,
	       T0 + i * 1000 + 500, id);
}

static void made_release(struct made *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->text[i]);
	free(h->text);
	free(h->slot);
	free(h->time);
	memset(h, 0, sizeof(*h));
}

/*
 * Write h to `path` as the history's flusher does: every `flush_ns` of
 * the lines' time, each slot in turn hands over the lines it queued by
 * then. Slot `held` (-1: none) is passed over until the others are all
 * written, as a thread stalled that long would be.
 */
static int write_flushed(const struct made *h, const char *path,
			 long long flush_ns, int held)
{
	FILE *f = fopen(path, "w");
	size_t at[16] = { 0 }, written = 0, others = 0;
	long long now = 0;

	if (!f)
		return -1;
	for (size_t i = 0; i < h->n; i++)
		others += h->slot[i] != held;
	while (written < h->n) {
		now += flush_ns;
		for (int s = 0; s < 16; s++) {
			if (s == held && written < others)
				continue;
			for (; at[s] < h->n; at[s]++) {
				if (h->slot[at[s]] != s)
					continue;
				if (h->time[at[s]] > now)
					break;
				fprintf(f, "%s\n", h->text[at[s]]);
				written++;
			}
		}
	}
	return fclose(f);
}

/* Write h to `path` in the order it was made. */
static int write_in_order(const struct made *h, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	for (size_t i = 0; i < h->n; i++)
		fprintf(f, "%s\n", h->text[i]);
	return fclose(f);
}

static int write_suite(struct tmpdir *t, const char *options)
{
	char text[600];

	snprintf(text, sizeof(text), "name: made\nduration: 10s\ndatabase: "
		 "test\ntables:\n  - name: t\n    columns: \"id int primary "
		 "key auto_increment\"\n  - name: u\n    columns: \"id int "
		 "primary key auto_increment\"\nworkloads:\n  - kind: autoid\n"
		 "    tables: t\n    threads: 2\nchecks:\n  - kind: ids\n%s",
		 options);
	return write_text(tmpdir_path(t, "suite.yaml"), text);
}

/* The details of r as one JSON object (caller decrefs). */
static json_t *details(const struct check_result *r)
{
	size_t size = r->details.len + 3;
	char *text = malloc(size);
	json_t *d;

	if (!text)
		return NULL;
	snprintf(text, size, "{%s}", r->details.len ? r->details.data : "");
	d = json_loads(text, 0, NULL);
	free(text);
	return d;
}

static const char *dstr(json_t *d, const char *key)
{
	const char *s = json_string_value(json_object_get(d, key));

	return s ? s : "(none)";
}

static long long dint(json_t *v, const char *path)
{
	char key[64];
	const char *dot;

	while ((dot = strchr(path, '.'))) {
		snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
		v = key[0] >= '0' && key[0] <= '9'
		    ? json_array_get(v, strtoul(key, NULL, 10))
		    : json_object_get(v, key);
		path = dot + 1;
	}
	v = path[0] >= '0' && path[0] <= '9'
	    ? json_array_get(v, strtoul(path, NULL, 10))
	    : json_object_get(v, path);
	return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

/*
 * Judge h as the run in t: with the suite of `options` (NULL: the one
 * written before), the history written in order (flush_ns 0) or as the
 * flusher writes it (write_flushed), into r and *d (the caller releases
 * both, judged_release). -1 with `n` tests skipped and h released when
 * it cannot be written.
 */
static int judge_made(struct tmpdir *t, struct made *h, const char *options,
		      long long flush_ns, int held, int n,
		      struct check_result *r, json_t **d)
{
	if ((options && write_suite(t, options)) ||
	    (flush_ns ? write_flushed(h, tmpdir_path(t, "history.jsonl"),
				      flush_ns, held)
		      : write_in_order(h, tmpdir_path(t, "history.jsonl"))) ||
	    judge_dir(t->dir, r)) {
		skip(n, "cannot write the history");
		made_release(h);
		return -1;
	}
	*d = details(r);
	return 0;
}

static void judged_release(struct check_result *r, json_t *d)
{
	json_decref(d);
	check_result_release(r);
}

/* ---- the reorder window ------------------------------------------------ */

/*
 * 60000 inserts of 4 processes (120000 invokes and completions, more
 * than the window holds), ids 1.. in invoke order but for one: id 100
 * again (a violation and a duplicate), with an owner change between it
 * and the insert before it.
 */
static void window_history(struct made *h)
{
	for (long long i = 0; i < 60000; i++) {
		op(h, i, i == 30000 ? 100 : i + 1);
		if (i == 29999)
			add_line(h, 9, T0 + 29999700, "{\"time\":%lld,"
				 "\"process\":\"monitor\",\"type\":\"info\","
				 "\"f\":\"owner\",\"target\":\"tidb/autoid/"
				 "leader\",\"value\":{\"from\":\"tidb-1\","
				 "\"to\":\"tidb-0\"}}", T0 + 29999700);
	}
}

static void expect_window_verdict(const struct check_result *r,
				  const char *what)
{
	json_t *d = details(r);

	is_str(verdict_name(r->verdict), "fail", "%s: fail", what);
	is_str(r->message, "test.t: id 100 (tidb-0, invoked 1.030s) after "
	       "id 30000 (tidb-1, done 1.029s); between: owner tidb/autoid/"
	       "leader tidb-1 -> tidb-0 at 1.029s", what);
	is_str(r->numbers, "inserts=60000 violations=1 duplicates=1 refused=0", "%s: "
	       "numbers", what);
	/* Both inserts that got 100, by completion: op 99 and op 30000. */
	is_int(dint(d, "duplicate_ids.0.count"), 2, "%s: id 100 twice",
	       what);
	is_int(dint(d, "duplicate_ids.0.ops.0.process") * 10 +
	       dint(d, "duplicate_ids.0.ops.1.process"), 30, "%s: the "
	       "duplicate's inserts by completion: op 99, op 30000", what);
	is_int(dint(d, "first.0.a.id"), 30000, "%s: A", what);
	json_decref(d);
}

static void test_window(struct tmpdir *t)
{
	struct made h = { 0 };
	struct check_result r;
	json_t *d;

	window_history(&h);
	/* Flushed every 50 us: each slot's lines behind the others' by up
	 * to 150 lines, within the window. */
	if (judge_made(t, &h, "", 50000, -1, 14, &r, &d))
		return;
	expect_window_verdict(&r, "within the window");
	is_str(dstr(d, "reread"), "(none)", "within the window: read once");
	judged_release(&r, d);

	/* Process 2 stalled until the others were all written: its first
	 * line, at 1.000s, comes after the window let out later ones; the
	 * whole file is read again, the verdict the same. */
	if (judge_made(t, &h, NULL, 50000, 2, 7, &r, &d))
		return;
	expect_window_verdict(&r, "beyond the window");
	is_str(dstr(d, "reread"), "history.jsonl:90002: the line at 1.000s "
	       "came after the reorder window had let out a later one",
	       "beyond the window: read again, saying why");
	judged_release(&r, d);
	made_release(&h);
}

/*
 * An insert whose ok names another table than its invoke, in flight
 * while the window let its invoke out: it is judged on the ok's table
 * (as always), after reading the file again.
 */
static void test_other_table(struct tmpdir *t)
{
	struct made h = { 0 };
	struct check_result r;
	json_t *d;

	for (long long i = 0; i < 40000; i++) {
		op(&h, i, i + 1);
		if (!i)
			add_line(&h, 4, T0 + 700, "{\"time\":%lld,\"process\""
				 ":4,\"type\":\"invoke\",\"f\":\"insert\","
				 "\"table\":\"test.u\"}", T0 + 700);
	}
	add_line(&h, 4, T0 + 41000000, "{\"time\":%lld,\"process\":4,"
		 "\"type\":\"ok\",\"f\":\"insert\",\"table\":\"test.t\","
		 "\"id\":40001}", T0 + 41000000);
	if (judge_made(t, &h, "", 50000, -1, 3, &r, &d))
		return;
	is_str(r.message, "1 table, 40001 inserts: ids unique and "
	       "increasing", "ok on another table: judged on it");
	is_str(r.numbers, "inserts=40001 violations=0 duplicates=0 refused=0",
	       "ok on another table: numbers");
	is_str(dstr(d, "reread"), "history.jsonl:80002: the line at 1.041s "
	       "is an ok insert on another table than its invoke's",
	       "ok on another table: read again, saying why");
	judged_release(&r, d);
	made_release(&h);
}

/*
 * A process's own lines out of its time order: 9 inserts of process 0
 * stamped after every other one (ids above all), then its next insert,
 * which would go back 18 places in its lane.
 */
static void test_own_order(struct tmpdir *t)
{
	struct made h = { 0 };
	struct check_result r;
	json_t *d;

	for (long long i = 0, late = 0; i < 1000; i++)
		if (i >= 400 && i <= 432 && i % 4 == 0)
			insert(&h, 0, "test.t", "test.t", T0 + 2000000 +
			       late * 1000, T0 + 2000000 + late * 1000 + 500,
			       2000 + late), late++;
		else
			op(&h, i, i + 1);
	if (judge_made(t, &h, "", 0, -1, 3, &r, &d))
		return;
	is_str(r.message, "1 table, 1000 inserts: ids unique and increasing",
	       "own order: pass");
	is_str(r.numbers, "inserts=1000 violations=0 duplicates=0 refused=0",
	       "own order: numbers");
	is_str(dstr(d, "reread"), "history.jsonl:873: the line at 1.000s is "
	       "out of its process's time order", "own order: read again, "
	       "saying why");
	judged_release(&r, d);
	made_release(&h);
}

/*
 * Two overlapping inserts get the largest id, 5; a later one gets 3. Its
 * A is the one of the two that completed first (process 1), as the
 * inserts are fed in completion order and a tie keeps the first.
 */
static void test_tie(struct tmpdir *t)
{
	struct made h = { 0 };
	struct check_result r;
	json_t *d;

	insert(&h, 0, "test.t", "test.t", T0, T0 + 2000, 5);
	insert(&h, 1, "test.t", "test.t", T0 + 1000, T0 + 1500, 5);
	insert(&h, 2, "test.t", "test.t", T0 + 3000, T0 + 3500, 3);
	if (judge_made(t, &h, "", 0, -1, 2, &r, &d))
		return;
	is_str(r.message, "test.t: id 3 (tidb-0, invoked 1.000s) after id 5 "
	       "(tidb-1, done 1.000s); no fault or owner change between",
	       "a tie for the largest id: the first completed is A");
	is_str(r.numbers, "inserts=3 violations=1 duplicates=1 refused=0",
	       "a tie: numbers");
	judged_release(&r, d);
	made_release(&h);
}

/* ---- ids dense and sparse, counts -------------------------------------- */

/*
 * 200000 inserts, ids 1.. in invoke order, but every tenth from op 15 on
 * gets the id of the insert five before it (19999 violations), and 14
 * inserts from op 150000 on every 100th get 7 (id 7 returned 15 times,
 * 14 violations). Those 14 are the ones whose ids ops 150005, 150105, ...
 * would have repeated: 19999 - 14 ids twice, and 7.
 */
static void dense_history(struct made *h)
{
	for (long long i = 0; i < 200000; i++) {
		long long id = i + 1;

		if (i % 10 == 5 && i >= 15)
			id = i - 4;
		if (i >= 150000 && i < 151400 && i % 100 == 0)
			id = 7;
		op(h, i, id);
	}
}

static void test_dense(struct tmpdir *t)
{
	struct made h = { 0 };
	struct check_result r;
	json_t *d;

	dense_history(&h);
	if (judge_made(t, &h, "", 0, -1, 7, &r, &d))
		return;
	is_str(r.message, "test.t: id 11 (tidb-1, invoked 1.000s) after id "
	       "15 (tidb-0, done 1.000s); no fault or owner change between",
	       "dense: the first violation");
	is_str(r.numbers, "inserts=200000 violations=20013 duplicates=19986 refused=0",
	       "dense: every violation and duplicate counted");
	is_int(json_array_size(json_object_get(d, "first")), 20,
	       "dense: max_report of them listed");
	is_int(dint(d, "first.19.b.id") * 1000 + dint(d, "first.19.a.id"),
	       201LL * 1000 + 205, "dense: the 20th by invoke: op 205");
	is_int(json_array_size(json_object_get(d, "duplicate_ids")), 20,
	       "dense: max_report duplicates listed");
	is_int(dint(d, "duplicate_ids.0.id"), 7, "dense: the smallest first");
	is_int(dint(d, "duplicate_ids.19.id"), 191, "dense: up to 191");
	judged_release(&r, d);

	/* Without monotonic, the duplicates speak: id 7, 15 times, 10 of
	 * its inserts listed by completion. */
	if (judge_made(t, &h, "    monotonic: false\n", 0, -1, 6, &r, &d))
		return;
	is_str(r.message, "test.t: id 7 returned 15 times: tidb-0 (done "
	       "1.000s), tidb-0 (done 1.150s), tidb-0 (done 1.150s) and 12 "
	       "more", "dense: the first duplicate, 15 times");
	is_str(r.numbers, "inserts=200000 violations=0 duplicates=19986 refused=0",
	       "dense, unique only: numbers");
	is_int(dint(d, "duplicate_ids.0.count"), 15, "dense: its count");
	is_int(json_array_size(json_object_get(json_array_get(
	       json_object_get(d, "duplicate_ids"), 0), "ops")), 10,
	       "dense: 10 of its inserts listed");
	is_int(dint(d, "duplicate_ids.0.ops.0.line") * 1000000 +
	       dint(d, "duplicate_ids.0.ops.9.line"), 14LL * 1000000 + 301602,
	       "dense: op 6 first, op 150800 tenth");
	is_int(dint(d, "duplicate_ids.1.count") * 1000 +
	       dint(d, "duplicate_ids.1.id"), 2LL * 1000 + 11,
	       "dense: then id 11, twice");
	judged_release(&r, d);
	made_release(&h);
}

/* id k of a sparse history: 2^44 apart from INT64_MIN up. */
static long long sparse(long long k)
{
	return (long long)((unsigned long long)INT64_MIN +
			   (unsigned long long)(k - 1) * (1ULL << 44));
}

static void test_sparse(struct tmpdir *t)
{
	struct made h = { 0 };
	struct check_result r;
	json_t *d;

	/* 50000 ids 2^44 apart, but op 40000 gets the first one again
	 * (INT64_MIN) and op 45000 that of op 29999. */
	for (long long i = 0; i < 50000; i++)
		op(&h, i, i == 40000 ? sparse(1) : i == 45000 ? sparse(30000)
		   : sparse(i + 1));
	if (judge_made(t, &h, "", 0, -1, 4, &r, &d))
		return;
	is_str(r.message, "test.t: id -9223372036854775808 (tidb-0, invoked "
	       "1.040s) after id -8519702187264180224 (tidb-1, done "
	       "1.039s); no fault or owner change between",
	       "sparse: the first violation");
	is_str(r.numbers, "inserts=50000 violations=2 duplicates=2 refused=0",
	       "sparse: numbers");
	ok(dint(d, "duplicate_ids.0.id") == INT64_MIN &&
	   dint(d, "duplicate_ids.0.count") == 2, "sparse: INT64_MIN twice");
	is_int(dint(d, "duplicate_ids.1.id"), sparse(30000),
	       "sparse: and the id of op 29999");
	judged_release(&r, d);
	made_release(&h);

	/* Dense ids, then one far off (2^62): the set turns into a hash
	 * set, and a duplicate of an id from before is still found. */
	for (long long i = 0; i < 20000; i++)
		op(&h, i, i == 10000 ? 1LL << 62 : i == 15000 ? 5 : i + 1);
	if (judge_made(t, &h, NULL, 0, -1, 3, &r, &d))
		return;
	is_str(r.message, "test.t: id 10002 (tidb-1, invoked 1.010s) after "
	       "id 4611686018427387904 (tidb-0, done 1.010s); no fault or "
	       "owner change between", "dense then far: the first violation");
	is_str(r.numbers, "inserts=20000 violations=9999 duplicates=1 refused=0",
	       "dense then far: every later insert a violation, one "
	       "duplicate");
	is_int(dint(d, "duplicate_ids.0.id") * 10 +
	       dint(d, "duplicate_ids.0.count"), 52, "dense then far: id 5, "
	       "twice");
	judged_release(&r, d);
	made_release(&h);
}

int main(void)
{
	struct tmpdir t;

	log_set_level(LOG_ERROR);
	plan(24 + 14 + 3 + 3 + 2 + 13 + 7);
	expect("autoid-52600", VERDICT_FAIL, "test.t: id 5 (tidb-0, invoked "
	       "3.600s) after id 4003 (tidb-1, done 3.410s); between: owner "
	       "tidb/autoid/leader tidb-1 -> tidb-0 at 3.500s, resign autoid "
	       "tidb-0 -> tidb-1 -> tidb-0 at 3.550s",
	       "inserts=10 violations=3 duplicates=0 refused=0");
	expect("clean", VERDICT_PASS, "1 table, 10 inserts: ids unique and "
	       "increasing", "inserts=10 violations=0 duplicates=0 refused=0");
	expect("duplicate", VERDICT_FAIL, "test.t: id 3 returned twice: "
	       "tidb-1 (done 2.040s), tidb-0 (done 2.050s)",
	       "inserts=6 violations=0 duplicates=1 refused=0");
	expect("ddl", VERDICT_PASS, "1 table, 6 inserts: ids unique and "
	       "increasing; 1 table excluded after DDL",
	       "inserts=6 violations=0 duplicates=0 refused=0");
	/* A pair wholly inside a partition: its time in effect, with who
	 * was on which side, is what was between them. */
	expect("partitioned", VERDICT_FAIL, "test.t: id 3 (tidb-0, invoked "
	       "3.600s) after id 4001 (tidb-1, done 3.210s); between: "
	       "partition tidb-0 (tidb-0 | tidb-1 pd-0) in effect from "
	       "3.005s to 6.010s", "inserts=5 violations=1 duplicates=0 refused=0");
	/* The id that goes back is one a row has: the primary key refused
	 * it (1062), and the check still sees it given out; a 1062 of
	 * another key, or of a key of two columns, is a failed insert. */
	expect("refused", VERDICT_FAIL, "test.t: id 3 (tidb-0, invoked "
	       "3.600s, refused by the primary key) after id 4003 (tidb-1, "
	       "done 3.410s); between: owner tidb/autoid/leader tidb-1 -> "
	       "tidb-0 at 3.500s, resign autoid tidb-0 -> tidb-1 -> tidb-0 "
	       "at 3.550s", "inserts=11 violations=1 duplicates=1 refused=1");
	/* A last line a kill cut short is not read. */
	expect("cut-line", VERDICT_PASS, "1 table, 10 inserts: ids unique "
	       "and increasing", "inserts=10 violations=0 duplicates=0 refused=0");
	/* A line that is no record: the one history reader says where. */
	expect("garbage", VERDICT_UNKNOWN, "history.jsonl:7:96: not JSON: "
	       "expected ',' or '}'", "");
	if (tmpdir_create(&t)) {
		skip(42, "no scratch directory");
		return exit_status();
	}
	test_window(&t);
	test_other_table(&t);
	test_own_order(&t);
	test_tie(&t);
	test_dense(&t);
	test_sparse(&t);
	tmpdir_remove(&t);
	return exit_status();
}
