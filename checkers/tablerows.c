/*
 * The rows of the chunks whose checksums differ (checkers/tablediff.h):
 * a chunk cut into parts until they are small, their rows read from both
 * sides and merged in key order into missing, extra and changed rows,
 * each with its key, its rows for the report and its fix SQL.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "checkers/tablediff.h"
#include "lib/buf.h"
#include "lib/history.h"
#include "lib/sql.h"

/* Rows compared one by one at most, per range cut from a mismatching
 * chunk. */
#define COMPARE_ROWS 2000

/* Differences shown with their rows, per table. */
#define SHOWN_ROWS 100

const char *const tablerows_kind_names[3] = {
	"missing", "extra", "changed",
};

static void release_rows(struct rows *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		free(rs->rows[i].key);
		for (size_t c = 0; c < rs->ncols; c++)
			free(rs->rows[i].vals[c]);
		free(rs->rows[i].vals);
	}
	free(rs->rows);
	memset(rs, 0, sizeof(*rs));
}

static int by_key(const void *a, const void *b, void *int_key)
{
	const struct row *x = a, *y = b;
	int c;

	if (*(const int *)int_key)
		return x->ikey < y->ikey ? -1 : x->ikey > y->ikey;
	c = strcmp(x->key, y->key);
	return c ? c : strcmp(x->hash, y->hash);
}

/* The rows of a range: key text, hash, every column. */
static int fetch_rows(struct sql *s, const struct table *t,
		      const struct range *rg, struct rows *out, struct err *e)
{
	struct buf q = BUF_INIT;
	struct sql_result r = SQL_RESULT_INIT;
	size_t nk = t->nkeys ? t->nkeys : 0;
	int rc;

	size_t first = t->col_json ? 2 : 1;	/* the first column's cell */

	buf_printf(&q, NULL, "SELECT SHA1(%s)", buf_str(&t->text_expr));
	if (t->col_json)
		buf_printf(&q, NULL, ", SHA1(%s)", buf_str(&t->plain_expr));
	for (size_t i = 0; i < t->ncols; i++) {
		buf_addstr(&q, ", ", NULL);
		sql_quote_ident(&q, t->cols[i], NULL);
	}
	buf_printf(&q, NULL, " FROM %s", buf_str(&t->qname));
	range_where(&q, t, rg);
	rc = sql_query(s, buf_str(&q), &r, e);
	buf_release(&q);
	if (rc)
		return -1;
	out->ncols = t->ncols;
	out->rows = xcalloc(r.nrows + 1, sizeof(*out->rows));
	for (size_t i = 0; i < r.nrows; i++) {
		struct row *row = &out->rows[out->n++];
		struct buf key = BUF_INIT;
		char **cells = &r.cells[i * r.ncols];

		snprintf(row->hash, sizeof(row->hash), "%s",
			 cells[0] ? cells[0] : "");
		if (t->col_json)
			snprintf(row->plain, sizeof(row->plain), "%s",
				 cells[1] ? cells[1] : "");
		row->vals = xcalloc(t->ncols + 1, sizeof(*row->vals));
		for (size_t c = 0; c < t->ncols; c++) {
			row->vals[c] = cells[c + first] ?
				       xstrdup(cells[c + first]) : NULL;
		}
		/* The key's text: its columns, or the whole row. */
		for (size_t k = 0; k < (nk ? nk : t->ncols); k++) {
			size_t c = k;

			for (size_t j = 0; nk && j < t->ncols; j++)
				if (!strcmp(t->cols[j], t->keys[k]))
					c = j;
			buf_printf(&key, NULL, "%s%s", k ? "\x1f" : "",
				   row->vals[c] ? row->vals[c] : "\\N");
		}
		row->key = buf_detach(&key, NULL);
		row->ikey = strtoll(row->key, NULL, 10);
	}
	sql_result_release(&r);
	qsort_r(out->rows, out->n, sizeof(*out->rows), by_key,
		(void *)&t->int_key);
	return 0;
}

/* The key as "id=5" or "a=1,b=x"; "row sha1 ..." without one. */
static void key_text(struct buf *text, const struct table *t,
		     const struct row *row)
{
	if (t->nkeys) {
		char *k = row->key, *sep;

		for (size_t i = 0; i < t->nkeys; i++, k = sep + 1) {
			sep = strchr(k, '\x1f');
			buf_printf(text, NULL, "%s%s=%.*s", i ? "," : "",
				   t->keys[i], sep ? (int)(sep - k)
						   : (int)strlen(k), k);
			if (!sep)
				break;
		}
	} else {
		buf_printf(text, NULL, "row sha1 %s", row->hash);
	}
}

static void note_key(struct diff *d, int kind, const struct table *t,
		     const struct row *row)
{
	struct buf text = BUF_INIT;

	if (d->nkeys[kind] >= d->max_report)
		return;
	d->nkeys[kind]++;
	key_text(&text, t, row);
	json_quote(&d->keys[kind], buf_str(&text), NULL);
	buf_addch(&d->keys[kind], '\n', NULL);
	buf_release(&text);
}

static void row_json(struct buf *out, const struct table *t,
		     const struct row *row)
{
	if (!row) {
		buf_addstr(out, "null", NULL);
		return;
	}
	buf_addch(out, '[', NULL);
	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			buf_addch(out, ',', NULL);
		if (row->vals[c])
			json_quote(out, row->vals[c], NULL);
		else
			buf_addstr(out, "null", NULL);
	}
	buf_addch(out, ']', NULL);
}

/*
 * A difference with both sides' rows (NULL: none on that side) and its
 * fix, the fix SQL from `fix_at` on, for report.html.
 */
static void note_row(struct diff *d, int kind, const struct table *t,
		     const struct row *up, const struct row *down,
		     size_t fix_at)
{
	struct buf text = BUF_INIT;

	if (d->nshown >= SHOWN_ROWS)
		return;
	d->nshown++;
	key_text(&text, t, up ? up : down);
	buf_printf(&d->shown, NULL, "{\"kind\":\"%s\",\"key\":",
		   tablerows_kind_names[kind]);
	json_quote(&d->shown, buf_str(&text), NULL);
	buf_addstr(&d->shown, ",\"up\":", NULL);
	row_json(&d->shown, t, up);
	buf_addstr(&d->shown, ",\"down\":", NULL);
	row_json(&d->shown, t, down);
	buf_reset(&text);
	buf_add(&text, d->fix.data + fix_at, d->fix.len - fix_at, NULL);
	buf_rtrim(&text);
	buf_addstr(&d->shown, ",\"fix\":", NULL);
	json_quote(&d->shown, buf_str(&text), NULL);
	buf_addstr(&d->shown, "}\n", NULL);
	buf_release(&text);
}

static void sql_value_text(struct buf *q, const char *v)
{
	if (v)
		sql_quote_string(q, v, NULL);
	else
		buf_addstr(q, "NULL", NULL);
}

static void fix_replace(struct diff *d, const struct table *t,
			const struct row *row, int plain_insert)
{
	buf_printf(&d->fix, NULL, "%s INTO %s (", plain_insert ? "INSERT"
		   : "REPLACE", buf_str(&t->qname));
	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			buf_addstr(&d->fix, ", ", NULL);
		sql_quote_ident(&d->fix, t->cols[c], NULL);
	}
	buf_addstr(&d->fix, ") VALUES (", NULL);
	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			buf_addstr(&d->fix, ", ", NULL);
		sql_value_text(&d->fix, row->vals[c]);
	}
	buf_addstr(&d->fix, ");\n", NULL);
}

static void fix_delete(struct diff *d, const struct table *t,
		       const struct row *row)
{
	size_t n = t->nkeys ? t->nkeys : t->ncols;

	buf_printf(&d->fix, NULL, "DELETE FROM %s WHERE ", buf_str(&t->qname));
	for (size_t k = 0; k < n; k++) {
		size_t c = k;

		for (size_t j = 0; t->nkeys && j < t->ncols; j++)
			if (!strcmp(t->cols[j], t->keys[k]))
				c = j;
		if (k)
			buf_addstr(&d->fix, " AND ", NULL);
		sql_quote_ident(&d->fix, t->cols[c], NULL);
		buf_addstr(&d->fix, " <=> ", NULL);
		sql_value_text(&d->fix, row->vals[c]);
	}
	buf_addstr(&d->fix, t->nkeys ? ";\n" : " LIMIT 1;\n", NULL);
}

/*
 * Whether two values of a JSON column are the same JSON: equal text, or
 * both parsed and equal by value (an object's keys in any order, as
 * sync-diff-inspector compares them since tidb-tools issue 900). A text
 * that is no JSON is equal only to the same text.
 */
static int same_json(const char *a, const char *b)
{
	json_t *x, *y;
	int same;

	if (!a || !b)
		return a == b;
	if (!strcmp(a, b))
		return 1;
	x = json_loads(a, JSON_DECODE_ANY, NULL);
	y = json_loads(b, JSON_DECODE_ANY, NULL);
	same = x && y && json_equal(x, y);
	json_decref(x);
	json_decref(y);
	return same;
}

/* Rows of one key whose texts differ: the same by value (t->col_json:
 * their other columns equal, each JSON column the same JSON)? */
static int same_by_value(const struct table *t, const struct row *up,
			 const struct row *down)
{
	if (!t->col_json || strcmp(up->plain, down->plain))
		return 0;
	for (size_t c = 0; c < t->ncols; c++)
		if (t->col_json[c] && !same_json(up->vals[c], down->vals[c]))
			return 0;
	return 1;
}

/* Merge two sorted row lists into missing / extra / changed. */
void tablerows_compare(struct diff *d, const struct table *t,
		       const struct rows *up, const struct rows *down)
{
	size_t i = 0, j = 0;

	while (i < up->n || j < down->n) {
		size_t at = d->fix.len;
		int c;

		if (i == up->n)
			c = 1;
		else if (j == down->n)
			c = -1;
		else if (t->nkeys)
			c = t->int_key ? (up->rows[i].ikey < down->rows[j].ikey
					  ? -1 : up->rows[i].ikey >
					  down->rows[j].ikey)
				       : strcmp(up->rows[i].key,
						down->rows[j].key);
		else
			c = strcmp(up->rows[i].hash, down->rows[j].hash);
		if (c < 0) {
			note_key(d, 0, t, &up->rows[i]);
			fix_replace(d, t, &up->rows[i], !t->nkeys);
			note_row(d, 0, t, &up->rows[i], NULL, at);
			d->missing++;
			i++;
		} else if (c > 0) {
			note_key(d, 1, t, &down->rows[j]);
			fix_delete(d, t, &down->rows[j]);
			note_row(d, 1, t, NULL, &down->rows[j], at);
			d->extra++;
			j++;
		} else {
			if (strcmp(up->rows[i].hash, down->rows[j].hash) &&
			    !same_by_value(t, &up->rows[i], &down->rows[j])) {
				note_key(d, 2, t, &up->rows[i]);
				fix_replace(d, t, &up->rows[i], 0);
				note_row(d, 2, t, &up->rows[i], &down->rows[j],
					 at);
				d->changed++;
			}
			i++;
			j++;
		}
	}
}

/*
 * A mismatching integer range is cut into this many parts (fewer when it
 * holds fewer keys): a chunk of 100000 rows reaches ranges of a few
 * thousand in two rounds of checksums over it, where halves took six.
 */
#define SPLIT_PARTS 10

/*
 * Compare a range: rows when small, else checksums of its parts: tenths
 * of an integer range, halves of any other at its middle key.
 */
static int compare_range(struct side *sides, const struct table *t,
			 const struct range *rg, const struct sum *su,
			 const struct sum *sd, struct diff *d, struct err *e)
{
	struct rows rows[2] = { { NULL, 0, 0 }, { NULL, 0, 0 } };
	struct range half[2], *parts = NULL;
	char **mid = NULL;
	size_t nparts = 0;
	int rc = 0;

	if (su->count == sd->count && !strcmp(su->xor, sd->xor))
		return 0;
	if (rg->whole || (su->count <= COMPARE_ROWS &&
			  sd->count <= COMPARE_ROWS)) {
		/* small enough: compare the rows */
	} else if (t->int_key) {
		nparts = range_split_int(rg->lo, rg->hi, SPLIT_PARTS, 1,
					 &parts);
		nparts = nparts > 1 ? nparts : 0;
	} else {
		/* At the middle key of the side with more rows: each half
		 * holds fewer of its rows. */
		int s = su->count >= sd->count ? UP : DOWN;
		uint64_t n = (s == UP ? su->count : sd->count) / 2;

		rc = tablerange_nth_key(&sides[s].conn, t, rg, n, &mid, e);
		if (rc < 0)
			return -1;
		half[0] = (struct range){ 0, 0, 0, rg->klo, mid };
		half[1] = (struct range){ 0, 0, 0, mid, rg->khi };
		nparts = rc ? 2 : 0;
		rc = 0;
	}
	if (nparts) {
		const struct range *part = parts ? parts : half;

		for (size_t i = 0; i < nparts && !rc; i++) {
			struct sum pu, pd;

			rc = tablerange_checksum(&sides[UP].conn, t, &part[i],
						 &pu, e) ||
			     tablerange_checksum(&sides[DOWN].conn, t, &part[i],
						 &pd, e) ||
			     compare_range(sides, t, &part[i], &pu, &pd, d, e)
			     ? -1 : 0;
		}
		free(parts);
		tablerange_free_tuple(mid, t->nkeys);
		return rc;
	}
	free(parts);
	rc = fetch_rows(&sides[UP].conn, t, rg, &rows[UP], e) ||
	     fetch_rows(&sides[DOWN].conn, t, rg, &rows[DOWN], e);
	if (!rc)
		tablerows_compare(d, t, &rows[UP], &rows[DOWN]);
	d->compared += rows[UP].n + rows[DOWN].n;
	release_rows(&rows[UP]);
	release_rows(&rows[DOWN]);
	return rc ? -1 : 0;
}

/* What one chunk's comparison found, added to the table's. */
static void merge_diff(struct diff *into, struct diff *from)
{
	const char *line = NULL, *end;

	into->compared += from->compared;
	into->missing += from->missing;
	into->extra += from->extra;
	into->changed += from->changed;
	for (int k = 0; k < 3; k++)
		for (line = buf_str(&from->keys[k]);
		     *line && into->nkeys[k] < into->max_report;
		     line = end + 1) {
			end = strchr(line, '\n');
			buf_add(&into->keys[k], line, (size_t)(end - line + 1),
				NULL);
			into->nkeys[k]++;
		}
	buf_add(&into->fix, from->fix.data, from->fix.len, NULL);
	for (line = buf_str(&from->shown);
	     *line && into->nshown < SHOWN_ROWS; line = end + 1) {
		end = strchr(line, '\n');
		buf_add(&into->shown, line, (size_t)(end - line + 1), NULL);
		into->nshown++;
	}
}

/* The chunks whose checksums differ, compared by a pool of workers. */
struct differ {
	const struct side *sides;
	const struct table *t;
	const struct range *ranges;
	const struct sum *sums[2];
	size_t *todo, ntodo;
	struct diff *diffs;	/* one per entry of todo */
	size_t next;		/* atomic */
	struct err err;
	pthread_mutex_t lock;
};

static void *differ_worker(void *arg)
{
	struct differ *p = arg;
	struct side s[2] = { { p->sides[UP].comp, SQL_INIT,
			       p->sides[UP].session },
			     { p->sides[DOWN].comp, SQL_INIT,
			       p->sides[DOWN].session } };
	struct err e = ERR_INIT;

	sql_thread_init();
	if (!tablediff_connect(&s[UP], &e) && !tablediff_connect(&s[DOWN], &e))
		for (;;) {
			size_t n = __atomic_fetch_add(&p->next, 1,
						      __ATOMIC_RELAXED);
			size_t i;

			if (n >= p->ntodo)
				break;
			i = p->todo[n];
			if (compare_range(s, p->t, &p->ranges[i],
					  &p->sums[UP][i], &p->sums[DOWN][i],
					  &p->diffs[n], &e))
				break;
		}
	if (err_isset(&e)) {
		pthread_mutex_lock(&p->lock);
		err_set(&p->err, e.class, "%s", e.msg);
		pthread_mutex_unlock(&p->lock);
		__atomic_store_n(&p->next, p->ntodo, __ATOMIC_RELAXED);
	}
	sql_close(&s[UP].conn);
	sql_close(&s[DOWN].conn);
	sql_thread_end();
	return NULL;
}

/*
 * Cut and compare the mismatching chunks, `threads` at a time (each
 * worker with a connection to either side); their findings merged in
 * chunk order, so keys and fix SQL come out as one pass would give them.
 */
int tablerows_compare_chunks(struct side *sides, const struct table *t,
			     const struct range *ranges, size_t nchunks,
			     const struct sum *up, const struct sum *down,
			     int threads, struct diff *d, struct err *e)
{
	struct differ p;
	pthread_t *th;
	int n, rc = 0;

	memset(&p, 0, sizeof(p));
	p.sides = sides;
	p.t = t;
	p.ranges = ranges;
	p.sums[UP] = up;
	p.sums[DOWN] = down;
	p.todo = xcalloc(nchunks + 1, sizeof(*p.todo));
	for (size_t i = 0; i < nchunks; i++)
		if (!tablerange_same_sum(&up[i], &down[i]))
			p.todo[p.ntodo++] = i;
	if (!p.ntodo) {
		free(p.todo);
		return 0;
	}
	p.diffs = xcalloc(p.ntodo, sizeof(*p.diffs));
	for (size_t i = 0; i < p.ntodo; i++)
		p.diffs[i].max_report = d->max_report;
	pthread_mutex_init(&p.lock, NULL);
	n = (size_t)threads < p.ntodo ? threads : (int)p.ntodo;
	th = xcalloc((size_t)n, sizeof(*th));
	for (int i = 0; i < n; i++)
		pthread_create(&th[i], NULL, differ_worker, &p);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	free(th);
	if (err_isset(&p.err))
		rc = err_set(e, p.err.class, "%s", p.err.msg);
	for (size_t i = 0; i < p.ntodo; i++) {
		if (!rc)
			merge_diff(d, &p.diffs[i]);
		for (int k = 0; k < 3; k++)
			buf_release(&p.diffs[i].keys[k]);
		buf_release(&p.diffs[i].fix);
		buf_release(&p.diffs[i].shown);
	}
	pthread_mutex_destroy(&p.lock);
	free(p.diffs);
	free(p.todo);
	return rc;
}
