/*
 * MariaDB replicas (clusters/replica.c) without a server: the count of
 * skipped events over a server's lives; the replica watch, a watcher the
 * cluster kinds offer (struct cluster_watcher): which kinds offer it,
 * which clusters it has something to watch on, that it stops with the
 * token, and that a replica it cannot ask is never recorded as stopped,
 * running or skipping (what a server says is tested against real
 * replicas, tests/func/t0500, t0510, t0530).
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "clusters/internal.h"
#include "lib/cancel.h"
#include "lib/clock.h"
#include "lib/history.h"
#include "tests/unit/port.h"
#include "tests/unit/tap.h"
#include "tests/unit/tmpdir.h"

static struct tmpdir dir;

static void test_tally(void)
{
	struct replica_tally t = { 0 };

	replica_tally_add(&t, 3, 10);
	is_int(t.before + t.last, 3, "the first ask: what the server says");
	is_int(t.lives, 1, "one life");
	replica_tally_add(&t, 5, 20);
	is_int(t.before + t.last, 5, "the counter grew: its total");
	replica_tally_add(&t, 1, 4);
	is_int(t.before + t.last, 6, "Uptime went back: a restart, added");
	is_int(t.lives - 1, 1, "one restart");
	replica_tally_add(&t, 0, 30);
	is_int(t.before + t.last, 6, "a counter gone down is a new life too");
	is_int(t.lives - 1, 2, "two restarts");
	replica_tally_add(&t, 0, 31);
	is_int(t.lives - 1, 2, "the same life while Uptime grows");
}

/* Does kind `name` offer the replica watch? */
static int offers(const char *name)
{
	const struct cluster_type *t = cluster_type_find(name);

	for (size_t i = 0; t && t->watchers && t->watchers[i]; i++)
		if (t->watchers[i] == &cluster_replica_watch)
			return 1;
	return 0;
}

struct watch {
	struct cluster *c;
	struct history *h;
	struct cancel cancel;
	int64_t returned_ns;
};

static void *watch_main(void *arg)
{
	struct watch *w = arg;

	cluster_replica_watch.run(w->c, w->h, history_slot(w->h), &w->cancel);
	w->returned_ns = clock_mono_ns();
	return NULL;
}

/* The history's lines after running the watch for `ms` ms on `c`. */
static ssize_t watch_for(struct cluster *c, int ms, int64_t *late_ns,
			 char *text, size_t size)
{
	struct watch w = { c, NULL, CANCEL_INIT, 0 };
	struct err e = ERR_INIT;
	const char *path = tmpdir_path(&dir, "history.jsonl");
	pthread_t t;
	int64_t stop;

	unlink(path);
	if (history_open(&w.h, path, clock_mono_ns(), &e)) {
		diag("history: %s", e.msg);
		return -1;
	}
	if (ms < 0)
		cancel_raise(&w.cancel, CANCEL_STOP);
	pthread_create(&t, NULL, watch_main, &w);
	if (ms > 0)
		cancel_sleep(NULL, CANCEL_STOP, (int64_t)ms * NS_PER_MS);
	stop = clock_mono_ns();
	cancel_raise(&w.cancel, CANCEL_STOP);
	pthread_join(t, NULL);
	*late_ns = w.returned_ns - stop;
	if (history_close(w.h, &e))
		diag("history: %s", e.msg);
	return read_text(tmpdir_path(&dir, "history.jsonl"), text, size);
}

int main(void)
{
	static char up[] = "up-0", down[] = "down-0", lo[] = "127.0.0.1";
	struct component comps[2];
	struct cluster c;
	char text[4096];
	int64_t late = 0;

	if (tmpdir_create(&dir)) {
		ok(0, "a scratch directory");
		return exit_status();
	}
	test_tally();
	ok(offers("local"), "the local cluster offers the replica watch");
	ok(offers("static"), "so does a topology, which may have replicas");
	ok(!offers("playground"), "a playground has none");

	memset(&c, 0, sizeof(c));
	memset(comps, 0, sizeof(comps));
	comps[0].name = up;
	comps[0].sql_host = lo;
	comps[0].sql_port = closed_port();
	comps[1] = comps[0];
	comps[1].name = down;
	c.type = cluster_type_find("static");
	c.comps = comps;
	c.ncomps = 2;
	c.timeout_ns = NS_PER_SEC;
	ok(!cluster_replica_watch.wanted(&c), "nothing to watch without a "
	   "replica");
	comps[1].replicates = up;
	comps[1].sql_port = 0;
	ok(!cluster_replica_watch.wanted(&c), "nor on one without SQL");
	comps[1].sql_port = comps[0].sql_port;
	ok(cluster_replica_watch.wanted(&c), "a replica with SQL is watched");

	is_int(watch_for(&c, -1, &late, text, sizeof(text)), 0,
	       "stopped before it began: it records nothing");
	is_int(watch_for(&c, 600, &late, text, sizeof(text)), 0,
	       "a replica it cannot ask is neither stopped nor skipping");
	ok(late >= 0 && late < 2 * NS_PER_SEC, "and it returns once the "
	   "token stops it (%.3fs)", (double)late / 1e9);
	free(c.tally);
	free(c.etcd_endpoints);
	tmpdir_remove(&dir);
	return done_testing();
}
