/*
 * lib/throughput.c without root or a namespace: a "remote" host whose
 * shell is /bin/sh here, at 127.0.0.1, sends with bash's /dev/tcp as a
 * host over SSH would; every byte is counted, the time is that from the
 * first read to the last, the command line is the one a host gets, and a
 * sender that stops short is an error when its connection ends, saying
 * how much came. No descriptor is left open.
 */

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/proc.h"
#include "lib/throughput.h"
#include "tests/unit/tap.h"
#include "tests/unit/tmpdir.h"

static struct buf asked = BUF_INIT;
static const char *swap_from, *swap_to;	/* rewrite the command so */

static int local_shell(void *ctx, const char *command, struct buf *out,
		       struct err *e)
{
	struct buf line = BUF_INIT;
	const char *argv[] = { "/bin/sh", "-c", NULL, NULL };
	const char *at = swap_from ? strstr(command, swap_from) : NULL;
	int code;

	(void)ctx;
	buf_printf(&asked, NULL, "%s\n", command);
	if (at)
		buf_printf(&line, NULL, "%.*s%s%s", (int)(at - command), command,
			   swap_to, at + strlen(swap_from));
	else
		buf_addstr(&line, command, NULL);
	argv[2] = buf_str(&line);
	code = proc_capture(argv, out, NULL, 10 * NS_PER_SEC, e);
	buf_release(&line);
	return code;
}

static void remote(struct nettool_at *at)
{
	memset(at, 0, sizeof(*at));
	at->shell = local_shell;
	at->name = "up-0";
	snprintf(at->addr, sizeof(at->addr), "127.0.0.1");
}

static void test_measure(void)
{
	struct nettool_at at;
	struct throughput t = { 0, 0 };
	struct err e = ERR_INIT;
	int fds = count_fds();
	char want[128];
	unsigned port;

	remote(&at);
	buf_reset(&asked);
	is_int(throughput_measure(&at, 1000000, 10 * NS_PER_SEC, &t, &e), 0,
	       "a million bytes from the host: 0 (%s)", e.msg);
	ok(t.bytes > 0 && t.bytes <= 1000000,
	   "the bytes after the first read counted: %llu",
	   (unsigned long long)t.bytes);
	ok(t.took_ns >= 0 && t.took_ns < 10 * NS_PER_SEC,
	   "from the first read to the last: %lld ns", (long long)t.took_ns);
	ok(sscanf(buf_str(&asked), "bash -c 'head -c 1000000 /dev/zero "
		  ">/dev/tcp/127.0.0.1/%u'\n", &port) == 1 && port > 0,
	   "the host sends with bash's /dev/tcp to our address: %s",
	   buf_str(&asked));
	snprintf(want, sizeof(want), "bash -c 'head -c 1000000 /dev/zero "
		 ">/dev/tcp/127.0.0.1/%u'\n", port);
	is_str(buf_str(&asked), want, "... one command, nothing else");
	is_int(count_fds(), fds, "no descriptor left open");
}

static void test_short(void)
{
	struct nettool_at at;
	struct throughput t = { 0, 0 };
	struct err e = ERR_INIT;
	int fds = count_fds();

	remote(&at);
	/* The host sends a tenth of what was asked. */
	swap_from = "head -c 100000 ";
	swap_to = "head -c 10000 ";
	is_int(throughput_measure(&at, 100000, NS_PER_SEC, &t, &e), -1,
	       "a host that sends too little: -1");
	is_str(e.msg, "the transfer ended after 10000 of 100000 bytes",
	       "... at its end, saying how much came");
	swap_from = swap_to = NULL;
	is_int(count_fds(), fds, "no descriptor left open");
}

int main(void)
{
	test_measure();
	test_short();
	buf_release(&asked);
	return done_testing();
}
