/*
 * What came of a run: results.json (docs/results.md) from the workers'
 * counts and latencies, the nemesis's counts and the checks' verdicts,
 * then every report from it.
 */
#include "faults/fault.h"
#include "runner/kinds.h"
#include "runner/run_state.h"

#include <ftw.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"
#include "lib/hist.h"
#include "lib/parse.h"
#include "reports/report.h"
#include "runner/checks.h"

/* "name", "verdict", "summary", "message", "skip" of an item. */
static void set_item(json_t *it, const char *name, const char *verdict,
		     const char *summary, const char *message,
		     const char *skip)
{
	json_object_set_new(it, "name", json_string(name));
	json_object_set_new(it, "verdict", json_string(verdict));
	json_object_set_new(it, "summary", json_string(summary));
	json_object_set_new(it, "message", json_string(message));
	if (skip)
		json_object_set_new(it, "skip", json_string(skip));
}

/*
 * The workload's steps (docs/results.md): ok operations, and the p50 /
 * p99 latency in ms, merged from its workers' histograms, over the run.
 */
static json_t *per_step(const struct state *st, const struct suite_item *it)
{
	int64_t step = run_latency_step(st->plan.duration_ns);
	size_t steps = (size_t)((st->plan.duration_ns + step - 1) / step);
	json_t *ok = json_array(), *p50 = json_array(), *p99 = json_array();
	json_t *errors = json_array();

	for (size_t s = 0; s < steps; s++) {
		struct hist h;
		uint64_t n = 0, bad = 0;

		memset(&h, 0, sizeof(h));
		for (size_t j = 0; j < st->nworkers; j++) {
			const struct worker *w = &st->workers[j];

			if (w->item != it || s >= w->steps)
				continue;
			hist_merge(&h, &w->latency[s]);
			n += w->ok_per_step[s];
			bad += w->errors_per_step[s];
		}
		json_array_append_new(ok, json_integer((json_int_t)n));
		json_array_append_new(errors, json_integer((json_int_t)bad));
		json_array_append_new(p50, json_integer(
			hist_quantile(&h, 0.5) / 1000));
		json_array_append_new(p99, json_integer(
			hist_quantile(&h, 0.99) / 1000));
	}
	return json_pack("{s:I, s:o, s:o, s:o, s:o}", "step_s",
			 (json_int_t)(step / NS_PER_SEC), "ok", ok,
			 "errors", errors, "p50_us", p50, "p99_us", p99);
}

/* One item per workload: its counts, failing on errors that were not to
 * be ignored, or when nothing succeeded. */
static json_t *workload_items(struct state *st)
{
	json_t *items = json_array();

	for (size_t i = 0; i < st->suite.nworkloads; i++) {
		const struct suite_item *it = &st->suite.workloads[i];
		uint64_t ok = 0, fail = 0, info = 0, skipped = 0, refused = 0;
		int ignore = workload_opts_of(it)->ignore_errors;
		const char *reason = "";
		char name[128];
		json_t *o;

		for (size_t j = 0; j < st->nworkers; j++) {
			const struct worker *w = &st->workers[j];

			if (w->item != it)
				continue;
			ok += w->ok;
			fail += w->fail;
			info += w->info;
			skipped += w->skipped;
			refused += w->refused;
			if (w->skip_reason[0])
				reason = w->skip_reason;
		}
		snprintf(name, sizeof(name), "workload %zu %s", i + 1,
			 it->kind);
		o = json_pack("{s:I, s:s, s:I, s:I, s:I, s:I, s:b, s:s}",
			      "index", (json_int_t)(i + 1), "kind", it->kind,
			      "ok", (json_int_t)ok, "fail", (json_int_t)fail,
			      "info", (json_int_t)info,
			      "skipped", (json_int_t)skipped,
			      "ignore_errors", ignore, "name", name);
		if (refused)
			json_object_set_new(o, "refused", json_integer(
				(json_int_t)refused));
		results_judge_workload(o, reason);
		/* Not started: a run stopped before its workloads. */
		if (!st->nworkers && st->aborted[0])
			json_object_set_new(o, "skip", json_string(
				"the run stopped before its workloads"));
		json_object_set_new(o, "per_step", per_step(st, it));
		/* Its workers' process numbers in the history. */
		for (size_t j = 0; j < st->nworkers; j++)
			if (st->workers[j].item == it) {
				json_object_set_new(o, "processes", json_pack(
					"[I, I]",
					(json_int_t)st->workers[j].process,
					(json_int_t)(st->workers[j].process +
						     st->workers[j].nthreads -
						     1)));
				break;
			}
		json_array_append_new(items, o);
	}
	return items;
}

/* One item per fault: injections that took effect, heals. */
static json_t *fault_items(struct state *st)
{
	json_t *items = json_array();

	for (size_t i = 0; i < st->suite.nfaults; i++) {
		const struct suite_item *it = &st->suite.faults[i];
		const struct nemesis_counts *c = st->nemesis_started ?
			&st->nemesis.counts[i] : NULL;
		int heals = fault_type_of(it)->heal != NULL;
		uint64_t planned = 0;
		struct buf text = BUF_INIT;
		char name[128];
		const char *verdict;
		json_t *o;

		for (size_t j = 0; j < st->plan.n; j++)
			planned += st->plan.events[j].fault == (int)i;
		buf_printf(&text, NULL, "%llu of %llu injected",
			   (unsigned long long)(c ? c->injected : 0),
			   (unsigned long long)planned);
		if (heals)
			buf_printf(&text, NULL, ", %llu healed",
				   (unsigned long long)(c ? c->healed : 0));
		if (c && c->failed)
			buf_printf(&text, NULL, ", %llu did not take effect",
				   (unsigned long long)c->failed);
		if (c && c->heal_failed)
			buf_printf(&text, NULL, ", %llu heals failed",
				   (unsigned long long)c->heal_failed);
		/* Armed, and what fires it never came. */
		if (c && c->unfired)
			buf_printf(&text, NULL, ", %llu never fired (no %s "
				   "record came once armed)",
				   (unsigned long long)c->unfired,
				   fault_trigger_names[
					   fault_opts_of(it)->on]);
		verdict = !c ? "skip" : c->failed || c->heal_failed ? "error"
			  : planned ? "pass" : "skip";
		snprintf(name, sizeof(name), "fault %zu %s", i + 1, it->kind);
		o = json_pack("{s:I, s:s, s:I, s:I, s:I, s:I, s:I}",
			      "index", (json_int_t)(i + 1), "kind", it->kind,
			      "planned", (json_int_t)planned,
			      "injected", (json_int_t)(c ? c->injected : 0),
			      "failed", (json_int_t)(c ? c->failed : 0),
			      "healed", (json_int_t)(c ? c->healed : 0),
			      "heal_failed",
			      (json_int_t)(c ? c->heal_failed : 0));
		if (fault_opts_of(it)->on >= 0)
			json_object_set_new(o, "unfired", json_integer(
				(json_int_t)(c ? c->unfired : 0)));
		set_item(o, name, verdict, buf_str(&text),
			 c ? c->first_error : "", !c ? "not run"
			 : !planned ? "nothing was due" : NULL);
		json_array_append_new(items, o);
		buf_release(&text);
	}
	return items;
}

/* One item per component that ended on its own (the exit watch). */
static json_t *exit_items(const struct state *st)
{
	json_t *items = json_array();

	for (size_t i = 0; st->cluster_open && i < st->cluster.ncomps; i++) {
		const struct component *comp = &st->cluster.comps[i];

		if (comp->exits)
			json_array_append_new(items, results_exit_item(
				comp->name, comp->exits, comp->first_exit_ns,
				comp->first_exit));
	}
	return items;
}

/* results.json's items and identity, without its verdict. */
static json_t *results_json(struct state *st, const char *skip,
			    const struct run_options *o)
{
	char d[32], started[32], reason[64];
	time_t now = st->started ? st->started : time(NULL);
	struct tm tm;
	json_t *r;

	gmtime_r(&now, &tm);
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", &tm);
	r = json_pack("{s:s, s:I, s:s, s:I, s:s, s:s, s:s}",
		      "suite", st->suite.name,
		      "seed", (json_int_t)st->plan.seed,
		      "duration", format_duration(st->plan.duration_ns, d,
						  sizeof(d)),
		      "duration_ns", (json_int_t)st->plan.duration_ns,
		      "started", started, "cluster",
		      /* Without --cluster: the kind the cluster layer
		       * opens then. */
		      o->cluster ? o->cluster : cluster_kind(NULL),
		      "run_dir", st->dir);
	if (o->replay_of)
		json_object_set_new(r, "replay_of", json_string(o->replay_of));
	if (skip) {
		snprintf(reason, sizeof(reason), "requires %s", skip);
		json_object_set_new(r, "skip", json_string(reason));
	}
	if (st->fixed[0])
		json_object_set_new(r, "fixed", json_string(st->fixed));
	json_object_set_new(r, "workloads", workload_items(st));
	json_object_set_new(r, "faults", fault_items(st));
	json_object_set_new(r, "checks", checks_items(&st->suite, st->checks,
				cluster_kind(o->cluster)));
	json_object_set_new(r, "exits", exit_items(st));
	return r;
}

/*
 * Before the workers start: results.json with every item at zero and the
 * verdict "incomplete", which the end of the run replaces. A runner
 * killed in between leaves it for `tichaos report`, which counts what
 * history.jsonl recorded (results_recount).
 */
int run_write_stub(struct state *st, const struct run_options *o,
		   struct err *e)
{
	json_t *r = results_json(st, NULL, o);
	int rc;

	json_object_set_new(r, "verdict", json_string("incomplete"));
	json_object_set_new(r, "incomplete", json_string("the run has not "
							 "finished"));
	rc = results_save(r, st->dir, e);
	json_decref(r);
	return rc;
}

/* The data directory of a component the run made, inside its directory. */
const char *run_own_data(const struct state *st, size_t i)
{
	const char *d = st->cluster.comps[i].data_dir;
	char dir[PATH_MAX], real[PATH_MAX];
	size_t n;

	/* runs/... as given, or as the cluster wrote it, absolute. */
	if (!d || !st->dir[0] || !realpath(st->dir, dir) || !realpath(d, real))
		return NULL;
	n = strlen(dir);
	return !strncmp(real, dir, n) && real[n] == '/' ? d : NULL;
}

static __thread uint64_t tree_size;

static int add_size(const char *path, const struct stat *sb, int flag,
		    struct FTW *ftw)
{
	(void)path;
	(void)flag;
	(void)ftw;
	tree_size += (uint64_t)sb->st_blocks * 512;
	return 0;
}

/*
 * What becomes of the data of a cluster the run started (st->drop_data),
 * said in results.json's "cluster_data": gone when the run passed, unless
 * --keep-data or --keep-cluster; kept when anything did not pass, for
 * whoever looks into why.
 */
static void data_fate(struct state *st, const struct run_options *o,
		      const char *verdict, json_t *r)
{
	char size[32], text[256];
	size_t n = 0;

	if (!st->cluster_started || !st->cluster_open)
		return;
	tree_size = 0;
	for (size_t i = 0; i < st->cluster.ncomps; i++)
		if (run_own_data(st, i) && !nftw(run_own_data(st, i), add_size,
						 16, FTW_PHYS))
			n++;
	if (!n)
		return;
	snprintf(size, sizeof(size), "%.0f MB", (double)tree_size / 1e6);
	st->drop_data = !o->keep_cluster && !o->keep_data &&
			!strcmp(verdict, "pass");
	if (st->drop_data)
		snprintf(text, sizeof(text), "%s in cluster/*/data, removed: "
			 "the run passed (--keep-data keeps it)", size);
	else
		snprintf(text, sizeof(text), "%s in cluster/*/data, kept: %s",
			 size, o->keep_cluster ? "the cluster keeps running"
			 : o->keep_data ? "--keep-data"
			 : "the run did not pass");
	json_object_set_new(r, "cluster_data", json_string(text));
}

int run_finish(struct state *st, const char *skip,
	       const struct run_options *o, int interrupted, struct err *e)
{
	struct buf tap = BUF_INIT, summary = BUF_INIT;
	struct err re = ERR_INIT;
	json_t *r = results_json(st, skip, o);
	int rc;

	if (st->aborted[0] && !interrupted)
		json_object_set_new(r, "aborted", json_string(st->aborted));
	json_object_set_new(r, "verdict", json_string(
		skip ? "skip" : interrupted ? "interrupted"
		: results_verdict(r)));
	data_fate(st, o, json_string_value(json_object_get(r, "verdict")), r);
	/* An error already recorded (an interrupted start) must not stop
	 * the reports of what was done: they get an error of their own. */
	rc = results_save(r, st->dir, &re) ||
	     kinds_reports_write(r, st->dir, &re) ||
	     report_tap_sections(r, results_sections, &tap, &re);
	if (rc)
		err_set(e, re.class ? re.class : ERR_INFRA, "%s", re.msg);
	if (!rc) {
		fputs(buf_str(&tap), stdout);
		fflush(stdout);
		st->tap_printed = 1;
		if (!o->quiet && !report_summary_text(r, &summary, NULL))
			fprintf(stderr, "\n%s", buf_str(&summary));
	}
	rc = rc ? -1 : results_exit_code(r);
	json_decref(r);
	buf_release(&tap);
	buf_release(&summary);
	return rc;
}
