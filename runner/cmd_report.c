#include <stdio.h>
#include <string.h>

#include "reports/report.h"
#include "runner/kinds.h"
#include "runner/runner.h"

/* Rebuild every report of a run from its results.json; the TAP stream
 * goes to stdout and the exit code is the run's. */
int cmd_report(int argc, char **argv)
{
	const char *index = NULL;
	const struct opt opts[] = {
		{ "index", 0, &index, NULL, NULL },
		{ NULL, 0, NULL, NULL, NULL },
	};
	int n = opts_parse(command_find("report"), opts, argc, argv);
	struct buf tap = BUF_INIT;
	struct err e = ERR_INIT;
	const char *verdict;
	json_t *results;
	int rc;

	if (index && n)
		die(EXIT_USAGE, "report: --index DIR takes no RUN_DIR");
	if (index) {
		if (report_index(index, &e))
			die_err(&e);
		return EXIT_PASS;
	}
	if (n != 1)
		die(EXIT_USAGE, "report: expected one RUN_DIR (see 'tichaos "
		    "help report')");
	if (results_load(argv[1], &results, &e))
		die_err(&e);
	verdict = json_string_value(json_object_get(results, "verdict"));
	/* A run that did not finish: what its history recorded. */
	if (verdict && !strcmp(verdict, "incomplete") &&
	    (results_recount(results, argv[1], &e) ||
	     results_save(results, argv[1], &e)))
		die_err(&e);
	if (kinds_reports_write(results, argv[1], &e) ||
	    report_tap_sections(results, results_sections, &tap, &e))
		die_err(&e);
	fputs(buf_str(&tap), stdout);
	rc = results_exit_code(results);
	json_decref(results);
	buf_release(&tap);
	return rc;
}
