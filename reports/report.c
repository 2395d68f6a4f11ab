#include "reports/report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/history.h"
#include "lib/parse.h"

const char *const results_sections[] = {
	"workloads", "faults", "checks", "exits", NULL,
};

static int item_is(const json_t *item, const char *verdict)
{
	const char *v = json_string_value(json_object_get(item, "verdict"));

	return v && !strcmp(v, verdict);
}

int results_exit_code(const json_t *results)
{
	const char *top = json_string_value(json_object_get(results,
							    "verdict"));
	int fail = 0, error = 0;

	if (top && (!strcmp(top, "interrupted") ||
		    !strcmp(top, "incomplete")))
		return 4;
	if (top && !strcmp(top, "skip"))
		return 0;
	if (json_object_get(results, "aborted"))
		return 3;
	for (int s = 0; results_sections[s]; s++) {
		const json_t *items = json_object_get(results,
						      results_sections[s]);

		for (size_t i = 0; i < json_array_size(items); i++) {
			const json_t *it = json_array_get(items, i);

			/* A known failure (the suite's expect:) fails
			 * nothing; it is shown as known. */
			if (json_object_get(it, "known"))
				continue;
			fail |= item_is(it, "fail");
			error |= item_is(it, "unknown") || item_is(it, "error");
		}
	}
	return fail ? 1 : error ? 3 : 0;
}

json_t *results_exit_item(const char *component, int exits,
			  int64_t first_ns, const char *value)
{
	json_t *details = json_loads(value ? value : "{}", 0, NULL);
	json_t *pid = json_object_get(details, "pid");
	struct buf name = BUF_INIT, text = BUF_INIT;
	json_t *o;

	if (!json_is_object(details)) {
		json_decref(details);
		details = json_object();
	}
	buf_printf(&name, NULL, "exit %s", component);
	buf_printf(&text, NULL, "%s ended on its own %d time%s, first %.1fs "
		   "in", component, exits, exits == 1 ? "" : "s",
		   (double)first_ns / 1e9);
	if (json_is_integer(pid))
		buf_printf(&text, NULL, " (pid %lld)",
			   (long long)json_integer_value(pid));
	buf_addstr(&text, ", not ended by tichaos", NULL);
	o = json_pack("{s:s, s:s, s:i, s:I, s:s, s:s, s:s, s:O}",
		      "name", buf_str(&name), "component", component,
		      "exits", exits, "first_ns", (json_int_t)first_ns,
		      "verdict", "fail", "summary", buf_str(&text),
		      "message", report_str(details, "last_line"),
		      "details", details);
	json_decref(details);
	buf_release(&name);
	buf_release(&text);
	return o;
}

const char *results_item_verdict(const json_t *item)
{
	return json_object_get(item, "known") ? "known"
	       : json_string_value(json_object_get(item, "verdict"));
}

void results_rechecks_text(const json_t *item, const char *prefix,
			   const char *end, struct buf *out)
{
	const json_t *r = json_object_get(item, "rechecks");

	for (size_t i = 0; i < json_array_size(r); i++) {
		const json_t *x = json_array_get(r, i);
		const char *text = report_str(x, "text");

		buf_printf(out, NULL, "%s%s %s: %s%s%s", prefix,
			   strcmp(report_str(x, "by"), "run") ? "checked again"
			   : "the run, at", report_str(x, "at"),
			   json_object_get(x, "known") ? "known"
			   : report_str(x, "verdict"), *text ? ": " : "", text);
		buf_addstr(out, end, NULL);
	}
}

const char *results_verdict(const json_t *results)
{
	static const char *const names[] = {
		"pass", "fail", "error", "error", "interrupted",
	};

	return names[results_exit_code(results)];
}

const char *report_str(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : "";
}

#define str report_str

/* A YAML double-quoted string: JSON's escaping is valid YAML. */
static void quoted(struct buf *out, const char *s)
{
	json_t *j = json_string(s);
	char *text = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;

	buf_addstr(out, text ? text : "\"\"", NULL);
	free(text);
	json_decref(j);
}

/* The YAML block of a failed item's test point. */
static void tap_yaml(struct buf *out, const json_t *results,
		     const json_t *it, struct err *e)
{
	const char *dir = str(results, "run_dir");

	buf_printf(out, e, "  ---\n  verdict: %s\n  message: ",
		   str(it, "verdict"));
	quoted(out, str(it, "message"));
	if (*str(it, "numbers")) {
		buf_addstr(out, "\n  numbers: ", e);
		quoted(out, str(it, "numbers"));
	}
	if (*str(it, "unmet")) {
		buf_addstr(out, "\n  expected: ", e);
		quoted(out, str(it, "unmet"));
	}
	buf_addstr(out, "\n  run_dir: ", e);
	quoted(out, dir);
	buf_printf(out, e, "\n  seed: %lld\n  replay: ", (long long)
		   json_integer_value(json_object_get(results, "seed")));
	buf_addstr(out, "\"tichaos replay ", e);
	buf_addstr(out, dir, e);
	buf_addstr(out, "\"\n  ...\n", e);
}

/*
 * The stream declares TAP version 13. It uses only what TAP 13 and 14
 * share (a plan, test points, # SKIP, YAML diagnostics), so TAP 14
 * readers take it as it is, and Debian's prove (Test::Harness 3.44)
 * refuses a "TAP version 14" line: `prove --exec './tichaos run'` would
 * not work.
 */
int report_tap_sections(const json_t *results, const char *const *sections,
			struct buf *out, struct err *e)
{
	const char *skip = json_string_value(json_object_get(results, "skip"));
	const char *dir = str(results, "run_dir");
	size_t total = 0;
	int point = 0;

	buf_addstr(out, "TAP version 13\n", e);
	if (skip)
		return buf_printf(out, e, "1..0 # SKIP %s\n", skip);
	for (int s = 0; sections[s]; s++)
		total += json_array_size(json_object_get(results,
							 sections[s]));
	buf_printf(out, e, "1..%zu\n", total);
	/* The servers carry the fix of the bug the suite catches. */
	if (*str(results, "fixed"))
		buf_printf(out, e, "# %s\n", str(results, "fixed"));
	for (int s = 0; sections[s]; s++) {
		const json_t *items = json_object_get(results, sections[s]);

		for (size_t i = 0; i < json_array_size(items); i++) {
			const json_t *it = json_array_get(items, i);
			int bad = item_is(it, "fail") ||
				  item_is(it, "unknown") ||
				  item_is(it, "error");
			const char *summary = str(it, "summary");

			buf_printf(out, e, "%s %d - %s%s%s", bad ? "not ok"
				   : "ok", ++point, str(it, "name"),
				   *summary ? ": " : "", summary);
			if (item_is(it, "skip"))
				buf_printf(out, e, " # SKIP %s",
					   str(it, "skip"));
			else if (bad && *str(it, "known"))
				buf_printf(out, e, " # TODO known failure: %s",
					   str(it, "known"));
			else if (!bad && *str(it, "unmet"))
				buf_printf(out, e, " # TODO %s",
					   str(it, "unmet"));
			buf_addch(out, '\n', e);
			if (bad)
				tap_yaml(out, results, it, e);
			/* After the YAML block, which must follow its point. */
			results_rechecks_text(it, "# ", "\n", out);
		}
	}
	/* An interrupted run is no verdict on the cluster: TAP's way to
	 * say the stream stopped short, which prove reports as a failure. */
	if (!strcmp(str(results, "verdict"), "interrupted"))
		buf_printf(out, e, "Bail out! interrupted by a signal; what "
			   "was recorded is in %s\n", dir);
	else if (*str(results, "aborted"))
		buf_printf(out, e, "Bail out! aborted: %s; what was recorded "
			   "is in %s\n", str(results, "aborted"), dir);
	else if (!strcmp(str(results, "verdict"), "incomplete"))
		buf_printf(out, e, "Bail out! incomplete: %s (%s)\n",
			   str(results, "incomplete"), dir);
	return err_isset(e) ? -1 : 0;
}

static int build_tap(const struct report_run *run, struct buf *out,
		     struct err *e)
{
	return report_tap_sections(run->results, results_sections, out, e);
}

const struct report_type report_tap = {
	"tap", "report.tap", "TAP (13): one test point per workload, fault "
	"and check", build_tap,
};

void results_judge_workload(json_t *item, const char *skip_reason)
{
	json_int_t ok = json_integer_value(json_object_get(item, "ok"));
	json_int_t fail = json_integer_value(json_object_get(item, "fail"));
	json_int_t info = json_integer_value(json_object_get(item, "info"));
	json_int_t skipped = json_integer_value(json_object_get(item,
								"skipped"));
	json_int_t refused = json_integer_value(json_object_get(item,
								"refused"));
	int ignore = json_is_true(json_object_get(item, "ignore_errors"));
	const char *verdict, *skip = NULL;
	struct buf text = BUF_INIT;

	buf_printf(&text, NULL, "%lld ok, %lld fail, %lld info", (long long)ok,
		   (long long)fail, (long long)info);
	if (refused)
		buf_printf(&text, NULL, ", %lld refused", (long long)refused);
	if (skipped)
		buf_printf(&text, NULL, ", %lld skipped (%s)",
			   (long long)skipped, skip_reason);
	if (ignore && fail + info && ok)
		buf_addstr(&text, ", errors ignored", NULL);
	verdict = (!ignore && fail + info) || (!ok && fail + info) ? "fail"
								   : "pass";
	if (!strcmp(verdict, "pass") && !ok && !refused) {
		verdict = "skip";
		skip = skipped ? skip_reason : "no operation was due";
	}
	json_object_set_new(item, "verdict", json_string(verdict));
	json_object_set_new(item, "summary", json_string(buf_str(&text)));
	json_object_set_new(item, "message", json_string(
		strcmp(verdict, "fail") ? "" : ok ? "operations failed and "
		"ignore_errors is false" : "no operation succeeded"));
	if (skip)
		json_object_set_new(item, "skip", json_string(skip));
	else
		json_object_del(item, "skip");
	buf_release(&text);
}

/* The item of `items` whose "processes" range holds `process`. */
static json_t *worker_item(json_t *items, json_int_t process)
{
	for (size_t i = 0; i < json_array_size(items); i++) {
		json_t *it = json_array_get(items, i);
		json_t *p = json_object_get(it, "processes");

		if (json_integer_value(json_array_get(p, 0)) <= process &&
		    process <= json_integer_value(json_array_get(p, 1)))
			return it;
	}
	return NULL;
}

static void add(json_t *o, const char *key, json_int_t n)
{
	json_object_set_new(o, key, json_integer(
		json_integer_value(json_object_get(o, key)) + n));
}

struct recount {
	json_t *results;
	json_int_t last;
};

/* An exit watch's record (process "monitor", f "exited"): its
 * component's item in "exits", made or counted once more. */
static void count_exit(json_t *results, const struct history_line *l)
{
	json_t *items = json_object_get(results, "exits");
	char *value = xstrndup(l->value ? l->value : "{}",
			       l->value ? l->value_len : 2);
	size_t i;

	for (i = 0; i < json_array_size(items); i++)
		if (!strcmp(str(json_array_get(items, i), "component"),
			    l->target))
			break;
	if (i == json_array_size(items)) {
		json_array_append_new(items, results_exit_item(l->target, 1,
							       l->time, value));
	} else {
		json_t *it = json_array_get(items, i);
		char *first = json_dumps(json_object_get(it, "details"),
					 JSON_COMPACT);

		json_array_set_new(items, i, results_exit_item(
			l->target, (int)json_integer_value(json_object_get(
				it, "exits")) + 1,
			json_integer_value(json_object_get(it, "first_ns")),
			first));
		free(first);
	}
	free(value);
}

/* One history line: its worker's or its fault's counts. */
static int count_line(const struct history_line *l, void *arg)
{
	struct recount *rc = arg;
	json_t *items;

	if (l->time > rc->last)
		rc->last = l->time;
	if (l->process >= 0) {
		json_t *it = worker_item(json_object_get(rc->results,
							 "workloads"),
					 l->process);
		json_t *steps = json_object_get(it, "per_step");
		json_int_t step_s = json_integer_value(json_object_get(steps,
								       "step_s"));
		json_t *arr;
		size_t at;

		if (!it || !strcmp(l->type, "invoke"))
			return 0;
		/* A refusal is no error of the workload (lib/history.h). */
		if (!strcmp(l->type, "fail") && l->error &&
		    !strncmp(l->error, HISTORY_REFUSED,
			     strlen(HISTORY_REFUSED))) {
			add(it, "refused", 1);
			return 0;
		}
		add(it, l->type, 1);
		arr = json_object_get(steps, strcmp(l->type, "ok") ? "errors"
								   : "ok");
		at = step_s > 0 ? (size_t)(l->time / (step_s * 1000000000))
				: 0;
		if (l->time >= 0 && at < json_array_size(arr))
			json_array_set_new(arr, at, json_integer(
				json_integer_value(json_array_get(arr, at)) +
				1));
		return 0;
	}
	if (l->process == HISTORY_MONITOR && !strcmp(l->f, "exited") &&
	    l->target) {
		count_exit(rc->results, l);
		return 0;
	}
	/* The nemesis: an injection that took effect (info) or not (fail),
	 * credited to the first fault of that kind. */
	if (l->process != HISTORY_NEMESIS)
		return 0;
	items = json_object_get(rc->results, "faults");
	for (size_t i = 0; i < json_array_size(items); i++) {
		json_t *it = json_array_get(items, i);

		if (strcmp(str(it, "kind"), l->f))
			continue;
		if (!strcmp(l->type, "info"))
			add(it, "injected", 1);
		else if (!strcmp(l->type, "fail"))
			add(it, "failed", 1);
		break;
	}
	return 0;
}

int results_recount(json_t *results, const char *run_dir, struct err *e)
{
	json_t *items = json_object_get(results, "workloads");
	struct recount counts = { results, 0 };
	struct err why = ERR_INIT;
	char path[4200], total[32];
	struct buf text = BUF_INIT;

	/* From zero: a second report of the same run counts the same. */
	for (size_t i = 0; i < json_array_size(items); i++) {
		json_t *it = json_array_get(items, i);
		json_t *steps = json_object_get(it, "per_step");
		static const char *const keys[] = { "ok", "errors", NULL };

		json_object_set_new(it, "ok", json_integer(0));
		json_object_set_new(it, "fail", json_integer(0));
		json_object_set_new(it, "info", json_integer(0));
		json_object_del(it, "refused");
		for (int k = 0; keys[k]; k++) {
			json_t *arr = json_object_get(steps, keys[k]);

			for (size_t s = 0; s < json_array_size(arr); s++)
				json_array_set_new(arr, s, json_integer(0));
		}
	}
	for (size_t i = 0; i < json_array_size(json_object_get(results,
							       "faults")); i++) {
		json_t *it = json_array_get(json_object_get(results, "faults"),
					    i);

		json_object_set_new(it, "injected", json_integer(0));
		json_object_set_new(it, "failed", json_integer(0));
	}
	json_object_set_new(results, "exits", json_array());
	snprintf(path, sizeof(path), "%s/history.jsonl", run_dir);
	/* No history yet (the run ended before its workers): all zero. A
	 * line that is no record is not counted. */
	if (history_read(path, 0, count_line, &counts, NULL, &why) &&
	    access(path, F_OK) == 0)
		return err_set(e, why.class, "%s", why.msg);
	for (size_t i = 0; i < json_array_size(items); i++)
		results_judge_workload(json_array_get(items, i), "");
	items = json_object_get(results, "faults");
	for (size_t i = 0; i < json_array_size(items); i++) {
		json_t *it = json_array_get(items, i);
		json_int_t inj = json_integer_value(json_object_get(it,
								    "injected"));
		json_int_t bad = json_integer_value(json_object_get(it,
								    "failed"));

		buf_reset(&text);
		buf_printf(&text, NULL, "%lld of %lld injected", (long long)inj,
			   (long long)json_integer_value(json_object_get(it,
				   "planned")));
		if (bad)
			buf_printf(&text, NULL, ", %lld did not take effect",
				   (long long)bad);
		buf_addstr(&text, " (heals not known: the run did not finish)",
			   NULL);
		json_object_set_new(it, "summary", json_string(buf_str(&text)));
		json_object_set_new(it, "verdict", json_string(
			bad ? "error" : inj ? "pass" : "skip"));
		if (!bad && !inj)
			json_object_set_new(it, "skip",
					    json_string("nothing was recorded"));
		else
			json_object_del(it, "skip");
	}
	buf_reset(&text);
	format_duration((int64_t)json_integer_value(json_object_get(results,
			"duration_ns")), total, sizeof(total));
	buf_printf(&text, NULL, "the run did not finish: counted from "
		   "history.jsonl, up to %.1fs of %s; no check ran",
		   (double)counts.last / 1e9, total);
	json_object_set_new(results, "incomplete",
			    json_string(buf_str(&text)));
	buf_release(&text);
	return 0;
}

int reports_write(const struct report_run *run, struct err *e)
{
	for (int i = 0; report_types[i]; i++) {
		const struct report_type *t = report_types[i];
		struct buf out = BUF_INIT;
		char path[4200];
		int rc;

		snprintf(path, sizeof(path), "%s/%s", run->run_dir, t->file);
		rc = t->build(run, &out, e) ||
		     buf_write_file(&out, path, 0644, e);
		buf_release(&out);
		if (rc)
			return -1;
	}
	return 0;
}

int results_save(const json_t *results, const char *run_dir, struct err *e)
{
	char *text = json_dumps(results, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	struct buf out = BUF_INIT;
	char path[4200];
	int rc;

	snprintf(path, sizeof(path), "%s/results.json", run_dir);
	rc = !text || buf_addstr(&out, text, e) || buf_addch(&out, '\n', e) ||
	     buf_write_file(&out, path, 0644, e);
	free(text);
	buf_release(&out);
	return rc ? -1 : 0;
}

int results_load(const char *run_dir, json_t **results, struct err *e)
{
	char path[4200];
	json_error_t jerr;

	snprintf(path, sizeof(path), "%s/results.json", run_dir);
	*results = json_load_file(path, 0, &jerr);
	if (!*results)
		return err_set(e, ERR_USAGE, "'%s' is not a finished run: %s",
			       run_dir, jerr.text);
	return 0;
}
