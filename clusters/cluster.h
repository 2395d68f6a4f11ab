#ifndef TICHAOS_CLUSTER_H
#define TICHAOS_CLUSTER_H

/*
 * Clusters and their components (docs/topology.md).
 *
 * A cluster is a set of components. A component is one server process: it
 * has a name ("up-0"), roles, a host, the addresses it offers, how to start
 * it, how to find its pid and where it logs. What a kind of cluster does
 * is produce that list (and, for the local cluster, create the servers'
 * data); pids and states (pid.c), readiness (ready.c), replicas
 * (replica.c), starting, stopping, killing and pausing (lifecycle.c) are
 * the same for every kind, on top of the component model (cluster.c).
 *
 * The component list of a cluster is also its topology file
 * (docs/topology.md): topology.c writes it and reads it back.
 */

#include <jansson.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "clusters/host.h"
#include "lib/buf.h"
#include "lib/cancel.h"
#include "lib/err.h"
#include "lib/netcls.h"
#include "lib/sql.h"

enum role {
	ROLE_UPSTREAM = 1 << 0,
	ROLE_DOWNSTREAM = 1 << 1,
	ROLE_CDC = 1 << 2,
	ROLE_PD = 1 << 3,
	ROLE_KV = 1 << 4,
	ROLE_ETCD = 1 << 5,
};

/* "upstream", ... for one role bit; NULL for anything else. */
const char *role_name(unsigned role);

/* The role bit named `name`, or 0. */
unsigned role_parse(const char *name);

/* NULL-terminated list of every role name, for suggestions. */
extern const char *const role_names[];

/* A component's supervisor (struct component.sup). */
struct supervisor {
	int64_t delay_ns;	/* how long after an end it restarts it */
	char **stop;		/* argv on its host: hold it stopped */
	char **start;		/* argv on its host: let it run again */
};

/*
 * What tichaos left a supervised component in: nothing; killed, its
 * supervisor to restart it; held stopped by the supervisor's `stop`.
 */
enum sup_state { SUP_NONE, SUP_AWAITED, SUP_HELD };

struct component {
	char *name;
	unsigned roles;
	char *host;		/* "local" (NULL too), or a host's name */
	/* SQL endpoint, when the component speaks SQL (port 0: none). */
	char *sql_host;
	int sql_port;
	char *user;
	/* MAY: its SQL password, from the environment variable the
	 * topology names (password_env); never written anywhere. */
	char *password_env;
	char *password;
	/* MAY: a replication source: the name of the component this one
	 * replicates from; its readiness then includes replication. */
	char *replicates;
	/* MAY: status or API URL, checked with GET for readiness. */
	char *http_url;
	/* MAY: etcd client URL (etcd's v3 JSON gateway). */
	char *etcd_url;
	/* MAY: how to start it (NULL-terminated argv; NULL: it cannot be
	 * started or restarted by tichaos). */
	char **start;
	char *dir;		/* MAY: working directory of `start` */
	/* Pid sources, any one (none: its state is told by its endpoints
	 * only): a pidfile, checked against the start command; a shell
	 * command run on the host printing the pid; TiCDC's GET /api/v2/status
	 * (its "pid") at http_url's origin. */
	char *pidfile;
	char *pid_command;
	int status_pid;
	char *log;		/* MAY: its log file (of its last start) */
	/* MAY: `log` as written, holding "{start}": the log of each start
	 * has a name of its own (its files are in `logs`). */
	char *log_pattern;
	/* MAY: "NAME=VALUE" entries (NULL-terminated) set for `start`. */
	char **env;
	/* The process tichaos last started, and when (proc_start_time on
	 * its host): with status_pid, what runs while it does not answer
	 * yet (a capture starting). 0: none. */
	pid_t started_pid;
	long long started_at;
	/* How many times tichaos started it; "{start}" in `start` and
	 * `log` is the number of the start being made (0 before any). */
	int starts;
	/* MAY: more logs (NULL-terminated), each a path whose last part may
	 * be a shell pattern (cdc*.log): a capture's stdout beside its log,
	 * a log file named anew at each start. Collected, not read for
	 * readiness or a failure's last line. */
	char **logs;
	/* Its log's size when tichaos last started it: where the lines of
	 * that start begin (0: the whole log). */
	int64_t log_from;
	char *data_dir;		/* MAY: its data */
	/* MAY: the network namespace (`ip netns`) on its host that it runs
	 * in, a host of its own (lib/netns.h): started with `ip netns exec
	 * NETNS`; what partitions cut. */
	char *netns;
	/* The pid tichaos last signalled to end (a kill, a stop), set
	 * before the signal and read by the exit watch on its own thread
	 * (__atomic): that process going is tichaos's doing. */
	pid_t ending_pid;
	/* 1 from a start's spawn until its wait for readiness ends: what
	 * the process does meanwhile is the start's to say (__atomic). */
	int starting;
	/*
	 * MAY: a supervisor restarts it by itself when it ends (systemd's
	 * Restart=always with RestartSec, a Kubernetes StatefulSet;
	 * docs/topology.md). tichaos then never starts a copy of its own:
	 * a start is the supervisor's `start`, a kill is waited for as a
	 * new pid that answers, and a kill whose `down` outlasts the
	 * supervisor's delay holds it stopped with `stop` for that time.
	 */
	struct supervisor *sup;
	/* What tichaos left it in (enum sup_state; the faults' thread). */
	int sup_state;
	/* What the exit watch saw during the run: how many times the
	 * component's process ended on its own, and the first end's time
	 * (ns since the run started) and record value (JSON). */
	int exits;
	int64_t first_exit_ns;
	char *first_exit;
};

struct cluster;
struct history;
struct history_slot;
struct suite_section_type;

/*
 * A watcher a cluster kind offers (struct cluster_type's watchers): the
 * nemesis runs each in a thread of its own while the workloads drive,
 * and it records in the history, as process "monitor", what it sees
 * happen to the cluster (docs/results.md), so that the nemesis knows no
 * kind's servers.
 */
struct cluster_watcher {
	/* What it is, for errors: "replica watch". */
	const char *name;
	/* MUST: 1 when cluster `c` has anything for it to watch. */
	int (*wanted)(const struct cluster *c);
	/*
	 * MUST: watch until `cancel` reaches CANCEL_STOP, recording through
	 * `slot` (the calling thread's, of history `h`: its clock). Runs on
	 * the caller's thread, which joins it once the run stops.
	 */
	void (*run)(struct cluster *c, struct history *h,
		    struct history_slot *slot, const struct cancel *cancel);
};

/*
 * The MariaDB replica watch (clusters/replica.c), for every component
 * that replicates: four times a second, whether its SQL thread stopped
 * on an error and how many events it skipped; each change is f
 * "replica_stopped" (the error, the GTID, the source's position),
 * "replica_running" or "replica_skipped" (the total so far).
 */
extern const struct cluster_watcher cluster_replica_watch;

/*
 * The exit watch (clusters/exitwatch.c), for every component with a pid
 * source: four times a second here, once a second on an SSH host or by
 * TiCDC's API, whether the process it last saw still runs. One that
 * ended while tichaos had not signalled it to end (a crash, a server
 * that gave up and exited, the kernel's OOM killer) is recorded as
 * process "monitor", f "exited", its target the component,
 * {"pid":4242,"last_line":"<its log's last line>"} ("now": the pid that
 * runs in its place, when one does), said as a warning, and counted on
 * the component (exits, first_exit): the run's "exits"
 * (docs/results.md).
 */
extern const struct cluster_watcher cluster_exit_watch;

/*
 * The DDL watch (clusters/ddlwatch.c), what a fault fired by a DDL's
 * arrival downstream waits for (faults/trigger.h, on: ddl_applied and
 * ddl_running): every millisecond until `cancel` reaches CANCEL_STOP,
 * each SQL component of role downstream is asked, as `what` says:
 *
 * - DDL_WATCH_RUNNING: for the statements its sessions run
 *   (information_schema.PROCESSLIST, a replica's SQL thread's too). Each
 *   partition DDL of a table of `database` ("ALTER TABLE [db.]t" with a
 *   clause of partition_ddl's operations) that a session did not run at
 *   the last ask is recorded as process "monitor", f "ddl_running", its
 *   table, its node, and {"op": "exchange", "query": "ALTER ..."} (op:
 *   the operation's name in partition_ddl; "op" first).
 * - DDL_WATCH_PARTITIONS: for the partitions of the partitioned tables
 *   of `database` (information_schema.PARTITIONS; an ask that meets a
 *   DDL's metadata lock returns once the DDL is done). Each table whose
 *   partitions changed since the last answer is recorded as f
 *   "ddl_applied", with its table ("db.t"), its node, and
 *   {"partitions": "p0,p1"}; the first answer is what is known.
 *
 * Through `slot` of `h`, on the caller's thread.
 */
enum { DDL_WATCH_PARTITIONS = 1, DDL_WATCH_RUNNING = 2 };
void cluster_ddl_watch(struct cluster *c, const char *database,
		       unsigned what, struct history *h,
		       struct history_slot *slot, const struct cancel *cancel);

/*
 * What TiCDC's Open API asks of its clients (docs/topology.md, ticdc:):
 * each NULL when the topology does not say, and then not sent.
 */
struct ticdc_access {
	/* The user of HTTP basic authentication, sent on every request to
	 * TiCDC: TiCDC with security.client-user-required checks it as a
	 * TiDB user (pingcap/ticdc api/middleware/authenticate_middleware.go). */
	char *user;
	/* Its password, from the environment variable the topology names
	 * (password_env); never written anywhere. */
	char *password_env;
	char *password;
	/* The keyspace, sent as ?keyspace= on the changefeed requests,
	 * which next-gen TiCDC requires (KeyspaceCheckerMiddleware in
	 * api/middleware/middleware.go) and classic TiCDC ignores. */
	char *keyspace;
};

/*
 * HOSTS_DEFAULT is the environment's TICHAOS_HOSTS (on, off, auto), else
 * HOSTS_AUTO: hosts when namespaces can be made here, else loopback, and
 * `cluster up` says why.
 */
enum hosts_mode { HOSTS_DEFAULT, HOSTS_AUTO, HOSTS_ON, HOSTS_OFF };

/* HOSTS_AUTO, _ON, _OFF for "auto", "on", "off"; HOSTS_DEFAULT for
 * anything else. */
enum hosts_mode hosts_mode_parse(const char *text);

struct cluster_options {
	/* "local", or the path of a topology file. */
	const char *cluster;
	/* Directory of the local cluster (default "cluster"). */
	const char *dir;
	/* First port of the local cluster; 0: the default or the one the
	 * cluster in `dir` was created with; -1: find a free block. */
	int port_base;
	/* The suite's hints for a cluster tichaos starts (playground): how
	 * many TiDB, PD, TiKV servers and TiCDC captures; 0: one. */
	int tidb;
	int pd;
	int kv;
	int captures;
	/* MAY: the suite's section for this kind (cluster.<its name>), as
	 * the kind's suite hook parsed it (struct cluster_type's suite);
	 * NULL: none. Borrowed; the kind copies what it keeps. */
	const void *section;
	/* The local cluster's hosts (docs/topology.md): one network
	 * namespace per component, or all on 127.0.0.1; HOSTS_DEFAULT:
	 * the suite's section says, else TICHAOS_HOSTS. */
	enum hosts_mode hosts;
	/* On hosts: an sshd on each, and DIR/ssh-topology.yaml (up). */
	int sshd;
};

#define DEFAULT_PORT_BASE 24000
#define PORTS_PER_CLUSTER 8

/* What of the command line a cluster kind takes (struct cluster_type's
 * `takes`); the commands refuse the rest. */
#define CLUSTER_TAKES_PORT_BASE 1u	/* --port-base */
#define CLUSTER_TAKES_HOSTS 2u		/* --hosts, and up's --sshd */
#define CLUSTER_TAKES_DIR 4u		/* --dir */
#define CLUSTER_TAKES_PURGE 8u		/* down's --purge */

struct cluster_type {
	const char *name;
	const char *doc;
	/* CLUSTER_TAKES_*: the options that apply to this kind. */
	unsigned takes;
	/* The servers it never has (REQUIRE_* of core/suite.h: the local
	 * cluster's MariaDB is no TiDB, its replication no TiCDC): a suite
	 * that requires one is skipped there before anything starts. */
	unsigned lacks;
	/* 1: tichaos makes this cluster, and a run that started it tears it
	 * down; 0: it is attached to, and left running. */
	unsigned made:1;
	/*
	 * MAY (a kind tichaos makes): whether directory `dir` holds a
	 * cluster of this kind, made there by `cluster up` or a run (its
	 * own files tell), so that one a dead runner left is found and
	 * brought down (runner/rundir.c) without knowing the kinds' files.
	 */
	int (*made_in)(const char *dir);
	/*
	 * MAY: its own section of a suite (cluster.<name>), which the core
	 * hands it to parse (core/suite.h); what it parsed reaches open as
	 * o->section. A suite that has one run on another kind is warned
	 * about, naming both.
	 */
	const struct suite_section_type *suite;
	/*
	 * MAY (a kind attached to): the file of `cluster` (the --cluster
	 * argument) that a run locks while it runs on it (allocated);
	 * NULL: the argument itself, a topology file.
	 */
	char *(*lock_path)(const char *cluster);
	/* MAY: the watchers it offers, NULL-terminated (struct
	 * cluster_watcher). */
	const struct cluster_watcher *const *watchers;
	/*
	 * MUST: fill c->comps (and anything private in c->priv) from the
	 * options. Starts nothing. 0, or -1 with `e` set (ERR_USAGE for bad
	 * options or files, ERR_INFRA for the system).
	 */
	int (*open)(struct cluster *c, const struct cluster_options *o,
		    struct err *e);
	/*
	 * MAY: make the components startable (create data directories,
	 * configuration) before any is started, or start what starts them
	 * and fill c->comps (a playground). Called by cluster_up only; what
	 * it started and a later step of the up fails on, cluster_up stops.
	 * When it fails itself, it leaves nothing it started running.
	 */
	int (*prepare)(struct cluster *c, struct err *e);
	/*
	 * MAY: one-time set-up once every component answers (users,
	 * replication), before full readiness is awaited.
	 */
	int (*setup)(struct cluster *c, struct err *e);
	/*
	 * MAY: once cluster_down stopped every component, stop what they
	 * belonged to and clean up after it.
	 */
	int (*down)(struct cluster *c, struct err *e);
	/*
	 * MAY: the options each server was configured with, and the value
	 * the running server reports for each ({"up-0": {"configured":
	 * {...}, "effective": {...}}}), for the run directory.
	 */
	int (*server_options)(struct cluster *c, json_t **out, struct err *e);
	/* MAY: release c->priv. */
	void (*close)(struct cluster *c);
};

struct cluster {
	const struct cluster_type *type;
	/* The cluster's directory (local) or the topology file's. */
	char *dir;
	/* Where `cluster up` writes the topology; NULL: nowhere. */
	char *topology_path;
	int port_base;
	struct component *comps;
	size_t ncomps;
	/* How long start, stop and readiness may take; the topology's
	 * `timeout` when it gave one (timeout_given). */
	int64_t timeout_ns;
	int timeout_given;
	/*
	 * MAY: the token of whoever drives the cluster (lib/cancel.h).
	 * Waits for readiness give up once it reaches `give_up_at`
	 * (CANCEL_NONE: never); from CANCEL_HURRY on, a server that
	 * ignores TERM gets a short grace, and at CANCEL_KILL stopping a
	 * component is SIGKILL at once (a second ^C).
	 */
	const struct cancel *cancel;
	int give_up_at;
	/* SSH hosts of the topology (docs/topology.md). */
	struct host *hosts;
	size_t nhosts;
	/* MAY: TiCDC's changefeed (id, sink URI) from the topology. */
	char *changefeed;
	char *sink_uri;
	/* MAY: how TiCDC's Open API is asked (the topology's ticdc:). */
	struct ticdc_access ticdc;
	/* MAY: the errors its replicas are told to skip (the local
	 * cluster's cluster.local.replica_skip_errors), set by open; what
	 * a report of the events they skipped names. */
	const long *skip_errors;
	size_t nskip_errors;
	/* Skipped replication events per component (component_replica_
	 * skipped), under a lock of replica.c's; NULL until asked. */
	struct replica_tally *tally;
	/* Every etcd and pd client URL, comma-separated (cluster_etcd_url);
	 * NULL until asked. */
	char *etcd_endpoints;
	/*
	 * MAY: remove what an earlier run, killed while its faults held,
	 * left on the hosts (a cut, a degraded link), saying what; called
	 * by cluster_up before any server starts, and by cluster_down once
	 * every one stopped (a data directory put back where it belongs,
	 * off tichaos-diskfs). Set by whoever drives the
	 * cluster, from the faults, which each answer for their own
	 * leftovers (struct fault_type's sweep): the cluster knows none.
	 */
	int (*sweep)(struct cluster *c, struct err *e);
	void *priv;
};

/* Every cluster kind, NULL-terminated (clusters/registry.c). */
extern const struct cluster_type *const cluster_types[];
/* The i-th of cluster_types, or NULL past the last. */
const struct cluster_type *cluster_type_at(size_t i);

/*
 * The kind of cluster a --cluster value names: "local" (or NULL),
 * "playground" or "playground:VERSION", else a topology file: "static".
 */
const char *cluster_kind(const char *cluster);

/* The kind itself (cluster_kind's) of a --cluster value. */
const struct cluster_type *cluster_type_of(const char *cluster);

/*
 * The file whose lock (flock) holds an attached cluster for one run at a
 * time: its topology file, or the kind's (lock_path: tiup-cluster's
 * meta.yaml). The caller frees it.
 */
char *cluster_lock_path(const char *cluster);

/* 1 once the cluster's token reached c->give_up_at. */
int cluster_interrupted(const struct cluster *c);

/* The kind named `name`, or NULL. */
const struct cluster_type *cluster_type_find(const char *name);

/*
 * Open the cluster the options name: "local" (or NULL) is the local
 * cluster in o->dir, "playground" or "playground:VERSION" a tiup
 * playground kept in o->dir, anything else a topology file (static
 * cluster).
 * The caller closes it with cluster_close().
 */
int cluster_open(struct cluster *c, const struct cluster_options *o,
		 struct err *e);
void cluster_close(struct cluster *c);

/*
 * Start every component that is not running and wait until all are ready,
 * then write the topology. Idempotent. On failure names the component and
 * the last line of its log; components it started are left for
 * cluster_down (the caller decides).
 */
int cluster_up(struct cluster *c, struct err *e);

/*
 * Stop every component: TERM, KILL after the timeout, by pid. A pidfile
 * whose pid belongs to another program is left alone (and removed).
 * Then c->sweep, when set.
 */
int cluster_down(struct cluster *c, struct err *e);

/*
 * What a start of `c` would meet, looked at before anything starts: a
 * line per component appended to `out`, "ok NAME: ..." or "NAME: what
 * is wrong". A component that runs must answer (component_answers); one
 * that is stopped must have a start command whose program is on its host
 * (a path, relative to its dir, an executable file; a bare name on PATH),
 * and nothing may listen on its ports there (sql, http_url's, etcd_url's).
 * A paused one is wrong, and so is a start command with no pid source
 * (nothing tells it stopped: it is never started). Returns how many are
 * wrong.
 */
int cluster_preflight(struct cluster *c, struct buf *out);

/*
 * What cluster_up is about to start, looked at first (as
 * cluster_preflight looks at a stopped component): 0, or -1 with every
 * component that cannot start as it is, each with why, on one line
 * (ERR_USAGE), before anything starts.
 */
int cluster_preflight_start(struct cluster *c, struct err *e);

/* The component called `name`, or NULL. */
struct component *cluster_find(struct cluster *c, const char *name);

/* The first component with role `role` that serves SQL, or NULL. */
const struct component *cluster_first_sql(const struct cluster *c,
					  unsigned role);

/*
 * The component an owner value names, when it does: its name is the
 * value, or its SQL address or HTTP host:port appears in it whole (TiDB's
 * autoid leader writes "host:status_port"), or else a host:port in it
 * has the port of one component alone (a server advertises its LAN
 * address, not the topology's 127.0.0.1); NULL when none does.
 */
const char *cluster_named_by(const struct cluster *c, const char *v);

/* The component at exactly `addr` ("127.0.0.1:4000"), or else the one
 * component at its port (cluster_named_by); NULL when none is. */
const char *cluster_component_at(const struct cluster *c, const char *addr);

/*
 * Connect to the component's SQL endpoint as its user (default root) with
 * its password; `database` may be NULL. Errors name the component:
 * "up-0: cannot connect to '127.0.0.1:24000': ...".
 */
int component_connect(const struct component *comp, struct sql *s,
		      const char *database, int timeout_s, struct err *e);

/* component_connect, each read allowed `read_timeout_s` seconds
 * (sql_connect_read). */
int component_connect_read(const struct component *comp, struct sql *s,
			   const char *database, int timeout_s,
			   int read_timeout_s, struct err *e);

/*
 * Whether component `i` is the first of the cluster on its host: one of
 * its own (a namespace of this machine), or the first component of an
 * SSH host; 0 for the second one on an SSH host, and for a component on
 * this machine without a namespace. Who visits every host once.
 */
int component_host_first(const struct cluster *c, size_t i);

/* Where the component runs: one of c->hosts, or &host_local. */
struct host *component_host(const struct cluster *c,
			    const struct component *comp);

enum component_state {
	STATE_STOPPED,
	STATE_RUNNING,
	STATE_PAUSED,
	STATE_UNKNOWN,		/* no pid source: only its endpoints tell */
};

const char *component_state_name(enum component_state s);

/*
 * The pid of the running component on its host: from its pidfile and
 * checked against the process's command line (a recycled pid is not
 * ours), or from its pid command, or from TiCDC's /api/v2/status. 0 when not
 * running; -1 when it cannot be told.
 */
pid_t component_pid(const struct cluster *c, const struct component *comp);

/*
 * Whether the pidfile of `comp` names a live process that does not run
 * its start command (a server started otherwise, or before its start
 * in the topology changed): 1 with `e` saying so, which a start refuses
 * rather than start a second server and write over the pidfile.
 */
int component_pidfile_foreign(const struct cluster *c,
			      const struct component *comp, struct err *e);

enum component_state component_state(const struct cluster *c,
				      const struct component *comp);

/*
 * 1 when component `comp` runs on this machine's loopback: here, in no
 * namespace of its own. Partitions tell such components apart by class
 * (lib/netcls.h).
 */
int component_on_loopback(const struct cluster *c,
			  const struct component *comp);

/*
 * Component `comp`'s class on this machine's loopback: its name
 * "tichaos-<tag>-<name>" (the tag a hash of the cluster's directory) and
 * classid (by the tag and its place in the cluster); no ports. The prefix of
 * every class of the cluster, "tichaos-<tag>-", by cluster_netcls_prefix.
 */
void component_netcls(const struct cluster *c, const struct component *comp,
		      struct netcls_host *h);
void cluster_netcls_prefix(const struct cluster *c, char *out, size_t size);

/*
 * 0 when the component answers: SQL "SELECT 1", replication threads
 * running, etcd /health, HTTP status 2xx at its http_url, whatever
 * applies; for a TiCDC capture (role cdc with an http_url), instead of
 * that GET, TiCDC listing it (capture_listed). Otherwise -1 with what did
 * not answer.
 */
int component_ready(const struct cluster *c, const struct component *comp,
		    struct err *e);

/*
 * 0 when the component answers at all: any HTTP answer at its http_url;
 * replication and the capture listing are not looked at.
 */
int component_answers(const struct cluster *c, const struct component *comp,
		      struct err *e);

/*
 * Seconds the component's replication is behind its source, -1 when it
 * does not replicate or it is not known.
 */
long component_lag(const struct cluster *c, const struct component *comp);

/* Why a replica's SQL thread stopped (MariaDB's SHOW SLAVE STATUS). */
struct replica_stop {
	long sql_errno;		/* Last_SQL_Errno */
	char error[1024];	/* Last_SQL_Error: the event or the query */
	char gtid[256];		/* @@gtid_slave_pos: the last applied */
	char position[300];	/* Relay_Master_Log_File:Exec_Master_Log_Pos,
				 * the source's binlog where it stopped */
};

/*
 * 1 when the replica's SQL thread has stopped on an error (it does not
 * restart by itself: a real failure of the replica, never waited out),
 * with *out; 0 when it runs, or stopped without an error, or `comp`
 * does not replicate; -1 when it cannot be asked.
 */
int component_replica_stopped(const struct cluster *c,
			      const struct component *comp,
			      struct replica_stop *out, struct err *e);

/*
 * component_replica_stopped and component_replica_skipped over the
 * caller's connection `s` to `comp`, kept open between asks (a watch that
 * asks four times a second): opened when closed, closed on an error so
 * that the next ask opens a new one.
 */
int component_replica_stopped_on(const struct cluster *c,
				 const struct component *comp, struct sql *s,
				 struct replica_stop *out, struct err *e);
int component_replica_skipped_on(struct cluster *c,
				 const struct component *comp, struct sql *s,
				 long *total, int *restarts, struct err *e);

/*
 * Events the replica skipped on errors it was told to skip (MariaDB's
 * Slave_skipped_errors) since the cluster was opened, summed over every
 * start of the server: the status counts from each start (told by its
 * Uptime going back), so each ask adds what the previous life had
 * reached. What a server skipped after the last ask before a kill -9 is
 * not seen: *restarts (how many starts were summed over, minus one) says
 * how often that could have been. Thread-safe. 0, or -1 when it cannot
 * be asked (the total stays what it was).
 */
int component_replica_skipped(struct cluster *c, const struct component *comp,
			      long *total, int *restarts, struct err *e);

/*
 * Start the component with its start argv (in a new session, output to its
 * log), record its pid, and wait until ready. Fails when it exits or is not
 * ready within the cluster's timeout, naming the component and the last
 * line of its log. A replica that comes up with its SQL thread stopped on
 * an error is started (a warning says so): its replication is not the
 * start's to mend, and the progress check reports it.
 */
int component_start(struct cluster *c, struct component *comp, struct err *e);

/*
 * component_start, with `prefix` (NULL-terminated, MAY be NULL) before the
 * start argv: a program that sets something up and execs the rest
 * ("/usr/bin/env" "LD_PRELOAD=..."), so the pid recorded is the
 * component's own.
 */
int component_start_under(struct cluster *c, struct component *comp,
			  const char *const *prefix, struct err *e);

/*
 * component_start of `n` components together: each stopped one started
 * before any is waited for, then each waited for until ready, so that
 * servers ready only together come up (etcd members answer /health only
 * once a quorum of them runs). ready_ns[i]: how long comps[i] took from
 * the first start, or -1 when it did not start or get ready. 0, or -1
 * with `e` saying the first that failed.
 */
int components_start(struct cluster *c, struct component *const *comps,
		     size_t n, int64_t *ready_ns, struct err *e);

/*
 * component_kill of `n` components together: `sig` sent to each (in
 * order) before any is waited for, so that they go down at once, as
 * servers that crash together do. *done: how many went down, the first
 * ones; on an error, those are still the caller's to heal.
 */
int components_kill(struct cluster *c, struct component *const *comps,
		    size_t n, int sig, size_t *done, struct err *e);

/* Send `sig` and wait until the process is gone (timeout: the cluster's). */
int component_kill(struct cluster *c, struct component *comp, int sig,
		   struct err *e);

/* TERM, then KILL after the timeout; a stopped component is a no-op. */
int component_stop(struct cluster *c, struct component *comp, struct err *e);

/*
 * Mark process `pid` of `comp` as one tichaos is ending, before it sends
 * the signal that ends it: the exit watch then takes its end for
 * tichaos's (component_kill, components_kill and component_stop mark
 * theirs; a fault that signals on its own calls this first).
 */
void component_ending(struct component *comp, pid_t pid);

/*
 * A supervised component killed by tichaos (comp->sup, SUP_AWAITED) held
 * stopped: its supervisor's `stop` run on its host, so that it stays
 * down for longer than the supervisor's delay (SUP_HELD), until
 * component_start or components_start runs its `start`. The exit watch
 * leaves it to that start meanwhile: a copy the supervisor started
 * before the stop ends by tichaos's doing. 0, or -1 with `e` set (the
 * command's exit code and output).
 */
int component_hold(struct cluster *c, struct component *comp, struct err *e);

/* SIGSTOP / SIGCONT, verified in the process state. */
int component_pause(struct cluster *c, struct component *comp, struct err *e);
int component_continue(struct cluster *c, struct component *comp,
		       struct err *e);

/* `text` with every "{start}" replaced by `with` (a start's number, or
 * "*" for a pattern of them all); the caller frees it. */
char *component_expand(const char *text, const char *with);

/* The last non-empty line of the component's log into `out`. */
void component_last_log_line(const struct cluster *c,
			     const struct component *comp, struct buf *out);

/*
 * The first line of the component's log since it was last started
 * (comp->log_from; at most 64 KiB read) that the server wrote as an
 * error: "[ERROR]" or "[FATAL]" (MariaDB, TiDB, TiKV, PD), zap's
 * "level":"error" or "fatal" (etcd, TiCDC). Into `out`; empty: none.
 */
void component_first_error_line(const struct cluster *c,
				const struct component *comp,
				struct buf *out);

/*
 * "http://host:port" of a component's URL, whatever path follows, then
 * `path` ("/api/v2/status"; NULL: none).
 */
void url_origin(const char *url, const char *path, char *out, size_t size);

/*
 * The etcd key prefix of a TiDB or TiCDC election: service "ddl" (the DDL
 * owner), "autoid" (the autoid leader), "cdc" (the TiCDC owner of cluster
 * `cdc_cluster`, "default" when NULL). -1 for anything else.
 */
int election_prefix(const char *service, const char *cdc_cluster,
		    char *prefix, size_t size);

/*
 * The etcd client URL of component `name`; or (NULL) the client URLs of
 * every etcd and pd component, comma-separated in the cluster's order,
 * the endpoints lib/etcd.h takes: a request goes on to the next member
 * when one does not answer (killed, cut off). PD's client URL serves
 * etcd's v3 JSON gateway. NULL when there is none. The list is made when
 * first asked for (after up: the playground finds its components then)
 * and lives as long as the cluster.
 */
const char *cluster_etcd_url(struct cluster *c, const char *name);

/* `uri` with the password of its user info, if any, as "***". */
void redact_uri(const char *uri, struct buf *out);

/* 1 when a cdc component has an HTTP URL: TiCDC's Open API answers. */
int cluster_ticdc(const struct cluster *c);

/*
 * The changefeed a check or the runner means: `asked` when set, else the
 * topology's, else "tichaos".
 */
const char *cluster_changefeed_id(const struct cluster *c, const char *asked);

/* A malloc'd copy of a NULL-terminated argv (a component's start). */
char **argv_dup(const char *const *argv);

/* Free what argv_dup made (NULL is fine). */
void argv_free(char **argv);

/*
 * `dir` as an absolute path with symlinks resolved, whether it exists or
 * only its parent does, so that processes started in it name one path.
 */
char *absolute_dir(const char *dir);

/* Release a component's strings. */
void component_release(struct component *comp);

/* Topology files (clusters/topology.c, docs/topology.md). */

/* Write the cluster's components as YAML to `path` atomically. */
int topology_write(const struct cluster *c, const char *path, struct err *e);

/*
 * Read the components of a topology file into c->comps. Errors are
 * "FILE:L:C: message" (ERR_USAGE).
 */
int topology_read(struct cluster *c, const char *path, struct err *e);

#endif
