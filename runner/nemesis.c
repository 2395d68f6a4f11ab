#include "runner/nemesis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clusters/api.h"
#include "clusters/cluster.h"
#include "core/plan.h"
#include "core/suite.h"
#include "lib/cancel.h"
#include "lib/clock.h"
#include "lib/etcd.h"
#include "lib/history.h"
#include "lib/log.h"
#include "runner/run.h"

static int stopping(const struct nemesis *n)
{
	return cancelled(n->run->cancel, CANCEL_STOP);
}

static void count_heal(struct nemesis *n, struct fault_action *act, int rc,
		       const struct err *e)
{
	struct nemesis_counts *c = &n->counts[act->item_index];

	if (rc) {
		__atomic_add_fetch(&c->heal_failed, 1, __ATOMIC_RELAXED);
		if (!c->first_error[0])
			snprintf(c->first_error, sizeof(c->first_error),
				 "%s", e->msg);
	} else {
		__atomic_add_fetch(&c->healed, 1, __ATOMIC_RELAXED);
	}
}

/* Heal the actions due by `now` (all of them when now < 0). */
static int heal_due(struct nemesis *n, int64_t now)
{
	int failed = 0;

	for (size_t i = 0; i < n->nactions; i++) {
		struct fault_action *act = &n->actions[i];
		struct err e = ERR_INIT;
		int rc;

		pthread_mutex_lock(&n->lock);
		if (act->healed || !act->ntargets || !act->item ||
		    (now >= 0 && act->heal_at_ns > now)) {
			pthread_mutex_unlock(&n->lock);
			continue;
		}
		rc = fault_heal(&n->ctx, act, &e);
		pthread_mutex_unlock(&n->lock);
		if (fault_type_of(act->item)->heal) {
			count_heal(n, act, rc, &e);
			failed += rc != 0;
		}
	}
	return failed;
}

/* The earliest pending heal, or INT64_MAX. */
static int64_t next_heal(struct nemesis *n)
{
	int64_t t = INT64_MAX;

	pthread_mutex_lock(&n->lock);
	for (size_t i = 0; i < n->nactions; i++) {
		const struct fault_action *a = &n->actions[i];

		if (a->item && !a->healed && a->ntargets &&
		    a->heal_at_ns < t)
			t = a->heal_at_ns;
	}
	pthread_mutex_unlock(&n->lock);
	return t;
}

static void *nemesis_main(void *arg)
{
	struct nemesis *n = arg;
	const struct suite *s = n->run->suite;
	size_t k = 0;

	n->ctx.slot = history_slot(n->run->history);
	for (size_t i = 0; i < n->plan->n && !stopping(n); i++) {
		const struct plan_event *ev = &n->plan->events[i];
		const struct suite_item *it;
		struct fault_action *act;
		struct err e = ERR_INIT;

		if (ev->fault < 0)
			continue;
		act = &n->actions[k++];
		/* Heals due before this injection come first. */
		for (;;) {
			int64_t now = history_now(n->run->history);
			int64_t heal = next_heal(n);
			int64_t until = heal < ev->at_ns ? heal : ev->at_ns;

			if (stopping(n))
				goto out;
			if (until > now) {
				cancel_sleep(n->run->cancel, CANCEL_STOP,
					     until - now < 50 * NS_PER_MS ?
					     until - now : 50 * NS_PER_MS);
				continue;
			}
			if (heal <= now) {
				heal_due(n, now);
				continue;
			}
			break;
		}
		it = &s->faults[ev->fault];
		pthread_mutex_lock(&n->lock);
		if (fault_inject(&n->ctx, it, ev->fault, ev, act, &e)) {
			struct nemesis_counts *c = &n->counts[ev->fault];

			__atomic_add_fetch(&c->failed, 1, __ATOMIC_RELAXED);
			if (act->ntargets)
				__atomic_add_fetch(&c->failed_broke, 1,
						   __ATOMIC_RELAXED);
			if (!c->first_error[0])
				snprintf(c->first_error,
					 sizeof(c->first_error), "%s", e.msg);
		} else {
			__atomic_add_fetch(&n->counts[ev->fault].injected, 1,
					   __ATOMIC_RELAXED);
		}
		pthread_mutex_unlock(&n->lock);
	}
	/* Past the last injection: heal on time until the run stops. */
	while (!stopping(n)) {
		int64_t now = history_now(n->run->history);

		if (next_heal(n) <= now)
			heal_due(n, now);
		cancel_sleep(n->run->cancel, CANCEL_STOP, 50 * NS_PER_MS);
	}
out:
	return NULL;
}

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
	struct nemesis *n = w->nemesis;
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
		cluster_owner_component(n->ctx.cluster, w->service, owner,
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
	struct nemesis *n = w->nemesis;
	int read = 1;

	w->slot = history_slot(n->run->history);
	while (!stopping(n)) {
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
	struct nemesis *n = t->nemesis;

	t->watcher->run(n->ctx.cluster, n->run->history,
			history_slot(n->run->history), n->run->cancel);
	return NULL;
}

/* Members of an etcd cluster the leader watch follows, at most. */
#define MAX_MEMBERS 16

/* One change of etcd's leader: "etcd/leader" {"from", "to"} (null: none). */
static void record_leader(struct nemesis *n, struct history_slot *slot,
			  const char *from, const char *to)
{
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
	string_or_null(&value, to && cluster_find(n->ctx.cluster, to) ? to
								     : NULL);
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
	struct nemesis *n = arg;
	struct history_slot *slot = history_slot(n->run->history);
	struct etcd_member m[MAX_MEMBERS];
	char leader[64] = "", id[24];
	size_t nm = 0;
	int seen = 0;

	while (!stopping(n)) {
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
				      now ? now->name : NULL);
			snprintf(leader, sizeof(leader), "%s",
				 now ? now->name : "");
			seen = 1;
		}
		cancel_sleep(n->run->cancel, CANCEL_STOP, 100 * NS_PER_MS);
	}
	return NULL;
}

static void add_watches(struct nemesis *n, struct cluster *c,
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
static int start_watchers(struct nemesis *n, struct cluster *c,
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
		t->nemesis = n;
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

int nemesis_start(struct nemesis *n, struct cluster *c, struct run *run,
		  struct err *e)
{
	const struct suite *s = run->suite;
	size_t planned = 0;
	int rc;

	memset(n, 0, sizeof(*n));
	pthread_mutex_init(&n->lock, NULL);
	n->run = run;
	n->plan = run->plan;
	n->ctx.cluster = c;
	n->ctx.suite = s;
	n->ctx.history = run->history;
	n->ctx.cancel = run->cancel;
	for (size_t i = 0; i < n->plan->n; i++)
		planned += n->plan->events[i].fault >= 0;
	n->actions = xcalloc(planned + 1, sizeof(*n->actions));
	n->counts = xcalloc(s->nfaults + 1, sizeof(*n->counts));
	n->nactions = planned;
	add_watches(n, c, s);
	if (planned) {
		rc = pthread_create(&n->thread, NULL, nemesis_main, n);
		if (rc)
			return err_errno(e, rc, "cannot start the nemesis");
		n->thread_started = 1;
	}
	if (start_watchers(n, c, e))
		return -1;
	for (size_t i = 0, members = 0; i < c->ncomps; i++)
		if ((c->comps[i].roles & ROLE_ETCD) && c->comps[i].etcd_url &&
		    ++members == 2)
			n->leader_url = cluster_etcd_url(c, NULL);
	if (n->leader_url) {
		rc = pthread_create(&n->leader_thread, NULL, leader_main, n);
		if (rc)
			return err_errno(e, rc, "cannot start the etcd leader "
					 "watch");
		n->leader_started = 1;
	}
	for (size_t i = 0; i < n->nwatches; i++) {
		n->watches[i].nemesis = n;
		rc = pthread_create(&n->watches[i].thread, NULL, monitor_main,
				    &n->watches[i]);
		if (rc)
			return err_errno(e, rc, "cannot start the monitor");
		n->watches[i].started = 1;
	}
	return 0;
}

void nemesis_stop(struct nemesis *n)
{
	if (n->thread_started)
		pthread_join(n->thread, NULL);
	for (size_t i = 0; i < n->nwatches; i++)
		if (n->watches[i].started)
			pthread_join(n->watches[i].thread, NULL);
	for (size_t i = 0; i < n->nwatches; i++)
		n->watches[i].started = 0;
	for (size_t i = 0; i < n->nwatchers; i++)
		if (n->watchers[i].started)
			pthread_join(n->watchers[i].thread, NULL);
	for (size_t i = 0; i < n->nwatchers; i++)
		n->watchers[i].started = 0;
	if (n->leader_started)
		pthread_join(n->leader_thread, NULL);
	n->leader_started = 0;
	n->thread_started = 0;
}

int nemesis_heal_all(struct nemesis *n)
{
	if (!n->ctx.slot && n->nactions)
		n->ctx.slot = history_slot(n->run->history);
	return n->nactions ? heal_due(n, -1) : 0;
}

void nemesis_release(struct nemesis *n)
{
	for (size_t i = 0; n->actions && i < n->nactions; i++)
		fault_action_release(&n->actions[i]);
	free(n->actions);
	free(n->counts);
	free(n->watches);
	free(n->watchers);
	pthread_mutex_destroy(&n->lock);
	memset(n, 0, sizeof(*n));
}
