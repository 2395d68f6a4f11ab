#include "throughput.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/netns.h"
#include "lib/proc.h"

/* Listen on address `a` (network order), at a port of the kernel's
 * choice: the fd, and `sa` where it listens. */
static int listen_on(uint32_t a, struct sockaddr_in *sa, struct err *e)
{
	char addr[16];
	socklen_t len = sizeof(*sa);
	int fd;

	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = a;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return err_errno(e, errno, "cannot make a socket");
	if (bind(fd, (struct sockaddr *)sa, sizeof(*sa)) || listen(fd, 1) ||
	    getsockname(fd, (struct sockaddr *)sa, &len)) {
		int saved = errno;

		close(fd);
		if (!inet_ntop(AF_INET, &a, addr, sizeof(addr)))
			snprintf(addr, sizeof(addr), "?");
		return err_errno(e, saved, "cannot listen on %s", addr);
	}
	return fd;
}

/* A listening socket of ours on the bridge's address of `ns`'s net (the
 * first of it), at a port of the kernel's choice: its fd and `sa`. */
static int listen_for(const char *ns, struct sockaddr_in *sa, struct err *e)
{
	char addr[16];
	struct in_addr in;
	int prefix_len;
	uint32_t a;

	if (netns_addr(ns, addr, sizeof(addr), &prefix_len, e))
		return -1;
	if (inet_pton(AF_INET, addr, &in) != 1 || prefix_len < 1 ||
	    prefix_len > 30)
		return err_set(e, ERR_INFRA, "namespace '%s' has no net of "
			       "its own on eth0 (%s/%d)", ns, addr, prefix_len);
	a = ntohl(in.s_addr);
	a = (a & ~((UINT32_C(1) << (32 - prefix_len)) - 1)) + 1;
	return listen_on(htonl(a), sa, e);
}

/* A listening socket on our address on the way to `addr` (the source
 * address the kernel picks for it). */
static int listen_toward(const char *addr, struct sockaddr_in *sa,
			 struct err *e)
{
	struct sockaddr_in to, from;
	socklen_t len = sizeof(from);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc;

	if (fd < 0)
		return err_errno(e, errno, "cannot make a socket");
	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_port = htons(9);
	rc = inet_pton(AF_INET, addr, &to.sin_addr) == 1 &&
	     !connect(fd, (struct sockaddr *)&to, sizeof(to)) &&
	     !getsockname(fd, (struct sockaddr *)&from, &len) ? 0 : -1;
	close(fd);
	if (rc)
		return err_set(e, ERR_INFRA, "no route from here to %s", addr);
	return listen_on(from.sin_addr.s_addr, sa, e);
}

/* What a transfer holds while it runs. */
struct transfer {
	/* the listener (-1 once it accepted), the sender (in the
	 * namespace; -1: elsewhere), the receiver (-1 until accepted) */
	struct pollfd fd[3];
	uint64_t sent, received, first;
	int64_t first_ns, last_ns;
};

/* One round of the transfer's poll: accept, send, receive. */
static int transfer_step(struct transfer *t, uint64_t bytes, struct err *e)
{
	static const char zeros[64 * 1024];
	char sink[64 * 1024];
	ssize_t n = -1;

	if (t->fd[0].revents && t->fd[2].fd < 0) {
		t->fd[2].fd = accept4(t->fd[0].fd, NULL, NULL,
				      SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (t->fd[2].fd < 0 && errno != EAGAIN && errno != EINTR)
			return err_errno(e, errno, "cannot accept the "
					 "transfer's connection");
		if (t->fd[2].fd >= 0) {
			close(t->fd[0].fd);
			t->fd[0].fd = -1;
		}
	}
	if (t->fd[1].revents & (POLLERR | POLLHUP)) {
		int soerr = 0;
		socklen_t len = sizeof(soerr);

		getsockopt(t->fd[1].fd, SOL_SOCKET, SO_ERROR, &soerr, &len);
		return err_errno(e, soerr ? soerr : EPIPE, "the transfer's "
				 "sender failed");
	}
	if (t->fd[1].revents & POLLOUT && t->sent < bytes) {
		n = send(t->fd[1].fd, zeros, bytes - t->sent < sizeof(zeros)
			 ? bytes - t->sent : sizeof(zeros), MSG_NOSIGNAL);
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return err_errno(e, errno, "cannot send");
		t->sent += n > 0 ? (uint64_t)n : 0;
		if (t->sent == bytes)
			t->fd[1].events = 0;
	}
	while (t->fd[2].fd >= 0 && (n = recv(t->fd[2].fd, sink, sizeof(sink),
					     0)) > 0) {
		t->last_ns = clock_mono_ns();
		if (!t->received) {
			t->first = (uint64_t)n;
			t->first_ns = t->last_ns;
		}
		t->received += (uint64_t)n;
	}
	if (t->fd[2].fd >= 0 && n == 0 && t->received < bytes)
		return err_set(e, ERR_INFRA, "the transfer ended after %llu of "
			       "%llu bytes", (unsigned long long)t->received,
			       (unsigned long long)bytes);
	if (t->fd[2].fd >= 0 && n < 0 && errno != EAGAIN && errno != EINTR)
		return err_errno(e, errno, "cannot receive");
	return 0;
}

/* Poll transfer `t` until `bytes` arrived from `from`, or -1. */
static int transfer_run(struct transfer *t, uint64_t bytes,
			int64_t timeout_ns, const char *from, struct err *e)
{
	int64_t deadline = clock_mono_ns() + timeout_ns;

	while (t->received < bytes) {
		int64_t left = deadline - clock_mono_ns();
		int ready = left <= 0 ? 0 : poll(t->fd, 3, (int)((left +
						 NS_PER_MS - 1) / NS_PER_MS));

		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0)
			return err_set(e, ERR_INFRA, "%llu of %llu bytes from "
				       "'%s' arrived within %lld ms",
				       (unsigned long long)t->received,
				       (unsigned long long)bytes, from,
				       (long long)(timeout_ns / NS_PER_MS));
		if (transfer_step(t, bytes, e))
			return -1;
	}
	return 0;
}

/* The remote sender of a transfer, on a thread of its own. */
struct sender {
	const struct nettool_at *at;
	char cmd[160];
	struct err e;
	int code;
};

static void *sender_main(void *arg)
{
	struct sender *s = arg;

	s->code = s->at->shell(s->at->ctx, s->cmd, NULL, &s->e);
	return NULL;
}

/* The transfer from remote host `at`: bash there sends, we receive. */
static int transfer_remote(const struct nettool_at *at, struct transfer *t,
			   uint64_t bytes, int64_t timeout_ns, struct err *e)
{
	struct sender s = { at, "", ERR_INIT, 0 };
	struct sockaddr_in sa;
	char addr[16];
	pthread_t thread;
	int rc;

	t->fd[0].fd = listen_toward(at->addr, &sa, e);
	if (t->fd[0].fd < 0)
		return -1;
	if (!inet_ntop(AF_INET, &sa.sin_addr, addr, sizeof(addr)))
		return err_errno(e, errno, "cannot write an address");
	snprintf(s.cmd, sizeof(s.cmd), "bash -c 'head -c %llu /dev/zero "
		 ">/dev/tcp/%s/%d'", (unsigned long long)bytes, addr,
		 ntohs(sa.sin_port));
	if (pthread_create(&thread, NULL, sender_main, &s))
		return err_set(e, ERR_INFRA, "cannot start a thread");
	rc = transfer_run(t, bytes, timeout_ns, at->name, e);
	/* Closed first: a sender still sending fails at once. */
	for (int i = 0; i < 3; i++)
		if (t->fd[i].fd >= 0)
			close(t->fd[i].fd);
	t->fd[0].fd = t->fd[2].fd = -1;
	pthread_join(thread, NULL);
	if (!rc && s.code)
		rc = s.code < 0 ? err_set(e, s.e.class, "%s", s.e.msg)
				: err_set(e, ERR_INFRA, "%s: the transfer's "
					  "sender failed (exit %d)", at->name,
					  s.code);
	return rc;
}

/* The transfer from namespace `ns`: a socket of ours in it sends. */
static int transfer_ns(const char *ns, struct transfer *t, uint64_t bytes,
		       int64_t timeout_ns, struct err *e)
{
	struct sockaddr_in sa;

	t->fd[0].fd = listen_for(ns, &sa, e);
	if (t->fd[0].fd < 0)
		return -1;
	t->fd[1].fd = netns_socket(ns, NULL, e);
	if (t->fd[1].fd < 0)
		return -1;
	if (connect(t->fd[1].fd, (struct sockaddr *)&sa, sizeof(sa)) &&
	    errno != EINPROGRESS)
		return err_errno(e, errno, "cannot connect from '%s' to this "
				 "namespace", ns);
	return transfer_run(t, bytes, timeout_ns, ns, e);
}

int throughput_measure(const struct nettool_at *at, uint64_t bytes,
		       int64_t timeout_ns, struct throughput *out,
		       struct err *e)
{
	struct transfer t = { { { -1, POLLIN, 0 }, { -1, POLLOUT, 0 },
				{ -1, POLLIN, 0 } }, 0, 0, 0, 0, 0 };
	int rc;

	if (!at->shell) {
		rc = transfer_ns(at->ns, &t, bytes, timeout_ns, e);
	} else {
		t.fd[1].events = 0;
		rc = transfer_remote(at, &t, bytes, timeout_ns, e);
	}
	for (int i = 0; i < 3; i++)
		if (t.fd[i].fd >= 0)
			close(t.fd[i].fd);
	if (rc)
		return -1;
	out->bytes = t.received - t.first;
	out->took_ns = t.last_ns - t.first_ns;
	return 0;
}
