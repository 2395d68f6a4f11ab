/*
 * insert: one thread per table (or `threads` over the tables), each
 * inserting rows one at a time and recording the AUTO_INCREMENT id the
 * server returns — the load of TiCDC's fail_over_ddl_mix.
 */
#include "core/suite.h"
#include "workloads/common.h"

static const struct optspec opts[] = {
	WORKLOAD_COMMON_OPTS,
	{ "column", OPT_IDENT, "data", 0, NULL, 0, 0,
	  "the column that gets a value; the key is AUTO_INCREMENT" },
};

static int threads(const struct suite *s, const struct suite_item *it)
{
	const struct optval *n = suite_opt(it, "threads");

	(void)s;
	return n->i ? (int)n->i : (int)suite_opt(it, "tables")->n;
}

static void run(struct worker *w)
{
	const char *column = suite_opt(w->item, "column")->s;
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
		  opts, sizeof(opts) / sizeof(opts[0]) },
	.threads = threads,
	.run = run,
};
