/*
 * clock: move the picked components' clocks by `offset` for `down`, in
 * one of two ways (`method`).
 *
 * live (the default): the running process's wall clock moved where it
 * stands, every thread of it, without a restart (lib/skew.h: its vDSO's
 * clock_gettime, gettimeofday and time made to jump to code that moves
 * them, as Chaos Mesh's TimeChaos does), and put back on heal. It moves
 * what glibc and the Go runtime read alike, so TiDB, PD and TiCDC too.
 * Verified by the process's own clock: its vDSO's clock_gettime called
 * in one of its threads, against ours, within `tolerance`, so any
 * process can be a target, SQL or not. Only a process of this machine
 * (ptrace): one on an SSH host is refused before anything starts, as is
 * one that cannot be traced. A run killed while it holds leaves the
 * process moved: the next run's sweep (skew_sweep) puts it back.
 *
 * restart: each target is stopped (TERM) and started again under
 * libfaketime (Debian's faketime package: LD_PRELOAD of
 * libfaketime.so.1 with FAKETIME set, and /usr/bin/env, which execs the
 * server, so the pid recorded is the server's own); the heal starts it
 * again without. Both are verified by the server's own clock: SELECT
 * UNIX_TIMESTAMP(NOW(6)) against ours, within `tolerance`. It reaches a
 * server on an SSH host, and starts it from its first instruction on the
 * moved clock.
 *
 * With a `rate` the moved clock also runs that many times as fast as
 * ours. live: from the moment of the skew. restart: FAKETIME="+3600.000
 * x2" (libfaketime's README, "Advanced time specification options": an
 * offset, then " x" and a factor; "x2" alone moves nothing); the offset
 * holds when the server starts (libfaketime's start is the exec), and
 * from there grows by (rate - 1) times the time it has run. The factor
 * is read with atof() before the server's main(), so in the C locale: a
 * '.' (ours is the C locale too). The server's own waits (sleep, poll,
 * timed waits) run at the rate as well, under libfaketime only. The rate
 * is measured after the start, and again once healed (then 1): two
 * readings of the server's clock, RATE_INTERVAL_NS apart on our clock.
 *
 * libfaketime moves the time a program reads through libc (MariaDB,
 * TiKV); a Go program (TiDB, PD, TiCDC) reads the kernel's clock through
 * the vDSO and is not moved by it: under restart the verification then
 * says the fault did not take effect, with the skew it measured
 * (docs/faults.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clusters/cluster.h"
#include "core/plan.h"
#include "core/suite.h"
#include "faults/fault.h"
#include "clusters/host.h"
#include "lib/clock.h"
#include "lib/parse.h"
#include "lib/skew.h"
#include "lib/sql.h"

enum { METHOD_LIVE, METHOD_RESTART };

static const char *const methods[] = { "live", "restart", NULL };

struct clock_opts {
	struct fault_target_opts t;
	const char *offset;	/* "+1h", "-30m", "90s" (ahead) */
	double rate;		/* 1: as fast as ours */
	int64_t tolerance;
	int method;		/* METHOD_LIVE, METHOD_RESTART */
	const char *library;	/* NULL: found on the target's host */
};

static const struct optspec opts[] = {
	FAULT_COMMON_OPTS,
	FAULT_TARGET_OPTS,
	{ "offset", OPT_STRING, NULL, 1, NULL, 0, 0,
	  "how far the clock moves: +DURATION ahead, -DURATION behind",
	  OPT_AT(struct clock_opts, offset) },
	{ "rate", OPT_FLOAT, "1", 0, NULL, 0, 0,
	  "how fast the moved clock runs: 2 twice as fast as real time, "
	  "0.5 half as fast (0.01 to 100), measured to within 2%",
	  OPT_AT(struct clock_opts, rate) },
	{ "tolerance", OPT_DURATION, "2s", 0, NULL, 0, 0,
	  "how far the measured skew may be from the offset (grown at "
	  "`rate` while the server started; 0 once healed)",
	  OPT_AT(struct clock_opts, tolerance) },
	{ "method", OPT_ENUM, "live", 0, methods, 0, 0,
	  "live: the running process's clock moved where it stands "
	  "(ptrace, this machine's processes, Go's too); restart: the "
	  "server started again under libfaketime",
	  OPT_AT(struct clock_opts, method) },
	{ "library", OPT_STRING, NULL, 0, NULL, 0, 0,
	  "method restart: libfaketime's path on the target's host "
	  "(default: Debian's, found there)",
	  OPT_AT(struct clock_opts, library) },
};

/* Where Debian's faketime package puts the library, by architecture. */
static const char *const libraries[] = {
	"/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
	"/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
	"/usr/lib/faketime/libfaketime.so.1",
	"/usr/lib64/faketime/libfaketime.so.1",
	NULL,
};

/* The rates a clock may run at: 1/100 to 100 times as fast as ours. */
#define RATE_MIN 0.01
#define RATE_MAX 100.0
/* How far a measured rate may be from the one asked for, relative. */
#define RATE_TOLERANCE 0.02
/* How long apart, on our monotonic clock, the rate's two readings are. */
#define RATE_INTERVAL_NS (500 * NS_PER_MS)

/* The offset in ns (ahead > 0); -1 with a message when it is not one. */
static int parse_offset(const char *text, int64_t *ns, struct err *e)
{
	int sign = text[0] == '-' ? -1 : 1;

	if (parse_duration(text + (text[0] == '-' || text[0] == '+'), ns, e))
		return -1;
	*ns *= sign;
	return 0;
}

static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	const struct clock_opts *o = it->opts;
	struct err why = ERR_INIT;
	int64_t ns;

	if (fault_check(s, it, e))
		return -1;
	if (parse_offset(o->offset, &ns, &why))
		return fault_error_at(e, s, it, &o->offset, "offset in fault "
				      "'clock': %s (e.g. +1h, -30m)", why.msg);
	if (!ns && o->rate == 1)
		return fault_error_at(e, s, it, &o->offset, "offset in fault "
				      "'clock': an offset of 0 at rate 1 moves "
				      "nothing (e.g. +1h, -30m)");
	if (o->rate < RATE_MIN || o->rate > RATE_MAX)
		return fault_error_at(e, s, it, &o->rate, "rate in fault "
				      "'clock' must be a number from %g to %g, "
				      "not %g", RATE_MIN, RATE_MAX, o->rate);
	if (o->library && o->method != METHOD_RESTART)
		return fault_error_at(e, s, it, &o->library, "library in fault "
				      "'clock' is libfaketime's, for method: "
				      "restart");
	if (fault_opts_of(it)->down <= 0)
		return fault_error_at(e, s, it, NULL, "fault 'clock' needs a "
				      "'down' above 0s: the heal puts the "
				      "clock back");
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

/*
 * live: the components `target` names must run on this machine, and be
 * traceable where they run already. restart: serve SQL, with libfaketime.
 */
static int resolve(struct cluster *c, const struct suite *s,
		   const struct suite_item *it, struct err *e)
{
	const struct clock_opts *o = it->opts;
	struct component *comps[FAULT_MAX_TARGETS];
	size_t n = fault_targets(c, o->t.target, 0, comps);

	for (size_t i = 0; i < n && o->method == METHOD_LIVE; i++) {
		const struct host *h = component_host(c, comps[i]);
		pid_t pid = component_pid(c, comps[i]);
		struct err why = ERR_INIT;

		if (h != &host_local)
			return fault_error_at(e, s, it, &o->t.target,
					      "fault 'clock': %s runs on host "
					      "%s, and method live moves a "
					      "process of this machine (method "
					      "restart moves it there)",
					      comps[i]->name, h->name);
		if (pid > 0 && skew_allowed(pid, &why))
			return fault_error_at(e, s, it, &o->t.target,
					      "fault 'clock': %s: %s (method "
					      "live needs ptrace)",
					      comps[i]->name, why.msg);
	}
	for (size_t i = 0; i < n && o->method == METHOD_RESTART; i++) {
		if (comps[i]->sup)
			return fault_error_at(e, s, it, &o->t.target,
					      "fault 'clock': %s is started by "
					      "its supervisor, and method "
					      "restart starts it under "
					      "libfaketime itself (method live "
					      "moves it where it runs)",
					      comps[i]->name);
		if (!comps[i]->sql_port)
			return fault_error_at(e, s, it, &o->t.target,
					      "fault 'clock': %s serves no SQL, "
					      "so its clock cannot be read back "
					      "(SELECT NOW(6))", comps[i]->name);
		if (!library_of(c, it, comps[i]))
			return fault_error_at(e, s, it, &o->t.target,
					      "fault 'clock': no libfaketime on "
					      "%s's host (%s; install Debian's "
					      "faketime, or set library)",
					      comps[i]->name, o->library
					      ? o->library : libraries[0]);
	}
	return 0;
}

/* One reading of a server's clock, between two of ours. */
struct reading {
	double server_s;	/* its UNIX_TIMESTAMP(NOW(6)) */
	int64_t skew_ms;	/* it minus our wall clock, midway */
	int64_t mono_before;	/* our monotonic clock (ns) around it */
	int64_t mono_after;
};

/* What a restarted server's clock must show. */
struct clock_want {
	int64_t offset_ms;	/* its skew when it starts */
	double rate;		/* how fast it runs from there, 1: as ours */
	int measure_rate;	/* 0: the rate is not measured */
};

static int read_clock(const struct component *comp, struct sql *s,
		      struct reading *r, struct err *e)
{
	struct buf v = BUF_INIT;
	int64_t before;
	int rc;

	r->mono_before = clock_mono_ns();
	before = clock_wall_ms();
	rc = sql_value(s, "SELECT UNIX_TIMESTAMP(NOW(6))", &v, e);
	r->skew_ms = -(before + clock_wall_ms()) / 2;
	r->mono_after = clock_mono_ns();
	if (rc > 0)
		rc = err_set(e, ERR_INFRA, "%s gave no NOW(6)", comp->name);
	if (!rc) {
		r->server_s = strtod(buf_str(&v), NULL);
		r->skew_ms += (int64_t)(r->server_s * 1000);
	}
	buf_release(&v);
	return rc ? -1 : 0;
}

/*
 * The skew at `first` must be want->offset_ms, grown by (rate - 1) times
 * the time the server has run: at most since `started_ns`, when we began
 * to start it; within the tolerance either way.
 */
static int check_offset(const struct clock_opts *o,
			const struct component *comp, const char *const *prefix,
			const struct clock_want *want,
			const struct reading *first, int64_t started_ns,
			struct err *e)
{
	int64_t tol_ms = o->tolerance / NS_PER_MS;
	int64_t grown_ms = (int64_t)((want->rate - 1) *
		(double)(first->mono_after - started_ns) / NS_PER_MS);
	int64_t lo = want->offset_ms + (grown_ms < 0 ? grown_ms : 0);
	int64_t hi = want->offset_ms + (grown_ms > 0 ? grown_ms : 0);
	const char *go = prefix ? ": libfaketime does not move a program "
				  "that reads the kernel's clock directly "
				  "(Go)" : "";

	if (first->skew_ms >= lo - tol_ms && first->skew_ms <= hi + tol_ms)
		return 0;
	if (lo == hi)
		return err_set(e, ERR_INFRA, "%s's clock is %lldms off ours, "
			       "not %lldms (within %lldms)%s", comp->name,
			       (long long)first->skew_ms, (long long)lo,
			       (long long)tol_ms, go);
	return err_set(e, ERR_INFRA, "%s's clock is %lldms off ours, not "
		       "%lldms to %lldms (within %lldms)%s", comp->name,
		       (long long)first->skew_ms, (long long)lo,
		       (long long)hi, (long long)tol_ms, go);
}

/*
 * The server's clock ran from `first` to `second` want->rate times as
 * far as ours, within RATE_TOLERANCE of it: ours ran at least from the
 * end of the first reading to the start of the second, at most from the
 * start of the first to the end of the second. *measured: its time over
 * ours, between the readings' midpoints.
 */
static int check_rate(const struct component *comp, const char *const *prefix,
		      const struct clock_want *want,
		      const struct reading *first,
		      const struct reading *second, double *measured,
		      struct err *e)
{
	double theirs = (second->server_s - first->server_s) * NS_PER_SEC;
	double shortest = (double)(second->mono_before - first->mono_after);
	double longest = (double)(second->mono_after - first->mono_before);

	*measured = theirs / ((shortest + longest) / 2);
	if (theirs >= want->rate * shortest * (1 - RATE_TOLERANCE) &&
	    theirs <= want->rate * longest * (1 + RATE_TOLERANCE))
		return 0;
	return err_set(e, ERR_INFRA, "%s's clock ran %.3f times as fast as "
		       "ours, not %g (within %g%%)%s", comp->name, *measured,
		       want->rate, RATE_TOLERANCE * 100,
		       prefix ? ": libfaketime does not move a program that "
		       "reads the kernel's clock directly (Go)" : "");
}

/*
 * Append {"component","pid","skew_ms"} of `comp` at `first` to `value`,
 * with "measured_rate" when want->measure_rate (from `first` to
 * `second`), and check both: the offset (check_offset, from `started_ns`
 * on the clock of the readings' mono_*), the rate (check_rate).
 */
static int judge(const struct suite_item *it, const struct component *comp,
		 pid_t pid, const char *const *prefix,
		 const struct clock_want *want, const struct reading *first,
		 const struct reading *second, int64_t started_ns,
		 struct buf *value, struct err *e)
{
	double measured = 1;
	int rc;

	buf_printf(value, NULL, "{\"component\":\"%s\",\"pid\":%ld,"
		   "\"skew_ms\":%lld", comp->name, (long)pid,
		   (long long)first->skew_ms);
	rc = check_offset(it->opts, comp, prefix, want, first, started_ns,
			  e);
	/* Both measured and recorded; the offset's error, if any, wins. */
	if (want->measure_rate) {
		if (check_rate(comp, prefix, want, first, second, &measured,
			       e))
			rc = -1;
		buf_printf(value, NULL, ",\"measured_rate\":%.3f", measured);
	}
	buf_addch(value, '}', NULL);
	return rc ? -1 : 0;
}

/*
 * method restart: stop `comp` and start it again under `prefix` (NULL:
 * as it was); its clock must then be as `want` says (judge).
 */
static int restart_at(struct fault_ctx *ctx, const struct suite_item *it,
		      struct component *comp, const char *const *prefix,
		      const struct clock_want *want, struct buf *value,
		      struct err *e)
{
	struct sql s = SQL_INIT;
	struct reading first, second;
	int64_t started_ns;
	int rc;

	if (component_stop(ctx->cluster, comp, e))
		return -1;
	started_ns = clock_mono_ns();
	rc = component_start_under(ctx->cluster, comp, prefix, e) ||
	     component_connect(comp, &s, NULL, 5, e) ||
	     read_clock(comp, &s, &first, e);
	if (!rc && want->measure_rate) {
		clock_sleep_ns(RATE_INTERVAL_NS);
		rc = read_clock(comp, &s, &second, e);
	}
	sql_close(&s);
	if (rc)
		return -1;
	return judge(it, comp, component_pid(ctx->cluster, comp), prefix,
		     want, &first, &second, started_ns, value, e);
}

/*
 * A process's own reading (lib/skew.h) as a server's. Ours around it is
 * our wall clock, which stands in for the monotonic one over the half
 * second between two readings.
 */
static void reading_of(const struct skew_reading *sr, struct reading *r)
{
	r->server_s = (double)sr->theirs_ns / NS_PER_SEC;
	r->skew_ms = (sr->theirs_ns - (sr->before_ns + sr->after_ns) / 2) /
		     NS_PER_MS;
	r->mono_before = sr->before_ns;
	r->mono_after = sr->after_ns;
}

/* method live: what an injection holds, per target. */
struct skews {
	struct skew skew[FAULT_MAX_TARGETS];
};

/*
 * method live: move the clock of `comp` where it runs (skew_apply); it
 * must then be as `want` says (judge). *moved: 1 once it is, so that a
 * failed verification is healed all the same.
 */
static int skew_at(struct fault_ctx *ctx, const struct suite_item *it,
		   struct component *comp, struct skew *sk, int64_t offset_ns,
		   const struct clock_want *want, int *moved,
		   struct buf *value, struct err *e)
{
	const struct clock_opts *o = it->opts;
	pid_t pid = component_pid(ctx->cluster, comp);
	struct reading first, second;
	struct skew_reading sr;

	*moved = 0;
	if (pid <= 0)
		return err_set(e, ERR_INFRA, "%s is not running", comp->name);
	if (skew_apply(sk, pid, comp->name, offset_ns, o->rate, &sr, e))
		return -1;
	*moved = 1;
	reading_of(&sr, &first);
	if (want->measure_rate) {
		clock_sleep_ns(RATE_INTERVAL_NS);
		if (skew_read(sk, &sr, e))
			return -1;
		reading_of(&sr, &second);
	}
	return judge(it, comp, pid, NULL, want, &first, &second,
		     first.mono_before, value, e);
}

/*
 * method live: put the clock of `comp` back (skew_restore), read back at
 * once: it must be ours, and run at ours when `want` measures the rate
 * (a second reading, then the code let go: skew_release). A process gone
 * meanwhile took its skew with it: {"component","pid","gone":true}.
 */
static int unskew_at(const struct suite_item *it, struct component *comp,
		     struct skew *sk, const struct clock_want *want,
		     struct buf *value, struct err *e)
{
	struct skew_reading sr;
	struct reading first, second;
	int rc = skew_restore(sk, &sr, e);

	if (!rc) {
		struct err why = ERR_INIT;
		int released;

		reading_of(&sr, &first);
		second = first;
		if (want->measure_rate) {
			clock_sleep_ns(RATE_INTERVAL_NS);
			if (skew_read(sk, &sr, e))
				rc = -1;
			reading_of(&sr, &second);
		}
		/* Its code let go, whatever the reading said. */
		released = skew_release(sk, &why);
		if (released && !rc) {
			rc = released;
			if (released < 0)
				*e = why;
		}
	}
	if (rc > 0) {
		buf_printf(value, NULL, "{\"component\":\"%s\",\"pid\":%ld,"
			   "\"gone\":true}", comp->name, (long)sk->pid);
		return 0;
	}
	if (rc)
		return -1;
	return judge(it, comp, sk->pid, NULL, want, &first, &second,
		     first.mono_before, value, e);
}

static int inject(struct fault_ctx *ctx, const struct suite_item *it,
		  const struct plan_event *ev, struct fault_action *act,
		  struct buf *value, struct err *e)
{
	const struct clock_opts *o = it->opts;
	char preload[600], faketime[80];
	const char *prefix[] = { "/usr/bin/env", preload, faketime, NULL };
	struct clock_want want = { 0, o->rate, o->rate != 1 };
	struct skews *live = NULL;
	int64_t offset_ns = 0;
	size_t done = 0;
	int rc = 0;

	parse_offset(o->offset, &offset_ns, NULL);
	want.offset_ms = offset_ns / NS_PER_MS;
	if (fault_pick(ctx, o->t.target, o->t.pick, ev->choice, act, e))
		return -1;
	if (o->method == METHOD_LIVE)
		act->state = live = xcalloc(1, sizeof(*live));
	/* libfaketime's own syntax: "+3600" seconds, or "-1800"; then
	 * " x2" for a clock twice as fast. */
	snprintf(faketime, sizeof(faketime), "FAKETIME=%+.3f",
		 (double)offset_ns / NS_PER_SEC);
	if (want.measure_rate)
		snprintf(faketime + strlen(faketime),
			 sizeof(faketime) - strlen(faketime), " x%.9g",
			 o->rate);
	buf_printf(value, NULL, "\"method\":\"%s\",\"offset\":\"%s\","
		   "\"rate\":%.9g,\"moved\":[", methods[o->method],
		   o->offset, o->rate);
	for (size_t i = 0; i < act->ntargets && !rc; i++) {
		struct component *comp = act->targets[i];
		int moved;

		if (done)
			buf_addch(value, ',', NULL);
		if (live) {
			rc = skew_at(ctx, it, comp, &live->skew[i], offset_ns,
				     &want, &moved, value, e);
			/* Healed when moved, even when its clock is wrong. */
			done = i + (size_t)moved;
			continue;
		}
		snprintf(preload, sizeof(preload), "LD_PRELOAD=%s",
			 library_of(ctx->cluster, it, comp));
		rc = restart_at(ctx, it, comp, prefix, &want, value, e);
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
	const struct clock_opts *o = act->item->opts;
	struct skews *live = act->state;
	/* Back at rate 1, measured when it ran at another. */
	const struct clock_want want = { 0, 1, o->rate != 1 };
	int rc = 0;

	buf_addstr(value, "\"restored\":[", NULL);
	for (size_t i = 0; i < act->ntargets; i++) {
		struct err one = ERR_INIT;
		int failed;

		if (i)
			buf_addch(value, ',', NULL);
		failed = live ? unskew_at(act->item, act->targets[i],
					  &live->skew[i], &want, value, &one)
			      : restart_at(ctx, act->item, act->targets[i],
					   NULL, &want, value, &one);
		if (failed && !rc) {
			*e = one;
			rc = -1;
		}
	}
	buf_addch(value, ']', NULL);
	return rc;
}

/* What a run killed while a live skew held left: put back. */
static int sweep(struct cluster *c, struct err *e)
{
	return skew_sweep(e);
}

static const struct fault_detail details[] = {
	{ "offset", "offset", "", NULL },
	{ "rate", "rate", "", "1" },
	{ NULL, NULL, NULL, NULL },
};

/* Its components, named in its value's "moved", are drawn clock skewed. */
static const struct fault_holds holds = { "skewed", "clock skewed",
					  "had its clock skewed", "#bcbd22", 5,
					  "moved", details };

const struct fault_type fault_clock = {
	.kind = { "clock", "move components' clocks by `offset`, running at "
		  "`rate`, for `down` (live where they run, or a restart "
		  "under libfaketime)",
		  opts, sizeof(opts) / sizeof(opts[0]),
		  sizeof(struct clock_opts), .check = check,
		  .plan = fault_plan },
	.resolve = resolve,
	.inject = inject,
	.heal = heal,
	.heal_name = "reset_clock",
	.target = fault_component_target,
	.forget = free,
	.holds = &holds,
	.sweep = sweep,
};
