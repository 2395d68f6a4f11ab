#ifndef TICHAOS_DISKPLACE_H
#define TICHAOS_DISKPLACE_H

/*
 * A component's data directory on tichaos-diskfs (diskfs/main.c), the
 * FUSE file system of tichaos's own under the disk faults (faults/disk.c),
 * for the whole run: its placement, the file system's control and
 * report, and the sweep of what a killed run left placed.
 *
 * The placement: diskplace_place stops the component, moves its data
 * directory aside (DATA + ".tichaos-disk": the "disk", holding exactly
 * what was synced), mounts the file system at the data directory's path
 * over it and starts the component again; diskplace_undo unmounts (which
 * writes back what is unsynced, as a clean shutdown does) and moves the
 * directory back. Each placement is recorded in "disks/" of the state
 * root (lib/proc.h) with the run that made it, so that a run killed
 * meanwhile leaves it found: the next run's sweep (diskplace_sweep)
 * stops the component it finds there, unmounts and moves the directory
 * back.
 *
 * The file system's modes are set over its control file and SIGUSR2
 * (diskplace_control), its loss asked with SIGUSR1; each answers in its
 * report (diskplace_ask).
 */

#include <limits.h>
#include <signal.h>
#include <sys/types.h>

#include "clusters/cluster.h"
#include "clusters/host.h"
#include "lib/buf.h"
#include "lib/err.h"

/* One placement: what its record (disks/NAME/record) says. */
struct placement {
	char dir[PATH_MAX];		/* disks/NAME, on this machine */
	char data[PATH_MAX];		/* the component's data directory */
	char backing[PATH_MAX + 32];	/* DATA + ".tichaos-disk" */
	/* DATA + ".tichaos-disk.run", beside it on its host: the file
	 * system's report, control file and log. */
	char run[PATH_MAX + 48];
	pid_t fs_pid;
	long long fs_start;
	pid_t runner;
	long long runner_start;
	int was_running;		/* before the placement */
	char component[128];
	char host_name[128];		/* "local", or the topology's */
	struct host *h;			/* where it is: the component's host */
};

/*
 * tichaos-diskfs on host `h`, into `out`: beside this program (the
 * build's diskfs/, or installed next to it) when that path is there
 * too, else on its PATH. -1 (`e`, one line) when `h` has no /dev/fuse
 * or no tichaos-diskfs.
 */
int diskplace_program(struct host *h, struct buf *out, struct err *e);

/* This run's placement of `comp`: 1 with `p`, 0 when it has none. */
int diskplace_ours(struct cluster *c, const struct component *comp,
		   struct placement *p);

/*
 * Put the data directory of `comp` on tichaos-diskfs (above), its page
 * cache kept when `cache`; the control line `first` (MAY be NULL) set
 * before the component starts.
 */
int diskplace_place(struct cluster *c, struct component *comp,
		    const char *first, int cache, struct err *e);

/*
 * The file system of `p` unmounted (SIGTERM: a clean unmount, what is
 * unsynced written) and the data directory moved back; its record gone.
 */
int diskplace_undo(struct placement *p, struct err *e);

/* The line of the report `text` that begins with `prefix`, or NULL. */
const char *diskplace_report_line(const char *text, const char *prefix);

/*
 * Signal `sig` to the file system of `p` and wait for its answer: a line
 * of what its report gained since, beginning with one of the
 * NULL-terminated `ends`. What it gained in `text`; the index of the end
 * seen, or -1 (`e`) when the file system is gone or did not answer in
 * time (`what` says what it did not do).
 */
int diskplace_ask(const struct placement *p, int sig,
		  const char *const *ends, const char *what, struct buf *text,
		  struct err *e);

/*
 * Mode `line` (diskfs/mode.h) to the file system of `p`: written to its
 * control file, SIGUSR2, its answer waited for in its report, which is
 * then in `text`. 0, or -1 when it refused the line or did not answer.
 */
int diskplace_control(const struct placement *p, const char *line,
		      struct buf *text, struct err *e);

/*
 * Each placement of `c`'s components whose run is gone undone and said
 * (a fault type's sweep: before the cluster's servers start, and at
 * `cluster down` once they stopped).
 */
int diskplace_sweep(struct cluster *c, struct err *e);

#endif
