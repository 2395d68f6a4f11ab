/*
 * A failpoint's term checked as pingcap/failpoint's terms.go parses one
 * (faults/failpoint_term.h): ("->"-separated) terms of probabilities ("50%")
 * and counts ("3*"), an action (off, return, sleep, panic, break, print,
 * pause) and its value ("(1)", "(true)", "(\"s\")"). A term the library
 * would refuse, or accept as something else ("return(5x)" is return(5)
 * there), is refused.
 */
#include "faults/failpoint_term.h"

#include <stdio.h>
#include <string.h>

/* A run of digits at `p`: its length (0: none). */
static size_t digits(const char *p)
{
	size_t n = 0;

	while (p[n] >= '0' && p[n] <= '9')
		n++;
	return n;
}

/*
 * <mod>* at `p` (parseMod): "<int or float>%" or "<int>*", each; the
 * length taken. An int is what Go's %d reads back the same; a float
 * "D.", "D.D".
 */
static size_t term_mods(const char *p)
{
	size_t at = 0;

	for (;;) {
		size_t n = digits(p + at), k;
		int is_float = 0;

		if (!n)
			return at;
		k = at + n;
		if (p[k] == '.') {
			is_float = 1;
			k += 1 + digits(p + k + 1);
		}
		if (p[k] == '%' || (p[k] == '*' && !is_float))
			at = k + 1;
		else
			return at;
	}
}

static const char *const actions[] = {
	"off", "return", "sleep", "panic", "break", "print", "pause", NULL,
};

/* A Go duration, as time.ParseDuration reads one: [-+]?(N[.N]UNIT)+. */
static int go_duration(const char *p, size_t len)
{
	static const char *const units[] = { "ns", "us", "\xc2\xb5s",
					     "\xce\xbcs", "ms", "s", "m", "h",
					     NULL };
	size_t at = 0;

	if (at < len && (p[at] == '-' || p[at] == '+'))
		at++;
	if (len - at == 1 && p[at] == '0')
		return 1;
	if (at == len)
		return 0;
	while (at < len) {
		size_t n = 0, u;

		while (at + n < len && p[at + n] >= '0' && p[at + n] <= '9')
			n++;
		if (at + n < len && p[at + n] == '.') {
			n++;
			while (at + n < len && p[at + n] >= '0' &&
			       p[at + n] <= '9')
				n++;
		}
		if (!n || (n == 1 && p[at] == '.'))
			return 0;
		at += n;
		for (u = 0; units[u]; u++) {
			size_t ul = strlen(units[u]);

			/* "ms" before "m" in the list: the longer first. */
			if (ul <= len - at && !memcmp(p + at, units[u], ul))
				break;
		}
		if (!units[u])
			return 0;
		at += strlen(units[u]);
	}
	return 1;
}

/*
 * "(<val>)" at `p` (parseVal): nothing, "()", a string without escapes
 * (Go's %q reads escapes, but the term's length is then counted from
 * the unquoted string and the parse fails past it), an integer as %d
 * prints it, true or false. The length taken (0: no value there), -1
 * when it is not one; *kind 's', 'i', 'b' or 0 (none).
 */
static long term_value(const char *p, int *kind)
{
	size_t n;

	*kind = 0;
	if (p[0] != '(')
		return 0;
	if (p[1] == ')')
		return 2;
	if (p[1] == '"' || p[1] == '`') {
		const char *end = strchr(p + 2, p[1]);

		if (!end || end[1] != ')' ||
		    (p[1] == '"' && memchr(p + 2, '\\', (size_t)(end - p - 2))))
			return -1;
		*kind = 's';
		return (long)(end - p) + 2;
	}
	n = (p[1] == '-') + digits(p + 1 + (p[1] == '-'));
	if (n > (size_t)(p[1] == '-')) {
		const char *d = p + 1 + (p[1] == '-');

		/* What Sprintf("%d") prints again: no leading zero, no -0,
		 * and within Go's int. */
		if ((d[0] == '0' && n - (p[1] == '-') > 1) ||
		    (p[1] == '-' && d[0] == '0') || n - (p[1] == '-') > 18 ||
		    p[1 + n] != ')')
			return -1;
		*kind = 'i';
		return (long)n + 2;
	}
	if (!strncmp(p + 1, "true)", 5) || !strncmp(p + 1, "false)", 6)) {
		*kind = 'b';
		return p[1] == 't' ? 6 : 7;
	}
	return -1;
}

int failpoint_term_check(const char *term, char *why, size_t size)
{
	const char *p = term;

	if (!*p) {
		snprintf(why, size, "an empty term");
		return -1;
	}
	for (;;) {
		const char *start = p, *act = NULL;
		size_t alen = 0;
		long vlen;
		int kind;

		p += term_mods(p);
		for (size_t i = 0; actions[i]; i++)
			if (!strncmp(p, actions[i], strlen(actions[i]))) {
				act = actions[i];
				alen = strlen(act);
			}
		if (!act) {
			snprintf(why, size, "no action at '%s' (off, return, "
				 "sleep, panic, break, print, pause)", p);
			return -1;
		}
		p += alen;
		vlen = term_value(p, &kind);
		if (vlen < 0) {
			snprintf(why, size, "'%s' is no value of %s (an "
				 "integer, true or false, a \"string\")", p,
				 act);
			return -1;
		}
		if (!strcmp(act, "sleep") &&
		    !(kind == 'i' ||
		      (kind == 's' && go_duration(p + 2, (size_t)vlen - 4)))) {
			snprintf(why, size, "sleep takes milliseconds or a Go "
				 "duration: sleep(1000), sleep(\"1s\"), not "
				 "'%.*s'", (int)(p - start + vlen), start);
			return -1;
		}
		p += vlen;
		if (!*p)
			return 0;
		if (strncmp(p, "->", 2)) {
			snprintf(why, size, "'%s' after '%.*s': terms are "
				 "joined by ->", p, (int)(p - start), start);
			return -1;
		}
		p += 2;
		if (!*p) {
			snprintf(why, size, "nothing after the last ->");
			return -1;
		}
	}
}
