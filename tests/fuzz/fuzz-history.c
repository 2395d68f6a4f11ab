/*
 * The history reader (history_read, lib/histread.c: its validating
 * JSON-lines scanner, lib/histrec.c and lib/jsonscan.c) through two of
 * its callers: the ids checker's judge (checkers/ids.c) and the HTML
 * report's timeline (reports/html.c), on the path `tichaos check
 * RUN_DIR` takes. The input is history.jsonl.
 *
 * The suite around it is one of three, picked by the input's length so
 * that a stored input always replays the same way: the ids check with its
 * defaults; on table t only, one violation reported; unique ids only.
 *
 * Whatever the history holds, the check must reach a verdict that goes
 * into results.json: one item per check, with its verdict and its details
 * (valid JSON).
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "checkers/checker.h"
#include "core/suite.h"
#include "faults/fault.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/log.h"
#include "reports/report.h"
#include "runner/checks.h"
#include "runner/kinds.h"
#include "tests/fuzz/fuzz.h"

#define NSUITES 3

static const char suite_head[] =
	"name: fuzz-history\n"
	"duration: 10s\n"
	"database: test\n"
	"tables:\n"
	"  - name: [t, u]\n"
	"    columns: \"id int primary key auto_increment, k int\"\n"
	"    options: \"AUTO_ID_CACHE=1\"\n"
	"workloads:\n"
	"  - kind: insert\n"
	"    tables: [t, u]\n"
	"    column: k\n"
	"checks:\n";

static const char *const suite_checks[NSUITES] = {
	"  - kind: ids\n",
	"  - kind: ids\n    tables: [t]\n    max_report: 1\n",
	"  - kind: ids\n    monotonic: false\n",
};

/* What results.json says besides the checks: a minute, one workload. */
static const char results_text[] =
	"{\"suite\":\"fuzz-history\",\"seed\":1,\"duration_ns\":60000000000,"
	"\"duration\":\"1m\",\"verdict\":\"pass\",\"workloads\":[{\"name\":"
	"\"insert\",\"verdict\":\"pass\",\"per_step\":{\"step_s\":5,"
	"\"ok\":[10,20,30],\"errors\":[0,1,0],\"p50_us\":[100,200,300],"
	"\"p99_us\":[900,800,700]}}],\"faults\":[]}";

static struct suite suites[NSUITES];
static int loaded;

static void release_suites(void)
{
	for (int i = 0; i < NSUITES; i++)
		suite_release(&suites[i]);
}

static void load_suites(void)
{
	struct buf text = BUF_INIT;
	struct err e = ERR_INIT;

	for (int i = 0; i < NSUITES; i++) {
		buf_reset(&text);
		buf_addstr(&text, suite_head, NULL);
		buf_addstr(&text, suite_checks[i], NULL);
		if (suite_load(&suites[i], fuzz_file("suite.yaml", text.data,
						     text.len),
			       &tichaos_kinds, &e))
			fuzz_fail("the harness's suite %d: %s", i, e.msg);
	}
	buf_release(&text);
	loaded = 1;
	atexit(release_suites);
}

static const struct report_type *html_report(void)
{
	for (size_t i = 0; report_types[i]; i++)
		if (!strcmp(report_types[i]->name, "html"))
			return report_types[i];
	fuzz_fail("no html report");
}

int fuzz_history(const uint8_t *data, size_t size)
{
	const struct suite *s;
	struct check_ctx ctx = { NULL, NULL, NULL, -1, NULL };
	struct check_result res[2];
	struct buf html = BUF_INIT;
	struct err e = ERR_INIT;
	json_t *results, *items;

	log_set_level(LOG_ERROR);
	if (!loaded)
		load_suites();
	s = &suites[size % NSUITES];
	fuzz_file("history.jsonl", data, size);
	ctx.suite = s;
	ctx.run_dir = fuzz_dir();
	checks_run(&ctx, res);
	items = checks_items(s, res, NULL);
	if (json_array_size(items) != s->nchecks)
		fuzz_fail("%zu results.json items for %zu checks (verdict "
			  "%s: %s)", json_array_size(items), s->nchecks,
			  verdict_name(res[0].verdict), res[0].message);
	for (size_t i = 0; i < s->nchecks; i++) {
		const json_t *it = json_array_get(items, i);

		if (!json_is_string(json_object_get(it, "verdict")))
			fuzz_fail("results.json item %zu has no verdict", i);
		if (res[i].details.len &&
		    !json_object_size(json_object_get(it, "details")))
			fuzz_fail("the details of check %zu are not JSON: "
				  "{%s}", i, buf_str(&res[i].details));
	}
	results = json_loads(results_text, 0, NULL);
	if (!results)
		fuzz_fail("the harness's results.json does not parse");
	json_object_set_new(results, "checks", items);
	html_report()->build(&(struct report_run){ results, ctx.run_dir,
				     fault_holds_all(), checker_drawers() },
			     &html, &e);
	json_decref(results);
	buf_release(&html);
	checks_release(s, res);
	return 0;
}

#ifdef LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_history(data, size);
}
#endif
