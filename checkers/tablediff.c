/*
 * The table diff's driver (checkers/tablediff.h): every table of the
 * database on either side, compared one by one (presence, columns,
 * partitioning, then rows: whole first, or in chunks), into the check's
 * details and the fix-sql/ files; and the compare at two snapshots the
 * syncpoint check runs.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "checkers/checker.h"
#include "checkers/tablediff.h"
#include "clusters/cluster.h"
#include "core/suite.h"
#include "lib/buf.h"
#include "lib/history.h"
#include "lib/sql.h"

/*
 * How long one query of the check may read: a table checksummed whole in
 * one query answers once the server has read every row (5M rows through
 * a TiDB on an unoptimized TiKV took more than the connection's 60 s,
 * "Lost connection to server during query (2013)": bench/README.md).
 */
#define TABLEDIFF_READ_TIMEOUT_S 600

int tablediff_connect(struct side *s, struct err *e)
{
	const struct component *c = s->comp;
	struct err se = ERR_INIT;

	if (component_connect_read(c, &s->conn, NULL, 60,
				   TABLEDIFF_READ_TIMEOUT_S, e))
		return -1;
	if (s->session && sql_exec(&s->conn, s->session, &se))
		return err_set(e, se.class, "%s: %s: %s", c->name, s->session,
			       se.msg);
	return 0;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The range of every row: no WHERE. */
static const struct range whole_table = { .whole = 1 };

/*
 * With one connection a side, a table with a key is checksummed whole
 * first, one scan a side: 1 when both sides are the same (d has their
 * rows), 0 when the table must be cut into chunks (d counts the whole
 * one), -1 on error. A chunk is a range of the key, which the server
 * checks on every row it reads (MariaDB's plan says "Using where"): a
 * tenth of a scan's time (bench/README.md), which only finding where two
 * tables differ needs; with one connection a side, chunks bring no
 * parallelism. Keyless tables are compared whole anyway, and more
 * connections a side need chunks to share.
 */
static int whole_first(struct side *sides, const struct table *t,
		       int threads, struct diff *d, struct err *e)
{
	struct sum *sums[2] = { NULL, NULL };
	int same = -1;

	if (threads != 1 || !t->nkeys)
		return 0;
	if (!tablepool_checksum(sides, t, &whole_table, 1, 1, sums, e)) {
		same = tablerange_same_sum(sums[UP], sums[DOWN]);
		d->chunks = 1;
		if (same) {
			d->rows[UP] = sums[UP]->count;
			d->rows[DOWN] = sums[DOWN]->count;
		}
	}
	free(sums[UP]);
	free(sums[DOWN]);
	return same;
}

/* Chunked checksums of both sides in parallel, then the mismatches. */
static int compare_table(struct side *sides, const struct table *t,
			 int64_t chunk_rows, int threads, struct diff *d,
			 struct err *e)
{
	struct range *cut = NULL;
	const struct range *ranges = &whole_table;
	char ***bounds = NULL;
	size_t nchunks = t->nkeys ? 0 : 1, nbounds = 0;
	struct sum *sums[2] = { NULL, NULL };
	int rc = whole_first(sides, t, threads, d, e);

	if (rc)
		return rc < 0 ? -1 : 0;
	if (t->int_key)
		rc = tablerange_int_chunks(sides, t, chunk_rows, &cut, &nchunks,
					   e);
	else if (t->nkeys)
		rc = tablerange_key_chunks(sides, t, chunk_rows, &cut, &nchunks,
					   &bounds, &nbounds, e);
	if (cut)
		ranges = cut;
	if (rc || !nchunks)
		goto out;
	rc = tablepool_checksum(sides, t, ranges, nchunks, threads, sums, e);
	d->chunks += nchunks;
	for (size_t i = 0; i < nchunks; i++) {
		d->rows[UP] += sums[UP][i].count;
		d->rows[DOWN] += sums[DOWN][i].count;
	}
	if (!rc)
		/* A worker asks one side, then the other: twice as many
		 * keep each side as busy as its pool did. */
		rc = tablerows_compare_chunks(sides, t, ranges, nchunks,
					      sums[UP], sums[DOWN], threads * 2,
					      d, e);
	free(sums[UP]);
	free(sums[DOWN]);
out:
	for (size_t i = 0; i < nbounds; i++)
		tablerange_free_tuple(bounds[i], t->nkeys);
	free(bounds);
	free(cut);
	return rc ? -1 : 0;
}

/*
 * `threads: 0`. Two servers on this machine share its cores: a scan on
 * each core is all they run at once, and more scans take turns, each
 * evicting the others' pages from a buffer pool the table may not fit
 * (bench/README.md). Servers elsewhere get four.
 */
static int auto_threads(const struct side *sides)
{
	cpu_set_t cpus;
	int n;

	for (int s = 0; s < 2; s++)
		if (sides[s].comp->host && strcmp(sides[s].comp->host, "local"))
			return 4;
	n = sched_getaffinity(0, sizeof(cpus), &cpus) ? 2 : CPU_COUNT(&cpus);
	return n / 2 < 1 ? 1 : n / 2 > 4 ? 4 : n / 2;
}

static int write_fix(const char *run_dir, const char *db, const char *name,
		     const struct buf *fix, char *rel, size_t size,
		     struct err *e)
{
	char path[4400];

	snprintf(path, sizeof(path), "%s/fix-sql", run_dir);
	if (mkdir(path, 0755) && errno != EEXIST)
		return err_errno(e, errno, "cannot create '%s'", path);
	snprintf(rel, size, "fix-sql/%s.%s.sql", db, name);
	snprintf(path, sizeof(path), "%s/%s", run_dir, rel);
	return buf_write_file(fix, path, 0644, e);
}

/* "columns" and "rows": the differences shown, when there are any. */
static void shown_json(struct buf *out, const struct table *t,
		       struct diff *d)
{
	if (!d->nshown)
		return;
	buf_addstr(out, ",\"columns\":[", NULL);
	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			buf_addch(out, ',', NULL);
		json_quote(out, t->cols[c], NULL);
	}
	buf_addstr(out, "],\"rows\":[", NULL);
	buf_rtrim(&d->shown);
	for (size_t c = 0; c < d->shown.len; c++)
		buf_addch(out, d->shown.data[c] == '\n' ? ',' :
			  d->shown.data[c], NULL);
	buf_addch(out, ']', NULL);
}

/*
 * One table on both sides: its columns, its partitioning, then its rows
 * (when the columns agree), into the details' entry of the table (its
 * members after "table"), the fix SQL and the tally.
 */
static int compare_one(const struct check_ctx *ctx,
		       const struct tablediff_opts *o, struct side *sides,
		       const char *db, const char *name,
		       struct tablediff_tally *tl, struct check_result *r,
		       struct err *e)
{
	struct table t = { .db = db, .name = name, .text_expr = BUF_INIT,
			   .hash_expr = BUF_INIT, .qname = BUF_INIT };
	struct diff d = { .keys = { BUF_INIT, BUF_INIT, BUF_INIT },
			  .fix = BUF_INIT, .shown = BUF_INIT };
	struct buf schema = BUF_INIT, parts = BUF_INIT;
	char fix[512] = "";
	int rc;

	d.max_report = o->max_report;
	rc = tabledef_describe(sides, &t, &schema, e) ||
	     tabledef_partitioning(sides, &t, &parts, e);
	if (!rc && parts.len) {
		buf_addstr(&r->details, ",\"partitioning\":", NULL);
		json_quote(&r->details, buf_str(&parts), NULL);
		if (!tl->first[0])
			snprintf(tl->first, sizeof(tl->first), "%s.%s: "
				 "partitioning differs: %.300s", db, name,
				 buf_str(&parts));
	}
	if (!rc && schema.len) {
		buf_addstr(&r->details, ",\"schema\":", NULL);
		json_quote(&r->details, buf_str(&schema), NULL);
		if (!tl->first[0])
			snprintf(tl->first, sizeof(tl->first), "%s.%s: "
				 "columns differ: %.300s", db, name,
				 buf_str(&schema));
	} else if (!rc) {
		rc = compare_table(sides, &t, o->chunk_rows, o->threads ?
				   (int)o->threads : auto_threads(sides), &d,
				   e);
	}
	if (!rc && !schema.len) {
		buf_printf(&r->details, NULL, ",\"up_rows\":%llu,"
			   "\"down_rows\":%llu,\"missing\":%llu,"
			   "\"extra\":%llu,\"changed\":%llu,"
			   "\"chunks\":%llu,\"rows_compared\":%llu",
			   (unsigned long long)d.rows[UP],
			   (unsigned long long)d.rows[DOWN],
			   (unsigned long long)d.missing,
			   (unsigned long long)d.extra,
			   (unsigned long long)d.changed,
			   (unsigned long long)d.chunks,
			   (unsigned long long)d.compared);
		for (int k = 0; k < 3; k++) {
			buf_printf(&r->details, NULL, ",\"%s_keys\":[",
				   tablerows_kind_names[k]);
			buf_rtrim(&d.keys[k]);
			for (size_t c = 0; c < d.keys[k].len; c++)
				buf_addch(&r->details, d.keys[k].data[c] ==
					  '\n' ? ',' : d.keys[k].data[c],
					  NULL);
			buf_addch(&r->details, ']', NULL);
		}
		if (!t.nkeys)
			buf_addstr(&r->details, ",\"warning\":\"no primary "
				   "key: rows compared as a multiset\"", NULL);
		shown_json(&r->details, &t, &d);
		tl->rows += d.rows[UP];
		tl->tot[0] += d.missing;
		tl->tot[1] += d.extra;
		tl->tot[2] += d.changed;
	}
	/* Counted once, whatever differs in it. */
	tl->differing += !rc && (schema.len || parts.len || d.fix.len);
	if (!rc && d.fix.len && o->at_snapshot) {
		int k = d.keys[0].len ? 0 : d.keys[1].len ? 1 : 2;
		const char *key = buf_str(&d.keys[k]);

		if (!tl->first[0])
			snprintf(tl->first, sizeof(tl->first), "%s.%s: %llu "
				 "missing, %llu extra, %llu changed (first %s: "
				 "%.*s)", db, name,
				 (unsigned long long)d.missing,
				 (unsigned long long)d.extra,
				 (unsigned long long)d.changed,
				 tablerows_kind_names[k],
				 (int)strcspn(key, "\n"), key);
	} else if (!rc && d.fix.len) {
		rc = write_fix(ctx->run_dir, db, name, &d.fix, fix,
			       sizeof(fix), e);
		buf_printf(&r->details, NULL, ",\"fix_sql\":\"%s\"", fix);
		if (!tl->first[0])
			snprintf(tl->first, sizeof(tl->first), "%s.%s: %llu "
				 "missing, %llu extra, %llu changed (%s)", db,
				 name, (unsigned long long)d.missing,
				 (unsigned long long)d.extra,
				 (unsigned long long)d.changed, fix);
	}
	for (int k = 0; k < 3; k++)
		buf_release(&d.keys[k]);
	buf_release(&d.fix);
	buf_release(&d.shown);
	buf_release(&schema);
	buf_release(&parts);
	tabledef_release(&t);
	return rc;
}

/*
 * "DB\tTABLE" of every base table on side `s`: of `db`, or with
 * o->config of every database it picks.
 */
static int list_tables(struct side *s, const struct tablediff_opts *o,
		       const char *db, char ***out, size_t *n, struct err *e)
{
	struct buf q = BUF_INIT;
	size_t kept = 0;
	int rc;

	buf_addstr(&q, "SELECT CONCAT(TABLE_SCHEMA, CHAR(9), TABLE_NAME) "
		   "FROM information_schema.TABLES WHERE TABLE_TYPE = 'BASE "
		   "TABLE'", NULL);
	if (!o->config) {
		buf_addstr(&q, " AND TABLE_SCHEMA = ", NULL);
		sql_quote_string(&q, db, NULL);
	}
	rc = tabledef_string_list(&s->conn, buf_str(&q), out, n, e);
	buf_release(&q);
	for (size_t i = 0; !rc && o->config && i < *n; i++) {
		char *tab = strchr((*out)[i], '\t');

		*tab = '\0';
		if (diffconfig_wants(o->config, (*out)[i], tab + 1)) {
			*tab = '\t';
			(*out)[kept++] = (*out)[i];
		} else {
			free((*out)[i]);
		}
	}
	if (!rc && o->config)
		*n = kept;
	return rc;
}

/*
 * Every table of the database on either side (or o->tables; with
 * o->config, every table it picks, of any database), compared into r's
 * "tables" and the tally; *nall: how many.
 */
int tablediff_compare_tables(const struct check_ctx *ctx,
			     const struct tablediff_opts *o, struct side *sides,
			     struct tablediff_tally *tl, size_t *nall,
			     struct check_result *r, struct err *e)
{
	const struct optlist *only = &o->tables;
	char **names[2] = { NULL, NULL }, **all = NULL;
	size_t nnames[2] = { 0, 0 };
	int rc = 0;

	*nall = 0;
	for (int s = 0; !rc && s < 2; s++)
		rc = list_tables(&sides[s], o, ctx->suite->database, &names[s],
				 &nnames[s], e);
	if (rc)
		goto out;
	/* Every table on either side (or the ones asked for), sorted. */
	all = xcalloc(nnames[UP] + nnames[DOWN] + 1, sizeof(*all));
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < nnames[s]; i++) {
			int want = !only->n, dup = 0;

			for (size_t k = 0; k < only->n; k++)
				want |= !strcmp(only->v[k],
						strchr(names[s][i], '\t') + 1);
			for (size_t k = 0; k < *nall; k++)
				dup |= !strcmp(all[k], names[s][i]);
			if (want && !dup)
				all[(*nall)++] = names[s][i];
		}
	qsort(all, *nall, sizeof(*all), by_string);
	buf_addstr(&r->details, ",\"tables\":[", NULL);
	for (size_t i = 0; !rc && i < *nall; i++) {
		int on[2] = { 0, 0 };
		char *tab = strchr(all[i], '\t');
		char db[256];

		for (int s = 0; s < 2; s++)
			for (size_t k = 0; k < nnames[s]; k++)
				on[s] |= !strcmp(names[s][k], all[i]);
		snprintf(db, sizeof(db), "%.*s", (int)(tab - all[i]), all[i]);
		buf_printf(&r->details, NULL, "%s{\"table\":\"%s.%s\"",
			   i ? "," : "", db, tab + 1);
		if (!on[UP] || !on[DOWN]) {
			buf_printf(&r->details, NULL, ",\"only\":\"%s\"}",
				   on[UP] ? "upstream" : "downstream");
			if (!tl->first[0])
				snprintf(tl->first, sizeof(tl->first), "%s.%s "
					 "exists only %s", db, tab + 1, on[UP] ?
					 "upstream" : "downstream");
			tl->differing++;
			continue;
		}
		rc = compare_one(ctx, o, sides, db, tab + 1, tl, r, e);
		buf_addch(&r->details, '}', NULL);
	}
	buf_addch(&r->details, ']', NULL);
	snprintf(r->numbers, sizeof(r->numbers), "tables=%zu differing=%zu "
		 "rows=%llu missing=%llu extra=%llu changed=%llu", *nall,
		 tl->differing, (unsigned long long)tl->rows,
		 (unsigned long long)tl->tot[0],
		 (unsigned long long)tl->tot[1],
		 (unsigned long long)tl->tot[2]);
out:
	for (int s = 0; s < 2; s++)
		tabledef_free_list(names[s], nnames[s]);
	free(all);
	return rc;
}

int tablediff_compare_at(const struct check_ctx *ctx,
			 const struct snapshot_pair *at, struct check_result *r,
			 struct err *e)
{
	struct side sides[2] = { { at->comp[UP], SQL_INIT, at->session[UP] },
				 { at->comp[DOWN], SQL_INIT,
				   at->session[DOWN] } };
	struct tablediff_opts o;
	struct tablediff_tally tl = { 0, 0, { 0, 0, 0 }, "" };
	size_t nall = 0;
	int rc;

	memset(&o, 0, sizeof(o));
	o.tables = *at->tables;
	o.chunk_rows = at->chunk_rows;
	o.threads = at->threads;
	o.max_report = at->max_report;
	o.at_snapshot = 1;
	rc = tablediff_connect(&sides[UP], e) ||
	     tablediff_connect(&sides[DOWN], e) ||
	     tablediff_compare_tables(ctx, &o, sides, &tl, &nall, r, e);
	if (!rc && tl.differing)
		check_verdict(r, VERDICT_FAIL, "%zu of %zu tables differ; "
			      "first: %s", tl.differing, nall, tl.first);
	else if (!rc)
		check_verdict(r, VERDICT_PASS, "%zu tables, %llu rows equal",
			      nall, (unsigned long long)tl.rows);
	sql_close(&sides[UP].conn);
	sql_close(&sides[DOWN].conn);
	return rc ? -1 : 0;
}
