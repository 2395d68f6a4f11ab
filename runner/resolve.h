#ifndef TICHAOS_RESOLVE_H
#define TICHAOS_RESOLVE_H

/*
 * The names in a suite that only the cluster can judge: a fault's
 * `target`, a resign's `etcd`, logscan's `components` (every option of
 * type OPT_COMPONENT or OPT_COMPONENTS), and whatever a fault kind's
 * `resolve` hook looks up (the election a resign moves, the servers it
 * asks). `validate` holds these names to the character set of component
 * names; the runner checks them against the cluster right after it is
 * up, before any workload starts, so that a typo costs no run.
 */

struct cluster;
struct suite;
struct err;

/*
 * 0 when every name of `s` names something in `c`. Else -1 and one
 * "FILE:L:C: message" (ERR_USAGE) naming the value, the closest name
 * when one is near, and the roles and components the cluster has.
 */
int suite_resolve(const struct suite *s, struct cluster *c, struct err *e);

#endif
