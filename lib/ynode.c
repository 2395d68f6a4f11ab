#include "ynode.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

struct loader {
	const char *name;
	yaml_parser_t parser;
	struct err *e;
	int depth;
	const char *text;
	size_t len;
};

/*
 * Format a message into `msg` with control characters escaped: they come
 * from the file (a key, a value) and must not reach a terminal raw, nor
 * turn "a\nb" into "a b" when err_set() flattens newlines.
 */
static void vformat(char *msg, size_t size, const char *fmt, va_list ap)
{
	char raw[512];
	size_t off = 0;

	vsnprintf(raw, sizeof(raw), fmt, ap);
	for (const char *p = raw; *p && off + 5 < size; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '\n')
			off += (size_t)snprintf(msg + off, size - off, "\\n");
		else if (c == '\t')
			off += (size_t)snprintf(msg + off, size - off, "\\t");
		else if (c < 0x20 || c == 0x7f)
			off += (size_t)snprintf(msg + off, size - off,
						"\\x%02x", c);
		else
			msg[off++] = (char)c;
	}
	msg[off] = '\0';
}

static int loader_error(struct loader *l, int line, int col, const char *fmt,
			...) __attribute__((format(printf, 4, 5)));

static int loader_error(struct loader *l, int line, int col, const char *fmt,
			...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vformat(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_set(l->e, ERR_USAGE, "%s:%d:%d: %s", l->name, line, col,
		       msg);
}

/*
 * The line and column of byte `offset`, counted as libyaml counts them
 * (characters, not bytes). Reader errors (bad UTF-8, control characters)
 * carry only a byte offset, not a mark.
 */
static void offset_mark(const struct loader *l, size_t offset, int *line,
			int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < offset && i < l->len; i++) {
		unsigned char c = (unsigned char)l->text[i];

		if (c == '\n' || (c == '\r' && (i + 1 >= l->len ||
						  l->text[i + 1] != '\n'))) {
			++*line;
			*col = 1;
		} else if ((c & 0xc0) != 0x80 && c != '\r') {
			++*col;
		}
	}
}

static int next_event(struct loader *l, yaml_event_t *ev)
{
	const yaml_parser_t *p = &l->parser;
	const char *problem;
	int line, col;

	if (yaml_parser_parse(&l->parser, ev))
		return 0;
	problem = p->problem ? p->problem : "malformed YAML";
	if (p->error == YAML_READER_ERROR) {
		offset_mark(l, p->problem_offset, &line, &col);
		if (p->problem_value >= 0)
			return loader_error(l, line, col, "%s (0x%02x)",
					    problem, p->problem_value);
		return loader_error(l, line, col, "%s", problem);
	}
	line = (int)p->problem_mark.line + 1;
	col = (int)p->problem_mark.column + 1;
	/* "while scanning a quoted scalar" is only helpful with where it
	 * began: the problem is often at the end of the file. */
	if (p->context && (p->context_mark.line != p->problem_mark.line ||
			   p->context_mark.column != p->problem_mark.column))
		return loader_error(l, line, col, "%s %s that started at "
				    "line %d, column %d", problem, p->context,
				    (int)p->context_mark.line + 1,
				    (int)p->context_mark.column + 1);
	return loader_error(l, line, col, "%s%s%s", problem,
			    p->context ? " " : "",
			    p->context ? p->context : "");
}

/* Tags other than the core schema's ("!!str") mean a type we do not
 * have. */
static const char *odd_tag(const yaml_event_t *ev)
{
	static const char core[] = "tag:yaml.org,2002:";
	const char *tag = NULL;

	if (ev->type == YAML_SCALAR_EVENT)
		tag = (const char *)ev->data.scalar.tag;
	else if (ev->type == YAML_SEQUENCE_START_EVENT)
		tag = (const char *)ev->data.sequence_start.tag;
	else if (ev->type == YAML_MAPPING_START_EVENT)
		tag = (const char *)ev->data.mapping_start.tag;
	if (tag && strncmp(tag, core, strlen(core)))
		return tag;
	return NULL;
}

static struct ynode *new_node(enum ynode_kind kind, const yaml_event_t *ev)
{
	struct ynode *n = xcalloc(1, sizeof(*n));

	n->kind = kind;
	n->line = (int)ev->start_mark.line + 1;
	n->col = (int)ev->start_mark.column + 1;
	return n;
}

static void add_item(struct ynode *parent, struct ynode *child)
{
	parent->items = xrealloc(parent->items,
				 (parent->n + 1) * sizeof(*parent->items));
	parent->items[parent->n++] = child;
}

static int parse_node(struct loader *l, yaml_event_t *ev,
		      struct ynode **out);

/* Read the children of a sequence or mapping until its end event. */
static int parse_children(struct loader *l, struct ynode *parent,
			  yaml_event_type_t end)
{
	for (;;) {
		struct ynode *child = NULL;
		yaml_event_t ev;

		if (next_event(l, &ev))
			return -1;
		if (ev.type == end) {
			yaml_event_delete(&ev);
			break;
		}
		if (parse_node(l, &ev, &child)) {
			yaml_event_delete(&ev);
			return -1;
		}
		yaml_event_delete(&ev);
		add_item(parent, child);
	}
	if (parent->kind != YNODE_MAP)
		return 0;
	for (size_t i = 0; i < parent->n; i += 2) {
		const struct ynode *k = parent->items[i];

		if (k->kind != YNODE_SCALAR)
			return loader_error(l, k->line, k->col,
					    "mapping keys must be scalars");
		for (size_t j = 0; j < i; j += 2)
			if (!strcmp(parent->items[j]->value, k->value))
				return loader_error(l, k->line, k->col,
						    "duplicate key '%s' "
						    "(first at line %d)",
						    k->value,
						    parent->items[j]->line);
	}
	return 0;
}

static int parse_node(struct loader *l, yaml_event_t *ev,
		      struct ynode **out)
{
	int line = (int)ev->start_mark.line + 1;
	int col = (int)ev->start_mark.column + 1;
	struct ynode *n = NULL;
	const char *anchor = NULL;
	int rc;

	switch (ev->type) {
	case YAML_ALIAS_EVENT:
		return loader_error(l, line, col, "aliases are not supported");
	case YAML_SCALAR_EVENT:
		anchor = (const char *)ev->data.scalar.anchor;
		break;
	case YAML_SEQUENCE_START_EVENT:
		anchor = (const char *)ev->data.sequence_start.anchor;
		break;
	case YAML_MAPPING_START_EVENT:
		anchor = (const char *)ev->data.mapping_start.anchor;
		break;
	default:
		return loader_error(l, line, col, "unexpected YAML event");
	}
	if (anchor)
		return loader_error(l, line, col, "anchors are not supported");
	if (odd_tag(ev))
		return loader_error(l, line, col, "tag '%s' is not supported",
				    odd_tag(ev));
	if (ev->type == YAML_SCALAR_EVENT) {
		n = new_node(YNODE_SCALAR, ev);
		n->value = xstrndup((const char *)ev->data.scalar.value,
				    ev->data.scalar.length);
		if (strlen(n->value) != ev->data.scalar.length) {
			ynode_free(n);
			return loader_error(l, line, col,
					    "NUL character in a value");
		}
		n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		*out = n;
		return 0;
	}
	if (++l->depth > YNODE_MAX_DEPTH)
		return loader_error(l, line, col, "nesting deeper than %d "
				    "levels", YNODE_MAX_DEPTH);
	n = new_node(ev->type == YAML_SEQUENCE_START_EVENT ? YNODE_SEQ
							   : YNODE_MAP, ev);
	rc = parse_children(l, n, n->kind == YNODE_SEQ ? YAML_SEQUENCE_END_EVENT
						      : YAML_MAPPING_END_EVENT);
	l->depth--;
	if (rc) {
		ynode_free(n);
		return -1;
	}
	*out = n;
	return 0;
}

static int load(struct loader *l, struct ynode **root)
{
	struct ynode *doc = NULL;
	int docs = 0, rc = -1;

	for (;;) {
		yaml_event_t ev;

		if (next_event(l, &ev))
			goto out;
		if (ev.type == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		if (ev.type == YAML_DOCUMENT_START_EVENT && ++docs > 1) {
			loader_error(l, (int)ev.start_mark.line + 1,
				     (int)ev.start_mark.column + 1,
				     "only one YAML document is allowed");
			yaml_event_delete(&ev);
			goto out;
		}
		if (ev.type == YAML_SCALAR_EVENT ||
		    ev.type == YAML_SEQUENCE_START_EVENT ||
		    ev.type == YAML_MAPPING_START_EVENT ||
		    ev.type == YAML_ALIAS_EVENT) {
			int bad = parse_node(l, &ev, &doc);

			yaml_event_delete(&ev);
			if (bad)
				goto out;
			continue;
		}
		yaml_event_delete(&ev);
	}
	/* A document holding only a plain empty scalar is an empty file. */
	if (doc && doc->kind == YNODE_SCALAR && doc->plain && !*doc->value) {
		ynode_free(doc);
		doc = NULL;
	}
	*root = doc;
	doc = NULL;
	rc = 0;
out:
	ynode_free(doc);
	return rc;
}

int ynode_load_string(const char *name, const char *text, size_t len,
		     struct ynode **root, struct err *e)
{
	struct loader l = { name, { 0 }, e, 0, text, len };
	int rc;

	*root = NULL;
	if (len > YNODE_MAX_BYTES)
		return err_set(e, ERR_USAGE, "%s: file is larger than %zu "
			       "bytes", name, YNODE_MAX_BYTES);
	if (memchr(text, '\0', len))
		return err_set(e, ERR_USAGE, "%s: binary data (a NUL byte) "
			       "is not YAML", name);
	if (!yaml_parser_initialize(&l.parser))
		return err_set(e, ERR_INFRA, "cannot initialise the YAML "
			       "parser");
	yaml_parser_set_input_string(&l.parser, (const unsigned char *)text,
				     len);
	rc = load(&l, root);
	yaml_parser_delete(&l.parser);
	return rc;
}

int ynode_load_file(const char *path, struct ynode **root, struct err *e)
{
	struct buf text = BUF_INIT;
	struct err local = ERR_INIT;
	int rc;

	*root = NULL;
	buf_init(&text, YNODE_MAX_BYTES);
	if (buf_read_file(&text, path, &local)) {
		buf_release(&text);
		if (strstr(local.msg, "larger than"))
			return err_set(e, ERR_USAGE, "%s: file is larger than "
				       "%zu bytes", path, YNODE_MAX_BYTES);
		return err_set(e, ERR_USAGE, "%s", local.msg);
	}
	rc = ynode_load_string(path, buf_str(&text), text.len, root, e);
	buf_release(&text);
	return rc;
}

void ynode_free(struct ynode *node)
{
	if (!node)
		return;
	for (size_t i = 0; i < node->n; i++)
		ynode_free(node->items[i]);
	free(node->items);
	free(node->value);
	free(node);
}

size_t ynode_len(const struct ynode *node)
{
	if (!node || node->kind == YNODE_SCALAR)
		return 0;
	return node->kind == YNODE_MAP ? node->n / 2 : node->n;
}

const struct ynode *ynode_get(const struct ynode *map, const char *key)
{
	if (!map || map->kind != YNODE_MAP)
		return NULL;
	for (size_t i = 0; i + 1 < map->n; i += 2)
		if (!strcmp(map->items[i]->value, key))
			return map->items[i + 1];
	return NULL;
}

const char *ynode_kind_name(enum ynode_kind kind)
{
	switch (kind) {
	case YNODE_SCALAR:
		return "a scalar";
	case YNODE_SEQ:
		return "a list";
	case YNODE_MAP:
		return "a mapping";
	}
	return "?";
}

int ynode_error(struct err *e, const char *file, const struct ynode *node,
	       const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vformat(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!node)
		return err_set(e, ERR_USAGE, "%s: %s", file, msg);
	if (node->line < 0)
		return err_set(e, ERR_USAGE, "%s: %s (set by --set)", file,
			       msg);
	return err_set(e, ERR_USAGE, "%s:%d:%d: %s", file, node->line,
		       node->col, msg);
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[65];

	if (la > 64 || lb > 64)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *ynode_suggest(const char *s, const char *const *words)
{
	const char *best = NULL;
	size_t best_d = 3;

	for (; *words; words++) {
		size_t d = edit_distance(s, *words);

		if (d < best_d) {
			best = *words;
			best_d = d;
		}
	}
	return best;
}

int ynode_check_map(const char *file, const struct ynode *node,
		   const char *const *allowed, const char *what,
		   struct err *e)
{
	if (!node || node->kind != YNODE_MAP)
		return ynode_error(e, file, node, "%s must be a mapping, not %s",
				  what, node ? ynode_kind_name(node->kind)
					     : "empty");
	for (size_t i = 0; i < node->n; i += 2) {
		const struct ynode *k = node->items[i];
		const char *const *a;
		const char *hint;

		for (a = allowed; *a; a++)
			if (!strcmp(*a, k->value))
				break;
		if (*a)
			continue;
		hint = ynode_suggest(k->value, allowed);
		if (hint)
			return ynode_error(e, file, k, "unknown key '%s' in %s "
					  "(did you mean '%s'?)", k->value,
					  what, hint);
		return ynode_error(e, file, k, "unknown key '%s' in %s",
				  k->value, what);
	}
	return 0;
}

int ynode_quote(struct buf *out, const char *s, struct err *e)
{
	if (buf_addch(out, '"', e))
		return -1;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		int rc;

		if (c == '"' || c == '\\')
			rc = buf_printf(out, e, "\\%c", c);
		else if (c == '\n')
			rc = buf_addstr(out, "\\n", e);
		else if (c == '\t')
			rc = buf_addstr(out, "\\t", e);
		else if (c < 0x20 || c == 0x7f)
			rc = buf_printf(out, e, "\\x%02x", c);
		/* C1 controls, NEL (U+0085) among them, and U+2028, U+2029
		 * are line breaks or unprintable to YAML: raw, a reader
		 * folds or refuses them. */
		else if (c == 0xc2 && (unsigned char)s[1] >= 0x80 &&
			 (unsigned char)s[1] <= 0x9f)
			rc = buf_printf(out, e, "\\x%02x",
					(unsigned char)*++s);
		else if (c == 0xe2 && (unsigned char)s[1] == 0x80 &&
			 ((unsigned char)s[2] == 0xa8 ||
			  (unsigned char)s[2] == 0xa9)) {
			s += 2;
			rc = buf_addstr(out, (unsigned char)*s == 0xa8 ? "\\L"
					: "\\P", e);
		} else
			rc = buf_addch(out, (char)c, e);
		if (rc)
			return -1;
	}
	return buf_addch(out, '"', e);
}
