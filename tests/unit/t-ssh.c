/*
 * lib/ssh.c without an SSH server: shell quoting (checked against a real
 * /bin/sh), and what ssh_open says when nothing or something mute listens.
 * The commands themselves are tested against a real sshd in
 * tests/func/t0800-ssh.sh.
 */

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/proc.h"
#include "lib/ssh.h"
#include "tests/unit/tap.h"
#include "tests/unit/tmpdir.h"

static struct buf quote_buf = BUF_INIT;

/* sh_quote(arg) alone; valid until the next call. */
static const char *quoted(const char *arg)
{
	buf_reset(&quote_buf);
	if (sh_quote(&quote_buf, arg, NULL))
		return NULL;
	return buf_str(&quote_buf);
}

static void test_sh_quote(void)
{
	is_str(quoted(""), "''", "empty string");
	is_str(quoted("abc"), "'abc'", "a plain word is quoted too");
	is_str(quoted("a b\tc"), "'a b\tc'", "spaces and tabs");
	is_str(quoted("it's"), "'it'\\''s'", "a single quote");
	is_str(quoted("''"), "''\\'''\\'''", "only single quotes");
	is_str(quoted("\"$x\""), "'\"$x\"'", "double quotes and $");
	is_str(quoted("$(rm -rf /) `id`"), "'$(rm -rf /) `id`'",
	       "command substitutions stay text");
	is_str(quoted("a\nb"), "'a\nb'", "a newline");
	is_str(quoted("\\*?[;&|<>!~#"), "'\\*?[;&|<>!~#'",
	       "backslash, globs, operators");
}

static void test_sh_quote_argv(void)
{
	static const char *const argv[] = { "printf", "%s|", "a b", "",
					    "it's", NULL };
	static const char *const none[] = { NULL };
	struct buf b = BUF_INIT, small = BUF_INIT;
	struct err e = ERR_INIT;

	ok(!sh_quote_argv(&b, argv, NULL), "argv quoted");
	is_str(buf_str(&b), "'printf' '%s|' 'a b' '' 'it'\\''s'",
	       "each argument quoted, one space between");
	buf_reset(&b);
	buf_addstr(&b, "exec ", NULL);
	ok(!sh_quote_argv(&b, none, NULL), "an empty argv");
	is_str(buf_str(&b), "exec ", "adds nothing");
	buf_release(&b);

	buf_init(&small, 12);
	buf_addstr(&small, "cd /; ", NULL);
	ok(sh_quote_argv(&small, argv, &e) == -1 && e.class == ERR_INFRA,
	   "past the buffer's limit: fails");
	is_str(buf_str(&small), "cd /; ", "and leaves the buffer as it was");
	buf_release(&small);
}

/* What /bin/sh makes of a quoted argv: every argument followed by '|'. */
static void test_round_trip(void)
{
	static const char *const args[] = {
		"", "it's", "''", "a  b", "$(echo no)", "`echo no`", "$HOME",
		"line1\nline2\n", "\\n\\\\", "*", "-n", "é ü", "'\"'\"", NULL,
	};
	struct buf script = BUF_INIT, expect = BUF_INIT, out = BUF_INIT;
	const char *argv[] = { "/bin/sh", "-c", NULL, NULL };
	int code;

	buf_addstr(&script, "printf '%s|' ", NULL);
	sh_quote_argv(&script, args, NULL);
	for (const char *const *a = args; *a; a++) {
		buf_addstr(&expect, *a, NULL);
		buf_addch(&expect, '|', NULL);
	}
	argv[2] = buf_str(&script);
	code = proc_capture(argv, &out, NULL, 10 * NS_PER_SEC, NULL);
	is_int(code, 0, "sh ran the quoted argv");
	ok(out.len == expect.len && !memcmp(out.data, expect.data, out.len),
	   "sh got every argument back byte for byte");
	if (out.len != expect.len || memcmp(out.data, expect.data, out.len))
		diag("got '%s'\nexpected '%s'", buf_str(&out),
		     buf_str(&expect));
	buf_release(&script);
	buf_release(&expect);
	buf_release(&out);
}

/* A TCP socket bound to a free port of 127.0.0.1; listening if asked. */
static int bound_socket(int listening, int *port)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    (listening && listen(fd, 4)) ||
	    getsockname(fd, (struct sockaddr *)&a, &len))
		return -1;
	*port = ntohs(a.sin_port);
	return fd;
}

static void test_open_errors(void)
{
	struct ssh_target t = { 0 };
	struct ssh *s = (struct ssh *)&t;
	struct err e = ERR_INIT;
	char expect[256];
	int fd, port, fds = count_fds();
	int64_t start;

	/* Bound, not listening: connect is refused. */
	fd = bound_socket(0, &port);
	ok(fd >= 0, "a closed port");
	t.address = "127.0.0.1";
	t.port = port;
	t.user = "tichaos";
	t.key = "/nonexistent/id_ed25519";
	ok(ssh_open(&s, &t, &e) == -1, "ssh_open to a closed port fails");
	ok(s == NULL, "and leaves *out NULL");
	is_int(e.class, ERR_INFRA, "an infrastructure error");
	snprintf(expect, sizeof(expect), "ssh 'tichaos@127.0.0.1:%d': cannot "
		 "connect: Connection refused", port);
	is_str(e.msg, expect, "the message");
	close(fd);

	/* Listening but never answering: no banner, the handshake times
	 * out after connect_timeout_ns. */
	err_clear(&e);
	fd = bound_socket(1, &port);
	t.port = port;
	t.connect_timeout_ns = 300 * NS_PER_MS;
	start = clock_mono_ns();
	ok(ssh_open(&s, &t, &e) == -1, "ssh_open to a mute server fails");
	ok(clock_mono_ns() - start < 3 * NS_PER_SEC, "within the timeout");
	snprintf(expect, sizeof(expect), "ssh 'tichaos@127.0.0.1:%d': "
		 "handshake timed out after 300ms", port);
	is_str(e.msg, expect, "the message");
	close(fd);

	err_clear(&e);
	t.address = "";
	ok(ssh_open(&s, &t, &e) == -1, "no address");
	is_str(e.msg, "ssh: a target needs an address and a user",
	       "the message");

	is_int(count_fds(), fds, "no fd left open");
	ssh_free(NULL);
	ok(1, "ssh_free(NULL) is a no-op");
}

/* A log's pattern for the shell: its own characters left to expand,
 * every other quoted (a space, a quote, a $). */
static void test_sh_quote_pattern(void)
{
	struct buf b = BUF_INIT;

	sh_quote_pattern(&b, "/w d/cdc0-*.log");
	is_str(buf_str(&b), "\\/\\w\\ \\d\\/\\c\\d\\c\\0\\-*\\.\\l\\o\\g",
	       "every character quoted but the star");
	buf_reset(&b);
	sh_quote_pattern(&b, "a'$[?]");
	is_str(buf_str(&b), "\\a\\'\\$[?]",
	       "a quote and a $ quoted, ? [ ] not");
	buf_release(&b);
}

int main(void)
{
	test_sh_quote();
	test_sh_quote_argv();
	test_sh_quote_pattern();
	test_round_trip();
	test_open_errors();
	buf_release(&quote_buf);
	return done_testing();
}
