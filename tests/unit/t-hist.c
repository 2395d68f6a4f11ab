/* lib/hist.c: buckets within 1/16, quantiles, merging. */

#include "lib/hist.h"
#include "tests/unit/tap.h"

static struct hist a, b;

int main(void)
{
	hist_add(&a, 5000);			/* 5 us: exact */
	is_int(hist_quantile(&a, 0.5), 5000, "small values are exact");
	is_int(hist_count(&a), 1, "one value");

	for (int i = 1; i <= 1000; i++)
		hist_add(&b, (int64_t)i * 1000000);	/* 1..1000 ms */
	ok(hist_quantile(&b, 0.5) >= 500000000 &&
	   hist_quantile(&b, 0.5) <= 500000000 + 500000000 / 16,
	   "p50 of 1..1000 ms is 500 ms within 1/16 (%lld)",
	   (long long)hist_quantile(&b, 0.5));
	ok(hist_quantile(&b, 0.99) >= 990000000 &&
	   hist_quantile(&b, 0.99) <= 990000000 + 990000000 / 16,
	   "p99 is 990 ms within 1/16 (%lld)",
	   (long long)hist_quantile(&b, 0.99));
	ok(hist_quantile(&b, 1.0) >= 1000000000, "p100 covers the largest");

	hist_merge(&a, &b);
	is_int(hist_count(&a), 1001, "merge adds the counts");
	is_int(hist_quantile(&a, 0.0001), 5000, "the smallest stays first");

	{
		struct hist h = { { 0 } };

		is_int(hist_quantile(&h, 0.5), 0, "empty: 0");
		hist_add(&h, -5);
		is_int(hist_quantile(&h, 0.5), 0, "negative counts as 0");
		hist_add(&h, (int64_t)10 * 3600 * 1000000000);
		ok(hist_quantile(&h, 1.0) > 0, "ten hours fits the last bucket");
	}
	return done_testing();
}
