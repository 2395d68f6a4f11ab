/*
 * summary.txt: a plain-text table of what happened — printed at the end of
 * a run on stderr too.
 */
#include <stdio.h>
#include <string.h>

#include "reports/report.h"

#define str report_str

int report_summary_text(const json_t *results, struct buf *out,
			struct err *e)
{
	const char *skip = json_string_value(json_object_get(results, "skip"));

	buf_printf(out, e, "suite %s, seed %lld, duration %s: %s\n",
		   str(results, "suite"),
		   (long long)json_integer_value(json_object_get(results,
								 "seed")),
		   str(results, "duration"), str(results, "verdict"));
	buf_printf(out, e, "run directory: %s\n", str(results, "run_dir"));
	if (*str(results, "cluster_data"))
		buf_printf(out, e, "cluster data: %s\n",
			   str(results, "cluster_data"));
	if (skip)
		return buf_printf(out, e, "skipped: %s\n", skip);
	if (*str(results, "aborted"))
		buf_printf(out, e, "aborted: %s\n", str(results, "aborted"));
	if (*str(results, "fixed"))
		buf_printf(out, e, "fixed: %s\n", str(results, "fixed"));
	buf_printf(out, e, "\n%-24s %-8s %s\n", "WHAT", "VERDICT", "SUMMARY");
	for (int s = 0; results_sections[s]; s++) {
		const json_t *items = json_object_get(results,
						      results_sections[s]);

		for (size_t i = 0; i < json_array_size(items); i++) {
			const json_t *it = json_array_get(items, i);
			const char *summary = str(it, "summary");

			if (!*summary)
				summary = *str(it, "skip") ? str(it, "skip")
							   : str(it, "message");
			buf_printf(out, e, "%-24s %-8s %s\n", str(it, "name"),
				   results_item_verdict(it), summary);
			if (*str(it, "numbers"))
				buf_printf(out, e, "%-24s %-8s %s\n", "", "",
					   str(it, "numbers"));
			if (*str(it, "known"))
				buf_printf(out, e, "%-24s %-8s known failure: "
					   "%s\n", "", "", str(it, "known"));
			if (*str(it, "unmet"))
				buf_printf(out, e, "%-24s %-8s %s\n", "", "",
					   str(it, "unmet"));
			results_rechecks_text(it, "                                  ",
					      "\n", out);
		}
	}
	return err_isset(e) ? -1 : 0;
}

static int build(const struct report_run *run, struct buf *out,
		 struct err *e)
{
	return report_summary_text(run->results, out, e);
}

const struct report_type report_summary = {
	"summary", "summary.txt", "a plain-text table of the verdicts", build,
};
