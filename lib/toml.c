/*
 * The TOML that the TiDB tools' configuration files use (lib/toml.h).
 */
#include "lib/toml.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"

/* Nesting of arrays read, at most. */
#define MAX_DEPTH 16

struct cursor {
	const struct toml *t;
	const char *p;
	int line, col;
	struct err *e;
};

int toml_error_at(struct err *e, const struct toml *t, int line, int col,
		  const char *fmt, ...)
{
	char msg[ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_set(e, ERR_USAGE, "%s:%d:%d: %s", t->path, line, col, msg);
}

static int fail(struct cursor *c, const char *what)
{
	return toml_error_at(c->e, c->t, c->line, c->col, "%s", what);
}

static void step(struct cursor *c)
{
	if (*c->p == '\n') {
		c->line++;
		c->col = 1;
	} else {
		c->col++;
	}
	c->p++;
}

/* Spaces and tabs. */
static void blanks(struct cursor *c)
{
	while (*c->p == ' ' || *c->p == '\t')
		step(c);
}

/* Blanks, a comment, and the \r of a CRLF: up to the line's end. */
static void rest_of_line(struct cursor *c)
{
	blanks(c);
	if (*c->p == '#')
		while (*c->p && *c->p != '\n')
			step(c);
	if (*c->p == '\r' && c->p[1] == '\n')
		step(c);
}

/* Blanks, newlines and comments. */
static void spaces(struct cursor *c)
{
	for (rest_of_line(c); *c->p == '\n'; rest_of_line(c))
		step(c);
}

/* After a key's value or a table's header: a comment, then the line's
 * end. */
static int line_end(struct cursor *c)
{
	rest_of_line(c);
	if (*c->p && *c->p != '\n')
		return fail(c, "expected the end of the line");
	return 0;
}

/* A basic ("...", escapes) or literal ('...') string into `out`. */
static int string(struct cursor *c, struct buf *out)
{
	char quote = *c->p;

	if (c->p[1] == quote && c->p[2] == quote)
		return fail(c, "multi-line strings are not read here");
	step(c);
	while (*c->p != quote) {
		unsigned long u;
		char *end;
		int n;

		if (!*c->p || *c->p == '\n')
			return fail(c, "the string does not end on its line");
		if (quote == '\'' || *c->p != '\\') {
			buf_addch(out, *c->p, NULL);
			step(c);
			continue;
		}
		step(c);
		switch (*c->p) {
		case 'b': buf_addch(out, '\b', NULL); break;
		case 't': buf_addch(out, '\t', NULL); break;
		case 'n': buf_addch(out, '\n', NULL); break;
		case 'f': buf_addch(out, '\f', NULL); break;
		case 'r': buf_addch(out, '\r', NULL); break;
		case '"': buf_addch(out, '"', NULL); break;
		case '\\': buf_addch(out, '\\', NULL); break;
		case 'u':
		case 'U':
			n = *c->p == 'u' ? 4 : 8;
			for (int i = 1; i <= n; i++)
				if (!isxdigit((unsigned char)c->p[i]))
					return fail(c, "a \\u escape needs "
						    "hex digits");
			u = strtoul(c->p + 1, &end, 16);
			if (u > 0x10ffff || (u >= 0xd800 && u <= 0xdfff))
				return fail(c, "no such code point");
			if (u < 0x80) {
				buf_addch(out, (char)u, NULL);
			} else if (u < 0x800) {
				buf_addch(out, (char)(0xc0 | u >> 6), NULL);
				buf_addch(out, (char)(0x80 | (u & 0x3f)), NULL);
			} else if (u < 0x10000) {
				buf_addch(out, (char)(0xe0 | u >> 12), NULL);
				buf_addch(out, (char)(0x80 | (u >> 6 & 0x3f)),
					  NULL);
				buf_addch(out, (char)(0x80 | (u & 0x3f)), NULL);
			} else {
				buf_addch(out, (char)(0xf0 | u >> 18), NULL);
				buf_addch(out, (char)(0x80 | (u >> 12 & 0x3f)),
					  NULL);
				buf_addch(out, (char)(0x80 | (u >> 6 & 0x3f)),
					  NULL);
				buf_addch(out, (char)(0x80 | (u & 0x3f)), NULL);
			}
			for (int i = 0; i < n; i++)
				step(c);
			break;
		default:
			return fail(c, "unknown escape");
		}
		step(c);
	}
	step(c);
	return 0;
}

/* A dotted key (bare or quoted parts, blanks around the dots) into `out`,
 * its parts joined by dots. */
static int key(struct cursor *c, struct buf *out)
{
	for (;;) {
		blanks(c);
		if (*c->p == '"' || *c->p == '\'') {
			if (string(c, out))
				return -1;
		} else {
			const char *start = c->p;

			while (isalnum((unsigned char)*c->p) || *c->p == '_' ||
			       *c->p == '-')
				step(c);
			if (c->p == start)
				return fail(c, "expected a key");
			buf_add(out, start, (size_t)(c->p - start), NULL);
		}
		blanks(c);
		if (*c->p != '.')
			return 0;
		buf_addch(out, '.', NULL);
		step(c);
	}
}

static void value_release(struct toml_value *v)
{
	free(v->str);
	for (size_t i = 0; i < v->n; i++)
		value_release(&v->items[i]);
	free(v->items);
	memset(v, 0, sizeof(*v));
}

static int value(struct cursor *c, struct toml_value *v, int depth);

static int array(struct cursor *c, struct toml_value *v, int depth)
{
	v->type = TOML_ARRAY;
	if (depth >= MAX_DEPTH)
		return fail(c, "arrays nested too deep");
	step(c);
	for (;;) {
		spaces(c);
		if (*c->p == ']')
			break;
		v->items = xrealloc(v->items, (v->n + 1) * sizeof(*v->items));
		memset(&v->items[v->n], 0, sizeof(*v->items));
		if (value(c, &v->items[v->n++], depth + 1))
			return -1;
		spaces(c);
		if (*c->p == ',') {
			step(c);
			continue;
		}
		if (*c->p != ']')
			return fail(c, "expected ',' or ']' in the array");
		break;
	}
	step(c);
	return 0;
}

static int integer(struct cursor *c, struct toml_value *v)
{
	char digits[32];
	size_t n = 0;
	char *end;

	if (*c->p == '+' || *c->p == '-') {
		digits[n++] = *c->p;
		step(c);
	}
	while (isdigit((unsigned char)*c->p) || *c->p == '_') {
		if (*c->p != '_' && n < sizeof(digits) - 1)
			digits[n++] = *c->p;
		step(c);
	}
	digits[n] = '\0';
	if (*c->p == '.' || *c->p == 'e' || *c->p == 'E' || *c->p == 'x' ||
	    *c->p == 'o' || *c->p == 'b' || *c->p == ':')
		return fail(c, "only decimal integers are read here");
	v->type = TOML_INT;
	errno = 0;
	v->i = strtoll(digits, &end, 10);
	if (!n || *end || errno == ERANGE || n >= sizeof(digits) - 1)
		return fail(c, "not an integer");
	return 0;
}

static int value(struct cursor *c, struct toml_value *v, int depth)
{
	struct buf s = BUF_INIT;

	v->line = c->line;
	v->col = c->col;
	if (*c->p == '"' || *c->p == '\'') {
		if (string(c, &s)) {
			buf_release(&s);
			return -1;
		}
		v->type = TOML_STRING;
		v->str = xstrdup(buf_str(&s));
		buf_release(&s);
		return 0;
	}
	if (*c->p == '[')
		return array(c, v, depth);
	if (!strncmp(c->p, "true", 4) || !strncmp(c->p, "false", 5)) {
		v->type = TOML_BOOL;
		v->i = *c->p == 't';
		for (int i = v->i ? 4 : 5; i > 0; i--)
			step(c);
		return 0;
	}
	if (isdigit((unsigned char)*c->p) || *c->p == '+' || *c->p == '-')
		return integer(c, v);
	if (*c->p == '{')
		return fail(c, "inline tables are not read here");
	return fail(c, "expected a value: a string, an integer, true, false "
		    "or an array");
}

static int add(struct cursor *c, const char *table, const char *k, int line,
	       int col, struct toml_entry **out)
{
	struct toml *t = (struct toml *)c->t;
	char *full = table[0] ? xprintf("%s.%s", table, k) : xstrdup(k);

	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->entries[i].key, full)) {
			toml_error_at(c->e, t, line, col, "'%s' is given "
				      "twice (first at line %d)", full,
				      t->entries[i].line);
			free(full);
			return -1;
		}
	t->entries = xrealloc(t->entries, (t->n + 1) * sizeof(*t->entries));
	*out = &t->entries[t->n++];
	memset(*out, 0, sizeof(**out));
	(*out)->key = full;
	(*out)->table = xstrdup(table);
	(*out)->line = line;
	(*out)->col = col;
	return 0;
}

int toml_read(struct toml *t, const char *path, struct err *e)
{
	struct buf text = BUF_INIT, table = BUF_INIT, k = BUF_INIT;
	struct cursor c;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	t->path = path;
	if (buf_read_file(&text, path, e))
		return -1;
	if (memchr(text.data, '\0', text.len)) {
		buf_release(&text);
		return err_set(e, ERR_USAGE, "%s: not a text file", path);
	}
	c = (struct cursor){ t, buf_str(&text), 1, 1, e };
	for (spaces(&c); !rc && *c.p; spaces(&c)) {
		struct toml_entry *entry;
		int line = c.line, col = c.col;

		buf_reset(&k);
		if (*c.p == '[') {
			if (c.p[1] == '[') {
				rc = fail(&c, "arrays of tables are not read "
					  "here");
				break;
			}
			step(&c);
			buf_reset(&table);
			rc = key(&c, &table);
			if (!rc && *c.p != ']')
				rc = fail(&c, "expected ']'");
			if (!rc)
				step(&c);
			rc = rc || line_end(&c);
			continue;
		}
		rc = key(&c, &k);
		if (!rc && *c.p != '=')
			rc = fail(&c, "expected '=' after the key");
		if (rc)
			break;
		step(&c);
		blanks(&c);
		rc = add(&c, buf_str(&table), buf_str(&k), line, col, &entry) ||
		     value(&c, &entry->v, 0) || line_end(&c);
	}
	buf_release(&text);
	buf_release(&table);
	buf_release(&k);
	return rc ? -1 : 0;
}

const struct toml_entry *toml_get(const struct toml *t, const char *key)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->entries[i].key, key))
			return &t->entries[i];
	return NULL;
}

void toml_release(struct toml *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->entries[i].key);
		free(t->entries[i].table);
		value_release(&t->entries[i].v);
	}
	free(t->entries);
	memset(t, 0, sizeof(*t));
}
