/*
 * The wrappers every fault goes through: scheduling into the plan, and
 * injecting and healing with their history records (faults/fault.h).
 */
#include "faults/fault.h"

#include <jansson.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "clusters/api.h"
#include "clusters/cluster.h"
#include "core/plan.h"
#include "core/suite.h"
#include "faults/trigger.h"
#include "lib/clock.h"
#include "lib/history.h"
#include "lib/http.h"
#include "lib/log.h"

int fault_check(const struct suite *s, const struct suite_item *it,
		struct err *e)
{
	const struct fault_opts *o = fault_opts_of(it);
	const struct optval *every = suite_optval(it, &o->every);
	const struct optval *at = suite_optval(it, &o->at);
	const struct optval *on = suite_optval(it, &o->on);
	struct ynode where = { YNODE_SCALAR, it->line, it->col, NULL, 0, NULL,
			       0 };

	if (every->set && at->set)
		return ynode_error(e, s->path, &where, "fault '%s' takes "
				   "'every' or 'at', not both", it->kind);
	if (!every->set && !at->set && !on->set)
		return ynode_error(e, s->path, &where, "fault '%s' needs "
				   "'every', 'at' or 'on'", it->kind);
	if (o->on_ops.n && (o->on < 0 || !fault_triggers[o->on].takes_ops))
		return fault_error_at(e, s, it, &o->on_ops, "on_ops in fault "
				      "'%s' needs 'on: ddl' or 'on: "
				      "ddl_running'", it->kind);
	if (suite_optval(it, &o->after)->set && !on->set)
		return fault_error_at(e, s, it, &o->after, "after in fault "
				      "'%s' needs 'on'", it->kind);
	if (every->set && every->i < 100 * NS_PER_MS) {
		where.line = every->line;
		where.col = every->col;
		return ynode_error(e, s->path, &where, "every in fault '%s' "
				   "must be at least 100ms", it->kind);
	}
	return 0;
}

int fault_plan(const struct suite *s, const struct suite_item *it,
	       int item_index, int64_t duration_ns, struct rand *r,
	       struct plan *p, struct err *e)
{
	const struct fault_opts *o = fault_opts_of(it);
	/* When the heal is due, for the kinds that heal. */
	int64_t down = fault_type_of(it)->heal ? o->down : 0;
	int64_t n = 0;

	(void)s;
	for (size_t i = 0;; i++) {
		struct plan_event ev = { 0, -1, item_index, NULL, NULL, NULL,
					 0, 0, NULL };
		int64_t when;

		if (o->count && n >= o->count)
			break;
		/* `on` alone: armed once, at the start. */
		if (o->on >= 0 && !o->at.n && !o->every) {
			if (i)
				break;
			when = 0;
		} else if (o->at.n) {	/* an empty `at` is not set */
			if (i >= o->at.n)
				break;
			when = o->at.v[i];
		} else {
			when = o->start_after + (int64_t)i * o->every;
		}
		if (o->jitter > 0)
			when += (int64_t)rand_below(r, (uint64_t)o->jitter);
		if (when >= duration_ns) {
			if (o->at.n)
				continue;
			break;
		}
		ev.at_ns = when;
		/* Triggered: its heal is `down` after it fires, not known. */
		ev.heal_at_ns = down > 0 && o->on < 0 ? when + down : 0;
		ev.op = (char *)it->kind;
		ev.on = o->on >= 0 ? (char *)fault_trigger_names[o->on] : NULL;
		ev.choice = plan_choice(r);
		if (plan_add(p, &ev, e))
			return -1;
		n++;
	}
	return 0;
}

size_t fault_targets(struct cluster *c, const char *target, int running,
		     struct component **out)
{
	unsigned role = role_parse(target);
	size_t n = 0;

	for (size_t i = 0; i < c->ncomps && n < FAULT_MAX_TARGETS; i++) {
		struct component *comp = &c->comps[i];

		if (!(role ? (comp->roles & role) : !strcmp(comp->name,
							      target)))
			continue;
		if (running && component_state(c, comp) != STATE_RUNNING)
			continue;
		out[n++] = comp;
	}
	return n;
}

const char *const fault_trigger_names[] = {
	"ddl", "heal", "owner", "ddl_applied", "ddl_running", NULL,
};

const char *const fault_pick_names[] = {
	"one", "all", "minority", "majority", "owner", NULL,
};

/*
 * The TiCDC owner among `cands`: the capture GET /api/v2/captures lists
 * with is_owner, its address matched to a candidate's http_url.
 */
static struct component *cdc_owner(struct cluster *c,
				   struct component **cands, size_t n,
				   struct err *e)
{
	struct capture caps[MAX_CAPTURES];
	const char *address = NULL;
	size_t ncaps;

	if (cluster_captures(c, caps, &ncaps, e))
		return NULL;
	for (size_t j = 0; j < ncaps; j++)
		if (caps[j].is_owner)
			address = caps[j].address;
	for (size_t j = 0; address && j < n; j++) {
		const char *u = cands[j]->http_url;
		const char *host = u ? strstr(u, "://") : NULL;
		size_t len = strlen(address);

		if (host && !strncmp(host + 3, address, len) &&
		    (host[3 + len] == '\0' || host[3 + len] == '/'))
			return cands[j];
	}
	err_set(e, ERR_INFRA, "pick owner: no TiCDC capture named an owner "
		"among the targets");
	return NULL;
}

int fault_pick(struct fault_ctx *ctx, const char *target, int pick,
	       uint64_t choice, struct fault_action *act, struct err *e)
{
	struct component *cands[FAULT_MAX_TARGETS];
	size_t n = fault_targets(ctx->cluster, target, 1, cands), want;
	struct rand r;

	act->ntargets = 0;
	if (!n)
		return err_set(e, ERR_INFRA, "no running component with role "
			       "or name '%s'", target);
	if (pick == PICK_OWNER) {
		struct component *owner = cdc_owner(ctx->cluster, cands,
						    n, e);

		if (!owner)
			return -1;
		act->targets[act->ntargets++] = owner;
		return 0;
	}
	want = pick == PICK_ONE ? 1 : pick == PICK_ALL ? n
	       : pick == PICK_MAJORITY ? n / 2 + 1
	       : (n - 1) / 2 ? (n - 1) / 2 : 1;
	/* A draw of `want` of them from the planned choice. */
	rand_seed(&r, choice);
	rand_shuffle(&r, cands, n, want, sizeof(*cands));
	for (size_t i = 0; i < want; i++)
		act->targets[act->ntargets++] = cands[i];
	return 0;
}

/*
 * One step of fault item `item` in the history: `holds` on an injection's
 * completion when the kind heals (what it holds), `heal` on every record
 * of its heal, so that readers tell the fault's spans from the history
 * alone (docs/internals.md, History).
 */
static void record(struct fault_ctx *ctx, int item, const char *type,
		   const char *f, const char *target, const char *value,
		   const char *error, const char *holds, int heal)
{
	struct history_event ev = { history_now(ctx->history),
				    HISTORY_NEMESIS, type, f, NULL, NULL,
				    target, -1, error, value, 0, 1, item,
				    holds, heal };

	history_record(ctx->slot, &ev);
}

/* The history's "holds" of an injection of kind `t`: NULL when it does
 * not heal. */
static const char *holds_of(const struct fault_type *t)
{
	return !t->heal ? NULL : t->holds ? t->holds->name : FAULT_HOLDS_OTHER;
}

const char *fault_component_target(struct fault_ctx *ctx,
				   const struct suite_item *it)
{
	return ((const struct fault_target_opts *)it->opts)->target;
}

static const char *target_of(struct fault_ctx *ctx,
			     const struct suite_item *it)
{
	const struct fault_type *t = fault_type_of(it);

	return t->target ? t->target(ctx, it) : NULL;
}

/* Wrap `members` into "{...,"took_ms":N}" in `out`. */
static void finish_value(struct buf *out, const struct buf *members,
			 int64_t took_ns)
{
	buf_printf(out, NULL, "{%s%s\"took_ms\":%lld}", buf_str(members),
		   members->len ? "," : "", (long long)(took_ns / NS_PER_MS));
}

int fault_inject(struct fault_ctx *ctx, const struct suite_item *it,
		 int item_index, const struct plan_event *ev,
		 const char *trigger, struct fault_action *act,
		 struct err *e)
{
	const struct fault_type *t = fault_type_of(it);
	struct buf members = BUF_INIT, value = BUF_INIT;
	const char *target = target_of(ctx, it);
	int64_t start = clock_mono_ns();
	int rc;

	memset(act, 0, sizeof(*act));
	act->item = it;
	act->item_index = item_index;
	if (trigger)
		buf_printf(&value, NULL, "{\"trigger\":%s}", trigger);
	record(ctx, item_index, "invoke", it->kind, target,
	       trigger ? buf_str(&value) : NULL, NULL, NULL, 0);
	buf_reset(&value);
	rc = t->inject(ctx, it, ev, act, &members, e);
	finish_value(&value, &members, clock_mono_ns() - start);
	if (rc) {
		record(ctx, item_index, "fail", it->kind, target,
		       buf_str(&value), e->msg, holds_of(t), 0);
		log_warn("fault %s %s did not take effect: %s", it->kind,
			 target ? target : "", e->msg);
		/* What did go down before it failed (a kill of two whose
		 * second failed) comes back now, not never. */
		act->heal_at_ns = history_now(ctx->history);
		if (!act->ntargets)
			fault_action_release(act);
	} else {
		record(ctx, item_index, "info", it->kind, target,
		       buf_str(&value), NULL, holds_of(t), 0);
		log_info("fault %s %s: %s", it->kind, target ? target : "",
			 buf_str(&value));
		act->heal_at_ns = history_now(ctx->history) +
				  fault_opts_of(it)->down;
	}
	buf_release(&members);
	buf_release(&value);
	return rc;
}

int fault_heal(struct fault_ctx *ctx, struct fault_action *act,
	       struct err *e)
{
	const struct fault_type *t;
	struct buf members = BUF_INIT, value = BUF_INIT;
	const char *target;
	int64_t start = clock_mono_ns();
	int rc;

	if (act->healed || !act->ntargets || !act->item)
		return 0;
	t = fault_type_of(act->item);
	if (!t->heal)
		return 0;
	target = target_of(ctx, act->item);
	record(ctx, act->item_index, "invoke", t->heal_name, target, NULL,
	       NULL, NULL, 1);
	rc = t->heal(ctx, act, &members, e);
	finish_value(&value, &members, clock_mono_ns() - start);
	record(ctx, act->item_index, rc ? "fail" : "info", t->heal_name,
	       target, buf_str(&value), rc ? e->msg : NULL, NULL, 1);
	if (rc)
		log_error("heal %s %s failed: %s", t->heal_name,
			  target ? target : "", e->msg);
	else
		log_info("%s %s: %s", t->heal_name, target ? target : "",
			 buf_str(&value));
	act->healed = 1;
	fault_action_release(act);
	buf_release(&members);
	buf_release(&value);
	return rc;
}

void fault_action_release(struct fault_action *act)
{
	const struct fault_type *t = act->item ? fault_type_of(act->item)
						 : NULL;

	if (act->state && t && t->forget)
		t->forget(act->state);
	act->state = NULL;
}

int fault_signal_targets(struct fault_ctx *ctx, struct fault_action *act,
			 int sig, const char *verb, struct buf *value,
			 struct err *e)
{
	size_t done = 0, gone = 0;
	pid_t *pids = xcalloc(act->ntargets + 1, sizeof(*pids));

	for (size_t i = 0; i < act->ntargets; i++)
		pids[i] = component_pid(ctx->cluster, act->targets[i]);
	/* All at once: a crash of several servers is one moment. */
	if (sig != SIGSTOP)
		components_kill(ctx->cluster, act->targets, act->ntargets, sig,
				&gone, e);
	buf_printf(value, NULL, "\"%s\":[", verb);
	for (size_t i = 0; i < act->ntargets; i++) {
		struct component *c = act->targets[i];
		pid_t pid = pids[i];
		int rc = sig == SIGSTOP ? component_pause(ctx->cluster, c, e)
					: i >= gone;

		if (rc)
			break;
		buf_printf(value, NULL, "%s{\"component\":\"%s\",\"pid\":%ld}",
			   done ? "," : "", c->name, (long)pid);
		act->targets[done++] = c;
	}
	buf_addch(value, ']', NULL);
	free(pids);
	/* Heal what did go down, even when a later target failed. */
	act->ntargets = done;
	return err_isset(e) ? -1 : 0;
}

int fault_error_at(struct err *e, const struct suite *s,
		   const struct suite_item *it, const void *field,
		   const char *fmt, ...)
{
	const struct optval *v = field ? suite_optval(it, field) : NULL;
	struct ynode at = { 0 };
	char msg[ERR_MSG_MAX];
	va_list ap;

	at.kind = YNODE_SCALAR;
	at.line = v && v->line ? v->line : it->line;
	at.col = v && v->line ? v->col : it->col;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ynode_error(e, s->path, &at, "%s", msg);
}

/*
 * After TiCDC captures were started again: both architectures among the
 * captures of TiCDC's default cluster is a restart that changed one's
 * (its start without the --newarch or TICDC_NEWARCH=true it first had:
 * cluster_capture_archs). The new architecture refuses to start beside
 * the old (server/server.go validCheck in pingcap/ticdc); the old one
 * joins the new one's election and meta unchecked. 0, or -1 with `e`
 * naming both sides.
 */
static int same_arch(struct fault_ctx *ctx, const struct fault_action *act,
		     struct err *e)
{
	const char *url = cluster_etcd_url(ctx->cluster, NULL);
	char newer[256], older[256];
	struct err why = ERR_INIT;
	size_t i;

	for (i = 0; i < act->ntargets; i++)
		if (act->targets[i]->roles & ROLE_CDC)
			break;
	if (i == act->ntargets || !url)
		return 0;
	if (cluster_capture_archs(ctx->cluster, url, "default", newer, older,
				  sizeof(newer), &why)) {
		log_warn("restart: cannot tell the captures' architecture: %s",
			 why.msg);
		return 0;
	}
	if (!*newer || !*older)
		return 0;
	return err_set(e, ERR_INFRA, "TiCDC runs both architectures after "
		       "the restart: %s the old one (tiflow), %s the new one: "
		       "a capture started without the --newarch or "
		       "TICDC_NEWARCH=true it had (cmd/cdc/server/server.go in "
		       "pingcap/ticdc)", older, newer);
}

int fault_restart_targets(struct fault_ctx *ctx, struct fault_action *act,
			  struct buf *value, struct err *e)
{
	int64_t *ready = xcalloc(act->ntargets + 1, sizeof(*ready));
	int *sup = xcalloc(act->ntargets + 1, sizeof(*sup));
	size_t done = 0;
	int rc;

	/* Each supervised one: restarted by its supervisor by itself, or
	 * (held stopped) started through its `start`. */
	for (size_t i = 0; i < act->ntargets; i++)
		sup[i] = act->targets[i]->sup ? act->targets[i]->sup_state
					      : -1;
	/* All at once: members ready only together (etcd's quorum). */
	rc = components_start(ctx->cluster, act->targets, act->ntargets,
			      ready, e);
	buf_addstr(value, "\"restarted\":[", NULL);
	for (size_t i = 0; i < act->ntargets; i++) {
		struct component *c = act->targets[i];

		if (ready[i] < 0)
			continue;
		buf_printf(value, NULL, "%s{\"component\":\"%s\",\"pid\":%ld,"
			   "\"ready_ms\":%lld", done++ ? "," : "", c->name,
			   (long)component_pid(ctx->cluster, c),
			   (long long)(ready[i] / NS_PER_MS));
		if (sup[i] >= 0)
			buf_printf(value, NULL, ",\"supervisor\":\"%s\"",
				   sup[i] == SUP_AWAITED ? "restarted"
				   : "started");
		buf_addch(value, '}', NULL);
	}
	buf_addch(value, ']', NULL);
	free(sup);
	free(ready);
	return rc || same_arch(ctx, act, e) ? -1 : 0;
}
