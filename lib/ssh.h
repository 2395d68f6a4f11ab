#ifndef TICHAOS_SSH_H
#define TICHAOS_SSH_H

/*
 * Commands on SSH hosts (libssh2), returning what lib/proc returns for a
 * local child: the exit status, or 128 + the signal number when the remote
 * command was killed by a signal.
 *
 * One `struct ssh` is one authenticated connection, reused for every
 * command run on that host (one channel per command). It may be shared by
 * threads: ssh_run() calls on one connection are serialised. A connection
 * that broke (the host went away, a timeout left a channel half-read) is
 * reopened by the next ssh_run().
 *
 * Host keys are checked against a known_hosts file (OpenSSH format, hashed
 * names included): an unknown host or a key that differs is an error unless
 * `insecure_host_key` is set. Authentication is by key only: the agent
 * first when `use_agent` is set, then the private key file.
 *
 * Errors (ERR_INFRA) name the host and say what failed first, keeping
 * libssh2's code and text: "ssh 'tichaos@127.0.0.1:2222': handshake failed:
 * <libssh2's text> (LIBSSH2_ERROR_KEX_FAILURE -5)", "ssh '...': host key
 * mismatch: the ssh-ed25519 key of '[127.0.0.1]:2222' in '/x/known_hosts'
 * differs from the server's SHA256:<fingerprint>", "ssh '...': host key
 * unknown: no ssh-ed25519 key of '[127.0.0.1]:2222' in '/x/known_hosts'
 * (the server's is SHA256:<fingerprint>)", "ssh '...': authentication
 * failed for user 'tichaos' with key '/x/id_ed25519'", "ssh '...': cannot
 * connect: Connection refused", "ssh '...': handshake timed out after 10s",
 * "ssh '...': 'sleep 60' did not finish within 5s". One function in ssh.c
 * translates LIBSSH2_ERROR_* codes.
 *
 * RSA keys: libssh2 before 1.11 signs with ssh-rsa (SHA-1), which OpenSSH
 * 8.8 and later refuse unless the server's PubkeyAcceptedAlgorithms allows
 * it; the authentication error then says so. ed25519 keys just work.
 */

#include <stdint.h>

#include "buf.h"
#include "err.h"

struct ssh_target {
	const char *address;	/* MUST: host name or IP address */
	int port;		/* 0: 22 */
	const char *user;	/* MUST */
	const char *key;	/* MAY: private key file (ed25519, RSA) */
	/* MAY: known_hosts file; NULL: $HOME/.ssh/known_hosts. */
	const char *known_hosts;
	unsigned insecure_host_key:1;	/* accept any host key */
	unsigned use_agent:1;		/* try ssh-agent's keys first */
	/* Connect, handshake and authentication together; 0: 10 s. */
	int64_t connect_timeout_ns;
};

struct ssh;

/*
 * Connect, check the host key and authenticate. On success *out is a new
 * connection the caller frees with ssh_free(). The target's strings are
 * copied.
 */
int ssh_open(struct ssh **out, const struct ssh_target *t, struct err *e);

/* Close the connection and free it; NULL is a no-op. */
void ssh_free(struct ssh *s);

/* "user@address:port", for messages. */
const char *ssh_name(const struct ssh *s);

/*
 * Run `command` (one line for the remote user's shell; quote arguments
 * with sh_quote()) on the host. Its stdout is appended to `out` and its
 * stderr to `errout` (either NULL: discarded); `in` (NULL: nothing) is its
 * stdin, which is then closed. Returns the exit code (0..255, or 128 +
 * signal), or -1 with `e` set when the command could not be run or did
 * not finish within `timeout_ns` (< 0: no limit; reopening a broken
 * connection first has its own connect timeout). After a timeout the
 * connection is closed with the channel, which ends the remote command
 * with SIGHUP on OpenSSH servers only when it has a terminal; callers keep
 * remote commands short or detached. A command that fails to start on a
 * reused connection that turns out dead is tried once more on a new one.
 */
int ssh_run(struct ssh *s, const char *command, const struct buf *in,
	    struct buf *out, struct buf *errout, int64_t timeout_ns,
	    struct err *e);

/* Append `arg` quoted for a POSIX shell ('it'\''s'). */
int sh_quote(struct buf *out, const char *arg, struct err *e);

/* Append every argument of a NULL-terminated argv, quoted, space-separated. */
int sh_quote_argv(struct buf *out, const char *const *argv, struct err *e);

/* Shell pattern `pattern` appended to `out`, every character quoted but
 * the pattern's own (* ? [ ]), which the shell then expands. */
void sh_quote_pattern(struct buf *out, const char *pattern);

#endif
