/*
 * Directory entries not yet synced, and how to undo them
 * (diskfs/journal.h).
 */
#define _XOPEN_SOURCE 700
#include "diskfs/journal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum jop { J_MADE, J_UNLINK, J_RMDIR, J_RENAME, J_ATTR };

static const char *const op_names[] = { "made", "unlink", "rmdir",
					"rename", "attr" };

struct journal_entry {
	enum jop op;
	char *path;		/* rename: from */
	char *to;		/* rename */
	char *aside;		/* unlink: the file; rename: what `to` named */
	mode_t mode;		/* rmdir, attr */
	struct stat was;	/* attr: its mode, owner and times before */
	char *dirs[2];		/* the directories changed; [1] MAY be NULL */
	int synced[2];
	struct journal_entry *prev, *next;
};

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if ((flag == FTW_DP ? rmdir(path) : unlink(path)) && errno != ENOENT)
		return -1;
	return 0;
}

/* rm -rf `path`: 0 or -1 with errno. */
static int remove_tree(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	return nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static char *at_root(const struct journal *j, const char *path)
{
	return xprintf("%s%s", j->root, path);
}

/* The directory holding `path`: "/a" for "/a/b", "/" for "/b". */
static char *parent_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash || slash == path)
		return xstrdup("/");
	return xprintf("%.*s", (int)(slash - path), path);
}

int journal_init(struct journal *j, const char *root, const char *trash)
{
	memset(j, 0, sizeof(*j));
	if (remove_tree(trash) || mkdir(trash, 0700))
		return -errno;
	j->root = xstrdup(root);
	j->trash = xstrdup(trash);
	return 0;
}

static struct journal_entry *add(struct journal *j, enum jop op,
				 const char *path, const char *to)
{
	struct journal_entry *e = xcalloc(1, sizeof(*e));

	e->op = op;
	e->path = xstrdup(path);
	e->to = to ? xstrdup(to) : NULL;
	e->dirs[0] = parent_of(path);
	if (to) {
		e->dirs[1] = parent_of(to);
		if (!strcmp(e->dirs[0], e->dirs[1])) {
			free(e->dirs[1]);
			e->dirs[1] = NULL;
		}
	}
	e->prev = j->tail;
	if (j->tail)
		j->tail->next = e;
	else
		j->head = e;
	j->tail = e;
	j->pending++;
	return e;
}

static void drop(struct journal *j, struct journal_entry *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		j->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		j->tail = e->prev;
	j->pending--;
	free(e->path);
	free(e->to);
	free(e->aside);
	free(e->dirs[0]);
	free(e->dirs[1]);
	free(e);
}

/* The change is durable: what it moved aside goes for good. */
static void commit(struct journal *j, struct journal_entry *e)
{
	if (e->aside && remove_tree(e->aside))
		fprintf(stderr, "tichaos-diskfs: cannot remove '%s': %s\n",
			e->aside, strerror(errno));
	drop(j, e);
}

void journal_release(struct journal *j)
{
	journal_synced_all(j);
	if (j->trash && rmdir(j->trash) && errno != ENOENT)
		fprintf(stderr, "tichaos-diskfs: cannot remove '%s': %s\n",
			j->trash, strerror(errno));
	free(j->root);
	free(j->trash);
	memset(j, 0, sizeof(*j));
}

void journal_made(struct journal *j, const char *path)
{
	add(j, J_MADE, path, NULL);
}

static char *next_aside(struct journal *j)
{
	return xprintf("%s/%llu", j->trash, j->next_trash++);
}

int journal_unlink(struct journal *j, const char *path)
{
	char *bp = at_root(j, path), *aside = next_aside(j);
	struct stat st;
	int rc = 0;

	if (lstat(bp, &st))
		rc = -errno;
	else if (S_ISDIR(st.st_mode))
		rc = -EISDIR;
	else if (rename(bp, aside))
		rc = -errno;
	if (!rc)
		add(j, J_UNLINK, path, NULL)->aside = aside;
	else
		free(aside);
	free(bp);
	return rc;
}

int journal_attr(struct journal *j, const char *path)
{
	char *bp = at_root(j, path);
	struct journal_entry *e;
	struct stat st;
	int rc = 0;

	if (lstat(bp, &st)) {
		rc = -errno;
	} else {
		e = add(j, J_ATTR, path, NULL);
		/* Its own sync makes it durable, not its directory's. */
		free(e->dirs[0]);
		e->dirs[0] = xstrdup(path);
		e->was = st;
	}
	free(bp);
	return rc;
}

int journal_rmdir(struct journal *j, const char *path)
{
	char *bp = at_root(j, path);
	struct stat st;
	int rc = 0;

	if (lstat(bp, &st) || rmdir(bp))
		rc = -errno;
	else
		add(j, J_RMDIR, path, NULL)->mode = st.st_mode & 07777;
	free(bp);
	return rc;
}

/* Whether the directory `path` has anything in it. */
static int has_entries(const char *path)
{
	DIR *dir = opendir(path);
	struct dirent *d;
	int found = 0;

	if (!dir)
		return 0;
	while (!found && (d = readdir(dir)))
		found = strcmp(d->d_name, ".") && strcmp(d->d_name, "..");
	closedir(dir);
	return found;
}

int journal_rename(struct journal *j, const char *from, const char *to)
{
	char *bf = at_root(j, from), *bt = at_root(j, to), *aside = NULL;
	struct stat sf, st;
	int rc = 0;

	if (lstat(bf, &sf)) {
		rc = -errno;
		goto out;
	}
	if (!lstat(bt, &st) && !(st.st_dev == sf.st_dev &&
				 st.st_ino == sf.st_ino)) {
		/* What rename(2) refuses, refused before `to` moves. */
		if (S_ISDIR(sf.st_mode) && !S_ISDIR(st.st_mode))
			rc = -ENOTDIR;
		else if (!S_ISDIR(sf.st_mode) && S_ISDIR(st.st_mode))
			rc = -EISDIR;
		else if (S_ISDIR(st.st_mode) && has_entries(bt))
			rc = -ENOTEMPTY;
		if (rc)
			goto out;
		aside = next_aside(j);
		if (rename(bt, aside)) {
			rc = -errno;
			goto out;
		}
	}
	if (rename(bf, bt)) {
		rc = -errno;
		if (aside && rename(aside, bt))
			fprintf(stderr, "tichaos-diskfs: cannot move '%s' "
				"back to '%s': %s\n", aside, bt,
				strerror(errno));
		goto out;
	}
	add(j, J_RENAME, from, to)->aside = aside;
	aside = NULL;
out:
	free(aside);
	free(bf);
	free(bt);
	return rc;
}

void journal_synced(struct journal *j, const char *dir)
{
	for (struct journal_entry *e = j->head, *next; e; e = next) {
		next = e->next;
		for (int k = 0; k < 2; k++)
			if (e->dirs[k] && !strcmp(e->dirs[k], dir))
				e->synced[k] = 1;
		if (e->synced[0] && (!e->dirs[1] || e->synced[1]))
			commit(j, e);
	}
}

void journal_synced_all(struct journal *j)
{
	while (j->head)
		commit(j, j->head);
}

/* Undo `e`: 0, or -1 with errno. */
static int undo(struct journal *j, struct journal_entry *e)
{
	char *bp = at_root(j, e->path), *bt = e->to ? at_root(j, e->to)
						     : NULL;
	int rc = 0;

	switch (e->op) {
	case J_MADE:
		rc = remove_tree(bp);
		break;
	case J_UNLINK:
		rc = rename(e->aside, bp);
		break;
	case J_RMDIR:
		rc = mkdir(bp, e->mode);
		break;
	case J_RENAME:
		rc = rename(bt, bp);
		if (!rc && e->aside)
			rc = rename(e->aside, bt);
		break;
	case J_ATTR: {
		struct timespec ts[2] = { e->was.st_atim, e->was.st_mtim };

		/* The owner first: chown(2) may clear set-user-ID. */
		rc = lchown(bp, e->was.st_uid, e->was.st_gid) ||
		     (!S_ISLNK(e->was.st_mode) &&
		      chmod(bp, e->was.st_mode & 07777)) ||
		     utimensat(AT_FDCWD, bp, ts, AT_SYMLINK_NOFOLLOW) ? -1 : 0;
		break;
	}
	}
	free(bp);
	free(bt);
	return rc;
}

void journal_lose(struct journal *j, struct buf *report, size_t *n)
{
	*n = 0;
	while (j->tail) {
		struct journal_entry *e = j->tail;

		if (undo(j, e))
			buf_printf(report, NULL, "lost-entry-failed %s %s%s%s: "
				   "%s\n", op_names[e->op], e->path,
				   e->to ? " " : "", e->to ? e->to : "",
				   strerror(errno));
		else
			buf_printf(report, NULL, "lost-entry %s %s%s%s\n",
				   op_names[e->op], e->path, e->to ? " " : "",
				   e->to ? e->to : "");
		(*n)++;
		/* What an undone unlink or rename had aside is back. */
		free(e->aside);
		e->aside = NULL;
		drop(j, e);
	}
}
