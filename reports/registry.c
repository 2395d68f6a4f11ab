#include "reports/report.h"

extern const struct report_type report_html;
extern const struct report_type report_junit;
extern const struct report_type report_summary;
extern const struct report_type report_tap;

/* The only place a report is added. */
const struct report_type *const report_types[] = {
	&report_tap,
	&report_junit,
	&report_summary,
	&report_html,
	NULL,
};
