/*
 * The fault modes of tichaos-diskfs: which operations fail or wait
 * (diskfs/mode.h).
 */
#include "diskfs/mode.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const op_names[DISKOP_N] = { "read", "write", "fsync" };

void diskmode_init(struct diskmode *m)
{
	memset(m, 0, sizeof(*m));
	pthread_mutex_init(&m->lock, NULL);
	snprintf(m->line, sizeof(m->line), "off");
}

/* KINDS: "read,write"; 0 or -1. */
static int parse_kinds(const char *s, unsigned *out, char *why, size_t size)
{
	*out = 0;
	for (;;) {
		size_t n = strcspn(s, ","), k;

		for (k = 0; k < DISKOP_N; k++)
			if (strlen(op_names[k]) == n &&
			    !strncmp(s, op_names[k], n))
				break;
		if (k == DISKOP_N) {
			snprintf(why, size, "unknown operation kind '%.*s' "
				 "(read, write, fsync)", (int)n, s);
			return -1;
		}
		*out |= 1u << k;
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

int diskmode_parse(const char *line, enum diskmode_what *what,
		   unsigned *kinds, double *percent, uint64_t *seed,
		   int64_t *delay_ns, char *why, size_t size)
{
	char verb[16], a[64], b[64], c[64], extra[2];
	enum diskmode_what w;
	unsigned k = 0;
	double p = 0;
	unsigned long long s = 0;
	long long d = 0;
	char *end;
	int n;

	n = sscanf(line, "%15s %63s %63s %63s %1s", verb, a, b, c, extra);
	if (n >= 1 && !strcmp(verb, "off") && n == 1)
		w = DISKMODE_OFF;
	else if (n >= 1 && !strcmp(verb, "full") && n == 1)
		w = DISKMODE_FULL;
	else if (n == 4 && !strcmp(verb, "error")) {
		w = DISKMODE_ERROR;
		errno = 0;
		p = strtod(a, &end);
		if (*end || errno || !(p >= 0 && p <= 100)) {
			snprintf(why, size, "the percentage '%s' is not a "
				 "number from 0 to 100", a);
			return -1;
		}
		if (parse_kinds(b, &k, why, size))
			return -1;
		errno = 0;
		s = strtoull(c, &end, 10);
		if (*end || errno || c[0] == '-') {
			snprintf(why, size, "the seed '%s' is not a number", c);
			return -1;
		}
	} else if (n == 3 && !strcmp(verb, "slow")) {
		w = DISKMODE_SLOW;
		errno = 0;
		d = strtoll(a, &end, 10);
		if (*end || errno || d <= 0) {
			snprintf(why, size, "the delay '%s' is not a number "
				 "of nanoseconds above 0", a);
			return -1;
		}
		if (parse_kinds(b, &k, why, size))
			return -1;
	} else {
		snprintf(why, size, "not a mode: off, error PERCENT KINDS "
			 "SEED, full, slow DELAY_NS KINDS");
		return -1;
	}
	if (what)
		*what = w;
	if (kinds)
		*kinds = k;
	if (percent)
		*percent = p;
	if (seed)
		*seed = s;
	if (delay_ns)
		*delay_ns = d;
	return 0;
}

void diskmode_set(struct diskmode *m, const char *line, struct buf *reply)
{
	enum diskmode_what what;
	unsigned kinds;
	double percent;
	uint64_t seed;
	int64_t delay;
	char why[160];

	if (diskmode_parse(line, &what, &kinds, &percent, &seed, &delay, why,
			   sizeof(why))) {
		buf_printf(reply, NULL, "mode-error %s: %s\n", line, why);
		return;
	}
	pthread_mutex_lock(&m->lock);
	buf_addstr(reply, "ops", NULL);
	for (int k = 0; k < DISKOP_N; k++)
		buf_printf(reply, NULL, " %s %llu %llu %lld", op_names[k],
			   m->ops[k], m->failed[k],
			   (long long)m->waited_ns[k]);
	buf_addch(reply, '\n', NULL);
	memset(m->ops, 0, sizeof(m->ops));
	memset(m->failed, 0, sizeof(m->failed));
	memset(m->waited_ns, 0, sizeof(m->waited_ns));
	m->what = what;
	m->kinds = kinds;
	m->percent = percent;
	m->rng = seed;
	m->delay_ns = delay;
	snprintf(m->line, sizeof(m->line), "%s", line);
	pthread_mutex_unlock(&m->lock);
	buf_printf(reply, NULL, "mode %s\n", line);
}

/* splitmix64: a draw in [0, 1). */
static double draw(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0;
}

int diskmode_op(struct diskmode *m, enum diskop k, int64_t *delay_ns)
{
	int rc = 0;

	*delay_ns = 0;
	pthread_mutex_lock(&m->lock);
	m->ops[k]++;
	switch (m->what) {
	case DISKMODE_ERROR:
		if ((m->kinds & (1u << k)) && draw(&m->rng) * 100 < m->percent)
			rc = -EIO;
		break;
	case DISKMODE_FULL:
		if (k == DISKOP_WRITE)
			rc = -ENOSPC;
		break;
	case DISKMODE_SLOW:
		if (m->kinds & (1u << k))
			*delay_ns = m->delay_ns;
		break;
	case DISKMODE_OFF:
		break;
	}
	if (rc)
		m->failed[k]++;
	pthread_mutex_unlock(&m->lock);
	return rc;
}

void diskmode_waited(struct diskmode *m, enum diskop k, int64_t ns)
{
	pthread_mutex_lock(&m->lock);
	m->waited_ns[k] += ns;
	pthread_mutex_unlock(&m->lock);
}

int diskmode_full(struct diskmode *m)
{
	int full;

	pthread_mutex_lock(&m->lock);
	full = m->what == DISKMODE_FULL;
	pthread_mutex_unlock(&m->lock);
	return full;
}
