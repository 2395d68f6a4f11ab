/*
 * logscan: regular expressions over the component logs written during the
 * run — the copies the runner keeps in RUN_DIR/logs/<component>.log — so
 * it also runs offline. Each hit is reported with file, line and text.
 */
#include <dirent.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/checker.h"
#include "core/suite.h"
#include "lib/history.h"

struct logscan_opts {
	struct optlist patterns;
	int ignore_case;
	struct optlist components;	/* empty: every component */
	int64_t max_report;
};

static const struct optspec opts[] = {
	{ "patterns", OPT_STRING_LIST,
	  "['panic:', '\\[FATAL\\]', 'DATA RACE', 'Slave SQL: Error']", 0,
	  NULL, 0, 0, "extended regular expressions; a match fails the check",
	  OPT_AT(struct logscan_opts, patterns) },
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

static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	const struct logscan_opts *o = it->opts;
	const struct optlist *p = &o->patterns;
	const struct optval *where = suite_optval(it, p);
	int icase = o->ignore_case;

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
			return ynode_error(e, s->path, &at, "patterns in check "
					   "'logscan': bad regular expression "
					   "'%s': %s", p->v[i], why);
		}
		regfree(&re);
	}
	return 0;
}

static int wanted(const char *name, const struct optlist *components)
{
	size_t len = strlen(name);

	if (len < 5 || strcmp(name + len - 4, ".log") ||
	    !strcmp(name, "tichaos.log"))
		return 0;
	if (!components->n)
		return 1;
	for (size_t i = 0; i < components->n; i++)
		if (strlen(components->v[i]) == len - 4 &&
		    !strncmp(components->v[i], name, len - 4))
			return 1;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run(const struct check_ctx *ctx, const struct suite_item *it,
	       struct check_result *r, struct err *e)
{
	const struct logscan_opts *o = it->opts;
	const struct optlist *p = &o->patterns;
	const struct optlist *components = &o->components;
	int icase = o->ignore_case;
	int64_t max_report = o->max_report;
	char dir[4096], first[600] = "";
	regex_t *res = xcalloc(p->n + 1, sizeof(*res));
	char **names = NULL, *line = NULL;
	size_t nnames = 0, cap = 0, lines = 0, hits = 0;
	struct dirent *d;
	DIR *dp;

	for (size_t i = 0; i < p->n; i++) {
		char why[256];

		if (compile(p->v[i], icase, &res[i], why, sizeof(why))) {
			for (size_t j = 0; j < i; j++)
				regfree(&res[j]);
			free(res);
			return err_set(e, ERR_USAGE, "logscan: bad pattern "
				       "'%s': %s", p->v[i], why);
		}
	}
	snprintf(dir, sizeof(dir), "%s/logs", ctx->run_dir);
	dp = opendir(dir);
	while (dp && (d = readdir(dp)))
		if (wanted(d->d_name, components)) {
			names = xrealloc(names, (nnames + 1) * sizeof(*names));
			names[nnames++] = xstrdup(d->d_name);
		}
	if (dp)
		closedir(dp);
	if (nnames)
		qsort(names, nnames, sizeof(*names), by_name);
	buf_addstr(&r->details, "\"hits\":[", NULL);
	for (size_t f = 0; f < nnames; f++) {
		char path[4200];
		FILE *in;
		size_t no = 0;
		ssize_t len;

		snprintf(path, sizeof(path), "%s/%s", dir, names[f]);
		in = fopen(path, "re");
		if (!in)
			continue;
		while ((len = getline(&line, &cap, in)) >= 0) {
			no++;
			if (len && line[len - 1] == '\n')
				line[--len] = '\0';
			for (size_t i = 0; i < p->n; i++) {
				if (regexec(&res[i], line, 0, NULL, 0))
					continue;
				if (!hits)
					snprintf(first, sizeof(first),
						 "logs/%s:%zu: %.400s",
						 names[f], no, line);
				if ((int64_t)hits < max_report) {
					buf_printf(&r->details, NULL,
						   "%s{\"file\":\"logs/%s\","
						   "\"line\":%zu,\"pattern\":",
						   hits ? "," : "", names[f],
						   no);
					json_quote(&r->details, p->v[i],
						   NULL);
					buf_addstr(&r->details, ",\"text\":",
						   NULL);
					line[len > 500 ? 500 : len] = '\0';
					json_quote(&r->details, line, NULL);
					buf_addch(&r->details, '}', NULL);
				}
				hits++;
				break;
			}
		}
		lines += no;
		fclose(in);
	}
	buf_printf(&r->details, NULL, "],\"logs\":%zu,\"lines\":%zu,"
		   "\"matches\":%zu", nnames, lines, hits);
	snprintf(r->numbers, sizeof(r->numbers), "logs=%zu lines=%zu "
		 "matches=%zu", nnames, lines, hits);
	if (!nnames)
		check_verdict(r, VERDICT_PASS, "no component wrote to its log "
			      "during the run");
	else if (hits)
		check_verdict(r, VERDICT_FAIL, "%zu match%s in %zu logs; first "
			      "%s", hits, hits == 1 ? "" : "es", nnames, first);
	else
		check_verdict(r, VERDICT_PASS, "%zu lines in %zu logs, no "
			      "match", lines, nnames);
	for (size_t i = 0; i < p->n; i++)
		regfree(&res[i]);
	for (size_t i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	free(res);
	free(line);
	return 0;
}

const struct checker_type checker_logscan = {
	.kind = { "logscan", "regular expressions over the component logs "
		  "written during the run", opts,
		  sizeof(opts) / sizeof(opts[0]), sizeof(struct logscan_opts),
		  .check = check },
	.run = run,
};
