/*
 * The disk faults, on tichaos-diskfs (diskfs/main.c), a FUSE file
 * system of tichaos's own that each picked component's data directory
 * is placed on for the whole run:
 *
 *	disk_lose	a power loss: the component killed with SIGKILL and
 *			everything its files received since their last
 *			fsync or fdatasync dropped, as a machine that loses
 *			power drops its page cache; after `down` it starts
 *			again, as a killed one does. A kill -9 alone never
 *			shows this: the page cache survives a process.
 *	disk_error	for `down`, `percent` of its reads, writes and/or
 *			syncs (`ops`) fail with EIO
 *	disk_full	for `down`, every write fails with ENOSPC, and the
 *			file system shows no free space
 *	disk_slow	for `down`, each read, write and/or sync (`ops`)
 *			waits `delay` first
 *
 * The placement, for every disk kind alike (faults/diskplace.h): `prepare`
 * puts the component's data directory on the file system, `finish` takes
 * it off, stopping the component first and starting it again when it
 * ran before the placement; a run killed meanwhile leaves it placed,
 * and the next run's sweep (disk_lose's, for every kind) undoes it.
 *
 * Each mode is set over the file system's control file and SIGUSR2; its
 * heal sets it off and records what it did: every read, write and sync
 * the component made meanwhile, how many failed, how long they waited.
 *
 * The file system holds back file data and sizes, directory entries
 * until their directory is synced, and a file's mode, owner and times
 * until it is (`entries: ordered`: until anything is; diskfs/main.c).
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/plan.h"
#include "core/suite.h"
#include "faults/diskplace.h"
#include "faults/fault.h"
#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/history.h"
#include "lib/log.h"

/* Files named in a record, at most; the counts cover them all. */
#define MAX_NAMED 20

/* The options of every disk kind; each binds those it takes. */
struct disk_opts {
	struct fault_target_opts t;
	double percent;		/* disk_error */
	struct optlist ops;	/* disk_error, disk_slow: read, write, fsync */
	int64_t delay;		/* disk_slow */
	int entries;		/* disk_lose: enum entries */
	int cache;		/* enum cache */
};

/* Whether the kernel's page cache stays over the file system
 * (tichaos-diskfs --cache): programs that map their files need it. */
enum cache { CACHE_AUTO, CACHE_ON, CACHE_OFF };
static const char *const cache_names[] = { "auto", "on", "off", NULL };
/* auto: on for these, which map their files (etcd's and PD's bbolt). */
#define CACHE_ROLES (ROLE_ETCD | ROLE_PD | ROLE_KV)

/* disk_lose: when a directory entry becomes durable (diskfs/main.c). */
enum entries { ENTRIES_POSIX, ENTRIES_ORDERED };
static const char *const entries_names[] = { "posix", "ordered", NULL };

static const char *const op_names[] = { "read", "write", "fsync", NULL };

#define DISK_CACHE_OPT                                                       \
	{ "cache", OPT_ENUM, "auto", 0, cache_names, 0, 0,                   \
	  "the kernel's page cache over the data directory: on (what maps "  \
	  "its files needs it: etcd, PD; reads it answers reach no fault), " \
	  "off (each read reaches the disk), auto (on for etcd, pd and kv)", \
	  OPT_AT(struct disk_opts, cache) }

#define DISK_OPS_OPT(what)                                                   \
	{ "ops", OPT_ENUM_LIST, "[read, write, fsync]", 0, op_names, 0, 0,   \
	  "the operations of its data directory's files that " what,         \
	  OPT_AT(struct disk_opts, ops) }

static const struct optspec lose_opts[] = {
	FAULT_COMMON_OPTS,
	FAULT_TARGET_OPTS,
	{ "entries", OPT_ENUM, "posix", 0, entries_names, 0, 0,
	  "which directory entries (creates, renames, unlinks) a loss "
	  "drops: posix (those whose directory was not synced since) or "
	  "ordered (those made after the last sync of anything, as ext4 "
	  "and XFS journal them)", OPT_AT(struct disk_opts, entries) },
	DISK_CACHE_OPT,
};

static const struct optspec error_opts[] = {
	FAULT_COMMON_OPTS,
	FAULT_TARGET_OPTS,
	{ "percent", OPT_FLOAT, NULL, 1, NULL, 0, 0,
	  "the percentage of its operations (`ops`) that fail with EIO, "
	  "above 0 and at most 100", OPT_AT(struct disk_opts, percent) },
	DISK_OPS_OPT("fail"),
	DISK_CACHE_OPT,
};

static const struct optspec full_opts[] = {
	FAULT_COMMON_OPTS,
	FAULT_TARGET_OPTS,
	DISK_CACHE_OPT,
};

static const struct optspec slow_opts[] = {
	FAULT_COMMON_OPTS,
	FAULT_TARGET_OPTS,
	{ "delay", OPT_DURATION, NULL, 1, NULL, 0, 0,
	  "how long each of its operations (`ops`) waits first, above 0",
	  OPT_AT(struct disk_opts, delay) },
	DISK_OPS_OPT("wait"),
	DISK_CACHE_OPT,
};


static int check(const struct suite *s, const struct suite_item *it,
		 struct err *e)
{
	const struct disk_opts *o = it->opts;
	const char *kind = it->type->name;

	if (fault_check(s, it, e))
		return -1;
	if (fault_opts_of(it)->down <= 0)
		return fault_error_at(e, s, it, NULL, "fault '%s' needs a "
				      "'down' above 0s: %s", kind,
				      !strcmp(kind, "disk_lose") ?
				      "the heal starts the components again"
				      : "the heal sets the disk right");
	if (!strcmp(kind, "disk_error") &&
	    !(o->percent > 0 && o->percent <= 100))
		return fault_error_at(e, s, it, &o->percent, "fault "
				      "'disk_error': 'percent' must be above "
				      "0 and at most 100");
	if (!strcmp(kind, "disk_slow") && o->delay <= 0)
		return fault_error_at(e, s, it, &o->delay, "fault "
				      "'disk_slow': 'delay' must be above 0s");
	return 0;
}

/* Each target: a data directory, a start command; FUSE and
 * tichaos-diskfs on its host. */
static int resolve(struct cluster *c, const struct suite *s,
		   const struct suite_item *it, struct err *e)
{
	const struct disk_opts *o = it->opts;
	struct component *comps[FAULT_MAX_TARGETS];
	size_t n = fault_targets(c, o->t.target, 0, comps);
	const char *kind = it->type->name;
	struct buf program = BUF_INIT;
	struct err why = ERR_INIT;
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		if (!comps[i]->data_dir || !comps[i]->start)
			rc = fault_error_at(e, s, it, &o->t.target,
					    "fault '%s': %s needs a data_dir "
					    "and a start command in the "
					    "topology", kind, comps[i]->name);
		else if (diskplace_program(component_host(c, comps[i]),
					   &program, &why))
			rc = fault_error_at(e, s, it, &o->t.target,
					    "fault '%s': %s: %s", kind,
					    comps[i]->name, why.msg);
	}
	buf_release(&program);
	return rc;
}

static int prepare(struct cluster *c, const struct suite *s,
		   const struct suite_item *it, struct err *e)
{
	const struct disk_opts *o = it->opts;
	struct component *comps[FAULT_MAX_TARGETS];
	size_t n = fault_targets(c, o->t.target, 0, comps);
	struct placement p;
	struct buf text = BUF_INIT;
	const char *entries = !strcmp(it->type->name, "disk_lose") &&
			      o->entries == ENTRIES_ORDERED ?
			      "entries ordered" : NULL;
	int rc = 0;

	(void)s;
	for (size_t i = 0; i < n && !rc; i++) {
		int cache = o->cache == CACHE_ON ||
			    (o->cache == CACHE_AUTO &&
			     (comps[i]->roles & CACHE_ROLES));

		if (!diskplace_ours(c, comps[i], &p)
		    ? diskplace_place(c, comps[i], entries, cache, e)
		    : entries && diskplace_control(&p, entries, &text, e))
			rc = -1;
	}
	buf_release(&text);
	return rc;
}

static int finish(struct cluster *c, const struct suite_item *it,
		  struct err *e)
{
	const struct disk_opts *o = it->opts;
	struct component *comps[FAULT_MAX_TARGETS];
	size_t n = fault_targets(c, o->t.target, 0, comps);
	struct placement p;
	int rc = 0;

	/* Stopped whatever its state says (a run interrupted while it
	 * started, or while a heal started it, has it starting): nothing
	 * may have its files open when the file system goes. Started again
	 * when it ran before the placement. */
	for (size_t i = 0; i < n; i++) {
		if (!diskplace_ours(c, comps[i], &p))
			continue;
		if ((component_state(c, comps[i]) != STATE_STOPPED &&
		     component_stop(c, comps[i], e)) ||
		    diskplace_undo(&p, e) ||
		    (p.was_running && component_start(c, comps[i], e)))
			rc = -1;
	}
	return rc;
}

/*
 * SIGUSR1 to the file system of `p`, its report read back into `value`:
 * {"component","files","bytes","lost":[{"path","bytes"}...],"entries",
 * "undone":["rename /a /b"...]} (at most MAX_NAMED of each named).
 */
static int lose(const struct placement *p, struct buf *value, struct err *e)
{
	static const char *const done[] = { "lost-done ", NULL };
	struct buf text = BUF_INIT;
	unsigned long long files = 0, bytes = 0, entries = 0;
	const char *at;
	size_t named = 0;
	int rc = -1;

	if (diskplace_ask(p, SIGUSR1, done, "report its loss", &text, e) < 0)
		goto out;
	if (sscanf(diskplace_report_line(buf_str(&text), done[0]),
		   "lost-done %llu %llu %llu", &files, &bytes, &entries) != 3) {
		err_set(e, ERR_INFRA, "%s: tichaos-diskfs's report: %s",
			p->component, buf_str(&text));
		goto out;
	}
	buf_printf(value, NULL, "{\"component\":\"%s\",\"files\":%llu,"
		   "\"bytes\":%llu,\"lost\":[", p->component, files, bytes);
	for (at = buf_str(&text); !strncmp(at, "lost ", 5) &&
	     named < MAX_NAMED; named++) {
		unsigned long long n;
		char path[PATH_MAX];
		int used = 0;

		if (sscanf(at, "lost %llu %n", &n, &used) != 1 || !used)
			break;
		snprintf(path, sizeof(path), "%.*s",
			 (int)strcspn(at + used, "\n"), at + used);
		buf_printf(value, NULL, "%s{\"path\":", named ? "," : "");
		json_quote(value, path, NULL);
		buf_printf(value, NULL, ",\"bytes\":%llu}", n);
		at = strchr(at, '\n');
		if (!at)
			break;
		at++;
	}
	buf_printf(value, NULL, "],\"entries\":%llu,\"undone\":[", entries);
	named = 0;
	for (at = buf_str(&text); at && *at && named < MAX_NAMED;
	     at = strchr(at, '\n'), at = at ? at + 1 : NULL) {
		char what[PATH_MAX * 2 + 16];

		if (strncmp(at, "lost-entry", 10))
			continue;
		snprintf(what, sizeof(what), "%.*s",
			 (int)strcspn(at + 11, "\n"), at + 11);
		buf_addstr(value, named++ ? "," : "", NULL);
		json_quote(value, what, NULL);
	}
	buf_addstr(value, "]}", NULL);
	rc = 0;
out:
	buf_release(&text);
	return rc;
}

static int inject(struct fault_ctx *ctx, const struct suite_item *it,
		  const struct plan_event *ev, struct fault_action *act,
		  struct buf *value, struct err *e)
{
	const struct disk_opts *o = it->opts;
	int rc;

	if (fault_pick(ctx, o->t.target, o->t.pick, ev->choice, act, e))
		return -1;
	/* Killed first: nothing it writes after the loss survives it. */
	rc = fault_signal_targets(ctx, act, SIGKILL, "killed", value, e);
	buf_addstr(value, ",\"dropped\":[", NULL);
	for (size_t i = 0; i < act->ntargets && !rc; i++) {
		struct placement p;

		if (i)
			buf_addch(value, ',', NULL);
		if (!diskplace_ours(ctx->cluster, act->targets[i], &p))
			rc = err_set(e, ERR_INFRA, "%s: its data directory is "
				     "not on tichaos-diskfs",
				     act->targets[i]->name);
		else
			rc = lose(&p, value, e);
	}
	buf_addch(value, ']', NULL);
	return rc;
}

/* `ops` as written, "read,write". */
static void join_ops(const struct disk_opts *o, struct buf *out)
{
	for (size_t i = 0; i < o->ops.n; i++)
		buf_printf(out, NULL, "%s%s", i ? "," : "", o->ops.v[i]);
}

/* The file system's mode line for an injection of `it` (disk_error,
 * disk_full, disk_slow). */
static void mode_line(const struct suite_item *it, uint64_t choice,
		      struct buf *out)
{
	const struct disk_opts *o = it->opts;
	const char *kind = it->type->name;

	buf_reset(out);
	if (!strcmp(kind, "disk_full")) {
		buf_addstr(out, "full", NULL);
		return;
	}
	if (!strcmp(kind, "disk_error"))
		buf_printf(out, NULL, "error %.17g ", o->percent);
	else
		buf_printf(out, NULL, "slow %lld ", (long long)o->delay);
	join_ops(o, out);
	if (!strcmp(kind, "disk_error"))
		buf_printf(out, NULL, " %llu", (unsigned long long)choice);
}

/*
 * disk_error, disk_full, disk_slow: the mode set on the file system
 * under each picked component; "MEMBER":[{"component","mode",and the
 * details: "percent","ops" or "delay","ops"}...].
 */
static int inject_mode(struct fault_ctx *ctx, const struct suite_item *it,
		       const struct plan_event *ev, struct fault_action *act,
		       struct buf *value, struct err *e)
{
	const struct disk_opts *o = it->opts;
	struct buf line = BUF_INIT, text = BUF_INIT;
	char d[32];
	size_t set = 0;
	int rc = 0;

	if (fault_pick(ctx, o->t.target, o->t.pick, ev->choice, act, e))
		return -1;
	mode_line(it, ev->choice, &line);
	/* The member the kind's holds name (error_holds...). */
	buf_printf(value, NULL, "\"%s\":[", fault_type_of(it)->holds->list);
	for (; set < act->ntargets; set++) {
		struct placement p;

		if (!diskplace_ours(ctx->cluster, act->targets[set], &p)) {
			rc = err_set(e, ERR_INFRA, "%s: its data directory is "
				     "not on tichaos-diskfs",
				     act->targets[set]->name);
			break;
		}
		if ((rc = diskplace_control(&p, buf_str(&line), &text, e)))
			break;
		buf_printf(value, NULL, "%s{\"component\":\"%s\",\"mode\":",
			   set ? "," : "", p.component);
		json_quote(value, buf_str(&line), NULL);
		if (!strcmp(it->type->name, "disk_error"))
			buf_printf(value, NULL, ",\"percent\":%.17g",
				   o->percent);
		else if (!strcmp(it->type->name, "disk_slow"))
			buf_printf(value, NULL, ",\"delay\":\"%s\"",
				   format_duration(o->delay, d, sizeof(d)));
		if (o->ops.n) {
			buf_addstr(value, ",\"ops\":\"", NULL);
			join_ops(o, value);
			buf_addch(value, '"', NULL);
		}
		buf_addch(value, '}', NULL);
	}
	buf_addch(value, ']', NULL);
	/* Those set before one failed are set right at once. */
	act->ntargets = set;
	buf_release(&line);
	buf_release(&text);
	return rc;
}

/*
 * The mode set off under each target; what it did, from the report's
 * "ops" line: "modes":[{"component","read":{"ops","failed","waited_ns"},
 * "write":{...},"fsync":{...}}...], and said. A mode that touched no
 * operation is said as a warning: the fault did nothing.
 */
static int heal_mode(struct fault_ctx *ctx, struct fault_action *act,
		     struct buf *value, struct err *e)
{
	static const char *const names[] = { "read", "write", "fsync" };
	struct buf text = BUF_INIT;
	int rc = 0;

	buf_addstr(value, "\"modes\":[", NULL);
	for (size_t i = 0; i < act->ntargets; i++) {
		unsigned long long ops[3], failed[3];
		long long waited[3];
		const char *at;
		struct placement p;
		int affected = 0;

		if (!diskplace_ours(ctx->cluster, act->targets[i], &p)) {
			rc = err_set(e, ERR_INFRA, "%s: its data directory is "
				     "no more on tichaos-diskfs",
				     act->targets[i]->name);
			continue;
		}
		if (diskplace_control(&p, "off", &text, rc ? NULL : e)) {
			rc = -1;
			continue;
		}
		at = diskplace_report_line(buf_str(&text), "ops ");
		if (!at || sscanf(at, "ops read %llu %llu %lld write %llu %llu "
				  "%lld fsync %llu %llu %lld", &ops[0],
				  &failed[0], &waited[0], &ops[1], &failed[1],
				  &waited[1], &ops[2], &failed[2],
				  &waited[2]) != 9) {
			if (!rc)
				rc = err_set(e, ERR_INFRA, "%s: tichaos-diskfs "
					     "said no counts: %s",
					     p.component, buf_str(&text));
			continue;
		}
		buf_printf(value, NULL, "%s{\"component\":\"%s\"",
			   i ? "," : "", p.component);
		for (int k = 0; k < 3; k++) {
			buf_printf(value, NULL, ",\"%s\":{\"ops\":%llu,"
				   "\"failed\":%llu,\"waited_ns\":%lld}",
				   names[k], ops[k], failed[k], waited[k]);
			affected += failed[k] > 0 || waited[k] > 0;
		}
		buf_addch(value, '}', NULL);
		log_info("%s: its disk set right: %llu reads, %llu writes, "
			 "%llu syncs; %llu, %llu, %llu failed; waited %.3fs",
			 p.component, ops[0], ops[1], ops[2], failed[0],
			 failed[1], failed[2],
			 (double)(waited[0] + waited[1] + waited[2]) /
			 NS_PER_SEC);
		if (!affected)
			log_warn("%s: no operation of its disk failed or "
				 "waited while the fault held", p.component);
	}
	buf_addch(value, ']', NULL);
	buf_release(&text);
	return rc;
}

/* Its components, named in its value's "killed", are drawn powered off. */
static const struct fault_holds lose_holds = { "powered_off", "powered off",
					       "powered off", "#393b79", 8,
					       "killed", NULL };

static const struct fault_detail error_details[] = {
	{ "percent", "failing", "%", NULL },
	{ "ops", "of", "", NULL },
	{ NULL, NULL, NULL, NULL },
};

static const struct fault_detail slow_details[] = {
	{ "delay", "delay", "", NULL },
	{ "ops", "of", "", NULL },
	{ NULL, NULL, NULL, NULL },
};

static const struct fault_holds error_holds = { "disk_failing",
						"disk failing",
						"had its disk failing",
						"#843c39", 9, "failing",
						error_details };
static const struct fault_holds full_holds = { "disk_full", "disk full",
					       "had its disk full", "#7b4173",
					       10, "full", NULL };
static const struct fault_holds slow_holds = { "disk_slow", "disk slow",
					       "had its disk slowed",
					       "#8ca252", 11, "slowed",
					       slow_details };

#define DISK_KIND(name_, doc_, opts_)                                        \
	{ name_, doc_, opts_, sizeof(opts_) / sizeof(opts_[0]),              \
	  sizeof(struct disk_opts), .check = check, .plan = fault_plan }

/* disk_error, disk_full, disk_slow: a mode of the file system each. */
#define DISK_MODE_TYPE(name_, doc_, opts_, holds_)                           \
	{ .kind = DISK_KIND(name_, doc_, opts_), .resolve = resolve,          \
	  .prepare = prepare, .finish = finish, .inject = inject_mode,       \
	  .heal = heal_mode, .heal_name = "repair",                          \
	  .target = fault_component_target, .holds = holds_ }

const struct fault_type fault_disk_error = DISK_MODE_TYPE(
	"disk_error", "for `down`, a percentage of the reads, writes or syncs "
	"of components' data directories fail with EIO (on tichaos-diskfs for "
	"the run)", error_opts, &error_holds);

const struct fault_type fault_disk_full = DISK_MODE_TYPE(
	"disk_full", "for `down`, every write to components' data directories "
	"fails with ENOSPC (on tichaos-diskfs for the run)", full_opts,
	&full_holds);

const struct fault_type fault_disk_slow = DISK_MODE_TYPE(
	"disk_slow", "for `down`, each read, write or sync of components' data "
	"directories waits `delay` (on tichaos-diskfs for the run)", slow_opts,
	&slow_holds);

/* Its sweep undoes every disk kind's placement. */
const struct fault_type fault_disk_lose = {
	.kind = DISK_KIND("disk_lose", "a power loss of components for "
			  "`down`: SIGKILL, and what their files held "
			  "unsynced dropped (their data directory on "
			  "tichaos-diskfs for the run)", lose_opts),
	.resolve = resolve,
	.prepare = prepare,
	.finish = finish,
	.inject = inject,
	.heal = fault_restart_targets,
	.heal_name = "restart",
	.target = fault_component_target,
	.holds = &lose_holds,
	.sweep = diskplace_sweep,
};
