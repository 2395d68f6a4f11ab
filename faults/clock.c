/*
 * clock: move the picked SQL servers' clocks by `offset` for `down`. Each
 * target is stopped (TERM) and started again under libfaketime (Debian's
 * faketime package: LD_PRELOAD of libfaketime.so.1 with FAKETIME set, and
 * /usr/bin/env, which execs the server, so the pid recorded is the
 * server's own); the heal starts it again without. Both are verified by
 * the server's own clock: SELECT UNIX_TIMESTAMP(NOW(6)) against ours,
 * within `tolerance`.
 *
 * libfaketime moves the time a program reads through libc (MariaDB,
 * TiKV); a Go program (TiDB, PD, TiCDC) reads the kernel's clock directly
 * and is not moved: the verification then says the fault did not take
 * effect, with the skew it measured (docs/faults.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clusters/cluster.h"
#include "core/plan.h"
#include "core/suite.h"
#include "faults/fault.h"
#include "lib/clock.h"
#include "lib/parse.h"
#include "lib/sql.h"

struct clock_opts {
	struct fault_target_opts t;
	const char *offset;	/* "+1h", "-30m", "90s" (ahead) */
	int64_t tolerance;
	const char *library;	/* NULL: found on the target's host */
};

static const struct optspec opts[] = {
	FAULT_COMMON_OPTS,
	FAULT_TARGET_OPTS,
	{ "offset", OPT_STRING, NULL, 1, NULL, 0, 0,
	  "how far the clock moves: +DURATION ahead, -DURATION behind",
	  OPT_AT(struct clock_opts, offset) },
	{ "tolerance", OPT_DURATION, "2s", 0, NULL, 0, 0,
	  "how far the measured skew may be from the offset (and from 0 "
	  "once healed)", OPT_AT(struct clock_opts, tolerance) },
	{ "library", OPT_STRING, NULL, 0, NULL, 0, 0,
	  "libfaketime's path on the target's host (default: Debian's, "
	  "found there)", OPT_AT(struct clock_opts, library) },
};

/* Where Debian's faketime package puts the library, by architecture. */
static const char *const libraries[] = {
	"/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
	"/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
	"/usr/lib/faketime/libfaketime.so.1",
	"/usr/lib64/faketime/libfaketime.so.1",
	NULL,
};

/* The offset in ns (ahead > 0); -1 with a message when it is not one. */
static int parse_offset(const char *text, int64_t *ns, struct err *e)
{
	int sign = text[0] == '-' ? -1 : 1;

	if (parse_duration(text + (text[0] == '-' || text[0] == '+'), ns, e))
		return -1;
	if (!*ns)
		return err_set(e, ERR_USAGE, "an offset of 0 moves nothing");
	*ns *= sign;
	return 0;
}

static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	const struct clock_opts *o = it->opts;
	const struct optval *v = suite_optval(it, &o->offset);
	struct ynode at = { YNODE_SCALAR, v->line, v->col, NULL, 0, NULL, 0 };
	struct err why = ERR_INIT;
	int64_t ns;

	if (fault_check(s, it, e))
		return -1;
	if (parse_offset(o->offset, &ns, &why))
		return ynode_error(e, s->path, &at, "offset in fault 'clock': "
				   "%s (e.g. +1h, -30m)", why.msg);
	if (fault_opts_of(it)->down <= 0) {
		at.line = it->line;
		at.col = it->col;
		return ynode_error(e, s->path, &at, "fault 'clock' needs a "
				   "'down' above 0s: the heal restarts the "
				   "server on the real clock");
	}
	return 0;
}

/* libfaketime on the host of `comp`, or NULL. */
static const char *library_of(struct cluster *c, const struct suite_item *it,
			      const struct component *comp)
{
	const struct clock_opts *o = it->opts;
	struct host *h = component_host(c, comp);

	if (o->library)
		return h->ops->file_size(h, o->library) >= 0 ? o->library
							     : NULL;
	for (size_t i = 0; libraries[i]; i++)
		if (h->ops->file_size(h, libraries[i]) >= 0)
			return libraries[i];
	return NULL;
}

/* The components `target` names must serve SQL, with libfaketime. */
static int resolve(struct cluster *c, const struct suite *s,
		   const struct suite_item *it, struct err *e)
{
	const struct clock_opts *o = it->opts;
	struct component *comps[FAULT_MAX_TARGETS];
	size_t n = fault_targets(c, o->t.target, 0, comps);
	const struct optval *v = suite_optval(it, &o->t.target);
	struct ynode at = { YNODE_SCALAR, v->line, v->col, NULL, 0, NULL, 0 };

	for (size_t i = 0; i < n; i++) {
		if (!comps[i]->sql_port)
			return ynode_error(e, s->path, &at, "fault 'clock': "
					   "%s serves no SQL, so its clock "
					   "cannot be read back (SELECT "
					   "NOW(6))", comps[i]->name);
		if (!library_of(c, it, comps[i]))
			return ynode_error(e, s->path, &at, "fault 'clock': "
					   "no libfaketime on %s's host (%s; "
					   "install Debian's faketime, or "
					   "set library)", comps[i]->name,
					   o->library ? o->library
					   : libraries[0]);
	}
	return 0;
}

/* The server's clock minus ours, in ms, read once. */
static int skew_of(const struct component *comp, int64_t *skew_ms,
		   struct err *e)
{
	struct sql s = SQL_INIT;
	struct buf v = BUF_INIT;
	int64_t before, after;
	int rc;

	rc = component_connect(comp, &s, NULL, 5, e);
	before = clock_wall_ms();
	rc = rc || sql_value(&s, "SELECT UNIX_TIMESTAMP(NOW(6))", &v, e);
	after = clock_wall_ms();
	if (!rc)
		*skew_ms = (int64_t)(strtod(buf_str(&v), NULL) * 1000) -
			   (before + after) / 2;
	sql_close(&s);
	buf_release(&v);
	return rc ? -1 : 0;
}

/*
 * Stop `comp` and start it again under `prefix` (NULL: as it was); its
 * clock must then be `want_ms` off ours, within the tolerance. Appends
 * {"component","pid","skew_ms"} to `value`.
 */
static int restart_at(struct fault_ctx *ctx, const struct suite_item *it,
		      struct component *comp, const char *const *prefix,
		      int64_t want_ms, struct buf *value, struct err *e)
{
	const struct clock_opts *o = it->opts;
	int64_t skew_ms = 0, off;

	if (component_stop(ctx->cluster, comp, e) ||
	    component_start_under(ctx->cluster, comp, prefix, e) ||
	    skew_of(comp, &skew_ms, e))
		return -1;
	buf_printf(value, NULL, "{\"component\":\"%s\",\"pid\":%ld,"
		   "\"skew_ms\":%lld}", comp->name,
		   (long)component_pid(ctx->cluster, comp),
		   (long long)skew_ms);
	off = skew_ms - want_ms;
	if (off > o->tolerance / NS_PER_MS || -off > o->tolerance / NS_PER_MS)
		return err_set(e, ERR_INFRA, "%s's clock is %lldms off ours, "
			       "not %lldms (within %lldms)%s", comp->name,
			       (long long)skew_ms, (long long)want_ms,
			       (long long)(o->tolerance / NS_PER_MS),
			       prefix ? ": libfaketime does not move a "
			       "program that reads the kernel's clock "
			       "directly (Go)" : "");
	return 0;
}

static int inject(struct fault_ctx *ctx, const struct suite_item *it,
		  const struct plan_event *ev, struct fault_action *act,
		  struct buf *value, struct err *e)
{
	const struct clock_opts *o = it->opts;
	char preload[600], faketime[80];
	const char *prefix[] = { "/usr/bin/env", preload, faketime, NULL };
	int64_t offset_ns = 0;
	size_t done = 0;
	int rc = 0;

	parse_offset(o->offset, &offset_ns, NULL);
	if (fault_pick(ctx, o->t.target, o->t.pick, ev->choice, act, e))
		return -1;
	/* libfaketime's own syntax: "+3600" seconds, or "-1800". */
	snprintf(faketime, sizeof(faketime), "FAKETIME=%+.3f",
		 (double)offset_ns / NS_PER_SEC);
	buf_printf(value, NULL, "\"offset\":\"%s\",\"moved\":[", o->offset);
	for (size_t i = 0; i < act->ntargets && !rc; i++) {
		struct component *comp = act->targets[i];

		snprintf(preload, sizeof(preload), "LD_PRELOAD=%s",
			 library_of(ctx->cluster, it, comp));
		if (done)
			buf_addch(value, ',', NULL);
		rc = restart_at(ctx, it, comp, prefix, offset_ns / NS_PER_MS,
				value, e);
		/* Even when its clock is wrong, it was restarted: healed. */
		done = i + 1;
	}
	buf_addch(value, ']', NULL);
	act->ntargets = done;
	return rc;
}

static int heal(struct fault_ctx *ctx, struct fault_action *act,
		struct buf *value, struct err *e)
{
	int rc = 0;

	buf_addstr(value, "\"restored\":[", NULL);
	for (size_t i = 0; i < act->ntargets; i++) {
		struct err one = ERR_INIT;

		if (i)
			buf_addch(value, ',', NULL);
		if (restart_at(ctx, act->item, act->targets[i], NULL, 0, value,
			       &one) && !rc) {
			*e = one;
			rc = -1;
		}
	}
	buf_addch(value, ']', NULL);
	return rc;
}

const struct fault_type fault_clock = {
	.kind = { "clock", "move SQL servers' clocks by `offset` for `down` "
		  "(a restart under libfaketime)",
		  opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct clock_opts), .check = check,
		  .plan = fault_plan },
	.resolve = resolve,
	.inject = inject,
	.heal = heal,
	.heal_name = "reset_clock",
	.target = fault_component_target,
};
