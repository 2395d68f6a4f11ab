/*
 * tichaos-diskfs: a FUSE file system (Debian's libfuse3) over a backing
 * directory that keeps what a program writes in memory until it syncs
 * it, as a kernel's page cache does, so that a power loss can be made:
 * SIGUSR1 drops everything written since each file's last fsync or
 * fdatasync, as Jepsen's lazyfs does, and what was synced stays, byte
 * for byte (diskfs/overlay.h holds a file's unsynced writes).
 *
 *	tichaos-diskfs [--cache] BACKING MOUNTPOINT REPORT CONTROL
 *		       [FUSE OPTION...]
 *
 * Runs in the foreground until unmounted (SIGTERM, SIGINT, fusermount3
 * -u), then exits 0; a clean unmount writes what is unsynced, as a clean
 * shutdown of a machine does. On SIGUSR1 it appends to REPORT, for each file that had
 * unsynced writes, "lost BYTES PATH" (PATH from the mount's root, the
 * last name it had), then "lost-done FILES BYTES", and syncs REPORT.
 * It logs "mounted MOUNTPOINT" on stderr once it serves.
 *
 * On SIGUSR2 it reads a line from CONTROL and sets the fault mode it
 * says (diskfs/mode.h: fail a share of the reads, writes or syncs with
 * EIO, fail every write with ENOSPC, delay each one, or none); it
 * appends to REPORT what the mode that ended did ("ops ...") and "mode
 * LINE", or "mode-error LINE: WHY", and syncs REPORT. A sync that fails
 * writes nothing back: what it would have written stays unsynced.
 *
 * What it holds back: a file's data and size (writes, truncates), and
 * directory entries (creates, mkdirs, links, symlinks, unlinks, rmdirs,
 * renames) until each directory they changed is synced (fsync on the
 * directory), as POSIX has it (diskfs/journal.h): the loss undoes the
 * rest, last first, and says each as "lost-entry OP PATH" after the
 * "lost" lines; "lost-done FILES BYTES ENTRIES" ends it. Unlinked files
 * wait in BACKING.trash (beside BACKING) until their unlink is synced.
 * The control line "entries ordered" makes any sync (of a file too)
 * make every earlier entry durable, as a journaling file system such as
 * ext4 or XFS commits its journal in order; "entries posix" (the start)
 * puts back the rule above. A file's mode, owner and times (chmod,
 * chown, utimens) are held back too, until the file itself is synced
 * (fsync, not fdatasync, which need not write them; fsync of a
 * directory for its own): the loss puts them back ("lost-entry attr
 * PATH"). A sync with nothing held changes nothing, times included. A
 * file opened O_SYNC or O_DSYNC is synced at each write. Reads bypass the
 * kernel's page cache (direct_io), so what a reader sees after a loss
 * is what is left, and each read reaches the fault modes; so programs
 * that mmap a file on it cannot (FUSE refuses a shared mapping of a
 * direct_io file: etcd's bbolt fails with ENODEV). With --cache the
 * kernel's page cache stays (writes still reach the file system at
 * once; each open drops what the cache held of the file, so a program
 * started after a loss reads what is left), and mmap works; reads the
 * cache answers do not reach the fault modes.
 */
#define FUSE_USE_VERSION 31

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <unistd.h>

#include "diskfs/journal.h"
#include "diskfs/mode.h"
#include "diskfs/overlay.h"
#include "lib/buf.h"
#include "lib/clock.h"

/* A regular file with unsynced writes, or open. */
struct file {
	dev_t dev;
	ino_t ino;
	char *path;		/* its last path, from the mount's root */
	int fd;			/* the backing file, O_RDWR */
	int opens;
	struct overlay o;
	pthread_mutex_t lock;
	struct file *next;
};

/* One open of a file: fuse_file_info.fh. */
struct handle {
	struct file *f;
	int sync;		/* O_SYNC or O_DSYNC: synced at each write */
};

static struct {
	char backing[PATH_MAX];
	const char *mountpoint;
	int report;		/* REPORT, O_APPEND */
	const char *control;	/* CONTROL */
	int unmounted;		/* op_destroy ran: a clean end */
	pthread_mutex_t lock;	/* `files`, `journal` */
	struct file *files;
	struct journal journal;
	int ordered;		/* "entries ordered": any sync commits all */
	int cache;		/* --cache: the kernel's page cache kept */
	struct diskmode mode;
} fs = { .report = -1, .lock = PTHREAD_MUTEX_INITIALIZER };

/*
 * An operation of kind `k` begins: what the fault mode says done (a
 * wait, measured and counted); 0 to go on, or the -errno to fail with.
 */
static int begin(enum diskop k)
{
	int64_t delay, from;
	int rc = diskmode_op(&fs.mode, k, &delay);

	if (delay > 0) {
		from = clock_mono_ns();
		clock_sleep_ns(delay);
		diskmode_waited(&fs.mode, k, clock_mono_ns() - from);
	}
	return rc;
}

static void backing_path(const char *path, char *out, size_t size)
{
	snprintf(out, size, "%s%s", fs.backing, path);
}

/* The state of the file with backing `st`; NULL: none. Under fs.lock. */
static struct file *find(const struct stat *st)
{
	for (struct file *f = fs.files; f; f = f->next)
		if (f->dev == st->st_dev && f->ino == st->st_ino)
			return f;
	return NULL;
}

/*
 * The state of the file at `path`, made (its backing file opened) when
 * it has none: opens counted when `open`. -errno.
 */
static int attach(const char *path, int open_it, struct file **out)
{
	char bp[PATH_MAX];
	struct stat st;
	struct file *f;
	int fd;

	backing_path(path, bp, sizeof(bp));
	fd = open(bp, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		int err = errno;

		close(fd);
		return -err;
	}
	pthread_mutex_lock(&fs.lock);
	f = find(&st);
	if (f) {
		close(fd);
		free(f->path);
		f->path = xstrdup(path);
	} else {
		f = xcalloc(1, sizeof(*f));
		f->dev = st.st_dev;
		f->ino = st.st_ino;
		f->path = xstrdup(path);
		f->fd = fd;
		overlay_init(&f->o, (uint64_t)st.st_size);
		pthread_mutex_init(&f->lock, NULL);
		f->next = fs.files;
		fs.files = f;
	}
	if (open_it)
		f->opens++;
	pthread_mutex_unlock(&fs.lock);
	*out = f;
	return 0;
}

/* Forget `f` once it is neither open nor dirty. Under fs.lock. */
static void forget_if_idle(struct file *f)
{
	struct file **p;

	if (f->opens || overlay_dirty(&f->o))
		return;
	for (p = &fs.files; *p && *p != f; p = &(*p)->next)
		;
	if (*p)
		*p = f->next;
	close(f->fd);
	overlay_release(&f->o);
	pthread_mutex_destroy(&f->lock);
	free(f->path);
	free(f);
}

/* Write `f`'s unsynced state to its backing file and sync it. -errno. */
static int sync_file(struct file *f, int datasync)
{
	if (overlay_flush(&f->o, f->fd))
		return -errno;
	if ((datasync ? fdatasync(f->fd) : fsync(f->fd)))
		return -errno;
	return 0;
}

/*
 * A sync succeeded: of the directory or the file `dir` (its attributes),
 * or (NULL) of a file's data only. What it makes durable of the entries
 * (see the top).
 */
static void synced_entries(const char *dir)
{
	pthread_mutex_lock(&fs.lock);
	if (fs.ordered)
		journal_synced_all(&fs.journal);
	else if (dir)
		journal_synced(&fs.journal, dir);
	pthread_mutex_unlock(&fs.lock);
}

static void *op_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	/* Every size and name asked each time: after a loss nothing the
	 * kernel cached may show. */
	cfg->attr_timeout = 0;
	cfg->entry_timeout = 0;
	cfg->negative_timeout = 0;
	cfg->direct_io = !fs.cache;
	cfg->use_ino = 1;
	fprintf(stderr, "mounted %s\n", fs.mountpoint);
	return NULL;
}

static int op_getattr(const char *path, struct stat *st,
		      struct fuse_file_info *fi)
{
	char bp[PATH_MAX];
	struct file *f;

	(void)fi;
	backing_path(path, bp, sizeof(bp));
	if (lstat(bp, st))
		return -errno;
	if (S_ISREG(st->st_mode)) {
		pthread_mutex_lock(&fs.lock);
		f = find(st);
		if (f) {
			pthread_mutex_lock(&f->lock);
			st->st_size = (off_t)f->o.size;
			st->st_blocks = (blkcnt_t)((f->o.size + 511) / 512);
			pthread_mutex_unlock(&f->lock);
		}
		pthread_mutex_unlock(&fs.lock);
	}
	return 0;
}

static int open_handle(const char *path, struct fuse_file_info *fi)
{
	struct handle *h = xcalloc(1, sizeof(*h));
	int rc = attach(path, 1, &h->f);

	if (rc) {
		free(h);
		return rc;
	}
	h->sync = (fi->flags & (O_SYNC | O_DSYNC)) != 0;
	fi->fh = (uint64_t)(uintptr_t)h;
	fi->direct_io = !fs.cache;
	return 0;
}

static int op_open(const char *path, struct fuse_file_info *fi)
{
	return open_handle(path, fi);
}

static int op_create(const char *path, mode_t mode,
		     struct fuse_file_info *fi)
{
	char bp[PATH_MAX];
	struct stat st;
	int fd, made;

	backing_path(path, bp, sizeof(bp));
	pthread_mutex_lock(&fs.lock);
	made = lstat(bp, &st) != 0;
	fd = open(bp, O_CREAT | O_WRONLY | O_CLOEXEC |
		  (fi->flags & O_EXCL), mode);
	if (fd >= 0 && made)
		journal_made(&fs.journal, path);
	pthread_mutex_unlock(&fs.lock);
	if (fd < 0)
		return -errno;
	close(fd);
	return open_handle(path, fi);
}

static struct file *file_of(struct fuse_file_info *fi)
{
	return ((struct handle *)(uintptr_t)fi->fh)->f;
}

static int op_read(const char *path, char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	struct file *f = file_of(fi);
	ssize_t n;
	int err;

	(void)path;
	if ((err = begin(DISKOP_READ)))
		return err;
	pthread_mutex_lock(&f->lock);
	n = overlay_read(&f->o, f->fd, (uint64_t)off, buf, size);
	err = errno;
	pthread_mutex_unlock(&f->lock);
	return n < 0 ? -err : (int)n;
}

static int op_write(const char *path, const char *buf, size_t size,
		    off_t off, struct fuse_file_info *fi)
{
	struct handle *h = (struct handle *)(uintptr_t)fi->fh;
	int rc = begin(DISKOP_WRITE);

	(void)path;
	if (rc)
		return rc;
	pthread_mutex_lock(&h->f->lock);
	overlay_write(&h->f->o, (uint64_t)off, buf, size);
	if (h->sync)
		rc = sync_file(h->f, 1);
	pthread_mutex_unlock(&h->f->lock);
	if (h->sync && !rc)
		synced_entries(NULL);
	return rc ? rc : (int)size;
}

static int op_truncate(const char *path, off_t size,
		       struct fuse_file_info *fi)
{
	struct file *f;
	int rc = 0;

	if (fi)
		f = file_of(fi);
	else if ((rc = attach(path, 0, &f)))
		return rc;
	pthread_mutex_lock(&f->lock);
	overlay_truncate(&f->o, (uint64_t)size);
	pthread_mutex_unlock(&f->lock);
	if (!fi) {
		pthread_mutex_lock(&fs.lock);
		forget_if_idle(f);
		pthread_mutex_unlock(&fs.lock);
	}
	return 0;
}

static int op_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	struct file *f = file_of(fi);
	int rc = begin(DISKOP_FSYNC);

	if (rc)
		return rc;
	pthread_mutex_lock(&f->lock);
	rc = sync_file(f, datasync);
	pthread_mutex_unlock(&f->lock);
	/* fsync writes the file's metadata; fdatasync need not. */
	if (!rc)
		synced_entries(datasync || !path ? NULL : path);
	return rc;
}

static int op_release(const char *path, struct fuse_file_info *fi)
{
	struct handle *h = (struct handle *)(uintptr_t)fi->fh;

	(void)path;
	pthread_mutex_lock(&fs.lock);
	h->f->opens--;
	forget_if_idle(h->f);
	pthread_mutex_unlock(&fs.lock);
	free(h);
	return 0;
}

/* The state of what `bp` names, forgotten when it is not open: its name
 * is going, and with it what was unsynced of it. */
static void unlinking(const char *bp)
{
	struct stat st;
	struct file *f;

	if (lstat(bp, &st) || !S_ISREG(st.st_mode) || st.st_nlink > 1)
		return;
	pthread_mutex_lock(&fs.lock);
	f = find(&st);
	if (f && !f->opens) {
		overlay_drop(&f->o);
		forget_if_idle(f);
	}
	pthread_mutex_unlock(&fs.lock);
}

static int op_unlink(const char *path)
{
	char bp[PATH_MAX];
	int rc;

	backing_path(path, bp, sizeof(bp));
	unlinking(bp);
	pthread_mutex_lock(&fs.lock);
	rc = journal_unlink(&fs.journal, path);
	pthread_mutex_unlock(&fs.lock);
	return rc;
}

static int op_rename(const char *from, const char *to, unsigned int flags)
{
	char bf[PATH_MAX], bt[PATH_MAX];
	struct stat st;
	struct file *f;
	int rc;

	backing_path(from, bf, sizeof(bf));
	backing_path(to, bt, sizeof(bt));
	if (flags)
		return -EINVAL;
	unlinking(bt);
	pthread_mutex_lock(&fs.lock);
	rc = journal_rename(&fs.journal, from, to);
	if (!rc && !lstat(bt, &st)) {
		f = find(&st);
		if (f) {
			free(f->path);
			f->path = xstrdup(to);
		}
	}
	pthread_mutex_unlock(&fs.lock);
	return rc;
}

static int op_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
		      off_t off, struct fuse_file_info *fi,
		      enum fuse_readdir_flags flags)
{
	char bp[PATH_MAX];
	struct dirent *d;
	DIR *dir;

	(void)off;
	(void)fi;
	(void)flags;
	backing_path(path, bp, sizeof(bp));
	dir = opendir(bp);
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		struct stat st;

		memset(&st, 0, sizeof(st));
		st.st_ino = d->d_ino;
		st.st_mode = (mode_t)(d->d_type << 12);
		if (fill(buf, d->d_name, &st, 0, 0))
			break;
	}
	closedir(dir);
	return 0;
}

#define PASS(call) return (call) ? -errno : 0

/* `call` changing the mode, owner or times of `path`, what they were
 * kept to be undone (journal_attr). */
#define ATTR(path, call)                                                     \
	do {                                                                 \
		int attr_rc_;                                                \
		pthread_mutex_lock(&fs.lock);                                \
		attr_rc_ = journal_attr(&fs.journal, (path));                \
		if (!attr_rc_ && (call))                                     \
			attr_rc_ = -errno;                                   \
		pthread_mutex_unlock(&fs.lock);                              \
		return attr_rc_;                                             \
	} while (0)

/* `call` on the backing directory, then `path` made, to be undone. */
#define MADE(call, path)                                                     \
	do {                                                                 \
		int made_rc_;                                                \
		pthread_mutex_lock(&fs.lock);                                \
		made_rc_ = (call) ? -errno : 0;                              \
		if (!made_rc_)                                               \
			journal_made(&fs.journal, (path));                   \
		pthread_mutex_unlock(&fs.lock);                              \
		return made_rc_;                                             \
	} while (0)

static int op_mkdir(const char *path, mode_t mode)
{
	char bp[PATH_MAX];

	backing_path(path, bp, sizeof(bp));
	MADE(mkdir(bp, mode), path);
}

static int op_rmdir(const char *path)
{
	int rc;

	pthread_mutex_lock(&fs.lock);
	rc = journal_rmdir(&fs.journal, path);
	pthread_mutex_unlock(&fs.lock);
	return rc;
}

static int op_symlink(const char *target, const char *path)
{
	char bp[PATH_MAX];

	backing_path(path, bp, sizeof(bp));
	MADE(symlink(target, bp), path);
}

static int op_readlink(const char *path, char *buf, size_t size)
{
	char bp[PATH_MAX];
	ssize_t n;

	backing_path(path, bp, sizeof(bp));
	n = readlink(bp, buf, size - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static int op_link(const char *from, const char *to)
{
	char bf[PATH_MAX], bt[PATH_MAX];

	backing_path(from, bf, sizeof(bf));
	backing_path(to, bt, sizeof(bt));
	MADE(link(bf, bt), to);
}

static int op_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	char bp[PATH_MAX];

	(void)fi;
	backing_path(path, bp, sizeof(bp));
	ATTR(path, chmod(bp, mode));
}

static int op_chown(const char *path, uid_t uid, gid_t gid,
		    struct fuse_file_info *fi)
{
	char bp[PATH_MAX];

	(void)fi;
	backing_path(path, bp, sizeof(bp));
	ATTR(path, lchown(bp, uid, gid));
}

static int op_utimens(const char *path, const struct timespec tv[2],
		      struct fuse_file_info *fi)
{
	char bp[PATH_MAX];

	(void)fi;
	backing_path(path, bp, sizeof(bp));
	ATTR(path, utimensat(AT_FDCWD, bp, tv, AT_SYMLINK_NOFOLLOW));
}

static int op_statfs(const char *path, struct statvfs *st)
{
	char bp[PATH_MAX];

	backing_path(path, bp, sizeof(bp));
	if (statvfs(bp, st))
		return -errno;
	if (diskmode_full(&fs.mode))
		st->f_bfree = st->f_bavail = 0;
	return 0;
}

static int op_fsyncdir(const char *path, int datasync,
		       struct fuse_file_info *fi)
{
	char bp[PATH_MAX];
	int fd, rc = begin(DISKOP_FSYNC);

	(void)datasync;
	(void)fi;
	if (rc)
		return rc;
	backing_path(path, bp, sizeof(bp));
	fd = open(bp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = fsync(fd) ? -errno : 0;
	close(fd);
	if (!rc)
		synced_entries(path);
	return rc;
}

/* A clean unmount: what is unsynced written, as a clean shutdown does. */
static void op_destroy(void *data)
{
	(void)data;
	pthread_mutex_lock(&fs.lock);
	while (fs.files) {
		struct file *f = fs.files;

		if (sync_file(f, 0))
			perror("tichaos-diskfs: cannot write a file at the "
			       "unmount");
		overlay_drop(&f->o);	/* what a failed flush left */
		f->opens = 0;
		forget_if_idle(f);
	}
	journal_release(&fs.journal);
	fs.unmounted = 1;
	pthread_mutex_unlock(&fs.lock);
}

/* `text` appended to REPORT, and synced. */
static void report(const struct buf *text)
{
	if (write(fs.report, text->data, text->len) != (ssize_t)text->len ||
	    fsync(fs.report))
		perror("tichaos-diskfs: cannot write the report");
}

/* SIGUSR1: every unsynced write dropped, and said in the report. */
static void lose_all(void)
{
	struct buf text = BUF_INIT;
	unsigned long long files = 0, bytes = 0;
	size_t entries;

	pthread_mutex_lock(&fs.lock);
	for (struct file *f = fs.files, *next; f; f = next) {
		next = f->next;
		pthread_mutex_lock(&f->lock);
		if (overlay_dirty(&f->o)) {
			uint64_t n = overlay_unsynced_bytes(&f->o);

			buf_printf(&text, NULL, "lost %llu %s\n",
				   (unsigned long long)n, f->path);
			files++;
			bytes += n;
			overlay_drop(&f->o);
		}
		pthread_mutex_unlock(&f->lock);
		forget_if_idle(f);
	}
	/* The data first: its lines name each file as it was written. */
	journal_lose(&fs.journal, &text, &entries);
	pthread_mutex_unlock(&fs.lock);
	buf_printf(&text, NULL, "lost-done %llu %llu %zu\n", files, bytes,
		   entries);
	report(&text);
	buf_release(&text);
}

/* "entries ordered" or "entries posix": when entries become durable. */
static void set_entries(const char *line, struct buf *reply)
{
	int ordered = !strcmp(line, "entries ordered");

	if (!ordered && strcmp(line, "entries posix")) {
		buf_printf(reply, NULL, "mode-error %s: not 'entries ordered' "
			   "or 'entries posix'\n", line);
		return;
	}
	pthread_mutex_lock(&fs.lock);
	fs.ordered = ordered;
	pthread_mutex_unlock(&fs.lock);
	buf_printf(reply, NULL, "mode %s\n", line);
}

/* SIGUSR2: the mode CONTROL's first line says set, and said. */
static void set_mode(void)
{
	struct buf line = BUF_INIT, text = BUF_INIT;
	size_t n;

	if (buf_read_file(&line, fs.control, NULL)) {
		buf_printf(&text, NULL, "mode-error cannot read '%s': %s\n",
			   fs.control, strerror(errno));
	} else {
		n = strcspn(buf_str(&line), "\n");
		line.data[n] = '\0';
		line.len = n;
		if (!strncmp(buf_str(&line), "entries ", 8))
			set_entries(buf_str(&line), &text);
		else
			diskmode_set(&fs.mode, buf_str(&line), &text);
	}
	report(&text);
	buf_release(&line);
	buf_release(&text);
}

static void *signals(void *arg)
{
	sigset_t *set = arg;
	int sig;

	while (!sigwait(set, &sig))
		if (sig == SIGUSR1)
			lose_all();
		else
			set_mode();
	return NULL;
}

static const struct fuse_operations ops = {
	.init = op_init,
	.getattr = op_getattr,
	.open = op_open,
	.create = op_create,
	.read = op_read,
	.write = op_write,
	.truncate = op_truncate,
	.fsync = op_fsync,
	.release = op_release,
	.unlink = op_unlink,
	.rename = op_rename,
	.readdir = op_readdir,
	.mkdir = op_mkdir,
	.rmdir = op_rmdir,
	.symlink = op_symlink,
	.readlink = op_readlink,
	.link = op_link,
	.chmod = op_chmod,
	.chown = op_chown,
	.utimens = op_utimens,
	.statfs = op_statfs,
	.fsyncdir = op_fsyncdir,
	.destroy = op_destroy,
};

int main(int argc, char **argv)
{
	static sigset_t usr;
	static char foreground[] = "-f", opt[] = "-o",
		    /* max_idle_threads: libfuse 3.14 leaves it unset,
		     * and says so at every start. */
		    opts[] = "allow_other,default_permissions,"
			     "fsname=tichaos-diskfs,max_threads=16,"
			     "max_idle_threads=8";
	char *args[64], trash[PATH_MAX + 8];
	pthread_t thread;
	int n = 0, rc;

	if (argc > 1 && !strcmp(argv[1], "--cache")) {
		fs.cache = 1;
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	if (argc < 5 || argc > 60) {
		fprintf(stderr, "usage: tichaos-diskfs [--cache] BACKING "
			"MOUNTPOINT REPORT CONTROL [FUSE OPTION...]\n");
		return 2;
	}
	if (!realpath(argv[1], fs.backing)) {
		fprintf(stderr, "tichaos-diskfs: '%s': %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	fs.report = open(argv[3], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
			 0644);
	if (fs.report < 0) {
		fprintf(stderr, "tichaos-diskfs: '%s': %s\n", argv[3],
			strerror(errno));
		return 1;
	}
	fs.control = argv[4];
	diskmode_init(&fs.mode);
	/* A delay of 1 ms overslept by the default 50 us of timer slack is
	 * 5% too long: the threads FUSE starts from here sleep exactly. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	snprintf(trash, sizeof(trash), "%s.trash", fs.backing);
	if ((rc = journal_init(&fs.journal, fs.backing, trash))) {
		fprintf(stderr, "tichaos-diskfs: '%s': %s\n", trash,
			strerror(-rc));
		return 1;
	}
	/* SIGUSR1 and SIGUSR2 are the control thread's alone. */
	sigemptyset(&usr);
	sigaddset(&usr, SIGUSR1);
	sigaddset(&usr, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &usr, NULL);
	if (pthread_create(&thread, NULL, signals, &usr)) {
		fprintf(stderr, "tichaos-diskfs: cannot start a thread\n");
		return 1;
	}
	pthread_detach(thread);
	args[n++] = argv[0];
	args[n++] = argv[2];
	args[n++] = foreground;
	args[n++] = opt;
	args[n++] = opts;
	for (int i = 5; i < argc; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	fs.mountpoint = argv[2];
	rc = fuse_main(n, args, &ops, NULL);
	/* libfuse says 8 when a signal ended its loop; an unmount that
	 * wrote everything back is a clean end all the same. */
	return fs.unmounted ? 0 : rc;
}
