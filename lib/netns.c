#include "netns.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/proc.h"

#define NS_PREFIX "tichaos-"
#define NS_DIR "/run/netns"
/* 198.18.0.0/15, in host order. */
#define NET_BASE 0xC6120000u
#define NET_SIZE 16u
#define TOOL_TIMEOUT_NS (30 * NS_PER_SEC)

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

/*
 * Run a tool (`ip`, `nft`) from an sbin directory with `argv` after its
 * name; its stdout into `out` (MAY be NULL). A non-zero exit is an error
 * with the command and the tool's first line of complaint.
 */
static int tool(const char *name, const char *const *args, struct buf *out,
		struct err *e)
{
	const char *argv[24];
	struct buf errout = BUF_INIT, cmd = BUF_INIT;
	char *path = find_program(name);
	size_t n = 0;
	int code;

	if (!path)
		return err_set(e, ERR_INFRA, "'%s' not found (install %s, or "
			       "run 'make deps')", name,
			       strcmp(name, "nft") ? "iproute2" : "nftables");
	argv[n++] = path;
	for (size_t i = 0; args[i] && n + 1 < sizeof(argv) / sizeof(*argv);
	     i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	code = proc_capture(argv, out, &errout, TOOL_TIMEOUT_NS, e);
	if (code > 0) {
		char *nl;

		buf_rtrim(&errout);
		nl = strchr(errout.data ? errout.data : "", '\n');
		if (nl)
			*nl = '\0';
		buf_addstr(&cmd, name, NULL);
		for (size_t i = 1; argv[i]; i++)
			buf_printf(&cmd, NULL, " %s", argv[i]);
		err_set(e, ERR_INFRA, "'%s' failed (exit %d): %s",
			buf_str(&cmd), code, errout.len ? buf_str(&errout)
							: "no message");
	}
	buf_release(&errout);
	buf_release(&cmd);
	free(path);
	return code == 0 ? 0 : -1;
}

#define IP(e, ...) tool("ip", (const char *const[]){ __VA_ARGS__, NULL }, \
			NULL, e)

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
	int rc = tool("ip", argv, &out, e);

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
	rc = IP(e, "netns", "exec", ns, "nft", "list", "tables");
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
	     IP(e, "addr", "add", cidr, "dev", net->bridge) ||
	     IP(e, "link", "set", net->bridge, "up");
	for (size_t i = 0; !rc && i < net->nhosts; i++)
		rc = make_host(net, &net->hosts[i], e);
	if (rc)
		netns_remove(net->tag, NULL, NULL);
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
		if (tool("ip", argv, NULL, e))
			rc = -1;
	}
	closedir(d);
	return rc;
}

int netns_remove(int tag, struct buf *found, struct err *e)
{
	char prefix[32], bridge[16];
	const char *del_ns[] = { "netns", "delete", NULL };
	const char *del_link[] = { "link", "delete", NULL };
	int rc;

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

int netns_addr(const char *ns, char *out, size_t size, struct err *e)
{
	const char *argv[] = { "-n", ns, "-4", "-o", "addr", "show", "dev",
			       "eth0", NULL };
	struct buf text = BUF_INIT;
	const char *p;
	size_t len;
	int rc = tool("ip", argv, &text, e);

	/* "2: eth0    inet 198.18.150.2/28 brd ..." */
	p = rc ? NULL : strstr(buf_str(&text), " inet ");
	if (!rc && !p)
		rc = err_set(e, ERR_INFRA, "namespace '%s' has no IPv4 address "
			     "on eth0", ns);
	if (!rc) {
		p += 6;
		len = strcspn(p, "/ ");
		if (len + 1 > size)
			len = size - 1;
		memcpy(out, p, len);
		out[len] = '\0';
	}
	buf_release(&text);
	return rc;
}

/* Run the nft commands `script` in namespace `ns`, one transaction. */
static int nft_in(const char *ns, const char *script, struct buf *out,
		  struct err *e)
{
	const char *argv[] = { "netns", "exec", ns, "nft", script, NULL };

	return tool("ip", argv, out, e);
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
	rc = nft_in(ns, buf_str(&script), NULL, e);
	/* The last cut removed: the table goes too, nothing is left. */
	if (!rc && !naddrs) {
		buf_reset(&script);
		rc = nft_in(ns, "list table inet tichaos", &script, e);
		if (!rc && !strstr(buf_str(&script), "chain "))
			rc = netns_uncut(ns, e);
	}
	buf_release(&script);
	return rc;
}

int netns_uncut(const char *ns, struct err *e)
{
	return nft_in(ns, NETNS_UNCUT_NFT, NULL, e);
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
	rc = nft_in(ns, "list tables", &text, e);
	if (!rc && strstr(buf_str(&text), "table inet tichaos")) {
		buf_reset(&text);
		rc = nft_in(ns, "list table inet tichaos", &text, e);
		if (!rc)
			netns_dropped(buf_str(&text), out);
	}
	buf_release(&text);
	return rc;
}

/* A TCP socket made in namespace `ns`, or -1. */
static int socket_in(const char *ns, struct err *e)
{
	char path[128];
	int mine, theirs, fd, saved;

	if (!ns)
		return socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC |
			      SOCK_NONBLOCK, 0);
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
	fd = socket_in(p->ns, e);
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
