#ifndef TICHAOS_HOST_H
#define TICHAOS_HOST_H

/*
 * Hosts: where a component's process runs (docs/topology.md). Everything
 * tichaos does to a server process — read its pidfile, look at its command
 * line and state, signal it, start it detached, read its log — goes through
 * its host's ops: this machine's system calls, or short shell commands over
 * one reused SSH connection (lib/ssh.h). Exit codes and pids mean the same
 * on both.
 *
 * Paths are the host's own. A topology names SSH hosts under `hosts:`
 * (docs/topology.md); a component without a host, or with host "local",
 * runs here.
 */

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/netns.h"
#include "lib/ssh.h"

struct host;

struct host_ops {
	const char *kind;	/* "local", "ssh" */
	/*
	 * MUST: append at most `max` bytes of `path` from byte `from` to
	 * `out`. 0; 1 when the file does not exist; -1 with `e` set.
	 */
	int (*read_file)(struct host *h, const char *path, int64_t from,
			 int64_t max, struct buf *out, struct err *e);
	/* MUST: the size of `path` in bytes, -1 when it does not exist. */
	int64_t (*file_size)(struct host *h, const char *path);
	/* MUST: replace `path` with `text` (0644). */
	int (*write_file)(struct host *h, const char *path,
			  const struct buf *text, struct err *e);
	/* MUST: remove `path`; one that does not exist is not an error. */
	int (*remove)(struct host *h, const char *path, struct err *e);
	/*
	 * MUST: the command line of `pid`, arguments separated by spaces,
	 * into `out` (replacing it); -1 when there is no such process.
	 */
	int (*cmdline)(struct host *h, pid_t pid, struct buf *out,
		       struct err *e);
	/* MUST: the state letter of `pid` ('R', 'S', 'T', ...), 0 if gone. */
	char (*state)(struct host *h, pid_t pid);
	/* MUST: when `pid` started (proc_start_time), -1 if gone. */
	long long (*start_time)(struct host *h, pid_t pid);
	/* MUST: send `sig`; a process that is gone is an error. */
	int (*signal)(struct host *h, pid_t pid, int sig, struct err *e);
	/*
	 * MUST: start argv (in `dir` when set) in a new session, stdin from
	 * /dev/null, stdout and stderr appended to `log` (NULL: discarded);
	 * its pid in *pid. It outlives the connection that started it.
	 */
	int (*spawn)(struct host *h, char *const *argv, const char *dir,
		     const char *log, pid_t *pid, struct err *e);
	/* MUST: wait until `pid` is gone (reaped when it is our child). */
	int (*wait_gone)(struct host *h, pid_t pid, int64_t timeout_ns,
			 struct err *e);
	/*
	 * MUST: run a shell command line, its stdout into `out` (appended;
	 * NULL: discarded). The exit code (128 + signal), or -1.
	 */
	int (*shell)(struct host *h, const char *command, struct buf *out,
		     struct err *e);
};

struct host {
	char *name;		/* "local", or the topology's name */
	const struct host_ops *ops;
	/* SSH hosts: the target (strings owned) and the connection, opened
	 * on first use under `lock`. */
	struct ssh_target ssh;
	struct ssh *conn;
	pthread_mutex_t lock;
	/* How long one remote command may take. */
	int64_t timeout_ns;
};

/* This machine. */
extern struct host host_local;

/*
 * Make `h` an SSH host: its ops, lock and timeout. The caller has set
 * h->name and h->ssh with allocated strings, which host_release frees.
 */
void host_init_ssh(struct host *h);

/*
 * SSH host `h` as a host whose link lib/netns.h degrades: its shell, and
 * the interface that carries its address, found there. -1 when there is
 * none (its address is no IPv4 address of that host).
 */
int host_link_at(struct host *h, struct nettool_at *at, struct err *e);

/* Close the connection and free what `h` owns. */
void host_release(struct host *h);

#endif
