/*
 * consistency: after the run, do the upstream and the downstream hold the
 * same data? (docs/checkers.md, the data loss of TiCDC issue 1192.)
 *
 * 1. Barrier (checkers/barrier.c): a finish mark written upstream must
 *    appear downstream within `sync_timeout` and, on TiCDC, the
 *    changefeed's checkpoint_ts pass the mark's commit_ts; otherwise the
 *    verdict is unknown, with the lag seen. `barrier: false` writes no
 *    mark and compares the two sides as they stand: two databases that
 *    no replication joins (a restore, an import, a pair loaded alike),
 *    as sync-diff-inspector compares them.
 * 2. Every table of the suite's database on either side (the table diff,
 *    checkers/tablediff.h): presence, column definitions, then data, in
 *    chunks of about `chunk_rows` rows of the primary key: a single
 *    integer key's range is cut arithmetically; any other key
 *    (composite, string, date, BIGINT UNSIGNED) is cut at every
 *    chunk_rows-th key of the upstream's key order (checkers/tablediff.h
 *    says how, exactly). Both sides checksum every chunk in
 *    parallel (`threads` connections each, and a side done helps the
 *    other with its last chunks): COUNT(*) and the BIT_XOR of a
 *    32-bit row hash (the CRC32 of a mix of the columns' values,
 *    tabledef_row_hash() says how); with one connection a side, the
 *    whole table first, and chunks only when it differs (whole_first).
 *    Mismatching chunks are cut (an integer range in tenths, any other
 *    at its middle key) down to a few thousand rows, whose rows are then
 *    compared in key order. A table without a key is compared whole as a
 *    multiset of rows, with a warning.
 * 3. Differences: missing, extra and changed rows with their keys, and
 *    fix-sql/<db>.<table>.sql — REPLACE for missing and changed rows,
 *    DELETE for extra ones — which, applied downstream, makes it equal.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "checkers/barrier.h"
#include "checkers/checker.h"
#include "checkers/tablediff.h"
#include "clusters/cluster.h"
#include "core/suite.h"
#include "lib/clock.h"
#include "lib/history.h"
#include "lib/proc.h"
#include "lib/sql.h"
#include "lib/ynode.h"

struct consistency_opts {
	int barrier;
	int64_t sync_timeout;
	const char *changefeed;	/* NULL: the cluster's */
	const char *diff_config;	/* NULL: none */
	struct optlist tables;	/* empty: every table, on either side */
	int64_t chunk_rows;
	int64_t threads;
	int64_t max_report;
};

#define AT(member) OPT_AT(struct consistency_opts, member)

static const struct optspec opts[] = {
	{ "barrier", OPT_BOOL, "true", 0, NULL, 0, 0,
	  "write a finish mark upstream and wait for it downstream before "
	  "comparing; false: compare the two sides as they stand (databases "
	  "that no replication joins)", AT(barrier) },
	{ "sync_timeout", OPT_DURATION, "300s", 0, NULL, 0, 0,
	  "how long the finish mark may take to reach the downstream",
	  AT(sync_timeout) },
	{ "changefeed", OPT_STRING, NULL, 0, NULL, 0, 0,
	  "TiCDC: the changefeed whose checkpoint must pass the finish mark "
	  "(default: the topology's, else tichaos)", AT(changefeed) },
	{ "diff_config", OPT_STRING, NULL, 0, NULL, 0, 0,
	  "sync-diff-inspector's diff_config.toml (relative to the suite's "
	  "file): the nodes it names by address, the tables of "
	  "target-check-tables (any database), check-thread-count; what "
	  "tichaos does not do is refused at its line",
	  AT(diff_config) },
	TABLEDIFF_COMPARE_OPTS(struct consistency_opts),
};

/* The diff config's path: as written, or beside the suite's file. */
static void config_path(const struct suite *s, const char *name, char *out,
			size_t size)
{
	const char *slash = strrchr(s->path, '/');

	if (name[0] == '/' || !slash)
		snprintf(out, size, "%s", name);
	else
		snprintf(out, size, "%.*s/%s", (int)(slash - s->path), s->path,
			 name);
}

/* diff_config read (what it says refused at its line), and not given
 * with `tables` or `threads`, which it says. */
static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	const struct consistency_opts *o = it->opts;
	struct diffconfig d;
	char path[PATH_MAX];
	int rc;

	if (!o->barrier && (suite_optval(it, &o->sync_timeout)->given ||
			    suite_optval(it, &o->changefeed)->given))
		return suite_opt_error(e, s, it, &o->barrier, "check "
				       "'consistency': with 'barrier: false' "
				       "no finish mark is waited for; "
				       "'sync_timeout' and 'changefeed' are "
				       "not given with it");
	if (!o->diff_config)
		return 0;
	if (o->tables.n || suite_optval(it, &o->threads)->given)
		return suite_opt_error(e, s, it, &o->diff_config, "check "
				       "'consistency': diff_config names the "
				       "tables and threads; 'tables' and "
				       "'threads' are not given with it");
	config_path(s, o->diff_config, path, sizeof(path));
	rc = diffconfig_load(&d, path, e);
	diffconfig_release(&d);
	return rc;
}

/*
 * The topology's SQL node at the address of data source `src` into
 * `out`; none: -1 with its line, naming the nodes there are.
 */
static int node_of(const struct check_ctx *ctx, const struct diffconfig *d,
		   const struct diff_source *src, const struct component **out,
		   struct err *e)
{
	const struct cluster *c = ctx->cluster;
	struct buf nodes = BUF_INIT;

	for (size_t i = 0; i < c->ncomps; i++) {
		const struct component *comp = &c->comps[i];

		if (!comp->sql_host)
			continue;
		if (comp->sql_port == src->port &&
		    !strcmp(comp->sql_host, src->host)) {
			*out = comp;
			break;
		}
		buf_printf(&nodes, NULL, "%s%s %s:%d", nodes.len ? ", " : "",
			   comp->name, comp->sql_host, comp->sql_port);
	}
	if (!*out)
		err_set(e, ERR_USAGE, "%s:%d:%d: data source '%s' (%s:%d) is "
			"no SQL node of the topology (%s)", d->path, src->line,
			src->col, src->name, src->host, src->port,
			nodes.len ? buf_str(&nodes) : "none");
	else if (src->user && strcmp(src->user, (*out)->user ?
				     (*out)->user : "root"))
		err_set(e, ERR_USAGE, "%s:%d:%d: data source '%s': user '%s' "
			"is not %s's ('%s'), which the check connects as",
			d->path, src->line, src->col, src->name, src->user,
			(*out)->name, (*out)->user ? (*out)->user : "root");
	else if (src->password && strcmp(src->password, (*out)->password ?
					 (*out)->password : ""))
		err_set(e, ERR_USAGE, "%s:%d:%d: data source '%s': its "
			"password is not %s's (the topology's password_env), "
			"which the check connects with", d->path, src->line,
			src->col, src->name, (*out)->name);
	buf_release(&nodes);
	return err_isset(e) ? -1 : 0;
}

/*
 * A relative diff_config kept in the run directory at its place beside
 * suite.yaml, which `tichaos check RUN_DIR` reads it from.
 */
static int keep_config(const struct check_ctx *ctx, const char *name,
		       const char *path, struct err *e)
{
	char to[PATH_MAX + 256], dir[PATH_MAX + 256];
	struct stat a, b;
	char *slash;

	if (name[0] == '/')
		return 0;
	snprintf(to, sizeof(to), "%s/%s", ctx->run_dir, name);
	if (!stat(to, &a) && !stat(path, &b) && a.st_ino == b.st_ino &&
	    a.st_dev == b.st_dev)
		return 0;
	snprintf(dir, sizeof(dir), "%s", to);
	slash = strrchr(dir, '/');
	*slash = '\0';
	return proc_make_dirs(dir, e) || buf_copy_file(path, to, e) ? -1 : 0;
}

/*
 * The fix SQL also where sync-diff-inspector writes its own:
 * OUTPUT-DIR/fix-on-TARGET/, a file a table (fix-sql/'s names).
 */
static int fix_to_output(const struct check_ctx *ctx,
			 const struct diffconfig *d, struct err *e)
{
	char from[PATH_MAX], to[PATH_MAX + 300], file[2 * PATH_MAX + 300];
	struct dirent *de;
	DIR *dir;
	int rc = 0;

	snprintf(from, sizeof(from), "%s/fix-sql", ctx->run_dir);
	snprintf(to, sizeof(to), "%s/fix-on-%s", d->output_dir,
		 d->target.name);
	if (proc_make_dirs(to, e))
		return -1;
	dir = opendir(from);
	while (dir && !rc && (de = readdir(dir))) {
		char dest[2 * PATH_MAX + 600];

		if (de->d_name[0] == '.')
			continue;
		snprintf(file, sizeof(file), "%s/%s", from, de->d_name);
		snprintf(dest, sizeof(dest), "%s/%s", to, de->d_name);
		rc = buf_copy_file(file, dest, e);
	}
	if (dir)
		closedir(dir);
	return rc;
}

static int run(const struct check_ctx *ctx, const struct suite_item *it,
	       struct check_result *r, struct err *e)
{
	struct side sides[2] = { { NULL, SQL_INIT, NULL },
				 { NULL, SQL_INIT, NULL } };
	const struct consistency_opts *o = it->opts;
	struct tablediff_opts cmp = { o->tables, o->chunk_rows, o->threads,
				      o->max_report, 0, NULL };
	struct tablediff_tally tl = { 0, 0, { 0, 0, 0 }, "" };
	struct diffconfig d;
	size_t nall = 0;
	int64_t barrier_ns = 0;
	char halted[300] = "", path[PATH_MAX];
	int rc = 0;

	memset(&d, 0, sizeof(d));
	if (o->diff_config) {
		config_path(ctx->suite, o->diff_config, path, sizeof(path));
		if (diffconfig_load(&d, path, e) ||
		    keep_config(ctx, o->diff_config, path, e) ||
		    node_of(ctx, &d, &d.source, &sides[UP].comp, e) ||
		    node_of(ctx, &d, &d.target, &sides[DOWN].comp, e)) {
			rc = -1;
			goto out;
		}
		cmp.config = &d;
		cmp.threads = d.threads;
	} else {
		sides[UP].comp = cluster_first_sql(ctx->cluster,
						   ROLE_UPSTREAM);
		sides[DOWN].comp = cluster_first_sql(ctx->cluster,
						     ROLE_DOWNSTREAM);
	}
	if (!sides[UP].comp || !sides[DOWN].comp) {
		check_verdict(r, VERDICT_SKIP, "the cluster has no %s SQL node",
			      sides[UP].comp ? "downstream" : "upstream");
		return 0;
	}
	if (tablediff_connect(&sides[UP], e) ||
	    tablediff_connect(&sides[DOWN], e)) {
		rc = -1;
		goto out;
	}
	if (o->barrier)
		rc = barrier_sync(ctx, sides[UP].comp, &sides[UP].conn,
				  sides[DOWN].comp, &sides[DOWN].conn,
				  o->changefeed, o->sync_timeout, &barrier_ns,
				  r, halted, sizeof(halted), e);
	else
		buf_addstr(&r->details, "\"barrier\":false", NULL);
	/* Waiting for the mark may have dropped the connection. */
	if (!rc && halted[0] && !sides[DOWN].conn.my)
		rc = tablediff_connect(&sides[DOWN], e);
	if (rc)
		goto out;
	rc = tablediff_compare_tables(ctx, &cmp, sides, &tl, &nall, r, e);
	if (!rc && d.output_dir)
		rc = fix_to_output(ctx, &d, e);
	if (rc)
		goto out;
	if (halted[0]) {
		buf_addstr(&r->details, ",\"unsynced\":", NULL);
		json_quote(&r->details, halted, NULL);
	}
	if (tl.differing)
		check_verdict(r, VERDICT_FAIL, "%zu of %zu tables differ%s%s%s; "
			      "first: %s", tl.differing, nall, halted[0] ?
			      " (compared unsynced: " : "", halted,
			      halted[0] ? ")" : "", tl.first);
	else if (!o->barrier)
		check_verdict(r, VERDICT_PASS, "%zu tables, %llu rows equal on "
			      "both sides (no barrier: compared as they stood)",
			      nall, (unsigned long long)tl.rows);
	else if (halted[0])
		check_verdict(r, VERDICT_UNKNOWN, "%zu tables, %llu rows equal "
			      "on both sides, but unsynced: %s", nall,
			      (unsigned long long)tl.rows, halted);
	else
		check_verdict(r, VERDICT_PASS, "%zu tables, %llu rows equal on "
			      "both sides (sync %.1fs)", nall,
			      (unsigned long long)tl.rows,
			      (double)barrier_ns / NS_PER_SEC);
out:
	if (rc > 0)
		rc = 0;
	for (int s = 0; s < 2; s++)
		sql_close(&sides[s].conn);
	diffconfig_release(&d);
	return rc;
}

const struct checker_type checker_consistency = {
	.kind = { "consistency", "upstream and downstream hold the same "
		  "tables and rows (chunked checksums, row diff, fix SQL)",
		  opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct consistency_opts), .check = check },
	.live = 1,
	.run = run,
	.draw = tablediff_draw,
};
