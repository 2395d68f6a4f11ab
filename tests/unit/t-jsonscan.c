/* lib/jsonscan.c: JSON checked whole, strings decoded where they are. */

#include <stdio.h>
#include <string.h>

#include "lib/jsonscan.h"
#include "tests/unit/tap.h"

/* A copy of a text that the scanner may write to, and a cursor on it. */
struct scan {
	char text[512];
	struct json_cursor c;
};

static void scan_init(struct scan *s, const char *text)
{
	snprintf(s->text, sizeof(s->text), "%s", text);
	s->c = (struct json_cursor)JSON_CURSOR_INIT(s->text, strlen(s->text));
}

/* What the cursor says after a scan that returned `rc`: "ok N", N where
 * it stopped, or "COL: WHY". */
static const char *said(const struct scan *s, int rc)
{
	static char text[160];

	if (rc)
		snprintf(text, sizeof(text), "%zu: %s", s->c.col,
			 s->c.why ? s->c.why : "(no message)");
	else
		snprintf(text, sizeof(text), "ok %zu",
			 (size_t)(s->c.p - s->text));
	return text;
}

/* json_scan_value on `text`. */
static const char *value(const char *text)
{
	struct scan s;

	scan_init(&s, text);
	return said(&s, json_scan_value(&s.c));
}

/* json_scan_string on `text`, decoding: "ok" and its text as decoded
 * into *out (of *len bytes), or what went wrong. */
static const char *decode(struct scan *s, const char *text, char **out)
{
	int rc;

	scan_init(s, text);
	*out = NULL;
	rc = json_scan_string(&s->c, out);
	return rc ? said(s, rc) : "ok";
}

static void test_values(void)
{
	static const char text[] = "{\"a\":1,\"b\":[true,false,null],\"c\":"
				   "{\"d\":\"e\\n\"},\"f\":-0.5e+3,\"g\":[]}";
	struct scan s;

	is_str(value(text), "ok 64", "an object of every kind of value");
	is_str(value(" \t\r\n{ \"a\" : [ 1 , 2 ] , \"b\" : { } }  "),
	       "ok 35", "white space around every token, none after it");
	is_str(value("\"\""), "ok 2", "the empty string");
	is_str(value("0"), "ok 1", "zero");
	is_str(value("null"), "ok 4", "null");
	scan_init(&s, text);
	is_int(json_scan_value(&s.c), 0, "scanned");
	is_str(s.text, text, "a value is left as it was: \\n not decoded");
	is_int(s.c.depth, 0, "and the depth is back at 0");
	ok(!s.c.why, "no error said");
}

static void test_strings(void)
{
	struct scan s;
	char *out;

	is_str(decode(&s, "\"plain text\"", &out), "ok", "plain: read");
	ok(out == s.text + 1, "plain: where it was");
	is_str(out, "plain text", "plain: NUL-terminated");
	is_uint(s.c.len, 10, "plain: its length");
	is_uint((size_t)(s.c.p - s.text), 12, "plain: past its quote");

	is_str(decode(&s, "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\" rest", &out),
	       "ok", "escapes: read");
	ok(out == s.text + 1, "escapes: decoded in place");
	is_str(out, "a\"b\\c/d\b\f\n\r\t", "escapes: every one decoded");
	is_uint(s.c.len, 12, "escapes: the decoded length");
	is_str(s.c.p, " rest", "escapes: past the quote, the rest as it was");

	decode(&s, "\"\\u00e9\\u00C9\\u20ac\\u0041\"", &out);
	is_str(out, "\xc3\xa9\xc3\x89\xe2\x82\xac" "A",
	       "\\u: to UTF-8 of 2 and 3 bytes and 1, hex of either case");
	is_uint(s.c.len, 8, "\\u: the decoded length");
	decode(&s, "\"x\\ud83d\\ude00y\"", &out);
	is_str(out, "x\xf0\x9f\x98\x80y", "a surrogate pair: one code point");
	is_uint(s.c.len, 6, "a surrogate pair: 4 bytes");
	is_str(decode(&s, "\"a\\u0000b\"", &out), "ok", "\\u0000: read");
	ok(s.c.len == 3 && !memcmp(out, "a\0b", 4),
	   "\\u0000: a NUL within the length");

	is_str(decode(&s, "\"\xff\xfe caf\xc3\"", &out), "ok",
	       "bytes that are no UTF-8: taken");
	is_str(out, "\xff\xfe caf\xc3", "bytes that are no UTF-8: as they are");
	decode(&s, "\"\xe9t\xe9\\t\"", &out);
	is_str(out, "\xe9t\xe9\t", "and before an escape");

	scan_init(&s, "\"a\\nb\"");
	is_int(json_scan_string(&s.c, NULL), 0, "checked only: read");
	is_str(s.text, "\"a\\nb\"", "checked only: the text untouched");
	is_uint((size_t)(s.c.p - s.text), 6, "checked only: past its quote");
}

/* Strings of every length around the eight bytes looked at at once,
 * ended or broken at each place. */
static void test_string_runs(void)
{
	int right = 1, broken = 1, wide = 1;

	for (size_t n = 0; n < 24; n++) {
		char want[32], text[sizeof(want) + 16], bad[64];
		struct scan s;
		char *out;

		memset(want, 'x', n);
		want[n] = '\0';
		snprintf(text, sizeof(text), "\"%s\"", want);
		if (strcmp(decode(&s, text, &out), "ok") || s.c.len != n ||
		    strcmp(out, want))
			right = 0;
		snprintf(text, sizeof(text), "\"%s\x01xxxxxxxx\"", want);
		snprintf(bad, sizeof(bad), "%zu: control character in a "
			 "string", n + 2);
		if (strcmp(decode(&s, text, &out), bad))
			broken = 0;
		snprintf(text, sizeof(text), "\"%s\xe2\x82\xac\\n\"", want);
		if (strcmp(decode(&s, text, &out), "ok") ||
		    s.c.len != n + 4 || memcmp(out + n, "\xe2\x82\xac\n", 5))
			wide = 0;
	}
	ok(right, "lengths 0 to 23: each read whole");
	ok(broken, "a control character after 0 to 23 bytes: its column");
	ok(wide, "bytes from 0x80 up are plain, at every place");
}

/* A text, what a scan of it says, and the test's name. */
struct said_case {
	const char *text, *said, *name;
};

static void check_cases(const struct said_case *cases, size_t n,
			const char *(*scan)(const char *text))
{
	for (size_t i = 0; i < n; i++)
		is_str(scan(cases[i].text), cases[i].said, "%s",
		       cases[i].name);
}

/* json_scan_string on `text`, decoding; no string handed out on an
 * error. */
static const char *bad_string(const char *text)
{
	struct scan s;
	char *out;
	const char *rc = decode(&s, text, &out);

	return out ? "a string handed out" : rc;
}

static void test_bad_strings(void)
{
	static const struct said_case cases[] = {
		{ "\"a\tb\"", "3: control character in a string",
		  "a tab not escaped" },
		{ "\"abc", "5: unterminated string", "no closing quote" },
		{ "\"ab\\n", "6: unterminated string",
		  "no closing quote after an escape" },
		{ "\"ab\\", "4: unterminated string", "a backslash last" },
		{ "\"\\x\"", "2: invalid escape in a string",
		  "an escape JSON has not" },
		{ "\"\\u12g4\"", "2: invalid \\u escape",
		  "\\u: a byte that is no hex digit" },
		{ "\"\\u12\"", "2: invalid \\u escape",
		  "\\u: fewer than four digits" },
		{ "\"ab\\ud83d\"", "4: invalid \\u escape",
		  "a high surrogate alone" },
		{ "\"\\ude00\"", "2: invalid \\u escape",
		  "a low surrogate alone" },
		{ "\"\\ud83d\\u0041\"", "2: invalid \\u escape",
		  "a high surrogate before no low one" },
		{ "x", "1: expected a string", "no quote" },
	};

	check_cases(cases, sizeof(cases) / sizeof(cases[0]), bad_string);
}

static void test_numbers(void)
{
	static const struct {
		const char *text;
		int integer;
		const char *said;
	} cases[] = {
		{ "12", 1, "ok 2" },
		{ "-0", 1, "ok 2" },
		{ "1.5", 0, "ok 3" },
		{ "1e3", 0, "ok 3" },
		{ "-2.5E-3", 0, "ok 7" },
		{ "01", 1, "ok 1" },
		{ "-", 1, "2: expected a value" },
		{ ".5", 1, "1: expected a value" },
		{ "1.", 0, "3: invalid number" },
		{ "1.e3", 0, "3: invalid number" },
		{ "1e", 0, "3: invalid number" },
		{ "1e+", 0, "4: invalid number" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct scan s;
		int integer = -1, rc;

		scan_init(&s, cases[i].text);
		rc = json_scan_number(&s.c, &integer);
		is_str(said(&s, rc), cases[i].said, "number '%s'",
		       cases[i].text);
		is_int(integer, cases[i].integer, "number '%s': %s",
		       cases[i].text, cases[i].integer ? "an integer"
		       : "no integer");
	}
}

/* What comes after a value is the caller's; within one, it is an error. */
static void test_syntax(void)
{
	static const struct said_case cases[] = {
		{ "{\"a\":1} x", "ok 7", "text after a value: left" },
		{ "truex", "ok 4", "a literal, then text: left" },
		{ "[01]", "3: expected ',' or ']'",
		  "a leading zero: the digit after it is no value's" },
		{ "{\"a\":1 x}", "8: expected ',' or '}'",
		  "text within an object" },
		{ "[1 2]", "4: expected ',' or ']'", "text within an array" },
		{ "{\"a\" 1}", "6: expected ':' after a key", "no colon" },
		{ "{1:2}", "2: expected a string", "a key that is no string" },
		{ "{\"a\":1,}", "8: expected a string", "a comma last" },
		{ "[1,]", "4: expected a value", "a comma last in an array" },
		{ "[1", "3: expected ',' or ']'", "an array not closed" },
		{ "", "1: expected a value", "nothing" },
		{ "  ", "3: expected a value", "white space only" },
		{ "tru", "1: expected a value", "a literal cut short" },
		{ "nil", "1: expected a value", "no literal" },
		{ "{\"a\":\"b\nc\"}", "8: control character in a string",
		  "a string's error within an object" },
	};

	check_cases(cases, sizeof(cases) / sizeof(cases[0]), value);
}

static void test_depth(void)
{
	char deep[2 * (JSON_MAX_DEPTH + 1) + 1], objects[400];
	size_t n = 0;

	for (int i = 0; i < JSON_MAX_DEPTH; i++)
		deep[n++] = '[';
	for (int i = 0; i < JSON_MAX_DEPTH; i++)
		deep[n++] = ']';
	deep[n] = '\0';
	is_str(value(deep), "ok 128", "arrays 64 deep");
	memmove(deep + 1, deep, n + 1);
	deep[0] = '[';
	deep[n + 1] = ']';
	deep[n + 2] = '\0';
	is_str(value(deep), "65: nested too deeply", "arrays 65 deep");
	n = 0;
	for (int i = 0; i <= JSON_MAX_DEPTH; i++)
		n += (size_t)snprintf(objects + n, sizeof(objects) - n,
				      "{\"a\":");
	snprintf(objects + n, sizeof(objects) - n, "1");
	is_str(value(objects), "321: nested too deeply", "objects 65 deep");
}

static void test_cursor(void)
{
	char text[] = "123456 \"ab\"";
	struct json_cursor c = JSON_CURSOR_INIT(text, 3);
	int integer;

	is_int(json_scan_number(&c, &integer), 0, "a cursor on 3 bytes");
	ok(c.p == text + 3, "reads no byte past them");
	c = (struct json_cursor)JSON_CURSOR_INIT(text + 7, 3);
	is_int(json_scan_string(&c, NULL), -1, "a string past the end");
	is_str(c.why, "unterminated string", "is unterminated");
	is_uint(c.col, 4, "at the end");
	is_int(json_syntax(&c, "another"), -1, "a second error: -1");
	is_str(c.why, "unterminated string", "the first one is kept");
	is_uint(c.col, 4, "with its column");
	c = (struct json_cursor)JSON_CURSOR_INIT(text, sizeof(text) - 1);
	c.p = text + 6;
	json_skip_ws(&c);
	ok(c.p == text + 7, "white space skipped");
	json_skip_ws(&c);
	ok(c.p == text + 7, "and nothing else");
}

int main(void)
{
	test_values();
	test_strings();
	test_string_runs();
	test_bad_strings();
	test_numbers();
	test_syntax();
	test_depth();
	test_cursor();
	return done_testing();
}
