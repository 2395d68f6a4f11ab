/*
 * diskfs/mode.c: the control lines accepted and refused; the share of
 * operations an error mode fails (within 2 percentage points of what
 * was asked, over 100000 draws, and the same again from the same seed);
 * a full disk failing writes only; a slow mode's delay; the counts said
 * when a mode ends exact, with four threads at it at once.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diskfs/mode.h"
#include "lib/buf.h"
#include "tests/unit/tap.h"

#define DRAWS 100000

static void refused(const char *line, const char *why)
{
	char got[160] = "";

	ok(diskmode_parse(line, NULL, NULL, NULL, NULL, NULL, got,
			  sizeof(got)) == -1, "refused: '%s'", line);
	is_str(got, why, "  why");
}

static void parsing(void)
{
	enum diskmode_what what;
	unsigned kinds;
	double percent;
	uint64_t seed;
	int64_t delay;
	char why[160];

	ok(!diskmode_parse("error 12.5 read,fsync 42", &what, &kinds,
			   &percent, &seed, &delay, why, sizeof(why)),
	   "error 12.5 read,fsync 42");
	ok(what == DISKMODE_ERROR && kinds == (1u << DISKOP_READ |
					       1u << DISKOP_FSYNC) &&
	   percent == 12.5 && seed == 42, "  its parts");
	ok(!diskmode_parse("slow 5000000 write", &what, &kinds, NULL, NULL,
			   &delay, why, sizeof(why)) &&
	   what == DISKMODE_SLOW && kinds == 1u << DISKOP_WRITE &&
	   delay == 5000000, "slow 5000000 write");
	ok(!diskmode_parse("full", &what, NULL, NULL, NULL, NULL, why,
			   sizeof(why)) && what == DISKMODE_FULL, "full");
	ok(!diskmode_parse("off", &what, NULL, NULL, NULL, NULL, why,
			   sizeof(why)) && what == DISKMODE_OFF, "off");
	refused("error 101 read 1",
		"the percentage '101' is not a number from 0 to 100");
	refused("error 5x read 1",
		"the percentage '5x' is not a number from 0 to 100");
	refused("error 5 read,disk 1",
		"unknown operation kind 'disk' (read, write, fsync)");
	refused("error 5 read, 1",
		"unknown operation kind '' (read, write, fsync)");
	refused("error 5 read -1", "the seed '-1' is not a number");
	refused("slow 0 read",
		"the delay '0' is not a number of nanoseconds above 0");
	refused("full now", "not a mode: off, error PERCENT KINDS SEED, "
		"full, slow DELAY_NS KINDS");
	refused("", "not a mode: off, error PERCENT KINDS SEED, full, "
		"slow DELAY_NS KINDS");
}

/* `n` operations of kind `k`: how many failed with `err`. */
static unsigned long long run_ops(struct diskmode *m, enum diskop k, int n,
				  int err)
{
	unsigned long long failed = 0;
	int64_t delay;

	for (int i = 0; i < n; i++)
		failed += diskmode_op(m, k, &delay) == -err;
	return failed;
}

static void error_rates(void)
{
	static const double asked[] = { 0, 0.5, 10, 33.3, 50, 99, 100 };
	struct diskmode m;
	struct buf reply = BUF_INIT;
	char line[64];

	diskmode_init(&m);
	for (size_t i = 0; i < sizeof(asked) / sizeof(asked[0]); i++) {
		unsigned long long failed, again;
		double pct;

		snprintf(line, sizeof(line), "error %g read 7", asked[i]);
		diskmode_set(&m, line, &reply);
		failed = run_ops(&m, DISKOP_READ, DRAWS, EIO);
		pct = 100.0 * (double)failed / DRAWS;
		ok(pct >= asked[i] - 2 && pct <= asked[i] + 2,
		   "error %g%%: %llu of %d reads failed (%.2f%%)", asked[i],
		   failed, DRAWS, pct);
		ok(run_ops(&m, DISKOP_WRITE, 1000, EIO) == 0 &&
		   run_ops(&m, DISKOP_FSYNC, 1000, EIO) == 0,
		   "  writes and syncs untouched");
		diskmode_set(&m, line, &reply);
		again = run_ops(&m, DISKOP_READ, DRAWS, EIO);
		is_uint(again, failed, "  the same seed fails as many again");
	}
	buf_reset(&reply);
	diskmode_set(&m, "off", &reply);
	ok(strstr(buf_str(&reply), "ops read 100000 100000 0 write 0 0 0 "
		  "fsync 0 0 0\nmode off\n") != NULL,
	   "the last mode's counts, then off");
	buf_release(&reply);
	pthread_mutex_destroy(&m.lock);
}

static void full_and_slow(void)
{
	struct diskmode m;
	struct buf reply = BUF_INIT;
	int64_t delay;

	diskmode_init(&m);
	ok(!diskmode_full(&m), "a new mode is not full");
	diskmode_set(&m, "full", &reply);
	ok(diskmode_full(&m), "full");
	is_int(diskmode_op(&m, DISKOP_WRITE, &delay), -ENOSPC,
	       "  a write fails with ENOSPC");
	is_int(diskmode_op(&m, DISKOP_READ, &delay), 0, "  a read goes on");
	is_int(diskmode_op(&m, DISKOP_FSYNC, &delay), 0, "  a sync goes on");
	buf_reset(&reply);
	diskmode_set(&m, "slow 2000000 read,fsync", &reply);
	is_str(buf_str(&reply), "ops read 1 0 0 write 1 1 0 fsync 1 0 0\n"
	       "mode slow 2000000 read,fsync\n", "  the counts while full");
	ok(!diskmode_full(&m), "slow: not full");
	ok(!diskmode_op(&m, DISKOP_READ, &delay) && delay == 2000000,
	   "  a read waits 2 ms");
	ok(!diskmode_op(&m, DISKOP_WRITE, &delay) && delay == 0,
	   "  a write does not");
	diskmode_waited(&m, DISKOP_READ, 2100000);
	buf_reset(&reply);
	diskmode_set(&m, "slow x read", &reply);
	is_str(buf_str(&reply), "mode-error slow x read: the delay 'x' is "
	       "not a number of nanoseconds above 0\n",
	       "a bad line: said, the mode in force stays");
	ok(!diskmode_op(&m, DISKOP_FSYNC, &delay) && delay == 2000000,
	   "  a sync still waits 2 ms");
	buf_reset(&reply);
	diskmode_set(&m, "off", &reply);
	is_str(buf_str(&reply), "ops read 1 0 2100000 write 1 0 0 fsync 1 0 "
	       "0\nmode off\n", "the time waited, counted");
	buf_release(&reply);
	pthread_mutex_destroy(&m.lock);
}

static struct diskmode shared;
static unsigned long long thread_failed[4];

static void *worker(void *arg)
{
	size_t i = (size_t)(uintptr_t)arg;

	thread_failed[i] = run_ops(&shared, (enum diskop)(i % DISKOP_N),
				   DRAWS / 4, EIO);
	return NULL;
}

static void threads(void)
{
	pthread_t t[4];
	struct buf reply = BUF_INIT;
	char want[160];

	diskmode_init(&shared);
	diskmode_set(&shared, "error 25 read,write,fsync 3", &reply);
	for (size_t i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i);
	for (size_t i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	buf_reset(&reply);
	diskmode_set(&shared, "off", &reply);
	snprintf(want, sizeof(want), "ops read %d %llu 0 write %d %llu 0 "
		 "fsync %d %llu 0\nmode off\n", DRAWS / 2,
		 thread_failed[0] + thread_failed[3], DRAWS / 4,
		 thread_failed[1], DRAWS / 4, thread_failed[2]);
	is_str(buf_str(&reply), want,
	       "four threads: every operation and failure counted");
	buf_release(&reply);
	pthread_mutex_destroy(&shared.lock);
}

int main(void)
{
	parsing();
	error_rates();
	full_and_slow();
	threads();
	return done_testing();
}
