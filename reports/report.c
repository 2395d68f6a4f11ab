#include "reports/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const all_sections[] = {
	"workloads", "faults", "checks", NULL,
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

	if (top && !strcmp(top, "interrupted"))
		return 4;
	if (top && !strcmp(top, "skip"))
		return 0;
	for (int s = 0; all_sections[s]; s++) {
		const json_t *items = json_object_get(results, all_sections[s]);

		for (size_t i = 0; i < json_array_size(items); i++) {
			const json_t *it = json_array_get(items, i);

			fail |= item_is(it, "fail");
			error |= item_is(it, "unknown") || item_is(it, "error");
		}
	}
	return fail ? 1 : error ? 3 : 0;
}

const char *results_verdict(const json_t *results)
{
	static const char *const names[] = {
		"pass", "fail", "error", "error", "interrupted",
	};

	return names[results_exit_code(results)];
}

static const char *str(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : "";
}

/* A YAML double-quoted string: JSON's escaping is valid YAML. */
static void quoted(struct buf *out, const char *s)
{
	json_t *j = json_string(s);
	char *text = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;

	buf_addstr(out, text ? text : "\"\"", NULL);
	free(text);
	json_decref(j);
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
			buf_addch(out, '\n', e);
			if (!bad)
				continue;
			buf_printf(out, e, "  ---\n  verdict: %s\n  message: ",
				   str(it, "verdict"));
			quoted(out, str(it, "message"));
			if (*str(it, "numbers")) {
				buf_addstr(out, "\n  numbers: ", e);
				quoted(out, str(it, "numbers"));
			}
			buf_addstr(out, "\n  run_dir: ", e);
			quoted(out, dir);
			buf_printf(out, e, "\n  seed: %lld\n  replay: ",
				   (long long)json_integer_value(
					   json_object_get(results, "seed")));
			buf_addstr(out, "\"tichaos replay ", e);
			buf_addstr(out, dir, e);
			buf_addstr(out, "\"\n  ...\n", e);
		}
	}
	/* An interrupted run is no verdict on the cluster: TAP's way to
	 * say the stream stopped short, which prove reports as a failure. */
	if (!strcmp(str(results, "verdict"), "interrupted"))
		buf_printf(out, e, "Bail out! interrupted by a signal; what "
			   "was recorded is in %s\n", dir);
	return err_isset(e) ? -1 : 0;
}

static int build_tap(const json_t *results, const char *run_dir,
		     struct buf *out, struct err *e)
{
	(void)run_dir;
	return report_tap_sections(results, all_sections, out, e);
}

const struct report_type report_tap = {
	"tap", "report.tap", "TAP (13): one test point per workload, fault "
	"and check", build_tap,
};

int reports_write(const json_t *results, const char *run_dir, struct err *e)
{
	for (int i = 0; report_types[i]; i++) {
		const struct report_type *t = report_types[i];
		struct buf out = BUF_INIT;
		char path[4200];
		int rc;

		snprintf(path, sizeof(path), "%s/%s", run_dir, t->file);
		rc = t->build(results, run_dir, &out, e) ||
		     buf_write_file(&out, path, 0644, e);
		buf_release(&out);
		if (rc)
			return -1;
	}
	return 0;
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
