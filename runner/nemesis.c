#include "runner/nemesis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* The next armed event of item `fault` after pending[from], or -1. */
static long next_armed(const struct nemesis *n, int fault, size_t from)
{
	for (size_t i = from + 1; i < n->nactions; i++)
		if (n->pending[i].ev->fault == fault)
			return (long)i;
	return -1;
}

/*
 * The history's observer (history_observe): a record that fires an armed
 * event makes it due, its record's time plus `after`, and wakes the
 * nemesis. On the recording thread, which may hold n->lock (a fault's
 * own records): it takes only trig_lock, which no holder of it waits on
 * n->lock under.
 */
static void observe(void *arg, const struct history_event *ev)
{
	struct nemesis *n = arg;
	const struct suite *s = n->run->suite;
	int fired = 0;

	pthread_mutex_lock(&n->trig_lock);
	for (size_t f = 0; f < s->nfaults; f++) {
		struct nemesis_pending *p;

		if (n->armed[f] < 0)
			continue;
		p = &n->pending[n->armed[f]];
		if (ev->time < p->ev->at_ns ||
		    !fault_trigger_matches(&s->faults[f], (int)f, ev))
			continue;
		p->fired = 1;
		p->due = ev->time + fault_opts_of(&s->faults[f])->after;
		fault_fired_from(&p->why, ev);
		n->armed[f] = next_armed(n, (int)f, (size_t)n->armed[f]);
		fired = 1;
	}
	if (fired)
		pthread_cond_broadcast(&n->trig_cond);
	pthread_mutex_unlock(&n->trig_lock);
}

/*
 * The pending event due first (a timed one at its time, a triggered one
 * once fired), ties by plan order: its index, and its time in *due; -1
 * when none is.
 */
static long due_first(struct nemesis *n, int64_t *due)
{
	long first = -1;

	*due = INT64_MAX;
	for (size_t i = 0; i < n->nactions; i++) {
		const struct nemesis_pending *p = &n->pending[i];
		int64_t t;

		if (p->done)
			continue;
		if (p->ev->on && !p->fired)
			continue;
		t = p->ev->on ? p->due : p->ev->at_ns;
		if (t < *due) {
			*due = t;
			first = (long)i;
		}
	}
	return first;
}

/* Wait until `until` (ns since the start), a trigger, or 50 ms. */
static void wait_until(struct nemesis *n, int64_t until, int64_t now)
{
	int64_t wait = until - now < 50 * NS_PER_MS ? until - now
						   : 50 * NS_PER_MS;
	struct timespec ts;
	int64_t at;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	at = (int64_t)ts.tv_sec * NS_PER_SEC + ts.tv_nsec + wait;
	ts.tv_sec = (time_t)(at / NS_PER_SEC);
	ts.tv_nsec = (long)(at % NS_PER_SEC);
	pthread_cond_timedwait(&n->trig_cond, &n->trig_lock, &ts);
}

static void inject(struct nemesis *n, size_t k, int64_t now)
{
	const struct nemesis_pending *p = &n->pending[k];
	const struct plan_event *ev = p->ev;
	const struct suite_item *it = &n->run->suite->faults[ev->fault];
	struct fault_action *act = &n->actions[k];
	struct nemesis_counts *c = &n->counts[ev->fault];
	struct buf trigger = BUF_INIT;
	struct err e = ERR_INIT;

	if (p->fired)
		fault_fired_json(&trigger, it, &p->why, now - p->due);
	pthread_mutex_lock(&n->lock);
	if (fault_inject(&n->ctx, it, ev->fault, ev,
			 p->fired ? buf_str(&trigger) : NULL, act, &e)) {
		__atomic_add_fetch(&c->failed, 1, __ATOMIC_RELAXED);
		if (act->ntargets)
			__atomic_add_fetch(&c->failed_broke, 1,
					   __ATOMIC_RELAXED);
		if (!c->first_error[0])
			snprintf(c->first_error, sizeof(c->first_error), "%s",
				 e.msg);
	} else {
		__atomic_add_fetch(&c->injected, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&n->lock);
	buf_release(&trigger);
}

/*
 * Inject each pending event when it is due and heal each action when its
 * heal is, the earlier first (a heal before an injection due at the same
 * time), until the run stops.
 */
static void *nemesis_main(void *arg)
{
	struct nemesis *n = arg;

	n->ctx.slot = history_slot(n->run->history);
	while (!stopping(n)) {
		int64_t now = history_now(n->run->history);
		int64_t heal = next_heal(n), due;
		long k;

		pthread_mutex_lock(&n->trig_lock);
		k = due_first(n, &due);
		if (heal > now && (k < 0 || due > now)) {
			wait_until(n, heal < due ? heal : due, now);
			pthread_mutex_unlock(&n->trig_lock);
			continue;
		}
		if (heal <= now) {
			pthread_mutex_unlock(&n->trig_lock);
			heal_due(n, now);
			continue;
		}
		n->pending[k].done = 1;
		pthread_mutex_unlock(&n->trig_lock);
		inject(n, (size_t)k, now);
	}
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

/* What the DDL watch is to ask for, by the items it fires: 0, none. */
static unsigned wants_ddl_watch(const struct suite *s)
{
	unsigned what = 0;

	for (size_t i = 0; i < s->nfaults; i++) {
		int on = fault_opts_of(&s->faults[i])->on;

		if (on == TRIGGER_DDL_APPLIED)
			what |= DDL_WATCH_PARTITIONS;
		if (on == TRIGGER_DDL_RUNNING)
			what |= DDL_WATCH_RUNNING;
	}
	return what;
}

/* The DDL watch, on this thread till the run stops. */
static void *ddl_main(void *arg)
{
	struct nemesis *n = arg;

	cluster_ddl_watch(n->ctx.cluster, n->run->suite->database,
			  wants_ddl_watch(n->run->suite), n->run->history, history_slot(n->run->history),
			  n->run->cancel);
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
static void record_leader(struct nemesis *n, struct history_slot *slot,
			  const char *from, const char *to, const char *to_url)
{
	const char *comp = to ? cluster_named_by(n->ctx.cluster, to) : NULL;

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
		comp = cluster_named_by(n->ctx.cluster, to_url);
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

/*
 * Each planned fault event pending, in plan order; each `on:` item armed
 * at its first, and the history observed for them.
 */
static void arm(struct nemesis *n, const struct suite *s)
{
	size_t k = 0;

	n->armed = xcalloc(s->nfaults + 1, sizeof(*n->armed));
	for (size_t f = 0; f < s->nfaults; f++)
		n->armed[f] = -1;
	for (size_t i = 0; i < n->plan->n; i++) {
		const struct plan_event *ev = &n->plan->events[i];

		if (ev->fault < 0)
			continue;
		n->pending[k].ev = ev;
		if (ev->on && n->armed[ev->fault] < 0) {
			n->armed[ev->fault] = (long)k;
			n->observing = 1;
		}
		k++;
	}
	if (n->observing)
		history_observe(n->run->history, observe, n);
}

int nemesis_start(struct nemesis *n, struct cluster *c, struct run *run,
		  struct err *e)
{
	const struct suite *s = run->suite;
	pthread_condattr_t attr;
	size_t planned = 0;
	int rc;

	memset(n, 0, sizeof(*n));
	pthread_mutex_init(&n->lock, NULL);
	pthread_mutex_init(&n->trig_lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&n->trig_cond, &attr);
	pthread_condattr_destroy(&attr);
	n->run = run;
	n->plan = run->plan;
	n->ctx.cluster = c;
	n->ctx.suite = s;
	n->ctx.history = run->history;
	n->ctx.cancel = run->cancel;
	for (size_t i = 0; i < n->plan->n; i++)
		planned += n->plan->events[i].fault >= 0;
	n->actions = xcalloc(planned + 1, sizeof(*n->actions));
	n->pending = xcalloc(planned + 1, sizeof(*n->pending));
	n->counts = xcalloc(s->nfaults + 1, sizeof(*n->counts));
	n->nactions = planned;
	arm(n, s);
	add_watches(n, c, s);
	if (planned) {
		rc = pthread_create(&n->thread, NULL, nemesis_main, n);
		if (rc)
			return err_errno(e, rc, "cannot start the nemesis");
		n->thread_started = 1;
	}
	if (start_watchers(n, c, e))
		return -1;
	if (wants_ddl_watch(s)) {
		rc = pthread_create(&n->ddl_thread, NULL, ddl_main, n);
		if (rc)
			return err_errno(e, rc, "cannot start the DDL watch");
		n->ddl_started = 1;
	}
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

/* The armed events whose record never came, per item. */
static void count_unfired(struct nemesis *n)
{
	if (n->counted)
		return;
	n->counted = 1;
	for (size_t i = 0; i < n->nactions; i++) {
		const struct nemesis_pending *p = &n->pending[i];

		if (!p->done && p->ev->on && !p->fired)
			n->counts[p->ev->fault].unfired++;
	}
}

void nemesis_stop(struct nemesis *n)
{
	if (n->thread_started)
		pthread_join(n->thread, NULL);
	/* No record fires anything from now on. */
	if (n->observing)
		history_observe(n->run->history, NULL, NULL);
	n->observing = 0;
	if (n->pending)
		count_unfired(n);
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
	if (n->ddl_started)
		pthread_join(n->ddl_thread, NULL);
	n->ddl_started = 0;
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
	if (n->observing)
		history_observe(n->run->history, NULL, NULL);
	free(n->actions);
	free(n->pending);
	free(n->armed);
	free(n->counts);
	free(n->watches);
	free(n->watchers);
	pthread_mutex_destroy(&n->lock);
	pthread_mutex_destroy(&n->trig_lock);
	pthread_cond_destroy(&n->trig_cond);
	memset(n, 0, sizeof(*n));
}
