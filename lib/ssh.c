#include "ssh.h"

#include <errno.h>
#include <fcntl.h>
#include <libssh2.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "parse.h"

#define DEFAULT_CONNECT_TIMEOUT_NS (10 * NS_PER_SEC)
/* How long a clean goodbye may take before the connection is just cut. */
#define CLOSE_TIMEOUT_MS 1000

struct ssh {
	pthread_mutex_t lock;		/* serialises ssh_run */
	char *address, *user, *key, *known_hosts;
	int port;
	unsigned insecure_host_key:1;
	unsigned use_agent:1;
	int64_t connect_timeout_ns;
	char name[512];			/* user@address:port */
	/* The live connection; fd < 0 and session NULL when closed. */
	int fd;
	LIBSSH2_SESSION *session;
	unsigned broken:1;		/* reopen before the next command */
};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_rc;

static void init_library(void)
{
	init_rc = libssh2_init(0);
}

static const char *code_name(int code)
{
	static const char *const names[] = {
		[0] = "LIBSSH2_ERROR_NONE",
		[1] = "LIBSSH2_ERROR_SOCKET_NONE",
		[2] = "LIBSSH2_ERROR_BANNER_RECV",
		[3] = "LIBSSH2_ERROR_BANNER_SEND",
		[4] = "LIBSSH2_ERROR_INVALID_MAC",
		[5] = "LIBSSH2_ERROR_KEX_FAILURE",
		[6] = "LIBSSH2_ERROR_ALLOC",
		[7] = "LIBSSH2_ERROR_SOCKET_SEND",
		[8] = "LIBSSH2_ERROR_KEY_EXCHANGE_FAILURE",
		[9] = "LIBSSH2_ERROR_TIMEOUT",
		[10] = "LIBSSH2_ERROR_HOSTKEY_INIT",
		[11] = "LIBSSH2_ERROR_HOSTKEY_SIGN",
		[12] = "LIBSSH2_ERROR_DECRYPT",
		[13] = "LIBSSH2_ERROR_SOCKET_DISCONNECT",
		[14] = "LIBSSH2_ERROR_PROTO",
		[15] = "LIBSSH2_ERROR_PASSWORD_EXPIRED",
		[16] = "LIBSSH2_ERROR_FILE",
		[17] = "LIBSSH2_ERROR_METHOD_NONE",
		[18] = "LIBSSH2_ERROR_AUTHENTICATION_FAILED",
		[19] = "LIBSSH2_ERROR_PUBLICKEY_UNVERIFIED",
		[20] = "LIBSSH2_ERROR_CHANNEL_OUTOFORDER",
		[21] = "LIBSSH2_ERROR_CHANNEL_FAILURE",
		[22] = "LIBSSH2_ERROR_CHANNEL_REQUEST_DENIED",
		[23] = "LIBSSH2_ERROR_CHANNEL_UNKNOWN",
		[24] = "LIBSSH2_ERROR_CHANNEL_WINDOW_EXCEEDED",
		[25] = "LIBSSH2_ERROR_CHANNEL_PACKET_EXCEEDED",
		[26] = "LIBSSH2_ERROR_CHANNEL_CLOSED",
		[27] = "LIBSSH2_ERROR_CHANNEL_EOF_SENT",
		[28] = "LIBSSH2_ERROR_SCP_PROTOCOL",
		[29] = "LIBSSH2_ERROR_ZLIB",
		[30] = "LIBSSH2_ERROR_SOCKET_TIMEOUT",
		[31] = "LIBSSH2_ERROR_SFTP_PROTOCOL",
		[32] = "LIBSSH2_ERROR_REQUEST_DENIED",
		[33] = "LIBSSH2_ERROR_METHOD_NOT_SUPPORTED",
		[34] = "LIBSSH2_ERROR_INVAL",
		[35] = "LIBSSH2_ERROR_INVALID_POLL_TYPE",
		[36] = "LIBSSH2_ERROR_PUBLICKEY_PROTOCOL",
		[37] = "LIBSSH2_ERROR_EAGAIN",
		[38] = "LIBSSH2_ERROR_BUFFER_TOO_SMALL",
		[39] = "LIBSSH2_ERROR_BAD_USE",
		[40] = "LIBSSH2_ERROR_COMPRESS",
		[41] = "LIBSSH2_ERROR_OUT_OF_BOUNDARY",
		[42] = "LIBSSH2_ERROR_AGENT_PROTOCOL",
		[43] = "LIBSSH2_ERROR_SOCKET_RECV",
		[44] = "LIBSSH2_ERROR_ENCRYPT",
		[45] = "LIBSSH2_ERROR_BAD_SOCKET",
		[46] = "LIBSSH2_ERROR_KNOWN_HOSTS",
		[47] = "LIBSSH2_ERROR_CHANNEL_WINDOW_FULL",
		[48] = "LIBSSH2_ERROR_KEYFILE_AUTH_FAILED",
		[49] = "LIBSSH2_ERROR_RANDGEN",
	};

	if (code <= 0 && -code < (int)(sizeof(names) / sizeof(names[0])))
		return names[-code];
	return "LIBSSH2_ERROR";
}

/*
 * What an ssh_open or ssh_run step was doing when libssh2 failed, for
 * translate().
 */
enum step {
	STEP_HANDSHAKE,
	STEP_AUTH,
	STEP_CHANNEL,		/* opening the channel, exec refused */
	STEP_COMMAND,		/* the command's I/O and exit */
};


/*
 * Why the server may have refused a good RSA key: libssh2 before 1.11
 * signs with ssh-rsa (SHA-1) only, which OpenSSH 8.8 and later refuse by
 * default. The key's type is read from its .pub file next to it, when
 * there is one. Into `out`; "" when that is not the case.
 */
static void rsa_sha1_hint(const struct ssh *s, char *out, size_t size)
{
	char path[4096], head[8] = "";
	FILE *f;

	out[0] = '\0';
	if (libssh2_version(0x010b00) || !s->key)
		return;
	snprintf(path, sizeof(path), "%s.pub", s->key);
	f = fopen(path, "re");
	if (!f)
		return;
	if (!fgets(head, sizeof(head), f))
		head[0] = '\0';
	fclose(f);
	if (!strcmp(head, "ssh-rsa"))
		snprintf(out, size, " (libssh2 %s signs RSA keys with ssh-rsa "
			 "(SHA-1), which OpenSSH 8.8 and later refuse by "
			 "default: use an ed25519 key or add ssh-rsa to the "
			 "server's PubkeyAcceptedAlgorithms)",
			 libssh2_version(0));
}

/*
 * The one place LIBSSH2_ERROR_* codes become messages. `rc` is what the
 * failing call returned; libssh2's own text and code are kept. `timeout_ns`
 * is the limit that ran out for LIBSSH2_ERROR_TIMEOUT, `command` the
 * command of STEP_CHANNEL and STEP_COMMAND. Always returns -1.
 */
static int translate(struct ssh *s, int rc, enum step step,
		     const char *command, int64_t timeout_ns, struct err *e)
{
	char *text = NULL, d[32], hint[256];
	int code = rc;

	if (s->session && rc != LIBSSH2_ERROR_TIMEOUT) {
		code = libssh2_session_last_error(s->session, &text, NULL, 0);
		if (code == LIBSSH2_ERROR_NONE)
			code = rc;
	}
	if (!text || !*text)
		text = (char *)"no details";
	format_duration(timeout_ns, d, sizeof(d));
	switch (code) {
	case LIBSSH2_ERROR_TIMEOUT:
		if (step == STEP_HANDSHAKE || step == STEP_AUTH)
			return err_set(e, ERR_INFRA, "ssh '%s': %s timed out "
				       "after %s", s->name, step == STEP_AUTH ?
				       "authentication" : "handshake", d);
		return err_set(e, ERR_INFRA, "ssh '%s': '%.200s' did not "
			       "finish within %s", s->name, command, d);
	case LIBSSH2_ERROR_SOCKET_DISCONNECT:
	case LIBSSH2_ERROR_SOCKET_RECV:
	case LIBSSH2_ERROR_SOCKET_SEND:
	case LIBSSH2_ERROR_BANNER_RECV:
	case LIBSSH2_ERROR_BANNER_SEND:
	case LIBSSH2_ERROR_BAD_SOCKET:
		if (step == STEP_HANDSHAKE || step == STEP_AUTH)
			return err_set(e, ERR_INFRA, "ssh '%s': connection "
				       "lost during %s: %s (%s %d)", s->name,
				       step == STEP_AUTH ? "authentication" :
				       "the handshake", text, code_name(code),
				       code);
		return err_set(e, ERR_INFRA, "ssh '%s': connection lost %s "
			       "'%.200s': %s (%s %d)", s->name,
			       step == STEP_CHANNEL ? "before running" :
			       "while running", command, text,
			       code_name(code), code);
	case LIBSSH2_ERROR_AUTHENTICATION_FAILED:
	case LIBSSH2_ERROR_PUBLICKEY_UNVERIFIED:
		if (step != STEP_AUTH)
			break;
		rsa_sha1_hint(s, hint, sizeof(hint));
		return err_set(e, ERR_INFRA, "ssh '%s': authentication failed "
			       "for user '%s' with key '%s'%s", s->name,
			       s->user, s->key, hint);
	case LIBSSH2_ERROR_FILE:
	case LIBSSH2_ERROR_KEYFILE_AUTH_FAILED:
		if (step != STEP_AUTH)
			break;
		return err_set(e, ERR_INFRA, "ssh '%s': cannot use key '%s': "
			       "%s (%s %d)", s->name, s->key, text,
			       code_name(code), code);
	}
	switch (step) {
	case STEP_HANDSHAKE:
	case STEP_AUTH:
		return err_set(e, ERR_INFRA, "ssh '%s': %s failed: %s (%s %d)",
			       s->name, step == STEP_AUTH ? "authentication" :
			       "handshake", text, code_name(code), code);
	case STEP_CHANNEL:
		return err_set(e, ERR_INFRA, "ssh '%s': cannot run '%.200s': "
			       "%s (%s %d)", s->name, command, text,
			       code_name(code), code);
	default:
		return err_set(e, ERR_INFRA, "ssh '%s': '%.200s' failed: %s "
			       "(%s %d)", s->name, command, text,
			       code_name(code), code);
	}
}

/*
 * Wait until the socket is ready for what libssh2 is blocked on, or the
 * deadline (0: none) passes. 0, or LIBSSH2_ERROR_TIMEOUT.
 */
static int wait_socket(struct ssh *s, int64_t deadline)
{
	int dir = libssh2_session_block_directions(s->session);
	struct pollfd pfd = { s->fd, 0, 0 };
	int wait_ms = -1;

	if (dir & LIBSSH2_SESSION_BLOCK_INBOUND)
		pfd.events |= POLLIN;
	if (dir & LIBSSH2_SESSION_BLOCK_OUTBOUND)
		pfd.events |= POLLOUT;
	if (!pfd.events)	/* waiting for the peer: a window, a reply */
		pfd.events = POLLIN;
	if (deadline) {
		int64_t left = deadline - clock_mono_ns();

		if (left <= 0)
			return LIBSSH2_ERROR_TIMEOUT;
		wait_ms = (int)(left / NS_PER_MS) + 1;
	}
	if (poll(&pfd, 1, wait_ms) == 0)
		return LIBSSH2_ERROR_TIMEOUT;
	/* EINTR, POLLERR, POLLHUP: the next libssh2 call sees them. */
	return 0;
}

/* Call a non-blocking libssh2 function until it stops saying EAGAIN. */
#define RETRY(rc, s, deadline, call) \
	do { \
		while (((rc) = (call)) == LIBSSH2_ERROR_EAGAIN && \
		       ((rc) = wait_socket((s), (deadline))) == 0) \
			; \
	} while (0)

static int64_t deadline_after(int64_t ns)
{
	return ns < 0 ? 0 : clock_mono_ns() + ns;
}

/*
 * Close the connection, politely when it still works: every channel,
 * the session and the socket are freed. The next ssh_run reopens it.
 */
static void drop(struct ssh *s)
{
	if (s->session) {
		libssh2_session_set_blocking(s->session, 1);
		libssh2_session_set_timeout(s->session, CLOSE_TIMEOUT_MS);
		if (!s->broken)
			libssh2_session_disconnect(s->session, "bye");
		/* A cut socket makes every send fail at once, so freeing
		 * cannot stall on (or leak past) a peer that went away. */
		shutdown(s->fd, SHUT_RDWR);
		libssh2_session_free(s->session);
		s->session = NULL;
	}
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->broken = 0;
}

/* A TCP connection to the target within the deadline, into s->fd. */
static int tcp_connect(struct ssh *s, int64_t deadline, int64_t timeout_ns,
		       struct err *e)
{
	struct addrinfo hints, *list = NULL;
	char port[16], d[32];
	int rc, last_errno = 0, timed_out = 0;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(port, sizeof(port), "%d", s->port);
	rc = getaddrinfo(s->address, port, &hints, &list);
	if (rc)
		return err_set(e, ERR_INFRA, "ssh '%s': cannot resolve "
			       "'%s': %s", s->name, s->address,
			       rc == EAI_SYSTEM ? strerror(errno) :
			       gai_strerror(rc));
	for (struct addrinfo *a = list; a; a = a->ai_next) {
		int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK |
				SOCK_CLOEXEC, a->ai_protocol);
		int one = 1;

		if (fd < 0) {
			last_errno = errno;
			continue;
		}
		if (!connect(fd, a->ai_addr, a->ai_addrlen)) {
			last_errno = 0;
		} else if (errno != EINPROGRESS) {
			last_errno = errno;
		} else {
			struct pollfd pfd = { fd, POLLOUT, 0 };
			socklen_t len = sizeof(last_errno);
			int ready;

			do {
				int64_t left = deadline - clock_mono_ns();

				ready = left <= 0 ? 0 : poll(&pfd, 1,
						(int)(left / NS_PER_MS) + 1);
			} while (ready < 0 && errno == EINTR);
			if (ready > 0) {
				if (getsockopt(fd, SOL_SOCKET, SO_ERROR,
					       &last_errno, &len))
					last_errno = errno;
			} else {
				last_errno = ETIMEDOUT;
				timed_out = 1;
			}
		}
		if (!last_errno) {
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
				   sizeof(one));
			s->fd = fd;
			break;
		}
		close(fd);
		if (timed_out)
			break;
	}
	freeaddrinfo(list);
	if (s->fd >= 0)
		return 0;
	if (timed_out)
		return err_set(e, ERR_INFRA, "ssh '%s': cannot connect: timed "
			       "out after %s", s->name,
			       format_duration(timeout_ns, d, sizeof(d)));
	return err_errno(e, last_errno, "ssh '%s': cannot connect", s->name);
}

static int knownhost_type(int hostkey_type)
{
	switch (hostkey_type) {
	case LIBSSH2_HOSTKEY_TYPE_RSA:
		return LIBSSH2_KNOWNHOST_KEY_SSHRSA;
	case LIBSSH2_HOSTKEY_TYPE_DSS:
		return LIBSSH2_KNOWNHOST_KEY_SSHDSS;
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_256:
		return LIBSSH2_KNOWNHOST_KEY_ECDSA_256;
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_384:
		return LIBSSH2_KNOWNHOST_KEY_ECDSA_384;
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_521:
		return LIBSSH2_KNOWNHOST_KEY_ECDSA_521;
	case LIBSSH2_HOSTKEY_TYPE_ED25519:
		return LIBSSH2_KNOWNHOST_KEY_ED25519;
	}
	return LIBSSH2_KNOWNHOST_KEY_UNKNOWN;
}

static const char *hostkey_type_name(int hostkey_type)
{
	switch (hostkey_type) {
	case LIBSSH2_HOSTKEY_TYPE_RSA:
		return "ssh-rsa";
	case LIBSSH2_HOSTKEY_TYPE_DSS:
		return "ssh-dss";
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_256:
		return "ecdsa-sha2-nistp256";
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_384:
		return "ecdsa-sha2-nistp384";
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_521:
		return "ecdsa-sha2-nistp521";
	case LIBSSH2_HOSTKEY_TYPE_ED25519:
		return "ssh-ed25519";
	}
	return "unknown";
}

/* "SHA256:<base64 without padding>", as ssh-keygen -l prints it. */
static void fingerprint(LIBSSH2_SESSION *session, char *out, size_t size)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		"0123456789+/";
	const unsigned char *h = (const unsigned char *)
		libssh2_hostkey_hash(session, LIBSSH2_HOSTKEY_HASH_SHA256);
	char text[64] = "SHA256:";
	size_t n = strlen(text);

	if (!h) {
		snprintf(out, size, "no fingerprint");
		return;
	}
	for (int i = 0; i < 32; i += 3) {
		unsigned v = (unsigned)h[i] << 16;

		if (i + 1 < 32)
			v |= (unsigned)h[i + 1] << 8;
		if (i + 2 < 32)
			v |= h[i + 2];
		text[n++] = b64[(v >> 18) & 63];
		text[n++] = b64[(v >> 12) & 63];
		if (i + 1 < 32)
			text[n++] = b64[(v >> 6) & 63];
		if (i + 2 < 32)
			text[n++] = b64[v & 63];
	}
	text[n] = '\0';
	snprintf(out, size, "%s", text);
}

/*
 * Read the known_hosts file line by line: one line libssh2 cannot parse
 * (a marker, a key type it does not know) must not hide the others. A
 * missing file is an empty one. 0, or -1 when it cannot be read.
 */
static int read_known_hosts(struct ssh *s, LIBSSH2_KNOWNHOSTS *hosts,
			    const char *path, struct err *e)
{
	struct buf text = BUF_INIT;
	struct err local = ERR_INIT;
	const char *p, *end;

	if (access(path, F_OK) && errno == ENOENT)
		return 0;
	if (buf_read_file(&text, path, &local)) {
		buf_release(&text);
		return err_set(e, ERR_INFRA, "ssh '%s': %s", s->name,
			       local.msg);
	}
	for (p = buf_str(&text), end = p + text.len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		while (len && (*p == ' ' || *p == '\t')) {
			p++;
			len--;
		}
		/* With its newline: libssh2 looks at the byte after `len`
		 * and drops it from the key if it is one. */
		if (len && *p != '#' && *p != '@')
			libssh2_knownhost_readline(hosts, p, len + !!nl,
					LIBSSH2_KNOWNHOST_FILE_OPENSSH);
		p += len + 1;
	}
	buf_release(&text);
	return 0;
}

static int check_host_key(struct ssh *s, struct err *e)
{
	LIBSSH2_KNOWNHOSTS *hosts = NULL;
	char file[4096], entry[600], fp[80];
	const char *key, *path = s->known_hosts;
	size_t key_len;
	int type, rc = -1;

	key = libssh2_session_hostkey(s->session, &key_len, &type);
	if (!key)
		return translate(s, LIBSSH2_ERROR_HOSTKEY_INIT, STEP_HANDSHAKE,
				 NULL, 0, e);
	if (s->insecure_host_key)
		return 0;
	if (!path) {
		const char *home = getenv("HOME");

		snprintf(file, sizeof(file), "%s/.ssh/known_hosts",
			 home ? home : "");
		path = file;
	}
	if (s->port == 22)
		snprintf(entry, sizeof(entry), "%s", s->address);
	else
		snprintf(entry, sizeof(entry), "[%s]:%d", s->address, s->port);
	fingerprint(s->session, fp, sizeof(fp));
	hosts = libssh2_knownhost_init(s->session);
	if (!hosts) {
		translate(s, LIBSSH2_ERROR_ALLOC, STEP_HANDSHAKE, NULL, 0, e);
		goto out;
	}
	if (read_known_hosts(s, hosts, path, e))
		goto out;
	switch (libssh2_knownhost_checkp(hosts, s->address, s->port, key,
					 key_len,
					 LIBSSH2_KNOWNHOST_TYPE_PLAIN |
					 LIBSSH2_KNOWNHOST_KEYENC_RAW |
					 knownhost_type(type), NULL)) {
	case LIBSSH2_KNOWNHOST_CHECK_MATCH:
		rc = 0;
		break;
	case LIBSSH2_KNOWNHOST_CHECK_MISMATCH:
		err_set(e, ERR_INFRA, "ssh '%s': host key mismatch: the %s key "
			"of '%s' in '%s' differs from the server's %s",
			s->name, hostkey_type_name(type), entry, path, fp);
		break;
	case LIBSSH2_KNOWNHOST_CHECK_NOTFOUND:
		err_set(e, ERR_INFRA, "ssh '%s': host key unknown: no %s key "
			"of '%s' in '%s' (the server's is %s)", s->name,
			hostkey_type_name(type), entry, path, fp);
		break;
	default:
		translate(s, LIBSSH2_ERROR_KNOWN_HOSTS, STEP_HANDSHAKE, NULL, 0,
			  e);
		break;
	}
out:
	if (hosts)
		libssh2_knownhost_free(hosts);
	return rc;
}

/* 0 when one of the agent's identities was accepted, 1 when none was. */
static int auth_agent(struct ssh *s, int64_t deadline, int *rc)
{
	LIBSSH2_AGENT *agent = libssh2_agent_init(s->session);
	struct libssh2_agent_publickey *id = NULL, *prev = NULL;
	int done = 1;

	*rc = 0;
	if (!agent)
		return 1;
	if (libssh2_agent_connect(agent) || libssh2_agent_list_identities(
		    agent))
		goto out;
	while (libssh2_agent_get_identity(agent, &id, prev) == 0) {
		RETRY(*rc, s, deadline, libssh2_agent_userauth(agent, s->user,
							       id));
		if (!*rc) {
			done = 0;
			break;
		}
		if (*rc == LIBSSH2_ERROR_TIMEOUT ||
		    *rc == LIBSSH2_ERROR_SOCKET_DISCONNECT ||
		    *rc == LIBSSH2_ERROR_SOCKET_RECV ||
		    *rc == LIBSSH2_ERROR_SOCKET_SEND)
			break;
		prev = id;
	}
	libssh2_agent_disconnect(agent);
out:
	libssh2_agent_free(agent);
	return done;
}

static int authenticate(struct ssh *s, int64_t deadline, int64_t timeout_ns,
			struct err *e)
{
	int rc = LIBSSH2_ERROR_AUTHENTICATION_FAILED;

	if (s->use_agent && !auth_agent(s, deadline, &rc))
		return 0;
	if (rc == LIBSSH2_ERROR_TIMEOUT)
		return translate(s, rc, STEP_AUTH, NULL, timeout_ns, e);
	if (!s->key && s->use_agent)
		return err_set(e, ERR_INFRA, "ssh '%s': authentication failed "
			       "for user '%s' with the agent's keys", s->name,
			       s->user);
	RETRY(rc, s, deadline, libssh2_userauth_publickey_fromfile(
		      s->session, s->user, NULL, s->key, NULL));
	if (rc)
		return translate(s, rc, STEP_AUTH, NULL, timeout_ns, e);
	return 0;
}

/* Connect, handshake, check the host key, authenticate. */
static int reopen(struct ssh *s, struct err *e)
{
	int64_t deadline = clock_mono_ns() + s->connect_timeout_ns;
	int rc;

	drop(s);
	if (tcp_connect(s, deadline, s->connect_timeout_ns, e))
		return -1;
	s->session = libssh2_session_init();
	if (!s->session) {
		drop(s);
		return err_set(e, ERR_INFRA, "ssh '%s': cannot create a "
			       "session", s->name);
	}
	libssh2_session_set_blocking(s->session, 0);
	RETRY(rc, s, deadline, libssh2_session_handshake(s->session, s->fd));
	if (rc) {
		translate(s, rc, STEP_HANDSHAKE, NULL, s->connect_timeout_ns,
			  e);
		goto fail;
	}
	if (check_host_key(s, e) ||
	    authenticate(s, deadline, s->connect_timeout_ns, e))
		goto fail;
	return 0;
fail:
	s->broken = 1;
	drop(s);
	return -1;
}

static char *dup_or_null(const char *str)
{
	return str ? xstrdup(str) : NULL;
}

int ssh_open(struct ssh **out, const struct ssh_target *t, struct err *e)
{
	struct ssh *s;

	*out = NULL;
	pthread_once(&init_once, init_library);
	if (init_rc)
		return err_set(e, ERR_INFRA, "cannot initialise libssh2 (%d)",
			       init_rc);
	if (!t->address || !*t->address || !t->user || !*t->user)
		return err_set(e, ERR_INFRA, "ssh: a target needs an address "
			       "and a user");
	if (!t->key && !t->use_agent)
		return err_set(e, ERR_INFRA, "ssh: a target needs a key file "
			       "or the agent");
	s = xcalloc(1, sizeof(*s));
	s->fd = -1;
	s->port = t->port ? t->port : 22;
	s->insecure_host_key = t->insecure_host_key;
	s->use_agent = t->use_agent;
	s->connect_timeout_ns = t->connect_timeout_ns > 0 ?
		t->connect_timeout_ns : DEFAULT_CONNECT_TIMEOUT_NS;
	s->address = xstrdup(t->address);
	s->user = xstrdup(t->user);
	s->key = dup_or_null(t->key);
	s->known_hosts = dup_or_null(t->known_hosts);
	pthread_mutex_init(&s->lock, NULL);
	snprintf(s->name, sizeof(s->name), strchr(t->address, ':') ?
		 "%s@[%s]:%d" : "%s@%s:%d", t->user, t->address, s->port);
	if (!s->address || !s->user || (t->key && !s->key) ||
	    (t->known_hosts && !s->known_hosts)) {
		err_errno(e, ENOMEM, "ssh '%s': cannot allocate", s->name);
		ssh_free(s);
		return -1;
	}
	if (reopen(s, e)) {
		ssh_free(s);
		return -1;
	}
	*out = s;
	return 0;
}

void ssh_free(struct ssh *s)
{
	if (!s)
		return;
	drop(s);
	pthread_mutex_destroy(&s->lock);
	free(s->address);
	free(s->user);
	free(s->key);
	free(s->known_hosts);
	free(s);
}

const char *ssh_name(const struct ssh *s)
{
	return s->name;
}

/* 128 + the number of a signal named without "SIG" ("TERM"), or 255. */
static int signal_code(const char *name)
{
	if (!strncmp(name, "SIG", 3))
		name += 3;
	for (int sig = 1; sig < SIGRTMIN; sig++) {
		const char *abbrev = sigabbrev_np(sig);

		if (abbrev && !strcmp(abbrev, name))
			return 128 + sig;
	}
	return 255;
}

/* Append what arrived on one of the channel's streams, draining it. */
static int drain(LIBSSH2_CHANNEL *ch, int stream, struct buf *dest,
		 struct err *overflow, int *progress)
{
	char chunk[16384];
	ssize_t n;

	while ((n = libssh2_channel_read_ex(ch, stream, chunk,
					    sizeof(chunk))) > 0) {
		*progress = 1;
		if (dest && !err_isset(overflow))
			buf_add(dest, chunk, (size_t)n, overflow);
	}
	return n == LIBSSH2_ERROR_EAGAIN ? 0 : (int)n;
}

/*
 * One command on an open session. Returns its exit code, or -1 with `e`
 * set; `*may_retry` is then set when it failed opening the channel for a
 * reason other than a timeout, before anything was sent for the command.
 */
static int run_once(struct ssh *s, const char *command, const struct buf *in,
		    struct buf *out, struct buf *errout, int64_t timeout_ns,
		    int *may_retry, struct err *e)
{
	int64_t deadline = deadline_after(timeout_ns);
	LIBSSH2_CHANNEL *ch;
	struct err overflow = ERR_INIT;
	size_t in_off = 0, in_len = in ? in->len : 0;
	int rc, eof_sent = 0, code;
	char *signame = NULL;

	*may_retry = 0;
	while (!(ch = libssh2_channel_open_session(s->session))) {
		rc = libssh2_session_last_errno(s->session);
		if (rc != LIBSSH2_ERROR_EAGAIN)
			*may_retry = 1;
		else if (!(rc = wait_socket(s, deadline)))
			continue;
		return translate(s, rc, rc == LIBSSH2_ERROR_TIMEOUT ?
				 STEP_COMMAND : STEP_CHANNEL, command,
				 timeout_ns, e);
	}
	RETRY(rc, s, deadline, libssh2_channel_exec(ch, command));
	if (rc)
		return translate(s, rc, rc == LIBSSH2_ERROR_CHANNEL_REQUEST_DENIED
				 || rc == LIBSSH2_ERROR_CHANNEL_FAILURE ?
				 STEP_CHANNEL : STEP_COMMAND, command,
				 timeout_ns, e);
	for (;;) {
		int progress = 0;

		if (in_off < in_len) {
			ssize_t n = libssh2_channel_write(ch, in->data + in_off,
							  in_len - in_off);

			if (n > 0) {
				in_off += (size_t)n;
				progress = 1;
			} else if (n == LIBSSH2_ERROR_CHANNEL_CLOSED ||
				   n == LIBSSH2_ERROR_CHANNEL_EOF_SENT) {
				/* It ended without reading it all. */
				in_off = in_len;
			} else if (n < 0 && n != LIBSSH2_ERROR_EAGAIN) {
				return translate(s, (int)n, STEP_COMMAND,
						 command, timeout_ns, e);
			}
		} else if (!eof_sent) {
			rc = libssh2_channel_send_eof(ch);
			if (!rc || rc == LIBSSH2_ERROR_CHANNEL_CLOSED) {
				eof_sent = 1;
				progress = 1;
			} else if (rc != LIBSSH2_ERROR_EAGAIN) {
				return translate(s, rc, STEP_COMMAND, command,
						 timeout_ns, e);
			}
		}
		if ((rc = drain(ch, 0, out, &overflow, &progress)) ||
		    (rc = drain(ch, SSH_EXTENDED_DATA_STDERR, errout, &overflow,
				&progress)))
			return translate(s, rc, STEP_COMMAND, command,
					 timeout_ns, e);
		if (libssh2_channel_eof(ch) && eof_sent)
			break;
		if (!progress && (rc = wait_socket(s, deadline)))
			return translate(s, rc, STEP_COMMAND, command,
					 timeout_ns, e);
	}
	/* The exit status and signal come before the server's close. */
	RETRY(rc, s, deadline, libssh2_channel_close(ch));
	if (!rc)
		RETRY(rc, s, deadline, libssh2_channel_wait_closed(ch));
	if (rc)
		return translate(s, rc, STEP_COMMAND, command, timeout_ns, e);
	code = libssh2_channel_get_exit_status(ch);
	libssh2_channel_get_exit_signal(ch, &signame, NULL, NULL, NULL, NULL,
					NULL);
	if (signame) {
		code = signal_code(signame);
		libssh2_free(s->session, signame);
	}
	RETRY(rc, s, deadline, libssh2_channel_free(ch));
	if (rc)
		return translate(s, rc, STEP_COMMAND, command, timeout_ns, e);
	if (err_isset(&overflow))
		return err_set(e, overflow.class, "ssh '%s': output of "
			       "'%.200s': %s", s->name, command, overflow.msg);
	return code;
}

int ssh_run(struct ssh *s, const char *command, const struct buf *in,
	    struct buf *out, struct buf *errout, int64_t timeout_ns,
	    struct err *e)
{
	int code = -1;

	pthread_mutex_lock(&s->lock);
	for (int attempt = 0; attempt < 2; attempt++) {
		struct err first = ERR_INIT;
		int reused = s->session && !s->broken, may_retry;

		if (!reused && reopen(s, e))
			break;
		code = run_once(s, command, in, out, errout, timeout_ns,
				&may_retry, &first);
		if (code >= 0)
			break;
		/* Whatever failed, the session is in an unknown state: a
		 * half-read channel, a dead peer. Closing it also ends the
		 * channel of a command that timed out. */
		s->broken = 1;
		drop(s);
		/* A connection that died while idle (the server restarted)
		 * fails before the command was sent: that is safe to try
		 * once more on a new one. */
		if (!reused || !may_retry || attempt) {
			err_set(e, first.class, "%s", first.msg);
			break;
		}
	}
	pthread_mutex_unlock(&s->lock);
	return code;
}

int sh_quote(struct buf *out, const char *arg, struct err *e)
{
	size_t start = out->len;
	int rc = buf_addch(out, '\'', e);

	for (const char *p = arg; !rc && *p; p++)
		rc = *p == '\'' ? buf_addstr(out, "'\\''", e) :
			buf_addch(out, *p, e);
	if (!rc)
		rc = buf_addch(out, '\'', e);
	if (rc)
		buf_truncate(out, start);
	return rc;
}

void sh_quote_pattern(struct buf *out, const char *pattern)
{
	for (const char *ch = pattern; *ch; ch++) {
		if (!strchr("*?[]", *ch))
			buf_addch(out, '\\', NULL);
		buf_addch(out, *ch, NULL);
	}
}

int sh_quote_argv(struct buf *out, const char *const *argv, struct err *e)
{
	size_t start = out->len;

	for (const char *const *a = argv; *a; a++)
		if ((a != argv && buf_addch(out, ' ', e)) ||
		    sh_quote(out, *a, e)) {
			buf_truncate(out, start);
			return -1;
		}
	return 0;
}
