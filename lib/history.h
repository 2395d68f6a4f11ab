#ifndef TICHAOS_HISTORY_H
#define TICHAOS_HISTORY_H

/*
 * The error of a "fail" that is a normal outcome of its operation, not
 * an error (a bank transfer that would overdraw, refused by the workload
 * itself, Jepsen's :fail): it begins so. Counted as "refused", which
 * fails no workload.
 */
#define HISTORY_REFUSED "refused: "

/*
 * The history of a run: history.jsonl, one JSON object per line
 * (docs/internals.md, History), appended as events happen from every thread.
 *
 * Each thread writes through its own slot: a line goes into the slot's
 * buffer under the slot's lock (never contended but by the flusher), and a
 * flusher thread hands every slot's buffer to the file at least every
 * HISTORY_FLUSH_MS, whole lines, appended by that one thread. A runner
 * killed with SIGKILL loses at most the last flush interval; the kernel
 * may cut the write in progress, so the last line can lack its newline:
 * readers skip a last line without its newline. Every other line is
 * complete.
 */

#include <stdint.h>

#include "buf.h"
#include "err.h"

#define HISTORY_FLUSH_MS 200

/* Process numbers of the runner's own actors. */
#define HISTORY_NEMESIS (-1)
#define HISTORY_MONITOR (-2)

struct history;
struct history_slot;

struct history_event {
	int64_t time;		/* ns since the run started */
	int process;		/* >= 0 a worker, or HISTORY_NEMESIS/MONITOR */
	const char *type;	/* "invoke", "ok", "fail", "info" */
	const char *f;		/* "insert", "truncate", "kill", ... */
	const char *table;	/* MAY: "db.table" */
	const char *node;	/* MAY: the component it went to */
	const char *target;	/* MAY: a fault's target */
	int64_t id;		/* an id returned by the operation; -1: none */
	const char *error;	/* MAY: the error text */
	const char *value;	/* MAY: a JSON value, written as is */
	int ddl;		/* a DDL operation: "ddl": true */
	int has_fault;		/* a fault's step: "fault": the index of */
	int fault;		/* its item in the suite's faults */
	/* MAY: an injection of a fault that holds until its heal:
	 * "holds": what it holds its components as ("down", "cut"). */
	const char *holds;
	int heal;		/* a heal step of a fault: "heal": true */
};

/*
 * Create `path` (it must not exist) and start the flusher thread. Times
 * are measured from `start_ns` (clock_mono_ns()).
 */
int history_open(struct history **h, const char *path, int64_t start_ns,
		 struct err *e);

/* Nanoseconds since the run started. */
int64_t history_now(const struct history *h);

/* A new slot for one thread; owned by the history (freed by close). */
struct history_slot *history_slot(struct history *h);

/* Append one event as a JSON line through a slot. */
void history_record(struct history_slot *s, const struct history_event *ev);

/* What sees every event as it is recorded (history_observe). */
typedef void history_observer_fn(void *arg, const struct history_event *ev);

/*
 * Call `fn` with every event recorded from now on, right after its line,
 * on the thread that records it, until another (or NULL) is set; when
 * this returns, no call of the one before is running. One at a time.
 * `fn` must not record, nor wait for a thread that records.
 */
void history_observe(struct history *h, history_observer_fn *fn, void *arg);

/*
 * How many "ok" events with an id (an AUTO_INCREMENT insert, whichever
 * workload made it) were recorded so far: what a fault that must see the
 * cluster allocate ids (resign's hold) counts between two moments.
 */
uint64_t history_ok_inserts(const struct history *h);

/* Format one event as a JSON line (with the newline) into `out`. */
int history_format(struct buf *out, const struct history_event *ev,
		   struct err *e);

/*
 * Write every line recorded so far to the file now (what readers of the
 * file, such as the checks, must see). Fails when a write failed at any
 * time.
 */
int history_flush(struct history *h, struct err *e);

/*
 * 0 while every write of the file has succeeded; else -1 with the first
 * failure's message (a full disk: "cannot write 'PATH': No space left on
 * device"), at once and without writing anything. The lines a failed
 * write left are kept in order and tried again at every flush and at
 * close, so a disk that gets space back loses none of them.
 */
int history_failed(struct history *h, struct err *e);

/*
 * Flush everything, stop the flusher, close the file, free the history
 * and its slots. Fails when a write failed at any time; the message then
 * counts the lines that could not be written even at the end.
 */
int history_close(struct history *h, struct err *e);

/*
 * One record of history.jsonl, read back (history_read). Strings point
 * into the reader's line and live until the callback returns.
 */
struct history_line {
	size_t line;		/* its number in the file, from 1 */
	int64_t time;
	/* >= 0 a worker, HISTORY_NEMESIS, HISTORY_MONITOR. */
	int process;
	const char *type;	/* "invoke", "ok", "fail", "info" */
	const char *f;
	const char *table;	/* MAY: NULL when absent, as the next two */
	const char *node;
	const char *target;
	const char *error;	/* MAY: what went wrong (type "fail") */
	int has_id;
	int64_t id;		/* -1 when there is none */
	int ddl;		/* "ddl": true */
	int fault;		/* "fault": its item; -1 when there is none */
	const char *holds;	/* MAY: "holds": an injection that holds */
	int heal;		/* "heal": true: a fault's heal step */
	/* MAY: the "value" JSON, as written (not NUL-terminated). */
	const char *value;
	size_t value_len;
};

/* What history_read saw of the file. */
struct history_reading {
	size_t lines;		/* read, a cut last one included */
	size_t cut;		/* the number of a last line without its
				 * newline (a kill cut it), not read; 0: none */
	/* The first line that is no record: "history.jsonl:7:96: not JSON:
	 * expected ',' or '}'", "history.jsonl:16: \"id\" is not an
	 * integer"; "" when every line was one. */
	char bad[256];
};

/* history_read: stop at the first line that is no record. */
#define HISTORY_STRICT 1u
/*
 * history_read: pass over a worker's operation that is no DDL unread, for
 * a reader of the faults, the monitor and the DDL alone (a fraction of
 * the lines). Such a line is told by its start as history_format writes
 * it, {"time":<digits>,"process":<a digit>, and by holding no "ddl"; it
 * is neither checked nor handed out. Any other line is read as always.
 */
#define HISTORY_NO_OPS 2u

/*
 * The one reader of history.jsonl: call `fn` for each record of `path`,
 * in file order, until it returns non-zero (-1: an error of its own,
 * returned as -1). Every line is checked as a whole JSON object with
 * the fields of a record (time, process, type among invoke, ok, fail,
 * info, f; strings and integers where they belong); a line that is not
 * is said in info->bad (the first one) and skipped, or ends the reading
 * with HISTORY_STRICT. A last line without its newline (the runner was
 * killed mid-write) is never read. Fails (ERR_INFRA) when the file
 * cannot be opened or read; `info` may be NULL. `fn` is called on the
 * caller's thread; a second thread parses the lines ahead of it.
 */
int history_read(const char *path, unsigned flags,
		 int (*fn)(const struct history_line *l, void *arg),
		 void *arg, struct history_reading *info, struct err *e);

/*
 * Append `s` as a JSON string (quoted, escaped). Bytes that are not
 * well-formed UTF-8 (a server's error text, a corrupt file) become
 * U+FFFD, so that the output always parses.
 */
int json_quote(struct buf *out, const char *s, struct err *e);

#endif
