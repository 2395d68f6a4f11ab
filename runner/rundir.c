/*
 * The run directory (docs/results.md): made with its `latest` link,
 * space held back for the end of a run on a full disk, the files a run
 * writes besides its results, the components' logs copied in, and the
 * clusters of runs whose runner was killed stopped.
 */
#include "runner/run_state.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clusters/cluster.h"
#include "lib/history.h"
#include "lib/log.h"
#include "lib/proc.h"

/*
 * Space held in RUN/.reserve from the start of a run, given back when
 * the run stops short because its disk is full (and before the reports
 * in any case), so that heals, the end of the history and the reports
 * can still be written.
 */
#define RESERVE_BYTES ((off_t)8 << 20)

/* Most of one component log copied into the run directory. */
#define LOG_COPY_MAX ((int64_t)64 << 20)

int run_reserve_space(struct state *st, struct err *e)
{
	char path[PATH_MAX];
	int fd, rc;

	snprintf(path, sizeof(path), "%s/.reserve", st->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return err_errno(e, errno, "cannot create '%s'", path);
	rc = posix_fallocate(fd, 0, RESERVE_BYTES);
	close(fd);
	if (rc) {
		unlink(path);
		return err_errno(e, rc, "cannot reserve %lld MiB in '%s' for "
				 "the end of the run", (long long)(RESERVE_BYTES
								   >> 20),
				 st->dir);
	}
	st->reserved = 1;
	return 0;
}

void run_release_space(struct state *st)
{
	char path[PATH_MAX];

	if (!st->reserved)
		return;
	snprintf(path, sizeof(path), "%s/.reserve", st->dir);
	if (unlink(path) && errno != ENOENT)
		log_warn("cannot remove '%s': %s", path, strerror(errno));
	st->reserved = 0;
}

int run_write_file(const char *dir, const char *name, const struct buf *text,
		   struct err *e)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return buf_write_file(text, path, 0644, e);
}

/* runs/<suite>/<YYYYmmdd-HHMMSS>-s<seed> (or --out). */
int run_make_dir(struct state *st, const struct run_options *o,
		 struct err *e)
{
	char parent[256], stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int n;

	if (o->out) {
		struct stat sb;

		if (strlen(o->out) >= sizeof(st->dir))
			return err_set(e, ERR_USAGE, "run directory '%.40s...' "
				       "is too long", o->out);
		if (!stat(o->out, &sb))
			return err_set(e, ERR_USAGE, "run directory '%s' "
				       "already exists", o->out);
		snprintf(st->dir, sizeof(st->dir), "%s", o->out);
		return proc_make_dirs(st->dir, e);
	}
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(parent, sizeof(parent), "runs/%s", st->suite.name);
	if (proc_make_dirs(parent, e))
		return -1;
	for (n = 1; n < 100; n++) {
		if (n == 1)
			snprintf(st->dir, sizeof(st->dir), "%s/%s-s%llu",
				 parent, stamp,
				 (unsigned long long)st->plan.seed);
		else
			snprintf(st->dir, sizeof(st->dir), "%s/%s-s%llu-%d",
				 parent, stamp,
				 (unsigned long long)st->plan.seed, n);
		if (!mkdir(st->dir, 0755))
			break;
		if (errno != EEXIST)
			return err_errno(e, errno, "cannot create '%s'",
					 st->dir);
	}
	return 0;
}

void run_link_latest(const struct state *st, const struct run_options *o)
{
	char parent[PATH_MAX], link_tmp[PATH_MAX + 32], latest[PATH_MAX + 8];
	const char *slash = strrchr(st->dir, '/');

	if (o->out || !slash)
		return;
	snprintf(parent, sizeof(parent), "%.*s", (int)(slash - st->dir),
		 st->dir);
	/* latest -> the new directory, replaced atomically. */
	snprintf(link_tmp, sizeof(link_tmp), "%s/.latest.%ld", parent,
		 (long)getpid());
	unlink(link_tmp);
	if (symlink(slash + 1, link_tmp) == 0) {
		snprintf(latest, sizeof(latest), "%s/latest", parent);
		if (rename(link_tmp, latest))
			unlink(link_tmp);
	}
}

/*
 * Keep of st->plan only the events of `then` (plan.json), each the same as
 * one drawn: 0; -1 when `then` differs from the drawn plan otherwise (its
 * seed, duration, faults) or holds an event the drawn plan lacks.
 */
static int keep_events(struct state *st, json_t *now, json_t *then)
{
	json_t *drawn = json_incref(json_object_get(now, "events"));
	json_t *kept = json_incref(json_object_get(then, "events"));
	size_t n = json_array_size(drawn), k = 0;
	char *used = xcalloc(n + 1, 1);
	int rc = 0;

	json_object_del(now, "events");
	json_object_del(then, "events");
	if (!json_equal(now, then) || !json_is_array(kept))
		rc = -1;
	/* Both in time order: each kept event is a drawn one, later than
	 * the one before. */
	for (size_t i = 0, j = 0; !rc && i < json_array_size(kept); i++) {
		while (j < n && !json_equal(json_array_get(kept, i),
					    json_array_get(drawn, j)))
			j++;
		if (j == n)
			rc = -1;
		else
			used[j++] = 1;
	}
	for (size_t j = 0; !rc && j < n; j++) {
		if (used[j]) {
			st->plan.events[k++] = st->plan.events[j];
			continue;
		}
		free(st->plan.events[j].op);
		free(st->plan.events[j].table);
		free(st->plan.events[j].with);
	}
	if (!rc)
		st->plan.n = k;
	free(used);
	json_decref(drawn);
	json_decref(kept);
	return rc;
}

/*
 * replay: the plan drawn now must be the one the run recorded, or hold
 * every event of it (a plan `tichaos shrink` cut down): then only those
 * run.
 */
int run_same_plan(struct state *st, const char *dir, struct err *e)
{
	struct buf now = BUF_INIT, then = BUF_INIT;
	json_t *jnow = NULL, *jthen = NULL;
	char path[4200];
	int rc;

	snprintf(path, sizeof(path), "%s/plan.json", dir);
	rc = plan_json(&st->plan, &st->suite, &now, e) ||
	     buf_read_file(&then, path, e);
	if (!rc && (now.len != then.len || memcmp(now.data, then.data,
						 now.len))) {
		jnow = json_loads(buf_str(&now), 0, NULL);
		jthen = json_loads(buf_str(&then), 0, NULL);
		if (!jnow || !jthen || keep_events(st, jnow, jthen))
			rc = err_set(e, ERR_USAGE, "cannot replay '%s': this "
				     "build draws another plan from its "
				     "suite.yaml and seed than the one recorded "
				     "in plan.json", dir);
	}
	json_decref(jnow);
	json_decref(jthen);
	buf_release(&now);
	buf_release(&then);
	return rc ? -1 : 0;
}

/*
 * server-options.json: what each server of a cluster tichaos configures
 * was configured with, and what it runs with (docs/results.md).
 */
int run_write_server_options(struct state *st, struct err *e)
{
	struct buf text = BUF_INIT;
	json_t *doc = NULL;
	char *dump;
	int rc;

	if (!st->cluster.type->server_options)
		return 0;
	rc = st->cluster.type->server_options(&st->cluster, &doc, e);
	dump = rc ? NULL : json_dumps(doc, JSON_INDENT(1) |
				      JSON_PRESERVE_ORDER);
	rc = rc || !dump || buf_addstr(&text, dump, e) ||
	     buf_addch(&text, '\n', e) ||
	     run_write_file(st->dir, "server-options.json", &text, e);
	free(dump);
	json_decref(doc);
	buf_release(&text);
	return rc ? -1 : 0;
}

/*
 * "SIZE PATH" lines into `out`, one for each file that the more logs of
 * `c` (its `logs`: paths, a pattern in the last part) name on its host,
 * by one command there. -1 (`e`) when the command fails.
 */
static int list_logs(const struct cluster *cl, const struct component *c,
		     struct buf *out, struct err *e)
{
	struct host *h = component_host(cl, c);
	struct buf cmd = BUF_INIT;
	int code;

	for (char **p = c->logs; *p; p++) {
		buf_addstr(&cmd, "for f in ", NULL);
		/* A pattern that matches nothing stays as it is. */
		sh_quote_pattern(&cmd, *p);
		buf_addstr(&cmd, "; do [ -f \"$f\" ] && printf '%s %s\\n' "
			   "\"$(wc -c < \"$f\")\" \"$f\"; done; ", NULL);
	}
	buf_addstr(&cmd, "true", NULL);
	buf_reset(out);
	code = h->ops->shell(h, buf_str(&cmd), out, e);
	buf_release(&cmd);
	if (code > 0)
		err_set(e, ERR_INFRA, "%s: cannot list its logs on host '%s': "
			"exit code %d", c->name, h->name, code);
	return code ? -1 : 0;
}

void run_note_log_starts(struct state *st)
{
	st->log_start = xcalloc(st->cluster.ncomps + 1,
				sizeof(*st->log_start));
	st->log_more = xcalloc(st->cluster.ncomps + 1,
			       sizeof(*st->log_more));
	for (size_t i = 0; i < st->cluster.ncomps; i++) {
		const struct component *c = &st->cluster.comps[i];
		struct host *h = component_host(&st->cluster, c);
		int64_t size = c->log ? h->ops->file_size(h, c->log) : -1;
		struct err e = ERR_INIT;

		st->log_start[i] = size > 0 ? size : 0;
		if (c->logs && list_logs(&st->cluster, c, &st->log_more[i], &e))
			log_warn("%s: its logs will be collected whole: %s",
				 c->name, e.msg);
	}
}

/*
 * The part of `path` (on the host of `c`) from `start` to `end`, its
 * last LOG_COPY_MAX bytes at most, into RUN_DIR/logs/`dest`.
 */
static void copy_log(struct state *st, const struct component *c,
		     const char *path, int64_t start, int64_t end,
		     const char *dest)
{
	struct host *h = component_host(&st->cluster, c);
	struct buf text = BUF_INIT;
	struct err e = ERR_INIT;
	char out[4096];

	if (end <= start)
		return;
	if (end - start > LOG_COPY_MAX)
		start = end - LOG_COPY_MAX;
	snprintf(out, sizeof(out), "%s/logs/%s", st->dir, dest);
	if (h->ops->read_file(h, path, start, end - start, &text, &e) ||
	    buf_write_file(&text, out, 0644, &e))
		log_warn("%s: log %s not collected: %s", c->name, path,
			 err_isset(&e) ? e.msg : "it is gone");
	buf_release(&text);
}

/* Where `path` stood in the "SIZE PATH" lines `before`: 0 if not there. */
static int64_t size_before(const struct buf *before, const char *path)
{
	const char *at = before && before->len ? buf_str(before) : "";
	size_t n = strlen(path);

	for (; *at; at += strcspn(at, "\n"), at += *at == '\n') {
		const char *sp = strchr(at, ' ');
		long long size;

		if (sp && !strncmp(sp + 1, path, n) &&
		    (sp[1 + n] == '\n' || !sp[1 + n]) &&
		    sscanf(at, "%lld", &size) == 1)
			return size;
	}
	return 0;
}

/*
 * logs/<component>.log: the part of each component's log written during
 * the run (the last LOG_COPY_MAX bytes of it), for logscan and people;
 * logs/<component>.<name>.log for each of its more logs (<name>: the
 * file's name without .log), the part written since the run began, or
 * the whole of one made since; copied back over SSH from remote hosts.
 */
void run_collect_logs(struct state *st)
{
	for (size_t i = 0; st->log_start && i < st->cluster.ncomps; i++) {
		const struct component *c = &st->cluster.comps[i];
		struct host *h = component_host(&st->cluster, c);
		struct buf now = BUF_INIT;
		struct err e = ERR_INIT;
		char dest[600];

		if (c->log) {
			snprintf(dest, sizeof(dest), "%s.log", c->name);
			copy_log(st, c, c->log, st->log_start[i],
				 h->ops->file_size(h, c->log), dest);
		}
		if (c->logs && list_logs(&st->cluster, c, &now, &e))
			log_warn("%s: its logs not collected: %s", c->name,
				 e.msg);
		for (const char *at = c->logs ? buf_str(&now) : ""; *at;
		     at += strcspn(at, "\n"), at += *at == '\n') {
			char path[PATH_MAX];
			const char *base;
			long long size;
			int used = 0;
			size_t len;

			if (sscanf(at, "%lld %n", &size, &used) != 1 || !used)
				continue;
			snprintf(path, sizeof(path), "%.*s",
				 (int)strcspn(at + used, "\n"), at + used);
			base = strrchr(path, '/');
			base = base ? base + 1 : path;
			len = strlen(base);
			if (len > 4 && !strcmp(base + len - 4, ".log"))
				len -= 4;
			snprintf(dest, sizeof(dest), "%s.%.*s.log", c->name,
				 (int)len, base);
			copy_log(st, c, path,
				 size_before(st->log_more ? &st->log_more[i]
					     : NULL, path), size, dest);
		}
		buf_release(&now);
	}
}

/* Is `pid` a tichaos runner, alive? */
static int runner_alive(pid_t pid)
{
	struct buf cmd = BUF_INIT;
	int alive = 0;

	if (pid > 0 && !proc_cmdline(pid, &cmd, NULL))
		alive = strstr(buf_str(&cmd), "tichaos") != NULL;
	buf_release(&cmd);
	return alive;
}

/*
 * The clusters (local or playground) of runs beside this one whose runner
 * is gone (killed with SIGKILL: RUN/runner.pid names a pid that is no
 * tichaos any more): stopped by their pidfiles, so one killed run does
 * not leave servers behind for good.
 */
void run_reap_orphans(const char *run_dir)
{
	char parent[PATH_MAX], sub[PATH_MAX + 300];
	const char *slash = strrchr(run_dir, '/');
	struct dirent *d;
	DIR *dir;

	snprintf(parent, sizeof(parent), "%.*s", slash ?
		 (int)(slash - run_dir) : 1, slash ? run_dir : ".");
	dir = opendir(parent);
	while (dir && (d = readdir(dir))) {
		struct cluster_options co = { NULL };
		struct cluster c;
		struct err e = ERR_INIT;
		pid_t pid;

		if (d->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s/runner.pid", parent,
			 d->d_name);
		if (proc_read_pidfile(sub, &pid, NULL) || !pid ||
		    runner_alive(pid))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s/cluster", parent, d->d_name);
		for (size_t k = 0; !co.cluster && cluster_types[k]; k++)
			if (cluster_types[k]->made_in &&
			    cluster_types[k]->made_in(sub))
				co.cluster = cluster_types[k]->name;
		if (co.cluster) {
			co.dir = sub;
			if (cluster_open(&c, &co, &e) || cluster_down(&c, &e))
				log_warn("%s: %s", sub, e.msg);
			else
				log_warn("stopped the cluster of %s/%s: its "
					 "runner (pid %ld) is gone", parent,
					 d->d_name, (long)pid);
			cluster_close(&c);
		}
		snprintf(sub, sizeof(sub), "%s/%s/runner.pid", parent,
			 d->d_name);
		unlink(sub);
	}
	if (dir)
		closedir(dir);
}

/*
 * A run refused once its cluster was up (a name that names nothing, a server
 * too old for what tichaos uses) ran nothing: its directory goes, as if the
 * suite had been refused by validate (runs/<suite>/latest never named it).
 */
void run_discard_dir(const char *dir)
{
	struct err e = ERR_INIT;

	if (proc_remove_tree(dir, &e))
		fprintf(stderr, "tichaos: %s\n", e.msg);
}

/*
 * `path` copied to DEST/NAME, ".log" added to a name that does not end
 * in it: what a collector of *.log files keeps.
 */
int run_copy_as_log(const char *path, const char *dest, const char *name,
		    struct err *e)
{
	char to[PATH_MAX];
	size_t n = strlen(name);

	if (snprintf(to, sizeof(to), "%s/%s%s", dest, name,
		     n > 4 && !strcmp(name + n - 4, ".log") ? "" : ".log") >=
	    (int)sizeof(to))
		return err_set(e, ERR_USAGE, "path too long: '%s/%s'", dest,
			       name);
	return buf_copy_file(path, to, e);
}

/* Every regular file of `dir`/`sub` (its dot files aside) copied as a
 * log to `dest`/`sub`. */
static int copy_dir_as_logs(const char *dir, const char *sub,
			    const char *dest, struct err *e)
{
	char from[PATH_MAX], to[PATH_MAX], path[PATH_MAX + 256];
	struct dirent *d;
	struct stat sb;
	DIR *dp;
	int rc = 0;

	if (snprintf(from, sizeof(from), "%s%s%s", dir, sub[0] ? "/" : "",
		     sub) >= (int)sizeof(from) ||
	    snprintf(to, sizeof(to), "%s%s%s", dest, sub[0] ? "/" : "",
		     sub) >= (int)sizeof(to))
		return err_set(e, ERR_USAGE, "path too long: '%s'", dest);
	dp = opendir(from);
	if (!dp)
		return errno == ENOENT ? 0 : err_errno(e, errno, "cannot read "
						       "'%s'", from);
	if (proc_make_dirs(to, e)) {
		closedir(dp);
		return -1;
	}
	while (!rc && (d = readdir(dp))) {
		snprintf(path, sizeof(path), "%s/%s", from, d->d_name);
		if (d->d_name[0] != '.' && !lstat(path, &sb) &&
		    S_ISREG(sb.st_mode))
			rc = run_copy_as_log(path, to, d->d_name, e);
	}
	closedir(dp);
	return rc;
}

int run_copy_as_logs(const char *run_dir, const char *suite,
		     const char *to, struct err *e)
{
	static const char *const subs[] = { "", "logs", "fix-sql", NULL };
	const char *base = strrchr(run_dir, '/');
	char dest[PATH_MAX];

	if (snprintf(dest, sizeof(dest), "%s/tichaos-%s/%s", to, suite,
		     base ? base + 1 : run_dir) >= (int)sizeof(dest))
		return err_set(e, ERR_USAGE, "path too long: '%s'", to);
	for (int i = 0; subs[i]; i++)
		if (copy_dir_as_logs(run_dir, subs[i], dest, e))
			return -1;
	return 0;
}
