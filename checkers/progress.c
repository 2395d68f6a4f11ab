/*
 * progress: replication keeps going after the faults. On TiCDC the
 * changefeed's checkpoint_ts must advance and its state be "normal"
 * (Open API v2); when it does not, the failure quotes TiCDC's last error
 * or warning (a changefeed retrying a DDL holds its checkpoint). On the
 * local cluster the replica's threads must run and its lag reach 0. A
 * replica whose SQL thread stopped on an error fails at once, with the
 * error's code and text (the event or query it could not apply), the
 * last GTID it applied and the source's binlog position.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/checker.h"
#include "clusters/api.h"
#include "clusters/cluster.h"
#include "core/suite.h"
#include "lib/clock.h"
#include "lib/history.h"
#include "lib/http.h"
#include "lib/parse.h"

struct progress_opts {
	int64_t timeout;
	const char *changefeed;	/* NULL: the cluster's */
};

static const struct optspec opts[] = {
	{ "timeout", OPT_DURATION, "60s", 0, NULL, 0, 0,
	  "how long replication may take to show progress",
	  OPT_AT(struct progress_opts, timeout) },
	{ "changefeed", OPT_STRING, NULL, 0, NULL, 0, 0,
	  "TiCDC: the changefeed id (default: the topology's, else "
	  "tichaos)", OPT_AT(struct progress_opts, changefeed) },
};

static int ticdc(const struct check_ctx *ctx, const struct suite_item *it,
		 struct check_result *r, struct err *e)
{
	const struct progress_opts *o = it->opts;
	const char *id = cluster_changefeed_id(ctx->cluster, o->changefeed);
	int64_t deadline = clock_mono_ns() + o->timeout;
	struct changefeed cf;
	char last[1024] = "";
	uint64_t first;

	if (cluster_changefeed(ctx->cluster, id, &cf, e))
		return -1;
	first = cf.checkpoint_ts;
	for (;;) {
		if (cluster_changefeed(ctx->cluster, id, &cf, e))
			return -1;
		if (!strcmp(cf.state, "normal") && cf.checkpoint_ts > first)
			break;
		if (clock_mono_ns() >= deadline || check_interrupted(ctx)) {
			if (!cf.error[0])
				cluster_changefeed_last(ctx->cluster, id, last,
							sizeof(last));
			check_verdict(r, VERDICT_FAIL, "changefeed %s: state %s, "
				      "checkpoint_ts %llu did not advance%s%s%s%s",
				      id, cf.state,
				      (unsigned long long)cf.checkpoint_ts,
				      cf.error[0] ? "; error: " : "", cf.error,
				      *last ? "; " : "", last);
			break;
		}
		clock_sleep_ns(500 * NS_PER_MS);
	}
	buf_printf(&r->details, NULL, "\"changefeed\":\"%s\",\"state\":\"%s\","
		   "\"checkpoint_from\":%llu,\"checkpoint_to\":%llu", id,
		   cf.state, (unsigned long long)first,
		   (unsigned long long)cf.checkpoint_ts);
	if (cf.error[0]) {
		buf_addstr(&r->details, ",\"error\":", NULL);
		json_quote(&r->details, cf.error, NULL);
	}
	if (*last) {
		buf_addstr(&r->details, ",\"last\":", NULL);
		json_quote(&r->details, last, NULL);
	}
	if (r->verdict != VERDICT_FAIL)
		check_verdict(r, VERDICT_PASS, "changefeed %s normal, "
			      "checkpoint advanced", id);
	return 0;
}

/*
 * What came before a replica stopped: the faults of the minute before
 * (a crash or a pause of it is what leaves a statement applied but not
 * recorded), and the DDL before the last crash or pause among them
 * (before the stop, when there was none) — the statements a restarted
 * replica may run again: those on the table its error names, whenever
 * they ran (a replica that lags applies a statement long after the
 * upstream), else those of the seconds before.
 */
#define BEFORE_FAULTS_NS (60 * NS_PER_SEC)
#define BEFORE_DDL_NS (3 * NS_PER_SEC)
#define SHOWN_FAULTS 4
#define SHOWN_DDL 3
#define KEPT 50

struct event {
	int64_t at;
	char what[200];
};

struct events {
	struct event v[KEPT];	/* the last KEPT, oldest first */
	size_t n, seen;
};

struct before {
	const char *comp;
	int64_t stop;		/* the replica_stopped event's time, or -1 */
	int64_t last;		/* the history's last time */
	size_t lines;
	int64_t crash;		/* the last fault that heals, before it */
	char crash_f[64];	/* its fault kind: "kill", "pause", ... */
	char table[200];	/* "db.t" the error names, or "" */
	char same[320];		/* the stop's error and GTID, as recorded */
	struct events faults, ddl;
};

static void keep(struct events *ev, int64_t at, const char *f,
		 const char *what)
{
	if (ev->n == KEPT)
		memmove(ev->v, ev->v + 1, --ev->n * sizeof(ev->v[0]));
	ev->v[ev->n].at = at;
	snprintf(ev->v[ev->n].what, sizeof(ev->v[0].what), "%.40s %.150s", f,
		 what);
	ev->n++;
	ev->seen++;
}

/*
 * The stop is the first time the watch saw this error at this GTID: a
 * restarted replica applies the event again and stops on it again, and
 * the first stop is the one that tells.
 */
static int find_stop(const struct history_line *l, void *arg)
{
	struct before *b = arg;

	b->last = l->time;
	b->lines++;
	if (l->process == HISTORY_MONITOR && b->stop < 0 &&
	    !strcmp(l->f, "replica_stopped") && l->target &&
	    !strcmp(l->target, b->comp) &&
	    l->value && memmem(l->value, l->value_len, b->same,
			       strlen(b->same)))
		b->stop = l->time;
	return 0;
}

static int find_faults(const struct history_line *l, void *arg)
{
	struct before *b = arg;

	if (l->process != HISTORY_NEMESIS || strcmp(l->type, "info") ||
	    l->time > b->stop || l->time < b->stop - BEFORE_FAULTS_NS)
		return 0;
	keep(&b->faults, l->time, l->f, l->target ? l->target : "");
	/* A fault that holds something until healed (a kill, a pause;
	 * the history marks its injection "holds"): what can cut a
	 * statement from its GTID. */
	if (l->holds) {
		b->crash = l->time;
		snprintf(b->crash_f, sizeof(b->crash_f), "%s", l->f);
	}
	return 0;
}

static int find_ddl(const struct history_line *l, void *arg)
{
	struct before *b = arg;

	if (l->process >= 0 && !strcmp(l->type, "invoke") &&
	    l->ddl && l->time <= b->crash && l->table &&
	    (b->table[0] ? !strcmp(l->table, b->table)
			 : l->time >= b->crash - BEFORE_DDL_NS))
		keep(&b->ddl, l->time, l->f, l->table);
	return 0;
}

/*
 * The table a replica's error names, as the history writes tables
 * ("db.t"): MariaDB quotes it in a statement ("ALTER TABLE `db`.`t`
 * ...") or names it bare for a row event ("... event on table db.t;").
 */
static void error_table(const char *error, char *out, size_t size)
{
	const char *p = strstr(error, "`.`"), *a, *z;
	const char *row = strstr(error, " event on table ");

	out[0] = '\0';
	if (p) {
		for (a = p; a > error && a[-1] != '`'; a--)
			;
		z = strchr(p + 3, '`');
		if (a > error && z)
			snprintf(out, size, "%.*s.%.*s", (int)(p - a), a,
				 (int)(z - p - 3), p + 3);
	} else if (row) {
		row += strlen(" event on table ");
		snprintf(out, size, "%.*s", (int)strcspn(row, "; "), row);
	}
}

/* The last `shown` of `ev` into msg; all kept into details as `key`. */
static void list(const struct events *ev, size_t shown, const char *key,
		 struct buf *msg, struct buf *details)
{
	size_t from = ev->n > shown ? ev->n - shown : 0;

	for (size_t i = from; i < ev->n; i++)
		buf_printf(msg, NULL, "%s%.1fs %s", i > from ? ", " : "",
			   (double)ev->v[i].at / 1e9, ev->v[i].what);
	if (ev->seen > ev->n - from)
		buf_printf(msg, NULL, " (of %zu)", ev->seen);
	buf_printf(details, NULL, ",\"%s\":[", key);
	for (size_t i = 0; i < ev->n; i++) {
		buf_printf(details, NULL, "%s{\"at_ms\":%lld,\"what\":",
			   i ? "," : "", (long long)(ev->v[i].at / NS_PER_MS));
		json_quote(details, ev->v[i].what, NULL);
		buf_addch(details, '}', NULL);
	}
	buf_addch(details, ']', NULL);
}

/*
 * "; at 46.4s; faults before: 31.0s kill downstream, 32.1s restart
 * downstream; DDL before the kill at 31.0s: 30.9s reorganize test.t7" —
 * the same kind of evidence the ids check gives between two inserts —
 * into `msg` (NULL: none), and into `details`.
 */
static void evidence(const struct check_ctx *ctx, const char *comp,
		     const struct replica_stop *stop, struct buf *msg,
		     struct buf *details)
{
	struct before *b;
	struct buf ignored = BUF_INIT;
	char path[4200];
	int at_check;

	if (!ctx->run_dir)
		return;
	b = xcalloc(1, sizeof(*b));
	if (!msg)
		msg = &ignored;
	snprintf(path, sizeof(path), "%s/history.jsonl", ctx->run_dir);
	b->comp = comp;
	b->stop = -1;
	error_table(stop->error, b->table, sizeof(b->table));
	snprintf(b->same, sizeof(b->same), "{\"sql_errno\":%ld,\"gtid\":\"%s\"",
		 stop->sql_errno, stop->gtid);
	history_read(path, 0, find_stop, b, NULL, NULL);
	/* No history (a run that never started its workloads): nothing
	 * to say of before. */
	if (!b->lines) {
		free(b);
		return;
	}
	/* Not seen while the run went on: it stopped after, by the check. */
	at_check = b->stop < 0;
	if (at_check)
		b->stop = b->last;
	b->crash = -1;
	history_read(path, 0, find_faults, b, NULL, NULL);
	if (b->crash < 0)
		b->crash = b->stop;
	history_read(path, 0, find_ddl, b, NULL, NULL);
	buf_printf(msg, NULL, "; %s %.1fs; faults before: ", at_check
		   ? "seen at the check, after the run's end at" : "at",
		   (double)b->stop / 1e9);
	buf_printf(details, NULL, ",\"stopped_at_ms\":%lld,\"seen_at_check\":"
		   "%s", (long long)(b->stop / NS_PER_MS),
		   at_check ? "true" : "false");
	if (!b->faults.n)
		buf_addstr(msg, "none", NULL);
	list(&b->faults, SHOWN_FAULTS, "faults_before", msg, details);
	buf_printf(msg, NULL, "; DDL%s%s before ", b->table[0] ? " on " : "",
		   b->table);
	if (b->crash == b->stop)
		buf_addstr(msg, "it: ", NULL);
	else
		buf_printf(msg, NULL, "the %s at %.1fs: ", b->crash_f,
			   (double)b->crash / 1e9);
	if (!b->ddl.n)
		buf_addstr(msg, "none", NULL);
	list(&b->ddl, SHOWN_DDL, "ddl_before", msg, details);
	buf_release(&ignored);
	free(b);
}

/*
 * Events the replica skipped (cluster.local.replica_skip_errors):
 * tolerated, never silent. Counted whenever errors are to be skipped or
 * any were.
 */
static void skipped(const struct check_ctx *ctx, const struct component *comp,
		    struct buf *msg, struct buf *details, long *sum)
{
	/* The errors the replica skips, as the cluster's kind set them. */
	const struct cluster *l = ctx->cluster;
	struct err why = ERR_INIT;
	long total = 0;
	int restarts = 0;

	if (component_replica_skipped(ctx->cluster, comp, &total, &restarts,
				      &why)) {
		if (l->nskip_errors)
			buf_printf(msg, NULL, "; %s: skipped events not "
				   "counted: %s", comp->name, why.msg);
		return;
	}
	if (!total && !l->nskip_errors)
		return;
	*sum += total;
	buf_printf(details, NULL, ",\"skipped\":%ld,\"restarts\":%d", total,
		   restarts);
	buf_printf(msg, NULL, "; tolerated: %s skipped %ld event%s on "
		   "errors ", comp->name, total, total == 1 ? "" : "s");
	for (size_t i = 0; i < l->nskip_errors; i++)
		buf_printf(msg, NULL, "%s%ld", i ? "," : "", l->skip_errors[i]);
	if (!l->nskip_errors)
		buf_addstr(msg, "its server skips", NULL);
	buf_printf(msg, NULL, " (Slave_skipped_errors%s)", restarts
		   ? ", at least: counted over restarts" : "");
}

static int run(const struct check_ctx *ctx, const struct suite_item *it,
	       struct check_result *r, struct err *e)
{
	struct cluster *c = ctx->cluster;
	const struct progress_opts *o = it->opts;
	int64_t timeout = o->timeout, start = clock_mono_ns();
	size_t replicas = 0, behind = 0;
	struct buf first = BUF_INIT, tolerated = BUF_INIT;
	long skips = 0;

	if (cluster_ticdc(c))
		return ticdc(ctx, it, r, e);
	buf_addstr(&r->details, "\"replicas\":[", NULL);
	for (size_t i = 0; i < c->ncomps; i++) {
		const struct component *comp = &c->comps[i];
		struct replica_stop stop;
		struct err why = ERR_INIT;
		int stopped = 0, is_first;
		long lag = -1;

		if (!comp->replicates)
			continue;
		for (;;) {
			err_clear(&why);
			if (!component_ready(c, comp, &why)) {
				lag = component_lag(c, comp);
				if (lag == 0)
					break;
			} else if (component_replica_stopped(c, comp, &stop,
							     NULL) == 1) {
				/* A SQL thread stopped on an error stays
				 * stopped: said at once, never waited out
				 * (it is not ready, so only then asked). */
				stopped = 1;
				err_clear(&why);
				err_set(&why, ERR_INFRA, "replication "
					"stopped on SQL error %ld after GTID "
					"%s (%s): %s",
					stop.sql_errno, stop.gtid[0]
					? stop.gtid : "?", stop.position,
					stop.error);
				break;
			}
			if (clock_mono_ns() - start >= timeout ||
			    check_interrupted(ctx))
				break;
			clock_sleep_ns(100 * NS_PER_MS);
		}
		buf_printf(&r->details, NULL, "%s{\"component\":\"%s\","
			   "\"lag\":%ld,\"error\":", replicas ? "," : "",
			   comp->name, lag);
		json_quote(&r->details, why.msg, NULL);
		is_first = lag != 0 && !first.len;
		if (is_first)
			buf_printf(&first, NULL, "%s: %s", comp->name,
				   err_isset(&why) ? why.msg : "still behind");
		if (stopped) {
			buf_printf(&r->details, NULL, ",\"sql_errno\":%ld,"
				   "\"gtid\":", stop.sql_errno);
			json_quote(&r->details, stop.gtid, NULL);
			buf_addstr(&r->details, ",\"position\":", NULL);
			json_quote(&r->details, stop.position, NULL);
			evidence(ctx, comp->name, &stop,
				 is_first ? &first : NULL, &r->details);
		}
		skipped(ctx, comp, &tolerated, &r->details, &skips);
		buf_addch(&r->details, '}', NULL);
		replicas++;
		behind += lag != 0;
	}
	buf_addch(&r->details, ']', NULL);
	snprintf(r->numbers, sizeof(r->numbers), "replicas=%zu behind=%zu%s",
		 replicas, behind, tolerated.len ? " skipped=" : "");
	if (tolerated.len)
		snprintf(r->numbers + strlen(r->numbers), sizeof(r->numbers) -
			 strlen(r->numbers), "%ld", skips);
	if (!replicas)
		check_verdict(r, VERDICT_SKIP, "no replica or changefeed in "
			      "the cluster");
	else if (behind)
		check_verdict(r, VERDICT_FAIL, "%zu of %zu replicas not caught "
			      "up; %s%s", behind, replicas, buf_str(&first),
			      buf_str(&tolerated));
	else
		check_verdict(r, VERDICT_PASS, "%zu replica%s running, caught "
			      "up in %.1fs%s", replicas, replicas == 1 ? ""
			      : "s", (double)(clock_mono_ns() - start) /
			      NS_PER_SEC, buf_str(&tolerated));
	buf_release(&first);
	buf_release(&tolerated);
	return 0;
}

const struct checker_type checker_progress = {
	.kind = { "progress", "replication keeps going: the changefeed's "
		  "checkpoint advances, or the replica catches up",
		  opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct progress_opts), .flags = KIND_COUNTS_SKIPS },
	.live = 1,
	.run = run,
};
