/* lib/rand.c: a seed reproduces a run, so the exact streams matter. */

#include <string.h>

#include "lib/rand.h"
#include "tests/unit/tap.h"

/*
 * The first outputs of xoshiro256** seeded through splitmix64, computed
 * independently of lib/rand.c. If these change, old seeds no longer
 * replay old runs.
 */
static const uint64_t seed_0[] = {
	UINT64_C(0x99ec5f36cb75f2b4), UINT64_C(0xbf6e1f784956452a),
	UINT64_C(0x1a5f849d4933e6e0), UINT64_C(0x6aa594f1262d2d2c),
};
static const uint64_t seed_42[] = {
	UINT64_C(0x15780b2e0c2ec716), UINT64_C(0x6104d9866d113a7e),
	UINT64_C(0xae17533239e499a1), UINT64_C(0xecb8ad4703b360a1),
};
/* rand_split of a fresh seed-42 parent: the child's first outputs. */
static const uint64_t child_of_42[] = {
	UINT64_C(0x8ee445d14631c453), UINT64_C(0x106fa1a13296fe62),
};

static void test_reference(void)
{
	struct rand r;

	rand_seed(&r, 0);
	ok(r.s[0] || r.s[1] || r.s[2] || r.s[3], "seed 0 gives a valid state");
	for (int i = 0; i < 4; i++)
		is_uint(rand_next(&r), seed_0[i], "seed 0, output %d", i);
	rand_seed(&r, 42);
	for (int i = 0; i < 4; i++)
		is_uint(rand_next(&r), seed_42[i], "seed 42, output %d", i);
}

static void test_same_seed(void)
{
	struct rand a, b;
	int differ = 0;

	rand_seed(&a, 20240601);
	rand_seed(&b, 20240601);
	for (int i = 0; i < 1000; i++)
		differ += rand_next(&a) != rand_next(&b);
	is_int(differ, 0, "same seed, same 1000 outputs");

	rand_seed(&a, 7);
	rand_next(&a);
	rand_seed(&a, 20240601);
	rand_seed(&b, 20240601);
	is_uint(rand_next(&a), rand_next(&b), "reseeding resets the stream");
}

static void test_different_seeds(void)
{
	struct rand a, b;
	int same = 0;

	rand_seed(&a, 1);
	rand_seed(&b, 2);
	for (int i = 0; i < 1000; i++)
		same += rand_next(&a) == rand_next(&b);
	is_int(same, 0, "seeds 1 and 2 share none of 1000 outputs");
}

static void test_below(void)
{
	struct rand r;
	int seen[7] = { 0 }, out_of_range = 0, missing = 0;
	uint64_t v, big = UINT64_C(1) << 63 | 12345;

	rand_seed(&r, 99);
	for (int i = 0; i < 7000; i++) {
		v = rand_below(&r, 7);
		if (v >= 7)
			out_of_range++;
		else
			seen[v]++;
	}
	is_int(out_of_range, 0, "rand_below(7) stays below 7");
	for (int i = 0; i < 7; i++)
		if (seen[i] < 700 || seen[i] > 1300)
			missing++;
	is_int(missing, 0, "every value of 0..6 drawn about 1000 times "
	       "in 7000");

	is_uint(rand_below(&r, 0), 0, "rand_below(0) is 0");
	is_uint(rand_below(&r, 1), 0, "rand_below(1) is 0");
	out_of_range = 0;
	for (int i = 0; i < 1000; i++)
		if (rand_below(&r, big) >= big)
			out_of_range++;
	is_int(out_of_range, 0, "rand_below of a huge n stays below it");
}

static void test_below_repeats(void)
{
	struct rand a, b;
	int differ = 0;

	rand_seed(&a, 5);
	rand_seed(&b, 5);
	for (int i = 0; i < 100; i++)
		differ += rand_below(&a, 10) != rand_below(&b, 10);
	is_int(differ, 0, "rand_below is reproducible");
}

static void test_double(void)
{
	struct rand r;
	int outside = 0, low = 0;
	double sum = 0;

	rand_seed(&r, 3);
	for (int i = 0; i < 10000; i++) {
		double d = rand_double(&r);

		if (!(d >= 0.0 && d < 1.0))
			outside++;
		if (d < 0.5)
			low++;
		sum += d;
	}
	is_int(outside, 0, "rand_double in [0, 1)");
	ok(low > 4700 && low < 5300, "about half below 0.5 (%d of 10000)",
	   low);
	ok(sum / 10000 > 0.48 && sum / 10000 < 0.52, "mean about 0.5");

	rand_seed(&r, 42);
	ok(rand_double(&r) == (double)(seed_42[0] >> 11) * 0x1.0p-53,
	   "rand_double uses the top 53 bits of rand_next");
}

static void test_split(void)
{
	struct rand p1, p2, c1, c2, fresh;
	int differ = 0;

	rand_seed(&p1, 42);
	rand_seed(&p2, 42);
	rand_split(&p1, &c1);
	rand_split(&p2, &c2);
	for (int i = 0; i < 100; i++)
		differ += rand_next(&c1) != rand_next(&c2);
	is_int(differ, 0, "same parent state, same child");

	rand_seed(&p1, 42);
	rand_split(&p1, &c1);
	for (int i = 0; i < 2; i++)
		is_uint(rand_next(&c1), child_of_42[i], "child of seed 42, "
			"output %d", i);
	is_uint(rand_next(&p1), seed_42[1],
		"the split advanced the parent by one output");

	rand_seed(&fresh, seed_42[0]);
	rand_seed(&p1, 42);
	rand_split(&p1, &c1);
	ok(!memcmp(&fresh, &c1, sizeof(fresh)),
	   "the child is seeded with the parent's next output");

	/* Two splits in a row give two different children. */
	rand_seed(&p1, 42);
	rand_split(&p1, &c1);
	rand_split(&p1, &c2);
	ok(rand_next(&c1) != rand_next(&c2), "consecutive children differ");
}

static void test_fresh_seed(void)
{
	uint64_t a = rand_fresh_seed(), b = rand_fresh_seed();

	ok(a != 0 && b != 0, "rand_fresh_seed is non-zero");
	ok(a < UINT64_C(1000000000000) && b < UINT64_C(1000000000000),
	   "and short enough to type (under 10^12)");
	ok(a != b, "two fresh seeds differ");
}

/* A partial shuffle: the draws a hand-written Fisher-Yates makes, so a
 * seed picks what it picked before; a permutation; k at most n. */
static void test_shuffle(void)
{
	struct rand r, hand;
	long long keys[10], want[10];
	int seen[10] = { 0 }, perm = 1, same = 1;

	for (int i = 0; i < 10; i++)
		keys[i] = want[i] = 100 + i;
	rand_seed(&r, 7);
	rand_seed(&hand, 7);
	rand_shuffle(&r, keys, 10, 4, sizeof(*keys));
	for (size_t i = 0; i < 4; i++) {
		size_t j = i + (size_t)rand_below(&hand, 10 - i);
		long long tmp = want[i];

		want[i] = want[j];
		want[j] = tmp;
	}
	for (int i = 0; i < 10; i++) {
		same &= keys[i] == want[i];
		if (keys[i] < 100 || keys[i] > 109 || seen[keys[i] - 100]++)
			perm = 0;
	}
	ok(same, "rand_shuffle draws as a hand-written Fisher-Yates does");
	ok(perm, "and leaves a permutation");
	ok(rand_next(&r) == rand_next(&hand), "with one draw per position");
	rand_seed(&r, 7);
	rand_shuffle(&r, keys, 3, 9, sizeof(*keys));
	rand_seed(&hand, 7);
	for (int i = 0; i < 3; i++)
		rand_below(&hand, (uint64_t)(3 - i));
	ok(rand_next(&r) == rand_next(&hand), "k above n draws n positions");
}

/*
 * The seeds of --repeat: the base, then splitmix64's outputs from it
 * modulo 10^12. 0xe220a8397b1dcdaf is splitmix64's published first
 * output from 0; the seeds of base 7 were computed independently. If
 * these change, `--seed S --repeat N` no longer runs the seeds it ran.
 */
static void test_series_seed(void)
{
	static const uint64_t of_7[] = {
		7, UINT64_C(600892374487), UINT64_C(372594955804),
		UINT64_C(746815609346),
	};
	int outside = 0, repeated = 0;
	uint64_t seen[1000];

	for (int i = 0; i < 4; i++)
		is_uint(rand_series_seed(7, (uint64_t)i + 1), of_7[i],
			"base 7, iteration %d", i + 1);
	is_uint(rand_series_seed(0, 2), UINT64_C(0xe220a8397b1dcdaf) %
		UINT64_C(1000000000000), "base 0, iteration 2: splitmix64's "
		"first output");
	is_uint(rand_series_seed(7, 0), 7, "iteration 0 is taken as 1");
	for (int i = 0; i < 1000; i++) {
		seen[i] = rand_series_seed(INT64_MAX, (uint64_t)i + 2);
		outside += !seen[i] || seen[i] >= UINT64_C(1000000000000);
		for (int k = 0; k < i; k++)
			repeated += seen[k] == seen[i];
	}
	is_int(outside, 0, "1000 seeds of a series in [1, 10^12)");
	is_int(repeated, 0, "and no two the same");
}

int main(void)
{
	test_reference();
	test_same_seed();
	test_different_seeds();
	test_below();
	test_below_repeats();
	test_double();
	test_split();
	test_fresh_seed();
	test_shuffle();
	test_series_seed();
	return done_testing();
}
