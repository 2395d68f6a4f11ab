/*
 * index.html of a folder of runs (tichaos report --index DIR): one
 * self-contained page (no script, no network) that nightly CI publishes
 * instead of a folder of reports. Per suite (DIR/<suite>/), its last
 * INDEX_RUNS runs, newest first: when, verdict, duration, seed,
 * throughput (ok operations per second over the run), links to the run's
 * report.html and summary.txt. A suite whose verdict went both ways
 * (pass and fail) over runs of the same suite text — suite.yaml as run,
 * its seed line aside — is marked flaky: the same test, different
 * outcomes.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "reports/report.h"

/* Runs shown per suite. */
#define INDEX_RUNS 20

struct run {
	char dir[512];		/* relative to the index: <suite>/<run> */
	char started[32];
	char verdict[16];
	char duration[32];
	long long seed;
	double ops_per_s;
	uint64_t suite_hash;	/* suite.yaml without its seed */
};

struct suite_runs {
	char name[256];
	struct run *runs;
	size_t n, cap;
	int flaky;
};

#define html report_escape_html

/* FNV-1a of `path`'s lines but those that set the seed; 0: unreadable. */
static uint64_t suite_hash(const char *path)
{
	struct buf text = BUF_INIT;
	uint64_t h = 14695981039346656037ULL;
	const char *p;

	if (buf_read_file(&text, path, NULL)) {
		buf_release(&text);
		return 0;
	}
	for (p = buf_str(&text); *p;) {
		size_t len = strcspn(p, "\n");

		if (strncmp(p, "seed:", 5))
			for (size_t i = 0; i <= len && p[i]; i++) {
				h ^= (unsigned char)p[i];
				h *= 1099511628211ULL;
			}
		p += len + (p[len] == '\n');
	}
	buf_release(&text);
	return h ? h : 1;
}

#define str report_str

/* One run directory's results.json into `r`; -1 when it has none. */
static int read_run(const char *root, const char *suite, const char *name,
		    struct run *r)
{
	char path[4400];
	json_t *j, *items;
	double ok = 0, secs;

	snprintf(path, sizeof(path), "%s/%s/%s/results.json", root, suite,
		 name);
	j = json_load_file(path, 0, NULL);
	if (!j)
		return -1;
	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "%s/%s", suite, name);
	snprintf(r->started, sizeof(r->started), "%s", str(j, "started"));
	snprintf(r->verdict, sizeof(r->verdict), "%s", str(j, "verdict"));
	snprintf(r->duration, sizeof(r->duration), "%s", str(j, "duration"));
	r->seed = (long long)json_integer_value(json_object_get(j, "seed"));
	items = json_object_get(j, "workloads");
	for (size_t i = 0; i < json_array_size(items); i++)
		ok += (double)json_integer_value(
			json_object_get(json_array_get(items, i), "ok"));
	secs = (double)json_integer_value(json_object_get(j, "duration_ns")) /
	       1e9;
	r->ops_per_s = secs > 0 ? ok / secs : 0;
	json_decref(j);
	snprintf(path, sizeof(path), "%s/%s/%s/suite.yaml", root, suite, name);
	r->suite_hash = suite_hash(path);
	return 0;
}

static int newest_first(const void *a, const void *b)
{
	const struct run *x = a, *y = b;
	int c = strcmp(y->started, x->started);

	return c ? c : strcmp(y->dir, x->dir);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct suite_runs *)a)->name,
		      ((const struct suite_runs *)b)->name);
}

/* Flaky: a pass and a fail among the shown runs of one suite text. */
static int flaky(const struct suite_runs *s)
{
	size_t shown = s->n < INDEX_RUNS ? s->n : INDEX_RUNS;

	for (size_t i = 0; i < shown; i++)
		for (size_t k = 0; k < shown; k++)
			if (s->runs[i].suite_hash &&
			    s->runs[i].suite_hash == s->runs[k].suite_hash &&
			    !strcmp(s->runs[i].verdict, "pass") &&
			    !strcmp(s->runs[k].verdict, "fail"))
				return 1;
	return 0;
}

/* Every run of DIR/<suite>/, "latest" and what is no run aside. */
static int read_suites(const char *root, struct suite_runs **out,
		       size_t *nout, struct err *e)
{
	DIR *d = opendir(root), *sd;
	struct dirent *de, *re;
	struct suite_runs *all = NULL;
	size_t n = 0, cap = 0;
	char path[4200];

	if (!d)
		return err_errno(e, errno, "cannot read '%s'", root);
	while ((de = readdir(d))) {
		struct suite_runs s;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", root, de->d_name);
		if (!(sd = opendir(path)))
			continue;
		memset(&s, 0, sizeof(s));
		snprintf(s.name, sizeof(s.name), "%s", de->d_name);
		while ((re = readdir(sd))) {
			struct run r;

			if (re->d_name[0] == '.' || !strcmp(re->d_name,
							    "latest") ||
			    read_run(root, de->d_name, re->d_name, &r))
				continue;
			if (s.n == s.cap) {
				s.cap = s.cap ? s.cap * 2 : 16;
				s.runs = xrealloc(s.runs,
						  s.cap * sizeof(*s.runs));
			}
			s.runs[s.n++] = r;
		}
		closedir(sd);
		if (!s.n)
			continue;
		qsort(s.runs, s.n, sizeof(*s.runs), newest_first);
		s.flaky = flaky(&s);
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			all = xrealloc(all, cap * sizeof(*all));
		}
		all[n++] = s;
	}
	closedir(d);
	if (n)
		qsort(all, n, sizeof(*all), by_name);
	*out = all;
	*nout = n;
	return 0;
}

static const char style[] =
	"body{font:14px/1.4 sans-serif;margin:2em;color:#222}"
	"table{border-collapse:collapse;margin:.5em 0 1.5em}"
	"td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}"
	"th{background:#f4f4f4}td.n{text-align:right}"
	".v-pass{color:#1a7f37}.v-fail,.v-error,.v-unknown{color:#c62828;"
	"font-weight:bold}.v-skip,.v-interrupted,.v-incomplete{color:#777}"
	".flaky{background:#fff3c4;color:#8a5a00;padding:0 6px;"
	"border-radius:3px;font-weight:bold}";

static void run_row(struct buf *out, const struct run *r)
{
	buf_addstr(out, "<tr class=\"run\"><td>", NULL);
	html(out, r->started);
	buf_addstr(out, "</td><td class=\"v-", NULL);
	html(out, r->verdict);
	buf_addstr(out, "\">", NULL);
	html(out, r->verdict);
	buf_addstr(out, "</td><td>", NULL);
	html(out, r->duration);
	buf_printf(out, NULL, "</td><td class=\"n\">%lld</td><td class=\"n\">"
		   "%.0f</td><td><a href=\"", r->seed, r->ops_per_s);
	html(out, r->dir);
	buf_addstr(out, "/report.html\">report</a> <a href=\"", NULL);
	html(out, r->dir);
	buf_addstr(out, "/summary.txt\">summary</a></td></tr>\n", NULL);
}

static void suite_section(struct buf *out, const struct suite_runs *s)
{
	size_t shown = s->n < INDEX_RUNS ? s->n : INDEX_RUNS;

	buf_addstr(out, "<h2 id=\"s-", NULL);
	html(out, s->name);
	buf_addstr(out, "\">", NULL);
	html(out, s->name);
	if (s->flaky)
		buf_addstr(out, " <span class=\"flaky\" title=\"passed and "
			   "failed with the same suite\">flaky</span>", NULL);
	buf_printf(out, NULL, "</h2>\n<p>the last %zu of %zu runs</p>\n"
		   "<table class=\"runs\"><tr><th>started</th><th>verdict</th>"
		   "<th>duration</th><th>seed</th><th>ops/s</th><th>run</th>"
		   "</tr>\n", shown, s->n);
	for (size_t i = 0; i < shown; i++)
		run_row(out, &s->runs[i]);
	buf_addstr(out, "</table>\n", NULL);
}

int report_index(const char *root, struct err *e)
{
	struct suite_runs *all = NULL;
	struct buf out = BUF_INIT;
	char path[4200];
	size_t n = 0;
	int rc;

	if (read_suites(root, &all, &n, e))
		return -1;
	buf_printf(&out, NULL, "<!DOCTYPE html>\n<html><head><meta charset="
		   "\"utf-8\"><title>tichaos runs</title><style>%s</style>"
		   "</head><body>\n<h1>tichaos runs</h1>\n<table class=\""
		   "suites\"><tr><th>suite</th><th>last verdict</th><th>last "
		   "run</th><th>runs</th><th>passed</th><th>failed</th></tr>\n",
		   style);
	for (size_t i = 0; i < n; i++) {
		const struct suite_runs *s = &all[i];
		size_t pass = 0, fail = 0;

		for (size_t k = 0; k < s->n; k++) {
			pass += !strcmp(s->runs[k].verdict, "pass");
			fail += !strcmp(s->runs[k].verdict, "fail");
		}
		buf_addstr(&out, "<tr class=\"suite\"><td><a href=\"#s-", NULL);
		html(&out, s->name);
		buf_addstr(&out, "\">", NULL);
		html(&out, s->name);
		buf_addstr(&out, "</a>", NULL);
		if (s->flaky)
			buf_addstr(&out, " <span class=\"flaky\">flaky</span>",
				   NULL);
		buf_addstr(&out, "</td><td class=\"v-", NULL);
		html(&out, s->runs[0].verdict);
		buf_addstr(&out, "\">", NULL);
		html(&out, s->runs[0].verdict);
		buf_addstr(&out, "</td><td>", NULL);
		html(&out, s->runs[0].started);
		buf_printf(&out, NULL, "</td><td class=\"n\">%zu</td><td "
			   "class=\"n\">%zu</td><td class=\"n\">%zu</td></tr>\n",
			   s->n, pass, fail);
	}
	buf_addstr(&out, "</table>\n", NULL);
	for (size_t i = 0; i < n; i++)
		suite_section(&out, &all[i]);
	buf_addstr(&out, "</body></html>\n", NULL);
	snprintf(path, sizeof(path), "%s/index.html", root);
	rc = buf_write_file(&out, path, 0644, e);
	for (size_t i = 0; i < n; i++)
		free(all[i].runs);
	free(all);
	buf_release(&out);
	return rc ? -1 : 0;
}
