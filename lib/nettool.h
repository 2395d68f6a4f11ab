#ifndef TICHAOS_NETTOOL_H
#define TICHAOS_NETTOOL_H

/*
 * iproute2's `ip` and `tc` and nftables' `nft`, run as programs: here,
 * in a network namespace of this machine, or on a host reached over a
 * shell (SSH). The hosts of lib/netns.h, the classes of lib/netcls.h
 * and the degraded links are all made with these; neither of the two
 * modules knows the other's tables.
 */

#include "lib/buf.h"
#include "lib/err.h"

/*
 * Run tool `name` (`ip`, `nft`, `tc`) from an sbin directory with `args`
 * (NULL-terminated) after its name; its stdout into `out` (MAY be NULL).
 * A missing tool, or a non-zero exit, is ERR_INFRA with the command and
 * the tool's first line of complaint.
 */
int nettool_run(const char *name, const char *const *args, struct buf *out,
		struct err *e);

/*
 * Run the nft commands `script` (one argument of `nft`: one transaction)
 * in namespace `ns` (NULL: this one), its output into `out` (MAY be
 * NULL). ERR_INFRA with nft's first line of complaint.
 */
int nettool_nft(const char *ns, const char *script, struct buf *out,
		struct err *e);

/*
 * Table `table` ("inet tichaos") of namespace `ns` (NULL: this one),
 * listed into `out`: 1 when it is there, 0 when not (`out` empty), -1
 * when nft failed.
 */
int nettool_list_table(const char *ns, const char *table, struct buf *out,
		       struct err *e);

/*
 * Where a tool runs, and the host it acts on: namespace `ns` of this
 * machine (its eth0; NULL: this namespace), or, with a `shell`, a host
 * reached through it (over SSH), its interface `dev` (the one with
 * address `addr`). The same nft and tc commands run either way: in the
 * namespace, or as one shell command line there, which needs root on
 * that host (CAP_NET_ADMIN).
 */
struct nettool_at {
	const char *ns;		/* borrowed; NULL: this one, or `shell`'s */
	char dev[16];		/* "eth0" */
	/*
	 * MAY (a remote host): run shell command line `command` on it,
	 * its stdout into `out` (appended; MAY be NULL). The exit code, or
	 * -1 with `e` set.
	 */
	int (*shell)(void *ctx, const char *command, struct buf *out,
		     struct err *e);
	void *ctx;
	const char *name;	/* the host, in messages (borrowed) */
	char addr[16];		/* its IPv4 address */
	int has_tc;		/* remote: `tc` is there (one command fewer) */
};

/* Namespace `ns`'s eth0 (its addr left empty: netns_addr tells it). */
void nettool_at_ns(struct nettool_at *at, const char *ns);

/*
 * A host reached through `shell` (`ctx` its first argument), named
 * `name`, at IPv4 address `addr`: `at` filled, its interface found there
 * (`ip -o -4 addr show to ADDR`), and whether it has `tc`. -1 (ERR_INFRA)
 * when no interface there has the address.
 */
int nettool_at_remote(struct nettool_at *at, const char *name,
		      int (*shell)(void *, const char *, struct buf *,
				   struct err *),
		      void *ctx, const char *addr, struct err *e);

/* nettool_nft on host `at`: in its namespace, or over its shell. */
int nettool_nft_at(const struct nettool_at *at, const char *script,
		   struct buf *out, struct err *e);

/* `tc -n NS ARGS` for host `at`'s namespace, or `tc ARGS` over its shell. */
int nettool_tc(const struct nettool_at *at, const char *const *args,
	       struct buf *out, struct err *e);

/* nettool_list_table on host `at`. */
int nettool_list_table_at(const struct nettool_at *at, const char *table,
			  struct buf *out, struct err *e);

#endif
