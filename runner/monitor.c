#include "runner/monitor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clusters/api.h"
#include "clusters/cluster.h"
#include "core/suite.h"
#include "faults/fault.h"
#include "faults/trigger.h"
#include "lib/cancel.h"
#include "lib/clock.h"
#include "lib/etcd.h"
#include "lib/history.h"
#include "lib/log.h"
#include "runner/run.h"

/* `s` as a JSON string, or null when it is NULL or empty. */
static void string_or_null(struct buf *out, const char *s)
{
	if (s && s[0])
		json_quote(out, s, NULL);
	else
		buf_addstr(out, "null", NULL);
}

static void record_owner(struct election_watch *w, const struct etcd_kv *o)
{
	const char *owner = o ? o->value : "", *comp;
	struct monitor *n = w->monitor;
	struct err why = ERR_INIT;
	struct buf value = BUF_INIT;
	struct history_event ev = { history_now(n->run->history),
				    HISTORY_MONITOR, "info", "owner", NULL,
				    NULL, w->prefix, -1, NULL, NULL, 0, 0, 0,
				    NULL, 0 };

	buf_addstr(&value, "{\"from\":", NULL);
	string_or_null(&value, w->seen ? w->owner : NULL);
	buf_addstr(&value, ",\"to\":", NULL);
	string_or_null(&value, owner);
	/* The component the value stands for, or null and why: the value
	 * maps to none, or the servers could not tell (docs/faults.md). */
	comp = NULL;
	if (owner[0])
		cluster_owner_component(n->cluster, w->service, owner,
					&comp, &why);
	buf_addstr(&value, ",\"to_component\":", NULL);
	string_or_null(&value, comp);
	if (!comp && owner[0]) {
		buf_addstr(&value, ",\"unmapped\":", NULL);
		json_quote(&value, why.msg, NULL);
	}
	buf_addch(&value, '}', NULL);
	ev.value = buf_str(&value);
	history_record(w->slot, &ev);
	buf_release(&value);
	snprintf(w->owner, sizeof(w->owner), "%s", owner);
	snprintf(w->owner_key, sizeof(w->owner_key), "%s", o ? o->key : "");
	w->owner_rev = o ? o->create_revision : 0;
	w->seen = 1;
}

/*
 * The candidate with the lowest create revision owns. A new term (key
 * and create revision) is a change of owner even with the same key and
 * value: TiDB campaigns again on the same session (resign.c).
 */
static void owner_changed(struct election_watch *w)
{
	const struct etcd_kv *o = NULL;

	for (size_t i = 0; i < w->candidates.n; i++)
		if (!o || w->candidates.kvs[i].create_revision <
			  o->create_revision)
			o = &w->candidates.kvs[i];
	if (!w->seen || strcmp(o ? o->key : "", w->owner_key) ||
	    (o ? o->create_revision : 0) != w->owner_rev)
		record_owner(w, o);
}

static void on_event(void *arg, const struct etcd_event *ev)
{
	struct election_watch *w = arg;
	struct etcd_kvs *c = &w->candidates;
	size_t i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->kvs[i].key, ev->key))
			break;
	if (ev->deleted && i < c->n) {
		free(c->kvs[i].key);
		free(c->kvs[i].value);
		c->kvs[i] = c->kvs[--c->n];
	} else if (!ev->deleted) {
		if (i == c->n) {
			c->kvs = xrealloc(c->kvs, (c->n + 1) * sizeof(*c->kvs));
			c->n++;
			c->kvs[i].key = xstrdup(ev->key);
		} else {
			free(c->kvs[i].value);
		}
		c->kvs[i].value = xstrdup(ev->value);
		c->kvs[i].create_revision = ev->create_revision;
	}
	if (ev->mod_revision >= w->next_rev)
		w->next_rev = ev->mod_revision + 1;
	owner_changed(w);
}

/*
 * Follow one election: read it, then watch it from the next revision, so
 * every owner, however briefly it led, is recorded in revision order. A
 * watch that breaks (its member killed or cut off) is taken up from the
 * revision after the last event, through whichever member answers, so
 * that what happened meanwhile is replayed, not skipped; the election is
 * read again only when etcd cancels the watch (that revision compacted).
 */
static void *monitor_main(void *arg)
{
	struct election_watch *w = arg;
	struct monitor *n = w->monitor;
	int read = 1;

	w->slot = history_slot(n->run->history);
	while (!cancelled(n->run->cancel, CANCEL_STOP)) {
		struct err e = ERR_INIT;
		int rc;

		if (read) {
			etcd_kvs_release(&w->candidates);
			if (etcd_election(w->url, w->prefix, &w->candidates,
					  &e)) {
				log_debug("monitor: %s", e.msg);
				cancel_sleep(n->run->cancel, CANCEL_STOP,
					     200 * NS_PER_MS);
				continue;
			}
			w->next_rev = w->candidates.revision + 1;
			owner_changed(w);
		}
		rc = etcd_watch(w->url, w->prefix, w->next_rev, on_event, w,
				n->run->cancel, &e);
		read = rc == ETCD_WATCH_CANCELED;
		if (rc) {
			log_debug("monitor: %s", e.msg);
			cancel_sleep(n->run->cancel, CANCEL_STOP,
				     200 * NS_PER_MS);
		}
	}
	etcd_kvs_release(&w->candidates);
	return NULL;
}

/* A watcher of the cluster's kind, on this thread till the run stops. */
static void *watcher_main(void *arg)
{
	struct watcher_thread *t = arg;
	struct monitor *n = t->monitor;

	t->watcher->run(n->cluster, n->run->history,
			history_slot(n->run->history), n->run->cancel);
	return NULL;
}

/* What the DDL watch is to ask for, by the items it fires: 0, none. */
static unsigned wants_ddl_watch(const struct suite *s)
{
	unsigned what = 0;

	for (size_t i = 0; i < s->nfaults; i++) {
		int on = fault_opts_of(&s->faults[i])->on;

		if (on >= 0)
			what |= fault_triggers[on].ddl_watch;
	}
	return what;
}

/* The DDL watch, on this thread till the run stops. */
static void *ddl_main(void *arg)
{
	struct monitor *n = arg;

	cluster_ddl_watch(n->cluster, n->run->suite->database,
			  wants_ddl_watch(n->run->suite), n->run->history,
			  history_slot(n->run->history), n->run->cancel);
	return NULL;
}

/* Members of an etcd cluster the leader watch follows, at most. */
#define MAX_MEMBERS 16

/*
 * One change of etcd's leader: "etcd/leader" {"from", "to"} (null: none),
 * and the component "to" is (null: none found): the member's name, or
 * else its client URL `to_url`, names it (a PD member's name, pd0, is
 * not its component's, pd-0).
 */
static void record_leader(struct monitor *n, struct history_slot *slot,
			  const char *from, const char *to, const char *to_url)
{
	const char *comp = to ? cluster_named_by(n->cluster, to) : NULL;

	struct buf value = BUF_INIT;
	struct history_event ev = { history_now(n->run->history),
				    HISTORY_MONITOR, "info", "owner", NULL,
				    NULL, "etcd/leader", -1, NULL, NULL, 0, 0,
				    0, NULL, 0 };

	buf_addstr(&value, "{\"from\":", NULL);
	string_or_null(&value, from);
	buf_addstr(&value, ",\"to\":", NULL);
	string_or_null(&value, to);
	buf_addstr(&value, ",\"to_component\":", NULL);
	if (to && !comp && to_url[0])
		comp = cluster_named_by(n->cluster, to_url);
	string_or_null(&value, comp);
	buf_addch(&value, '}', NULL);
	ev.value = buf_str(&value);
	history_record(slot, &ev);
	buf_release(&value);
}

/*
 * etcd's Raft leader, asked of its members every 100 ms (no key tells
 * it): each change is recorded as the owner monitor records an owner's,
 * with "etcd/leader" as the election; no leader (a cut-off majority) is
 * "to": null.
 */
static void *leader_main(void *arg)
{
	struct monitor *n = arg;
	struct history_slot *slot = history_slot(n->run->history);
	struct etcd_member m[MAX_MEMBERS];
	char leader[64] = "", id[24];
	size_t nm = 0;
	int seen = 0;

	while (!cancelled(n->run->cancel, CANCEL_STOP)) {
		struct err e = ERR_INIT;
		const struct etcd_member *now = NULL;
		int rc = -1;

		if (!nm && etcd_members(n->leader_url, m, MAX_MEMBERS, &nm,
					&e))
			log_debug("etcd leader watch: %s", e.msg);
		if (nm)
			rc = etcd_leader_among(m, nm, id, sizeof(id), &e);
		if (rc == 0)
			now = etcd_member_find(m, nm, id);
		/* Not told (no member answers) is not "no leader". */
		if (rc >= 0 &&
		    (!seen || strcmp(now ? now->name : "", leader))) {
			record_leader(n, slot, seen && leader[0] ? leader
							       : NULL,
				      now ? now->name : NULL,
				      now ? now->client_url : "");
			snprintf(leader, sizeof(leader), "%s",
				 now ? now->name : "");
			seen = 1;
		}
		cancel_sleep(n->run->cancel, CANCEL_STOP, 100 * NS_PER_MS);
	}
	return NULL;
}

static void add_watches(struct monitor *n, struct cluster *c,
			const struct suite *s)
{
	n->watches = xcalloc(s->nfaults + 1, sizeof(*n->watches));
	for (size_t i = 0; i < s->nfaults; i++) {
		const struct suite_item *it = &s->faults[i];
		const struct fault_type *t = fault_type_of(it);
		struct election_watch *w = &n->watches[n->nwatches];
		struct fault_election el;
		int dup = 0;

		if (!t->election || t->election(c, it, &el, NULL) != 1)
			continue;
		snprintf(w->prefix, sizeof(w->prefix), "%s", el.prefix);
		w->url = el.url;
		w->service = el.service;
		for (size_t j = 0; j < n->nwatches; j++)
			dup |= !strcmp(n->watches[j].prefix, w->prefix) &&
			       !strcmp(n->watches[j].url, w->url);
		if (!dup)
			n->nwatches++;
	}
}

/* The watchers the cluster's kind offers that have something to watch. */
static int start_watchers(struct monitor *n, struct cluster *c,
			  struct err *e)
{
	const struct cluster_watcher *const *w = c->type->watchers;
	size_t count = 0;
	int rc;

	while (w && w[count])
		count++;
	n->watchers = xcalloc(count + 1, sizeof(*n->watchers));
	for (size_t i = 0; i < count; i++) {
		struct watcher_thread *t = &n->watchers[n->nwatchers];

		if (!w[i]->wanted(c))
			continue;
		t->monitor = n;
		t->watcher = w[i];
		n->nwatchers++;
		rc = pthread_create(&t->thread, NULL, watcher_main, t);
		if (rc)
			return err_errno(e, rc, "cannot start the %s",
					 w[i]->name);
		t->started = 1;
	}
	return 0;
}

int monitor_start(struct monitor *m, struct cluster *c, struct run *run,
		  struct err *e)
{
	const struct suite *s = run->suite;
	int rc;

	memset(m, 0, sizeof(*m));
	m->cluster = c;
	m->run = run;
	add_watches(m, c, s);
	if (start_watchers(m, c, e))
		return -1;
	if (wants_ddl_watch(s)) {
		rc = pthread_create(&m->ddl_thread, NULL, ddl_main, m);
		if (rc)
			return err_errno(e, rc, "cannot start the DDL watch");
		m->ddl_started = 1;
	}
	for (size_t i = 0, members = 0; i < c->ncomps; i++)
		if ((c->comps[i].roles & ROLE_ETCD) && c->comps[i].etcd_url &&
		    ++members == 2)
			m->leader_url = cluster_etcd_url(c, NULL);
	if (m->leader_url) {
		rc = pthread_create(&m->leader_thread, NULL, leader_main, m);
		if (rc)
			return err_errno(e, rc, "cannot start the etcd leader "
					 "watch");
		m->leader_started = 1;
	}
	for (size_t i = 0; i < m->nwatches; i++) {
		m->watches[i].monitor = m;
		rc = pthread_create(&m->watches[i].thread, NULL, monitor_main,
				    &m->watches[i]);
		if (rc)
			return err_errno(e, rc, "cannot start the monitor");
		m->watches[i].started = 1;
	}
	return 0;
}

void monitor_stop(struct monitor *m)
{
	for (size_t i = 0; i < m->nwatches; i++)
		if (m->watches[i].started)
			pthread_join(m->watches[i].thread, NULL);
	for (size_t i = 0; i < m->nwatches; i++)
		m->watches[i].started = 0;
	for (size_t i = 0; i < m->nwatchers; i++)
		if (m->watchers[i].started)
			pthread_join(m->watchers[i].thread, NULL);
	for (size_t i = 0; i < m->nwatchers; i++)
		m->watchers[i].started = 0;
	if (m->leader_started)
		pthread_join(m->leader_thread, NULL);
	m->leader_started = 0;
	if (m->ddl_started)
		pthread_join(m->ddl_thread, NULL);
	m->ddl_started = 0;
}

void monitor_release(struct monitor *m)
{
	free(m->watches);
	free(m->watchers);
	memset(m, 0, sizeof(*m));
}
