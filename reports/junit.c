/*
 * junit.xml: one testsuite per suite, one testcase per workload, fault and
 * check, the way CI servers read it (failure = a bug found, error = the
 * infrastructure, skipped), with the seed and the cluster as properties
 * and the summary as system-out.
 */
#include <string.h>

#include "reports/report.h"

#define xml report_escape_xml

void report_escape_xml(struct buf *out, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '&')
			buf_addstr(out, "&amp;", NULL);
		else if (c == '<')
			buf_addstr(out, "&lt;", NULL);
		else if (c == '>')
			buf_addstr(out, "&gt;", NULL);
		else if (c == '"')
			buf_addstr(out, "&quot;", NULL);
		else if (c < 0x20 && c != '\n' && c != '\t')
			buf_addch(out, ' ', NULL);
		else
			buf_addch(out, (char)c, NULL);
	}
}

#define str report_str

static int is(const json_t *it, const char *verdict)
{
	return !strcmp(str(it, "verdict"), verdict);
}

/* The testcase of item `it` (`skip`: why the whole suite was skipped). */
static void testcase(struct buf *out, const char *suite, const json_t *it,
		     const char *skip, struct err *e)
{
	const char *known = json_string_value(json_object_get(it, "known"));
	const char *unmet = json_string_value(json_object_get(it, "unmet"));
	struct buf others = BUF_INIT;
	const char *tag = known ? NULL : is(it, "fail") ? "failure"
			  : is(it, "unknown") || is(it, "error") ? "error"
			  : NULL;

	buf_addstr(out, "    <testcase classname=\"", e);
	xml(out, suite);
	buf_addstr(out, "\" name=\"", e);
	xml(out, str(it, "name"));
	buf_printf(out, e, "\" time=\"%.3f\"", (double)json_integer_value(
			   json_object_get(it, "took_ms")) / 1000.0);
	if (!tag && !known && !unmet && !is(it, "skip") &&
	    !skip && !json_object_get(it, "rechecks")) {
		buf_addstr(out, "/>\n", e);
		return;
	}
	buf_addstr(out, ">\n", e);
	if (known) {
		/* A known failure: skipped, with its note and what it
		 * said. */
		buf_addstr(out, "      <skipped message=\"known failure: ", e);
		xml(out, known);
		buf_addstr(out, "\">", e);
		xml(out, str(it, "message"));
		buf_addstr(out, "</skipped>\n", e);
	} else if (tag) {
		buf_printf(out, e, "      <%s type=\"%s\" message=\"", tag,
			   str(it, "verdict"));
		xml(out, str(it, "message"));
		buf_addstr(out, "\">", e);
		xml(out, str(it, "numbers"));
		buf_printf(out, e, "</%s>\n", tag);
	} else if (is(it, "skip") || skip) {
		buf_addstr(out, "      <skipped message=\"", e);
		xml(out, skip ? skip : str(it, "skip"));
		buf_addstr(out, "\"/>\n", e);
	}
	results_rechecks_text(it, "", "\n", &others);
	if (unmet || others.len) {
		buf_addstr(out, "      <system-out>", e);
		if (unmet)
			xml(out, unmet);
		if (unmet && others.len)
			xml(out, "\n");
		xml(out, buf_str(&others));
		buf_addstr(out, "</system-out>\n", e);
	}
	buf_release(&others);
	buf_addstr(out, "    </testcase>\n", e);
}

static int build(const struct report_run *run, struct buf *out,
		 struct err *e)
{
	const json_t *results = run->results;
	const char *suite = str(results, "suite");
	const char *skip = json_string_value(json_object_get(results, "skip"));
	int tests = 0, failures = 0, errors = 0, skipped = 0;
	double seconds = (double)json_integer_value(json_object_get(
		results, "duration_ns")) / 1e9;
	struct buf summary = BUF_INIT;

	for (int s = 0; results_sections[s]; s++) {
		const json_t *items = json_object_get(results,
						      results_sections[s]);

		for (size_t i = 0; i < json_array_size(items); i++) {
			const json_t *it = json_array_get(items, i);

			tests++;
			if (json_object_get(it, "known")) {
				skipped++;
				continue;
			}
			failures += is(it, "fail");
			errors += is(it, "unknown") || is(it, "error");
			skipped += is(it, "skip") || skip;
		}
	}
	buf_addstr(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", e);
	buf_printf(out, e, "<testsuites name=\"tichaos\" tests=\"%d\" "
		   "failures=\"%d\" errors=\"%d\" skipped=\"%d\" "
		   "time=\"%.3f\">\n", tests, failures, errors, skipped,
		   seconds);
	buf_addstr(out, "  <testsuite name=\"", e);
	xml(out, suite);
	buf_printf(out, e, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" "
		   "skipped=\"%d\" time=\"%.3f\" timestamp=\"", tests,
		   failures, errors, skipped, seconds);
	xml(out, str(results, "started"));
	buf_addstr(out, "\">\n    <properties>\n", e);
	buf_printf(out, e, "      <property name=\"seed\" value=\"%lld\"/>\n",
		   (long long)json_integer_value(json_object_get(results,
								 "seed")));
	buf_addstr(out, "      <property name=\"cluster\" value=\"", e);
	xml(out, str(results, "cluster"));
	buf_addstr(out, "\"/>\n      <property name=\"run_dir\" value=\"", e);
	xml(out, str(results, "run_dir"));
	buf_addstr(out, "\"/>\n", e);
	if (*str(results, "fixed")) {
		buf_addstr(out, "      <property name=\"fixed\" value=\"", e);
		xml(out, str(results, "fixed"));
		buf_addstr(out, "\"/>\n", e);
	}
	buf_addstr(out, "    </properties>\n", e);
	for (int s = 0; results_sections[s]; s++) {
		const json_t *items = json_object_get(results,
						      results_sections[s]);

		for (size_t i = 0; i < json_array_size(items); i++)
			testcase(out, suite, json_array_get(items, i), skip, e);
	}
	report_summary_text(results, &summary, e);
	buf_addstr(out, "    <system-out>", e);
	xml(out, buf_str(&summary));
	buf_addstr(out, "</system-out>\n  </testsuite>\n</testsuites>\n", e);
	buf_release(&summary);
	return err_isset(e) ? -1 : 0;
}

const struct report_type report_junit = {
	"junit", "junit.xml", "JUnit XML for CI servers", build,
};
