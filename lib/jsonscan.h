#ifndef TICHAOS_JSONSCAN_H
#define TICHAOS_JSONSCAN_H

/*
 * A validating JSON scanner over text it may write to, decoding strings
 * in place: the history's reader checks every line with it, as JSON
 * whole, and decodes the strings of the record where they are, with no
 * copy (lib/histrec.h).
 *
 * What is checked is JSON's syntax: strings (their escapes, no control
 * character unescaped), numbers, true, false, null, arrays and objects
 * nested up to JSON_MAX_DEPTH. The encoding is not: bytes from 0x80 up
 * are taken as they are, well-formed UTF-8 or not (json_quote,
 * lib/history.h, writes none that is not).
 *
 * A function reads one value at c->p and leaves c->p after it; what
 * follows it (a ',', a '}', the end of the text) is the caller's to
 * check. It returns 0, or -1 with the error said in the cursor.
 */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* How deep arrays and objects may nest. */
#define JSON_MAX_DEPTH 64

struct json_cursor {
	char *p, *start, *end;	/* where it is in the text [start, end) */
	/* The first error ("expected ',' or '}'") and its column from 1,
	 * kept: a later error leaves both as they are. NULL: none. */
	const char *why;
	size_t col;
	int depth;		/* of the arrays and objects it is in */
	size_t len;		/* of the last string decoded */
};

/* A cursor at the start of the `len` bytes of `text` (no NUL needed). */
#define JSON_CURSOR_INIT(text, len) \
	{ (text), (text), (text) + (len), NULL, 0, 0, 0 }

/*
 * Say the error `why` (a string that lives on: a literal) at c->p,
 * unless an error is said already. Returns -1.
 */
int json_syntax(struct json_cursor *c, const char *why);

/* Past the white space JSON allows (space, tab, CR, LF). */
static inline void json_skip_ws(struct json_cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' ||
				 *c->p == '\r' || *c->p == '\n'))
		c->p++;
}

/* Where the bytes of a string from `p` stop being plain: not '"', '\\'
 * or a control character. Most strings hold no escape, so their end is
 * found without moving a byte; eight bytes are looked at at once. */
static inline char *json_plain_run(char *p, const char *end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101ULL;
	const uint64_t high = 0x8080808080808080ULL;

	for (; end - p >= 8; p += 8) {
		uint64_t x, quote, slash, hit;

		memcpy(&x, p, 8);
		quote = x ^ (ones * '"');
		slash = x ^ (ones * '\\');
		/* The high bit of each byte that is '"', '\\' or below
		 * 0x20; the lowest one set is exact (borrows only go up). */
		hit = ((quote - ones) & ~quote) | ((slash - ones) & ~slash) |
		      ((x - ones * 0x20) & ~x);
		if (hit & high)
			return p + __builtin_ctzll(hit & high) / 8;
	}
#endif
	while (p < end && (unsigned char)*p >= 0x20 && *p != '"' &&
	       *p != '\\')
		p++;
	return p;
}

/*
 * A string at c->p (no white space before it). With `out`, decoded in
 * place (never longer than its text) and NUL-terminated, its length in
 * c->len; without, only checked, the text untouched. Decoded, the text
 * is written over from the string's first byte up to its closing quote
 * at most, also when it turns out bad; a \u0000 decodes to a NUL within
 * c->len.
 */
int json_scan_string(struct json_cursor *c, char **out);

/* A number at c->p; `integer` says whether it had no fraction/exponent. */
int json_scan_number(struct json_cursor *c, int *integer);

/*
 * Any value at c->p (white space before it skipped), checked, left as it
 * is: its strings are not decoded.
 */
int json_scan_value(struct json_cursor *c);

#endif
