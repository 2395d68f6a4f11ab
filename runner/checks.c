#include "runner/checks.h"

#include <stdio.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/history.h"
#include "lib/log.h"
#include "runner/suite.h"

void checks_run(const struct check_ctx *ctx, struct check_result *out)
{
	const struct suite *s = ctx->suite;

	for (size_t i = 0; i < s->nchecks; i++) {
		log_info("check %zu %s", i + 1, s->checks[i].kind);
		checker_run(ctx, &s->checks[i], &out[i]);
		log_info("check %zu %s: %s: %s", i + 1, s->checks[i].kind,
			 verdict_name(out[i].verdict), out[i].message);
	}
}

int checks_tap(struct buf *tap, int *point, const struct suite *s,
	       const struct check_result *res, const char *run_dir,
	       uint64_t seed, struct err *e)
{
	int failed = 0, unknown = 0;

	for (size_t i = 0; i < s->nchecks; i++) {
		const struct check_result *r = &res[i];
		int bad = r->verdict == VERDICT_FAIL ||
			  r->verdict == VERDICT_UNKNOWN;

		failed += r->verdict == VERDICT_FAIL;
		unknown += r->verdict == VERDICT_UNKNOWN;
		buf_printf(tap, e, "%s %d - %s", bad ? "not ok" : "ok",
			   ++*point, s->checks[i].kind);
		if (r->verdict == VERDICT_SKIP)
			buf_printf(tap, e, " # SKIP %s", r->message);
		else if (!bad && r->message[0])
			buf_printf(tap, e, ": %s", r->message);
		buf_addch(tap, '\n', e);
		if (!bad)
			continue;
		buf_addstr(tap, "  ---\n  verdict: ", e);
		buf_addstr(tap, verdict_name(r->verdict), e);
		buf_addstr(tap, "\n  message: ", e);
		json_quote(tap, r->message, e);
		if (r->numbers[0]) {
			buf_addstr(tap, "\n  numbers: ", e);
			json_quote(tap, r->numbers, e);
		}
		buf_addstr(tap, "\n  run_dir: ", e);
		json_quote(tap, run_dir, e);
		buf_printf(tap, e, "\n  seed: %llu\n  replay: ",
			   (unsigned long long)seed);
		buf_addstr(tap, "\"tichaos replay ", e);
		buf_addstr(tap, run_dir, e);
		buf_addstr(tap, "\"\n  ...\n", e);
	}
	return failed ? 1 : unknown ? 3 : 0;
}

int checks_json(struct buf *out, const struct suite *s,
		const struct check_result *res, struct err *e)
{
	int rc = buf_addstr(out, "\"checks\":[", e);

	for (size_t i = 0; !rc && i < s->nchecks; i++) {
		const struct check_result *r = &res[i];

		rc = buf_printf(out, e, "%s{\"index\":%zu,\"kind\":\"%s\","
				"\"verdict\":\"%s\",\"message\":", i ? "," : "",
				i + 1, s->checks[i].kind,
				verdict_name(r->verdict)) ||
		     json_quote(out, r->message, e) ||
		     buf_addstr(out, ",\"numbers\":", e) ||
		     json_quote(out, r->numbers, e) ||
		     buf_printf(out, e, ",\"took_ms\":%lld,\"details\":{%s}}",
				(long long)(r->took_ns / NS_PER_MS),
				buf_str(&r->details));
	}
	return rc || buf_addch(out, ']', e) ? -1 : 0;
}

void checks_release(const struct suite *s, struct check_result *res)
{
	if (!res)
		return;
	for (size_t i = 0; i < s->nchecks; i++)
		check_result_release(&res[i]);
}
