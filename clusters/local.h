#ifndef TICHAOS_LOCAL_H
#define TICHAOS_LOCAL_H

/*
 * What the local cluster (clusters/local.c) keeps in files of its own:
 * its hosts over SSH (clusters/local_ssh.c).
 */

#include "clusters/cluster.h"
#include "lib/netns.h"

/*
 * Start an sshd in each host of `net` that has none running (keys and
 * configuration made in DIR/ssh when missing), wait until each answers
 * on its port 22, and write DIR/ssh-topology.yaml: the cluster's
 * components, each on the SSH host of its own name.
 */
int local_sshd_up(struct cluster *c, const struct netns_net *net,
		  struct err *e);

/* Stop every sshd local_sshd_up started, by the pids it recorded. */
int local_sshd_down(struct cluster *c, const struct netns_net *net,
		    struct err *e);

#endif
