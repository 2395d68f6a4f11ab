/*
 * sync-diff-inspector's diff_config.toml as the consistency check takes
 * it (checkers/diffconfig.h). Its keys as tidb-tools' sync_diff_inspector
 * reads them (config/config.go: Config, TaskConfig, DataSource), those
 * TiCDC's tests use.
 */
#include "checkers/diffconfig.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/buf.h"
#include "lib/toml.h"

static const char *const system_schemas[] = {
	"mysql", "information_schema", "performance_schema", "sys",
	"metrics_schema", NULL,
};

static int refuse(struct err *e, const struct toml *t,
		  const struct toml_entry *x, const char *why)
{
	return toml_error_at(e, t, x->line, x->col, "'%s': %s", x->key, why);
}

static int want_type(struct err *e, const struct toml *t,
		     const struct toml_entry *x, enum toml_type type)
{
	static const char *const names[] = { "a string", "an integer",
					     "true or false", "an array" };

	if (x->v.type == type)
		return 0;
	return toml_error_at(e, t, x->v.line, x->v.col, "'%s' must be %s",
			     x->key, names[type]);
}

/* An array of strings into a new NULL-terminated list. */
static int strings(struct err *e, const struct toml *t,
		   const struct toml_entry *x, char ***out, size_t *n)
{
	if (want_type(e, t, x, TOML_ARRAY))
		return -1;
	*out = xcalloc(x->v.n + 1, sizeof(**out));
	*n = 0;
	for (size_t i = 0; i < x->v.n; i++) {
		const struct toml_value *v = &x->v.items[i];

		if (v->type != TOML_STRING)
			return toml_error_at(e, t, v->line, v->col, "'%s' "
					     "must be an array of strings",
					     x->key);
		(*out)[(*n)++] = xstrdup(v->str);
	}
	return 0;
}

/* A key of [data-sources.NAME]: into its source, made when new. */
static int source_key(struct err *e, const struct toml *t,
		      const struct toml_entry *x, struct diff_source **srcs,
		      size_t *nsrcs)
{
	const char *name = x->key + strlen("data-sources.");
	const char *dot = strchr(name, '.');
	struct diff_source *s = NULL;
	const char *k;

	if (!dot)
		return refuse(e, t, x, "a data source is a table "
			      "[data-sources.NAME]");
	k = dot + 1;
	for (size_t i = 0; i < *nsrcs; i++)
		if (!strncmp((*srcs)[i].name, name, (size_t)(dot - name)) &&
		    !(*srcs)[i].name[dot - name])
			s = &(*srcs)[i];
	if (!s) {
		*srcs = xrealloc(*srcs, (*nsrcs + 1) * sizeof(**srcs));
		s = &(*srcs)[(*nsrcs)++];
		memset(s, 0, sizeof(*s));
		s->name = xstrndup(name, (size_t)(dot - name));
		s->line = x->line;
		s->col = x->col;
	}
	if (!strcmp(k, "host"))
		return want_type(e, t, x, TOML_STRING) ? -1 :
		       (s->host = xstrdup(x->v.str), 0);
	if (!strcmp(k, "port")) {
		if (want_type(e, t, x, TOML_INT))
			return -1;
		if (x->v.i < 1 || x->v.i > 65535)
			return toml_error_at(e, t, x->v.line, x->v.col,
					     "'%s' must be 1 to 65535",
					     x->key);
		s->port = (int)x->v.i;
		return 0;
	}
	if (!strcmp(k, "user"))
		return want_type(e, t, x, TOML_STRING) ? -1 :
		       (s->user = xstrdup(x->v.str), 0);
	if (!strcmp(k, "password"))
		return want_type(e, t, x, TOML_STRING) ? -1 :
		       (s->password = xstrdup(x->v.str), 0);
	return refuse(e, t, x, "not done by tichaos's consistency check: "
		      "it reads host, port, user and password of a data "
		      "source (snapshots, routes, session variables are "
		      "not read)");
}

/* Each pattern "db.table", "!db.table", shell wildcards in either. */
static int check_patterns(struct err *e, const struct toml *t,
			  const struct toml_entry *x, char **p, size_t n)
{
	if (!n)
		return refuse(e, t, x, "no table to check");
	for (size_t i = 0; i < n; i++) {
		const char *s = p[i][0] == '!' ? p[i] + 1 : p[i];
		const char *dot = strchr(s, '.');

		if (!dot || dot == s || !dot[1] || strchr(dot + 1, '.') ||
		    strpbrk(s, "`/\\\"'"))
			return toml_error_at(e, t, x->v.items[i].line,
					     x->v.items[i].col, "'%s' must "
					     "be database.table, shell "
					     "wildcards allowed, '!' first "
					     "to leave tables out (quoted "
					     "names and /regular "
					     "expressions/ are not read): "
					     "'%s'", x->key, p[i]);
	}
	return 0;
}

static int task_key(struct err *e, const struct toml *t,
		    const struct toml_entry *x, struct diffconfig *d,
		    char ***sources, size_t *nsources, const char **target)
{
	const char *k = x->key + strlen("task.");

	if (!strcmp(k, "output-dir"))
		return want_type(e, t, x, TOML_STRING) ? -1 :
		       (d->output_dir = xstrdup(x->v.str), 0);
	if (!strcmp(k, "source-instances")) {
		if (strings(e, t, x, sources, nsources))
			return -1;
		if (*nsources != 1)
			return toml_error_at(e, t, x->v.line, x->v.col, "'%s': "
					     "tichaos compares one source "
					     "with the target, not %zu (the "
					     "shards of a merge are not "
					     "read)", x->key, *nsources);
		return 0;
	}
	if (!strcmp(k, "target-instance"))
		return want_type(e, t, x, TOML_STRING) ? -1 :
		       (*target = x->v.str, 0);
	if (!strcmp(k, "target-check-tables"))
		return strings(e, t, x, &d->tables, &d->ntables) ||
		       check_patterns(e, t, x, d->tables, d->ntables);
	return refuse(e, t, x, "not done by tichaos's consistency check "
		      "(table configs: ranges, ignored columns and index "
		      "fields are not read)");
}

static int top_key(struct err *e, const struct toml *t,
		   const struct toml_entry *x, struct diffconfig *d)
{
	if (!strcmp(x->key, "check-thread-count")) {
		if (want_type(e, t, x, TOML_INT))
			return -1;
		if (x->v.i < 1 || x->v.i > 64)
			return toml_error_at(e, t, x->v.line, x->v.col, "'%s' "
					     "must be 1 to 64", x->key);
		d->threads = x->v.i;
		return 0;
	}
	if (!strcmp(x->key, "export-fix-sql")) {
		if (want_type(e, t, x, TOML_BOOL))
			return -1;
		return x->v.i ? 0 : refuse(e, t, x, "tichaos always writes "
					   "the fix SQL (fix-sql/), and "
					   "compares every differing row");
	}
	if (!strcmp(x->key, "check-struct-only") ||
	    !strcmp(x->key, "check-data-only")) {
		if (want_type(e, t, x, TOML_BOOL))
			return -1;
		return !x->v.i ? 0 : refuse(e, t, x, "tichaos checks both "
					    "the tables' structure and their "
					    "data");
	}
	return refuse(e, t, x, "not done by tichaos's consistency check");
}

/* The source named `name` (its line for messages: `x`'s) into `out`. */
static int pick(struct err *e, const struct toml *t,
		const struct toml_entry *x, const char *name,
		struct diff_source *srcs, size_t nsrcs,
		struct diff_source *out)
{
	for (size_t i = 0; i < nsrcs; i++) {
		struct diff_source *s = &srcs[i];

		if (strcmp(s->name, name))
			continue;
		if (!s->host || !s->port)
			return toml_error_at(e, t, s->line, s->col, "data "
					     "source '%s' needs a host and a "
					     "port", name);
		*out = *s;
		out->name = xstrdup(s->name);
		out->host = xstrdup(s->host);
		out->user = s->user ? xstrdup(s->user) : NULL;
		out->password = s->password ? xstrdup(s->password) : NULL;
		return 0;
	}
	return toml_error_at(e, t, x->v.line, x->v.col, "'%s': no data "
			     "source '%s' under [data-sources]", x->key, name);
}

static void source_release(struct diff_source *s)
{
	free(s->name);
	free(s->host);
	free(s->user);
	free(s->password);
	memset(s, 0, sizeof(*s));
}

int diffconfig_load(struct diffconfig *d, const char *path, struct err *e)
{
	struct toml t;
	struct diff_source *srcs = NULL;
	char **sources = NULL;
	size_t nsrcs = 0, nsources = 0;
	const char *target = NULL;
	const struct toml_entry *x;
	int rc;

	memset(d, 0, sizeof(*d));
	d->path = xstrdup(path);
	rc = toml_read(&t, path, e);
	for (size_t i = 0; !rc && i < t.n; i++) {
		x = &t.entries[i];
		if (!strncmp(x->key, "data-sources.", 13))
			rc = source_key(e, &t, x, &srcs, &nsrcs);
		else if (!strncmp(x->key, "task.", 5))
			rc = task_key(e, &t, x, d, &sources, &nsources,
				      &target);
		else if (x->table[0])
			rc = refuse(e, &t, x, "not done by tichaos's "
				    "consistency check (routes and table "
				    "configs are not read)");
		else
			rc = top_key(e, &t, x, d);
	}
	if (!rc && (!nsources || !target || !d->ntables))
		rc = err_set(e, ERR_USAGE, "%s: [task] needs source-instances, "
			     "target-instance and target-check-tables", path);
	if (!rc)
		rc = pick(e, &t, toml_get(&t, "task.source-instances"),
			  sources[0], srcs, nsrcs, &d->source) ||
		     pick(e, &t, toml_get(&t, "task.target-instance"), target,
			  srcs, nsrcs, &d->target);
	for (size_t i = 0; i < nsrcs; i++)
		source_release(&srcs[i]);
	free(srcs);
	for (size_t i = 0; i < nsources; i++)
		free(sources[i]);
	free(sources);
	toml_release(&t);
	return rc ? -1 : 0;
}

int diffconfig_wants(const struct diffconfig *d, const char *db,
		     const char *table)
{
	int in = 0;

	for (int i = 0; system_schemas[i]; i++)
		if (!strcasecmp(db, system_schemas[i]))
			return 0;
	for (size_t i = 0; i < d->ntables; i++) {
		const char *p = d->tables[i][0] == '!' ? d->tables[i] + 1
						       : d->tables[i];
		const char *dot = strchr(p, '.');
		char pdb[256];

		snprintf(pdb, sizeof(pdb), "%.*s", (int)(dot - p), p);
		if (!fnmatch(pdb, db, 0) && !fnmatch(dot + 1, table, 0))
			in = d->tables[i][0] != '!';
	}
	return in;
}

void diffconfig_release(struct diffconfig *d)
{
	free(d->path);
	free(d->output_dir);
	source_release(&d->source);
	source_release(&d->target);
	for (size_t i = 0; i < d->ntables; i++)
		free(d->tables[i]);
	free(d->tables);
	memset(d, 0, sizeof(*d));
}
