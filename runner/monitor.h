#ifndef TICHAOS_MONITOR_H
#define TICHAOS_MONITOR_H

/*
 * What a run watches while its workloads and faults run, each in a
 * thread of its own, every change recorded as process "monitor" —
 * whatever caused it:
 *
 * - the owner monitor: the elections the suite's faults move (their
 *   kind's `election` hook: resign's), every owner change;
 * - the etcd leader watch, on a cluster of two etcd members or more:
 *   each change of etcd's Raft leader, as election "etcd/leader";
 * - the DDL watch (cluster_ddl_watch), when a fault is fired by what it
 *   sees (on: ddl_applied, ddl_running);
 * - each watcher the cluster's kind offers (struct cluster_watcher: the
 *   MariaDB replica watch).
 *
 * monitor_stop() joins them once the run's cancel token says stop.
 */

#include <pthread.h>
#include <stdint.h>

#include "lib/etcd.h"
#include "lib/history.h"

struct cluster;
struct run;
struct monitor;

/* One election the owner monitor follows with an etcd watch. */
struct election_watch {
	struct monitor *monitor;
	char prefix[512];
	const char *url;
	/* "autoid", "ddl", "cdc" (what the owner's value is), or NULL. */
	const char *service;
	char owner[256];
	/* The owner's term: its key and create revision ("", 0: none). */
	char owner_key[512];
	int64_t owner_rev;
	int seen;
	struct etcd_kvs candidates;
	/* The revision to watch from: one past the last read or event. */
	int64_t next_rev;
	struct history_slot *slot;
	pthread_t thread;
	int started;
};

/* A watcher of the cluster's kind, in a thread of its own. */
struct watcher_thread {
	struct monitor *monitor;
	const struct cluster_watcher *watcher;
	pthread_t thread;
	int started;
};

struct monitor {
	struct cluster *cluster;
	struct run *run;
	struct election_watch *watches;
	size_t nwatches;
	struct watcher_thread *watchers;
	size_t nwatchers;
	/* The etcd leader's watch: the URL it lists the members from. */
	const char *leader_url;
	pthread_t leader_thread;
	int leader_started;
	pthread_t ddl_thread;
	int ddl_started;
};

/* Start what `run` on cluster `c` watches; monitor_stop() whatever it
 * returns. */
int monitor_start(struct monitor *m, struct cluster *c, struct run *run,
		  struct err *e);

/* Join the threads; the run's cancel token must say stop. Safe to call
 * twice. */
void monitor_stop(struct monitor *m);

void monitor_release(struct monitor *m);

#endif
