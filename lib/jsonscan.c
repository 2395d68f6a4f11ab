#include "jsonscan.h"

int json_syntax(struct json_cursor *c, const char *why)
{
	if (!c->why) {
		c->why = why;
		c->col = (size_t)(c->p - c->start) + 1;
	}
	return -1;
}

static int hex4(const char *p, unsigned *out)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		char ch = p[i];

		v <<= 4;
		if (ch >= '0' && ch <= '9')
			v |= (unsigned)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			v |= (unsigned)(ch - 'a' + 10);
		else if (ch >= 'A' && ch <= 'F')
			v |= (unsigned)(ch - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static char *put_utf8(char *w, unsigned cp)
{
	if (cp < 0x80) {
		*w++ = (char)cp;
	} else if (cp < 0x800) {
		*w++ = (char)(0xc0 | (cp >> 6));
		*w++ = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*w++ = (char)(0xe0 | (cp >> 12));
		*w++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*w++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*w++ = (char)(0xf0 | (cp >> 18));
		*w++ = (char)(0x80 | ((cp >> 12) & 0x3f));
		*w++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*w++ = (char)(0x80 | (cp & 0x3f));
	}
	return w;
}

/*
 * The rest of a string from c->p, which is no plain byte, on: escapes
 * decoded (to `s`'s text so far, when `out`), control characters refused.
 */
static int scan_escaped(struct json_cursor *c, char **out, char *s)
{
	char *w = c->p;

	while (c->p < c->end) {
		unsigned char ch = (unsigned char)*c->p;
		unsigned cp, lo;

		if (ch == '"') {
			c->p++;
			if (out) {
				*w = '\0';
				*out = s;
				c->len = (size_t)(w - s);
			}
			return 0;
		}
		if (ch < 0x20)
			return json_syntax(c, "control character in a string");
		if (ch != '\\') {
			if (out)
				*w = (char)ch;
			w++;
			c->p++;
			continue;
		}
		if (c->end - c->p < 2)
			return json_syntax(c, "unterminated string");
		switch (c->p[1]) {
		case '"': case '\\': case '/':
			cp = (unsigned char)c->p[1];
			break;
		case 'b': cp = '\b'; break;
		case 'f': cp = '\f'; break;
		case 'n': cp = '\n'; break;
		case 'r': cp = '\r'; break;
		case 't': cp = '\t'; break;
		case 'u':
			if (c->end - c->p < 6 || hex4(c->p + 2, &cp))
				return json_syntax(c, "invalid \\u escape");
			if (cp >= 0xdc00 && cp <= 0xdfff)
				return json_syntax(c, "invalid \\u escape");
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (c->end - c->p < 12 || c->p[6] != '\\' ||
				    c->p[7] != 'u' || hex4(c->p + 8, &lo) ||
				    lo < 0xdc00 || lo > 0xdfff)
					return json_syntax(c,
						"invalid \\u escape");
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				     (lo - 0xdc00);
				c->p += 6;
			}
			c->p += 4;
			break;
		default:
			return json_syntax(c, "invalid escape in a string");
		}
		c->p += 2;
		if (out) {
			w = put_utf8(w, cp);
		} else {
			w++;
		}
	}
	return json_syntax(c, "unterminated string");
}

int json_scan_string(struct json_cursor *c, char **out)
{
	char *s, *w;

	if (c->p >= c->end || *c->p != '"')
		return json_syntax(c, "expected a string");
	s = ++c->p;
	w = json_plain_run(s, c->end);
	if (w < c->end && *w == '"') {
		c->p = w + 1;
		if (out) {
			*w = '\0';
			*out = s;
			c->len = (size_t)(w - s);
		}
		return 0;
	}
	c->p = w;
	return scan_escaped(c, out, s);
}

static int is_digit(const struct json_cursor *c)
{
	return c->p < c->end && *c->p >= '0' && *c->p <= '9';
}

int json_scan_number(struct json_cursor *c, int *integer)
{
	*integer = 1;
	if (c->p < c->end && *c->p == '-')
		c->p++;
	if (!is_digit(c))
		return json_syntax(c, "expected a value");
	if (*c->p == '0')
		c->p++;
	else
		while (is_digit(c))
			c->p++;
	if (c->p < c->end && *c->p == '.') {
		c->p++;
		*integer = 0;
		if (!is_digit(c))
			return json_syntax(c, "invalid number");
		while (is_digit(c))
			c->p++;
	}
	if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
		c->p++;
		*integer = 0;
		if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
			c->p++;
		if (!is_digit(c))
			return json_syntax(c, "invalid number");
		while (is_digit(c))
			c->p++;
	}
	return 0;
}

static int scan_literal(struct json_cursor *c, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n))
		return json_syntax(c, "expected a value");
	c->p += n;
	return 0;
}

int json_scan_value(struct json_cursor *c)
{
	int integer;
	char close;

	json_skip_ws(c);
	if (c->p >= c->end)
		return json_syntax(c, "expected a value");
	switch (*c->p) {
	case '"':
		return json_scan_string(c, NULL);
	case 't':
		return scan_literal(c, "true");
	case 'f':
		return scan_literal(c, "false");
	case 'n':
		return scan_literal(c, "null");
	case '{':
	case '[':
		break;
	default:
		return json_scan_number(c, &integer);
	}
	close = *c->p == '{' ? '}' : ']';
	if (++c->depth > JSON_MAX_DEPTH)
		return json_syntax(c, "nested too deeply");
	c->p++;
	json_skip_ws(c);
	if (c->p < c->end && *c->p == close) {
		c->p++;
		c->depth--;
		return 0;
	}
	for (;;) {
		if (close == '}') {
			json_skip_ws(c);
			if (json_scan_string(c, NULL))
				return -1;
			json_skip_ws(c);
			if (c->p >= c->end || *c->p != ':')
				return json_syntax(c,
					"expected ':' after a key");
			c->p++;
		}
		if (json_scan_value(c))
			return -1;
		json_skip_ws(c);
		if (c->p < c->end && *c->p == ',') {
			c->p++;
			continue;
		}
		if (c->p < c->end && *c->p == close) {
			c->p++;
			c->depth--;
			return 0;
		}
		return json_syntax(c, close == '}' ? "expected ',' or '}'"
					      : "expected ',' or ']'");
	}
}
