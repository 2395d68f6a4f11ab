/*
 * core/plan.c through the core API, no cluster and no runner, fed only the
 * kinds the suite names (the core knows no registry of its own): a seed
 * reproduces a plan byte for byte, another seed draws another, every event
 * falls at its schedule, and --duration changes how many cycles fit, never
 * the timing inside one: a shorter run's plan is the longer one's events
 * before its end (docs/suite-format.md, Durations).
 */
#include <jansson.h>
#include <string.h>

#include "core/plan.h"
#include "core/suite.h"
#include "faults/fault.h"
#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/err.h"
#include "tests/unit/tap.h"
#include "tests/unit/tmpdir.h"
#include "workloads/workload.h"

extern const struct workload_type workload_insert;
extern const struct workload_type workload_partition_ddl;
extern const struct fault_type fault_kill;

static const struct kind *workloads(size_t i)
{
	return i == 0 ? &workload_insert.kind
	     : i == 1 ? &workload_partition_ddl.kind : NULL;
}

static const struct kind *faults(size_t i)
{
	return i == 0 ? &fault_kill.kind : NULL;
}

static const struct kind *checks(size_t i)
{
	return NULL;
}

static const struct suite_kinds kinds = { workloads, faults, checks, NULL,
					  NULL };

static const char suite_text[] =
	"name: p\n"
	"duration: 30s\n"
	"tables:\n"
	"  - name: t\n"
	"    columns: \"id INT AUTO_INCREMENT PRIMARY KEY, data TEXT\"\n"
	"    partition: \"RANGE (id) (PARTITION p0 VALUES LESS THAN (200),\n"
	"      PARTITION p1 VALUES LESS THAN MAXVALUE)\"\n"
	"workloads:\n"
	"  - kind: insert\n"
	"    tables: t\n"
	"  - kind: partition_ddl\n"
	"    tables: t\n"
	"    ops: [truncate, drop_add]\n"
	"    every: 1s\n"
	"faults:\n"
	"  - kind: kill\n"
	"    target: cdc\n"
	"    every: 10s\n"
	"    jitter: 2s\n"
	"    down: 3s\n";

static char *plan_text(const struct suite *s, uint64_t seed,
		       int64_t duration_ns, struct plan *p)
{
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;

	memset(p, 0, sizeof(*p));
	if (plan_build(p, s, seed, duration_ns, &e) ||
	    plan_json(p, s, &out, &e)) {
		diag("plan: %s", e.msg);
		buf_release(&out);
		return NULL;
	}
	return buf_detach(&out, NULL);
}

/* The events of a plan.json, NULL on a parse error. */
static json_t *events_of(const char *text)
{
	json_t *doc = text ? json_loads(text, 0, NULL) : NULL;
	json_t *ev = json_incref(json_object_get(doc, "events"));

	json_decref(doc);
	return ev;
}

static void test_schedule(const struct suite *s)
{
	struct plan p;
	char *text = plan_text(s, 7, 30 * NS_PER_SEC, &p);
	size_t ddl = 0, faults = 0, sorted = 1, exact = 1, small = 1;
	int64_t last = -1;

	for (size_t i = 0; i < p.n; i++) {
		const struct plan_event *ev = &p.events[i];

		sorted &= ev->at_ns >= last;
		last = ev->at_ns;
		small &= ev->choice < (UINT64_C(1) << 53);
		if (ev->workload == 1) {
			/* every: 1s, from 1s, none at or after the end */
			exact &= ev->at_ns == (int64_t)(ddl + 1) * NS_PER_SEC;
			ddl++;
		} else if (ev->fault == 0) {
			/* every: 10s from start_after 5s, jitter < 2s */
			int64_t at = 5 * NS_PER_SEC +
				     (int64_t)faults * 10 * NS_PER_SEC;

			exact &= ev->at_ns >= at &&
				 ev->at_ns < at + 2 * NS_PER_SEC;
			faults++;
		}
	}
	is_int((long long)p.n, 32, "seed 7, 30 s: 32 events");
	is_int((long long)ddl, 29, "29 partition DDL, one a second");
	is_int((long long)faults, 3, "3 kills, one every 10 s");
	ok(exact, "each at its schedule (DDL on the second, kills within "
	   "their jitter)");
	ok(sorted, "in time order");
	ok(small, "every choice below 2^53 (exact in any JSON reader)");
	plan_release(&p);
	free(text);
}

static void test_seeds(const struct suite *s)
{
	struct plan a, b, c;
	char *ta = plan_text(s, 7, 30 * NS_PER_SEC, &a);
	char *tb = plan_text(s, 7, 30 * NS_PER_SEC, &b);
	char *tc = plan_text(s, 8, 30 * NS_PER_SEC, &c);

	ok(ta && tb && !strcmp(ta, tb), "the same seed: plan.json byte for "
	   "byte");
	ok(ta && tc && strcmp(ta, tc), "another seed: another plan");
	plan_release(&a);
	plan_release(&b);
	plan_release(&c);
	free(ta);
	free(tb);
	free(tc);
}

static void test_duration(const struct suite *s)
{
	struct plan a, b;
	char *long_text = plan_text(s, 7, 30 * NS_PER_SEC, &a);
	char *short_text = plan_text(s, 7, 15 * NS_PER_SEC, &b);
	json_t *all = events_of(long_text), *cut = events_of(short_text);
	json_t *before = json_array();
	size_t i;
	json_t *ev;

	json_array_foreach(all, i, ev)
		if (json_integer_value(json_object_get(ev, "at_ns")) <
		    15 * NS_PER_SEC)
			json_array_append(before, ev);
	is_int((long long)json_array_size(cut), 15, "15 s: 15 events (14 "
	       "DDL, 1 kill)");
	ok(cut && json_equal(cut, before), "--duration 15s: the 30 s plan's "
	   "events before 15 s, times and choices alike");
	json_decref(all);
	json_decref(cut);
	json_decref(before);
	plan_release(&a);
	plan_release(&b);
	free(long_text);
	free(short_text);
}

static const char triggered_text[] =
	"name: t\n"
	"duration: 30s\n"
	"tables:\n"
	"  - name: t\n"
	"    columns: \"id INT AUTO_INCREMENT PRIMARY KEY\"\n"
	"workloads:\n"
	"  - kind: insert\n"
	"    tables: t\n"
	"faults:\n"
	"  - kind: kill\n"
	"    target: cdc\n"
	"    at: [2s, 9s]\n"
	"    down: 3s\n"
	"    on: ddl\n"
	"  - kind: kill\n"
	"    target: upstream\n"
	"    on: heal\n"
	"    down: 1s\n";

/* Triggered items: armed at their times, or once at the start. */
static void test_triggered(struct tmpdir *t)
{
	struct suite s;
	struct err e = ERR_INIT;
	struct plan p;
	char *text = NULL;
	struct buf got = BUF_INIT;

	if (write_text(tmpdir_path(t, "t.yaml"), triggered_text) ||
	    suite_load(&s, tmpdir_path(t, "t.yaml"), &kinds, &e)) {
		diag("set-up: %s", e.msg);
		skip(4, "the triggered suite did not load");
		return;
	}
	text = plan_text(&s, 7, 30 * NS_PER_SEC, &p);
	for (size_t i = 0; i < p.n; i++)
		buf_printf(&got, NULL, "%lld %d %s %lld\n",
			   (long long)p.events[i].at_ns, p.events[i].fault,
			   p.events[i].on ? p.events[i].on : "-",
			   (long long)p.events[i].heal_at_ns);
	is_str(buf_str(&got), "0 1 heal 0\n2000000000 0 ddl 0\n"
	       "9000000000 0 ddl 0\n",
	       "at: armed at each time; on alone: once at the start; no heal "
	       "time known");
	ok(text && strstr(text, "{\"at_ns\": 2000000000, \"fault\": 0, "
			  "\"kind\": \"kill\", \"on\": \"ddl\", \"op\": "
			  "\"kill\""), "plan.json says what arms each");
	ok(text && strstr(text, "\"on\": \"heal\", \"on_ops\": null, "
			  "\"after\": null"), "and its item's options");
	ok(p.n == 3 && !strcmp(p.events[0].on, "heal"),
	   "the heal trigger first, at 0");
	buf_release(&got);
	plan_release(&p);
	free(text);
	suite_release(&s);
}

int main(void)
{
	struct tmpdir t;
	struct suite s;
	struct err e = ERR_INIT;

	plan(14);
	if (tmpdir_create(&t) ||
	    write_text(tmpdir_path(&t, "p.yaml"), suite_text) ||
	    suite_load(&s, tmpdir_path(&t, "p.yaml"), &kinds, &e)) {
		diag("set-up: %s", e.msg);
		return 1;
	}
	test_schedule(&s);
	test_seeds(&s);
	test_duration(&s);
	test_triggered(&t);
	suite_release(&s);
	tmpdir_remove(&t);
	return exit_status();
}
