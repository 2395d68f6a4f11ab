/*
 * Classes of net_cls and the cuts between them (lib/netcls.h).
 */
#include "lib/netcls.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/nettool.h"
#include "lib/parse.h"
#include "lib/proc.h"

void netcls_name(uint32_t tag, const char *component, char *out, size_t size)
{
	snprintf(out, size, "tichaos-%08x-%s", (unsigned)tag, component);
}

/*
 * The mount point of the net_cls hierarchy into `out`: 1, or 0 (none).
 * Once found it is kept: the hierarchy stays mounted (lib/netcls.h), and
 * a heal's probes, threads of their own, must not lose their classes to
 * a read of /proc/self/mounts that misses the line while other mounts
 * come and go. Lines are read whole (an overlay's can be kilobytes).
 */
static int hierarchy(char *out, size_t size)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static char found_dir[512];
	FILE *f;
	char *line = NULL, dir[512], type[64], options[512];
	size_t cap = 0;
	int found;

	pthread_mutex_lock(&lock);
	found = found_dir[0] != '\0';
	f = found ? NULL : fopen("/proc/self/mounts", "re");
	while (f && !found && getline(&line, &cap, f) > 0)
		found = sscanf(line, "%*s %511s %63s %511s", dir, type,
			       options) == 3 && !strcmp(type, "cgroup") &&
			list_has(options, ',', "net_cls");
	if (f && found)
		snprintf(found_dir, sizeof(found_dir), "%s", dir);
	if (f)
		fclose(f);
	free(line);
	if (found)
		snprintf(out, size, "%s", found_dir);
	pthread_mutex_unlock(&lock);
	return found;
}

/* The hierarchy, mounted at NETCLS_MOUNT when it is nowhere. */
static int mounted(char *out, size_t size, struct err *e)
{
	if (hierarchy(out, size))
		return 0;
	if (mkdir("/run/tichaos", 0755) && errno != EEXIST)
		return err_errno(e, errno, "cannot make /run/tichaos");
	if (mkdir(NETCLS_MOUNT, 0755) && errno != EEXIST)
		return err_errno(e, errno, "cannot make " NETCLS_MOUNT);
	/* Another run may have mounted it meanwhile: then it is found. */
	if (mount("net_cls", NETCLS_MOUNT, "cgroup", 0, "net_cls") &&
	    !hierarchy(out, size))
		return err_errno(e, errno, "cannot mount cgroup v1's net_cls "
				 "controller at " NETCLS_MOUNT);
	return hierarchy(out, size) ? 0
		: err_set(e, ERR_INFRA, "net_cls was mounted at "
			  NETCLS_MOUNT " but is not in /proc/self/mounts");
}

int netcls_usable(struct err *e)
{
	char root[512], *nft;

	if (geteuid() != 0)
		return err_set(e, ERR_INFRA, "not root (classes of net_cls "
			       "and nftables need it)");
	nft = find_program("nft");
	free(nft);
	if (!nft)
		return err_set(e, ERR_INFRA, "'nft' not found (install "
			       "nftables, or run 'make deps')");
	return mounted(root, sizeof(root), e);
}

int netcls_dir(const char *name, char *out, size_t size)
{
	char root[512];
	struct stat st;

	if (!hierarchy(root, sizeof(root)))
		return 0;
	snprintf(out, size, "%s/%s", root, name);
	return !stat(out, &st) && S_ISDIR(st.st_mode);
}

/* Write `text` to file `path` (a cgroup's), at once. */
static int write_text(const char *path, const char *text, struct err *e)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int saved;

	if (fd < 0)
		return err_errno(e, errno, "cannot open %s", path);
	n = write(fd, text, strlen(text));
	saved = errno;
	close(fd);
	if (n == (ssize_t)strlen(text))
		return 0;
	return err_errno(e, n < 0 ? saved : EIO, "cannot write '%s' to %s",
			 text, path);
}

/* Process `pid` and those below it, into a malloc'd array of *n. */
static pid_t *tree_of(pid_t pid, size_t *n)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t *all = NULL, *parents = NULL, *tree;
	size_t nall = 0, cap = 0;

	while (d && (de = readdir(d))) {
		char *end;
		long p = strtol(de->d_name, &end, 10);

		if (*end || p <= 0)
			continue;
		if (nall == cap) {
			cap = cap ? cap * 2 : 256;
			all = xrealloc(all, cap * sizeof(*all));
			parents = xrealloc(parents, cap * sizeof(*parents));
		}
		all[nall] = (pid_t)p;
		parents[nall++] = proc_parent((pid_t)p);
	}
	if (d)
		closedir(d);
	tree = xcalloc(nall + 1, sizeof(*tree));
	tree[0] = pid;
	*n = 1;
	/* Breadth first: each found process's children after it. */
	for (size_t at = 0; at < *n; at++)
		for (size_t i = 0; i < nall; i++)
			if (parents[i] == tree[at] && all[i] != pid &&
			    *n < nall + 1)
				tree[(*n)++] = all[i];
	free(all);
	free(parents);
	return tree;
}

int netcls_join(const struct netcls_host *h, pid_t pid, struct err *e)
{
	char dir[640], path[700], text[32], root[512];
	size_t n = 0;
	pid_t *tree;
	int rc = 0;

	/* Root and nft were asked for once, before the run (resolve). */
	if (mounted(root, sizeof(root), e))
		return -1;
	netcls_dir(h->name, dir, sizeof(dir));
	if (mkdir(dir, 0755) && errno != EEXIST)
		return err_errno(e, errno, "cannot make class %s", dir);
	snprintf(path, sizeof(path), "%s/net_cls.classid", dir);
	snprintf(text, sizeof(text), "%u", (unsigned)h->classid);
	if (write_text(path, text, e))
		return -1;
	if (pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	tree = tree_of(pid, &n);
	for (size_t i = 0; !rc && i < n; i++) {
		struct err one = ERR_INIT;

		snprintf(text, sizeof(text), "%ld", (long)tree[i]);
		/* One that exited meanwhile sends nothing. */
		if (write_text(path, text, &one) && proc_alive(tree[i]))
			rc = (*e = one, -1);
	}
	free(tree);
	return rc;
}

/* A listening socket of /proc/net/tcp*: its inode and port. */
struct listening {
	unsigned long inode;
	int port;
};

static int by_inode(const void *a, const void *b)
{
	const struct listening *x = a, *y = b;

	return x->inode < y->inode ? -1 : x->inode > y->inode;
}

/*
 * The listening sockets of /proc/net/tcp and tcp6, sorted by inode, into
 * a malloc'd array of *n: read once, however many sockets the processes
 * hold (a TiDB or TiKV holds hundreds, and the tables of a busy machine
 * have thousands of lines: matching each socket against every line took
 * a partition 87 s to place on a real cluster).
 */
static struct listening *listening_sockets(size_t *n, struct err *e)
{
	const char *files[] = { "/proc/net/tcp", "/proc/net/tcp6" };
	struct listening *all = NULL;
	size_t cap = 0;

	*n = 0;
	for (size_t i = 0; i < 2; i++) {
		FILE *f = fopen(files[i], "re");
		char line[512];

		if (!f && i == 0) {
			err_errno(e, errno, "cannot read %s", files[i]);
			return NULL;
		}
		/* "sl local rem st tx:rx tr:when retrnsmt uid timeout
		 * inode": local is ADDRESS:PORT in hex; 0A is LISTEN. */
		while (f && fgets(line, sizeof(line), f)) {
			unsigned port, state;
			unsigned long ino;

			if (sscanf(line, " %*s %*[0-9A-Fa-f]:%x %*s %x %*s "
				   "%*s %*s %*s %*s %lu", &port, &state,
				   &ino) != 3 || state != 0x0A)
				continue;
			if (*n == cap) {
				cap = cap ? cap * 2 : 64;
				all = xrealloc(all, cap * sizeof(*all));
			}
			all[(*n)++] = (struct listening){ ino, (int)port };
		}
		if (f)
			fclose(f);
	}
	if (*n)
		qsort(all, *n, sizeof(*all), by_inode);
	return all ? all : xcalloc(1, sizeof(*all));
}

static int by_number(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* The sockets of process `pid` that listen, into h->ports. */
static void ports_of_process(struct netcls_host *h, pid_t pid,
			     const struct listening *socks, size_t nsocks)
{
	char path[64], link[64];
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%ld/fd", (long)pid);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		char fd_path[320];
		struct listening key = { 0, 0 };
		const struct listening *l;
		ssize_t n;
		size_t k;

		snprintf(fd_path, sizeof(fd_path), "%s/%s", path, de->d_name);
		n = readlink(fd_path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (sscanf(link, "socket:[%lu]", &key.inode) != 1 ||
		    !(l = bsearch(&key, socks, nsocks, sizeof(*socks),
				  by_inode)))
			continue;
		for (k = 0; k < h->nports && h->ports[k] != l->port; k++)
			;
		if (k == h->nports && h->nports < NETCLS_MAX_PORTS)
			h->ports[h->nports++] = l->port;
	}
	if (d)
		closedir(d);
}

int netcls_ports(struct netcls_host *h, pid_t pid, struct err *e)
{
	size_t n = 0, nsocks;
	struct listening *socks = listening_sockets(&nsocks, e);
	pid_t *tree;

	if (!socks)
		return -1;
	h->nports = 0;
	tree = tree_of(pid, &n);
	for (size_t i = 0; i < n; i++)
		ports_of_process(h, tree[i], socks, nsocks);
	free(tree);
	free(socks);
	qsort(h->ports, h->nports, sizeof(*h->ports), by_number);
	return 0;
}

/* The rules of cut `id` of host `h` against classes `from` into `out`. */
static void cut_rules(const struct netcls_host *h, int id,
		      const struct netcls_host *const *from, size_t nfrom,
		      struct buf *out)
{
	const char *t = h->name;

	buf_printf(out, NULL, "; add chain inet %s c%d { type filter hook "
		   "output priority 0; policy accept; }; add rule inet %s c%d "
		   "meta cgroup { ", t, id, t, id);
	for (size_t i = 0; i < nfrom; i++)
		buf_printf(out, NULL, "%s0x%08x", i ? ", " : "",
			   (unsigned)from[i]->classid);
	/* What they send on a connection h sent on: to h. */
	buf_printf(out, NULL, " } ct label %u counter drop",
		   NETCLS_LABEL(h->classid));
	if (!h->nports)
		return;
	/* What they send to h's ports: to h, before h sent anything. */
	buf_printf(out, NULL, "; add rule inet %s c%d meta cgroup { ", t, id);
	for (size_t i = 0; i < nfrom; i++)
		buf_printf(out, NULL, "%s0x%08x", i ? ", " : "",
			   (unsigned)from[i]->classid);
	buf_addstr(out, " } th dport { ", NULL);
	for (size_t i = 0; i < h->nports; i++)
		buf_printf(out, NULL, "%s%d", i ? ", " : "", h->ports[i]);
	buf_addstr(out, " } counter drop", NULL);
}

/* The last cut of h's table removed: the table goes too. */
static int drop_empty_table(const struct netcls_host *h, struct err *e)
{
	struct buf text = BUF_INIT;
	char *table = xprintf("inet %s", h->name);
	int rc = nettool_list_table(NULL, table, &text, e) < 0 ? -1 : 0;

	if (!rc && text.len && !strstr(buf_str(&text), "chain c")) {
		buf_reset(&text);
		buf_printf(&text, NULL, "delete table %s", table);
		rc = nettool_nft(NULL, buf_str(&text), NULL, e);
	}
	buf_release(&text);
	free(table);
	return rc;
}

int netcls_cut(const struct netcls_host *h, int id,
	       const struct netcls_host *const *from, size_t nfrom,
	       struct err *e)
{
	struct buf script = BUF_INIT;
	const char *t = h->name;
	unsigned label = NETCLS_LABEL(h->classid);
	int rc;

	if (label > 127)
		return err_set(e, ERR_INFRA, "%s: class %u is beyond the 127 "
			       "that a connection's labels tell apart", t,
			       label);
	/* Made if missing, so that the delete always has something; h's
	 * label on what it sends, before any cut looks at it. */
	buf_printf(&script, NULL, "add table inet %s; add chain inet %s m "
		   "{ type filter hook output priority -10; policy accept; }; "
		   "flush chain inet %s m; add rule inet %s m meta cgroup "
		   "0x%08x ct label set %u; add chain inet %s c%d { type "
		   "filter hook output priority 0; policy accept; }; delete "
		   "chain inet %s c%d", t, t, t, t, (unsigned)h->classid,
		   label, t, id, t, id);
	if (nfrom)
		cut_rules(h, id, from, nfrom, &script);
	rc = nettool_nft(NULL, buf_str(&script), NULL, e);
	if (!rc && !nfrom)
		rc = drop_empty_table(h, e);
	buf_release(&script);
	return rc;
}

/* The classids of the drop rules' "meta cgroup N" and "meta cgroup { N,
 * M }" in a listing, each once. */
static void classes_dropped(const char *text, struct buf *out)
{
	for (const char *line = text; line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		size_t len = strcspn(line, "\n");
		const char *p = strstr(line, "meta cgroup "), *end;

		if (!p || p > line + len || len < 5 ||
		    strncmp(line + len - 5, " drop", 5))
			continue;
		p += 12;
		end = *p == '{' ? strchr(p, '}') : p + strcspn(p, " \n");
		while (end && p < end) {
			char *after, id[16];
			unsigned long n = strtoul(p, &after, 0);

			if (after == p) {
				p++;
				continue;
			}
			snprintf(id, sizeof(id), "0x%08lx", n);
			if (!strstr(buf_str(out), id))
				buf_printf(out, NULL, "%s%s", out->len ? " "
					   : "", id);
			p = after;
		}
	}
}

int netcls_cut_of(const char *name, struct buf *out, struct err *e)
{
	struct buf text = BUF_INIT;
	char *table = xprintf("inet %s", name);
	int rc;

	buf_reset(out);
	rc = nettool_list_table(NULL, table, &text, e);
	if (rc == 1)
		classes_dropped(buf_str(&text), out);
	buf_release(&text);
	free(table);
	return rc < 0 ? -1 : 0;
}

static int remove_tables(const char *prefix, struct buf *found,
			 struct err *e)
{
	struct buf list = BUF_INIT, cmd = BUF_INIT;
	char want[128];
	int rc;

	snprintf(want, sizeof(want), "table inet %s", prefix);
	rc = nettool_nft(NULL, "list tables", &list, e);
	for (const char *p = strstr(buf_str(&list), want); !rc && p;
	     p = strstr(p + 1, want)) {
		size_t len = strcspn(p + 11, " \n");

		buf_reset(&cmd);
		buf_printf(&cmd, NULL, "delete table inet %.*s", (int)len,
			   p + 11);
		rc = nettool_nft(NULL, buf_str(&cmd), NULL, e);
		if (found)
			buf_printf(found, NULL, "%s%.*s", found->len ? " " : "",
				   (int)len, p + 11);
	}
	buf_release(&list);
	buf_release(&cmd);
	return rc;
}

/* Class directory `dir`'s processes to `root`, then the class gone. */
static int remove_class(const char *root, const char *dir, struct err *e)
{
	char path[1100], line[32];
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "re");
	snprintf(path, sizeof(path), "%s/cgroup.procs", root);
	while (f && !rc && fgets(line, sizeof(line), f)) {
		struct err one = ERR_INIT, bad = ERR_INIT;
		int64_t pid;

		line[strcspn(line, "\n")] = '\0';
		if (write_text(path, line, &one) &&
		    !parse_int64(line, 1, INT32_MAX, &pid, &bad) &&
		    proc_alive((pid_t)pid))
			rc = (*e = one, -1);
	}
	if (f)
		fclose(f);
	if (!rc && rmdir(dir))
		rc = err_errno(e, errno, "cannot remove class %s", dir);
	return rc;
}

int netcls_remove(const char *prefix, struct buf *tables, struct buf *classes,
		  struct err *e)
{
	char root[512], dir[1024];
	DIR *d;
	struct dirent *de;
	int rc;
	char *nft = find_program("nft");

	free(nft);
	/* Not root: nothing of ours can be there. */
	if (geteuid() != 0)
		return 0;
	rc = nft ? remove_tables(prefix, tables, e) : 0;
	d = !rc && hierarchy(root, sizeof(root)) ? opendir(root) : NULL;
	while (d && !rc && (de = readdir(d))) {
		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", root, de->d_name);
		rc = remove_class(root, dir, e);
		if (classes)
			buf_printf(classes, NULL, "%s%s", classes->len ? " "
				   : "", de->d_name);
	}
	if (d)
		closedir(d);
	return rc;
}

/* The calling thread's net_cls class directory, into `out`. */
static int class_of_thread(char *out, size_t size, struct err *e)
{
	FILE *f = fopen("/proc/thread-self/cgroup", "re");
	char line[1024], root[512];
	int found = 0;

	if (!hierarchy(root, sizeof(root)))
		return err_set(e, ERR_INFRA, "no net_cls hierarchy");
	while (f && !found && fgets(line, sizeof(line), f)) {
		char *controllers = strchr(line, ':'), *path;

		path = controllers ? strchr(controllers + 1, ':') : NULL;
		if (!path)
			continue;
		*path++ = '\0';
		path[strcspn(path, "\n")] = '\0';
		found = list_has(controllers + 1, ',', "net_cls");
		if (found)
			snprintf(out, size, "%s%s", root,
				 strcmp(path, "/") ? path : "");
	}
	if (f)
		fclose(f);
	return found ? 0 : err_set(e, ERR_INFRA, "this thread has no "
				   "net_cls class");
}

int netcls_enter(const char *name, char *saved, size_t size, struct err *e)
{
	char dir[640], path[700];

	saved[0] = '\0';
	if (!name || !*name)
		return 0;
	if (!netcls_dir(name, dir, sizeof(dir)))
		return err_set(e, ERR_INFRA, "no class %s", name);
	if (class_of_thread(saved, size, e))
		return -1;
	snprintf(path, sizeof(path), "%s/tasks", dir);
	if (write_text(path, "0", e)) {
		saved[0] = '\0';
		return -1;
	}
	return 0;
}

void netcls_leave(const char *saved)
{
	char path[1100];

	if (!saved[0])
		return;
	snprintf(path, sizeof(path), "%s/tasks", saved);
	/* A thread left in a class would send its sockets as another
	 * host's: nothing is safe then. */
	if (write_text(path, "0", NULL))
		abort();
}
