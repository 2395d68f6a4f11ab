/*
 * core-drive: one workload and one fault driven through the core API,
 * with no runner (docs/internals.md, Layers): the suite loader fed only
 * the kinds it drives (insert, kill), the plan, a worker over the worker
 * API, the fault wrappers, the run's token, against a running local
 * cluster.
 *
 *   core-drive workload DIR SUITE HISTORY N
 *	one `insert` worker on up-0 of the local cluster in DIR until N
 *	inserts completed ok, then the token stops it; prints
 *	"ok=N fail=F info=I".
 *   core-drive fault DIR SUITE HISTORY
 *	the first planned event of fault 0 (`kill`) injected, then healed;
 *	prints "injected" and "healed" with their values.
 *
 * Exit 0 when it did what it says, 1 with the error on stderr.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clusters/cluster.h"
#include "core/plan.h"
#include "core/suite.h"
#include "core/worker.h"
#include "faults/fault.h"
#include "lib/cancel.h"
#include "lib/clock.h"
#include "lib/history.h"
#include "lib/log.h"
#include "workloads/workload.h"

extern const struct workload_type workload_insert;
extern const struct fault_type fault_kill;

static const struct kind *workloads(size_t i)
{
	return i == 0 ? &workload_insert.kind : NULL;
}

static const struct kind *faults(size_t i)
{
	return i == 0 ? &fault_kill.kind : NULL;
}

static const struct kind *checks(size_t i)
{
	(void)i;
	return NULL;
}

static const struct suite_kinds kinds = { workloads, faults, checks, NULL,
					  NULL };

static struct component *first_upstream(struct cluster *c)
{
	for (size_t i = 0; i < c->ncomps; i++)
		if (c->comps[i].roles & ROLE_UPSTREAM)
			return &c->comps[i];
	return NULL;
}

static int drive_workload(struct suite *s, struct plan *p, struct cluster *c,
			  struct history *h, uint64_t want, struct err *e)
{
	struct cancel stop = CANCEL_INIT;
	struct worker_env env = { p, h, &stop, component_connect, NULL, NULL };
	const struct workload_opts *o = workload_opts_of(&s->workloads[0]);
	struct component *up = first_upstream(c);
	int64_t deadline = clock_mono_ns() + 60 * NS_PER_SEC;
	struct worker w;
	pthread_t t;

	if (!up)
		return err_set(e, ERR_USAGE, "no upstream in the cluster");
	memset(&w, 0, sizeof(w));
	w.suite = s;
	w.item = &s->workloads[0];
	w.nthreads = 1;
	rand_seed(&w.rng, 1);
	w.node = up->name;
	w.dialect = DIALECT_MARIADB;
	w.tables = (char **)o->tables.v;
	w.ntables = o->tables.n;
	w.env = &env;
	w.comp = up;
	if (pthread_create(&t, NULL, workload_thread, &w))
		return err_set(e, ERR_INFRA, "cannot start the worker");
	/* Until the history holds N inserts, or a minute went by. */
	while (history_ok_inserts(h) < want && clock_mono_ns() < deadline)
		clock_sleep_ns(10 * NS_PER_MS);
	cancel_raise(&stop, CANCEL_STOP);
	pthread_join(t, NULL);
	printf("ok=%llu fail=%llu info=%llu\n", (unsigned long long)w.ok,
	       (unsigned long long)w.fail, (unsigned long long)w.info);
	if (w.ok < want)
		return err_set(e, ERR_INFRA, "%llu inserts of %llu in 60s",
			       (unsigned long long)w.ok,
			       (unsigned long long)want);
	return 0;
}

static int drive_fault(struct suite *s, struct plan *p, struct cluster *c,
		       struct history *h, struct err *e)
{
	struct cancel stop = CANCEL_INIT;
	struct fault_ctx ctx = { c, s, h, history_slot(h), &stop };
	struct fault_action act;
	struct err healing = ERR_INIT;
	const struct plan_event *ev = NULL;
	int rc;

	for (size_t i = 0; i < p->n && !ev; i++)
		if (p->events[i].fault == 0)
			ev = &p->events[i];
	if (!ev)
		return err_set(e, ERR_USAGE, "fault 0 has no planned event");
	rc = fault_inject(&ctx, &s->faults[0], 0, ev, NULL, &act, e);
	printf("injected %s %zu\n", rc ? "fail" : "ok", act.ntargets);
	/* Healed whatever the injection left, as the nemesis does. */
	if (fault_heal(&ctx, &act, &healing)) {
		printf("healed fail\n");
		if (!rc)
			*e = healing;
		rc = -1;
	} else {
		printf("healed ok\n");
	}
	fault_action_release(&act);
	return rc;
}

int main(int argc, char **argv)
{
	struct cluster_options co;
	struct cluster c;
	struct suite s;
	struct plan p = PLAN_INIT;
	struct history *h = NULL;
	struct err e = ERR_INIT;
	int workload = argc == 6 && !strcmp(argv[1], "workload");
	int rc = -1;

	if (!workload && !(argc == 5 && !strcmp(argv[1], "fault"))) {
		fprintf(stderr, "usage: core-drive workload DIR SUITE HISTORY "
			"N | fault DIR SUITE HISTORY\n");
		return 2;
	}
	log_set_level(LOG_WARN);
	sql_library_init();
	memset(&co, 0, sizeof(co));
	co.cluster = "local";
	co.dir = argv[2];
	/* The caller releases the suite, loaded or not (core/suite.h). */
	if (suite_load(&s, argv[3], &kinds, &e) ||
	    plan_build(&p, &s, 1, s.duration_ns, &e) ||
	    cluster_open(&c, &co, &e))
		goto release;
	if (!history_open(&h, argv[4], clock_mono_ns(), &e))
		rc = workload ? drive_workload(&s, &p, &c, h,
					       strtoull(argv[5], NULL, 10), &e)
			      : drive_fault(&s, &p, &c, h, &e);
	if (h) {
		struct err closing = ERR_INIT;

		if (history_close(h, &closing) && !rc) {
			e = closing;
			rc = -1;
		}
	}
	cluster_close(&c);
release:
	plan_release(&p);
	suite_release(&s);
	sql_library_end();
	if (rc)
		fprintf(stderr, "core-drive: %s\n", e.msg);
	return rc ? 1 : 0;
}
