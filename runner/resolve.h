#ifndef TICHAOS_RESOLVE_H
#define TICHAOS_RESOLVE_H

/*
 * The names in a suite that only the cluster can judge: a fault's
 * `target`, a resign's `etcd`, logscan's `components` (every option of
 * type OPT_COMPONENT or OPT_COMPONENTS), and whatever a fault kind's
 * `resolve` hook looks up (the election a resign moves, the servers it
 * asks). `validate` holds these names to the character set of component
 * names; the runner checks them against the cluster right after it is
 * up, before any workload starts, so that a typo costs no run. So too
 * the version floors (docs/topology.md): every TiCDC capture must run
 * TiCDC >= 6.6 (its Open API v2), and a resign of the autoid leader
 * needs TiDB >= 6.4 where a TiDB says its release.
 */

#include <stddef.h>

struct cluster;
struct suite;
struct err;

/*
 * 0 when every name of `s` names something in `c` and the servers are
 * recent enough. Else -1 and one "FILE:L:C: message" (ERR_USAGE) naming
 * the value, the closest name when one is near, and the roles and
 * components the cluster has; or naming the server, its release and the
 * release needed.
 */
int suite_resolve(const struct suite *s, struct cluster *c, struct err *e);

/*
 * Can the bug the suite catches (catches:, docs/suite-format.md) show on
 * `c`? Asks each server of its kind (TiDB: the upstream's GET /status;
 * TiCDC: each capture's GET /api/v2/status) for its release, as the
 * floors do. 1 when every one that says its release runs one with the
 * fix, with `why` (of `size` bytes) filled with the one line that says so,
 * naming the first; else 0 (no catch declared, a release before the fix,
 * or none said).
 */
int suite_fixed_here(const struct suite *s, struct cluster *c, char *why,
		     size_t size);

#endif
