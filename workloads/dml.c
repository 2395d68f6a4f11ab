/*
 * dml: a mix of INSERT, UPDATE and DELETE by key over a key range, with
 * weights — row changes of every kind for the consistency check to judge.
 */
#include "core/suite.h"
#include "lib/sql.h"
#include "workloads/common.h"

struct dml_opts {
	struct workload_opts common;
	const char *column;
	const char *key;
	int64_t key_range;
	int64_t insert_weight;
	int64_t update_weight;
	int64_t delete_weight;
};

#define AT(member) OPT_AT(struct dml_opts, member)

static const struct optspec opts[] = {
	WORKLOAD_COMMON_OPTS,
	{ "column", OPT_IDENT, "data", 0, NULL, 0, 0,
	  "the column that inserts and updates set", AT(column) },
	{ "key", OPT_IDENT, "id", 0, NULL, 0, 0,
	  "the integer key column updates and deletes pick rows by",
	  AT(key) },
	{ "key_range", OPT_INT, "1000", 0, NULL, 1, 1000000000,
	  "updates and deletes pick a key in 1..key_range", AT(key_range) },
	{ "insert_weight", OPT_INT, "2", 0, NULL, 0, 1000,
	  "relative weight of INSERTs", AT(insert_weight) },
	{ "update_weight", OPT_INT, "1", 0, NULL, 0, 1000,
	  "relative weight of UPDATEs", AT(update_weight) },
	{ "delete_weight", OPT_INT, "1", 0, NULL, 0, 1000,
	  "relative weight of DELETEs", AT(delete_weight) },
};

static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	const struct dml_opts *o = it->opts;

	if (o->insert_weight + o->update_weight + o->delete_weight == 0) {
		struct ynode at = { YNODE_SCALAR, it->line, it->col, NULL, 0,
				    NULL, 0 };

		return ynode_error(e, s->path, &at, "workload 'dml' needs a "
				   "weight above 0");
	}
	return 0;
}

static int threads(const struct suite *s, const struct suite_item *it)
{
	const struct workload_opts *o = workload_opts_of(it);

	(void)s;
	return o->threads ? (int)o->threads : (int)o->tables.n;
}

/* UPDATE or DELETE the row with a random key. */
static void by_key(struct worker *w, const char *f, const char *table,
		   const char *column, const char *key, uint64_t seq)
{
	const struct dml_opts *o = w->item->opts;
	int64_t k = 1 + (int64_t)rand_below(&w->rng, (uint64_t)o->key_range);
	struct buf q = BUF_INIT;
	const char *stmts[2] = { NULL, NULL };
	int bad;

	if (f[0] == 'u')
		bad = buf_addstr(&q, "UPDATE ", NULL) ||
		      wl_table(&q, w, table, NULL) ||
		      buf_addstr(&q, " SET ", NULL) ||
		      sql_quote_ident(&q, column, NULL) ||
		      buf_printf(&q, NULL, " = '%llu' WHERE ",
				 (unsigned long long)seq);
	else
		bad = buf_addstr(&q, "DELETE FROM ", NULL) ||
		      wl_table(&q, w, table, NULL) ||
		      buf_addstr(&q, " WHERE ", NULL);
	bad = bad || sql_quote_ident(&q, key, NULL) ||
	      buf_printf(&q, NULL, " = %lld", (long long)k);
	if (!bad) {
		stmts[0] = buf_str(&q);
		if (wl_op(w, f, table, stmts, k) && !worker_stopping(w))
			wl_error_pause(w);
	}
	buf_release(&q);
}

static void run(struct worker *w)
{
	const struct dml_opts *o = w->item->opts;
	const char *column = o->column;
	const char *key = o->key;
	uint64_t ins = (uint64_t)o->insert_weight;
	uint64_t upd = (uint64_t)o->update_weight;
	uint64_t del = (uint64_t)o->delete_weight;
	uint64_t seq = 0;

	while (!worker_stopping(w)) {
		const char *table = w->tables[rand_below(&w->rng, w->ntables)];
		uint64_t pick = rand_below(&w->rng, ins + upd + del);

		worker_pace(w);
		seq++;
		if (pick < ins)
			wl_insert_row(w, table, column, seq);
		else if (pick < ins + upd)
			by_key(w, "update", table, column, key, seq);
		else
			by_key(w, "delete", table, column, key, seq);
	}
}

const struct workload_type workload_dml = {
	.kind = { "dml", "INSERT / UPDATE / DELETE by key over a key range, "
		  "with weights", opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct dml_opts), .check = check },
	.threads = threads,
	.run = run,
};
