/*
 * Starting, stopping, killing and pausing a component, and bringing a
 * whole cluster up and down (clusters/cluster.h): the same for every
 * kind, on the hosts' operations (clusters/host.h).
 */
#include "clusters/internal.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "lib/netcls.h"
#include "lib/parse.h"

/* How long a server just started, or stopped by an interrupted run, may
 * take to go on TERM before it is killed. */
#define STOP_GRACE_NS (5 * NS_PER_SEC)

pthread_mutex_t component_log_lock = PTHREAD_MUTEX_INITIALIZER;

static int spawn(struct cluster *c, struct component *comp,
		 const char *const *prefix, struct err *e)
{
	struct host *h = component_host(c, comp);
	struct buf text = BUF_INIT;
	const char *netns[] = { "ip", "netns", "exec", comp->netns, NULL };
	/* Started while a partition has its class: it joins the class
	 * first, so that the cut holds for it too (lib/netcls.h). */
	const char *join[] = { "/bin/sh", "-c", "echo $$ >\"$0\" && exec "
			       "\"$@\"", NULL, NULL };
	const char **host_prefix = comp->netns ? netns : NULL;
	char **argv, procs[700];
	size_t n = 0, k = 0, j = 0, v = 0;
	char start[16];
	pid_t pid;
	int rc;

	if (comp->sup)
		return supervised_start(c, comp, prefix, e);
	if (!comp->start)
		return err_set(e, ERR_INFRA, "%s: no start command in the "
			       "topology", comp->name);
	if (component_pidfile_foreign(c, comp, e))
		return -1;
	if (component_on_loopback(c, comp)) {
		struct netcls_host cls;

		component_netcls(c, comp, &cls);
		if (netcls_dir(cls.name, procs, sizeof(procs) - 16)) {
			size_t len = strlen(procs);

			snprintf(procs + len, sizeof(procs) - len,
				 "/cgroup.procs");
			join[3] = procs;
			host_prefix = join;
		}
	}
	/* Its host's namespace or class, then the caller's prefix, then
	 * the command: each execs the next, so the pid stays the
	 * server's. */
	while (host_prefix && host_prefix[n])
		n++;
	while (prefix && prefix[k])
		k++;
	while (comp->start[j])
		j++;
	/* Its environment by env(1), which execs the command in turn. */
	while (comp->env && comp->env[v])
		v++;
	argv = xcalloc(n + k + (v ? v + 1 : 0) + j + 1, sizeof(*argv));
	if (n)
		memcpy(argv, (char *const *)host_prefix, n * sizeof(*argv));
	if (k)
		memcpy(argv + n, (char *const *)prefix, k * sizeof(*argv));
	if (v) {
		argv[n + k] = (char *)"env";
		memcpy(argv + n + k + 1, comp->env, v * sizeof(*argv));
		v++;
	}
	__atomic_store_n(&comp->starting, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_lock(&component_log_lock);
	/* "{start}": the number of this start, in its argv and log. */
	snprintf(start, sizeof(start), "%d", ++comp->starts);
	for (size_t i = 0; i < j; i++)
		argv[n + k + v + i] = component_expand(comp->start[i], start);
	if (comp->log_pattern) {
		free(comp->log);
		comp->log = component_expand(comp->log_pattern, start);
	}
	/* What this start writes to its log begins here. */
	comp->log_from = comp->log ? h->ops->file_size(h, comp->log) : 0;
	if (comp->log_from < 0)
		comp->log_from = 0;
	pthread_mutex_unlock(&component_log_lock);
	rc = h->ops->spawn(h, argv, comp->dir, comp->log, &pid, e);
	for (size_t i = 0; i < j; i++)
		free(argv[n + k + v + i]);
	free(argv);
	if (rc) {
		__atomic_store_n(&comp->starting, 0, __ATOMIC_SEQ_CST);
		return -1;
	}
	log_debug("started %s on %s (pid %ld)", comp->name, h->name,
		  (long)pid);
	comp->started_pid = pid;
	comp->started_at = h->ops->start_time(h, pid);
	rc = comp->pidfile ? buf_printf(&text, e, "%ld\n", (long)pid) ||
			     h->ops->write_file(h, comp->pidfile, &text, e)
			   : 0;
	buf_release(&text);
	if (rc) {
		h->ops->signal(h, pid, SIGKILL, NULL);
		h->ops->wait_gone(h, pid, 5 * NS_PER_SEC, NULL);
		__atomic_store_n(&comp->starting, 0, __ATOMIC_SEQ_CST);
		return -1;
	}
	return 0;
}

/*
 * A replica whose SQL thread stopped on an error: that does not mend by
 * waiting. 1 (with `stop`) when `comp` is one, else 0.
 */
static int halted(struct cluster *c, struct component *comp,
		  struct replica_stop *stop)
{
	return comp->replicates &&
	       component_replica_stopped(c, comp, stop, NULL) == 1;
}

/*
 * The component exited while starting: its name, the first error of its
 * log since it started when that is not the last line (the cause, such
 * as a port another process took: MariaDB's last line is "Aborting"),
 * and its last line.
 */
static void exited(struct cluster *c, struct component *comp,
		   const struct buf *last, struct err *e)
{
	struct buf first = BUF_INIT;

	component_first_error_line(c, comp, &first);
	if (first.len && strcmp(buf_str(&first), buf_str(last)))
		err_set(e, ERR_INFRA, "%s exited while starting: %s; last log "
			"line: %s", comp->name, buf_str(&first),
			buf_str(last));
	else
		err_set(e, ERR_INFRA, "%s exited while starting; last log "
			"line: %s", comp->name, last->len ? buf_str(last)
			: "(none)");
	buf_release(&first);
}

/*
 * One look at a component being waited for: 0 when it is ready
 * (ping_only: answers at all), 1 when it may still become so before
 * `deadline`, -1 when it will not (said in `e`): its process is gone, or
 * it lacks what tichaos needs (ERR_USAGE from ready()). A replica stopped
 * on an SQL error fails at once too — unless `restart`: then the server
 * is up, which is what a restart does, and its replication is a failure
 * of its own, for the progress check to report (said here as a warning).
 */
static int look(struct cluster *c, struct component *comp, int ping_only,
		int restart, int64_t deadline, struct err *e)
{
	enum component_state state = component_state(c, comp);
	struct replica_stop stop;
	struct err last = ERR_INIT;
	struct buf line = BUF_INIT;
	char d[32], d2[32];

	if ((state == STATE_RUNNING || state == STATE_UNKNOWN) &&
	    !(ping_only ? component_answers(c, comp, &last)
			: component_ready(c, comp, &last)))
		return 0;
	/* What waiting cannot mend: a server without the API that tichaos
	 * needs (capture_listed). */
	if (last.class == ERR_USAGE)
		return err_set(e, ERR_USAGE, "%s", last.msg);
	if (!ping_only && state == STATE_RUNNING && halted(c, comp, &stop)) {
		if (!restart)
			return err_set(e, ERR_INFRA, "%s: replication stopped "
				       "on SQL error %ld after GTID %s: %s",
				       comp->name, stop.sql_errno, stop.gtid,
				       stop.error);
		log_warn("%s is up; its replication stopped on SQL error %ld "
			 "after GTID %s: %s", comp->name, stop.sql_errno,
			 stop.gtid, stop.error);
		return 0;
	}
	/* Gone, its supervisor to start it again: not yet. */
	if ((state != STATE_STOPPED || comp->sup_state == SUP_AWAITED) &&
	    state != STATE_PAUSED && clock_mono_ns() < deadline)
		return 1;
	component_last_log_line(c, comp, &line);
	if (state == STATE_STOPPED && comp->sup_state == SUP_AWAITED)
		err_set(e, ERR_INFRA, "%s: its supervisor did not start it "
			"again within %s (its delay %s, then the cluster's "
			"timeout); last log line: %s", comp->name,
			format_duration(c->timeout_ns + comp->sup->delay_ns,
					d, sizeof(d)),
			format_duration(comp->sup->delay_ns, d2, sizeof(d2)),
			line.len ? buf_str(&line) : "(none)");
	else if (state == STATE_STOPPED)
		exited(c, comp, &line, e);
	else if (state == STATE_PAUSED)
		err_set(e, ERR_INFRA, "%s is paused (SIGSTOP)", comp->name);
	else
		err_set(e, ERR_INFRA, "%s not ready after %s: %s; last log "
			"line: %s", comp->name, format_duration(c->timeout_ns,
			d, sizeof(d)), last.msg, line.len ? buf_str(&line)
			: "(none)");
	buf_release(&line);
	return -1;
}

/*
 * Wait until each of the `n` components is ready (look), all at once:
 * the first that will not be is said as soon as it is seen (a server that
 * died at once, while another is still waited for), each given the
 * cluster's timeout from now.
 */
static int await_all(struct cluster *c, struct component *const *comps,
		     size_t n, int ping_only, int restart, struct err *e)
{
	int64_t deadline = clock_mono_ns() + c->timeout_ns;
	unsigned char *ready = xcalloc(n + 1, 1);
	size_t left = n;
	int rc = 0;

	/* A supervisor starts its component after its delay. */
	for (size_t i = 0; i < n; i++)
		if (comps[i]->sup_state == SUP_AWAITED &&
		    deadline < clock_mono_ns() + c->timeout_ns +
			       comps[i]->sup->delay_ns)
			deadline = clock_mono_ns() + c->timeout_ns +
				   comps[i]->sup->delay_ns;

	while (left && !rc) {
		if (cluster_interrupted(c)) {
			size_t first = 0;

			while (ready[first])
				first++;
			rc = err_set(e, ERR_INTERRUPTED, "interrupted while "
				     "waiting for %s", comps[first]->name);
			break;
		}
		for (size_t i = 0; i < n && !rc; i++) {
			int r = ready[i] ? 1 : look(c, comps[i], ping_only,
						    restart, deadline, e);

			rc = r < 0 ? -1 : 0;
			if (!r) {
				ready[i] = 1;
				left--;
			}
		}
		if (left && !rc)
			clock_sleep_ns(100 * NS_PER_MS);
	}
	/* Ready or not, each is watched for exits again; a supervised one
	 * not started again by now is the next start's to ask for. */
	for (size_t i = 0; i < n; i++) {
		__atomic_store_n(&comps[i]->starting, 0, __ATOMIC_SEQ_CST);
		comps[i]->sup_state = SUP_NONE;
	}
	free(ready);
	return rc;
}

static int await(struct cluster *c, struct component *comp, int ping_only,
		 int restart, struct err *e)
{
	return await_all(c, &comp, 1, ping_only, restart, e);
}

int component_start(struct cluster *c, struct component *comp, struct err *e)
{
	return component_start_under(c, comp, NULL, e);
}

/* A stopped component started, not waited for. */
static int spawn_stopped(struct cluster *c, struct component *comp,
			 const char *const *prefix, struct err *e)
{
	/* What tichaos killed, its supervisor may have started again. */
	if (component_state(c, comp) != STATE_STOPPED &&
	    comp->sup_state != SUP_AWAITED)
		return err_set(e, ERR_INFRA, "%s is already running",
			       comp->name);
	return spawn(c, comp, prefix, e);
}

int component_start_under(struct cluster *c, struct component *comp,
			  const char *const *prefix, struct err *e)
{
	return spawn_stopped(c, comp, prefix, e) || await(c, comp, 0, 1, e)
	       ? -1 : 0;
}

int components_start(struct cluster *c, struct component *const *comps,
		     size_t n, int64_t *ready_ns, struct err *e)
{
	int64_t t0 = clock_mono_ns();
	struct err first = ERR_INIT;

	for (size_t i = 0; i < n; i++) {
		struct err why = ERR_INIT;

		ready_ns[i] = spawn_stopped(c, comps[i], NULL, &why) ? -1 : 0;
		if (err_isset(&why) && !err_isset(&first))
			first = why;
	}
	for (size_t i = 0; i < n; i++) {
		struct err why = ERR_INIT;

		if (ready_ns[i] < 0)
			continue;
		if (await(c, comps[i], 0, 1, &why)) {
			ready_ns[i] = -1;
			if (!err_isset(&first))
				first = why;
			continue;
		}
		ready_ns[i] = clock_mono_ns() - t0;
	}
	if (!err_isset(&first))
		return 0;
	if (e)
		*e = first;
	return -1;
}

void component_ending(struct component *comp, pid_t pid)
{
	__atomic_store_n(&comp->ending_pid, pid, __ATOMIC_SEQ_CST);
	/* Its supervisor restarts what tichaos ends. */
	if (comp->sup)
		comp->sup_state = SUP_AWAITED;
}

/*
 * Send `sig` to each of `n` components (in order), then wait at most
 * `timeout_ns` for each process to go: several go down together.
 * *done: how many went down, the first ones.
 */
static int kill_within(struct cluster *c, struct component *const *comps,
		       size_t n, int sig, int64_t timeout_ns, size_t *done,
		       struct err *e)
{
	pid_t *pids = xcalloc(n + 1, sizeof(*pids));
	size_t sent = 0;
	int rc = 0;

	*done = 0;
	for (; sent < n; sent++) {
		struct host *h = component_host(c, comps[sent]);

		pids[sent] = component_pid(c, comps[sent]);
		if (pids[sent] <= 0)
			rc = err_set(e, ERR_INFRA, "%s is not running",
				     comps[sent]->name);
		else
			component_ending(comps[sent], pids[sent]);
		if (!rc && h->ops->signal(h, pids[sent], sig, e))
			rc = -1;
		if (rc)
			break;
		/* A stopped process does not die of TERM until continued. */
		if (sig != SIGKILL)
			h->ops->signal(h, pids[sent], SIGCONT, NULL);
	}
	/* Wait for each one signalled, even after an error: it is going. */
	for (size_t i = 0; i < sent; i++) {
		struct host *h = component_host(c, comps[i]);
		struct err late = ERR_INIT;

		if (h->ops->wait_gone(h, pids[i], timeout_ns,
				      rc ? &late : e)) {
			rc = -1;
			break;
		}
		log_debug("%s (pid %ld) is gone after signal %d",
			  comps[i]->name, (long)pids[i], sig);
		*done = i + 1;
	}
	free(pids);
	return rc;
}

static int kill_one_within(struct cluster *c, struct component *comp,
			   int sig, int64_t timeout_ns, struct err *e)
{
	size_t done;

	return kill_within(c, &comp, 1, sig, timeout_ns, &done, e);
}

int component_kill(struct cluster *c, struct component *comp, int sig,
		   struct err *e)
{
	return kill_one_within(c, comp, sig, c->timeout_ns, e);
}

int components_kill(struct cluster *c, struct component *const *comps,
		    size_t n, int sig, size_t *done, struct err *e)
{
	return kill_within(c, comps, n, sig, c->timeout_ns, done, e);
}

/*
 * TERM, KILL when it is not gone within `grace_ns`; KILL at once after a
 * second ^C. The pidfile is removed.
 */
static int stop_within(struct cluster *c, struct component *comp,
		       int64_t grace_ns, struct err *e)
{
	pid_t pid = component_pid(c, comp);
	struct err ignored = ERR_INIT;

	if (comp->sup)
		return supervised_stop(c, comp, e);
	if (pid > 0 && cancelled(c->cancel, CANCEL_KILL)) {
		if (component_kill(c, comp, SIGKILL, e))
			return -1;
	} else if (pid > 0 && kill_one_within(c, comp, SIGTERM, grace_ns,
					      &ignored)) {
		log_warn("%s (pid %ld) did not stop on TERM: %s; killing it",
			 comp->name, (long)pid, ignored.msg);
		if (component_kill(c, comp, SIGKILL, e))
			return -1;
	}
	/* The same program run otherwise (its start changed in the
	 * topology while it ran): not stopped, said, its pidfile kept. */
	if (pid == 0 && component_pidfile_foreign(c, comp, e))
		return -1;
	/* Remove the pidfile: ours is stale now, and one whose pid belongs
	 * to another program never was ours to act on. */
	if (comp->pidfile) {
		struct host *h = component_host(c, comp);

		return h->ops->remove(h, comp->pidfile, e);
	}
	return 0;
}

int component_stop(struct cluster *c, struct component *comp, struct err *e)
{
	/* Interrupted, the run must end soon: a server that ignores TERM
	 * (mariadbd does in its first moments) is not waited for long. */
	int64_t grace = cancelled(c->cancel, CANCEL_HURRY) ? STOP_GRACE_NS
							   : c->timeout_ns;

	return stop_within(c, comp, grace, e);
}

static int signal_checked(struct host *h, struct component *comp, pid_t pid,
			  int sig, int stopped, struct err *e)
{
	int64_t deadline = clock_mono_ns() + 5 * NS_PER_SEC;

	if (h->ops->signal(h, pid, sig, e))
		return -1;
	while ((h->ops->state(h, pid) == 'T') != stopped) {
		if (clock_mono_ns() >= deadline)
			return err_set(e, ERR_INFRA, "%s (pid %ld) did not "
				       "%s", comp->name, (long)pid,
				       stopped ? "stop" : "continue");
		clock_sleep_ns(5 * NS_PER_MS);
	}
	return 0;
}

int component_pause(struct cluster *c, struct component *comp, struct err *e)
{
	pid_t pid = component_pid(c, comp);

	if (pid <= 0)
		return err_set(e, ERR_INFRA, "%s is not running", comp->name);
	return signal_checked(component_host(c, comp), comp, pid, SIGSTOP, 1,
			      e);
}

int component_continue(struct cluster *c, struct component *comp,
		       struct err *e)
{
	pid_t pid = component_pid(c, comp);

	if (pid <= 0)
		return err_set(e, ERR_INFRA, "%s is not running", comp->name);
	return signal_checked(component_host(c, comp), comp, pid, SIGCONT, 0,
			      e);
}

static int all_stopped(const struct cluster *c)
{
	for (size_t i = 0; i < c->ncomps; i++)
		if (component_state(c, &c->comps[i]) != STATE_STOPPED)
			return 0;
	return 1;
}

/*
 * The kind's prepare, which may start components itself (a playground
 * does): those running after it that did not before are marked in
 * *started (one byte per component; the caller frees it), for a failed
 * up to stop.
 */
static int prepare(struct cluster *c, unsigned char **started,
		   struct err *e)
{
	char **before = xcalloc(c->ncomps + 1, sizeof(*before));
	size_t nbefore = 0;
	int rc = 0;

	*started = NULL;
	for (size_t i = 0; c->type->prepare && i < c->ncomps; i++)
		if (component_state(c, &c->comps[i]) != STATE_STOPPED)
			before[nbefore++] = xstrdup(c->comps[i].name);
	if (c->type->prepare)
		rc = c->type->prepare(c, e);
	if (!rc)
		*started = xcalloc(c->ncomps + 1, 1);
	for (size_t i = 0; !rc && c->type->prepare && i < c->ncomps; i++) {
		size_t j = 0;

		while (j < nbefore && strcmp(before[j], c->comps[i].name))
			j++;
		(*started)[i] = j == nbefore && component_state(c,
					&c->comps[i]) != STATE_STOPPED;
	}
	for (size_t j = 0; j < nbefore; j++)
		free(before[j]);
	free(before);
	return rc;
}

/*
 * The partitions' tables and classes of the components on this machine's
 * loopback (lib/netcls.h): removed; a table left is a cut an earlier run
 * left, said when `say`.
 */
static int remove_classes(struct cluster *c, int say, struct err *e)
{
	struct buf tables = BUF_INIT;
	char prefix[64];
	int any = 0, rc;

	for (size_t i = 0; i < c->ncomps; i++)
		any |= component_on_loopback(c, &c->comps[i]);
	if (!any)
		return 0;
	cluster_netcls_prefix(c, prefix, sizeof(prefix));
	rc = netcls_remove(prefix, &tables, NULL, e);
	if (say && tables.len)
		log_warn("removed a partition an earlier run left on the "
			 "loopback (nftables %s)", buf_str(&tables));
	buf_release(&tables);
	return rc;
}

/*
 * When `comp` starts in a cluster's start (cluster_up), as tiup starts a
 * cluster: PD first (0), TiKV (1), then the SQL nodes and the rest (2),
 * a plain etcd among them (nothing of a TiDB cluster waits for one). A
 * TiDB started beside PD before PD answered exited at once (FATAL "get
 * TSO failed", seen on PD v8.1.2 and TiDB cd9c676e9ba4).
 */
static int start_rank(const struct component *comp)
{
	return comp->roles & ROLE_PD ? 0 : comp->roles & ROLE_KV ? 1 : 2;
}

/*
 * The components of `rank` (-1: every one) waited for together: ready,
 * or with `ping_only` answering at all.
 */
static int await_rank(struct cluster *c, int rank, int ping_only,
		      struct err *e)
{
	struct component **comps = xcalloc(c->ncomps + 1, sizeof(*comps));
	size_t n = 0;
	int rc;

	for (size_t i = 0; i < c->ncomps; i++)
		if (rank < 0 || start_rank(&c->comps[i]) == rank)
			comps[n++] = &c->comps[i];
	rc = await_all(c, comps, n, ping_only, 0, e);
	free(comps);
	return rc;
}

int cluster_up(struct cluster *c, struct err *e)
{
	unsigned char *started;
	int rc = -1;

	if (prepare(c, &started, e))
		return -1;
	/* What a killed run's faults left (c->sweep), then the classes. */
	if ((c->sweep && c->sweep(c, e)) || remove_classes(c, 1, e) ||
	    cluster_preflight_start(c, e))
		goto out;
	for (size_t i = 0; i < c->ncomps; i++)
		if (component_state(c, &c->comps[i]) == STATE_PAUSED) {
			err_set(e, ERR_INFRA, "%s is paused (SIGSTOP); continue "
				"it or run 'cluster down'", c->comps[i].name);
			goto out;
		}
	/* Rank by rank, each started together (a quorum comes up only
	 * together) and answering before the next rank starts; PD ready,
	 * healthy, first. */
	for (int rank = 0; rank <= 2; rank++) {
		for (size_t i = 0; i < c->ncomps; i++) {
			struct component *comp = &c->comps[i];

			if (start_rank(comp) != rank ||
			    component_state(c, comp) != STATE_STOPPED)
				continue;
			if (spawn(c, comp, NULL, e))
				goto out;
			started[i] = 1;
		}
		if (await_rank(c, rank, rank > 0, e))
			goto out;
	}
	if (c->type->setup && c->type->setup(c, e))
		goto out;
	if (await_rank(c, -1, 0, e))
		goto out;
	if (c->topology_path && topology_write(c, c->topology_path, e))
		goto out;
	rc = 0;
out:
	/* A failed up leaves things as they were: what it started, it
	 * stops (the error already names what went wrong). */
	for (size_t i = c->ncomps; rc && i-- > 0;)
		if (started[i])
			stop_within(c, &c->comps[i], STOP_GRACE_NS, NULL);
	/* Down to nothing: the kind's clean-up after a down, too. */
	if (rc && c->type->down && all_stopped(c))
		c->type->down(c, NULL);
	free(started);
	return rc;
}

int cluster_down(struct cluster *c, struct err *e)
{
	int rc = 0;

	/* Last started, first stopped: replicas before their sources. */
	for (size_t i = c->ncomps; i-- > 0;)
		if (c->comps[i].pidfile && component_stop(c, &c->comps[i], e))
			rc = -1;
	/* What a killed run's faults left (c->sweep): a data directory on
	 * tichaos-diskfs goes back once nothing runs on it. */
	if (!rc && c->sweep && c->sweep(c, e))
		rc = -1;
	if (!rc && remove_classes(c, 0, e))
		rc = -1;
	if (!rc && c->type->down && c->type->down(c, e))
		rc = -1;
	return rc;
}
