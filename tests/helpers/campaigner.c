/*
 * campaigner URL PREFIX NAME [same-lease]: an etcd election candidate
 * that behaves like an owner manager, for the resign tests.
 *
 * It campaigns (a lease, then "<PREFIX>/<lease-hex>" = NAME), keeps its
 * lease alive, and watches its own key: when the key is deleted or its
 * lease is gone it retires and campaigns again at once. It prints one line
 * per change on stdout: "<ms> campaign KEY", "<ms> become", "<ms> retire".
 * SIGTERM revokes its lease and ends it. (A bare `etcdctl elect` does not
 * re-campaign when its key is deleted, so it cannot stand in for TiDB.)
 *
 * With same-lease it campaigns again on the lease it has, as TiDB's owner
 * manager does (pkg/owner/manager.go in pingcap/tidb: campaignLoop calls
 * Campaign again on the same etcd session after watchOwner saw its key
 * deleted), so its new key has the same name and a new create revision;
 * only when the lease is gone (revoked) does it take a new one, as TiDB
 * does on ErrLeaseNotFound. Without it, it takes a new lease each time,
 * as a process that restarts (a TiCDC capture) would.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "lib/cancel.h"
#include "lib/clock.h"
#include "lib/etcd.h"
#include "lib/http.h"

static struct cancel stopping = CANCEL_INIT;

static void on_term(int sig)
{
	(void)sig;
	cancel_raise(&stopping, CANCEL_STOP);
}

static int64_t start_ms;

static void say(const char *what, const char *detail)
{
	printf("%lld %s%s%s\n", (long long)(clock_mono_ns() / NS_PER_MS -
					   start_ms), what,
	       detail ? " " : "", detail ? detail : "");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *url, *prefix, *name;
	char key[512] = "";
	int64_t lease = 0, last_keepalive = 0;
	int owner = 0, same_lease;
	struct sigaction sa;

	if (argc != 4 && !(argc == 5 && !strcmp(argv[4], "same-lease"))) {
		fprintf(stderr, "usage: campaigner URL PREFIX NAME "
			"[same-lease]\n");
		return 2;
	}
	same_lease = argc == 5;
	url = argv[1];
	prefix = argv[2];
	name = argv[3];
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	http_library_init();
	start_ms = clock_mono_ns() / NS_PER_MS;
	while (!cancelled(&stopping, CANCEL_STOP)) {
		struct etcd_kvs kvs = ETCD_KVS_INIT;
		struct err e = ERR_INIT;
		const struct etcd_kv *own = NULL;
		int64_t now = clock_mono_ns();

		if (!lease) {
			if (etcd_lease_grant(url, 10, &lease, &e) ||
			    (snprintf(key, sizeof(key), "%s/%llx", prefix,
				      (unsigned long long)lease),
			     etcd_put(url, key, name, lease, &e))) {
				fprintf(stderr, "campaigner: %s\n", e.msg);
				lease = 0;
				cancel_sleep(&stopping, CANCEL_STOP,
					     200 * NS_PER_MS);
				continue;
			}
			last_keepalive = now;
			say("campaign", key);
		}
		if (now - last_keepalive > NS_PER_SEC) {
			etcd_lease_keepalive(url, lease, NULL);
			last_keepalive = now;
		}
		if (!etcd_election(url, prefix, &kvs, &e)) {
			for (size_t i = 0; i < kvs.n; i++)
				if (!strcmp(kvs.kvs[i].key, key))
					own = &kvs.kvs[i];
			if (!own) {
				/* Deleted, or the lease is gone: retire and
				 * campaign again, as the owner manager does. */
				if (owner)
					say("retire", NULL);
				owner = 0;
				if (same_lease &&
				    !etcd_put(url, key, name, lease, NULL)) {
					say("campaign", key);
				} else {
					etcd_lease_revoke(url, lease, NULL);
					lease = 0;
				}
			} else if (own == etcd_owner(&kvs) && !owner) {
				owner = 1;
				say("become", NULL);
			} else if (own != etcd_owner(&kvs) && owner) {
				owner = 0;
				say("retire", NULL);
			}
		}
		etcd_kvs_release(&kvs);
		cancel_sleep(&stopping, CANCEL_STOP, 20 * NS_PER_MS);
	}
	if (lease)
		etcd_lease_revoke(url, lease, NULL);
	http_library_end();
	return 0;
}
