/*
 * tichaos shrink RUN_DIR: a smaller plan that still fails the check the
 * run failed (docs/shrink.md). Delta debugging (Zeller's ddmin) over the
 * events of the run's plan.json — its faults and its scheduled DDL — then
 * a shorter duration, each candidate run by `tichaos replay` of a
 * directory holding the suite as run and the candidate's plan.json (a
 * plan whose events are some of the drawn plan's, which replay accepts).
 * Runs are not deterministic: a candidate fails when one of --tries runs
 * fails that check, and the search stops at --budget with the smallest
 * failing plan found so far.
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "lib/proc.h"
#include "reports/report.h"
#include "runner/runner.h"

struct shrink {
	const char *run;	/* the failed run */
	char out[PATH_MAX];	/* where candidates and the result go */
	char check[128];	/* the name of the check it failed */
	json_t *plan;		/* its plan.json */
	json_t *events;		/* its events */
	const char *cluster;	/* --cluster of every candidate's run */
	const char *port_base;
	int tries;
	int64_t budget_ns, start_ns;
	int over;		/* the budget ran out */
	size_t ncand;
	json_t *log;		/* every candidate: shrink.json */
	size_t best_n;		/* the smallest failing plan's events */
	int64_t best_ns;	/* and duration */
};

/* The first check the run failed, by name; -1 when none did. */
static int failed_check(const char *dir, char *name, size_t size)
{
	json_t *r = NULL;
	const json_t *checks;
	int rc = -1;

	if (results_load(dir, &r, NULL))
		return -1;
	checks = json_object_get(r, "checks");
	for (size_t i = 0; rc && i < json_array_size(checks); i++) {
		const json_t *c = json_array_get(checks, i);
		const char *v = json_string_value(json_object_get(c, "verdict"));

		if (v && !strcmp(v, "fail")) {
			snprintf(name, size, "%s", json_string_value(
				json_object_get(c, "name")));
			rc = 0;
		}
	}
	json_decref(r);
	return rc;
}

/* The events `keep` (indexes into s->events) over `duration_ns`. */
static json_t *plan_of(const struct shrink *s, const size_t *keep, size_t n,
		       int64_t duration_ns)
{
	json_t *p = json_deep_copy(s->plan), *ev = json_array();
	char d[64];

	for (size_t i = 0; i < n; i++)
		json_array_append(ev, json_array_get(s->events, keep[i]));
	json_object_set_new(p, "events", ev);
	json_object_set_new(p, "duration_ns", json_integer(duration_ns));
	json_object_set_new(p, "duration", json_string(
		format_duration(duration_ns, d, sizeof(d))));
	return p;
}

/* suite.yaml as run and `plan` into `dir`, as replay reads them. */
static int write_candidate(const struct shrink *s, const char *dir,
			   const json_t *plan, struct err *e)
{
	struct buf suite = BUF_INIT;
	char path[PATH_MAX + 32];
	int rc;

	if (mkdir(dir, 0755))
		return err_errno(e, errno, "cannot create '%s'", dir);
	snprintf(path, sizeof(path), "%s/suite.yaml", s->run);
	rc = buf_read_file(&suite, path, e);
	snprintf(path, sizeof(path), "%s/suite.yaml", dir);
	rc = rc || buf_write_file(&suite, path, 0644, e);
	snprintf(path, sizeof(path), "%s/plan.json", dir);
	if (!rc && json_dump_file(plan, path, JSON_INDENT(2) |
				  JSON_PRESERVE_ORDER))
		rc = err_set(e, ERR_INFRA, "cannot write '%s'", path);
	buf_release(&suite);
	return rc ? -1 : 0;
}

/* Did the run in `dir` fail the check? 1 yes, 0 no. */
static int fails_check(const struct shrink *s, const char *dir)
{
	char name[128];

	return !failed_check(dir, name, sizeof(name)) &&
	       !strcmp(name, s->check);
}

/*
 * One candidate, up to s->tries runs: 1 when one of them fails the
 * check, 0 when none does (or the budget ran out first).
 */
static int candidate(struct shrink *s, const size_t *keep, size_t n,
		     int64_t duration_ns, struct err *e)
{
	json_t *plan = plan_of(s, keep, n, duration_ns);
	char dir[PATH_MAX + 16], run[PATH_MAX + 32], d[64];
	int failed = 0, t;

	snprintf(dir, sizeof(dir), "%s/c%03zu", s->out, ++s->ncand);
	if (write_candidate(s, dir, plan, e)) {
		json_decref(plan);
		return -1;
	}
	json_decref(plan);
	for (t = 1; !failed && t <= s->tries; t++) {
		const char *argv[12] = { "/proc/self/exe", "replay", dir,
					 "--out", run, "--quiet" };
		struct proc p = PROC_INIT;
		int k = 6;

		if (clock_mono_ns() - s->start_ns >= s->budget_ns) {
			s->over = 1;
			break;
		}
		snprintf(run, sizeof(run), "%s/try%d", dir, t);
		if (s->cluster)
			argv[k++] = "--cluster", argv[k++] = s->cluster;
		if (s->port_base)
			argv[k++] = "--port-base", argv[k++] = s->port_base;
		argv[k] = NULL;
		p.argv = argv;
		p.out = "/dev/null";
		if (proc_start(&p, e) || proc_wait(&p, -1, e) < 0)
			return -1;
		failed = fails_check(s, run);
	}
	log_info("candidate %zu: %zu events over %s: %s", s->ncand, n,
		 format_duration(duration_ns, d, sizeof(d)),
		 failed ? "fails" : s->over ? "budget spent" : "passes");
	json_array_append_new(s->log, json_pack(
		"{s:s, s:I, s:I, s:b, s:i}", "dir", dir, "events", (json_int_t)n,
		"duration_ns", (json_int_t)duration_ns, "fails", failed,
		"runs", t - 1));
	return failed;
}

/*
 * ddmin: the events of `keep` (n, failing) cut down to a subset that
 * still fails, each of whose events it needs, as far as the tries tell.
 */
static int ddmin(struct shrink *s, size_t *keep, size_t *n,
		 int64_t duration_ns, struct err *e)
{
	size_t parts = 2, *sub = xcalloc(*n + 1, sizeof(*sub));

	while (*n >= 2 && !s->over) {
		size_t chunk = (*n + parts - 1) / parts, m;
		int found = 0;

		/* Each part alone, then each complement. */
		for (int comp = 0; comp < 2 && !found && !s->over; comp++)
			for (size_t i = 0; i < parts && !found; i++) {
				size_t lo = i * chunk, hi = lo + chunk;
				int rc;

				if (lo >= *n)
					break;
				m = 0;
				for (size_t j = 0; j < *n; j++)
					if ((j >= lo && j < hi) == !comp)
						sub[m++] = keep[j];
				if (!m || m == *n)
					continue;
				rc = candidate(s, sub, m, duration_ns, e);
				if (rc < 0) {
					free(sub);
					return -1;
				}
				if (rc) {
					memcpy(keep, sub, m * sizeof(*sub));
					*n = m;
					parts = comp ? (parts > 2 ? parts - 1 : 2)
						     : 2;
					found = 1;
				}
			}
		if (found)
			continue;
		if (parts >= *n)
			break;
		parts = parts * 2 < *n ? parts * 2 : *n;
	}
	free(sub);
	return 0;
}

/* The last kept event's end (its heal, when it has one), whole seconds
 * up, and one more for what it set off. A triggered one (`on:`) may fire
 * any time after its arming: it needs the whole run. */
static int64_t needed_ns(const struct shrink *s, const size_t *keep,
			 size_t n)
{
	int64_t end = 0;

	for (size_t i = 0; i < n; i++) {
		const json_t *ev = json_array_get(s->events, keep[i]);
		int64_t at = json_integer_value(json_object_get(ev, "at_ns"));

		if (json_object_get(ev, "on"))
			return json_integer_value(json_object_get(
				s->plan, "duration_ns"));
		at += json_integer_value(json_object_get(ev, "heal_at_ns"));
		if (at > end)
			end = at;
	}
	return (end / NS_PER_SEC + 2) * NS_PER_SEC;
}

static int write_result(struct shrink *s, const size_t *keep, size_t n,
			int64_t duration_ns, struct err *e)
{
	json_t *plan = plan_of(s, keep, n, duration_ns), *sum;
	char path[PATH_MAX + 32];
	int rc;

	snprintf(path, sizeof(path), "%s/smallest", s->out);
	rc = write_candidate(s, path, plan, e);
	json_decref(plan);
	sum = json_pack("{s:s, s:s, s:i, s:{s:I, s:I}, s:{s:I, s:I}, s:b, "
			"s:O}", "run", s->run, "check", s->check, "tries",
			s->tries, "events", "from",
			(json_int_t)json_array_size(s->events), "to",
			(json_int_t)n, "duration_ns", "from",
			json_integer_value(json_object_get(s->plan,
							   "duration_ns")),
			"to", (json_int_t)duration_ns, "budget_spent", s->over,
			"candidates", s->log);
	snprintf(path, sizeof(path), "%s/shrink.json", s->out);
	if (!rc && json_dump_file(sum, path, JSON_INDENT(1) |
				  JSON_PRESERVE_ORDER))
		rc = err_set(e, ERR_INFRA, "cannot write '%s'", path);
	json_decref(sum);
	return rc;
}

static int shrink(struct shrink *s, struct err *e)
{
	size_t n = json_array_size(s->events);
	size_t *keep = xcalloc(n + 1, sizeof(*keep));
	int64_t d = json_integer_value(json_object_get(s->plan,
						       "duration_ns"));
	int rc;

	for (size_t i = 0; i < n; i++)
		keep[i] = i;
	/* The whole plan first: a failure that does not come back in
	 * --tries runs cannot be shrunk. */
	rc = candidate(s, keep, n, d, e);
	if (rc == 0 && !s->over)
		rc = err_set(e, ERR_INFRA, "%s did not fail %s again in %d "
			     "runs of its whole plan: nothing to shrink",
			     s->run, s->check, s->tries);
	else if (rc == 0)
		rc = err_set(e, ERR_INFRA, "the budget was spent before the "
			     "whole plan ran");
	else if ((rc = candidate(s, keep, 0, d, e)) == 1)
		n = 0;		/* no event needed at all */
	if (rc >= 0 && n)
		rc = ddmin(s, keep, &n, d, e);
	if (rc >= 0 && !s->over && needed_ns(s, keep, n) < d) {
		rc = candidate(s, keep, n, needed_ns(s, keep, n), e);
		if (rc == 1)
			d = needed_ns(s, keep, n);
	}
	if (rc >= 0)
		rc = write_result(s, keep, n, d, e);
	s->best_n = n;
	s->best_ns = d;
	free(keep);
	return rc < 0 ? -1 : 0;
}

int cmd_shrink(int argc, char **argv)
{
	const char *tries = NULL, *budget = NULL, *out = NULL;
	struct shrink s = { NULL };
	const struct opt opts[] = {
		{ "tries", 0, &tries, NULL, NULL },
		{ "budget", 0, &budget, NULL, NULL },
		{ "out", 0, &out, NULL, NULL },
		{ "cluster", 0, &s.cluster, NULL, NULL },
		{ "port-base", 0, &s.port_base, NULL, NULL },
		{ NULL, 0, NULL, NULL, NULL },
	};
	int n = opts_parse(command_find("shrink"), opts, argc, argv);
	struct err e = ERR_INIT;
	char path[PATH_MAX + 16];
	int64_t v;
	struct stat sb;

	if (n != 1)
		die(EXIT_USAGE, "shrink: expected one RUN_DIR (see 'tichaos "
		    "help shrink')");
	s.run = argv[1];
	s.tries = 3;
	if (tries && parse_int64(tries, 1, 100, &v, &e))
		die(EXIT_USAGE, "shrink: --tries: %s", e.msg);
	if (tries)
		s.tries = (int)v;
	s.budget_ns = INT64_MAX;
	if (budget && parse_duration(budget, &s.budget_ns, &e))
		die(EXIT_USAGE, "shrink: --budget: %s", e.msg);
	if (failed_check(s.run, s.check, sizeof(s.check)))
		die(EXIT_USAGE, "shrink: '%s' failed no check (results.json): "
		    "nothing to shrink", s.run);
	snprintf(path, sizeof(path), "%s/plan.json", s.run);
	s.plan = json_load_file(path, 0, NULL);
	s.events = json_object_get(s.plan, "events");
	if (!json_is_array(s.events))
		die(EXIT_USAGE, "shrink: '%s' has no plan.json with events",
		    s.run);
	snprintf(s.out, sizeof(s.out), "%s", out ? out : "");
	if (!out)
		snprintf(s.out, sizeof(s.out), "%s/shrink", s.run);
	/* Each candidate on a local cluster of its own, on free ports. */
	if (!s.cluster && !s.port_base)
		s.port_base = "auto";
	if (!stat(s.out, &sb))
		die(EXIT_USAGE, "shrink: '%s' already exists", s.out);
	if (mkdir(s.out, 0755))
		die(EXIT_INFRA, "shrink: cannot create '%s': %s", s.out,
		    strerror(errno));
	s.log = json_array();
	s.start_ns = clock_mono_ns();
	log_info("shrink %s: %zu events, failing %s, %d tries a candidate",
		 s.run, json_array_size(s.events), s.check, s.tries);
	if (shrink(&s, &e)) {
		json_decref(s.log);
		json_decref(s.plan);
		die_err(&e);
	}
	printf("%s/smallest: %zu of %zu events over %s fail %s%s "
	       "(%zu candidates; tichaos replay %s/smallest)\n", s.out,
	       s.best_n, json_array_size(s.events),
	       format_duration(s.best_ns, path, sizeof(path)), s.check,
	       s.over ? ", the budget spent" : "", s.ncand, s.out);
	json_decref(s.log);
	json_decref(s.plan);
	return EXIT_PASS;
}
