/*
 * lib/nettool.c without root: a missing tool and a failing one say so in
 * one line; on a host reached over a shell (here /bin/sh with fake `nft`
 * and `tc` first on its PATH, standing in for a host over SSH), each
 * argument is quoted, stderr comes with stdout, and a failure names the
 * host, the command and its first line of complaint;
 * nettool_list_table_at lists a table only when `nft list tables` names
 * it.
 */

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/clock.h"
#include "lib/nettool.h"
#include "lib/proc.h"
#include "tests/unit/tap.h"
#include "tests/unit/tmpdir.h"

static struct tmpdir bin;
static struct buf asked = BUF_INIT;	/* every command line the host got */

/* The fake remote host's shell: COMMAND with the fakes first on PATH. */
static int fake_shell(void *ctx, const char *command, struct buf *out,
		      struct err *e)
{
	struct buf line = BUF_INIT;
	const char *argv[] = { "/bin/sh", "-c", NULL, NULL };
	int code;

	(void)ctx;
	buf_printf(&asked, NULL, "%s\n", command);
	buf_printf(&line, NULL, "PATH='%s':\"$PATH\"; %s", bin.dir, command);
	argv[2] = buf_str(&line);
	code = proc_capture(argv, out, NULL, 10 * NS_PER_SEC, e);
	buf_release(&line);
	return code;
}

static int fake_tool(const char *name, const char *script)
{
	const char *path = tmpdir_path(&bin, name);

	return write_text(path, script) || chmod(path, 0755);
}

static void remote(struct nettool_at *at, const char *name)
{
	memset(at, 0, sizeof(*at));
	at->shell = fake_shell;
	at->name = name;
}

static void test_missing_and_failing(void)
{
	struct err e = ERR_INIT;
	const char *none[] = { NULL };
	const char *bad[] = { "no-such-object", NULL };

	is_int(nettool_run("tichaos-no-such-tool", none, NULL, &e), -1,
	       "a tool that is not there: -1");
	is_str(e.msg, "'tichaos-no-such-tool' not found (install iproute2, or "
	       "run 'make deps')", "... saying which and where it comes from");
	err_clear(&e);
	is_int(nettool_run("nft", (const char *[]){ "--version", NULL }, NULL, &e),
	       0, "nft is found and runs (make deps installs nftables)");
	err_clear(&e);
	if (nettool_run("ip", (const char *[]){ "-V", NULL }, NULL, &e)) {
		skip(2, "ip cannot run here");
		return;
	}
	is_int(nettool_run("ip", bad, NULL, &e), -1, "ip failing: -1");
	is_str(e.msg, "'ip no-such-object' failed (exit 1): Object "
	       "\"no-such-object\" is unknown, try \"ip help\".",
	       "... with the command, its exit and ip's first line");
}

static void test_remote_tc(void)
{
	struct nettool_at at;
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;
	const char *args[] = { "qdisc", "show", "dev", "eth 0", NULL };

	remote(&at, "down-0");
	buf_reset(&asked);
	is_int(nettool_tc(&at, args, &out, &e), -1, "tc failing there: -1");
	is_str(buf_str(&asked), "tc 'qdisc' 'show' 'dev' 'eth 0' 2>&1\n",
	       "one command line: each argument quoted, stderr with stdout");
	is_str(e.msg, "down-0: 'tc 'qdisc' 'show' 'dev' 'eth 0'' failed (exit 2; "
	       "it needs root there): Cannot find device \"eth 0\"",
	       "the host, the command, its exit and its first line");
	is_str(buf_str(&out), "", "nothing out of a failure");
	buf_release(&out);
}

static void test_list_table(void)
{
	struct nettool_at at;
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;

	remote(&at, "up-0");
	buf_reset(&asked);
	setenv("FAKE_NFT_TABLES", "table inet other", 1);
	is_int(nettool_list_table_at(&at, "inet tichaos", &out, &e), 0,
	       "a table that is not there: 0");
	is_str(buf_str(&out), "", "... nothing out");
	is_str(buf_str(&asked), "nft 'list tables' 2>&1\n", "... one command");
	setenv("FAKE_NFT_TABLES", "table inet other\ntable inet tichaos", 1);
	buf_reset(&asked);
	is_int(nettool_list_table_at(&at, "inet tichaos", &out, &e), 1,
	       "a table that is there: 1");
	is_str(buf_str(&out), "table inet tichaos {\n\tchain c1 {\n\t}\n}\n",
	       "... its listing, alone");
	is_str(buf_str(&asked), "nft 'list tables' 2>&1\nnft 'list table inet "
	       "tichaos' 2>&1\n", "... two commands");
	buf_reset(&out);
	setenv("FAKE_NFT_TABLES", "table inet tichaos {", 1);
	is_int(nettool_list_table_at(&at, "inet tichaos", &out, &e), 0,
	       "a name that is only the start of a line: not the table");
	unsetenv("FAKE_NFT_TABLES");
	buf_release(&out);
}

int main(void)
{
	if (tmpdir_create(&bin) ||
	    fake_tool("tc", "#!/bin/sh\necho \"Cannot find device \\\"$4\\\"\" >&2\n"
		      "echo \"second line\" >&2\nexit 2\n") ||
	    fake_tool("nft", "#!/bin/sh\ncase $1 in\n"
		      "'list tables') printf '%s\\n' \"$FAKE_NFT_TABLES\" ;;\n"
		      "'list table inet tichaos') printf 'table inet tichaos {\\n\\tchain c1 {\\n\\t}\\n}\\n' ;;\n"
		      "*) echo 'Error: syntax error' >&2; exit 1 ;;\nesac\n")) {
		skip(1, "cannot make the fake tools");
		return done_testing();
	}
	test_missing_and_failing();
	test_remote_tc();
	test_list_table();
	buf_release(&asked);
	tmpdir_remove(&bin);
	return done_testing();
}
