#ifndef TICHAOS_PARSE_H
#define TICHAOS_PARSE_H

/*
 * Checked conversions of user text: integers, durations, rates and
 * releases. Messages name the offending text and say what was expected;
 * the caller prefixes the location (an option name, a file:line:col).
 */

#include <stdint.h>

#include "err.h"

/*
 * A decimal integer in [min, max], nothing before or after it.
 * Errors (ERR_USAGE): "invalid number 'x'", "number '9' is out of range
 * (1..8)".
 */
int parse_int64(const char *s, int64_t min, int64_t max, int64_t *out,
		struct err *e);

/*
 * A duration: one or more <digits><unit> with unit ms, s, m or h, e.g.
 * "500ms", "15s", "2m", "1h", "1m30s". Stored as nanoseconds. Anything
 * else fails with ERR_USAGE: a bare number, a negative or fractional
 * value, an unknown unit, or a total over 1000 hours.
 */
int parse_duration(const char *s, int64_t *ns, struct err *e);

/*
 * A rate in bits per second: a whole number and one of tc's units bit,
 * kbit, mbit or gbit (1000 apart, as tc counts them), e.g. "500kbit",
 * "1mbit". Anything else fails with ERR_USAGE: no unit, another unit
 * (bytes: kbps), a fraction, a sign, spaces, or over 1000gbit.
 */
int parse_rate(const char *s, uint64_t *bps, struct err *e);

/*
 * Write a duration in the shortest exact form parse_duration accepts
 * ("1m30s", "500ms", "0s"). Returns `out`.
 */
char *format_duration(int64_t ns, char *out, int size);

/* A release, as a server or tool says its version. */
struct release {
	int major, minor, patch;	/* -1 when the text does not say */
	int pre;		/* 1: a build before that release ("-alpha") */
	char text[64];		/* the version as it was written */
};

/*
 * The release `text` starts with: "v7.5.2" or "1.16.1" (the "v" may be
 * left out, the patch too, and what follows it is ignored: "v8.2.0-alpha"
 * is 8.2.0). A "-alpha", "-beta" or "-rc" right after the numbers marks a
 * build from before that release (pre 1: TiDB's master between releases
 * says "v8.1.0-alpha-83-g3fff0f2529"); any other suffix ("v7.5.1-20-g...",
 * a build past the tag) leaves pre 0. Fills *out, text the part read
 * ("v7.5.2"); 0, or -1 (major -1) when `text` does not start with one.
 */
int release_parse(const char *text, struct release *out);

/* 1 when `r` is known and older than major.minor.patch (a patch `r` does
 * not say counts as 0). */
int release_older(const struct release *r, int major, int minor, int patch);

/*
 * Whether `word` is one of the items of `list` separated by `sep`
 * ("rw,net_cls,nosuid" holds "net_cls", not "net"). An empty item
 * matches an empty word.
 */
int list_has(const char *list, int sep, const char *word);

/*
 * The length (1 to 4) of the well-formed UTF-8 character at `s`, of at most
 * `len` bytes; 0 when the bytes there are not one (RFC 3629: a stray or
 * missing continuation byte, an overlong form, a surrogate, beyond
 * U+10FFFF) or len is 0. Text bound for JSON must be well-formed.
 */
size_t utf8_len(const char *s, size_t len);

#endif
