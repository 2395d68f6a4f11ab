/*
 * lib/clock.c: the monotonic clock, the wall clock, sleeps; and the sleeps
 * a cancellation token cuts short (lib/cancel.c).
 */

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "lib/cancel.h"
#include "lib/clock.h"
#include "tests/unit/tap.h"

static void test_mono(void)
{
	int64_t prev = clock_mono_ns(), now = prev, backwards = 0;

	ok(prev > 0, "clock_mono_ns is positive");
	for (int i = 0; i < 100000; i++) {
		now = clock_mono_ns();
		if (now < prev)
			backwards++;
		prev = now;
	}
	is_int(backwards, 0, "clock_mono_ns never goes backwards");
}

static void test_wall(void)
{
	int64_t ms = clock_wall_ms();
	int64_t secs = (int64_t)time(NULL);

	ok(ms / 1000 >= secs - 1 && ms / 1000 <= secs + 1,
	   "clock_wall_ms agrees with time(2)");
}

static void test_sleep(void)
{
	int64_t start = clock_mono_ns(), took;

	clock_sleep_ns(30 * NS_PER_MS);
	took = clock_mono_ns() - start;
	ok(took >= 30 * NS_PER_MS, "sleeps at least 30ms (took %lldus)",
	   (long long)(took / 1000));
	ok(took < 1000 * NS_PER_MS, "but not far longer");

	start = clock_mono_ns();
	clock_sleep_ns(0);
	clock_sleep_ns(-5 * NS_PER_SEC);
	took = clock_mono_ns() - start;
	ok(took < 50 * NS_PER_MS, "0 and negative return at once");
}

static void test_sleep_stop(void)
{
	struct cancel stop = CANCEL_INIT;
	int64_t start, took;

	start = clock_mono_ns();
	cancel_sleep(&stop, CANCEL_STOP, 120 * NS_PER_MS);
	took = clock_mono_ns() - start;
	ok(took >= 120 * NS_PER_MS,
	   "an unset stop flag does not cut the sleep short (took %lldus)",
	   (long long)(took / 1000));

	cancel_raise(&stop, CANCEL_STOP);
	start = clock_mono_ns();
	cancel_sleep(&stop, CANCEL_STOP, 10 * NS_PER_SEC);
	took = clock_mono_ns() - start;
	ok(took < 50 * NS_PER_MS, "stop already set: returns at once "
	   "(took %lldus)", (long long)(took / 1000));
}

struct stopper {
	struct cancel *stop;
	int64_t after_ns;
};

static void *set_stop(void *arg)
{
	struct stopper *s = arg;

	clock_sleep_ns(s->after_ns);
	cancel_raise(s->stop, CANCEL_STOP);
	return NULL;
}

static void test_sleep_stop_later(void)
{
	struct cancel stop = CANCEL_INIT;
	struct stopper s = { &stop, 60 * NS_PER_MS };
	pthread_t thread;
	int64_t start = clock_mono_ns(), took;

	if (pthread_create(&thread, NULL, set_stop, &s)) {
		skip(2, "cannot start a thread");
		return;
	}
	cancel_sleep(&stop, CANCEL_STOP, 10 * NS_PER_SEC);
	took = clock_mono_ns() - start;
	pthread_join(thread, NULL);
	ok(took >= 60 * NS_PER_MS, "sleeps until the flag is set "
	   "(took %lldms)", (long long)(took / NS_PER_MS));
	ok(took < 60 * NS_PER_MS + 500 * NS_PER_MS,
	   "and returns soon after it is set, not after 10s");
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	alarms++;
}

static void test_sleep_signals(void)
{
	struct sigaction sa, old;
	struct itimerval every = { { 0, 10000 }, { 0, 10000 } }, off, old_timer;
	int64_t start, took;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old);	/* no SA_RESTART: EINTR */
	setitimer(ITIMER_REAL, &every, &old_timer);

	start = clock_mono_ns();
	clock_sleep_ns(100 * NS_PER_MS);
	took = clock_mono_ns() - start;

	memset(&off, 0, sizeof(off));
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	ok(alarms >= 3, "signals arrived during the sleep (%d)", (int)alarms);
	ok(took >= 100 * NS_PER_MS, "sleep resumes after signals "
	   "(took %lldus)", (long long)(took / 1000));
}

int main(void)
{
	test_mono();
	test_wall();
	test_sleep();
	test_sleep_stop();
	test_sleep_stop_later();
	test_sleep_signals();
	return done_testing();
}
