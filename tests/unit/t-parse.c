/*
 * lib/parse.c: checked integers, durations and rates, formatting
 * durations, well-formed UTF-8, and releases.
 */

#include <string.h>

#include "lib/clock.h"
#include "lib/parse.h"
#include "tests/unit/tap.h"

#define NS_PER_MIN (60 * NS_PER_SEC)
#define NS_PER_HOUR (3600 * NS_PER_SEC)

static void duration_ok(const char *s, int64_t want)
{
	struct err e = ERR_INIT;
	int64_t ns = -42;

	is_int(parse_duration(s, &ns, &e), 0, "duration '%s' parses", s);
	is_int(ns, want, "duration '%s' is %lldns", s, (long long)want);
	if (err_isset(&e))
		diag("unexpected error: %s", e.msg);
}

static void duration_bad(const char *s, const char *want)
{
	struct err e = ERR_INIT;
	int64_t ns = -42;

	is_int(parse_duration(s, &ns, &e), -1, "duration '%s' is rejected",
	       s ? s : "(null)");
	is_str(e.msg, want, "  with the message");
	is_int(e.class, ERR_USAGE, "  as ERR_USAGE");
	is_int(ns, -42, "  and the output untouched");
}

static void test_durations(void)
{
	duration_ok("500ms", 500000000);
	duration_ok("15s", 15 * NS_PER_SEC);
	duration_ok("2m", 2 * NS_PER_MIN);
	duration_ok("1h", NS_PER_HOUR);
	duration_ok("1m30s", 90 * NS_PER_SEC);
	duration_ok("0s", 0);
	duration_ok("0ms", 0);
	duration_ok("1ms", NS_PER_MS);
	duration_ok("1h2m3s4ms", NS_PER_HOUR + 2 * NS_PER_MIN +
		    3 * NS_PER_SEC + 4 * NS_PER_MS);
	duration_ok("90s", 90 * NS_PER_SEC);
	duration_ok("007s", 7 * NS_PER_SEC);
	duration_ok("1000h", 1000 * NS_PER_HOUR);
	duration_ok("999h60m", 1000 * NS_PER_HOUR);
}

static void test_duration_errors(void)
{
	duration_bad("", "empty duration (use e.g. '500ms', '15s', '2m', "
		     "'1h')");
	duration_bad(NULL, "empty duration (use e.g. '500ms', '15s', '2m', "
		     "'1h')");
	duration_bad("15", "invalid duration '15' (missing unit: use ms, s, "
		     "m or h)");
	duration_bad("1m30", "invalid duration '1m30' (missing unit: use ms, "
		     "s, m or h)");
	duration_bad("-1s", "invalid duration '-1s' (use e.g. '500ms', "
		     "'15s', '2m', '1h')");
	duration_bad("1.5s", "invalid duration '1.5s' (use e.g. '500ms', "
		     "'15s', '2m', '1h')");
	duration_bad("10x", "invalid duration '10x' (use e.g. '500ms', "
		     "'15s', '2m', '1h')");
	duration_bad("s", "invalid duration 's' (use e.g. '500ms', '15s', "
		     "'2m', '1h')");
	duration_bad(" 1s", "invalid duration ' 1s' (use e.g. '500ms', "
		     "'15s', '2m', '1h')");
	duration_bad("1s ", "invalid duration '1s ' (use e.g. '500ms', "
		     "'15s', '2m', '1h')");
	duration_bad("1sec", "invalid duration '1sec' (use e.g. '500ms', "
		     "'15s', '2m', '1h')");
	duration_bad("2000h", "duration '2000h' is too long (at most 1000h)");
	duration_bad("1000h1ms", "duration '1000h1ms' is too long (at most "
		     "1000h)");
	duration_bad("99999999999999999999s", "duration "
		     "'99999999999999999999s' is too long (at most 1000h)");
}

static void int_ok(const char *s, int64_t min, int64_t max, int64_t want)
{
	struct err e = ERR_INIT;
	int64_t v = -42;

	is_int(parse_int64(s, min, max, &v, &e), 0, "number '%s' parses", s);
	is_int(v, want, "number '%s' is %lld", s, (long long)want);
	if (err_isset(&e))
		diag("unexpected error: %s", e.msg);
}

static void int_bad(const char *s, int64_t min, int64_t max,
		    const char *want)
{
	struct err e = ERR_INIT;
	int64_t v = -42;

	is_int(parse_int64(s, min, max, &v, &e), -1,
	       "number '%s' in %lld..%lld is rejected", s ? s : "(null)",
	       (long long)min, (long long)max);
	is_str(e.msg, want, "  with the message");
	is_int(e.class, ERR_USAGE, "  as ERR_USAGE");
	is_int(v, -42, "  and the output untouched");
}

static void test_ints(void)
{
	int_ok("0", 0, 10, 0);
	int_ok("7", 1, 8, 7);
	int_ok("1", 1, 8, 1);
	int_ok("8", 1, 8, 8);
	int_ok("-5", -10, 10, -5);
	int_ok("-0", 0, 0, 0);
	int_ok("0010", 0, 100, 10);
	int_ok("9223372036854775807", INT64_MIN, INT64_MAX, INT64_MAX);
	int_ok("-9223372036854775808", INT64_MIN, INT64_MAX, INT64_MIN);

	int_bad("9", 1, 8, "number '9' is out of range (1..8)");
	int_bad("0", 1, 8, "number '0' is out of range (1..8)");
	int_bad("-1", 0, 100, "number '-1' is out of range (0..100)");
	int_bad("9223372036854775808", INT64_MIN, INT64_MAX,
		"number '9223372036854775808' is out of range "
		"(-9223372036854775808..9223372036854775807)");
	int_bad("-99999999999999999999", -5, 5,
		"number '-99999999999999999999' is out of range (-5..5)");

	int_bad("12a", 0, 100, "invalid number '12a'");
	int_bad("", 0, 100, "invalid number ''");
	int_bad(NULL, 0, 100, "invalid number ''");
	int_bad("-", 0, 100, "invalid number '-'");
	int_bad("--1", -5, 5, "invalid number '--1'");
	int_bad("- 1", -5, 5, "invalid number '- 1'");
	int_bad("+1", 0, 100, "invalid number '+1'");
	int_bad(" 1", 0, 100, "invalid number ' 1'");
	int_bad("1 ", 0, 100, "invalid number '1 '");
	int_bad("0x10", 0, 100, "invalid number '0x10'");
	int_bad("1e3", 0, 10000, "invalid number '1e3'");
	int_bad("abc", 0, 100, "invalid number 'abc'");
}

static void rate_ok(const char *s, uint64_t want)
{
	struct err e = ERR_INIT;
	uint64_t bps = 42;

	is_int(parse_rate(s, &bps, &e), 0, "rate '%s' parses", s);
	ok(bps == want, "rate '%s' is %llu bit/s", s,
	   (unsigned long long)want);
	if (err_isset(&e))
		diag("unexpected error: %s", e.msg);
}

static void rate_bad(const char *s, const char *want)
{
	struct err e = ERR_INIT;
	uint64_t bps = 42;

	is_int(parse_rate(s, &bps, &e), -1, "rate '%s' is rejected",
	       s ? s : "(null)");
	is_str(e.msg, want, "  with the message");
	is_int(e.class, ERR_USAGE, "  as ERR_USAGE");
	ok(bps == 42, "  and the output untouched");
}

#define RATE_BAD(s) "invalid rate '" s "' (a whole number and bit, kbit, " \
		    "mbit or gbit: e.g. '500kbit', '1mbit')"

static void test_rates(void)
{
	rate_ok("500kbit", 500000);
	rate_ok("1mbit", 1000000);
	rate_ok("100kbit", 100000);
	rate_ok("1gbit", 1000000000);
	rate_ok("8bit", 8);
	rate_ok("0kbit", 0);
	rate_ok("0010mbit", 10000000);
	rate_ok("1000gbit", UINT64_C(1000000000000));

	rate_bad("1000", RATE_BAD("1000"));
	rate_bad("", RATE_BAD(""));
	rate_bad(NULL, RATE_BAD(""));
	rate_bad("mbit", RATE_BAD("mbit"));
	rate_bad("1.5mbit", RATE_BAD("1.5mbit"));
	rate_bad("-1mbit", RATE_BAD("-1mbit"));
	rate_bad("+1mbit", RATE_BAD("+1mbit"));
	rate_bad("1 mbit", RATE_BAD("1 mbit"));
	rate_bad("1mbit ", RATE_BAD("1mbit "));
	rate_bad("1Mbit", RATE_BAD("1Mbit"));
	rate_bad("1kbps", RATE_BAD("1kbps"));
	rate_bad("1mbitmbit", RATE_BAD("1mbitmbit"));
	rate_bad("1001gbit", "rate '1001gbit' is too high (at most 1000gbit)");
	rate_bad("1000000000001bit", "rate '1000000000001bit' is too high "
		 "(at most 1000gbit)");
	rate_bad("99999999999999999999999kbit", "rate "
		 "'99999999999999999999999kbit' is too high (at most "
		 "1000gbit)");
}

static void round_trip(const char *s)
{
	struct err e = ERR_INIT;
	char out[32];
	int64_t ns = -1;

	parse_duration(s, &ns, &e);
	is_str(format_duration(ns, out, sizeof(out)), s,
	       "format_duration(parse_duration('%s'))", s);
}

static void formats(int64_t ns, const char *want)
{
	char out[32];

	is_str(format_duration(ns, out, sizeof(out)), want,
	       "format_duration(%lld)", (long long)ns);
}

static void test_format(void)
{
	char small[4], *p;

	round_trip("1m30s");
	round_trip("500ms");
	round_trip("0s");
	round_trip("1h");
	round_trip("15s");
	round_trip("2m");
	round_trip("1h2m3s4ms");
	round_trip("1000h");

	formats(90 * NS_PER_SEC, "1m30s");
	formats(NS_PER_HOUR + 1 * NS_PER_SEC, "1h1s");
	formats(1500 * NS_PER_MS, "1s500ms");
	formats(100 * NS_PER_MS, "100ms");
	formats(25 * NS_PER_HOUR, "25h");
	formats(999999, "0s");	/* below a millisecond */

	p = format_duration(90 * NS_PER_SEC, small, sizeof(small));
	ok(p == small, "format_duration returns its buffer");
	is_str(small, "1m3", "a short buffer is truncated, NUL-terminated");
}

static void test_utf8(void)
{
	static const struct {
		const char *s;
		size_t len, want;
		const char *what;
	} cases[] = {
		{ "a", 1, 1, "ASCII" },
		{ "", 0, 0, "nothing" },
		{ "\xc3\xa9", 2, 2, "U+00E9" },
		{ "\xe2\x82\xac", 3, 3, "U+20AC" },
		{ "\xf0\x9f\x92\xa9", 4, 4, "U+1F4A9" },
		{ "\xf4\x8f\xbf\xbf", 4, 4, "U+10FFFF" },
		{ "\xc2\x85", 2, 2, "NEL (U+0085)" },
		{ "\x80", 1, 0, "a stray continuation byte" },
		{ "\xc3", 1, 0, "a cut sequence" },
		{ "\xe2\x82\xac", 2, 0, "a sequence longer than len" },
		{ "\xc3(", 2, 0, "a missing continuation byte" },
		{ "\xc0\xaf", 2, 0, "overlong '/' (2 bytes)" },
		{ "\xe0\x80\xaf", 3, 0, "overlong '/' (3 bytes)" },
		{ "\xf0\x80\x80\xaf", 4, 0, "overlong '/' (4 bytes)" },
		{ "\xed\xa0\x80", 3, 0, "a surrogate (U+D800)" },
		{ "\xf4\x90\x80\x80", 4, 0, "past U+10FFFF" },
		{ "\xff", 1, 0, "0xff" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		is_uint(utf8_len(cases[i].s, cases[i].len), cases[i].want,
			"utf8_len: %s", cases[i].what);
}

static void test_releases(void)
{
	static const struct {
		const char *text;
		int rc, major, minor, patch;
		const char *read;
	} cases[] = {
		{ "v7.5.2", 0, 7, 5, 2, "v7.5.2" },
		{ "1.16.1 tiup", 0, 1, 16, 1, "1.16.1" },
		{ "v8.2.0-alpha-83-g3fff0f2", 0, 8, 2, 0, "v8.2.0" },
		{ "v6.6", 0, 6, 6, -1, "v6.6" },
		{ "v7.5.", 0, 7, 5, -1, "v7.5" },
		{ "v7", -1, -1, -1, -1, "" },
		{ "nightly", -1, -1, -1, -1, "" },
		{ "v-1.2.3", -1, -1, -1, -1, "" },
		{ "", -1, -1, -1, -1, "" },
	};
	struct release r;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		is_int(release_parse(cases[i].text, &r), cases[i].rc,
		       "release '%s' %s", cases[i].text, cases[i].rc ?
		       "is refused" : "parses");
		ok(r.major == cases[i].major && r.minor == cases[i].minor &&
		   r.patch == cases[i].patch, "  as %d.%d.%d", cases[i].major,
		   cases[i].minor, cases[i].patch);
		is_str(r.text, cases[i].read, "  reading '%s'", cases[i].read);
	}
	release_parse("v7.5.2", &r);
	ok(!release_older(&r, 7, 5, 2), "7.5.2 is not older than 7.5.2");
	ok(release_older(&r, 7, 5, 3), "7.5.2 is older than 7.5.3");
	ok(release_older(&r, 7, 6, 0), "7.5.2 is older than 7.6.0");
	ok(release_older(&r, 8, 0, 0), "7.5.2 is older than 8.0.0");
	ok(!release_older(&r, 7, 4, 9), "7.5.2 is not older than 7.4.9");
	release_parse("v6.6", &r);
	ok(!release_older(&r, 6, 6, 0), "6.6 (no patch) is not older than "
	   "6.6.0");
	ok(release_older(&r, 6, 6, 1), "6.6 (no patch) is older than 6.6.1");
	release_parse("nightly", &r);
	ok(!release_older(&r, 99, 0, 0), "an unknown release is older than "
	   "nothing");
	release_parse("v8.1.0-alpha-83-g3fff0f2529", &r);
	is_int(r.pre, 1, "v8.1.0-alpha-83-g...: a build before v8.1.0");
	release_parse("v8.1.0-BETA.1", &r);
	is_int(r.pre, 1, "-BETA.1: before it too");
	release_parse("v8.1.0-rc.2", &r);
	is_int(r.pre, 1, "-rc.2: before it too");
	release_parse("v7.5.1-20-gabc", &r);
	is_int(r.pre, 0, "v7.5.1-20-g...: a build past the tag");
	release_parse("v8.5.4-nextgen.202510.5-257", &r);
	is_int(r.pre, 0, "v8.5.4-nextgen...: a flavour, not before it");
	release_parse("v7.5.2", &r);
	is_int(r.pre, 0, "v7.5.2: the release");
}

static void test_list_has(void)
{
	ok(list_has("rw,net_cls,nosuid", ',', "net_cls"), "an item in the middle");
	ok(list_has("net_cls", ',', "net_cls"), "the only item");
	ok(list_has("cpu,net_cls", ',', "net_cls"), "the last item");
	ok(!list_has("rw,net_cls,nosuid", ',', "net"), "a prefix of an item is not one");
	ok(!list_has("rw,net_cls_x", ',', "net_cls"), "an item it is a prefix of is not it");
	ok(!list_has("", ',', "net_cls"), "an empty list holds no word");
	ok(list_has("a,,b", ',', ""), "an empty item matches an empty word");
	ok(list_has("a:b", ':', "b"), "another separator");
}

int main(void)
{
	test_durations();
	test_duration_errors();
	test_ints();
	test_rates();
	test_format();
	test_utf8();
	test_releases();
	test_list_has();
	return done_testing();
}
