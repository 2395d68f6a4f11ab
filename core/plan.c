#include "core/plan.h"

#include <stdlib.h>
#include <string.h>

#include "core/suite.h"
#include "lib/history.h"
#include "lib/parse.h"
#include "lib/rand.h"

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

uint64_t plan_choice(struct rand *r)
{
	return rand_next(r) >> 11;
}

int plan_add(struct plan *p, const struct plan_event *ev, struct err *e)
{
	struct plan_event *slot;

	if (p->n >= PLAN_MAX_EVENTS)
		return err_set(e, ERR_USAGE, "the plan would hold more than "
			       "%d operations; make the schedules sparser",
			       PLAN_MAX_EVENTS);
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 64;
		p->events = xrealloc(p->events, p->cap * sizeof(*p->events));
	}
	slot = &p->events[p->n++];
	*slot = *ev;
	slot->op = dup_or_null(ev->op);
	slot->table = dup_or_null(ev->table);
	slot->with = dup_or_null(ev->with);
	slot->on = dup_or_null(ev->on);
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct plan_event *x = a, *y = b;

	if (x->at_ns != y->at_ns)
		return x->at_ns < y->at_ns ? -1 : 1;
	if (x->fault != y->fault)
		return x->fault < y->fault ? -1 : 1;
	if (x->workload != y->workload)
		return x->workload < y->workload ? -1 : 1;
	return 0;
}

/* The plans of a section's items, each from its own generator. */
static int plan_items(struct plan *p, const struct suite *s,
		      const struct suite_item *items, size_t n,
		      struct rand *root, struct err *e)
{
	for (size_t i = 0; i < n; i++) {
		const struct kind *k = items[i].type;
		struct rand r;

		rand_split(root, &r);
		if (k->plan && k->plan(s, &items[i], (int)i, p->duration_ns,
				       &r, p, e))
			return -1;
	}
	return 0;
}

int plan_build(struct plan *p, const struct suite *s, uint64_t seed,
	       int64_t duration_ns, struct err *e)
{
	struct rand root;

	p->seed = seed;
	p->duration_ns = duration_ns;
	rand_seed(&root, seed);
	/* Split for every item, planned or not: a change of one item's
	 * kind does not shift the others' draws. */
	if (plan_items(p, s, s->workloads, s->nworkloads, &root, e) ||
	    plan_items(p, s, s->faults, s->nfaults, &root, e))
		return -1;
	/* A stable sort is not needed: ties are broken by item, and one
	 * item never plans two operations at the same time. */
	if (p->n)
		qsort(p->events, p->n, sizeof(*p->events), by_time);
	return 0;
}

int plan_json(const struct plan *p, const struct suite *s, struct buf *out,
	      struct err *e)
{
	char d[64];
	int rc;

	rc = buf_addstr(out, "{\n  \"suite\": ", e) ||
	     json_quote(out, s->name, e) ||
	     buf_printf(out, e, ",\n  \"seed\": %llu,\n  \"duration\": \"%s\","
			"\n  \"duration_ns\": %lld,\n  \"faults\": [",
			(unsigned long long)p->seed,
			format_duration(p->duration_ns, d, sizeof(d)),
			(long long)p->duration_ns);
	/* Each fault item with every option, as the events use them. */
	for (size_t i = 0; !rc && i < s->nfaults; i++) {
		const struct suite_item *it = &s->faults[i];

		rc = buf_printf(out, e, "%s\n    {\"fault\": %zu, \"kind\": ",
				i ? "," : "", i) ||
		     json_quote(out, it->kind, e);
		for (size_t k = 0; !rc && k < it->nspecs; k++)
			rc = buf_addstr(out, ", ", e) ||
			     json_quote(out, it->specs[k].key, e) ||
			     buf_addstr(out, ": ", e) ||
			     optval_json(&it->specs[k], &it->vals[k], out, e);
		rc = rc || buf_addch(out, '}', e);
	}
	rc = rc || buf_addstr(out, s->nfaults ? "\n  ],\n  \"events\": ["
			      : "],\n  \"events\": [", e);
	for (size_t i = 0; !rc && i < p->n; i++) {
		const struct plan_event *ev = &p->events[i];
		const char *kind = ev->workload >= 0
				   ? s->workloads[ev->workload].kind
				   : s->faults[ev->fault].kind;

		rc = buf_printf(out, e, "%s\n    {\"at_ns\": %lld, ", i ? "," : "",
				(long long)ev->at_ns);
		if (!rc && ev->workload >= 0)
			rc = buf_printf(out, e, "\"workload\": %d, ",
					ev->workload);
		if (!rc && ev->fault >= 0)
			rc = buf_printf(out, e, "\"fault\": %d, ", ev->fault);
		/* When its heal is due, counted from the injection. */
		if (!rc && ev->heal_at_ns)
			rc = buf_printf(out, e, "\"heal_at_ns\": %lld, ",
					(long long)ev->heal_at_ns);
		rc = rc || buf_addstr(out, "\"kind\": ", e) ||
		     json_quote(out, kind, e);
		/* A triggered fault: at_ns arms it. */
		if (!rc && ev->on)
			rc = buf_addstr(out, ", \"on\": ", e) ||
			     json_quote(out, ev->on, e);
		if (!rc && ev->op)
			rc = buf_addstr(out, ", \"op\": ", e) ||
			     json_quote(out, ev->op, e);
		if (!rc && ev->table)
			rc = buf_addstr(out, ", \"table\": ", e) ||
			     json_quote(out, ev->table, e);
		if (!rc && ev->with)
			rc = buf_addstr(out, ", \"with\": ", e) ||
			     json_quote(out, ev->with, e);
		rc = rc || buf_printf(out, e, ", \"choice\": %llu}",
				      (unsigned long long)ev->choice);
	}
	rc = rc || buf_addstr(out, p->n ? "\n  ]\n}\n" : "]\n}\n", e);
	return rc ? -1 : 0;
}

void plan_release(struct plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->events[i].op);
		free(p->events[i].table);
		free(p->events[i].with);
		free(p->events[i].on);
	}
	free(p->events);
	p->events = NULL;
	p->n = p->cap = 0;
}
