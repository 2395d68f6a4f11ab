#ifndef TICHAOS_DIFFCONFIG_H
#define TICHAOS_DIFFCONFIG_H

/*
 * sync-diff-inspector's configuration (diff_config.toml, as TiCDC's
 * integration tests write it) as the consistency check takes it
 * (docs/checkers.md): the data sources it compares, named by address,
 * the tables (target-check-tables: database.table patterns, `!` to
 * leave out, over several databases), the threads (check-thread-count)
 * and where sync-diff writes its fix SQL (task.output-dir). What tichaos
 * does not do — routes, table configs (ranges, ignored columns, index
 * fields), snapshots, session variables, several sources, a structure-
 * only check, no fix SQL — is refused at its line and column, never
 * read and dropped.
 */

#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"

/* A data source: the topology's SQL node at host:port. */
struct diff_source {
	char *name;		/* its name under [data-sources] */
	char *host;
	int port;
	char *user;		/* NULL: not given */
	char *password;		/* NULL: not given */
	int line, col;		/* of its table's first key */
};

struct diffconfig {
	char *path;
	int64_t threads;	/* check-thread-count; 0: not given */
	char *output_dir;	/* task.output-dir; NULL: not given */
	struct diff_source source, target;
	/* target-check-tables, as written: "db.t*", "!db.tmp". */
	char **tables;
	size_t ntables;
};

/*
 * Read `path` into `d` (which the caller releases with
 * diffconfig_release whatever the result). Errors (ERR_USAGE) are
 * "PATH:LINE:COL: what".
 */
int diffconfig_load(struct diffconfig *d, const char *path, struct err *e);

/*
 * Whether table `db`.`table` is one target-check-tables picks: the last
 * pattern it matches (shell wildcards, case-sensitive: sync-diff-
 * inspector's filter.Parse, which it does not make CaseInsensitive)
 * decides, `!` leaving it out; none: out. The server's own schemas, in
 * any case, are never picked.
 */
int diffconfig_wants(const struct diffconfig *d, const char *db,
		     const char *table);

void diffconfig_release(struct diffconfig *d);

#endif
