/*
 * autoid: inserts into one table from several threads spread over every
 * upstream SQL node, recording the node and the id of each insert — the
 * workload of TiDB issue 52600 (ids going back after the autoid leader
 * moves away and back).
 */
#include "core/suite.h"
#include "workloads/common.h"

struct autoid_opts {
	struct workload_opts common;
	const char *column;
};

static const struct optspec opts[] = {
	WORKLOAD_COMMON_OPTS,
	{ "column", OPT_IDENT, "k", 0, NULL, 0, 0,
	  "the column that gets a value; the key is AUTO_INCREMENT",
	  OPT_AT(struct autoid_opts, column) },
};

static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	const struct optval *t = suite_optval(it,
					      &workload_opts_of(it)->tables);
	struct ynode at = { YNODE_SCALAR, t->line, t->col, NULL, 0, NULL, 0 };

	if (t->n != 1)
		return ynode_error(e, s->path, &at, "tables in workload "
				   "'autoid' must name exactly one table");
	return 0;
}

static int threads(const struct suite *s, const struct suite_item *it)
{
	int64_t n = workload_opts_of(it)->threads;

	(void)s;
	return n ? (int)n : 4;
}

static void run(struct worker *w)
{
	const struct autoid_opts *o = w->item->opts;
	const char *column = o->column;
	uint64_t seq = 0;

	while (!worker_stopping(w)) {
		worker_pace(w);
		wl_insert_row(w, w->tables[0], column, ++seq);
	}
}

const struct workload_type workload_autoid = {
	.kind = { "autoid", "inserts into one table from threads spread over "
		  "every upstream SQL node, recording node and id",
		  opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct autoid_opts), .check = check },
	.threads = threads,
	.run = run,
};
