/*
 * diskfs/journal.c against a model, on a real directory: random creates,
 * unlinks and renames (onto free and onto taken names) in two
 * directories, random syncs of either, and losses. After every loss each
 * directory lists exactly what it listed when it was last synced, each
 * name with the file it had then (the files tell themselves apart by
 * their content); nothing waits in the trash. Then the cases a model of
 * one directory does not reach: a rename across two directories, durable
 * only once both are synced; a directory made and filled; rmdir undone;
 * an unlink synced gone for good; "ordered" (everything synced at once);
 * a release that keeps everything; a file's mode and times put back
 * unless the file itself was synced.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diskfs/journal.h"
#include "lib/buf.h"
#include "lib/rand.h"
#include "tests/unit/tap.h"
#include "tests/unit/tmpdir.h"

#define NAMES 6
#define STEPS 4000

/* What a directory lists: for each name, the id of its file (0: none). */
struct listing {
	int id[NAMES];
};

static char root[600], trash[700];

static void path_of(int dir, int name, char *out, size_t size, int backing)
{
	snprintf(out, size, "%s%s/n%d", backing ? root : "",
		 dir ? "/d" : "", name);
}

/* The listing of directory `dir` as the disk has it. */
static int read_listing(int dir, struct listing *l)
{
	char p[800], text[32];

	for (int n = 0; n < NAMES; n++) {
		FILE *f;

		path_of(dir, n, p, sizeof(p), 1);
		f = fopen(p, "r");
		l->id[n] = 0;
		if (!f)
			continue;
		if (fgets(text, sizeof(text), f))
			l->id[n] = (int)strtol(text, NULL, 10);
		fclose(f);
		if (!l->id[n])
			return -1;
	}
	return 0;
}

static int trash_empty(void)
{
	DIR *d = opendir(trash);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n == 0;
}

static void model(void)
{
	struct journal j;
	struct rand r;
	struct listing now[2], durable[2], got;
	struct buf report = BUF_INIT;
	int next_id = 1, losses = 0, bad = 0, ops[3] = { 0, 0, 0 };
	char p[800], q[800];

	memset(now, 0, sizeof(now));
	memset(durable, 0, sizeof(durable));
	snprintf(p, sizeof(p), "%s/d", root);
	if (mkdir(p, 0755))
		abort();
	ok(!journal_init(&j, root, trash), "a journal over a directory");
	rand_seed(&r, 39);
	for (int step = 0; step < STEPS && !bad; step++) {
		int dir = (int)rand_below(&r, 2), a = (int)rand_below(&r, NAMES),
		    b = (int)rand_below(&r, NAMES);
		size_t undone;
		FILE *f;

		switch (rand_below(&r, 10)) {
		case 0: case 1: case 2:	/* create, where free */
			if (now[dir].id[a])
				break;
			path_of(dir, a, p, sizeof(p), 1);
			f = fopen(p, "w");
			if (!f)
				abort();
			fprintf(f, "%d\n", next_id);
			fclose(f);
			now[dir].id[a] = next_id++;
			path_of(dir, a, p, sizeof(p), 0);
			journal_made(&j, p);
			ops[0]++;
			break;
		case 3: case 4:		/* unlink */
			if (!now[dir].id[a])
				break;
			path_of(dir, a, p, sizeof(p), 0);
			bad |= journal_unlink(&j, p) != 0;
			now[dir].id[a] = 0;
			ops[1]++;
			break;
		case 5: case 6:		/* rename, onto a free or taken name */
			if (!now[dir].id[a] || a == b)
				break;
			path_of(dir, a, p, sizeof(p), 0);
			path_of(dir, b, q, sizeof(q), 0);
			bad |= journal_rename(&j, p, q) != 0;
			now[dir].id[b] = now[dir].id[a];
			now[dir].id[a] = 0;
			ops[2]++;
			break;
		case 7: case 8:		/* a sync of the directory */
			journal_synced(&j, dir ? "/d" : "/");
			durable[dir] = now[dir];
			break;
		case 9:			/* a loss, now and then */
			if (rand_below(&r, 8))
				break;
			buf_reset(&report);
			journal_lose(&j, &report, &undone);
			losses++;
			now[0] = durable[0];
			now[1] = durable[1];
			for (int k = 0; k < 2; k++)
				bad |= read_listing(k, &got) ||
				       memcmp(&got, &durable[k], sizeof(got));
			bad |= !trash_empty() ||
			       strstr(buf_str(&report), "failed") != NULL;
			if (bad)
				diag("step %d: %s", step, buf_str(&report));
			break;
		}
	}
	ok(!bad, "%d creates, %d unlinks, %d renames, %d losses: each "
	   "directory as last synced, the trash empty", ops[0], ops[1],
	   ops[2], losses);
	ok(losses > 20 && ops[2] > 200, "  enough of each");
	journal_release(&j);
	buf_release(&report);
}

static int exists(const char *rel)
{
	char p[800];
	struct stat st;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	return !lstat(p, &st);
}

static void touch(const char *rel)
{
	char p[800];
	int fd;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	if (fd < 0)
		abort();
	close(fd);
}

static void cases(void)
{
	struct journal j;
	struct buf report = BUF_INIT;
	char p[800];
	size_t n;

	ok(!journal_init(&j, root, trash), "a journal again");
	snprintf(p, sizeof(p), "%s/e", root);
	mkdir(p, 0755);
	journal_made(&j, "/e");
	touch("/e/f");
	journal_made(&j, "/e/f");
	journal_synced(&j, "/e");
	journal_lose(&j, &report, &n);
	is_str(buf_str(&report), "lost-entry made /e\n",
	       "a directory made, its file synced in it, the directory not: "
	       "the directory goes, with its file");
	is_int(n, 1, "  one entry undone");
	ok(!exists("/e"), "  gone");

	touch("/x");
	journal_made(&j, "/x");
	journal_synced(&j, "/");
	ok(!journal_rename(&j, "/x", "/d/x"), "a rename across two directories");
	journal_synced(&j, "/d");
	buf_reset(&report);
	journal_lose(&j, &report, &n);
	is_str(buf_str(&report), "lost-entry rename /x /d/x\n",
	       "  only the target synced: undone");
	ok(exists("/x") && !exists("/d/x"), "  back where it was");
	ok(!journal_rename(&j, "/x", "/d/x"), "  again");
	journal_synced(&j, "/d");
	journal_synced(&j, "/");
	buf_reset(&report);
	journal_lose(&j, &report, &n);
	is_str(buf_str(&report), "", "  both synced: it stays");
	ok(!exists("/x") && exists("/d/x"), "  where it went");

	snprintf(p, sizeof(p), "%s/g", root);
	mkdir(p, 0750);
	journal_synced(&j, "/");
	ok(!journal_rmdir(&j, "/g"), "rmdir");
	buf_reset(&report);
	journal_lose(&j, &report, &n);
	is_str(buf_str(&report), "lost-entry rmdir /g\n", "  undone");
	{
		struct stat st;

		ok(!stat(p, &st) && S_ISDIR(st.st_mode) &&
		   (st.st_mode & 07777) == 0750, "  made again, mode 0750");
	}
	ok(journal_rmdir(&j, "/nothing") == -ENOENT, "rmdir of nothing: "
	   "ENOENT");
	ok(journal_unlink(&j, "/g") == -EISDIR, "unlink of a directory: "
	   "EISDIR");
	touch("/g/in");
	ok(journal_rename(&j, "/d/x", "/g") == -EISDIR &&
	   journal_rename(&j, "/d", "/g") == -ENOTEMPTY,
	   "rename onto a directory: EISDIR, ENOTEMPTY; nothing moved");
	ok(exists("/d/x") && exists("/g/in") && trash_empty(), "  as it was");

	ok(!journal_unlink(&j, "/d/x") && !trash_empty(),
	   "an unlink: the file waits in the trash");
	journal_synced(&j, "/d");
	ok(trash_empty() && !exists("/d/x"), "  synced: gone for good");

	touch("/o1");
	journal_made(&j, "/o1");
	touch("/d/o2");
	journal_made(&j, "/d/o2");
	is_int(j.pending, 2, "two pending");
	journal_synced_all(&j);
	is_int(j.pending, 0, "ordered: every one synced at once");
	touch("/kept");
	journal_made(&j, "/kept");
	journal_unlink(&j, "/o1");
	journal_release(&j);
	ok(exists("/kept") && !exists("/o1") && access(trash, F_OK),
	   "a release keeps every change; the trash goes");
	buf_release(&report);
}

/* `rel`'s mode bits and mtime (seconds) as "MODE MTIME". */
static void attrs_of(const char *rel, char *out, size_t size)
{
	char p[800];
	struct stat st;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	if (stat(p, &st))
		snprintf(out, size, "gone");
	else
		snprintf(out, size, "%o %lld", (unsigned)(st.st_mode & 07777),
			 (long long)st.st_mtim.tv_sec);
}

/* Set `rel`'s mode and mtime (journal_attr first, as tichaos-diskfs
 * does before chmod and utimens). */
static void set_attrs(struct journal *j, const char *rel, mode_t mode,
		      time_t mtime)
{
	char p[800];
	struct timespec ts[2] = { { mtime, 0 }, { mtime, 0 } };

	snprintf(p, sizeof(p), "%s%s", root, rel);
	if (journal_attr(j, rel) || chmod(p, mode) ||
	    journal_attr(j, rel) || utimensat(AT_FDCWD, p, ts, 0))
		abort();
}

/* A file's mode and times: put back by a loss unless the file itself
 * (or, for a directory, it) was synced since. */
static void attr_cases(void)
{
	struct journal j;
	struct buf report = BUF_INIT;
	char before[64], now[64];
	size_t n;

	ok(!journal_init(&j, root, trash), "a journal for attributes");
	touch("/a");
	journal_made(&j, "/a");
	journal_synced(&j, "/");
	set_attrs(&j, "/a", 0600, 1000000000);
	attrs_of("/a", before, sizeof(before));
	is_str(before, "600 1000000000", "mode and mtime set");
	journal_synced(&j, "/a");
	set_attrs(&j, "/a", 0640, 1100000000);
	journal_synced(&j, "/");
	journal_lose(&j, &report, &n);
	attrs_of("/a", now, sizeof(now));
	is_str(now, "600 1000000000", "a loss puts back what the file's "
	       "own sync made durable; its directory's sync does not");
	is_str(buf_str(&report), "lost-entry attr /a\nlost-entry attr /a\n",
	       "  both changes of the last undone, last first");
	is_int(n, 2, "  two entries");
	ok(journal_attr(&j, "/none") == -ENOENT, "attr of nothing: ENOENT");
	set_attrs(&j, "/a", 0644, 1200000000);
	journal_synced_all(&j);
	buf_reset(&report);
	journal_lose(&j, &report, &n);
	attrs_of("/a", now, sizeof(now));
	is_str(now, "644 1200000000", "ordered: any sync keeps them");
	journal_release(&j);
	buf_release(&report);
}

int main(void)
{
	struct tmpdir t;

	if (tmpdir_create(&t))
		abort();
	snprintf(root, sizeof(root), "%s/back", t.dir);
	snprintf(trash, sizeof(trash), "%s/back.trash", t.dir);
	if (mkdir(root, 0755))
		abort();
	model();
	cases();
	attr_cases();
	tmpdir_remove(&t);
	return done_testing();
}
