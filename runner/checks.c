#include "runner/checks.h"

#include <stdio.h>
#include <string.h>

#include "lib/clock.h"
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

json_t *checks_items(const struct suite *s, const struct check_result *res)
{
	json_t *items = json_array();

	for (size_t i = 0; i < s->nchecks; i++) {
		const struct check_result *r = res ? &res[i] : NULL;
		struct buf text = BUF_INIT;
		json_t *o, *details;

		buf_addch(&text, '{', NULL);
		if (r)
			buf_add(&text, r->details.data, r->details.len, NULL);
		buf_addch(&text, '}', NULL);
		details = json_loads(buf_str(&text), 0, NULL);
		buf_release(&text);
		o = json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:I}",
			      "index", (json_int_t)(i + 1),
			      "kind", s->checks[i].kind,
			      "name", s->checks[i].kind,
			      "verdict", r ? verdict_name(r->verdict) : "skip",
			      "summary", r && r->verdict == VERDICT_PASS ?
			      r->message : "",
			      "message", r ? r->message : "",
			      "numbers", r ? r->numbers : "",
			      "took_ms", (json_int_t)(r ? r->took_ns /
						      NS_PER_MS : 0));
		if (!r || r->verdict == VERDICT_SKIP)
			json_object_set_new(o, "skip", json_string(
				r ? r->message : "the run stopped before its "
				"checks"));
		json_object_set_new(o, "details", details ? details
				    : json_object());
		json_array_append_new(items, o);
	}
	return items;
}

void checks_release(const struct suite *s, struct check_result *res)
{
	if (!res)
		return;
	for (size_t i = 0; i < s->nchecks; i++)
		check_result_release(&res[i]);
}
