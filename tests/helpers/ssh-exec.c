/*
 * ssh-exec [OPTIONS] HOST COMMAND: run COMMAND on HOST through lib/ssh,
 * for the SSH tests.
 *
 *   --port P --user U --key K	the target (--key may be left out with
 *				--agent)
 *   --known-hosts F		known_hosts file (default ~/.ssh/known_hosts)
 *   --insecure			accept any host key
 *   --agent			try ssh-agent's keys first
 *   --connect-timeout D	connect + handshake + authentication
 *   --timeout D		the command's limit (default: none)
 *   --stdin FILE		the command's stdin
 *   --repeat N			run it N times on the one connection; an ssh
 *				error is reported and the next run reconnects
 *   --pause D			wait that long between two runs
 *   --ran FILE			create FILE once a run has completed
 *   --wait-for FILE		before each run after the first, wait until
 *				FILE exists (at most 30 s; then exit 255)
 *   --argv			COMMAND and the arguments after it are an argv,
 *				quoted with sh_quote_argv()
 *
 * The command's stdout and stderr go to ours; the exit status is the
 * command's (of the last run). An ssh error prints "ssh-exec: <message>"
 * on stderr and exits 255, as ssh(1) does; a usage error exits 2.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/parse.h"
#include "lib/ssh.h"

/* Wait until `path` exists, at most 30 s. */
static int wait_file(const char *path, struct err *e)
{
	int64_t deadline = clock_mono_ns() + 30 * NS_PER_SEC;

	while (access(path, F_OK))
		if (clock_mono_ns() >= deadline)
			return err_set(e, ERR_INFRA, "%s did not appear within "
				       "30s", path);
		else
			clock_sleep_ns(10 * NS_PER_MS);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: ssh-exec [--port P] --user U [--key K] "
		"[--known-hosts F] [--insecure] [--agent] "
		"[--connect-timeout D] [--timeout D] [--stdin FILE] "
		"[--repeat N] [--pause D] [--ran F] [--wait-for F] [--argv] "
		"HOST COMMAND [ARG...]\n");
	return 2;
}

static void put(int fd, const struct buf *b)
{
	size_t off = 0;

	while (off < b->len) {
		ssize_t n = write(fd, b->data + off, b->len - off);

		if (n <= 0)
			return;
		off += (size_t)n;
	}
}

int main(int argc, char **argv)
{
	struct ssh_target t = { 0 };
	struct buf in = BUF_INIT, command = BUF_INIT;
	struct err e = ERR_INIT;
	struct ssh *s = NULL;
	const char *stdin_file = NULL, *ran = NULL, *wait_for = NULL;
	int64_t timeout_ns = -1, pause_ns = 0, repeat = 1, port = 22;
	int as_argv = 0, code = 255, i;

	for (i = 1; i < argc && !strncmp(argv[i], "--", 2); i++) {
		const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] :
			NULL;
		int takes = 1;

		if (!strcmp(opt, "--insecure")) {
			t.insecure_host_key = 1;
			takes = 0;
		} else if (!strcmp(opt, "--agent")) {
			t.use_agent = 1;
			takes = 0;
		} else if (!strcmp(opt, "--argv")) {
			as_argv = 1;
			takes = 0;
		} else if (!val) {
			return usage();
		} else if (!strcmp(opt, "--port")) {
			if (parse_int64(val, 1, 65535, &port, &e))
				goto usage_error;
		} else if (!strcmp(opt, "--user")) {
			t.user = val;
		} else if (!strcmp(opt, "--key")) {
			t.key = val;
		} else if (!strcmp(opt, "--known-hosts")) {
			t.known_hosts = val;
		} else if (!strcmp(opt, "--connect-timeout")) {
			if (parse_duration(val, &t.connect_timeout_ns, &e))
				goto usage_error;
		} else if (!strcmp(opt, "--timeout")) {
			if (parse_duration(val, &timeout_ns, &e))
				goto usage_error;
		} else if (!strcmp(opt, "--pause")) {
			if (parse_duration(val, &pause_ns, &e))
				goto usage_error;
		} else if (!strcmp(opt, "--ran")) {
			ran = val;
		} else if (!strcmp(opt, "--wait-for")) {
			wait_for = val;
		} else if (!strcmp(opt, "--stdin")) {
			stdin_file = val;
		} else if (!strcmp(opt, "--repeat")) {
			if (parse_int64(val, 1, 1000, &repeat, &e))
				goto usage_error;
		} else {
			return usage();
		}
		i += takes;
	}
	if (argc - i < 2 || (!as_argv && argc - i != 2) || !t.user)
		return usage();
	t.address = argv[i++];
	t.port = (int)port;
	if (as_argv ? sh_quote_argv(&command, (const char *const *)argv + i,
				    &e) :
	    buf_addstr(&command, argv[i], &e))
		goto out;
	if (stdin_file && buf_read_file(&in, stdin_file, &e))
		goto out;
	if (ssh_open(&s, &t, &e))
		goto out;
	for (int64_t run = 0; run < repeat; run++) {
		struct buf out = BUF_INIT, errout = BUF_INIT;

		if (run)
			clock_sleep_ns(pause_ns);
		if (run && wait_for && wait_file(wait_for, &e))
			goto out;
		code = ssh_run(s, buf_str(&command), stdin_file ? &in : NULL,
			       &out, &errout, timeout_ns, &e);
		put(1, &out);
		put(2, &errout);
		buf_release(&out);
		buf_release(&errout);
		if (ran)
			close(open(ran, O_WRONLY | O_CREAT, 0644));
		if (code < 0) {
			fprintf(stderr, "ssh-exec: %s\n", e.msg);
			err_clear(&e);
			code = 255;
		}
	}
out:
	if (err_isset(&e)) {
		fprintf(stderr, "ssh-exec: %s\n", e.msg);
		code = 255;
	}
	ssh_free(s);
	buf_release(&in);
	buf_release(&command);
	return code;
usage_error:
	fprintf(stderr, "ssh-exec: %s: %s\n", argv[i], e.msg);
	return 2;
}
