/*
 * The local cluster's blocks of ports (clusters/ports.c), in a network
 * namespace of the test's own, where every port is free and no other
 * process on this machine takes one: a block is chosen by holding it,
 * so a second choice, at once or later, never gets it; a port anyone
 * holds makes the choice pass over its block; a released port is the
 * server's to bind.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clusters/ports.h"
#include "tests/unit/tap.h"

#define LO 20000

/* A namespace of our own with its loopback up: 0, or -1 (not root). */
static int own_net(void)
{
	struct ifreq ifr;
	int fd, rc;

	if (unshare(CLONE_NEWNET))
		return -1;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	rc = ioctl(fd, SIOCGIFFLAGS, &ifr);
	ifr.ifr_flags |= IFF_UP;
	rc = rc || ioctl(fd, SIOCSIFFLAGS, &ifr);
	close(fd);
	return rc ? -1 : 0;
}

/* Bind port `port` of 127.0.0.1 as a server does (SO_REUSEADDR, listen
 * when asked): the socket, or -1 with errno. */
static int bind_as_server(int port, int listening)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    (listening && listen(fd, 1))) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

/* How many ports of the block from `base` a server could bind now. */
static int bindable(int base)
{
	int n = 0;

	for (int i = 0; i < PORTS_PER_CLUSTER; i++) {
		int fd = bind_as_server(base + i, 0);

		if (fd >= 0) {
			n++;
			close(fd);
		}
	}
	return n;
}

static int held(const struct port_block *b)
{
	int n = 0;

	for (int i = 0; i < PORTS_PER_CLUSTER; i++)
		n += b->fds[i] >= 0;
	return n;
}

static int skip_first(int base)
{
	return base == LO;
}

static void test_choice(void)
{
	struct port_block a, b, c;
	struct err e = ERR_INIT;
	int fd;

	port_block_init(&a, 0);
	port_block_init(&b, 0);
	port_block_init(&c, 0);
	ok(!port_block_find(&a, LO, LO + 20, 0, NULL, &e),
	   "a block of two is chosen");
	is_int(a.base, LO, "the first, from the 0th");
	is_int(held(&a), PORTS_PER_CLUSTER, "all its ports held");
	is_int(fcntl(a.fds[0], F_GETFD) & FD_CLOEXEC, FD_CLOEXEC,
	       "close-on-exec: no server started inherits one");
	is_int(bindable(LO), 0, "no server binds one of them");
	fd = bind_as_server(LO + 3, 1);
	is_int(fd < 0 ? errno : 0, EADDRINUSE,
	       "SO_REUSEADDR and listen: EADDRINUSE");
	ok(!port_block_find(&b, LO, LO + 20, 0, NULL, &e),
	   "a second choice from the same block");
	is_int(b.base, LO + 10, "gets the other");
	ok(port_block_find(&c, LO, LO + 20, 1, NULL, &e), "a third, none");
	is_str(e.msg, "no free block of 8 ports on 127.0.0.1 from 20000 to "
	       "20019", "says so, with the range");
	is_int(c.base, 0, "and holds no block");
	err_clear(&e);

	port_block_release(&a, 0);
	is_int(a.fds[0], -1, "a released port is not held");
	fd = bind_as_server(LO, 1);
	ok(fd >= 0, "its server binds it");
	close(fd);
	is_int(held(&a), PORTS_PER_CLUSTER - 1, "the rest still held");
	ok(port_block_find(&c, LO, LO + 20, 0, NULL, &e),
	   "with a and b holding all but one port: none");
	err_clear(&e);
	is_int(port_block_hold(&a, 0, &e), 0, "a port held again");
	is_int(port_block_hold(&a, 0, &e), 0, "held already: nothing to do");
	port_block_release(&a, -1);
	is_int(held(&a), 0, "every port released");
	is_int(bindable(LO), PORTS_PER_CLUSTER, "every one bindable");

	fd = bind_as_server(LO + 5, 1);
	port_block_init(&c, LO);
	is_int(port_block_hold(&c, 5, &e), 1, "a port a server listens on: 1");
	ok(!err_isset(&e), "not an error");
	is_int(port_block_hold(&c, PORTS_PER_CLUSTER, &e), -1,
	       "a port off the block: -1");
	is_str(e.msg, "port 20008 is not of a block of 8 ports", "says so");
	err_clear(&e);
	port_block_release(&b, -1);
	ok(!port_block_find(&c, LO, LO + 20, 0, NULL, &e),
	   "one port of the first block in use");
	is_int(c.base, LO + 10, "passes over it");
	is_int(bindable(LO), PORTS_PER_CLUSTER - 1,
	       "and holds none of it, though it held some on the way");
	close(fd);
	port_block_release(&c, -1);

	ok(!port_block_find(&a, LO, LO + 20, 0, skip_first, &e),
	   "a base skip says 1 for");
	is_int(a.base, LO + 10, "is passed over");
	port_block_release(&a, -1);
	ok(!port_block_find(&a, LO, LO + 20, 3, NULL, &e),
	   "the start is taken modulo the blocks");
	is_int(a.base, LO + 10, "3 of 2: the second");
	ok(!port_block_find(&a, LO, LO + 20, 0, NULL, &e),
	   "a new choice lets the old block go first");
	is_int(a.base, LO, "and may take it");
	port_block_release(&a, -1);
}

/*
 * Two processes choosing at once from a range of two blocks, both let
 * go by one byte: each says its base and holds it until the pipe
 * closes.
 */
static void test_at_once(void)
{
	int go[2], said[2], done[2], bases[2] = { 0, 0 };
	pid_t kids[2];

	if (pipe(go) || pipe(said) || pipe(done)) {
		ok(0, "pipes");
		return;
	}
	for (int k = 0; k < 2; k++) {
		kids[k] = fork();
		if (kids[k] == 0) {
			struct port_block b;
			struct err e = ERR_INIT;
			char byte;
			int base;

			close(go[1]);
			close(said[0]);
			close(done[1]);
			port_block_init(&b, 0);
			if (read(go[0], &byte, 1) != 1)
				_exit(2);
			base = port_block_find(&b, LO, LO + 20, 0, NULL, &e)
			       ? -1 : b.base;
			if (base < 0)
				diag("child %d: %s", k, e.msg);
			if (write(said[1], &base, sizeof(base)) != sizeof(base))
				_exit(2);
			/* Held until the parent read both. */
			while (read(done[0], &byte, 1) > 0)
				;
			_exit(0);
		}
	}
	close(go[0]);
	close(said[1]);
	close(done[0]);
	ok(write(go[1], "gg", 2) == 2, "both let go at once");
	for (int k = 0; k < 2; k++)
		if (read(said[0], &bases[k], sizeof(bases[k])) !=
		    sizeof(bases[k]))
			bases[k] = 0;
	close(done[1]);
	for (int k = 0; k < 2; k++)
		waitpid(kids[k], NULL, 0);
	is_int(bases[0] + bases[1], LO + LO + 10, "between them, both blocks");
	ok(bases[0] != bases[1], "never the same one (%d, %d)", bases[0],
	   bases[1]);
	close(go[1]);
	close(said[0]);
}

static void test_auto(void)
{
	struct port_block b;
	struct err e = ERR_INIT;
	/* Blocks from 20000 whose eight ports end below 32768, this
	 * namespace's ephemeral start (Linux's default). */
	int n = (32768 - LO - PORTS_PER_CLUSTER) / 10 + 1;

	port_block_init(&b, 0);
	if (!ok(!port_block_auto(&b, NULL, &e), "auto"))
		diag("%s", e.msg);
	is_int(b.base, LO + (int)(getpid() % n) * 10,
	       "the block of our pid, all being free");
	is_int(held(&b), PORTS_PER_CLUSTER, "held");
	port_block_release(&b, -1);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	if (own_net()) {
		skip_build(38, "no network namespace of its own (needs root)");
		return exit_status();
	}
	test_choice();
	test_at_once();
	test_auto();
	return done_testing();
}
