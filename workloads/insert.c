/*
 * insert: one thread per table (or `threads` over the tables), each
 * inserting rows one at a time and recording the AUTO_INCREMENT id the
 * server returns — the load of TiCDC's fail_over_ddl_mix.
 */
#include "core/suite.h"
#include "workloads/common.h"

struct insert_opts {
	struct workload_opts common;
	const char *column;
};

static const struct optspec opts[] = {
	WORKLOAD_COMMON_OPTS,
	{ "column", OPT_IDENT, "data", 0, NULL, 0, 0,
	  "the column that gets a value; the key is AUTO_INCREMENT",
	  OPT_AT(struct insert_opts, column) },
};

static int threads(const struct suite *s, const struct suite_item *it)
{
	const struct workload_opts *o = workload_opts_of(it);

	(void)s;
	return o->threads ? (int)o->threads : (int)o->tables.n;
}

static void run(struct worker *w)
{
	const struct insert_opts *o = w->item->opts;
	const char *column = o->column;
	uint64_t seq = 0;

	while (!worker_stopping(w))
		for (size_t i = 0; i < w->ntables && !worker_stopping(w); i++) {
			worker_pace(w);
			wl_insert_row(w, w->tables[i], column, ++seq);
		}
}

const struct workload_type workload_insert = {
	.kind = { "insert", "single-row INSERTs, one thread per table, "
		  "recording each returned AUTO_INCREMENT id",
		  opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct insert_opts) },
	.threads = threads,
	.run = run,
};
