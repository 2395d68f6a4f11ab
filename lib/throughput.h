#ifndef TICHAOS_THROUGHPUT_H
#define TICHAOS_THROUGHPUT_H

/*
 * How fast a host sends: bytes over one TCP connection from it to this
 * machine, timed as they arrive (the netem fault's measure of a rate,
 * faults/netem.c). A host is a namespace of lib/netns.h or a host over
 * SSH (struct nettool_at).
 */

#include <stdint.h>

#include "lib/err.h"
#include "lib/nettool.h"

/* What throughput_measure measured. */
struct throughput {
	uint64_t bytes;		/* received after the first read */
	int64_t took_ns;	/* from the first read to the last */
};

/*
 * Send `bytes` over one TCP connection from host `at` to this machine,
 * and time their arrival: the bytes after the first read over the time
 * from it to the last is the throughput of what the host sends. From a
 * namespace, to the bridge's address (the first of the host's net); from
 * a remote host, to our address on the way to it, sent there by bash's
 * /dev/tcp. -1 (`e`) when not all of them arrived within `timeout_ns`.
 */
int throughput_measure(const struct nettool_at *at, uint64_t bytes,
		       int64_t timeout_ns, struct throughput *out,
		       struct err *e);

#endif
