#include "checkers/checker.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/suite.h"
#include "lib/cancel.h"
#include "lib/clock.h"
#include "lib/parse.h"

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_PASS:
		return "pass";
	case VERDICT_FAIL:
		return "fail";
	case VERDICT_UNKNOWN:
		return "unknown";
	case VERDICT_SKIP:
		break;
	}
	return "skip";
}

void check_verdict(struct check_result *r, enum verdict v, const char *fmt,
		   ...)
{
	va_list ap;

	r->verdict = v;
	va_start(ap, fmt);
	vsnprintf(r->message, sizeof(r->message), fmt, ap);
	va_end(ap);
	/* The message goes into results.json, which must stay valid JSON:
	 * bytes of the run's files that are not UTF-8, or a character cut
	 * by the truncation, become '?'. */
	for (char *p = r->message, *end = p + strlen(p); p < end;) {
		size_t n = utf8_len(p, (size_t)(end - p));

		if (!n)
			*p++ = '?';
		else if (*p == '\n')
			*p++ = ' ';
		else
			p += n;
	}
}

int check_interrupted(const struct check_ctx *ctx)
{
	return cancelled(ctx->cancel, CANCEL_HURRY);
}

void checker_run(const struct check_ctx *ctx, const struct suite_item *it,
		 struct check_result *r)
{
	const struct checker_type *t = checker_type_of(it);
	struct err e = ERR_INIT;
	int64_t start = clock_mono_ns();

	memset(r, 0, sizeof(*r));
	buf_init(&r->details, 0);
	if (t->live && !ctx->cluster) {
		check_verdict(r, VERDICT_SKIP, "needs the cluster, which is "
			      "not running");
		return;
	}
	if (t->run(ctx, it, r, &e)) {
		buf_reset(&r->details);
		check_verdict(r, VERDICT_UNKNOWN, "%s", e.msg);
	}
	r->took_ns = clock_mono_ns() - start;
}

void check_result_release(struct check_result *r)
{
	buf_release(&r->details);
}
