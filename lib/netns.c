#include "netns.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/netcls.h"
#include "lib/proc.h"

#define NS_PREFIX "tichaos-"
#define NS_DIR "/run/netns"
/* 198.18.0.0/15, in host order. */
#define NET_BASE 0xC6120000u
#define NET_SIZE 16u

static void format_addr(uint32_t a, char *out, size_t size)
{
	snprintf(out, size, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255,
		 (a >> 8) & 255, a & 255);
}

void netns_plan(struct netns_net *net, int tag, const char *const *names)
{
	uint32_t first = NET_BASE + (uint32_t)(tag / 10) * NET_SIZE;

	memset(net, 0, sizeof(*net));
	net->tag = tag;
	net->prefix_len = 28;
	snprintf(net->bridge, sizeof(net->bridge), "tcb%d", tag);
	format_addr(first + 1, net->gateway, sizeof(net->gateway));
	for (size_t i = 0; names[i] && i < NETNS_MAX_HOSTS; i++) {
		struct netns_host *h = &net->hosts[i];

		snprintf(h->name, sizeof(h->name), "%s", names[i]);
		snprintf(h->ns, sizeof(h->ns), NS_PREFIX "%d-%s", tag,
			 names[i]);
		snprintf(h->link, sizeof(h->link), "tcv%d-%zu", tag, i);
		format_addr(first + 2 + (uint32_t)i, h->addr,
			    sizeof(h->addr));
		net->nhosts++;
	}
}

#define IP(e, ...) nettool_run("ip", \
			       (const char *const[]){ __VA_ARGS__, NULL }, NULL, e)

static int exists_ns(const char *ns)
{
	char path[128];

	snprintf(path, sizeof(path), NS_DIR "/%s", ns);
	return !access(path, F_OK);
}

static int exists_link(const char *link)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/class/net/%s", link);
	return !access(path, F_OK);
}

/* Refuse a net whose addresses some interface of ours already has. */
static int net_free(const struct netns_net *net, struct err *e)
{
	struct buf out = BUF_INIT;
	const char *argv[] = { "-o", "-4", "addr", "show", "to",
			       net->gateway, NULL };
	int rc = nettool_run("ip", argv, &out, e);

	buf_rtrim(&out);
	if (!rc && out.len)
		rc = err_set(e, ERR_INFRA, "address %s of net tag %d is "
			     "already in use: %s", net->gateway, net->tag,
			     buf_str(&out));
	buf_release(&out);
	return rc;
}

int netns_usable(int tag, struct err *e)
{
	char ns[64];
	char *nft = find_program("nft");
	int rc;

	free(nft);
	if (geteuid() != 0)
		return err_set(e, ERR_INFRA, "network namespaces need root");
	if (!nft)
		return err_set(e, ERR_INFRA, "'nft' not found (install "
			       "nftables, or run 'make deps')");
	snprintf(ns, sizeof(ns), NS_PREFIX "%d-probe", tag);
	if (exists_ns(ns) && IP(e, "netns", "delete", ns))
		return -1;
	if (IP(e, "netns", "add", ns))
		return -1;
	/* What a net is made of, inside the probe: gone with it. */
	rc = IP(e, "-n", ns, "link", "add", "b0", "type", "bridge") ||
	     IP(e, "-n", ns, "link", "add", "v0", "type", "veth", "peer",
		"name", "v1") ||
	     IP(e, "netns", "exec", ns, "nft", "list", "tables");
	if (IP(rc ? NULL : e, "netns", "delete", ns))
		rc = -1;
	return rc;
}

static int make_host(const struct netns_net *net, const struct netns_host *h,
		     struct err *e)
{
	char cidr[32];

	snprintf(cidr, sizeof(cidr), "%s/%d", h->addr, net->prefix_len);
	return IP(e, "netns", "add", h->ns) ||
	       IP(e, "link", "add", h->link, "type", "veth", "peer", "name",
		  "eth0", "netns", h->ns) ||
	       IP(e, "link", "set", h->link, "master", net->bridge, "up") ||
	       IP(e, "-n", h->ns, "addr", "add", cidr, "dev", "eth0") ||
	       IP(e, "-n", h->ns, "link", "set", "eth0", "up") ||
	       IP(e, "-n", h->ns, "link", "set", "lo", "up") ? -1 : 0;
}

int netns_make(const struct netns_net *net, struct err *e)
{
	char cidr[32];
	int rc;

	snprintf(cidr, sizeof(cidr), "%s/%d", net->gateway, net->prefix_len);
	rc = net_free(net, e) ||
	     IP(e, "link", "add", net->bridge, "type", "bridge") ||
	     IP(e, "link", "set", net->bridge, "alias", net->owner) ||
	     IP(e, "addr", "add", cidr, "dev", net->bridge) ||
	     IP(e, "link", "set", net->bridge, "up");
	for (size_t i = 0; !rc && i < net->nhosts; i++)
		rc = make_host(net, &net->hosts[i], e);
	if (rc)
		netns_remove(net->tag, net->owner, NULL, NULL);
	return rc ? -1 : 0;
}

int netns_present(const struct netns_net *net, struct err *e)
{
	size_t have = exists_link(net->bridge);

	for (size_t i = 0; i < net->nhosts; i++)
		have += exists_ns(net->hosts[i].ns) &&
			exists_link(net->hosts[i].link);
	if (have == 0)
		return 0;
	if (have == net->nhosts + 1)
		return 1;
	return err_set(e, ERR_INFRA, "the hosts of net tag %d are only "
		       "partly there (%zu of %zu parts)", net->tag, have,
		       net->nhosts + 1);
}

/* Remove each entry of `dir` named PREFIX... with `ip ARGS... NAME`. */
static int remove_named(const char *dir, const char *prefix,
			const char *const *args, struct buf *found,
			struct err *e)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int rc = 0;

	if (!d)
		return errno == ENOENT ? 0 : err_errno(e, errno, "cannot "
						       "list '%s'", dir);
	while ((de = readdir(d))) {
		const char *argv[8];
		size_t n = 0;

		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		while (args[n] && n < 6) {
			argv[n] = args[n];
			n++;
		}
		argv[n++] = de->d_name;
		argv[n] = NULL;
		if (found)
			buf_printf(found, NULL, "%s%s", found->len ? " " : "",
				   de->d_name);
		if (nettool_run("ip", argv, NULL, e))
			rc = -1;
	}
	closedir(d);
	return rc;
}

int netns_owner(int tag, char *out, size_t size)
{
	char path[128];
	struct buf text = BUF_INIT;
	int have;

	snprintf(path, sizeof(path), "/sys/class/net/tcb%d/ifalias", tag);
	have = !buf_read_file(&text, path, NULL);
	buf_rtrim(&text);
	if (out && size)
		snprintf(out, size, "%s", have ? buf_str(&text) : "");
	buf_release(&text);
	return have;
}

int netns_remove(int tag, const char *owner, struct buf *found,
		 struct err *e)
{
	char prefix[32], bridge[16], theirs[256];
	const char *del_ns[] = { "netns", "delete", NULL };
	const char *del_link[] = { "link", "delete", NULL };
	int rc;

	/* No alias: made by an `up` killed before it could name it. */
	if (owner && netns_owner(tag, theirs, sizeof(theirs)) && theirs[0] &&
	    strcmp(theirs, owner)) {
		err_set(e, ERR_INFRA, "the hosts of port base %d belong to "
			"'%s'; choose another --port-base", tag, theirs);
		return 1;
	}
	/* The veths first: deleting a namespace frees its end later, in
	 * the kernel's own time, and the name would still be taken. */
	snprintf(prefix, sizeof(prefix), "tcv%d-", tag);
	rc = remove_named("/sys/class/net", prefix, del_link, found, e);
	snprintf(prefix, sizeof(prefix), NS_PREFIX "%d-", tag);
	rc |= remove_named(NS_DIR, prefix, del_ns, found, e);
	snprintf(bridge, sizeof(bridge), "tcb%d", tag);
	if (exists_link(bridge)) {
		if (found)
			buf_printf(found, NULL, "%s%s", found->len ? " " : "",
				   bridge);
		rc |= IP(e, "link", "delete", bridge);
	}
	return rc ? -1 : 0;
}

int netns_addr(const char *ns, char *out, size_t size, int *prefix_len,
	       struct err *e)
{
	const char *argv[] = { "-n", ns, "-4", "-o", "addr", "show", "dev",
			       "eth0", NULL };
	struct buf text = BUF_INIT;
	const char *p;
	size_t len;
	int rc = nettool_run("ip", argv, &text, e);

	/* "2: eth0    inet 198.18.150.2/28 brd ..." */
	p = rc ? NULL : strstr(buf_str(&text), " inet ");
	if (!rc && !p)
		rc = err_set(e, ERR_INFRA, "namespace '%s' has no IPv4 address "
			     "on eth0", ns);
	if (!rc) {
		p += 6;
		len = strcspn(p, "/ ");
		if (prefix_len)
			*prefix_len = p[len] == '/' ?
				(int)strtol(p + len + 1, NULL, 10) : 32;
		if (len + 1 > size)
			len = size - 1;
		memcpy(out, p, len);
		out[len] = '\0';
	}
	buf_release(&text);
	return rc;
}

void netns_cut_nft(int id, const char *const *addrs, size_t naddrs,
		   struct buf *out)
{
	/* Made if missing, so that the delete always has something. */
	buf_printf(out, NULL, "add table inet tichaos; add chain inet "
		   "tichaos c%d { type filter hook input priority -300; "
		   "policy accept; }; delete chain inet tichaos c%d", id, id);
	if (naddrs) {
		buf_printf(out, NULL, "; add chain inet tichaos c%d { type "
			   "filter hook input priority -300; policy accept; "
			   "}; add rule inet tichaos c%d ip saddr { ", id, id);
		for (size_t i = 0; i < naddrs; i++)
			buf_printf(out, NULL, "%s%s", i ? ", " : "",
				   addrs[i]);
		buf_addstr(out, " } counter drop", NULL);
	}
}

int netns_cut(const char *ns, int id, const char *const *addrs,
	      size_t naddrs, struct err *e)
{
	struct buf script = BUF_INIT;
	int rc;

	netns_cut_nft(id, addrs, naddrs, &script);
	rc = nettool_nft(ns, buf_str(&script), NULL, e);
	/* The last cut removed: the table goes too, nothing is left. */
	if (!rc && !naddrs) {
		buf_reset(&script);
		rc = nettool_nft(ns, "list table inet tichaos", &script, e);
		if (!rc && !strstr(buf_str(&script), "chain "))
			rc = netns_uncut(ns, e);
	}
	buf_release(&script);
	return rc;
}

int netns_uncut(const char *ns, struct err *e)
{
	return nettool_nft(ns, NETNS_UNCUT_NFT, NULL, e);
}

void netns_dropped(const char *text, struct buf *out)
{
	for (const char *p = strstr(text, "ip saddr "); p;
	     p = strstr(p, "ip saddr ")) {
		const char *end;

		p += 9;
		if (*p == '{')
			end = strchr(++p, '}');
		else
			end = p + strcspn(p, " \n");
		for (; end && p < end; p++)
			if (*p != ',' && !(*p == ' ' && (!out->len ||
				out->data[out->len - 1] == ' ')))
				buf_addch(out, *p, NULL);
		buf_rtrim(out);
		buf_addch(out, ' ', NULL);
	}
	buf_rtrim(out);
}

int netns_cut_of(const char *ns, struct buf *out, struct err *e)
{
	struct buf text = BUF_INIT;
	int rc;

	buf_reset(out);
	if (!exists_ns(ns))
		return 0;
	rc = nettool_list_table(ns, "inet tichaos", &text, e);
	if (rc == 1)
		netns_dropped(buf_str(&text), out);
	buf_release(&text);
	return rc < 0 ? -1 : 0;
}

/* A TCP socket of net_cls class `cls` (NULL: ours), or -1. */
static int socket_of(const char *cls, struct err *e)
{
	char saved[1024];
	int fd, errnum;

	if (netcls_enter(cls, saved, sizeof(saved), e))
		return -1;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	errnum = errno;
	netcls_leave(saved);
	errno = errnum;
	return fd;
}

int netns_socket(const char *ns, const char *cls, struct err *e)
{
	char path[128];
	int mine, theirs, fd, saved;

	if (!ns)
		return socket_of(cls, e);
	snprintf(path, sizeof(path), NS_DIR "/%s", ns);
	mine = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (mine < 0)
		return err_errno(e, errno, "cannot open this thread's "
				 "network namespace");
	theirs = open(path, O_RDONLY | O_CLOEXEC);
	if (theirs < 0) {
		saved = errno;
		close(mine);
		return err_errno(e, saved, "cannot open namespace '%s'", ns);
	}
	if (setns(theirs, CLONE_NEWNET)) {
		saved = errno;
		close(mine);
		close(theirs);
		return err_errno(e, saved, "cannot enter namespace '%s'", ns);
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	saved = errno;
	if (setns(mine, CLONE_NEWNET))
		abort();	/* a thread in the wrong net: nothing is safe */
	close(mine);
	close(theirs);
	if (fd < 0)
		return err_errno(e, saved, "cannot make a socket in '%s'", ns);
	return fd;
}

/* Start probe `p`'s connect on a socket of its namespace, at *start:
 * its fd, or -1 with `p` decided (no fd needed) or `e` set. */
static int probe_start(struct netns_probe *p, int64_t *start, struct err *e)
{
	struct sockaddr_in sa;
	int fd;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)p->port);
	if (inet_pton(AF_INET, p->addr, &sa.sin_addr) != 1)
		return err_set(e, ERR_USAGE, "'%s' is not an IPv4 address",
			       p->addr);
	fd = netns_socket(p->ns, p->cls, e);
	if (fd < 0)
		return err_isset(e) ? -1 : err_errno(e, errno, "cannot make a "
						     "socket");
	*start = clock_mono_ns();
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 ||
	    errno == ECONNREFUSED) {
		p->answered = 1;
		p->took_ns = clock_mono_ns() - *start;
	} else if (errno != EINPROGRESS) {
		snprintf(p->why, sizeof(p->why), "%s:%d: %s", p->addr, p->port,
			 strerror(errno));
	} else {
		return fd;
	}
	close(fd);
	return -1;
}

int netns_probe(struct netns_probe *probes, size_t n, int64_t timeout_ns,
		struct err *e)
{
	struct pollfd *pfd = xcalloc(n ? n : 1, sizeof(*pfd));
	int64_t *started = xcalloc(n ? n : 1, sizeof(*started));
	int64_t deadline = clock_mono_ns() + timeout_ns;
	size_t waiting = 0;
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		probes[i].answered = 0;
		probes[i].why[0] = '\0';
		probes[i].took_ns = 0;
		pfd[i].fd = rc ? -1 : probe_start(&probes[i], &started[i],
						  e);
		pfd[i].events = POLLOUT;
		if (err_isset(e))
			rc = -1;
		waiting += pfd[i].fd >= 0;
	}
	while (!rc && waiting) {
		int64_t left = deadline - clock_mono_ns();
		int ready = left <= 0 ? 0 : poll(pfd, n, (int)((left + NS_PER_MS
							- 1) / NS_PER_MS));

		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0)
			break;
		for (size_t i = 0; i < n; i++) {
			int soerr = 0;
			socklen_t len = sizeof(soerr);

			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			if (getsockopt(pfd[i].fd, SOL_SOCKET, SO_ERROR, &soerr,
				       &len))
				soerr = errno;
			if (soerr == 0 || soerr == ECONNREFUSED) {
				probes[i].answered = 1;
				probes[i].took_ns = clock_mono_ns() -
						    started[i];
			} else {
				snprintf(probes[i].why, sizeof(probes[i].why),
					 "%s:%d: %s", probes[i].addr,
					 probes[i].port, strerror(soerr));
			}
			close(pfd[i].fd);
			pfd[i].fd = -1;
			waiting--;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (pfd[i].fd < 0)
			continue;
		close(pfd[i].fd);
		snprintf(probes[i].why, sizeof(probes[i].why), "no answer from "
			 "%s:%d within %lld ms", probes[i].addr, probes[i].port,
			 (long long)(timeout_ns / NS_PER_MS));
	}
	free(pfd);
	free(started);
	return rc;
}

#define LINK_TABLE "netdev tichaos_link"
#define LINK_MARK "0x74630001"
#define QDISC_ROOT "7463:"
#define QDISC_CHILD "7464:"
#define QDISC_PROBE "7465:"
/* tbf: the bucket at least two full frames deep (a frame larger than it
 * would never go), and at least 10 ms at the rate. */
#define TBF_MIN_BURST 3028
#define TBF_LATENCY "100ms"

#define TC(at, e, ...) nettool_tc(at, (const char *const[]){ __VA_ARGS__, \
			     NULL }, NULL, e)

static int have_tc(const struct nettool_at *at)
{
	char *path;

	if (at->shell)
		return at->has_tc;
	path = find_program("tc");
	free(path);
	return path != NULL;
}

static int qdiscs_of(const struct nettool_at *at, struct buf *out,
		     struct err *e)
{
	const char *args[] = { "qdisc", "show", "dev", at->dev, NULL };

	return nettool_tc(at, args, out, e);
}

/* Remove the degradation of `at`: its table, and its root qdisc when it
 * is ours (a namespace's eth0 has none of its own, "noqueue"). */
static int undegrade(const struct nettool_at *at, struct err *e)
{
	struct buf text = BUF_INIT;
	int rc = nettool_nft_at(at, "add table " LINK_TABLE "; delete table "
			LINK_TABLE, NULL, e);

	if (!rc && have_tc(at) && !(rc = qdiscs_of(at, &text, e)) &&
	    strstr(buf_str(&text), " " QDISC_ROOT " root"))
		rc = TC(at, e, "qdisc", "del", "dev", at->dev, "root");
	buf_release(&text);
	return rc;
}

/* netem's arguments into argv from `n` on, as `link` says: the new n. */
static size_t netem_args(const struct netns_link *link, const char **argv,
			 size_t n, char (*text)[32])
{
	snprintf(text[0], 32, "%lldus", (long long)(link->delay_ns / 1000));
	snprintf(text[1], 32, "%lldus", (long long)(link->jitter_ns / 1000));
	snprintf(text[2], 32, "%d.%d%%", link->reorder_pm / 10,
		 link->reorder_pm % 10);
	argv[n++] = link->rate_bps ? "parent" : "root";
	if (link->rate_bps)
		argv[n++] = QDISC_ROOT "1";
	argv[n++] = "handle";
	argv[n++] = link->rate_bps ? QDISC_CHILD : QDISC_ROOT;
	argv[n++] = "netem";
	argv[n++] = "delay";
	argv[n++] = text[0];
	if (link->jitter_ns)
		argv[n++] = text[1];
	if (link->reorder_pm) {
		argv[n++] = "reorder";
		argv[n++] = text[2];
	}
	return n;
}

/* tbf, then netem (its child when there is a tbf), as `link` says. */
static int add_qdiscs(const struct nettool_at *at,
		      const struct netns_link *link, struct err *e)
{
	char rate[32], burst[32], text[3][32];
	const char *argv[24] = { "qdisc", "add", "dev", at->dev };

	if (link->rate_bps) {
		uint64_t bytes = link->rate_bps / 8 / 100;

		snprintf(rate, sizeof(rate), "%llubit",
			 (unsigned long long)link->rate_bps);
		snprintf(burst, sizeof(burst), "%llu", (unsigned long long)
			 (bytes > TBF_MIN_BURST ? bytes : TBF_MIN_BURST));
		if (TC(at, e, "qdisc", "add", "dev", at->dev, "root", "handle",
		       QDISC_ROOT, "tbf", "rate", rate, "burst", burst,
		       "latency", TBF_LATENCY))
			return -1;
	}
	if (!link->delay_ns)
		return 0;
	argv[netem_args(link, argv, 4, text)] = NULL;
	return nettool_tc(at, argv, NULL, e);
}

/*
 * The table: copies (marked) go through, every other packet is counted,
 * then dropped at random, then sent twice at random (the copy marked,
 * the original's mark put back to none).
 */
static int add_table(const struct nettool_at *at,
		     const struct netns_link *link, struct err *e)
{
	struct buf script = BUF_INIT;
	int rc;

	buf_printf(&script, NULL, "add table " LINK_TABLE "; add chain "
		   LINK_TABLE " egress { type filter hook egress device "
		   "\"%s\" priority 0; policy accept; }; add rule " LINK_TABLE
		   " egress meta mark " LINK_MARK " counter accept; "
		   "add rule " LINK_TABLE " egress counter", at->dev);
	if (link->loss_pm)
		buf_printf(&script, NULL, "; add rule " LINK_TABLE " egress "
			   "numgen random mod 1000 < %d counter drop",
			   link->loss_pm);
	if (link->duplicate_pm)
		buf_printf(&script, NULL, "; add rule " LINK_TABLE " egress "
			   "numgen random mod 1000 < %d counter meta mark set "
			   LINK_MARK " dup to \"%s\" meta mark set 0",
			   link->duplicate_pm, at->dev);
	rc = nettool_nft_at(at, buf_str(&script), NULL, e);
	buf_release(&script);
	return rc;
}

int netns_degrade(const struct nettool_at *at, const struct netns_link *link,
		  struct err *e)
{
	int rc = undegrade(at, e);

	if (rc || !link)
		return rc;
	rc = add_qdiscs(at, link, e);
	if (!rc && (link->loss_pm || link->duplicate_pm))
		rc = add_table(at, link, e);
	if (rc)
		undegrade(at, NULL);
	return rc;
}

/* What the table of netns_degrade holds. */
struct link_table {
	int present;
	int loss_pm;
	int duplicate_pm;
	struct netns_link_counts counts;
};

/* The number after `key` in `line`, or 0. */
static uint64_t number_after(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

static int read_table(const struct nettool_at *at, struct link_table *t,
		      struct err *e)
{
	struct buf text = BUF_INIT;
	char *line, *next;
	int rc;

	memset(t, 0, sizeof(*t));
	rc = nettool_list_table_at(at, LINK_TABLE, &text, e);
	if (rc != 1)
		goto out;
	rc = 0;
	t->present = 1;
	/* "counter packets 12 bytes 648", "numgen random mod 1000 < 100
	 * counter packets 1 bytes 54 drop", "... dup to "eth0" ..." */
	for (line = text.data; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		line += strspn(line, " \t");
		if (!strncmp(line, "counter ", 8)) {
			t->counts.sent = number_after(line, "packets ");
		} else if (strstr(line, " drop")) {
			t->loss_pm = (int)number_after(line, "mod 1000 < ");
			t->counts.dropped = number_after(line, "packets ");
		} else if (strstr(line, "dup to")) {
			t->duplicate_pm = (int)number_after(line, "mod 1000 < ");
			t->counts.duplicated = number_after(line, "packets ");
		}
	}
out:
	buf_release(&text);
	return rc;
}

/* Append what qdisc line `line` of ours does: "rate 1Mbit", netem's
 * parameters as tc shows them. */
static void describe_qdisc(const char *line, struct buf *out)
{
	const char *p;

	if (!strncmp(line, "qdisc tbf ", 10) && (p = strstr(line, " rate "))) {
		buf_printf(out, NULL, "%srate %.*s", out->len ? ", " : "",
			   (int)strcspn(p + 6, " "), p + 6);
	} else if (!strncmp(line, "qdisc netem ", 12)) {
		p = strstr(line, " limit ");
		p = p ? p + 7 + strcspn(p + 7, " ") : line + 12;
		p += strspn(p, " ");
		if (*p)
			buf_addstr(out, out->len ? ", " : "", NULL);
		for (; *p; p++)
			if (*p != ' ' || (p[1] && p[1] != ' '))
				buf_addch(out, *p, NULL);
	}
}

/* Our queueing disciplines on `at`'s interface, described into `out`. */
static int describe_qdiscs(const struct nettool_at *at, struct buf *out,
			   struct err *e)
{
	struct buf text = BUF_INIT;
	char *line, *next;
	int rc = qdiscs_of(at, &text, e);

	for (line = rc ? NULL : text.data; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strstr(line, " " QDISC_ROOT " ") ||
		    strstr(line, " " QDISC_CHILD " "))
			describe_qdisc(line, out);
	}
	buf_release(&text);
	return rc;
}

int netns_degraded_of(const struct nettool_at *at, struct buf *out,
		      struct err *e)
{
	struct link_table t;
	int rc = 0;

	buf_reset(out);
	if (at->ns && !exists_ns(at->ns))
		return 0;
	if (have_tc(at))
		rc = describe_qdiscs(at, out, e);
	if (!rc)
		rc = read_table(at, &t, e);
	if (!rc && t.loss_pm)
		buf_printf(out, NULL, "%sloss %d.%d%%", out->len ? ", " : "",
			   t.loss_pm / 10, t.loss_pm % 10);
	if (!rc && t.duplicate_pm)
		buf_printf(out, NULL, "%sduplicate %d.%d%%",
			   out->len ? ", " : "", t.duplicate_pm / 10,
			   t.duplicate_pm % 10);
	if (!rc && t.present && !t.loss_pm && !t.duplicate_pm)
		buf_printf(out, NULL, "%stable %s", out->len ? ", " : "",
			   LINK_TABLE);
	return rc;
}

int netns_link_counts(const struct nettool_at *at,
		      struct netns_link_counts *out, struct err *e)
{
	struct link_table t;

	if (read_table(at, &t, e))
		return -1;
	if (!t.present)
		return err_set(e, ERR_INFRA, "%s '%s' has no table %s",
			       at->ns ? "namespace" : "host", at->name,
			       LINK_TABLE);
	*out = t.counts;
	return 0;
}

int netns_has_netem(const struct nettool_at *at, struct err *e)
{
	struct err why = ERR_INIT;

	if (TC(at, &why, "qdisc", "add", "dev", "lo", "root", "handle",
	       QDISC_PROBE, "netem")) {
		if (strstr(why.msg, "qdisc kind is unknown"))
			return 0;
		return err_set(e, why.class, "%s", why.msg);
	}
	return TC(at, e, "qdisc", "del", "dev", "lo", "root") ? -1 : 1;
}
