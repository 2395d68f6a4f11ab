#ifndef TICHAOS_PROC_H
#define TICHAOS_PROC_H

/*
 * Child processes, modelled on git's run-command: fill a `struct proc`,
 * proc_start() it, proc_wait() for it. Programs are executed from an argv,
 * never through a shell. Exit codes follow the shell convention: the exit
 * status, or 128 + the signal number when the child was killed.
 *
 * The pid helpers at the end work on any process (a server started by an
 * earlier tichaos, found through its pidfile), not only on our children.
 */

#include <stdint.h>
#include <sys/types.h>

#include "buf.h"
#include "err.h"

struct proc {
	/* MUST: argv[0] is looked up in PATH unless it contains a '/'. */
	const char *const *argv;
	/* MAY: "NAME=VALUE" entries set in the child, "NAME" unsets. */
	const char *const *env;
	/* MAY: working directory of the child. */
	const char *dir;
	/* MAY: file paths for stdin / stdout / stderr. NULL: stdin is
	 * /dev/null, stdout and stderr are inherited. */
	const char *in;
	const char *out;
	const char *err;
	/* MAY: file descriptors for stdout / stderr, used instead of the
	 * paths when > 0 (the child gets a dup; the caller keeps its fd). */
	int out_fd;
	int err_fd;
	/* Append to `out` and `err` instead of truncating them. */
	unsigned append:1;
	/* stderr goes wherever stdout goes. */
	unsigned err_to_out:1;
	/* setsid() in the child: a terminal's ^C does not reach it and it
	 * outlives us cleanly (servers). */
	unsigned new_session:1;
	/* Set by proc_start; 0 once the child was reaped. */
	pid_t pid;
};

#define PROC_INIT { 0 }

/*
 * Start the child. Fails (ERR_INFRA, pid stays 0) when it cannot be
 * forked, a redirection cannot be opened, or the program cannot be
 * executed: "cannot run 'mariadbd': No such file or directory".
 */
int proc_start(struct proc *p, struct err *e);

/*
 * Wait for the child to exit and reap it. Returns its exit code (0..255,
 * or 128 + signal), or -1 with `e` set. With `timeout_ns` >= 0, gives up
 * after that long: -1 and "'prog' (pid N) still running after 5s", the
 * child left running and p->pid unchanged. -1 waits forever.
 */
int proc_wait(struct proc *p, int64_t timeout_ns, struct err *e);

/*
 * Run argv to completion, appending its stdout to `out` and its stderr to
 * `errout` (either may be NULL to discard it). A non-zero exit is not an
 * error here: the exit code is returned. After `timeout_ns` (>= 0) the
 * child is killed and -1 returned with "'prog' did not finish within 5s".
 */
int proc_capture(const char *const *argv, struct buf *out, struct buf *errout,
		 int64_t timeout_ns, struct err *e);

/* Send `sig` to `pid`. A process that is already gone is an error. */
int proc_signal(pid_t pid, int sig, struct err *e);

/* Remove `path` and everything below it (rm -rf), within 60 s. */
int proc_remove_tree(const char *path, struct err *e);

/* Make `path` and the directories above it that are missing (mkdir -p,
 * 0755). ERR_USAGE for a path too long. */
int proc_make_dirs(const char *path, struct err *e);

/*
 * The state letter of /proc/PID/stat ('R', 'S', 'D', 'T', ...), or 0 when
 * there is no such process or it is a zombie (it has exited).
 */
char proc_state(pid_t pid);

/* The state letter in the text of a /proc/PID/stat, 0 for a zombie or
 * text that is not one. */
char proc_stat_state(const char *stat);

/* Non-zero while `pid` exists and has not exited. */
int proc_alive(pid_t pid);

/*
 * When `pid` started, in clock ticks since boot (/proc/PID/stat, field
 * 22): with the pid, what tells one process from a later one that got
 * its pid. -1 when there is no such process.
 */
long long proc_start_time(pid_t pid);

/* Field 22 of the text of a /proc/PID/stat; -1 for text that is not one. */
long long proc_stat_start(const char *stat);

/*
 * Where a fault keeps records that outlive a run killed while it holds (a
 * hog, a skew, a failpoint, a disk's placement: each with its runner's
 * pid and proc_start_time, for the next run's sweep): `name`, a directory
 * below the state root, TICHAOS_STATE_DIR when it is set, else
 * PROC_STATE_ROOT. The runs of one root sweep each other's records once
 * their runners are gone; runs of two roots never do. Its path into `out`
 * ("" on failure); with `make`, it is made, and the root with it. 0, or
 * -1 when TICHAOS_STATE_DIR is not an absolute path (ERR_USAGE) or a
 * directory cannot be made.
 */
#define PROC_STATE_ROOT "/run/tichaos"
#define PROC_STATE_ENV "TICHAOS_STATE_DIR"
int proc_state_dir(const char *name, int make, char *out, size_t size,
		   struct err *e);

/*
 * The sweep of such records: fn(path, arg) for each file of state
 * directory `name` (names beginning with '.' skipped; a directory not
 * there holds none), in readdir's order. fn reads the record, returns 0
 * to go on (it removes what it is done with) or -1 to stop with its
 * error. 0, or -1: the directory unreadable, or fn's -1.
 */
int proc_state_each(const char *name, int (*fn)(const char *path, void *arg),
		    void *arg, struct err *e);

/* A record's runner (pid, proc_start_time) is gone: its pid runs no
 * more, or runs another process since. */
int proc_runner_gone(long pid, long long start);

/*
 * Wait until `pid` is gone: our child once reaped (a zombie is not gone
 * yet: a killed multithreaded child cannot be reaped until its threads
 * have exited), anyone else's once not alive. 0 when gone, -1 with
 * "pid N still running after 10s" otherwise.
 */
int proc_wait_gone(pid_t pid, int64_t timeout_ns, struct err *e);

/*
 * The command line of `pid` with arguments separated by spaces, into `out`
 * (replacing it). -1 when the process does not exist.
 */
int proc_cmdline(pid_t pid, struct buf *out, struct err *e);

/*
 * The arguments of `pid` as a NULL-terminated argv (each one as the
 * process was given it, spaces and all); the caller frees it with
 * proc_argv_free(). -1 when the process does not exist.
 */
int proc_argv(pid_t pid, char ***argv, struct err *e);
void proc_argv_free(char **argv);

/*
 * The value of environment variable `name` that `pid` started with
 * (/proc/PID/environ) into `out` (replacing it): 0; 1 when it has none
 * (`out` empty); -1 when the process does not exist or its environment
 * cannot be read.
 */
int proc_getenv(pid_t pid, const char *name, struct buf *out, struct err *e);

/* The parent pid of `pid`, 0 when it does not exist. */
pid_t proc_parent(pid_t pid);

/* The working directory of `pid` into `out`; -1 when it cannot be read. */
int proc_cwd(pid_t pid, struct buf *out, struct err *e);

/*
 * An exclusive flock(2) of `path` for as long as *fd stays open (a holder
 * that ends, however, releases it): 0 and *fd when it is taken; 1 when
 * another open file holds it, *holder the pid /proc/locks names (0 when
 * it names none); -1 when `path` cannot be opened (ERR_USAGE) or locked
 * (ERR_INFRA). *fd is close-on-exec, so that no child keeps the lock.
 */
int proc_lock_file(const char *path, int *fd, pid_t *holder, struct err *e);

/*
 * Read a pidfile: a positive decimal pid and an optional newline. 0 and
 * *pid = 0 when the file does not exist; -1 when it is unreadable or does
 * not hold a pid.
 */
int proc_read_pidfile(const char *path, pid_t *pid, struct err *e);

/*
 * An executable called `name` in PATH or an sbin directory (servers and
 * iproute2 live there, outside a user's PATH), or NULL. Caller frees.
 */
char *find_program(const char *name);

#endif
