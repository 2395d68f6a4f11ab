#include "optspec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"
#include "parse.h"

static const char *const type_names[] = {
	[OPT_BOOL] = "bool",
	[OPT_INT] = "int",
	[OPT_FLOAT] = "number",
	[OPT_DURATION] = "duration",
	[OPT_STRING] = "string",
	[OPT_IDENT] = "identifier",
	[OPT_ENUM] = "one of",
	[OPT_ENUM_LIST] = "list of",
	[OPT_STRING_LIST] = "list of strings",
	[OPT_NAMES] = "names",
	[OPT_DURATION_LIST] = "list of durations",
	[OPT_TABLES] = "tables",
	[OPT_SQL] = "SQL",
	[OPT_COMPONENT] = "component",
	[OPT_COMPONENTS] = "components",
};

const char *optspec_type_name(enum optspec_type t)
{
	return type_names[t];
}

int optval_json(const struct optspec *sp, const struct optval *v,
		struct buf *out, struct err *e)
{
	char d[64];
	int rc = 0;

	if (!v->set)
		return buf_addstr(out, "null", e);
	switch (sp->type) {
	case OPT_BOOL:
		return buf_addstr(out, v->i ? "true" : "false", e);
	case OPT_INT:
		return buf_printf(out, e, "%lld", (long long)v->i);
	case OPT_FLOAT:
		return buf_printf(out, e, "%.17g", v->f);
	case OPT_DURATION:
		return json_quote(out, format_duration(v->i, d, sizeof(d)), e);
	case OPT_STRING:
	case OPT_IDENT:
	case OPT_SQL:
	case OPT_COMPONENT:
		return json_quote(out, v->s, e);
	case OPT_ENUM:
		return json_quote(out, sp->choices[v->i], e);
	case OPT_DURATION_LIST:
		rc = buf_addch(out, '[', e);
		for (size_t i = 0; !rc && i < v->n; i++)
			rc = (i && buf_addstr(out, ", ", e)) ||
			     json_quote(out, format_duration(v->ints[i], d,
							     sizeof(d)), e);
		return rc || buf_addch(out, ']', e) ? -1 : 0;
	case OPT_ENUM_LIST:
	case OPT_STRING_LIST:
	case OPT_NAMES:
	case OPT_TABLES:
	case OPT_COMPONENTS:
		rc = buf_addch(out, '[', e);
		for (size_t i = 0; !rc && i < v->n; i++)
			rc = (i && buf_addstr(out, ", ", e)) ||
			     json_quote(out, v->list[i], e);
		return rc || buf_addch(out, ']', e) ? -1 : 0;
	}
	return 0;
}

/*
 * `s` for a message: control characters escaped as in YAML ("a\nb", not
 * "a b" once err_set() has flattened the newline), cut at `size`.
 */
static const char *shown(const char *s, char *out, size_t size)
{
	size_t off = 0;

	for (; *s && off + 8 < size; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\n' || c == '\t' || c == '\r')
			off += (size_t)snprintf(out + off, size - off, "\\%c",
						c == '\n' ? 'n' :
						c == '\t' ? 't' : 'r');
		else if (c < 0x20 || c == 0x7f)
			off += (size_t)snprintf(out + off, size - off,
						"\\x%02x", c);
		else
			out[off++] = (char)c;
	}
	snprintf(out + off, size - off, "%s", *s ? "..." : "");
	return out;
}

int optspec_check_ident(const char *s, struct err *e)
{
	size_t n = strlen(s);
	char text[300];

	if (!n)
		return err_set(e, ERR_USAGE, "empty identifier");
	if (n > 64)
		return err_set(e, ERR_USAGE, "identifier '%s' is longer than "
			       "64 characters", shown(s, text, 28));
	for (const char *p = s; *p; p++) {
		char c = *p;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '$'))
			return err_set(e, ERR_USAGE, "invalid identifier "
				       "'%s' (use letters, digits, '_' and "
				       "'$')", shown(s, text, sizeof(text)));
	}
	return 0;
}

int optspec_check_component(const char *s, struct err *e)
{
	size_t n = strlen(s);
	char text[300];

	for (const char *p = s; n && n <= 64 && *p; p++) {
		char c = *p;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-' ||
		      c == '.' || c == ':'))
			n = 0;
	}
	if (n && n <= 64)
		return 0;
	return err_set(e, ERR_USAGE, "'%s' is not a role or a component name "
		       "(1 to 64 letters, digits, '_', '-', '.' and ':')",
		       shown(s, text, sizeof(text)));
}

int optspec_check_sql(const char *s, struct err *e)
{
	int depth = 0;
	char quote = 0;
	char text[400];

	if (!*s)
		return err_set(e, ERR_USAGE, "empty SQL");
	shown(s, text, sizeof(text));
	for (const char *p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c < 0x20 && c != '\t' && c != '\n')
			return err_set(e, ERR_USAGE, "control character in "
				       "SQL '%s'", text);
		/* Whether a backslash escapes depends on the kind of quote
		 * and on the server's sql_mode (NO_BACKSLASH_ESCAPES); a
		 * fragment whose quoting the server could read differently
		 * would get past the checks below. */
		if (c == '\\')
			return err_set(e, ERR_USAGE, "backslash in SQL '%s' "
				       "(to put a quote in a string, double "
				       "it)", text);
		if (quote) {
			if (c == (unsigned char)quote)
				quote = 0;
			continue;
		}
		if (c == '\'' || c == '"' || c == '`') {
			quote = (char)c;
		} else if (c == ';') {
			return err_set(e, ERR_USAGE, "';' in SQL '%s' (one "
				       "definition, not statements)", text);
		} else if (c == '#' || (c == '-' && p[1] == '-') ||
			   (c == '/' && p[1] == '*')) {
			return err_set(e, ERR_USAGE, "comment in SQL '%s'",
				       text);
		} else if (c == '(') {
			depth++;
		} else if (c == ')' && --depth < 0) {
			break;
		}
	}
	if (quote)
		return err_set(e, ERR_USAGE, "unterminated %c quote in SQL "
			       "'%s'", quote, text);
	if (depth)
		return err_set(e, ERR_USAGE, "unbalanced parentheses in SQL "
			       "'%s'", text);
	return 0;
}

static void push(char ***list, size_t *n, char *s)
{
	*list = xrealloc(*list, (*n + 1) * sizeof(**list));
	(*list)[(*n)++] = s;
}

int optspec_expand(const char *pattern, char ***list, size_t *n,
		   struct err *e)
{
	const char *open = strchr(pattern, '{');
	const char *close, *dots;
	int64_t a, b;
	char *lo, *hi;
	int bad;

	if (!open) {
		if (optspec_check_ident(pattern, e))
			return -1;
		push(list, n, xstrdup(pattern));
		return 0;
	}
	close = strchr(open, '}');
	dots = strstr(open, "..");
	if (!close || !dots || dots > close)
		return err_set(e, ERR_USAGE, "invalid range in '%s' (use "
			       "e.g. 'table_{1..5}')", pattern);
	if (strchr(close + 1, '{'))
		return err_set(e, ERR_USAGE, "more than one range in '%s'",
			       pattern);
	lo = xstrndup(open + 1, (size_t)(dots - open - 1));
	hi = xstrndup(dots + 2, (size_t)(close - dots - 2));
	bad = parse_int64(lo, 0, 999999999, &a, NULL) ||
	      parse_int64(hi, 0, 999999999, &b, NULL);
	free(lo);
	free(hi);
	if (bad)
		return err_set(e, ERR_USAGE, "invalid range in '%s' (use "
			       "e.g. 'table_{1..5}')", pattern);
	if (a > b)
		return err_set(e, ERR_USAGE, "range in '%s' is reversed",
			       pattern);
	if (b - a >= OPTSPEC_MAX_RANGE)
		return err_set(e, ERR_USAGE, "range in '%s' expands to more "
			       "than %d names", pattern, OPTSPEC_MAX_RANGE);
	for (int64_t i = a; i <= b; i++) {
		char *name = xprintf("%.*s%lld%s", (int)(open - pattern),
				     pattern, (long long)i, close + 1);

		if (optspec_check_ident(name, e)) {
			free(name);
			return -1;
		}
		push(list, n, name);
	}
	return 0;
}

static int choice_index(const char *s, const char *const *choices)
{
	for (int i = 0; choices[i]; i++)
		if (!strcmp(choices[i], s))
			return i;
	return -1;
}

static void choices_text(const char *const *choices, char *out, size_t size)
{
	size_t off = 0;

	out[0] = '\0';
	for (int i = 0; choices[i] && off < size; i++)
		off += (size_t)snprintf(out + off, size - off, "%s%s",
					i ? ", " : "", choices[i]);
}

struct ctx {
	const char *file;
	const char *what;
	struct err *e;
};

static int fail_at(struct ctx *c, const struct ynode *n, const char *fmt,
		   const char *key, const char *detail)
{
	char text[300];

	return ynode_error(c->e, c->file, n, fmt, key, c->what,
			   shown(detail, text, sizeof(text)));
}

/* What one scalar of type `t` is, for "must be ..., not a list". */
static const char *expected(enum optspec_type t)
{
	switch (t) {
	case OPT_BOOL:
		return "true or false";
	case OPT_INT:
		return "an integer";
	case OPT_FLOAT:
		return "a number";
	case OPT_DURATION:
	case OPT_DURATION_LIST:
		return "a duration";
	case OPT_STRING:
	case OPT_STRING_LIST:
		return "a string";
	case OPT_IDENT:
		return "an identifier";
	case OPT_ENUM:
	case OPT_ENUM_LIST:
	case OPT_NAMES:
		return "a name";
	case OPT_TABLES:
		return "a table name";
	case OPT_SQL:
		return "SQL text";
	case OPT_COMPONENT:
	case OPT_COMPONENTS:
		return "a role or a component name";
	}
	return "a scalar";
}

/* Adds `n`'s value to the list in `v`, unless it is there already. */
static int add_once(struct ctx *c, const struct optspec *sp,
		    const struct ynode *n, struct optval *v)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->list[i], n->value))
			return fail_at(c, n, "%s in %s lists '%s' twice",
				       sp->key, n->value);
	push(&v->list, &v->n, xstrdup(n->value));
	return 0;
}

static int scalar_bool(struct ctx *c, const struct optspec *sp,
		       const struct ynode *n, struct optval *v)
{
	if (!strcmp(n->value, "true"))
		v->i = 1;
	else if (!strcmp(n->value, "false"))
		v->i = 0;
	else
		return fail_at(c, n, "%s in %s must be true or false, not "
			       "'%s'", sp->key, n->value);
	return 0;
}

static int scalar_float(struct ctx *c, const struct optspec *sp,
			const struct ynode *n, struct optval *v)
{
	char *end;

	errno = 0;
	v->f = strtod(n->value, &end);
	if (!*n->value || *end || errno || v->f < 0 || v->f != v->f ||
	    v->f > 1e12)
		return fail_at(c, n, "%s in %s must be a number >= 0, not "
			       "'%s'", sp->key, n->value);
	return 0;
}

/* A duration: the value of OPT_DURATION, an item of OPT_DURATION_LIST. */
static int scalar_duration(struct ctx *c, const struct optspec *sp,
			   const struct ynode *n, struct optval *v)
{
	struct err local = ERR_INIT;
	int64_t ns, *grown;

	if (parse_duration(n->value, &ns, &local))
		return ynode_error(c->e, c->file, n, "%s in %s: %s", sp->key,
				   c->what, local.msg);
	if (sp->type == OPT_DURATION) {
		v->i = ns;
		return 0;
	}
	grown = xrealloc(v->ints, (v->n + 1) * sizeof(*grown));
	v->ints = grown;
	grown[v->n++] = ns;
	return 0;
}

/*
 * One of sp->choices: the index for OPT_ENUM, a new item of the list for
 * OPT_ENUM_LIST. An unknown value is told with a suggestion, or the
 * choices.
 */
static int scalar_choice(struct ctx *c, const struct optspec *sp,
			 const struct ynode *n, struct optval *v)
{
	int idx = choice_index(n->value, sp->choices);
	char choices[512], text[300];
	const char *hint;

	if (idx < 0) {
		hint = ynode_suggest(n->value, sp->choices);
		choices_text(sp->choices, choices, sizeof(choices));
		shown(n->value, text, sizeof(text));
		if (hint)
			return ynode_error(c->e, c->file, n, "%s in %s: "
					   "unknown value '%s' (did you mean "
					   "'%s'?)", sp->key, c->what, text,
					   hint);
		return ynode_error(c->e, c->file, n, "%s in %s: unknown value "
				   "'%s' (expected %s)", sp->key, c->what,
				   text, choices);
	}
	if (sp->type == OPT_ENUM) {
		v->i = idx;
		return 0;
	}
	return add_once(c, sp, n, v);
}

/* A role or a component: OPT_COMPONENT's, or an item of OPT_COMPONENTS. */
static int scalar_component(struct ctx *c, const struct optspec *sp,
			    const struct ynode *n, struct optval *v)
{
	struct err local = ERR_INIT;

	if (optspec_check_component(n->value, &local))
		return ynode_error(c->e, c->file, n, "%s in %s: %s", sp->key,
				   c->what, local.msg);
	if (sp->type == OPT_COMPONENTS)
		return add_once(c, sp, n, v);
	v->s = xstrdup(n->value);
	return 0;
}

/* Names (OPT_NAMES, OPT_TABLES): a name or a range, expanded, none twice. */
static int scalar_names(struct ctx *c, const struct optspec *sp,
			const struct ynode *n, struct optval *v)
{
	struct err local = ERR_INIT;
	size_t before = v->n;

	if (optspec_expand(n->value, &v->list, &v->n, &local))
		return ynode_error(c->e, c->file, n, "%s in %s: %s", sp->key,
				   c->what, local.msg);
	for (size_t i = before; i < v->n; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(v->list[i], v->list[j]))
				return fail_at(c, n, "%s in %s names '%s' "
					       "twice", sp->key, v->list[i]);
	return 0;
}

/* One scalar of a value (or list item) into `v`. */
static int scalar(struct ctx *c, const struct optspec *sp,
		  const struct ynode *n, struct optval *v)
{
	struct err local = ERR_INIT;

	if (n->kind != YNODE_SCALAR)
		return ynode_error(c->e, c->file, n, "%s in %s must be %s, "
				   "not %s", sp->key, c->what,
				   expected(sp->type),
				   ynode_kind_name(n->kind));
	switch (sp->type) {
	case OPT_BOOL:
		return scalar_bool(c, sp, n, v);
	case OPT_INT:
		if (parse_int64(n->value, sp->min, sp->max, &v->i, &local))
			return ynode_error(c->e, c->file, n, "%s in %s: %s",
					   sp->key, c->what, local.msg);
		return 0;
	case OPT_FLOAT:
		return scalar_float(c, sp, n, v);
	case OPT_DURATION:
	case OPT_DURATION_LIST:
		return scalar_duration(c, sp, n, v);
	case OPT_STRING:
		if (!*n->value)
			return ynode_error(c->e, c->file, n, "%s in %s must "
					   "not be empty", sp->key, c->what);
		v->s = xstrdup(n->value);
		return 0;
	case OPT_IDENT:
		if (optspec_check_ident(n->value, &local))
			return ynode_error(c->e, c->file, n, "%s in %s: %s",
					   sp->key, c->what, local.msg);
		v->s = xstrdup(n->value);
		return 0;
	case OPT_ENUM:
	case OPT_ENUM_LIST:
		return scalar_choice(c, sp, n, v);
	case OPT_STRING_LIST:
		push(&v->list, &v->n, xstrdup(n->value));
		return 0;
	case OPT_COMPONENT:
	case OPT_COMPONENTS:
		return scalar_component(c, sp, n, v);
	case OPT_SQL:
		if (optspec_check_sql(n->value, &local))
			return ynode_error(c->e, c->file, n, "%s in %s: %s",
					   sp->key, c->what, local.msg);
		v->s = xstrdup(n->value);
		return 0;
	case OPT_NAMES:
	case OPT_TABLES:
		return scalar_names(c, sp, n, v);
	}
	return 0;
}

static int is_list_type(enum optspec_type t)
{
	return t == OPT_ENUM_LIST || t == OPT_STRING_LIST || t == OPT_NAMES ||
	       t == OPT_DURATION_LIST || t == OPT_TABLES ||
	       t == OPT_COMPONENTS;
}

static int value(struct ctx *c, const struct optspec *sp,
		 const struct ynode *n, struct optval *v)
{
	if (!is_list_type(sp->type))
		return scalar(c, sp, n, v);
	if (n->kind == YNODE_SCALAR)
		return scalar(c, sp, n, v);
	if (n->kind != YNODE_SEQ)
		return ynode_error(c->e, c->file, n, "%s in %s must be a list, "
				   "not %s", sp->key, c->what,
				   ynode_kind_name(n->kind));
	/* An empty list is "none": an option with a default or a required
	 * one needs at least one item ("requires: []" is fine). */
	if (!n->n && (sp->required || sp->def))
		return ynode_error(c->e, c->file, n, "%s in %s must not be "
				   "empty", sp->key, c->what);
	for (size_t i = 0; i < n->n; i++)
		if (scalar(c, sp, n->items[i], v))
			return -1;
	return 0;
}

int optspec_parse(const char *file, const struct ynode *map,
		  const struct optspec *specs, size_t nspecs,
		  const char *const *ignore, const char *what,
		  struct optval *vals, struct err *e)
{
	struct ctx c = { file, what, e };
	const char **keys;
	size_t nkeys = 0;
	int rc;

	/* Known keys, for the unknown-key check and its suggestion. */
	keys = xcalloc(nspecs + 16, sizeof(*keys));
	for (size_t i = 0; i < nspecs; i++)
		keys[nkeys++] = specs[i].key;
	for (const char *const *k = ignore; k && *k && nkeys < nspecs + 15;
	     k++)
		keys[nkeys++] = *k;
	rc = ynode_check_map(file, map, keys, what, e);
	free(keys);
	if (rc)
		return -1;
	for (size_t i = 0; i < nspecs; i++) {
		const struct optspec *sp = &specs[i];
		const struct ynode *n = ynode_get(map, sp->key);
		struct optval *v = &vals[i];

		if (n) {
			v->given = 1;
			v->line = n->line;
			v->col = n->col;
			if (value(&c, sp, n, v))
				return -1;
			v->set = 1;
			continue;
		}
		if (sp->required)
			return ynode_error(e, file, map, "%s needs '%s'", what,
					   sp->key);
		if (sp->def) {
			/* Defaults are YAML text too ("[a, b]" for lists). */
			struct ynode *def = NULL;
			int bad = ynode_load_string("(default)", sp->def,
						    strlen(sp->def), &def, e) ||
				  !def || value(&c, sp, def, v);

			ynode_free(def);
			if (bad)
				return err_set(e, ERR_INFRA, "bad default "
					       "'%s' of '%s'", sp->def,
					       sp->key);
			v->set = 1;
		}
	}
	return 0;
}

void optvals_release(struct optval *vals, size_t nspecs)
{
	for (size_t i = 0; i < nspecs; i++) {
		struct optval *v = &vals[i];

		free(v->s);
		free(v->ints);
		if (v->list)
			for (size_t j = 0; j < v->n; j++)
				free(v->list[j]);
		free(v->list);
		memset(v, 0, sizeof(*v));
	}
}

int optspec_describe(const struct optspec *specs, size_t nspecs,
		     struct buf *out, struct err *e)
{
	for (size_t i = 0; i < nspecs; i++) {
		const struct optspec *sp = &specs[i];
		char type[512];

		if (sp->choices) {
			char list[480];

			choices_text(sp->choices, list, sizeof(list));
			snprintf(type, sizeof(type), "%s %s",
				 type_names[sp->type], list);
		} else if (sp->type == OPT_INT) {
			snprintf(type, sizeof(type), "int %lld..%lld",
				 (long long)sp->min, (long long)sp->max);
		} else {
			snprintf(type, sizeof(type), "%s",
				 type_names[sp->type]);
		}
		if (buf_printf(out, e, "    %-16s %-40s %-10s %s\n", sp->key,
			       type, sp->required ? "required" :
			       sp->def ? sp->def : "-", sp->doc))
			return -1;
	}
	return 0;
}

void optspec_bind(const struct optspec *specs, size_t nspecs,
		  const struct optval *vals, void *out)
{
	for (size_t i = 0; i < nspecs; i++) {
		const struct optval *v = &vals[i];
		char *at = (char *)out + specs[i].at - 1;

		if (!specs[i].at)
			continue;
		switch (specs[i].type) {
		case OPT_BOOL:
			*(int *)(void *)at = (int)v->i;
			break;
		case OPT_ENUM:
			*(int *)(void *)at = v->set ? (int)v->i : -1;
			break;
		case OPT_INT:
		case OPT_DURATION:
			*(int64_t *)(void *)at = v->i;
			break;
		case OPT_FLOAT:
			*(double *)(void *)at = v->f;
			break;
		case OPT_STRING:
		case OPT_IDENT:
		case OPT_SQL:
		case OPT_COMPONENT:
			*(const char **)(void *)at = v->s;
			break;
		case OPT_ENUM_LIST:
		case OPT_STRING_LIST:
		case OPT_NAMES:
		case OPT_TABLES:
		case OPT_COMPONENTS:
			((struct optlist *)(void *)at)->v = v->list;
			((struct optlist *)(void *)at)->n = v->n;
			break;
		case OPT_DURATION_LIST:
			((struct optints *)(void *)at)->v = v->ints;
			((struct optints *)(void *)at)->n = v->n;
			break;
		}
	}
}

const struct optval *optspec_bound(const struct optspec *specs,
				   size_t nspecs, const struct optval *vals,
				   const void *base, const void *member)
{
	size_t at = (size_t)((const char *)member - (const char *)base) + 1;

	for (size_t i = 0; i < nspecs; i++)
		if (specs[i].at == at)
			return &vals[i];
	return NULL;
}
