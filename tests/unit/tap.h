#ifndef TICHAOS_TAP_H
#define TICHAOS_TAP_H

/*
 * A tiny TAP producer for the C unit tests, header-only: each test is one
 * .c file that includes this and returns exit_status() (or done_testing())
 * from main().
 *
 *	plan(3);			or done_testing() at the end
 *	ok(x > 0, "x is positive");
 *	is_int(n, 3, "three rows");
 *	is_str(buf_str(&b), "abc", "contents");
 *	if (!have_thing)
 *		skip(2, "no thing here");	a failure under CI=true
 *	skip_build(1, "not with ASan");	a skip everywhere
 *	diag("seed %llu", seed);
 *	return exit_status();
 *
 * Test lines go to stdout; diagnostics ("# ...") go to stderr, as with
 * Test::More, so that `prove` shows why a test failed without -v. The
 * check functions return non-zero when the check passed, so a test can
 * skip what depends on it.
 *
 * Names are printf formats. A '#' in a name is escaped so that TAP does
 * not read it as a directive.
 *
 * The functions are `static inline` so that a test using only some of
 * them compiles without unused-function warnings.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_planned = -1;	/* -1: no plan yet */
static int tap_count;
static int tap_failed;

/* Print "1..n" before the first test. */
static inline void plan(int n)
{
	tap_planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

/* Write `s` (at most `len` bytes) so that it stays on one line. */
static inline void tap_put_escaped(FILE *f, const char *s, size_t len)
{
	for (size_t i = 0; i < len && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\n')
			fputs("\\n", f);
		else if (c == '\r')
			fputs("\\r", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c == '\\')
			fputs("\\\\", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

static inline void tap_vdiag(const char *fmt, va_list ap)
{
	char text[4096];
	const char *p = text;

	vsnprintf(text, sizeof(text), fmt, ap);
	fflush(stdout);
	do {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		fprintf(stderr, "# %.*s\n", (int)len, p);
		p = nl ? nl + 1 : NULL;
	} while (p && *p);
	fflush(stderr);
}

/* A diagnostic: "# " and the message, on stderr. */
__attribute__((format(printf, 1, 2)))
static inline void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vdiag(fmt, ap);
	va_end(ap);
}

/*
 * With TICHAOS_TEST_FAILURES set (a directory; .ci/run sets it), a
 * failed test's line is also appended to DIR/<program>.log, which CI
 * prints after prove's summary, where the tail of a long log shows it.
 */
static inline void tap_keep_failure(int n, const char *name, const char *file,
				    int line)
{
	const char *dir = getenv("TICHAOS_TEST_FAILURES");
	char path[4096];
	FILE *f;

	if (!dir || !*dir)
		return;
	snprintf(path, sizeof(path), "%s/%s.log", dir,
		 program_invocation_short_name);
	f = fopen(path, "a");
	if (!f)
		return;
	fprintf(f, "%s: not ok %d - %s\n#   at %s line %d\n",
		program_invocation_short_name, n, name, file, line);
	fclose(f);
}

static inline int tap_vresult(int pass, const char *file, int line,
			      const char *fmt, va_list ap)
{
	char name[1024];

	vsnprintf(name, sizeof(name), fmt, ap);
	tap_count++;
	printf("%sok %d", pass ? "" : "not ", tap_count);
	if (*name) {
		fputs(" - ", stdout);
		for (const char *p = name; *p; p++) {
			if (*p == '#')
				fputs("\\#", stdout);
			else if (*p == '\n')
				fputc(' ', stdout);
			else
				fputc(*p, stdout);
		}
	}
	fputc('\n', stdout);
	fflush(stdout);
	if (!pass) {
		tap_failed++;
		diag("  Failed test '%s'\n  at %s line %d.", name, file, line);
		tap_keep_failure(tap_count, name, file, line);
	}
	return pass;
}

__attribute__((format(printf, 4, 5)))
static inline int tap_ok(int pass, const char *file, int line,
			 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(pass, file, line, fmt, ap);
	va_end(ap);
	return pass;
}

__attribute__((format(printf, 5, 6)))
static inline int tap_is_int(intmax_t got, intmax_t expected,
			     const char *file, int line, const char *fmt, ...)
{
	int pass = got == expected;
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass)
		diag("       got: %jd\n  expected: %jd", got, expected);
	return pass;
}

__attribute__((format(printf, 5, 6)))
static inline int tap_is_uint(uintmax_t got, uintmax_t expected,
			      const char *file, int line, const char *fmt, ...)
{
	int pass = got == expected;
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass)
		diag("       got: %ju (0x%jx)\n  expected: %ju (0x%jx)", got,
		     got, expected, expected);
	return pass;
}

/* Long strings are shown from a little before `from`, up to TAP_SHOW bytes. */
#define TAP_SHOW 160

static inline void tap_diag_str(const char *label, const char *s, size_t from)
{
	size_t len, start = 0;

	fprintf(stderr, "# %10s: ", label);
	if (!s) {
		fputs("NULL\n", stderr);
		return;
	}
	len = strlen(s);
	if (len > TAP_SHOW && from > TAP_SHOW / 4)
		start = from - TAP_SHOW / 4;
	if (start > len)
		start = len;
	fputs(start ? "...'" : "'", stderr);
	tap_put_escaped(stderr, s + start, TAP_SHOW);
	fputs(len - start > TAP_SHOW ? "'..." : "'", stderr);
	if (len > TAP_SHOW)
		fprintf(stderr, " (%zu bytes)", len);
	fputc('\n', stderr);
}

__attribute__((format(printf, 5, 6)))
static inline int tap_is_str(const char *got, const char *expected,
			     const char *file, int line, const char *fmt, ...)
{
	int pass = got && expected ? !strcmp(got, expected) : got == expected;
	size_t diff = 0;
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass) {
		while (got && expected && got[diff] &&
		       got[diff] == expected[diff])
			diff++;
		fflush(stdout);
		tap_diag_str("got", got, diff);
		tap_diag_str("expected", expected, diff);
		if (diff > TAP_SHOW)
			fprintf(stderr, "# first difference at byte %zu\n",
				diff);
		fflush(stderr);
	}
	return pass;
}

/*
 * The checks. Each prints one test line and returns non-zero when it
 * passed; on failure it prints where and, for is_*, what was got and
 * what was expected. NULL strings compare equal only to NULL.
 */
#define ok(cond, ...) \
	tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, expected, ...) \
	tap_is_int((intmax_t)(got), (intmax_t)(expected), __FILE__, \
		   __LINE__, __VA_ARGS__)
#define is_uint(got, expected, ...) \
	tap_is_uint((uintmax_t)(got), (uintmax_t)(expected), __FILE__, \
		    __LINE__, __VA_ARGS__)
#define is_str(got, expected, ...) \
	tap_is_str((got), (expected), __FILE__, __LINE__, __VA_ARGS__)

/* Whether this is a CI run (CI=true, as every CI service sets it). */
static inline int tap_under_ci(void)
{
	const char *ci = getenv("CI");

	return ci && !strcmp(ci, "true");
}

/*
 * Record `n` tests as skipped, with the reason, for a build where they
 * mean nothing (skip_build) or a setup that failed (skip). Under CI a
 * failed setup fails its tests instead: CI runs on a machine made to run
 * them all, so a skip there hides a broken set-up.
 */
static inline void tap_skip(int n, const char *reason, int setup)
{
	for (int i = 0; i < n; i++) {
		if (setup && tap_under_ci()) {
			tap_failed++;
			printf("not ok %d - ", ++tap_count);
			tap_put_escaped(stdout, reason, strlen(reason));
			fputs(" (a setup that failed: CI=true runs every "
			      "test)\n", stdout);
			continue;
		}
		printf("ok %d # skip ", ++tap_count);
		tap_put_escaped(stdout, reason, strlen(reason));
		fputc('\n', stdout);
	}
	fflush(stdout);
}

static inline void skip(int n, const char *reason)
{
	tap_skip(n, reason, 1);
}

static inline void skip_build(int n, const char *reason)
{
	tap_skip(n, reason, 0);
}

/*
 * What main() returns: 0 when every test passed and the plan (if any)
 * was kept; the number of failures (at most 254) otherwise; 255 when
 * the count does not match the plan.
 */
static inline int exit_status(void)
{
	if (tap_planned >= 0 && tap_planned != tap_count) {
		diag("Looks like you planned %d tests but ran %d.",
		     tap_planned, tap_count);
		return 255;
	}
	if (tap_failed) {
		diag("Looks like you failed %d test%s of %d.", tap_failed,
		     tap_failed == 1 ? "" : "s", tap_count);
		return tap_failed > 254 ? 254 : tap_failed;
	}
	return 0;
}

/* Print the plan after the fact ("1..n") and return exit_status(). */
static inline int done_testing(void)
{
	if (tap_planned < 0) {
		tap_planned = tap_count;
		printf("1..%d\n", tap_count);
		fflush(stdout);
	}
	return exit_status();
}

#endif
