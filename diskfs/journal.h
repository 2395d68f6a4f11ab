#ifndef TICHAOS_JOURNAL_H
#define TICHAOS_JOURNAL_H

/*
 * Directory entries not yet synced, for tichaos-diskfs (diskfs/main.c),
 * and a file's mode, owner and times (journal_attr):
 * a create, mkdir, link, symlink, unlink, rmdir or rename changes the
 * backing directory at once (every reader sees it), and is kept here
 * with how to undo it until each directory it changed is synced
 * (fsync on the directory: POSIX makes an entry durable no other way).
 * A power loss undoes every change not synced, last first: what a
 * directory lists is then what it listed when it was last synced, as
 * far as these changes go.
 *
 * To be undone, an unlink moves the file aside into TRASH (a directory
 * on the backing directory's file system, outside it) rather than
 * removing it, and so does a rename onto a name that was taken; once
 * the change is synced, what was moved aside is removed for good.
 *
 * A change is kept under the names it had: a directory renamed after
 * a change in it, then synced under its new name, leaves the change
 * pending until the loss or the unmount.
 *
 * Not thread-safe: the caller holds one lock over every call.
 */

#include <stddef.h>
#include <sys/types.h>

#include "lib/buf.h"

struct journal_entry;

struct journal {
	char *root;		/* the backing directory */
	char *trash;		/* where unlinked files wait */
	unsigned long long next_trash;
	struct journal_entry *head, *tail;	/* oldest first */
	size_t pending;
};

/*
 * A journal over the backing directory `root`, the files it moves aside
 * in `trash` (made when missing; what is in it already is removed).
 * -errno.
 */
int journal_init(struct journal *j, const char *root, const char *trash);

/* Every change taken as synced (a clean unmount), then let go. */
void journal_release(struct journal *j);

/*
 * `path` (from the mount's root, "/a/b") was just made: a file, a
 * directory, a link or a symlink. Undone by removing it (a directory
 * with what is below it).
 */
void journal_made(struct journal *j, const char *path);

/* Unlink `path`: moved aside, to be undone. 0 or -errno. */
int journal_unlink(struct journal *j, const char *path);

/*
 * The mode, owner or times of `path` are about to change (chmod, chown,
 * utimens): what they are now kept, and put back by a loss unless
 * `path` itself was synced since (journal_synced on it: fsync of the
 * file, not fdatasync, which need not write them; fsync of the
 * directory). 0 or -errno.
 */
int journal_attr(struct journal *j, const char *path);

/* Remove the empty directory `path`; undone by making it again. */
int journal_rmdir(struct journal *j, const char *path);

/* Rename `from` to `to` (what `to` named moved aside). 0 or -errno. */
int journal_rename(struct journal *j, const char *from, const char *to);

/* The directory `dir` was synced: what it lists now is durable, and its
 * own attributes; or the file `dir` (fsync): its attributes. */
void journal_synced(struct journal *j, const char *dir);

/* Every change so far durable (a journaling file system's commit). */
void journal_synced_all(struct journal *j);

/*
 * A power loss: every change not synced undone, last first, each said
 * in `report` as "lost-entry OP PATH[ PATH]" (OP: made, unlink, rmdir,
 * rename, attr). A change that cannot be undone is said as "lost-entry-failed
 * OP PATH: WHY". The count undone into *n.
 */
void journal_lose(struct journal *j, struct buf *report, size_t *n);

#endif
