#include "runner/checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/suite.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "reports/report.h"

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

/*
 * The suite's expect: entries on the check items. A failing (or
 * undecided) check whose message an entry matches is known: "known" holds
 * the entry's note, and it fails nothing. An entry no check met is said
 * on every check of its kind: "unmet" (docs/suite-format.md#expect).
 */
static void expectations(const struct suite *s, json_t *items,
			 const char *cluster)
{
	char *met = xcalloc(s->nexpects + 1, 1);

	for (size_t i = 0; i < json_array_size(items); i++) {
		json_t *o = json_array_get(items, i);
		const char *v = json_string_value(json_object_get(o,
								  "verdict"));
		const struct suite_expect *x;

		if (strcmp(v, "fail") && strcmp(v, "unknown"))
			continue;
		x = suite_expected(s, s->checks[i].kind,
				   json_string_value(json_object_get(
					   o, "message")), cluster);
		if (!x)
			continue;
		met[x - s->expects] = 1;
		json_object_set_new(o, "known", json_string(x->note));
		log_info("check %zu %s: a known failure (expect at line %d): "
			 "%s", i + 1, s->checks[i].kind, x->line, x->note);
	}
	for (size_t k = 0; k < s->nexpects; k++) {
		const struct suite_expect *x = &s->expects[k];
		struct buf text = BUF_INIT;

		if (met[k] || !suite_expect_applies(s, x, cluster))
			continue;
		buf_printf(&text, NULL, "expected failure did not occur "
			   "(line %d: %s) — fixed? %s", x->line, x->match,
			   x->note);
		for (size_t i = 0; i < json_array_size(items); i++) {
			json_t *o = json_array_get(items, i);
			const char *had = json_string_value(json_object_get(
				o, "unmet"));

			if (strcmp(s->checks[i].kind, x->check))
				continue;
			if (had) {
				struct buf both = BUF_INIT;

				buf_printf(&both, NULL, "%s; %s", had,
					   buf_str(&text));
				json_object_set_new(o, "unmet", json_string(
					buf_str(&both)));
				buf_release(&both);
			} else {
				json_object_set_new(o, "unmet", json_string(
					buf_str(&text)));
			}
		}
		log_warn("%s", buf_str(&text));
		buf_release(&text);
	}
	free(met);
}

json_t *checks_items(const struct suite *s, const struct check_result *res,
		     const char *cluster)
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
	expectations(s, items, cluster);
	return items;
}

static const char *verdict_of(const json_t *it)
{
	const char *v = json_string_value(json_object_get(it, "verdict"));

	return v ? v : "skip";
}

/*
 * How much a verdict of `it` says: an undeclared failure most, then a
 * pass or a declared (known) failure, then a check that could not
 * decide, then a skip, which says nothing of the cluster.
 */
static int weight(const json_t *it)
{
	const char *v = verdict_of(it);

	if (!strcmp(v, "fail"))
		return json_object_get(it, "known") ? 2 : 3;
	return !strcmp(v, "pass") ? 2 : !strcmp(v, "unknown") ? 1 : 0;
}

/* The one line a verdict of `it` is shown by. */
static const char *line_of(const json_t *it)
{
	static const char *const keys[] = { "skip", "summary", "message" };

	for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++) {
		const char *v = json_string_value(json_object_get(it,
								  keys[k]));

		if (v && *v)
			return v;
	}
	return "";
}

/* A verdict of `it`, by whom and when, as an entry of "rechecks". */
static json_t *recheck_entry(const json_t *it, const char *by,
			     const char *at)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "by", by, "at",
			      at ? at : "", "verdict", verdict_of(it),
			      "text", line_of(it));

	if (json_object_get(it, "known"))
		json_object_set(o, "known", json_object_get(it, "known"));
	return o;
}

/* `it` as judged now by `tichaos check`, at `at`. */
static json_t *checked(const json_t *it, const char *at)
{
	json_t *o = json_deep_copy(it);

	json_object_set_new(o, "by", json_string("check"));
	json_object_set_new(o, "at", json_string(at));
	return o;
}

json_t *checks_merge(const json_t *recorded, const json_t *fresh,
		     const char *started, const char *at)
{
	json_t *items = json_array();

	for (size_t i = 0; i < json_array_size(fresh); i++) {
		json_t *now = json_array_get(fresh, i);
		json_t *had = json_array_get(recorded, i);
		json_t *kept, *rechecks;

		if (!had ||
		    strcmp(report_str(had, "kind"), report_str(now, "kind"))) {
			json_array_append_new(items, checked(now, at));
			continue;
		}
		rechecks = json_deep_copy(json_object_get(had, "rechecks"));
		if (!rechecks)
			rechecks = json_array();
		if (weight(now) >= weight(had)) {
			/* As strong as what it had, or stronger: the new
			 * verdict is the item's, the old stays beside. */
			kept = checked(now, at);
			json_array_append_new(rechecks, recheck_entry(
				had, *report_str(had, "by") ?
				report_str(had, "by") : "run",
				*report_str(had, "at") ?
				report_str(had, "at") : started));
		} else {
			kept = json_deep_copy(had);
			json_array_append_new(rechecks, recheck_entry(
				now, "check", at));
		}
		json_object_set_new(kept, "rechecks", rechecks);
		json_array_append_new(items, kept);
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
