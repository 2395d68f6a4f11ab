#ifndef TICHAOS_PORT_H
#define TICHAOS_PORT_H

/*
 * Ports of 127.0.0.1 for unit tests that ask an endpoint: one nothing
 * listens on, and one a test's own server listens on.
 *
 *	int port = closed_port();		connecting is refused
 *	int fd, port = listening_port(&fd);	accept(fd, ...) serves it
 */

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

/* A socket bound to a free port of 127.0.0.1, listening when asked: its
 * port, or 0 (and *fd -1) when there is none. */
static inline int bound_port(int *fd, int listening)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	*fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*fd >= 0 && !bind(*fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(*fd, (struct sockaddr *)&a, &len) &&
	    (!listening || !listen(*fd, 16)))
		return ntohs(a.sin_port);
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
	return 0;
}

/* A port of 127.0.0.1 that was free a moment ago, nothing on it now. */
static inline int closed_port(void)
{
	int fd, port = bound_port(&fd, 0);

	if (fd >= 0)
		close(fd);
	return port;
}

/* A port of 127.0.0.1 that *fd listens on; 0 when there is none. */
static inline int listening_port(int *fd)
{
	return bound_port(fd, 1);
}

#endif
