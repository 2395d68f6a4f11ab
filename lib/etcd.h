#ifndef TICHAOS_ETCD_H
#define TICHAOS_ETCD_H

/*
 * etcd through its v3 JSON gateway (POST /v3/kv/range, ...), enough for
 * elections: TiDB's owners (DDL owner, autoid leader, TiCDC owner) are etcd
 * elections whose candidates put "<prefix>/<lease-hex>" with their id as the
 * value; the key with the lowest create revision owns (docs/internals.md,
 * The cases). PD's client URL serves the same gateway.
 *
 * `url` is the client URL ("http://127.0.0.1:2379"), or several,
 * comma-separated, as etcdctl's --endpoints: a request goes to each in
 * turn until one answers. A member that cannot be reached, or answers 503
 * (gRPC's Unavailable: it has no leader, it is stopping), is passed over,
 * as clientv3 passes over an endpoint; any other answer is the cluster's.
 * The endpoint that answered is asked first from then on (per list, in
 * this process), so a member cut off costs its timeout once.
 * A watch goes on to the next member only while none has streamed to it.
 * Errors are ERR_INFRA: "etcd 'URL': ..." with the HTTP status or gateway
 * message of the member that answered, or, when none of several did,
 * "etcd 'URLS': no endpoint answered; the last: ...".
 */

#include <stddef.h>
#include <stdint.h>

#include "err.h"

struct cancel;

struct etcd_kv {
	char *key;
	char *value;
	int64_t create_revision;
	int64_t mod_revision;
	int64_t lease;
};

struct etcd_kvs {
	struct etcd_kv *kvs;
	size_t n;
	int64_t revision;	/* the store's revision when read */
};

#define ETCD_KVS_INIT { NULL, 0, 0 }

/* The keys under "<prefix>/", sorted by create revision (owner first). */
int etcd_election(const char *url, const char *prefix, struct etcd_kvs *out,
		  struct err *e);

/* The owner of an election read by etcd_election, or NULL (no owner). */
const struct etcd_kv *etcd_owner(const struct etcd_kvs *kvs);

void etcd_kvs_release(struct etcd_kvs *kvs);

/* One change seen by a watch. */
struct etcd_event {
	int deleted;		/* DELETE, else PUT */
	const char *key;
	const char *value;	/* "" for a DELETE */
	int64_t create_revision;
	int64_t mod_revision;
};

typedef void (*etcd_watch_fn)(void *arg, const struct etcd_event *ev);

/*
 * Watch the keys under "<prefix>/" from `start_revision` on (0: from now),
 * calling `fn` for every event in revision order, until `stop` reaches
 * CANCEL_STOP (checked at least every second) or the stream fails. Returns 0
 * when stopped, -1 with `e` set when the watch broke (its member gone):
 * the caller watches on from the revision after the last event it saw;
 * ETCD_WATCH_CANCELED with `e` set when etcd canceled it (that revision
 * was compacted): the caller reads the election again.
 */
#define ETCD_WATCH_CANCELED (-2)

int etcd_watch(const char *url, const char *prefix, int64_t start_revision,
	       etcd_watch_fn fn, void *arg, const struct cancel *stop,
	       struct err *e);

/* Put `key` = `value`, attached to `lease` (0: none). */
int etcd_put(const char *url, const char *key, const char *value,
	     int64_t lease, struct err *e);

/* Delete `key`; *deleted (may be NULL) is how many keys went. */
int etcd_delete(const char *url, const char *key, int64_t *deleted,
		struct err *e);

/* Leases: grant with a TTL in seconds, keep alive once, revoke. */
int etcd_lease_grant(const char *url, int64_t ttl_s, int64_t *id,
		     struct err *e);
int etcd_lease_keepalive(const char *url, int64_t id, struct err *e);
int etcd_lease_revoke(const char *url, int64_t id, struct err *e);

/*
 * The cluster's members and its Raft leader (the maintenance and cluster
 * APIs of the gateway). An ID is a uint64 the gateway writes as a decimal
 * string, kept as that string.
 */
struct etcd_member {
	char id[24];
	char name[64];
	char client_url[256];	/* its first client URL */
};

/* The members, at most `max`, into `out`; their count into *n. */
int etcd_members(const char *url, struct etcd_member *out, size_t max,
		 size_t *n, struct err *e);

/* The leader's ID as the member at `url` sees it ("" or "0": none). */
int etcd_leader(const char *url, char *id, size_t size, struct err *e);

/* The member whose ID is `id`, or NULL. */
const struct etcd_member *etcd_member_find(const struct etcd_member *m,
					   size_t n, const char *id);

/*
 * The leader, as the first of the members `m` that answers with one of
 * them sees it (a member cut off from the others may know none, or an
 * old one that is no member), into `id`: 0. 1 (`id` "") when members
 * answered and none knows a leader; -1 when none answered.
 */
int etcd_leader_among(const struct etcd_member *m, size_t n, char *id,
		      size_t size, struct err *e);

/*
 * Ask the leader at `url` to hand its leadership to member `id` (etcd's
 * MoveLeader, POST /v3/maintenance/transfer-leadership); it answers once
 * the transfer is done or failed, given 10 s where other requests get 5
 * (etcd's own bound is 7 s by default). ETCD_NOT_LEADER (`e` set) when the
 * member is no longer the leader: etcd's "etcdserver: not leader" (HTTP
 * 412 from etcd 3.4's gateway), the leadership having moved meanwhile.
 */
#define ETCD_NOT_LEADER 1
int etcd_move_leader(const char *url, const char *id, struct err *e);

#endif
