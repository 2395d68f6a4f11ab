/*
 * The exit watch (clusters/cluster.h, cluster_exit_watch): a component
 * whose process ends while tichaos did not end it is said as it happens,
 * with what its log says, and counted for the run's verdict. Without it
 * a server that gave up and exited shows only as what stopped working:
 * real TiCDC v8.1.0 captures whose PD lost its quorum for 8 s exited
 * ("cdc server exits with error", a WARN line no log pattern took), and
 * the run said only that the changefeed's lag was unknown (docs/found.md).
 */
#include "clusters/internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cancel.h"
#include "lib/clock.h"
#include "lib/history.h"
#include "lib/log.h"

/* How much of a log line a record keeps: Go servers' error lines carry
 * their stack. */
#define EXIT_LINE_MAX 400

static int watched(const struct component *comp)
{
	return comp->pidfile || comp->pid_command || comp->status_pid;
}

static int exit_wanted(const struct cluster *c)
{
	for (size_t i = 0; i < c->ncomps; i++)
		if (watched(&c->comps[i]))
			return 1;
	return 0;
}

/*
 * The last line of the log the ended process wrote: a log named anew at
 * each start ("{start}") that this process never started is the newest
 * of its files (`cluster up` started it), found by one command on its
 * host.
 */
static void last_line(struct cluster *c, struct component *comp,
		      struct buf *out)
{
	struct host *host = component_host(c, comp);
	struct buf cmd = BUF_INIT, newest = BUF_INIT;
	char *glob;

	if (!comp->log_pattern || comp->starts) {
		component_last_log_line(c, comp, out);
		return;
	}
	glob = component_expand(comp->log_pattern, "*");
	buf_addstr(&cmd, "ls -t -- ", NULL);
	sh_quote_pattern(&cmd, glob);
	buf_addstr(&cmd, " 2>/dev/null | head -n 1", NULL);
	if (!host->ops->shell(host, buf_str(&cmd), &newest, NULL)) {
		buf_rtrim(&newest);
		if (newest.len)
			host_last_line(host, buf_str(&newest), out);
	}
	free(glob);
	buf_release(&cmd);
	buf_release(&newest);
}

static void record_exit(struct cluster *c, struct history *h,
			struct history_slot *slot, struct component *comp,
			pid_t pid, pid_t now)
{
	struct buf v = BUF_INIT, line = BUF_INIT;
	int64_t at = history_now(h);
	struct history_event ev = { at, HISTORY_MONITOR, "info", "exited",
				    NULL, NULL, comp->name, -1, NULL, NULL, 0,
				    0, 0, NULL, 0 };

	pthread_mutex_lock(&component_log_lock);
	last_line(c, comp, &line);
	pthread_mutex_unlock(&component_log_lock);
	if (line.len > EXIT_LINE_MAX)
		buf_truncate(&line, EXIT_LINE_MAX);
	buf_printf(&v, NULL, "{\"pid\":%ld", (long)pid);
	if (now > 0)
		buf_printf(&v, NULL, ",\"now\":%ld", (long)now);
	buf_addstr(&v, ",\"last_line\":", NULL);
	json_quote(&v, buf_str(&line), NULL);
	buf_addch(&v, '}', NULL);
	ev.value = buf_str(&v);
	history_record(slot, &ev);
	log_warn("%s (pid %ld) exited on its own, not ended by tichaos%s%s",
		 comp->name, (long)pid, line.len ? "; last log line: " : "",
		 buf_str(&line));
	if (!comp->exits++) {
		comp->first_exit_ns = at;
		comp->first_exit = xstrdup(buf_str(&v));
	}
	buf_release(&v);
	buf_release(&line);
}

/* The process the watch last saw run as a component. */
struct seen {
	pid_t pid;
	long long start;	/* its start time on its host */
};

/* Whether process `s` still runs (a zombie has ended). */
static int still_runs(struct host *host, const struct seen *s)
{
	char state = host->ops->state(host, s->pid);

	return state && state != 'Z' &&
	       host->ops->start_time(host, s->pid) == s->start;
}

/*
 * One look at `comp`: its pid source against the process seen last. That
 * process ended (gone, a zombie, its pid another's) while tichaos had
 * not signalled it to end: an exit of its own. One the source no longer
 * names but that still runs (a pidfile written over, a capture whose API
 * does not answer for a while) is watched on.
 */
static void look(struct cluster *c, struct history *h,
		 struct history_slot *slot, struct component *comp,
		 struct seen *s)
{
	struct host *host = component_host(c, comp);
	pid_t now = component_pid(c, comp);

	if (now < 0 || now == s->pid)
		return;
	if (s->pid > 0 && still_runs(host, s)) {
		if (!now)
			return;
	} else if (s->pid > 0 && __atomic_load_n(&comp->ending_pid,
						 __ATOMIC_SEQ_CST) != s->pid) {
		record_exit(c, h, slot, comp, s->pid, now);
	}
	s->pid = now;
	s->start = now > 0 ? host->ops->start_time(host, now) : 0;
}

/*
 * Every 250 ms, each watched component looked at (every 1 s one on an
 * SSH host, whose reads cross its one connection, or whose pid TiCDC's
 * API tells, a request its capture serves between its own steps), and
 * every one once more when the run stops. A component being started is
 * looked at anew once its start has waited for it: what it did
 * meanwhile is the start's to say.
 */
static void exit_run(struct cluster *c, struct history *h,
		     struct history_slot *slot, const struct cancel *cancel)
{
	struct seen *seen = xcalloc(c->ncomps + 1, sizeof(*seen));

	for (unsigned tick = 0;; tick++) {
		int last = cancelled(cancel, CANCEL_STOP);

		for (size_t i = 0; i < c->ncomps; i++) {
			struct component *comp = &c->comps[i];

			if (!watched(comp))
				continue;
			if (__atomic_load_n(&comp->starting,
					    __ATOMIC_SEQ_CST)) {
				seen[i] = (struct seen){ 0, 0 };
				continue;
			}
			if (!last && (comp->status_pid || strcmp(component_host(
				c, comp)->ops->kind, "local")) && tick % 4)
				continue;
			look(c, h, slot, comp, &seen[i]);
		}
		if (last)
			break;
		cancel_sleep(cancel, CANCEL_STOP, 250 * NS_PER_MS);
	}
	free(seen);
}

const struct cluster_watcher cluster_exit_watch = {
	.name = "exit watch",
	.wanted = exit_wanted,
	.run = exit_run,
};
