/* lib/history.c: JSON lines from many threads, flushing, SIGKILL. */

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/history.h"
#include "tests/unit/tap.h"
#include "tests/unit/tmpdir.h"

#define THREADS 8
#define PER_THREAD 5000

static void test_format(void)
{
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	struct history_event ok = { 1209100, 3, "ok", "insert", "test.t",
				    "up-0", NULL, 4001, NULL, NULL, 0, 0, 0,
				    NULL, 0 };
	struct history_event nem = { 5160000, HISTORY_NEMESIS, "info",
				     "resign", NULL, NULL, "autoid", -1,
				     NULL,
				     "{\"from\":\"tidb-0\",\"to\":\"tidb-1\"}", 0, 0, 0,
				     NULL, 0 };
	struct history_event bad = { 7, HISTORY_MONITOR, "fail", "x\"y",
				     NULL, NULL, NULL, -1, "line\nbreak\t\x01",
				     NULL, 0, 0, 0, NULL, 0 };

	history_format(&b, &ok, &e);
	is_str(buf_str(&b), "{\"time\":1209100,\"process\":3,\"type\":\"ok\","
	       "\"f\":\"insert\",\"table\":\"test.t\",\"node\":\"up-0\","
	       "\"id\":4001}\n", "an ok insert with its id (docs/internals.md)");
	buf_reset(&b);
	history_format(&b, &nem, &e);
	is_str(buf_str(&b), "{\"time\":5160000,\"process\":\"nemesis\","
	       "\"type\":\"info\",\"f\":\"resign\",\"target\":\"autoid\","
	       "\"value\":{\"from\":\"tidb-0\",\"to\":\"tidb-1\"}}\n",
	       "a nemesis record with a JSON value");
	buf_reset(&b);
	history_format(&b, &bad, &e);
	is_str(buf_str(&b), "{\"time\":7,\"process\":\"monitor\",\"type\":"
	       "\"fail\",\"f\":\"x\\\"y\",\"error\":\"line\\nbreak\\t\\u0001\"}"
	       "\n", "strings are escaped");
	buf_reset(&b);
	json_quote(&b, "caf\xc3\xa9 \xff\xc3(\xe2\x82", &e);
	is_str(buf_str(&b), "\"caf\xc3\xa9 \\ufffd\\ufffd(\\ufffd\\ufffd\"",
	       "UTF-8 is kept, other bytes become U+FFFD");
	buf_reset(&b);
	json_quote(&b, "\"a\\\\b\x7f\rcd\x1f\xe2\x82\xac\"", &e);
	is_str(buf_str(&b), "\"\\\"a\\\\\\\\b\\u007f\\rcd\\u001f\xe2\x82\xac\\\"\"",
	       "runs of plain text between escapes, at both ends");
	buf_reset(&b);
	json_quote(&b, "", &e);
	is_str(buf_str(&b), "\"\"", "the empty string");
	buf_reset(&b);
	{
		struct history_event big = { INT64_MAX, 2147483647, "ok",
					     "ddl", "d.t", NULL, NULL,
					     INT64_MAX, "", NULL, 1, 1, -1,
					     NULL, 0 };

		history_format(&b, &big, &e);
		is_str(buf_str(&b), "{\"time\":9223372036854775807,"
		       "\"process\":2147483647,\"type\":\"ok\",\"f\":\"ddl\","
		       "\"table\":\"d.t\",\"id\":9223372036854775807,"
		       "\"error\":\"\",\"ddl\":true,\"fault\":-1}\n",
		       "the largest numbers, an empty error, ddl and fault");
	}
	buf_release(&b);
	buf_init(&b, 20);
	ok(history_format(&b, &ok, &e) == -1 && err_isset(&e),
	   "a line past the buffer's limit fails");
	buf_release(&b);
}

struct writer {
	struct history *h;
	int process;
};

static void *write_many(void *arg)
{
	struct writer *w = arg;
	struct history_slot *s = history_slot(w->h);

	for (int i = 0; i < PER_THREAD; i++) {
		struct history_event ev = { history_now(w->h), w->process,
					    i % 2 ? "ok" : "invoke", "insert",
					    "test.t", "up-0", NULL,
					    i % 2 ? i : -1, NULL, NULL, 0, 0, 0,
					    NULL, 0 };

		history_record(s, &ev);
	}
	return NULL;
}

/*
 * Count whole lines "{...}\n". *complete: every line is whole, but for a
 * last one cut short without its newline (a write cut by SIGKILL).
 */
static int count_lines(const char *path, int *complete)
{
	struct buf text = BUF_INIT;
	int n = 0;

	*complete = 1;
	buf_init(&text, 0);
	if (buf_read_file(&text, path, NULL))
		return -1;
	for (const char *p = buf_str(&text); *p;) {
		const char *nl = strchr(p, '\n');

		if (!nl)
			break;
		if (*p != '{' || nl[-1] != '}') {
			*complete = 0;
			break;
		}
		n++;
		p = nl + 1;
	}
	buf_release(&text);
	return n;
}

static void test_threads(struct tmpdir *t)
{
	const char *path = tmpdir_path(t, "h1.jsonl");
	struct writer w[THREADS];
	pthread_t th[THREADS];
	struct history *h = NULL;
	struct err e = ERR_INIT;
	int complete, n;

	is_int(history_open(&h, path, clock_mono_ns(), &e), 0, "open");
	for (int i = 0; i < THREADS; i++) {
		w[i].h = h;
		w[i].process = i;
		pthread_create(&th[i], NULL, write_many, &w[i]);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	is_int(history_close(h, &e), 0, "close flushes everything");
	n = count_lines(path, &complete);
	is_int(n, THREADS * PER_THREAD, "every record is a line");
	ok(complete, "every line is complete");
	h = NULL;
	is_int(history_open(&h, path, 0, &e), -1, "an existing file is not "
	       "reopened");
	ok(strstr(e.msg, "cannot create '") != NULL, "with a message: %s",
	   e.msg);
}

static void test_flush_interval(struct tmpdir *t)
{
	const char *path = tmpdir_path(t, "h2.jsonl");
	struct history *h = NULL;
	struct history_slot *s;
	struct err e = ERR_INIT;
	struct history_event ev = { 1, 0, "invoke", "insert", NULL, NULL,
				    NULL, -1, NULL, NULL, 0, 0, 0, NULL, 0 };
	int complete, n = 0;
	int64_t start;

	history_open(&h, path, clock_mono_ns(), &e);
	s = history_slot(h);
	history_record(s, &ev);
	start = clock_mono_ns();
	while (clock_mono_ns() - start < 2 * NS_PER_SEC &&
	       (n = count_lines(path, &complete)) < 1)
		clock_sleep_ns(10 * NS_PER_MS);
	is_int(n, 1, "a record reaches the file without close");
	ok(clock_mono_ns() - start < NS_PER_SEC, "within a second");
	history_close(h, &e);
}

/* history_flush: what was recorded is in the file when it returns (the
 * checks read the file while the history is still open). */
static void test_flush(struct tmpdir *t)
{
	const char *path = tmpdir_path(t, "h-flush.jsonl");
	struct history *h = NULL;
	struct history_slot *s[2];
	struct err e = ERR_INIT;
	struct history_event ev = { 1, 0, "ok", "insert", "d.t", NULL,
				    NULL, 7, NULL, NULL, 0, 0, 0, NULL, 0 };
	int complete = 0;

	if (history_open(&h, path, clock_mono_ns(), &e)) {
		skip(3, "cannot open a history");
		return;
	}
	s[0] = history_slot(h);
	s[1] = history_slot(h);
	for (int i = 0; i < 500; i++)
		history_record(s[i % 2], &ev);
	is_int(history_flush(h, &e), 0, "flush");
	is_int(count_lines(path, &complete), 500,
	       "every record in the file when flush returns");
	ok(complete, "whole lines");
	history_close(h, &e);
}

static void test_sigkill(struct tmpdir *t)
{
	const char *path = tmpdir_path(t, "h3.jsonl");
	int complete, n, status;
	pid_t pid = fork();

	if (pid == 0) {
		struct history *h = NULL;
		struct history_slot *s;
		struct err e = ERR_INIT;

		if (history_open(&h, path, clock_mono_ns(), &e))
			_exit(1);
		s = history_slot(h);
		for (int64_t i = 0;; i++) {
			struct history_event ev = { i, 0, "invoke", "insert",
						    "test.t", "up-0", NULL, i,
						    NULL, NULL, 0, 0, 0,
						    NULL, 0 };

			history_record(s, &ev);
			if (i % 1000 == 0)
				clock_sleep_ns(NS_PER_MS);
		}
	}
	clock_sleep_ns(700 * NS_PER_MS);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	   "the writer was killed");
	n = count_lines(path, &complete);
	ok(n > 1000, "what was flushed before the kill is there (%d lines)", n);
	ok(complete, "and holds only complete lines, but for a cut last one "
	   "without its newline");
}

static void record_ids(struct history_slot *s, int64_t from, int64_t to)
{
	for (int64_t i = from; i < to; i++) {
		struct history_event ev = { i, 0, "ok", "insert", "d.t", NULL,
					    NULL, i, NULL, NULL, 0, 0, 0,
					    NULL, 0 };

		history_record(s, &ev);
	}
}

/* The ids of the file's lines are 0, 1, 2, ... in order. */
static int ids_in_order(const char *path)
{
	char text[65536], *p = text;
	ssize_t n = read_text(path, text, sizeof(text));
	long want = 0;

	if (n < 0)
		return 0;
	while ((p = strstr(p, "\"id\":"))) {
		if (strtol(p + 5, &p, 10) != want++)
			return 0;
	}
	return 1;
}

static off_t file_size(const char *path)
{
	struct stat sb;

	return stat(path, &sb) ? -1 : sb.st_size;
}

/*
 * A disk that fills up, simulated with RLIMIT_FSIZE (writes past it fail
 * with EFBIG, as they fail with ENOSPC on a full disk): the file keeps
 * whole lines only, the error is known at once and stays known, and the
 * lines that did not go in are written, in order, once there is room.
 */
static void test_full_disk(struct tmpdir *t)
{
	const char *path = tmpdir_path(t, "h-full.jsonl");
	struct history *h = NULL;
	struct history_slot *s;
	struct err e = ERR_INIT;
	struct rlimit was, small;
	char want[512];
	int complete = 0;
	off_t whole;

	signal(SIGXFSZ, SIG_IGN);
	if (getrlimit(RLIMIT_FSIZE, &was) ||
	    history_open(&h, path, clock_mono_ns(), &e)) {
		skip(12, "cannot open a history");
		return;
	}
	snprintf(want, sizeof(want), "cannot write '%s': File too large", path);
	s = history_slot(h);
	record_ids(s, 0, 100);
	is_int(history_flush(h, &e), 0, "flush before the disk fills");
	is_int(history_failed(h, &e), 0, "nothing failed yet");
	whole = file_size(path);
	small = was;
	small.rlim_cur = (rlim_t)whole + 100;
	setrlimit(RLIMIT_FSIZE, &small);
	record_ids(s, 100, 150);
	is_int(history_flush(h, &e), -1, "a flush on a full disk fails");
	is_str(e.msg, want, "with the write's error");
	is_int(count_lines(path, &complete), 100,
	       "the lines that went in before are there");
	ok(complete && file_size(path) == whole,
	   "the part of a line that went in is cut off again");
	err_clear(&e);
	is_int(history_failed(h, &e), -1, "history_failed knows at once");
	is_str(e.msg, want, "and says why");
	record_ids(s, 150, 160);
	history_flush(h, NULL);
	is_int(count_lines(path, &complete), 100,
	       "later lines wait behind the ones that did not go in");
	setrlimit(RLIMIT_FSIZE, &was);
	history_flush(h, NULL);
	is_int(count_lines(path, &complete), 160,
	       "once there is room, every waiting line is written");
	ok(complete && ids_in_order(path), "whole, in the order recorded");
	err_clear(&e);
	is_int(history_close(h, &e), -1, "close still says a write failed");
	is_str(e.msg, want, "and no line was lost");

	path = tmpdir_path(t, "h-lost.jsonl");
	if (history_open(&h, path, clock_mono_ns(), &e)) {
		skip(1, "cannot open a history");
		return;
	}
	s = history_slot(h);
	record_ids(s, 0, 10);
	small.rlim_cur = 0;
	setrlimit(RLIMIT_FSIZE, &small);
	record_ids(s, 10, 17);
	err_clear(&e);
	history_close(h, &e);
	setrlimit(RLIMIT_FSIZE, &was);
	snprintf(want, sizeof(want), "cannot write '%s': File too large "
		 "(17 lines lost)", path);
	is_str(e.msg, want, "close counts the lines it could not write");
	signal(SIGXFSZ, SIG_DFL);
}

/* What test_marks reads back. */
struct marks {
	int n;
	int ddl[4];
	int fault[4];
	char error[4][32];
};

static int collect_marks(const struct history_line *l, void *arg)
{
	struct marks *m = arg;

	if (m->n < 4) {
		m->ddl[m->n] = l->ddl;
		m->fault[m->n] = l->fault;
		snprintf(m->error[m->n], sizeof(m->error[0]), "%s",
			 l->error ? l->error : "(none)");
	}
	m->n++;
	return 0;
}

/*
 * A DDL operation and a fault's step are marked so that readers need no
 * list of names (docs/internals.md, History): written, and read back;
 * a mark of the wrong kind is a bad line.
 */
static void test_marks(struct tmpdir *t)
{
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	struct history_event ddl = { 2000, 2, "ok", "truncate", "test.t",
				     "up-0", NULL, -1, NULL, NULL, 1, 0, 0,
				     NULL, 0 };
	struct history_event heal = { 3000, HISTORY_NEMESIS, "info",
				      "restart", NULL, NULL, "cdc", -1, NULL,
				      "{}", 0, 1, 2, NULL, 0 };
	struct history_reading info;
	struct marks m = { 0, { 0 }, { 0 }, { "" } };
	const char *path = tmpdir_path(t, "marks.jsonl");
	FILE *f;

	history_format(&b, &ddl, &e);
	is_str(buf_str(&b), "{\"time\":2000,\"process\":2,\"type\":\"ok\","
	       "\"f\":\"truncate\",\"table\":\"test.t\",\"node\":\"up-0\","
	       "\"ddl\":true}\n", "a DDL operation says so");
	history_format(&b, &heal, &e);
	is_str(strchr(buf_str(&b), '\n') + 1, "{\"time\":3000,\"process\":"
	       "\"nemesis\",\"type\":\"info\",\"f\":\"restart\",\"target\":"
	       "\"cdc\",\"value\":{},\"fault\":2}\n",
	       "a fault's step names its item");
	buf_addstr(&b, "{\"time\":4000,\"process\":1,\"type\":\"ok\","
		   "\"f\":\"insert\",\"ddl\":false,\"id\":5,"
		   "\"error\":\"lost\\nconnection\"}\n", &e);
	buf_addstr(&b, "{\"time\":5000,\"process\":1,\"type\":\"ok\","
		   "\"f\":\"insert\",\"ddl\":1}\n", &e);
	f = fopen(path, "w");
	if (f) {
		fputs(buf_str(&b), f);
		fclose(f);
	}
	is_int(history_read(path, 0, collect_marks, &m, &info, &e), 0,
	       "read back");
	is_int(m.n, 3, "three records, the bad mark skipped");
	ok(m.ddl[0] && m.fault[0] == -1, "the DDL: ddl, no fault");
	ok(!m.ddl[1] && m.fault[1] == 2, "the heal: fault item 2");
	ok(!m.ddl[2] && m.fault[2] == -1, "ddl false: not a DDL");
	is_str(m.error[1], "(none)", "no error: none read");
	is_str(m.error[2], "lost\nconnection", "an error is read, decoded");
	is_str(info.bad, "marks.jsonl:4: \"ddl\" is not true or false",
	       "a mark of the wrong kind is a bad line");
	buf_reset(&b);
	buf_addstr(&b, "{\"time\":1,\"process\":\"nemesis\",\"type\":"
		   "\"info\",\"f\":\"kill\",\"fault\":-1}\n", &e);
	f = fopen(path, "w");
	if (f) {
		fputs(buf_str(&b), f);
		fclose(f);
	}
	m.n = 0;
	history_read(path, 0, collect_marks, &m, &info, &e);
	is_str(info.bad, "marks.jsonl:1: \"fault\" is not a fault item's "
	       "index", "so is a fault item below 0");
	buf_release(&b);
}

static int collect_numbers(const struct history_line *l, void *arg)
{
	struct buf *b = arg;

	buf_printf(b, NULL, "%s%zu", b->len ? " " : "", l->line);
	return 0;
}

/* HISTORY_NO_OPS: what is passed over unread, and what is read as ever. */
static void test_no_ops(struct tmpdir *t)
{
	static const char *const lines[] = {
		/* 1: an insert as written: passed over */
		"{\"time\":10,\"process\":3,\"type\":\"invoke\",\"f\":"
		"\"insert\",\"table\":\"test.t\",\"node\":\"up-0\"}",
		/* 2: a DDL as written: read */
		"{\"time\":20,\"process\":3,\"type\":\"invoke\",\"f\":"
		"\"truncate\",\"table\":\"test.t\",\"ddl\":true}",
		/* 3: the nemesis: read */
		"{\"time\":30,\"process\":\"nemesis\",\"type\":\"info\","
		"\"f\":\"kill\"}",
		/* 4: the monitor: read */
		"{\"time\":40,\"process\":\"monitor\",\"type\":\"info\","
		"\"f\":\"owner\"}",
		/* 5: keys in another order: read */
		"{\"process\":3,\"time\":50,\"type\":\"ok\",\"f\":"
		"\"insert\",\"id\":1}",
		/* 6: "ddl" as a string: read, to be safe */
		"{\"time\":60,\"process\":3,\"type\":\"ok\",\"f\":"
		"\"insert\",\"table\":\"ddl\"}",
		/* 7: an operation that is no record: passed over unchecked */
		"{\"time\":70,\"process\":3,\"type\":\"bogus\"}",
		/* 8: spaces: read */
		"{\"time\": 80,\"process\":3,\"type\":\"ok\",\"f\":"
		"\"insert\"}",
		/* 9: the last line, a plain operation: passed over */
		"{\"time\":90,\"process\":12,\"type\":\"ok\",\"f\":"
		"\"insert\",\"id\":7}",
	};
	const char *path = tmpdir_path(t, "no-ops.jsonl");
	struct history_reading info;
	struct buf got = BUF_INIT;
	struct err e = ERR_INIT;
	FILE *f = fopen(path, "w");

	for (size_t i = 0; f && i < sizeof(lines) / sizeof(lines[0]); i++)
		fprintf(f, "%s\n", lines[i]);
	if (f)
		fclose(f);
	is_int(history_read(path, HISTORY_NO_OPS, collect_numbers, &got,
			    &info, &e), 0, "no ops: read");
	is_str(buf_str(&got), "2 3 4 5 6 8", "no ops: the lines handed out");
	is_int((int)info.lines, 9, "no ops: every line counted");
	is_str(info.bad, "", "no ops: a bad operation passed over unchecked");
	buf_reset(&got);
	history_read(path, 0, collect_numbers, &got, &info, &e);
	is_str(buf_str(&got), "1 2 3 4 5 6 8 9", "without: every record");
	is_str(info.bad, "no-ops.jsonl:7: no \"f\"",
	       "without: the bad line said");
	buf_release(&got);
}

static int last_id(const struct history_line *l, void *arg)
{
	*(int64_t *)arg = l->id;
	return 0;
}

/* Integers at the ends of int64, and one past them. */
static void test_int_bounds(struct tmpdir *t)
{
	static const struct {
		const char *id;
		int64_t want;
		const char *bad;
	} cases[] = {
		{ "9223372036854775807", INT64_MAX, "" },
		{ "-9223372036854775808", INT64_MIN, "" },
		{ "999999999999999999", 999999999999999999, "" },
		{ "0", 0, "" },
		{ "9223372036854775808", -1, "ints.jsonl:1: \"id\" is not an "
		  "integer" },
		{ "-9223372036854775809", -1, "ints.jsonl:1: \"id\" is not an "
		  "integer" },
		{ "18446744073709551616", -1, "ints.jsonl:1: \"id\" is not an "
		  "integer" },
	};
	const char *path = tmpdir_path(t, "ints.jsonl");
	struct history_reading info;
	struct err e = ERR_INIT;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		FILE *f = fopen(path, "w");
		int64_t id = -1;

		if (f) {
			fprintf(f, "{\"time\":1,\"process\":0,\"type\":"
				"\"ok\",\"f\":\"insert\",\"id\":%s}\n",
				cases[i].id);
			fclose(f);
		}
		history_read(path, 0, last_id, &id, &info, &e);
		ok(id == cases[i].want, "id %s: read as %lld", cases[i].id,
		   (long long)id);
		is_str(info.bad, cases[i].bad, "id %s: %s", cases[i].id,
		       cases[i].bad[0] ? "not an integer" : "an integer");
	}
}

struct walk {
	size_t n, last, stop_at, long_error;
	int in_order, stop_rc;
};

static int walk_line(const struct history_line *l, void *arg)
{
	struct walk *w = arg;

	/* Each line's time is its number; the bad line 20001 is skipped. */
	if (l->time != (int64_t)l->line ||
	    l->line != w->last + 1 + (w->last + 1 == 20001))
		w->in_order = 0;
	if (l->error)
		w->long_error = strlen(l->error);
	w->last = l->line;
	w->n++;
	return l->line == w->stop_at ? w->stop_rc : 0;
}

/*
 * Read in blocks by two threads: lines across blocks, a line longer than
 * a block, a bad line and a cut one many blocks in, and a reader that
 * stops early, with the same records and counts as one line at a time.
 */
static void test_blocks(struct tmpdir *t)
{
	const char *path = tmpdir_path(t, "blocks.jsonl");
	struct history_reading info;
	struct err e = ERR_INIT;
	struct walk w;
	char *big = malloc(600001);
	FILE *f = fopen(path, "w");

	if (!f || !big) {
		ok(0, "blocks: cannot write %s", path);
		free(big);
		return;
	}
	memset(big, 'x', 600000);
	big[600000] = '\0';
	for (int i = 1; i <= 30000; i++) {
		if (i == 20001)
			fputs("{\"time\":20001,\"process\":1}\n", f);
		else
			fprintf(f, "{\"time\":%d,\"process\":%d,\"type\":"
				"\"ok\",\"f\":\"insert\",\"table\":"
				"\"test.t_%d\",\"node\":\"up-0\",\"id\":%d%s%s%s}\n",
				i, i % 8, i % 4, i, i == 10000 ? ",\"error\":\"" : "",
				i == 10000 ? big : "", i == 10000 ? "\"" : "");
	}
	fputs("{\"time\":30001,\"process\":1,\"ty", f);
	fclose(f);
	free(big);

	w = (struct walk){ 0, 0, 0, 0, 1, 0 };
	is_int(history_read(path, 0, walk_line, &w, &info, &e), 0,
	       "blocks: read");
	is_int((int)w.n, 29999, "blocks: every record, the bad one skipped");
	ok(w.in_order, "blocks: in file order, each with its number");
	is_int((int)w.long_error, 600000, "blocks: the line longer than a "
	       "block read whole");
	is_int((int)info.lines, 30001, "blocks: every line counted");
	is_int((int)info.cut, 30001, "blocks: the cut last line");
	is_str(info.bad, "blocks.jsonl:20001: no \"type\"",
	       "blocks: the bad line said");

	w = (struct walk){ 0, 0, 0, 0, 1, 0 };
	history_read(path, HISTORY_STRICT, walk_line, &w, &info, &e);
	is_int((int)w.n, 20000, "strict: up to the bad line");
	is_int((int)info.lines, 20001, "strict: the bad line is the last");
	is_int((int)info.cut, 0, "strict: the cut line not reached");

	w = (struct walk){ 0, 0, 15000, 0, 1, 1 };
	is_int(history_read(path, 0, walk_line, &w, &info, &e), 0,
	       "a reader that stops: 0");
	is_int((int)w.n, 15000, "a reader that stops: nothing after");
	is_int((int)info.lines, 15000, "a reader that stops: its line last");

	w = (struct walk){ 0, 0, 3, 0, 1, -1 };
	is_int(history_read(path, 0, walk_line, &w, &info, &e), -1,
	       "a reader's own error: -1");
	is_int((int)w.n, 3, "a reader's own error: nothing after");
}

/*
 * The ids of the "ok" lines of `path`, in file order, are from..to with
 * none missing: no line lost, none out of order.
 */
static int ids_from_to(const char *path, int64_t from, int64_t to)
{
	struct buf text = BUF_INIT;
	int64_t want = from;
	const char *p;

	buf_init(&text, 0);
	if (buf_read_file(&text, path, NULL))
		return 0;
	for (p = buf_str(&text); (p = strstr(p, "\"id\":")); p++) {
		if (strtoll(p + 5, NULL, 10) != want)
			break;
		want++;
	}
	buf_release(&text);
	return want == to + 1;
}

/*
 * A slot's buffer is handed to the file at each flush and its memory
 * used again at the next (not grown again each time); a burst larger
 * than what a slot keeps is written whole too. No line is lost or moved
 * across any of the swaps.
 */
static void test_buffer_reuse(struct tmpdir *t)
{
	const char *path = tmpdir_path(t, "h-reuse.jsonl");
	struct history *h = NULL;
	struct history_slot *s[2];
	struct err e = ERR_INIT;
	int64_t id = 1;
	int complete = 0;

	if (history_open(&h, path, clock_mono_ns(), &e)) {
		skip(4, "cannot open a history");
		return;
	}
	s[0] = history_slot(h);
	s[1] = history_slot(h);
	for (int round = 0; round < 6; round++) {
		/* Round 3: 60000 lines, about 6 MB, past what a slot keeps. */
		int lines = round == 3 ? 60000 : 100 + round;

		for (int i = 0; i < lines; i++, id++) {
			struct history_event ev = { id, 0, "ok", "insert",
						    "d.t", "up-0", NULL, id,
						    NULL, NULL, 0, 0, 0,
						    NULL, 0 };

			history_record(s[round % 2 && round != 3], &ev);
		}
		if (history_flush(h, &e))
			break;
	}
	ok(!err_isset(&e), "every flush succeeded");
	ok(ids_from_to(path, 1, id - 1), "%lld lines, in order, when the "
	   "last flush returns", (long long)(id - 1));
	{
		struct history_event ev = { id, 1, "ok", "insert", "d.t",
					    NULL, NULL, id, NULL, NULL, 0, 0,
					    0, NULL, 0 };

		history_record(s[1], &ev);
	}
	is_int(history_close(h, &e), 0, "close");
	is_int(count_lines(path, &complete), id, "the last line too, at "
	       "close");
	ok(complete && ids_from_to(path, 1, id), "whole lines, in order");
}

int main(void)
{
	struct tmpdir t;

	if (tmpdir_create(&t))
		return 1;
	test_format();
	test_marks(&t);
	test_no_ops(&t);
	test_blocks(&t);
	test_int_bounds(&t);
	test_threads(&t);
	test_flush_interval(&t);
	test_flush(&t);
	test_buffer_reuse(&t);
	test_sigkill(&t);
	test_full_disk(&t);
	tmpdir_remove(&t);
	return done_testing();
}
