#ifndef TICHAOS_FAULT_H
#define TICHAOS_FAULT_H

/*
 * Faults: what the nemesis does to the cluster while the workloads run
 * (docs/internals.md, docs/faults.md). A fault kind is a const struct
 * fault_type registered in faults/registry.c.
 *
 * Every fault kind takes the scheduling options of FAULT_COMMON_OPTS; the
 * plan turns them into injection times and choices (fault_plan), so a seed
 * reproduces every fault. The runner's nemesis thread calls fault_inject()
 * at each planned time and fault_heal() when the injection's `down` is
 * over — and for everything still faulted when the run ends, however it
 * ends. The wrappers record each step in the history as process "nemesis"
 * (invoke, then info with what really happened, or fail when it did not
 * take effect) and time it; callers never use the ops directly.
 */

#include <stddef.h>
#include <stdint.h>

#include "core/held.h"
#include "core/kind.h"
#include "core/suite.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/rand.h"

struct cluster;
struct component;
struct suite;
struct suite_item;
struct plan;
struct plan_event;
struct history_slot;
struct history;
struct cancel;
struct fault_ctx;

/*
 * The scheduling options every fault accepts, bound: the first member of
 * every fault kind's options struct (struct kind.opts_size), which lists
 * FAULT_COMMON_OPTS first.
 */
struct fault_opts {
	int64_t every;		/* 0: not given (then `at`) */
	struct optints at;
	int64_t count;
	int64_t start_after;
	int64_t jitter;
	int64_t down;
	int on;			/* enum fault_trigger; -1: by time alone */
	struct optlist on_ops;	/* on: ddl, ddl_running: only these ops */
	int64_t after;		/* on: from the event to the injection */
};

/* `on:` values: the records of the history that fire a fault
 * (faults/trigger.h). */
extern const char *const fault_trigger_names[];

enum fault_trigger { TRIGGER_DDL, TRIGGER_HEAL, TRIGGER_OWNER,
		     TRIGGER_DDL_APPLIED, TRIGGER_DDL_RUNNING };

#define FAULT_COMMON_OPTS                                                    \
	{ "every", OPT_DURATION, NULL, 0, NULL, 0, 0,                        \
	  "inject every this long", OPT_AT(struct fault_opts, every) },      \
	{ "at", OPT_DURATION_LIST, NULL, 0, NULL, 0, 0,                      \
	  "inject at these offsets instead", OPT_AT(struct fault_opts, at) }, \
	{ "count", OPT_INT, "0", 0, NULL, 0, 100000,                         \
	  "at most this many injections; 0: as many as fit",                 \
	  OPT_AT(struct fault_opts, count) },                                \
	{ "start_after", OPT_DURATION, "5s", 0, NULL, 0, 0,                  \
	  "the first injection with `every`",                                \
	  OPT_AT(struct fault_opts, start_after) },                          \
	{ "jitter", OPT_DURATION, "0s", 0, NULL, 0, 0,                       \
	  "each injection later by a random delay up to this",               \
	  OPT_AT(struct fault_opts, jitter) },                               \
	{ "down", OPT_DURATION, "0s", 0, NULL, 0, 0,                         \
	  "heal (restart, continue) this long after the injection",          \
	  OPT_AT(struct fault_opts, down) },                                 \
	{ "on", OPT_ENUM, NULL, 0, fault_trigger_names, 0, 0,                \
	  "inject on this event once armed (at its times; without at or "    \
	  "every, at the start): ddl (a DDL completed upstream), heal "       \
	  "(another fault healed), owner (an owner changed), ddl_applied "    \
	  "(a partition DDL seen downstream), ddl_running (a partition DDL " \
	  "seen running downstream)",                                        \
	  OPT_AT(struct fault_opts, on) },                                   \
	{ "on_ops", OPT_STRING_LIST, NULL, 0, NULL, 0, 0,                    \
	  "on: ddl or ddl_running: only a DDL of these operations "          \
	  "(truncate, exchange, ...)", OPT_AT(struct fault_opts, on_ops) },  \
	{ "after", OPT_DURATION, NULL, 0, NULL, 0, 0,                        \
	  "on: this long after the event (default 0s)",                      \
	  OPT_AT(struct fault_opts, after) }

/* The common options of the item `it` of a fault kind. */
static inline const struct fault_opts *
fault_opts_of(const struct suite_item *it)
{
	return it->opts;
}

/*
 * The options of the faults that act on components (FAULT_COMMON_OPTS,
 * then FAULT_TARGET_OPTS), bound: the first member of their options
 * struct.
 */
struct fault_target_opts {
	struct fault_opts common;
	const char *target;	/* a role or a component name */
	int pick;		/* enum fault_pick */
};

#define FAULT_TARGET_OPTS                                                    \
	{ "target", OPT_COMPONENT, NULL, 1, NULL, 0, 0,                      \
	  "a role (cdc, upstream, downstream, pd, kv, etcd) or a component " \
	  "name", OPT_AT(struct fault_target_opts, target) },                \
	{ "pick", OPT_ENUM, "one", 0, fault_pick_names, 0, 0,                \
	  "which of the target's running components: one, all, minority, "   \
	  "majority, or the owner (TiCDC)",                                  \
	  OPT_AT(struct fault_target_opts, pick) }

/* The `target` hook of the kinds with FAULT_TARGET_OPTS: the role or
 * component named. */
const char *fault_component_target(struct fault_ctx *ctx,
				   const struct suite_item *it);

/*
 * A suite error (ERR_USAGE, -1) at option `field` of item `it` (a member
 * of the item's options struct): "FILE:L:C: message" where it was given;
 * where it was not, or with NULL, at the item itself.
 */
int fault_error_at(struct err *e, const struct suite *s,
		   const struct suite_item *it, const void *field,
		   const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Components a fault acts on at once, at most. */
#define FAULT_MAX_TARGETS 16

/* What an injection left to undo, and when. */
struct fault_action {
	const struct suite_item *item;
	int item_index;
	int64_t heal_at_ns;		/* since the run started */
	struct component *targets[FAULT_MAX_TARGETS];
	size_t ntargets;
	int healed;
	/* MAY: the kind's own, what its heal needs besides the targets
	 * (set by inject; let go with the kind's `forget` once healed, or
	 * never healed). */
	void *state;
};

/* What a fault works with; filled by the runner. */
struct fault_ctx {
	struct cluster *cluster;
	const struct suite *suite;
	struct history *history;
	struct history_slot *slot;
	/* The run's token (lib/cancel.h): at CANCEL_STOP the run is
	 * over, and a fault's own waits end. */
	const struct cancel *cancel;
};

/* An etcd election a fault moves (fault_type.election). */
struct fault_election {
	char prefix[512];	/* its key prefix */
	const char *url;	/* the etcd client URL to read it from */
	/* What an owner's value names, for mapping it to a component
	 * (cluster_owner_component): "autoid", "ddl", "cdc"; NULL: not
	 * known. */
	const char *service;
};

struct fault_type {
	/* Name, doc, options (FAULT_COMMON_OPTS first, then its own), and
	 * the core's hooks: `check` (calling fault_check), `plan` (always
	 * fault_plan). */
	struct kind kind;
	/*
	 * MAY: once the cluster is up, before any workload starts, check
	 * that what the item needs of it beyond its component names (which
	 * the runner checks for every kind) is there: the election it
	 * moves, the servers it asks. "FILE:L:C: message" errors that say
	 * what the cluster has instead, ERR_USAGE.
	 */
	int (*resolve)(struct cluster *c, const struct suite *s,
		       const struct suite_item *it, struct err *e);
	/*
	 * MAY: once the suite is resolved, before the schema is made: set
	 * up on the cluster, for the whole run, what the item's injections
	 * need (the disk kinds: their components' data on tichaos-diskfs).
	 * Undone by `finish`; what a killed run leaves is the kind's
	 * `sweep`'s.
	 */
	int (*prepare)(struct cluster *c, const struct suite *s,
		       const struct suite_item *it, struct err *e);
	/*
	 * MAY (MUST with prepare): undo `prepare`, once every injection is
	 * healed and the checks ran, before the cluster is torn down; also
	 * when prepare failed halfway or did not run.
	 */
	int (*finish)(struct cluster *c, const struct suite_item *it,
		      struct err *e);
	/*
	 * MUST: do it now. On success, append to `value` the JSON members
	 * (without braces) saying what happened ("\"killed\":[...]"), fill
	 * `act` with what to heal (ntargets 0: nothing), return 0. When it
	 * did not take effect, return -1 with `e` saying why (`value` may
	 * still say what was seen) and act->ntargets cut to what it did
	 * break all the same (0: nothing), which is healed at once.
	 */
	int (*inject)(struct fault_ctx *ctx, const struct suite_item *it,
		      const struct plan_event *ev, struct fault_action *act,
		      struct buf *value, struct err *e);
	/*
	 * MAY (MUST when inject can leave targets): undo `act` — restart,
	 * continue — waiting until the targets are ready. Same `value`
	 * convention.
	 */
	int (*heal)(struct fault_ctx *ctx, struct fault_action *act,
		    struct buf *value, struct err *e);
	/* The history's name of the heal step: "restart", "continue". */
	const char *heal_name;
	/*
	 * MAY: what item `it` acts on, for the history's `target` (a role,
	 * a component, an election, a changefeed's id, a table); NULL:
	 * nothing named.
	 */
	const char *(*target)(struct fault_ctx *ctx,
			      const struct suite_item *it);
	/* MAY (MUST when inject sets act->state): let go of act->state. */
	void (*forget)(void *state);
	/*
	 * MAY: the etcd election the item moves, for the runner's owner
	 * monitor, which records every owner change of it (whatever caused
	 * it): 1 with `out` filled, 0 when it moves none it can watch (a
	 * leader that resigns over HTTP only), -1 when it cannot be told.
	 */
	int (*election)(struct cluster *c, const struct suite_item *it,
			struct fault_election *out, struct err *e);
	/*
	 * MAY (a kind that heals): what the components it acts on are
	 * while it holds, and where its info value names them, for the
	 * history ("holds") and report.html's lanes (core/held.h); NULL:
	 * it holds no component (the history says "holds": "other").
	 */
	const struct fault_holds *holds;
	/*
	 * MAY (a kind that leaves state on the hosts while it holds: a cut,
	 * a degraded link): remove what a run killed meanwhile left on
	 * cluster `c`'s hosts, saying each with log_warn; called before the
	 * cluster's servers start (fault_sweep, through c->sweep). 0, or -1
	 * (`e`) when it cannot be removed.
	 */
	int (*sweep)(struct cluster *c, struct err *e);
};

/* The fault kind of item `it`. */
static inline const struct fault_type *
fault_type_of(const struct suite_item *it)
{
	return (const struct fault_type *)it->type;
}

/* Let go of what `act` holds (its kind's state), healed or not. */
void fault_action_release(struct fault_action *act);

/*
 * Every fault kind's sweep, in the registry's order: what a killed run's
 * faults left on `c`'s hosts, removed (a struct cluster's sweep).
 */
int fault_sweep(struct cluster *c, struct err *e);

/*
 * Every fault kind's way of holding its components (fault_type.holds), in
 * the registry's order, NULL-terminated: what the history's "holds" name,
 * for the reports (struct report_run).
 */
const struct fault_holds *const *fault_holds_all(void);

/* Every fault kind, NULL-terminated. */
extern const struct fault_type *const fault_types[];

/* The i-th fault kind, NULL past the end. */
const struct kind *fault_kind(size_t i);

/*
 * The plan of fault item `it` (index `item_index`): its injection times
 * from every/at/count/start_after/jitter, each with a `choice`; those at
 * or past `duration_ns` are left out. With `on`, each is an arming
 * (event.on, no heal time; without every and at, one at 0).
 */
int fault_plan(const struct suite *s, const struct suite_item *it,
	       int item_index, int64_t duration_ns, struct rand *r,
	       struct plan *p, struct err *e);

/* Check the common options of every fault item: every or at (not both)
 * or on; on_ops only with on: ddl or ddl_running, after only with on. */
int fault_check(const struct suite *s, const struct suite_item *it,
		struct err *e);

/*
 * Inject planned event `ev` of fault item `it`: history invoke + info (or
 * fail), timing, verification by the kind. Fills `act`; act->heal_at_ns
 * is set from `down`. 0 when it took effect. `trigger` (MAY, an `on:`
 * item's): what fired it, a JSON object (faults/trigger.h), the invoke's
 * value's "trigger".
 */
int fault_inject(struct fault_ctx *ctx, const struct suite_item *it,
		 int item_index, const struct plan_event *ev,
		 const char *trigger, struct fault_action *act,
		 struct err *e);

/* Heal `act` (no-op when already healed or nothing to heal). */
int fault_heal(struct fault_ctx *ctx, struct fault_action *act,
	       struct err *e);

/* `pick:` values: which of the target's components a fault acts on. */
extern const char *const fault_pick_names[];

enum fault_pick { PICK_ONE, PICK_ALL, PICK_MINORITY, PICK_MAJORITY,
		  PICK_OWNER };

/*
 * Choose the components `target` (a role or a component name) means for
 * one injection: among the running ones, `pick` of them, drawn with
 * `choice`; PICK_OWNER asks the cluster who owns the role (TiCDC
 * captures). Fails (with a reason) when there is none to pick.
 */
int fault_pick(struct fault_ctx *ctx, const char *target, int pick,
	       uint64_t choice, struct fault_action *act, struct err *e);

/*
 * Send `sig` to every target of `act` (SIGSTOP: pause and verify, one
 * after another; another signal: to all of them before waiting for any,
 * components_kill), waiting until each is gone (or stopped); append
 * "\"VERB\":[{component, pid}...]" to `value`. act->ntargets is cut to the ones that went down, so a heal
 * undoes exactly those.
 */
int fault_signal_targets(struct fault_ctx *ctx, struct fault_action *act,
			 int sig, const char *verb, struct buf *value,
			 struct err *e);

/*
 * Start every target of `act` again with its start command, all before
 * any is waited for until ready (components_start: etcd members are
 * ready only together), the heal of a kill; append "\"restarted\":
 * [{component, pid, ready_ms}...]" to `value`, each that got ready, its
 * ready_ms counted from the first start. Goes on past one that fails:
 * -1 with the first error.
 */
int fault_restart_targets(struct fault_ctx *ctx, struct fault_action *act,
			  struct buf *value, struct err *e);

/*
 * The components of the cluster with role or name `target`, running ones
 * only when `running`; at most FAULT_MAX_TARGETS. Returns the count.
 */
size_t fault_targets(struct cluster *c, const char *target, int running,
		     struct component **out);

#endif
