#ifndef TICHAOS_LOCAL_H
#define TICHAOS_LOCAL_H

/*
 * What the local cluster (clusters/local.c) keeps in files of its own:
 * its section of a suite (clusters/local_suite.c), its hosts over SSH
 * (clusters/local_ssh.c).
 */

#include "clusters/cluster.h"
#include "lib/netns.h"

/*
 * The suite's settings for the local cluster's servers (cluster.local,
 * docs/suite-format.md#the-local-cluster): the errors the replica may
 * skip, and server options for each side. Options are name and value
 * pairs, names as written ('-' or '_').
 */
struct local_suite {
	long *skip_errors;		/* replica_skip_errors */
	size_t nskip_errors;
	int skip_line;			/* where they were given */
	int skip_col;
	char **options[2];		/* [0] upstream, [1] downstream: name,
					 * value, ..., NULL */
	size_t noptions[2];		/* pairs */
	/* hosts: the components each on a host of their own; HOSTS_DEFAULT
	 * when the suite does not say. */
	enum hosts_mode hosts;
};

/* cluster.local's parser (struct cluster_type's suite): what it parses
 * is a struct local_suite, which open reads as o->section. */
extern const struct suite_section_type local_suite_section;

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
