/*
 * logscan: regular expressions over the component logs written during the
 * run — the copies the runner keeps in RUN_DIR/logs/<component>.log, and
 * <component>.<name>.log for each more log a component has (its `logs`,
 * docs/topology.md) — so it also runs offline. Each hit is reported with
 * file, line and text, unless its report (the line and those after it
 * up to an empty line or a line of '=' signs, as Go ends a race report)
 * matches an `ignore` rule: ticdc's own check_logs ignores the DATA RACE
 * reports of its kv client (reportStoreReplicaFlows) that way.
 */
#include <dirent.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/checker.h"
#include "core/suite.h"
#include "lib/history.h"

/* A hit's report: its line and at most this many after it. */
#define REPORT_LINES 200

struct logscan_opts {
	struct optlist patterns;
	struct optlist ignore;
	int ignore_case;
	struct optlist components;	/* empty: every component */
	int64_t max_report;
};

static const struct optspec opts[] = {
	{ "patterns", OPT_STRING_LIST,
	  "['panic:', '^fatal error: ', '\\[FATAL\\]', 'DATA RACE', "
	  "'Slave SQL: Error']", 0,
	  NULL, 0, 0, "extended regular expressions; a match fails the check",
	  OPT_AT(struct logscan_opts, patterns) },
	{ "ignore", OPT_STRING_LIST, NULL, 0, NULL, 0, 0,
	  "extended regular expressions; a match whose report (its line and "
	  "the lines after it up to an empty one or one of '=' signs, as a "
	  "Go race report ends) matches one of them is ignored, and counted",
	  OPT_AT(struct logscan_opts, ignore) },
	{ "ignore_case", OPT_BOOL, "false", 0, NULL, 0, 0,
	  "match regardless of case", OPT_AT(struct logscan_opts, ignore_case) },
	{ "components", OPT_COMPONENTS, NULL, 0, NULL, 0, 0,
	  "only these components' logs (default: all)",
	  OPT_AT(struct logscan_opts, components) },
	{ "max_report", OPT_INT, "20", 0, NULL, 1, 1000,
	  "hits listed in the details", OPT_AT(struct logscan_opts, max_report) },
};

static int compile(const char *pattern, int icase, regex_t *re,
		   char *why, size_t size)
{
	int rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB |
			 (icase ? REG_ICASE : 0));

	if (rc)
		regerror(rc, re, why, size);
	return rc;
}

/* Each expression of `p`, the option `key`, compiles; else its line. */
static int check_list(const struct suite *s, const struct suite_item *it,
		      const char *key, const struct optlist *p, int icase,
		      struct err *e)
{
	const struct optval *where = suite_optval(it, p);

	for (size_t i = 0; i < p->n; i++) {
		struct ynode at = { YNODE_SCALAR, where->line, where->col, NULL,
				    0, NULL, 0 };
		char why[256];
		regex_t re;

		if (compile(p->v[i], icase, &re, why, sizeof(why))) {
			if (!where->given) {
				at.line = it->line;
				at.col = it->col;
			}
			return ynode_error(e, s->path, &at, "%s in check "
					   "'logscan': bad regular expression "
					   "'%s': %s", key, p->v[i], why);
		}
		regfree(&re);
	}
	return 0;
}

static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	const struct logscan_opts *o = it->opts;

	return check_list(s, it, "patterns", &o->patterns, o->ignore_case,
			  e) ||
	       check_list(s, it, "ignore", &o->ignore, o->ignore_case, e) ?
	       -1 : 0;
}

/* A collected log of a wanted component: NAME.log or NAME.MORE.log. */
static int wanted(const char *name, const struct optlist *components)
{
	size_t len = strlen(name);

	if (len < 5 || strcmp(name + len - 4, ".log") ||
	    !strcmp(name, "tichaos.log"))
		return 0;
	if (!components->n)
		return 1;
	for (size_t i = 0; i < components->n; i++) {
		size_t n = strlen(components->v[i]);

		if (!strncmp(components->v[i], name, n) &&
		    (n == len - 4 || name[n] == '.'))
			return 1;
	}
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Compile every expression of `p` into a new array; NULL (`e`) when one
 * does not compile. */
static regex_t *compile_all(const struct optlist *p, int icase,
			    struct err *e)
{
	regex_t *res = xcalloc(p->n + 1, sizeof(*res));

	for (size_t i = 0; i < p->n; i++) {
		char why[256];

		if (compile(p->v[i], icase, &res[i], why, sizeof(why))) {
			for (size_t j = 0; j < i; j++)
				regfree(&res[j]);
			free(res);
			err_set(e, ERR_USAGE, "logscan: bad pattern '%s': %s",
				p->v[i], why);
			return NULL;
		}
	}
	return res;
}

static void free_all(regex_t *res, size_t n)
{
	for (size_t i = 0; res && i < n; i++)
		regfree(&res[i]);
	free(res);
}

/* The end of the line at `at` (its '\n', or the text's end). */
static char *line_end(char *at)
{
	return at + strcspn(at, "\n");
}

/* A line that ends a report: empty, or '=' signs only. */
static int report_end(const char *line)
{
	return line[strspn(line, "=")] == '\0';
}

/*
 * Whether the report of the hit at line `line` (NUL-terminated; `next`
 * the text after it) matches one of the `n` ignore rules.
 */
static int ignored(const regex_t *ign, size_t n, const char *line,
		   char *next)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!regexec(&ign[i], line, 0, NULL, 0))
			return 1;
	for (int k = 0; next && *next && k < REPORT_LINES; k++) {
		char *end = line_end(next), keep = *end;
		int hit = 0;

		*end = '\0';
		if (report_end(next)) {
			*end = keep;
			break;
		}
		for (size_t i = 0; i < n && !hit; i++)
			hit = !regexec(&ign[i], next, 0, NULL, 0);
		*end = keep;
		if (hit)
			return 1;
		next = *end ? end + 1 : end;
	}
	return 0;
}

/* Counts of the scan, and the first hit. */
struct scan {
	size_t lines, hits, skipped;
	char first[600];
};

/* Log `name` (text `text`, which is changed) scanned into `sc` and the
 * details. */
static void scan_log(const struct logscan_opts *o, const regex_t *res,
		     const regex_t *ign, const char *name, char *text,
		     struct scan *sc, struct check_result *r)
{
	const struct optlist *p = &o->patterns;
	size_t no = 0;

	for (char *at = text; *at;) {
		char *end = line_end(at), keep = *end;
		char *next = keep ? end + 1 : end;

		*end = '\0';
		no++;
		for (size_t i = 0; i < p->n; i++) {
			size_t len = (size_t)(end - at);

			if (regexec(&res[i], at, 0, NULL, 0))
				continue;
			if (ignored(ign, o->ignore.n, at, next)) {
				sc->skipped++;
				break;
			}
			if (!sc->hits)
				snprintf(sc->first, sizeof(sc->first),
					 "logs/%s:%zu: %.400s", name, no, at);
			if ((int64_t)sc->hits < o->max_report) {
				buf_printf(&r->details, NULL, "%s{\"file\":"
					   "\"logs/%s\",\"line\":%zu,"
					   "\"pattern\":", sc->hits ? "," : "",
					   name, no);
				json_quote(&r->details, p->v[i], NULL);
				buf_addstr(&r->details, ",\"text\":", NULL);
				if (len > 500)
					at[500] = '\0';
				json_quote(&r->details, at, NULL);
				buf_addch(&r->details, '}', NULL);
			}
			sc->hits++;
			break;
		}
		*end = keep;
		at = next;
	}
	sc->lines += no;
}

static int run(const struct check_ctx *ctx, const struct suite_item *it,
	       struct check_result *r, struct err *e)
{
	const struct logscan_opts *o = it->opts;
	int icase = o->ignore_case;
	char dir[4096];
	regex_t *res = compile_all(&o->patterns, icase, e), *ign;
	char **names = NULL;
	size_t nnames = 0;
	struct scan sc = { 0, 0, 0, "" };
	struct buf skipped = BUF_INIT;
	struct dirent *d;
	DIR *dp;

	if (!res)
		return -1;
	ign = compile_all(&o->ignore, icase, e);
	if (!ign) {
		free_all(res, o->patterns.n);
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s/logs", ctx->run_dir);
	dp = opendir(dir);
	while (dp && (d = readdir(dp)))
		if (wanted(d->d_name, &o->components)) {
			names = xrealloc(names, (nnames + 1) * sizeof(*names));
			names[nnames++] = xstrdup(d->d_name);
		}
	if (dp)
		closedir(dp);
	if (nnames)
		qsort(names, nnames, sizeof(*names), by_name);
	buf_addstr(&r->details, "\"hits\":[", NULL);
	for (size_t f = 0; f < nnames; f++) {
		struct buf text = BUF_INIT;
		char path[4200];

		snprintf(path, sizeof(path), "%s/%s", dir, names[f]);
		if (!buf_read_file(&text, path, NULL) && text.len)
			scan_log(o, res, ign, names[f], text.data, &sc, r);
		buf_release(&text);
	}
	buf_printf(&r->details, NULL, "],\"logs\":%zu,\"lines\":%zu,"
		   "\"matches\":%zu,\"ignored\":%zu", nnames, sc.lines,
		   sc.hits, sc.skipped);
	snprintf(r->numbers, sizeof(r->numbers), "logs=%zu lines=%zu "
		 "matches=%zu ignored=%zu", nnames, sc.lines, sc.hits,
		 sc.skipped);
	if (sc.skipped)
		buf_printf(&skipped, NULL, " (%zu ignored)", sc.skipped);
	if (!nnames)
		check_verdict(r, VERDICT_PASS, "no component wrote to its log "
			      "during the run");
	else if (sc.hits)
		check_verdict(r, VERDICT_FAIL, "%zu match%s in %zu logs%s; "
			      "first %s", sc.hits, sc.hits == 1 ? "" : "es",
			      nnames, buf_str(&skipped), sc.first);
	else
		check_verdict(r, VERDICT_PASS, "%zu lines in %zu logs, no "
			      "match%s", sc.lines, nnames, buf_str(&skipped));
	buf_release(&skipped);
	free_all(res, o->patterns.n);
	free_all(ign, o->ignore.n);
	for (size_t i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	return 0;
}

const struct checker_type checker_logscan = {
	.kind = { "logscan", "regular expressions over the component logs "
		  "written during the run", opts,
		  sizeof(opts) / sizeof(opts[0]), sizeof(struct logscan_opts),
		  .check = check },
	.run = run,
};
