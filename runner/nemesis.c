#include "runner/nemesis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clusters/cluster.h"
#include "core/plan.h"
#include "core/suite.h"
#include "lib/cancel.h"
#include "lib/clock.h"
#include "lib/history.h"
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
	if (planned) {
		rc = pthread_create(&n->thread, NULL, nemesis_main, n);
		if (rc)
			return err_errno(e, rc, "cannot start the nemesis");
		n->thread_started = 1;
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
	pthread_mutex_destroy(&n->lock);
	pthread_mutex_destroy(&n->trig_lock);
	pthread_cond_destroy(&n->trig_cond);
	memset(n, 0, sizeof(*n));
}
