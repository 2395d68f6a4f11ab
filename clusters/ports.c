/*
 * Blocks of ports held while a local cluster takes them (clusters/ports.h).
 * A look that only tries a bind and closes it leaves the block free for
 * seconds, while mariadb-install-db runs: another run choosing then, or
 * a server started on one of its ports, takes it, and mariadbd fails with
 * "Address already in use".
 */
#include "clusters/ports.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/parse.h"

/* Where the auto blocks begin, and how far apart they are. */
#define AUTO_LO 20000
#define BLOCK_STEP 10

void port_block_init(struct port_block *b, int base)
{
	b->base = base;
	for (int i = 0; i < PORTS_PER_CLUSTER; i++)
		b->fds[i] = -1;
}

int port_block_hold(struct port_block *b, int i, struct err *e)
{
	struct sockaddr_in addr;
	int port = b->base + i, one = 1, fd;

	if (i < 0 || i >= PORTS_PER_CLUSTER || b->base <= 0 || port > 65535)
		return err_set(e, ERR_INFRA, "port %d is not of a block of "
			       "%d ports", port, PORTS_PER_CLUSTER);
	if (b->fds[i] >= 0)
		return 0;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return err_errno(e, errno, "cannot make a socket to hold "
				 "port %d", port);
	/* As the servers bind: a connection of an earlier server in
	 * TIME_WAIT does not take its port. */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&addr, 0, sizeof(addr));
	addr.sin_family = AF_INET;
	addr.sin_port = htons((uint16_t)port);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	/* Listening, as no bound socket alone does, it refuses a bind
	 * with SO_REUSEADDR too. */
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    listen(fd, 1)) {
		int err = errno;

		close(fd);
		if (err == EADDRINUSE)
			return 1;
		return err_errno(e, err, "cannot hold port %d", port);
	}
	b->fds[i] = fd;
	return 0;
}

void port_block_release(struct port_block *b, int i)
{
	for (int k = i < 0 ? 0 : i;
	     k < (i < 0 ? PORTS_PER_CLUSTER : i + 1) &&
	     k < PORTS_PER_CLUSTER; k++)
		if (b->fds[k] >= 0) {
			close(b->fds[k]);
			b->fds[k] = -1;
		}
}

/* Hold every port of the block: 0; 1 (holding none) when one is taken. */
static int hold_all(struct port_block *b, struct err *e)
{
	for (int i = 0; i < PORTS_PER_CLUSTER; i++) {
		int rc = port_block_hold(b, i, e);

		if (rc) {
			port_block_release(b, -1);
			return rc;
		}
	}
	return 0;
}

int port_block_find(struct port_block *b, int lo, int hi, int start,
		    int (*skip)(int base), struct err *e)
{
	int n = hi - lo >= PORTS_PER_CLUSTER
		? (hi - lo - PORTS_PER_CLUSTER) / BLOCK_STEP + 1 : 0;

	port_block_release(b, -1);
	for (int k = 0; k < n; k++) {
		int base = lo + (int)(((unsigned)start + (unsigned)k) %
				      (unsigned)n) * BLOCK_STEP;
		int rc;

		if (skip && skip(base))
			continue;
		port_block_init(b, base);
		rc = hold_all(b, e);
		if (rc <= 0) {
			if (rc < 0)
				port_block_init(b, 0);
			return rc;
		}
	}
	port_block_init(b, 0);
	return err_set(e, ERR_INFRA, "no free block of %d ports on 127.0.0.1 "
		       "from %d to %d", PORTS_PER_CLUSTER, lo, hi - 1);
}

/* The first number of /proc/sys/net/ipv4/ip_local_port_range. */
static int ephemeral_start(void)
{
	struct buf text = BUF_INIT;
	int64_t v = 32768;
	char first[16];

	if (!buf_read_file(&text, "/proc/sys/net/ipv4/ip_local_port_range",
			   NULL) &&
	    sscanf(buf_str(&text), "%15s", first) == 1 &&
	    parse_int64(first, 1, 65535, &v, NULL))
		v = 32768;
	buf_release(&text);
	return (int)v;
}

int port_block_auto(struct port_block *b, int (*skip)(int base),
		    struct err *e)
{
	int top = ephemeral_start();

	/* Ephemeral ports from low down leave no room below them: up to
	 * 60000 then, where a connection may take a port released for its
	 * server (the server's start fails then, naming it). */
	if (top <= AUTO_LO + 1000)
		top = 60000;
	return port_block_find(b, AUTO_LO, top, (int)getpid(), skip, e);
}
