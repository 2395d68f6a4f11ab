/*
 * append: transactions of a few micro-operations over keys spread across
 * tables, each an append of a unique value to a key's list or a read of
 * its whole list (Elle's list-append: docs/suite-format.md, append; the
 * append check, checkers/append.c, judges the isolation they show).
 *
 * `keys` keys are in use at once, as Elle's list-append uses them: each
 * micro-operation picks one of them, and a key that took
 * `max_writes_per_key` appends is retired for a fresh one (so that no
 * list, read whole, grows with the run). Key k lives in the item's tables
 * round robin: the row `key` = k of tables[(k - 1) % ntables], its list
 * in `column` (a text of comma-separated integers). A transaction is
 *   START TRANSACTION; then each micro-operation:
 *     append: INSERT ... (k, 'x') ON DUPLICATE KEY UPDATE
 *             column = CONCAT(column, ',x')
 *     read:   SELECT column ... WHERE key = k [FOR UPDATE]
 *   COMMIT
 * recorded as "txn" with {"txn":[["append",k,x],["r",k,null],...]}, its
 * ok completion with each read's list in place of null. Every value is
 * unique in the run (one counter over all workers). An error before
 * COMMIT is a fail (rolled back); a deadlock or a write conflict that
 * aborted it is a fail counted as refused, as the database's normal
 * answer (aborted); an error at COMMIT is info, its outcome unknown.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/lists.h"
#include "core/suite.h"
#include "lib/sql.h"
#include "workloads/common.h"

struct append_opts {
	struct workload_opts common;
	const char *key;
	const char *column;
	int64_t keys;
	int64_t max_writes;
	int64_t max_ops;
	int64_t append_weight;
	int64_t read_weight;
	int for_update;
};

#define AT(member) OPT_AT(struct append_opts, member)

static const struct optspec opts[] = {
	WORKLOAD_COMMON_OPTS,
	{ "key", OPT_IDENT, "id", 0, NULL, 0, 0,
	  "the integer key column: the list's key", AT(key) },
	{ "column", OPT_IDENT, "v", 0, NULL, 0, 0,
	  "the text column holding the list", AT(column) },
	{ "keys", OPT_INT, "8", 0, NULL, 1, 1000000,
	  "keys in use at once, over the tables round robin", AT(keys) },
	{ "max_writes_per_key", OPT_INT, "32", 0, NULL, 1, 1000000,
	  "appends a key takes before a fresh key replaces it",
	  AT(max_writes) },
	{ "max_ops", OPT_INT, "4", 0, NULL, 1, 64,
	  "micro-operations per transaction: 1..max_ops", AT(max_ops) },
	{ "append_weight", OPT_INT, "1", 0, NULL, 0, 1000,
	  "relative weight of appends among micro-operations",
	  AT(append_weight) },
	{ "read_weight", OPT_INT, "1", 0, NULL, 0, 1000,
	  "relative weight of reads among micro-operations",
	  AT(read_weight) },
	{ "for_update", OPT_BOOL, "false", 0, NULL, 0, 0,
	  "reads lock what they read (SELECT ... FOR UPDATE)",
	  AT(for_update) },
};

/* The run's appended values: unique over every worker of every item. */
static int64_t last_value;

/*
 * The keys in use (one append workload a suite: the append check's
 * rule): slot s holds key slot_key[s], which has taken slot_writes[s]
 * appends drawn so far; the next fresh key is next_key.
 */
static pthread_mutex_t key_lock = PTHREAD_MUTEX_INITIALIZER;
static int64_t *slot_key, *slot_writes, next_key;

/* A key for a micro-operation: a read's, or an append's, counted. */
static int64_t draw_key(struct worker *w, const struct append_opts *o,
			int append)
{
	size_t slot = (size_t)rand_below(&w->rng, (uint64_t)o->keys);
	int64_t key;

	pthread_mutex_lock(&key_lock);
	if (!slot_key) {
		slot_key = xcalloc((size_t)o->keys + 1, sizeof(*slot_key));
		slot_writes = xcalloc((size_t)o->keys + 1,
				      sizeof(*slot_writes));
		for (int64_t k = 0; k < o->keys; k++)
			slot_key[k] = k + 1;
		next_key = o->keys + 1;
	}
	key = slot_key[slot];
	if (append && ++slot_writes[slot] >= o->max_writes) {
		slot_key[slot] = next_key++;
		slot_writes[slot] = 0;
	}
	pthread_mutex_unlock(&key_lock);
	return key;
}

static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	const struct append_opts *o = it->opts;
	struct ynode at = { YNODE_SCALAR, it->line, it->col, NULL, 0, NULL,
			    0 };

	if (o->append_weight + o->read_weight == 0)
		return ynode_error(e, s->path, &at, "workload 'append' needs "
				   "a weight above 0");
	return 0;
}

static int threads(const struct suite *s, const struct suite_item *it)
{
	const struct workload_opts *o = workload_opts_of(it);

	(void)s;
	return o->threads ? (int)o->threads : 4;
}

static const char *table_of(const struct append_opts *o, int64_t key)
{
	return o->common.tables.v[(size_t)(key - 1) % o->common.tables.n];
}

/* One micro-operation drawn: read or not, its key, an append's value. */
struct mop {
	int read;
	int64_t key, value;
	struct buf list;	/* a read's list, as JSON */
};

static int append_one(struct worker *w, const struct append_opts *o,
		      const struct mop *m, struct err *e)
{
	struct buf *q = &w->sql_text;

	buf_reset(q);
	return buf_addstr(q, "INSERT INTO ", e) ||
	       wl_table(q, w, table_of(o, m->key), e) ||
	       buf_addstr(q, " (", e) || sql_quote_ident(q, o->key, e) ||
	       buf_addstr(q, ", ", e) || sql_quote_ident(q, o->column, e) ||
	       buf_printf(q, e, ") VALUES (%lld, '%lld') ON DUPLICATE KEY "
			  "UPDATE ", (long long)m->key, (long long)m->value) ||
	       sql_quote_ident(q, o->column, e) ||
	       buf_addstr(q, " = CONCAT(", e) ||
	       sql_quote_ident(q, o->column, e) ||
	       buf_printf(q, e, ", ',%lld')", (long long)m->value) ||
	       sql_exec(&w->conn, buf_str(q), e) ? -1 : 0;
}

/* A read: its list into m->list as a JSON array of the integers. */
static int read_one(struct worker *w, const struct append_opts *o,
		    struct mop *m, struct err *e)
{
	struct buf *q = &w->sql_text, v = BUF_INIT;
	int rc;

	buf_reset(q);
	rc = buf_addstr(q, "SELECT ", e) || sql_quote_ident(q, o->column, e) ||
	     buf_addstr(q, " FROM ", e) ||
	     wl_table(q, w, table_of(o, m->key), e) ||
	     buf_addstr(q, " WHERE ", e) || sql_quote_ident(q, o->key, e) ||
	     buf_printf(q, e, " = %lld%s", (long long)m->key,
			o->for_update ? " FOR UPDATE" : "") ? -1 : 0;
	if (!rc)
		rc = sql_value(&w->conn, buf_str(q), &v, e);
	if (rc < 0) {
		buf_release(&v);
		return -1;
	}
	buf_reset(&m->list);
	buf_addch(&m->list, '[', NULL);
	/* No row (rc 1): an empty list. */
	for (const char *p = rc ? "" : buf_str(&v); *p;) {
		char *end;
		long long x = strtoll(p, &end, 10);

		if (end == p)
			break;
		buf_printf(&m->list, NULL, "%s%lld", m->list.len > 1 ? ","
			   : "", x);
		p = *end == ',' ? end + 1 : end;
	}
	buf_addch(&m->list, ']', NULL);
	buf_release(&v);
	return 0;
}

/* The transaction's value: each micro-operation, reads' lists or null. */
static void txn_value(struct buf *out, const struct mop *mops, size_t n,
		      int with_lists)
{
	buf_reset(out);
	buf_addstr(out, "{\"txn\":[", NULL);
	for (size_t i = 0; i < n; i++)
		if (mops[i].read)
			buf_printf(out, NULL, "%s[\"r\",%lld,%s]", i ? "," : "",
				   (long long)mops[i].key, with_lists
				   ? buf_str(&mops[i].list) : "null");
		else
			buf_printf(out, NULL, "%s[\"append\",%lld,%lld]",
				   i ? "," : "", (long long)mops[i].key,
				   (long long)mops[i].value);
	buf_addstr(out, "]}", NULL);
}

/*
 * Whether error `code` is the database aborting the transaction for its
 * isolation's sake, a normal outcome (Jepsen's :fail) counted as
 * refused, not a failure of the workload: MySQL's and MariaDB's
 * ER_LOCK_DEADLOCK (1213, the whole transaction rolled back) and
 * ER_LOCK_WAIT_TIMEOUT (1205), TiDB's ErrWriteConflict (9007,
 * pkg/errno/errcode.go in pingcap/tidb).
 */
static int aborted(unsigned code)
{
	return code == 1213 || code == 1205 || code == 9007;
}

/* One transaction: -1 after an error, else 0. */
static int txn(struct worker *w, const struct append_opts *o)
{
	struct mop mops[64];
	size_t n = 1 + (size_t)rand_below(&w->rng, (uint64_t)o->max_ops);
	uint64_t weights = (uint64_t)(o->append_weight + o->read_weight);
	struct buf value = BUF_INIT;
	const char *table;
	struct err e;
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		mops[i].read = rand_below(&w->rng, weights) >=
			       (uint64_t)o->append_weight;
		mops[i].key = draw_key(w, o, !mops[i].read);
		mops[i].value = mops[i].read ? 0
			: __atomic_add_fetch(&last_value, 1, __ATOMIC_SEQ_CST);
		mops[i].list = (struct buf)BUF_INIT;
	}
	table = table_of(o, mops[0].key);
	txn_value(&value, mops, n, 0);
	err_clear(&e);
	if (worker_connect(w))
		goto out;
	worker_invoke_value(w, "txn", table, buf_str(&value));
	rc = sql_exec(&w->conn, "START TRANSACTION", &e);
	for (size_t i = 0; !rc && i < n; i++)
		rc = mops[i].read ? read_one(w, o, &mops[i], &e)
				  : append_one(w, o, &mops[i], &e);
	if (rc && aborted(w->conn.last_errno)) {
		char why[300];

		snprintf(why, sizeof(why), "aborted by the database: %.250s",
			 e.msg);
		err_clear(&e);
		if (sql_exec(&w->conn, "ROLLBACK", &e))
			sql_close(&w->conn);	/* the next one reconnects */
		worker_refuse(w, "txn", table, buf_str(&value), why);
		rc = 0;
		goto out;
	}
	if (rc) {
		wl_txn_failed(w, "txn", table, buf_str(&value), &e);
		goto out;
	}
	if (sql_exec(&w->conn, "COMMIT", &e))
		w->conn.last_class = SQL_AMBIGUOUS;	/* info */
	if (!err_isset(&e))
		txn_value(&value, mops, n, 1);
	worker_complete_value(w, "txn", table, -1, buf_str(&value), &e);
	rc = err_isset(&e) ? -1 : 0;
out:
	for (size_t i = 0; i < n; i++)
		buf_release(&mops[i].list);
	buf_release(&value);
	return rc;
}

static void run(struct worker *w)
{
	const struct append_opts *o = w->item->opts;

	while (!worker_stopping(w)) {
		worker_pace(w);
		if (txn(w, o) && !worker_stopping(w))
			wl_error_pause(w);
	}
}

/* Its keys and tables, for the append check (core/lists.h). */
static int lists(const struct suite_item *it, struct lists *out)
{
	const struct append_opts *o = it->opts;

	out->tables = o->common.tables.v;
	out->ntables = o->common.tables.n;
	out->key = o->key;
	out->column = o->column;
	return 0;
}

const struct workload_type workload_append = {
	.kind = { "append", "transactions of appends to keys' lists and reads "
		  "of them, over several tables (Elle's list-append)", opts,
		  sizeof(opts) / sizeof(opts[0]), sizeof(struct append_opts),
		  .check = check, .lists = lists },
	.threads = threads,
	.run = run,
};
