#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clock.h"

int parse_int64(const char *s, int64_t min, int64_t max, int64_t *out,
		struct err *e)
{
	char *end;
	long long v;

	if (!s || !*s || (*s != '-' && (*s < '0' || *s > '9')))
		return err_set(e, ERR_USAGE, "invalid number '%s'", s ? s : "");
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end || end == s || (*s == '-' && end == s + 1))
		return err_set(e, ERR_USAGE, "invalid number '%s'", s);
	if (errno == ERANGE || v < min || v > max)
		return err_set(e, ERR_USAGE, "number '%s' is out of range "
			       "(%lld..%lld)", s, (long long)min,
			       (long long)max);
	*out = v;
	return 0;
}

#define DURATION_MAX (INT64_C(1000) * 3600 * NS_PER_SEC)

int parse_duration(const char *s, int64_t *ns, struct err *e)
{
	static const struct {
		const char *name;
		int64_t ns;
	} units[] = {
		{ "ms", NS_PER_MS },
		{ "s", NS_PER_SEC },
		{ "m", 60 * NS_PER_SEC },
		{ "h", 3600 * NS_PER_SEC },
	};
	const char *p = s;
	int64_t total = 0;

	if (!s || !*s)
		return err_set(e, ERR_USAGE, "empty duration (use e.g. "
			       "'500ms', '15s', '2m', '1h')");
	while (*p) {
		int64_t v = 0, unit = 0;
		size_t i, ulen = 0;

		if (*p < '0' || *p > '9')
			goto bad;
		while (*p >= '0' && *p <= '9') {
			v = v * 10 + (*p++ - '0');
			if (v > DURATION_MAX / NS_PER_MS)
				goto big;
		}
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			size_t n = strlen(units[i].name);

			if (!strncmp(p, units[i].name, n) && n > ulen) {
				unit = units[i].ns;
				ulen = n;
			}
		}
		if (!unit) {
			if (!*p)
				return err_set(e, ERR_USAGE, "invalid duration "
					       "'%s' (missing unit: use ms, s, "
					       "m or h)", s);
			goto bad;
		}
		p += ulen;
		if (v > (DURATION_MAX - total) / unit)
			goto big;
		total += v * unit;
	}
	*ns = total;
	return 0;
bad:
	return err_set(e, ERR_USAGE, "invalid duration '%s' (use e.g. "
		       "'500ms', '15s', '2m', '1h')", s);
big:
	return err_set(e, ERR_USAGE, "duration '%s' is too long (at most "
		       "1000h)", s);
}

#define RATE_MAX (UINT64_C(1000) * 1000 * 1000 * 1000)

int parse_rate(const char *s, uint64_t *bps, struct err *e)
{
	static const struct {
		const char *name;
		uint64_t bps;
	} units[] = {
		{ "bit", 1 },
		{ "kbit", 1000 },
		{ "mbit", 1000 * 1000 },
		{ "gbit", 1000 * 1000 * 1000 },
	};
	const char *p = s;
	uint64_t v = 0;

	if (!s || *s < '0' || *s > '9')
		goto bad;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (uint64_t)(*p++ - '0');
		if (v > RATE_MAX)
			goto big;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(p, units[i].name))
			continue;
		if (v > RATE_MAX / units[i].bps)
			goto big;
		*bps = v * units[i].bps;
		return 0;
	}
bad:
	return err_set(e, ERR_USAGE, "invalid rate '%s' (a whole number and "
		       "bit, kbit, mbit or gbit: e.g. '500kbit', '1mbit')",
		       s ? s : "");
big:
	return err_set(e, ERR_USAGE, "rate '%s' is too high (at most "
		       "1000gbit)", s);
}

char *format_duration(int64_t ns, char *out, int size)
{
	int64_t ms = ns / NS_PER_MS;
	int64_t h = ms / 3600000, m = ms / 60000 % 60, sec = ms / 1000 % 60;
	int64_t rest = ms % 1000;
	int off = 0;

	out[0] = '\0';
	if (h)
		off += snprintf(out + off, size - off, "%lldh", (long long)h);
	if (m && off < size)
		off += snprintf(out + off, size - off, "%lldm", (long long)m);
	if (sec && off < size)
		off += snprintf(out + off, size - off, "%llds", (long long)sec);
	if (rest && off < size)
		off += snprintf(out + off, size - off, "%lldms",
				(long long)rest);
	if (!off)
		snprintf(out, size, "0s");
	return out;
}

size_t utf8_len(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (!len)
		return 0;
	if (u[0] < 0x80)
		return 1;
	if (u[0] < 0xc2 || u[0] > 0xf4)
		return 0;
	n = u[0] < 0xe0 ? 2 : u[0] < 0xf0 ? 3 : 4;
	/* The second byte's range rules out overlongs, surrogates and
	 * code points past U+10FFFF (RFC 3629 section 4). */
	if (u[0] == 0xe0)
		lo = 0xa0;
	else if (u[0] == 0xed)
		hi = 0x9f;
	else if (u[0] == 0xf0)
		lo = 0x90;
	else if (u[0] == 0xf4)
		hi = 0x8f;
	if (len < n || u[1] < lo || u[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (u[i] < 0x80 || u[i] > 0xbf)
			return 0;
	return n;
}

/* The decimal number at *s, *s moved past it; -1 when none is there. */
static int number(const char **s)
{
	int v = 0;

	if (!isdigit((unsigned char)**s))
		return -1;
	while (isdigit((unsigned char)**s)) {
		if (v > 99999)
			return -1;
		v = v * 10 + (*(*s)++ - '0');
	}
	return v;
}

int release_parse(const char *text, struct release *out)
{
	const char *s = text + (*text == 'v');
	int major, minor = -1, patch = -1;

	*out = (struct release){ -1, -1, -1, 0, "" };
	major = number(&s);
	if (major < 0 || *s++ != '.' || (minor = number(&s)) < 0)
		return -1;
	if (*s == '.' && isdigit((unsigned char)s[1])) {
		s++;
		patch = number(&s);
	}
	*out = (struct release){ major, minor, patch, 0, "" };
	snprintf(out->text, sizeof(out->text), "%.*s", (int)(s - text), text);
	out->pre = !strncasecmp(s, "-alpha", 6) || !strncasecmp(s, "-beta", 5) ||
		   !strncasecmp(s, "-rc", 3);
	return 0;
}

int release_older(const struct release *r, int major, int minor, int patch)
{
	if (r->major < 0)
		return 0;
	if (r->major != major)
		return r->major < major;
	if (r->minor != minor)
		return r->minor < minor;
	return (r->patch < 0 ? 0 : r->patch) < patch;
}

int list_has(const char *list, int sep, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = list;; p++) {
		const char *end = strchr(p, sep);
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n == len && !strncmp(p, word, len))
			return 1;
		if (!end)
			return 0;
		p = end;
	}
}
