#include "histrec.h"

#include <stdio.h>
#include <string.h>

#include "jsonscan.h"

/* ---- one history record ------------------------------------------------ */

static int scan_int(struct json_cursor *c, const char *key, int64_t *out,
		    const char **why)
{
	const uint64_t limit = UINT64_C(1) << 63;	/* -INT64_MIN */
	char *p;
	int integer, neg, over = 0;
	uint64_t v = 0;

	json_skip_ws(c);
	p = c->p;
	neg = p < c->end && *p == '-';
	p += neg;
	/* Digits are read once, as they are checked; anything but a plain
	 * integer goes through scan_number for its message. */
	if (p < c->end && *p == '0') {
		p++;
	} else if (p < c->end && *p >= '1' && *p <= '9') {
		/* Up to 18 digits cannot overflow; checked past them. */
		for (const char *fast = c->end - p > 18 ? p + 18 : c->end;
		     p < fast && *p >= '0' && *p <= '9'; p++)
			v = v * 10 + (unsigned)(*p - '0');
		for (; p < c->end && *p >= '0' && *p <= '9'; p++) {
			unsigned d = (unsigned)(*p - '0');

			if (v < limit / 10 || (v == limit / 10 &&
					       d <= limit % 10))
				v = v * 10 + d;
			else
				over = 1;
		}
	} else {
		return json_scan_number(c, &integer);
	}
	if (p < c->end && (*p == '.' || *p == 'e' || *p == 'E')) {
		if (json_scan_number(c, &integer))
			return -1;
		*why = key;
		return -1;
	}
	c->p = p;
	if (over || (!neg && v > (uint64_t)INT64_MAX)) {
		*why = key;
		return -1;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

/*
 * "process": a worker's number, "nemesis" or "monitor". Any other name,
 * or a number out of range, is named in `bad_str` and the record read on.
 */
static int scan_process(struct json_cursor *c, struct histrec *r,
			const char **bad_int, const char **bad_str)
{
	char *name;

	if (c->p < c->end && *c->p == '"') {
		if (json_scan_string(c, &name))
			return -1;
		if (!strcmp(name, "nemesis"))
			r->proc = PROC_NEMESIS;
		else if (!strcmp(name, "monitor"))
			r->proc = PROC_MONITOR;
		else
			*bad_str = "process";
		return 0;
	}
	if (scan_int(c, "process", &r->process, bad_int))
		return -1;
	if (r->process < 0 || r->process > INT32_MAX)
		*bad_str = "process";
	r->proc = PROC_WORKER;
	return 0;
}

/*
 * The true or false of field `key` ("ddl", "heal") into `out`. Any other
 * value is checked, and `key` named in `bad_str` unless a field is
 * already.
 */
static int scan_bool(struct json_cursor *c, const char *key, int *out,
		     const char **bad_str)
{
	const char *v = c->p;

	if (json_scan_value(c))
		return -1;
	if (c->p - v == 4 && !memcmp(v, "true", 4))
		*out = 1;
	else if (!(c->p - v == 5 && !memcmp(v, "false", 5)) && !*bad_str)
		*bad_str = key;
	return 0;
}

/*
 * The string field `key` into `out`, decoded in place. Any other value
 * is checked, and `key` named in `bad_str` unless a field is already.
 */
static int scan_string_field(struct json_cursor *c, const char *key, char **out,
			     const char **bad_str)
{
	if (c->p < c->end && *c->p == '"')
		return json_scan_string(c, out);
	if (json_scan_value(c))
		return -1;
	if (!*bad_str)
		*bad_str = key;
	return 0;
}

enum field {
	F_NONE, F_OTHER, F_TIME, F_ID, F_FAULT, F_DDL, F_PROCESS, F_TYPE,
	F_F, F_TABLE, F_NODE, F_TARGET, F_ERROR, F_VALUE, F_HOLDS, F_HEAL
};

/*
 * A key of a record as history_format writes it, with its quotes and
 * colon ("time":) at c->p: its field, c->p past the colon. F_NONE, c->p
 * where it was, for anything else (an escape, a space, another key),
 * which the general path reads.
 */
static enum field plain_key(struct json_cursor *c)
{
	const char *p = c->p;
	size_t n = (size_t)(c->end - p);

#define KEY(text, field) do { \
		if (n >= sizeof(text) - 1 && \
		    !memcmp(p, text, sizeof(text) - 1)) { \
			c->p += sizeof(text) - 1; \
			return field; \
		} \
	} while (0)
	if (n < 4 || p[0] != '"')
		return F_NONE;
	switch (p[1]) {
	case 't':
		KEY("\"time\":", F_TIME);
		KEY("\"type\":", F_TYPE);
		KEY("\"table\":", F_TABLE);
		KEY("\"target\":", F_TARGET);
		break;
	case 'p':
		KEY("\"process\":", F_PROCESS);
		break;
	case 'f':
		KEY("\"f\":", F_F);
		KEY("\"fault\":", F_FAULT);
		break;
	case 'i':
		KEY("\"id\":", F_ID);
		break;
	case 'n':
		KEY("\"node\":", F_NODE);
		break;
	case 'v':
		KEY("\"value\":", F_VALUE);
		break;
	case 'e':
		KEY("\"error\":", F_ERROR);
		break;
	case 'd':
		KEY("\"ddl\":", F_DDL);
		break;
	case 'h':
		KEY("\"holds\":", F_HOLDS);
		KEY("\"heal\":", F_HEAL);
		break;
	}
#undef KEY
	return F_NONE;
}

/* The field a key of `len` bytes names. */
static enum field field_of(const char *key, size_t len)
{
#define IS(word) (len == sizeof(word) - 1 && !memcmp(key, word, len))
	switch (key[0]) {
	case 't':
		return IS("time") ? F_TIME : IS("type") ? F_TYPE
		       : IS("table") ? F_TABLE : IS("target") ? F_TARGET
		       : F_OTHER;
	case 'f':
		return len == 1 ? F_F : IS("fault") ? F_FAULT : F_OTHER;
	case 'i':
		return IS("id") ? F_ID : F_OTHER;
	case 'd':
		return IS("ddl") ? F_DDL : F_OTHER;
	case 'h':
		return IS("holds") ? F_HOLDS : IS("heal") ? F_HEAL : F_OTHER;
	case 'p':
		return IS("process") ? F_PROCESS : F_OTHER;
	case 'n':
		return IS("node") ? F_NODE : F_OTHER;
	case 'v':
		return IS("value") ? F_VALUE : F_OTHER;
	case 'e':
		return IS("error") ? F_ERROR : F_OTHER;
	default:
		return F_OTHER;
	}
#undef IS
}

/*
 * The value of field `key`, at c->p, into `r`; the value of a key the
 * record does not know is checked and skipped. -1 on a syntax error
 * (c->why) or a bad integer (c->why unset, its key in `bad_int`).
 */
static int scan_field(struct json_cursor *c, enum field key, struct histrec *r,
		      const char **bad_int, const char **bad_str)
{
	const char *v = c->p;

	switch (key) {
	case F_TIME:
		if (scan_int(c, "time", &r->time, bad_int))
			return -1;
		r->has_time = 1;
		return 0;
	case F_ID:
		if (scan_int(c, "id", &r->id, bad_int))
			return -1;
		r->has_id = 1;
		return 0;
	case F_FAULT:
		if (scan_int(c, "fault", &r->fault, bad_int))
			return -1;
		if ((r->fault < 0 || r->fault > INT32_MAX) && !*bad_str)
			*bad_str = "fault";
		r->has_fault = 1;
		return 0;
	case F_DDL:
		return scan_bool(c, "ddl", &r->ddl, bad_str);
	case F_HEAL:
		return scan_bool(c, "heal", &r->heal, bad_str);
	case F_HOLDS:
		return scan_string_field(c, "holds", &r->holds, bad_str);
	case F_PROCESS:
		return scan_process(c, r, bad_int, bad_str);
	case F_TYPE:
		return scan_string_field(c, "type", &r->type, bad_str);
	case F_F:
		return scan_string_field(c, "f", &r->f, bad_str);
	case F_TABLE:
		return scan_string_field(c, "table", &r->table, bad_str);
	case F_NODE:
		return scan_string_field(c, "node", &r->node, bad_str);
	case F_TARGET:
		return scan_string_field(c, "target", &r->target, bad_str);
	case F_ERROR:
		return scan_string_field(c, "error", &r->error, bad_str);
	case F_VALUE:
		if (json_scan_value(c))
			return -1;
		r->value = v;
		r->value_len = (size_t)(c->p - v);
		return 0;
	default:
		return json_scan_value(c);
	}
}

/* One of the types a record has: invoke, ok, fail, info. */
static int known_type(const char *type)
{
	switch (type[0]) {
	case 'i':
		return !strcmp(type, "invoke") || !strcmp(type, "info");
	case 'o':
		return !strcmp(type, "ok");
	case 'f':
		return !strcmp(type, "fail");
	default:
		return 0;
	}
}

/*
 * What a record read whole must be: no field of the wrong kind, the keys
 * every record has, a known type. On error the message goes into `msg`.
 */
static int check_record(const struct histrec *r, const char *bad_str, char *msg,
			size_t msgsize)
{
	if (bad_str) {
		/* Keys are decoded in place, so name them statically. */
		snprintf(msg, msgsize, "\"%s\" is not %s", bad_str,
			 !strcmp(bad_str, "process")
			 ? "a number, \"nemesis\" or \"monitor\""
			 : !strcmp(bad_str, "ddl") || !strcmp(bad_str, "heal")
			 ? "true or false"
			 : !strcmp(bad_str, "fault") ? "a fault item's index"
			 : "a string");
		return -1;
	}
	if (!r->has_time || !r->proc || !r->type || !r->f) {
		snprintf(msg, msgsize, "no \"%s\"", !r->has_time ? "time" :
			 !r->proc ? "process" : !r->type ? "type" : "f");
		return -1;
	}
	if (!known_type(r->type)) {
		snprintf(msg, msgsize, "unknown type '%.64s'", r->type);
		return -1;
	}
	return 0;
}

/* ---- a line as history_format writes it -------------------------------- */

/* The text `lit` (n bytes) at c->p: c->p past it, 1; else 0. */
static inline int at_text(struct json_cursor *c, const char *lit, size_t n)
{
	if ((size_t)(c->end - c->p) < n || memcmp(c->p, lit, n))
		return 0;
	c->p += n;
	return 1;
}

#define AT(c, lit) at_text(c, lit, sizeof(lit) - 1)

/*
 * A string without escapes at c->p: its text [*s, *end), c->p past its
 * closing quote, the line untouched. -1 for anything else.
 */
static int plain_string(struct json_cursor *c, char **s, char **end)
{
	if (c->p >= c->end || *c->p != '"')
		return -1;
	*s = c->p + 1;
	*end = json_plain_run(*s, c->end);
	if (*end >= c->end || **end != '"')
		return -1;
	c->p = *end + 1;
	return 0;
}

static int written_process(struct json_cursor *c, struct histrec *r)
{
	const char *why = NULL;

	if (AT(c, "\"nemesis\"")) {
		r->proc = PROC_NEMESIS;
		return 0;
	}
	if (AT(c, "\"monitor\"")) {
		r->proc = PROC_MONITOR;
		return 0;
	}
	if (scan_int(c, "process", &r->process, &why) || r->process < 0 ||
	    r->process > INT32_MAX)
		return -1;
	r->proc = PROC_WORKER;
	return 0;
}

/* The optional fields after "f", in history_format's order. */
static int written_rest(struct json_cursor *c, struct histrec *r, char **s,
			char **end)
{
	const char *why = NULL;

	if ((AT(c, ",\"table\":") && plain_string(c, &s[2], &end[2])) ||
	    (AT(c, ",\"node\":") && plain_string(c, &s[3], &end[3])) ||
	    (AT(c, ",\"target\":") && plain_string(c, &s[4], &end[4])))
		return -1;
	if (AT(c, ",\"id\":")) {
		if (scan_int(c, "id", &r->id, &why))
			return -1;
		r->has_id = 1;
	}
	if (AT(c, ",\"error\":") && plain_string(c, &s[5], &end[5]))
		return -1;
	if (AT(c, ",\"value\":")) {
		json_skip_ws(c);
		r->value = c->p;
		if (json_scan_value(c))
			return -1;
		r->value_len = (size_t)(c->p - r->value);
	}
	if (AT(c, ",\"ddl\":true"))
		r->ddl = 1;
	if (AT(c, ",\"holds\":") && plain_string(c, &s[6], &end[6]))
		return -1;
	if (AT(c, ",\"heal\":true"))
		r->heal = 1;
	if (AT(c, ",\"fault\":")) {
		if (scan_int(c, "fault", &r->fault, &why) || r->fault < 0 ||
		    r->fault > INT32_MAX)
			return -1;
		r->has_fault = 1;
	}
	return AT(c, "}") && c->p == c->end ? 0 : -1;
}

/* [s, end) is one of the types a record has. */
static int written_type(const char *s, const char *end)
{
	size_t n = (size_t)(end - s);

	return (n == 6 && !memcmp(s, "invoke", 6)) ||
	       (n == 2 && !memcmp(s, "ok", 2)) ||
	       (n == 4 && (!memcmp(s, "fail", 4) || !memcmp(s, "info", 4)));
}

/*
 * A line exactly as history_format writes it (its keys in its order, no
 * space, strings without escapes), read straight through: 0, `r` filled
 * as histrec_parse fills it. -1, the line untouched, for any other line,
 * which histrec_parse reads the general way (and says what is wrong).
 */
static int parse_written(char *line, size_t len, struct histrec *r)
{
	struct json_cursor c = JSON_CURSOR_INIT(line, len);
	char *s[7] = { NULL }, *end[7] = { NULL };
	char **out[7] = { &r->type, &r->f, &r->table, &r->node, &r->target,
			  &r->error, &r->holds };
	const char *why = NULL;

	if (!AT(&c, "{\"time\":") || scan_int(&c, "time", &r->time, &why) ||
	    !AT(&c, ",\"process\":") || written_process(&c, r) ||
	    !AT(&c, ",\"type\":") || plain_string(&c, &s[0], &end[0]) ||
	    !written_type(s[0], end[0]) ||
	    !AT(&c, ",\"f\":") || plain_string(&c, &s[1], &end[1]) ||
	    written_rest(&c, r, s, end))
		return -1;
	/* Read whole: now the strings are ended where their quotes were. */
	for (int i = 0; i < 7; i++)
		if (s[i]) {
			*end[i] = '\0';
			*out[i] = s[i];
		}
	r->has_time = 1;
	return 0;
}

int histrec_parse(char *line, size_t len, struct histrec *r, char *msg,
		  size_t msgsize, size_t *col)
{
	struct json_cursor c = JSON_CURSOR_INIT(line, len);
	const char *bad_int = NULL, *bad_str = NULL;
	static const struct histrec empty;

	*r = empty;		/* a copy: cheaper here than memset */
	*col = 0;
	if (!parse_written(line, len, r))
		return 0;
	*r = empty;
	json_skip_ws(&c);
	if (c.p >= c.end) {
		snprintf(msg, msgsize, "empty line");
		return -1;
	}
	if (*c.p != '{') {
		json_syntax(&c, "not a JSON object");
		goto syntax;
	}
	c.p++;
	json_skip_ws(&c);
	if (c.p < c.end && *c.p == '}') {
		c.p++;
		goto done;
	}
	for (;;) {
		enum field key;
		char *name;

		json_skip_ws(&c);
		if ((key = plain_key(&c)) == F_NONE) {
			if (json_scan_string(&c, &name))
				goto syntax;
			key = field_of(name, c.len);
			json_skip_ws(&c);
			if (c.p >= c.end || *c.p != ':') {
				json_syntax(&c, "expected ':' after a key");
				goto syntax;
			}
			c.p++;
		}
		json_skip_ws(&c);
		if (scan_field(&c, key, r, &bad_int, &bad_str))
			goto bad;
		json_skip_ws(&c);
		if (c.p < c.end && *c.p == ',') {
			c.p++;
			continue;
		}
		if (c.p < c.end && *c.p == '}') {
			c.p++;
			break;
		}
		json_syntax(&c, "expected ',' or '}'");
		goto syntax;
	}
done:
	json_skip_ws(&c);
	if (c.p < c.end) {
		json_syntax(&c, "text after the object");
		goto syntax;
	}
	return check_record(r, bad_str, msg, msgsize);
syntax:
	snprintf(msg, msgsize, "not JSON: %s", c.why);
	*col = c.col;
	return -1;
bad:
	if (c.why)
		goto syntax;
	snprintf(msg, msgsize, "\"%s\" is not an integer", bad_int);
	return -1;
}
