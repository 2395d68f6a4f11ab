/*
 * The final balances against the transfers (checkers/bankfit.h): the
 * residual of each account (final - initial - the ok transfers' delta)
 * is what the unknown transfers must explain; only the accounts they
 * touch are looked at per way tried.
 */
#include <stdint.h>
#include <stdlib.h>

#include "checkers/bankfit.h"
#include "lib/history.h"

/* Does applying the unknown transfers of `mask` leave no residual? */
static int fits(const struct bank_ops *b, const long long *residual,
		uint32_t mask, long long *scratch, const size_t *touched,
		size_t ntouched)
{
	for (size_t i = 0; i < ntouched; i++)
		scratch[touched[i]] = residual[touched[i]];
	for (size_t u = 0; u < b->nunknown; u++)
		if (mask & (UINT32_C(1) << u)) {
			scratch[b->unknown[u].from - 1] += b->unknown[u].amount;
			scratch[b->unknown[u].to - 1] -= b->unknown[u].amount;
		}
	for (size_t i = 0; i < ntouched; i++)
		if (scratch[touched[i]])
			return 0;
	return 1;
}

/*
 * Resolve the unknown transfers against `residual` (final - initial - ok
 * deltas, per account): how many ways fit; each unknown's `applied`.
 */
static uint64_t resolve(struct bank_ops *b, const long long *residual)
{
	size_t n = (size_t)b->w.accounts, ntouched = 0;
	size_t *touched = xcalloc(2 * b->nunknown + 1, sizeof(*touched));
	unsigned char *is_touched = xcalloc(n, 1);
	long long *scratch = xcalloc(n, sizeof(*scratch));
	uint64_t *in = xcalloc(b->nunknown + 1, sizeof(*in)), ways = 0;
	int outside = 0;

	for (size_t u = 0; u < b->nunknown; u++) {
		long long acc[2] = { b->unknown[u].from, b->unknown[u].to };

		for (int k = 0; k < 2; k++)
			if (!is_touched[acc[k] - 1]) {
				is_touched[acc[k] - 1] = 1;
				touched[ntouched++] = (size_t)acc[k] - 1;
			}
	}
	for (size_t k = 0; k < n; k++)
		outside |= !is_touched[k] && residual[k];
	for (uint64_t m = 0; !outside && m < (UINT64_C(1) << b->nunknown);
	     m++)
		if (fits(b, residual, (uint32_t)m, scratch, touched,
			 ntouched)) {
			ways++;
			for (size_t u = 0; u < b->nunknown; u++)
				in[u] += (m >> u) & 1;
		}
	for (size_t u = 0; u < b->nunknown; u++)
		b->unknown[u].applied = !ways ? -1 : in[u] == ways ? 1
					: in[u] == 0 ? 0 : -1;
	free(touched);
	free(is_touched);
	free(scratch);
	free(in);
	return ways;
}

/*
 * The transfers of `v` that alone explain `residual`: ok ones that did
 * not apply (sign 1) or failed ones that did (sign -1). Into the details
 * as "explained_by" and, the first, into `msg`.
 */
static void explain(const struct bank_ops *b,
		    const struct fault_windows *faults,
		    const long long *residual, size_t differing,
		    const struct bank_op *v, size_t n, int sign,
		    struct buf *d, struct buf *msg, size_t *listed)
{
	for (size_t i = 0; i < n && differing == 2 &&
	     *listed < b->max_report; i++) {
		const struct bank_op *o = &v[i];
		struct buf text = BUF_INIT, json = BUF_INIT;

		if (residual[o->from - 1] != sign * o->amount ||
		    residual[o->to - 1] != -sign * o->amount)
			continue;
		bank_op_text(&text, o);
		buf_printf(d, NULL, "%s{\"%s\":", *listed ? "," : "",
			   sign > 0 ? "lost" : "applied_fail");
		json_quote(d, buf_str(&text), NULL);
		fault_windows_between(faults, o->invoke, o->complete, &text,
				      &json);
		buf_printf(d, NULL, ",\"between\":%s}", buf_str(&json));
		if (!*listed)
			buf_printf(msg, NULL, "; %s: %s", sign > 0 ?
				   "an ok transfer that did not apply would "
				   "explain it" : "a failed transfer that "
				   "applied would explain it", buf_str(&text));
		(*listed)++;
		buf_release(&text);
		buf_release(&json);
	}
}

/* The unknown transfers and how each was resolved, into the details. */
static void unknown_json(const struct bank_ops *b, struct buf *d,
			 size_t counts[3])
{
	buf_addstr(d, ",\"unknown\":[", NULL);
	for (size_t u = 0; u < b->nunknown; u++) {
		const struct bank_op *o = &b->unknown[u];
		struct buf text = BUF_INIT;

		counts[o->applied < 0 ? 2 : o->applied ? 0 : 1]++;
		if (u >= b->max_report)
			continue;
		bank_op_text(&text, o);
		buf_addstr(d, u ? "," : "", NULL);
		buf_printf(d, NULL, "{\"line\":%zu,\"resolved\":\"%s\","
			   "\"text\":", o->line, o->applied < 0 ?
			   "unresolved" : o->applied ? "applied" :
			   "not applied");
		json_quote(d, buf_str(&text), NULL);
		buf_addch(d, '}', NULL);
		buf_release(&text);
	}
	buf_addch(d, ']', NULL);
}

int bankfit_judge(struct bank_ops *ops, const struct fault_windows *faults,
		  const long long *final, const unsigned char *present,
		  struct check_result *r, struct buf *msg, struct buf *nums)
{
	size_t n = (size_t)ops->w.accounts, differing = 0, listed = 0;
	long long *residual = xcalloc(n, sizeof(*residual));
	struct buf *d = &r->details;
	size_t counts[3] = { 0, 0, 0 };
	uint64_t ways;

	for (size_t k = 0; k < n; k++) {
		residual[k] = (present[k] ? final[k] : 0) - ops->w.initial -
			      ops->delta[k];
		differing += residual[k] != 0;
	}
	buf_printf(d, NULL, ",\"transfers\":{\"ok\":%zu,\"fail\":%zu,"
		   "\"unknown\":%zu}", ops->nok, ops->nfailed, ops->nunknown);
	if (ops->nunknown > BANKFIT_MAX_UNKNOWN) {
		check_verdict(r, VERDICT_UNKNOWN, "%zu unknown transfers, more "
			      "than the %d the check resolves", ops->nunknown,
			      BANKFIT_MAX_UNKNOWN);
		free(residual);
		return -1;
	}
	ways = resolve(ops, residual);
	unknown_json(ops, d, counts);
	buf_printf(nums, NULL, " transfers=%zu failed=%zu unknown=%zu "
		   "applied=%zu not_applied=%zu unresolved=%zu", ops->nok,
		   ops->nfailed, ops->nunknown, ways ? counts[0] : 0,
		   ways ? counts[1] : 0, counts[2]);
	buf_printf(d, NULL, ",\"fitting_ways\":%llu,\"differing_accounts\":[",
		   (unsigned long long)ways);
	for (size_t k = 0, i = 0; !ways && k < n; k++) {
		long long want = ops->w.initial + ops->delta[k];

		if (!residual[k])
			continue;
		if (i < ops->max_report) {
			buf_printf(d, NULL, "%s{\"account\":%zu,\"table\":",
				   i ? "," : "", k + 1);
			json_quote(d, ledger_table(&ops->w, (int64_t)k + 1),
				   NULL);
			if (present[k])
				buf_printf(d, NULL, ",\"final\":%lld",
					   final[k]);
			else
				buf_addstr(d, ",\"final\":null", NULL);
			buf_printf(d, NULL, ",\"expected\":%lld}", want);
		}
		if (!i && ops->nunknown)
			buf_printf(msg, NULL, "%sthe final balances fit no "
				   "outcome of the %zu unknown transfers: ",
				   msg->len ? "; " : "", ops->nunknown);
		else if (!i)
			buf_printf(msg, NULL, "%sthe final balances do not "
				   "fit the transfers: ", msg->len ? "; " : "");
		if (i < 3 && present[k])
			buf_printf(msg, NULL, "%saccount %zu holds %lld, "
				   "expected %lld", i ? ", " : "", k + 1,
				   final[k], want);
		else if (i < 3)
			buf_printf(msg, NULL, "%saccount %zu is missing",
				   i ? ", " : "", k + 1);
		i++;
	}
	buf_addstr(d, "],\"explained_by\":[", NULL);
	if (!ways) {
		buf_printf(msg, NULL, " (%zu accounts differ)", differing);
		explain(ops, faults, residual, differing, ops->ok, ops->nok, 1,
			d, msg, &listed);
		explain(ops, faults, residual, differing, ops->failed,
			ops->nfailed, -1, d, msg, &listed);
	}
	buf_addch(d, ']', NULL);
	free(residual);
	return 0;
}
