#include "rand.h"

#include <string.h>

#include <sys/random.h>
#include <unistd.h>

#include "clock.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void rand_seed(struct rand *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

uint64_t rand_next(struct rand *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

void rand_shuffle(struct rand *r, void *base, size_t n, size_t k,
		  size_t size)
{
	unsigned char *p = base, tmp[256];

	for (size_t i = 0; i < k && i < n; i++) {
		size_t j = i + (size_t)rand_below(r, n - i);

		/* Elements are small (pointers, keys): one bounce buffer. */
		for (size_t off = 0; off < size; off += sizeof(tmp)) {
			size_t len = size - off < sizeof(tmp) ? size - off
							      : sizeof(tmp);

			memcpy(tmp, p + i * size + off, len);
			memcpy(p + i * size + off, p + j * size + off, len);
			memcpy(p + j * size + off, tmp, len);
		}
	}
}

uint64_t rand_below(struct rand *r, uint64_t n)
{
	uint64_t x, limit;

	if (n == 0)
		return 0;
	limit = UINT64_MAX - UINT64_MAX % n;
	do
		x = rand_next(r);
	while (x >= limit);
	return x % n;
}

double rand_double(struct rand *r)
{
	return (double)(rand_next(r) >> 11) * 0x1.0p-53;
}

void rand_split(struct rand *parent, struct rand *child)
{
	rand_seed(child, rand_next(parent));
}

uint64_t rand_fresh_seed(void)
{
	uint64_t seed = 0;

	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed)) {
		uint64_t x = (uint64_t)clock_mono_ns() ^
			     ((uint64_t)getpid() << 32);

		seed = splitmix64(&x);
	}
	/* Seeds are printed and passed back as --seed: keep them positive
	 * and short enough to type. */
	seed %= UINT64_C(1000000000000);
	return seed ? seed : 1;
}

uint64_t rand_series_seed(uint64_t base, uint64_t i)
{
	uint64_t x, seed;

	if (i <= 1)
		return base;
	x = base + (i - 2) * UINT64_C(0x9e3779b97f4a7c15);
	seed = splitmix64(&x) % UINT64_C(1000000000000);
	return seed ? seed : 1;
}
