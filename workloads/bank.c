/*
 * bank: money moved between accounts in explicit transactions, and the
 * whole total read in one snapshot (Jepsen's bank): whatever the faults,
 * the total never changes (docs/suite-format.md, bank; the bank check,
 * checkers/bank.c, judges it).
 *
 * A transfer of `amount` from account a to b is
 *   START TRANSACTION; SELECT balance ... FOR UPDATE of both accounts
 *   (the lower id first, so two transfers never wait on each other in a
 *   circle); UPDATE a - amount; UPDATE b + amount; COMMIT
 * recorded as "transfer" with {"from":a,"to":b,"amount":amount}. One that
 * would overdraw a is refused: ROLLBACK, recorded as fail with "refused:
 * account A holds X, less than AMOUNT" and counted as refused, a normal
 * outcome (Jepsen's :fail) that fails no workload, whatever its
 * ignore_errors; the check judges the money. An error before COMMIT is a fail
 * (rolled back; a lost connection rolls back on the server); an error at
 * COMMIT is info, its outcome unknown, resolved by the check from the
 * final balances. A read is "read": START TRANSACTION WITH CONSISTENT
 * SNAPSHOT, every account's balance, COMMIT, recorded with
 * {"total":T,"accounts":N}; any error of a read is a fail. On the local
 * cluster a "replica_read" reads the total the same way on the MariaDB
 * replica, which applies transactions whole and in order.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/suite.h"
#include "lib/sql.h"
#include "core/ledger.h"
#include "workloads/bank.h"
#include "workloads/common.h"

#define AT(member) OPT_AT(struct bank_opts, member)

static const struct optspec opts[] = {
	WORKLOAD_COMMON_OPTS,
	{ "key", OPT_IDENT, "id", 0, NULL, 0, 0,
	  "the integer key column: the account's number", AT(key) },
	{ "column", OPT_IDENT, "balance", 0, NULL, 0, 0,
	  "the integer column holding the account's money", AT(column) },
	{ "accounts", OPT_INT, "10", 0, NULL, 2, 100000,
	  "accounts 1..accounts, over the tables round robin", AT(accounts) },
	{ "initial", OPT_INT, "100", 0, NULL, 1, 1000000000,
	  "each account's money at the start", AT(initial) },
	{ "max_transfer", OPT_INT, "5", 0, NULL, 1, 1000000000,
	  "a transfer moves 1..max_transfer", AT(max_transfer) },
	{ "transfer_weight", OPT_INT, "4", 0, NULL, 0, 1000,
	  "relative weight of transfers", AT(transfer_weight) },
	{ "read_weight", OPT_INT, "1", 0, NULL, 0, 1000,
	  "relative weight of reads of the whole total", AT(read_weight) },
	{ "replica_read_weight", OPT_INT, "0", 0, NULL, 0, 1000,
	  "relative weight of reads of the whole total on the local "
	  "cluster's replica", AT(replica_read_weight) },
	{ "cross_tables", OPT_BOOL, "true", 0, NULL, 0, 0,
	  "transfers between accounts of different tables too",
	  AT(cross_tables) },
};

static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	const struct bank_opts *o = it->opts;
	int64_t n = (int64_t)o->common.tables.n;
	struct ynode at = { YNODE_SCALAR, it->line, it->col, NULL, 0, NULL,
			    0 };

	if (o->transfer_weight + o->read_weight + o->replica_read_weight == 0)
		return ynode_error(e, s->path, &at, "workload 'bank' needs a "
				   "weight above 0");
	if (o->accounts < (o->cross_tables ? 1 : 2) * n)
		return ynode_error(e, s->path, &at, "workload 'bank': %lld "
				   "accounts over %lld tables leave a table "
				   "with %s", (long long)o->accounts,
				   (long long)n, o->cross_tables ? "none"
				   : "fewer than 2 (cross_tables is false)");
	return 0;
}

static int threads(const struct suite *s, const struct suite_item *it)
{
	const struct workload_opts *o = workload_opts_of(it);

	(void)s;
	return o->threads ? (int)o->threads : 4;
}

/* Every account of the table at index `t`, with its initial money. */
static int fill_table(const struct suite *s, const struct bank_opts *o,
		      size_t t, struct sql *conn, struct err *e)
{
	size_t n = o->common.tables.n;
	const char *table = o->common.tables.v[t];
	struct buf q = BUF_INIT;
	int rc = 0, rows = 0;

	for (int64_t id = (int64_t)t + 1; !rc && id <= o->accounts;
	     id += (int64_t)n) {
		if (!rows)
			rc = buf_addstr(&q, "INSERT INTO ", e) ||
			     sql_quote_ident(&q, s->database, e) ||
			     buf_addch(&q, '.', e) ||
			     sql_quote_ident(&q, table, e) ||
			     buf_addstr(&q, " (", e) ||
			     sql_quote_ident(&q, o->key, e) ||
			     buf_addstr(&q, ", ", e) ||
			     sql_quote_ident(&q, o->column, e) ||
			     buf_addstr(&q, ") VALUES ", e);
		rc = rc || buf_printf(&q, e, "%s(%lld, %lld)", rows ? ", " : "",
				      (long long)id, (long long)o->initial);
		if (!rc && (++rows == 1000 || id + (int64_t)n > o->accounts)) {
			rc = sql_exec(conn, buf_str(&q), e);
			buf_reset(&q);
			rows = 0;
		}
	}
	buf_release(&q);
	return rc ? -1 : 0;
}

static int setup(const struct suite *s, const struct suite_item *it,
		 struct sql *conn, struct err *e)
{
	const struct bank_opts *o = it->opts;

	for (size_t t = 0; t < o->common.tables.n; t++)
		if (fill_table(s, o, t, conn, e))
			return -1;
	return 0;
}

/* Two different accounts; of one table unless cross_tables. */
static void pick_pair(struct worker *w, const struct bank_opts *o,
		      int64_t *from, int64_t *to)
{
	uint64_t n = o->common.tables.n;
	uint64_t acc = (uint64_t)o->accounts;
	uint64_t table, in_table, mine, k;

	*from = 1 + (int64_t)rand_below(&w->rng, acc);
	if (o->cross_tables || n == 1) {
		*to = 1 + (int64_t)rand_below(&w->rng, acc - 1);
		*to += *to >= *from;
		return;
	}
	/* From's table holds accounts table + 1, table + 1 + n, ...:
	 * in_table of them, from the mine-th; another one of them. */
	table = (uint64_t)(*from - 1) % n;
	in_table = (acc - table + n - 1) / n;
	mine = (uint64_t)(*from - 1) / n;
	k = rand_below(&w->rng, in_table - 1);
	k += k >= mine;
	*to = (int64_t)(k * n + table + 1);
}

/* SELECT the balance of account `id` FOR UPDATE into *balance. */
static int lock_account(struct worker *w, const struct bank_opts *o,
			int64_t id, long long *balance, struct err *e)
{
	struct buf *q = &w->sql_text;
	struct buf v = BUF_INIT;
	int rc;

	buf_reset(q);
	rc = buf_addstr(q, "SELECT ", e) || sql_quote_ident(q, o->column, e) ||
	     buf_addstr(q, " FROM ", e) ||
	     wl_table(q, w, bank_table(o, id), e) ||
	     buf_addstr(q, " WHERE ", e) || sql_quote_ident(q, o->key, e) ||
	     buf_printf(q, e, " = %lld FOR UPDATE", (long long)id);
	if (!rc) {
		rc = sql_value(&w->conn, buf_str(q), &v, e);
		if (rc == 1) {
			w->conn.last_class = SQL_FATAL;
			err_set(e, ERR_INFRA, "account %lld is missing from "
				"'%s'", (long long)id, bank_table(o, id));
		}
	}
	if (!rc)
		*balance = strtoll(buf_str(&v), NULL, 10);
	buf_release(&v);
	return rc ? -1 : 0;
}

/* UPDATE account `id` by `delta`. */
static int move(struct worker *w, const struct bank_opts *o, int64_t id,
		long long delta, struct err *e)
{
	struct buf *q = &w->sql_text;

	buf_reset(q);
	return buf_addstr(q, "UPDATE ", e) ||
	       wl_table(q, w, bank_table(o, id), e) ||
	       buf_addstr(q, " SET ", e) || sql_quote_ident(q, o->column, e) ||
	       buf_addstr(q, " = ", e) || sql_quote_ident(q, o->column, e) ||
	       buf_printf(q, e, " %c %lld WHERE ", delta < 0 ? '-' : '+',
			  llabs(delta)) ||
	       sql_quote_ident(q, o->key, e) ||
	       buf_printf(q, e, " = %lld", (long long)id) ||
	       sql_exec(&w->conn, buf_str(q), e) ? -1 : 0;
}

/* A transfer: -1 after an error (not a refusal), else 0. */
static int transfer(struct worker *w, const struct bank_opts *o)
{
	int64_t from, to;
	long long amount, bal[2];
	char value[96];
	const char *table;
	struct err e;

	pick_pair(w, o, &from, &to);
	amount = 1 + (long long)rand_below(&w->rng,
					    (uint64_t)o->max_transfer);
	table = bank_table(o, from);
	snprintf(value, sizeof(value), "{\"from\":%lld,\"to\":%lld,"
		 "\"amount\":%lld}", (long long)from, (long long)to, amount);
	err_clear(&e);
	if (worker_connect(w))
		return 0;
	worker_invoke_value(w, "transfer", table, value);
	if (sql_exec(&w->conn, "START TRANSACTION", &e) ||
	    lock_account(w, o, from < to ? from : to, &bal[from > to], &e) ||
	    lock_account(w, o, from < to ? to : from, &bal[from < to], &e)) {
		wl_txn_failed(w, "transfer", table, value, &e);
		return -1;
	}
	if (bal[0] < amount) {
		char why[160];

		snprintf(why, sizeof(why), "account %lld holds %lld, less "
			 "than %lld", (long long)from, bal[0], amount);
		if (sql_exec(&w->conn, "ROLLBACK", &e))
			sql_close(&w->conn);	/* the next one reconnects */
		worker_refuse(w, "transfer", table, value, why);
		return 0;
	}
	if (move(w, o, from, -amount, &e) || move(w, o, to, amount, &e)) {
		wl_txn_failed(w, "transfer", table, value, &e);
		return -1;
	}
	if (sql_exec(&w->conn, "COMMIT", &e))
		w->conn.last_class = SQL_AMBIGUOUS;	/* info */
	worker_complete_value(w, "transfer", table, -1, value, &e);
	return err_isset(&e) ? -1 : 0;
}

/* Every balance of table `t` added to *total and *accounts. */
static int read_table(struct worker *w, struct sql *conn,
		      const struct bank_opts *o, const char *t,
		      long long *total, long long *accounts, struct err *e)
{
	struct buf *q = &w->sql_text;
	struct sql_result r = SQL_RESULT_INIT;
	int rc;

	buf_reset(q);
	rc = buf_addstr(q, "SELECT ", e) || sql_quote_ident(q, o->key, e) ||
	     buf_addstr(q, ", ", e) || sql_quote_ident(q, o->column, e) ||
	     buf_addstr(q, " FROM ", e) || wl_table(q, w, t, e) ||
	     sql_query(conn, buf_str(q), &r, e);
	for (size_t i = 0; !rc && i < r.nrows; i++) {
		const char *b = sql_cell(&r, i, o->column);

		*total += b ? strtoll(b, NULL, 10) : 0;
		(*accounts)++;
	}
	sql_result_release(&r);
	return rc ? -1 : 0;
}

/* A read of the whole total: -1 after an error, else 0. */
static int read_total(struct worker *w, const struct bank_opts *o)
{
	long long total = 0, accounts = 0;
	char value[96];
	struct err e;
	int rc;

	err_clear(&e);
	if (worker_connect(w))
		return 0;
	worker_invoke(w, "read", NULL);
	rc = sql_exec(&w->conn, "START TRANSACTION WITH CONSISTENT SNAPSHOT",
		      &e);
	for (size_t t = 0; !rc && t < o->common.tables.n; t++)
		rc = read_table(w, &w->conn, o, o->common.tables.v[t], &total,
				&accounts, &e);
	if (rc || sql_exec(&w->conn, "COMMIT", &e)) {
		wl_txn_failed(w, "read", NULL, NULL, &e);
		return -1;
	}
	snprintf(value, sizeof(value), "{\"total\":%lld,\"accounts\":%lld}",
		 total, accounts);
	worker_complete_value(w, "read", NULL, -1, value, NULL);
	return 0;
}

/*
 * A read of the whole total on the replica (worker_env.replica), on a
 * connection of its own, opened and closed each time: -1 after an
 * error, else 0. Any error is a fail.
 */
static int replica_read(struct worker *w, const struct bank_opts *o)
{
	struct sql c = SQL_INIT;
	long long total = 0, accounts = 0;
	char value[160];
	struct err e;
	int rc;

	err_clear(&e);
	snprintf(value, sizeof(value), "{\"replica\":\"%s\"}",
		 w->env->replica_name);
	worker_invoke_value(w, "replica_read", NULL, value);
	rc = w->env->connect(w->env->replica, &c, w->suite->database, 5,
			     &e) ||
	     sql_exec(&c, "START TRANSACTION WITH CONSISTENT SNAPSHOT", &e);
	for (size_t t = 0; !rc && t < o->common.tables.n; t++)
		rc = read_table(w, &c, o, o->common.tables.v[t], &total,
				&accounts, &e);
	rc = rc || sql_exec(&c, "COMMIT", &e);
	sql_close(&c);
	if (!rc)
		snprintf(value, sizeof(value), "{\"replica\":\"%s\","
			 "\"total\":%lld,\"accounts\":%lld}",
			 w->env->replica_name, total, accounts);
	/* The upstream connection's class decides fail or info: a fail. */
	w->conn.last_class = SQL_FATAL;
	worker_complete_value(w, "replica_read", NULL, -1, value,
			      rc ? &e : NULL);
	return rc ? -1 : 0;
}

static void run(struct worker *w)
{
	const struct bank_opts *o = w->item->opts;
	uint64_t tw = (uint64_t)o->transfer_weight;
	uint64_t rw = (uint64_t)o->read_weight;
	uint64_t pw = (uint64_t)o->replica_read_weight;

	if (pw && !w->env->replica) {
		worker_skip(w, "replica_read", NULL, "no downstream applies "
			    "the upstream's transactions whole (only a "
			    "MySQL or MariaDB replica does)");
		pw = 0;
	}
	while (!worker_stopping(w) && tw + rw + pw) {
		uint64_t pick = rand_below(&w->rng, tw + rw + pw);
		int rc;

		worker_pace(w);
		if (pick < tw)
			rc = transfer(w, o);
		else if (pick < tw + rw)
			rc = read_total(w, o);
		else
			rc = replica_read(w, o);
		if (rc && !worker_stopping(w))
			wl_error_pause(w);
	}
}

/* Its accounts, for the bank check (core/ledger.h). */
static int ledger(const struct suite_item *it, struct ledger *out)
{
	const struct bank_opts *o = it->opts;

	out->tables = o->common.tables.v;
	out->ntables = o->common.tables.n;
	out->key = o->key;
	out->column = o->column;
	out->accounts = o->accounts;
	out->initial = o->initial;
	return 0;
}

const struct workload_type workload_bank = {
	.kind = { "bank", "transfers between accounts in transactions and "
		  "reads of the whole total (Jepsen's bank)", opts,
		  sizeof(opts) / sizeof(opts[0]), sizeof(struct bank_opts),
		  .check = check, .ledger = ledger },
	.threads = threads,
	.run = run,
	.setup = setup,
};
