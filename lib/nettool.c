#include "nettool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/proc.h"

#define TOOL_TIMEOUT_NS (30 * NS_PER_SEC)

int nettool_run(const char *name, const char *const *args, struct buf *out,
		struct err *e)
{
	const char *argv[24];
	struct buf errout = BUF_INIT, cmd = BUF_INIT;
	char *path = find_program(name);
	size_t n = 0;
	int code;

	if (!path)
		return err_set(e, ERR_INFRA, "'%s' not found (install %s, or "
			       "run 'make deps')", name,
			       strcmp(name, "nft") ? "iproute2" : "nftables");
	argv[n++] = path;
	for (size_t i = 0; args[i] && n + 1 < sizeof(argv) / sizeof(*argv);
	     i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	code = proc_capture(argv, out, &errout, TOOL_TIMEOUT_NS, e);
	if (code > 0) {
		char *nl;

		buf_rtrim(&errout);
		nl = strchr(errout.data ? errout.data : "", '\n');
		if (nl)
			*nl = '\0';
		buf_addstr(&cmd, name, NULL);
		for (size_t i = 1; argv[i]; i++)
			buf_printf(&cmd, NULL, " %s", argv[i]);
		err_set(e, ERR_INFRA, "'%s' failed (exit %d): %s",
			buf_str(&cmd), code, errout.len ? buf_str(&errout)
							: "no message");
	}
	buf_release(&errout);
	buf_release(&cmd);
	free(path);
	return code == 0 ? 0 : -1;
}

int nettool_nft(const char *ns, const char *script, struct buf *out,
		struct err *e)
{
	const char *argv[] = { "netns", "exec", ns, "nft", script, NULL };

	return ns ? nettool_run("ip", argv, out, e)
		  : nettool_run("nft", argv + 4, out, e);
}

void nettool_at_ns(struct nettool_at *at, const char *ns)
{
	memset(at, 0, sizeof(*at));
	at->ns = ns;
	at->name = ns;
	snprintf(at->dev, sizeof(at->dev), "eth0");
}

/*
 * Tool `name` (nft, tc) with `args` on remote host `at`: one shell
 * command line, each argument quoted (none has a single quote), stderr
 * with stdout so that a failure says why.
 */
static int remote_tool(const struct nettool_at *at, const char *name,
		       const char *const *args, struct buf *out,
		       struct err *e)
{
	struct buf cmd = BUF_INIT, text = BUF_INIT;
	int code;

	buf_addstr(&cmd, name, NULL);
	for (size_t i = 0; args[i]; i++)
		buf_printf(&cmd, NULL, " '%s'", args[i]);
	buf_addstr(&cmd, " 2>&1", NULL);
	code = at->shell(at->ctx, buf_str(&cmd), &text, e);
	if (code > 0) {
		buf_rtrim(&text);
		buf_truncate(&text, strcspn(buf_str(&text), "\n"));
		buf_truncate(&cmd, cmd.len - 5);
		err_set(e, ERR_INFRA, "%s: '%s' failed (exit %d; it needs root "
			"there): %s", at->name, buf_str(&cmd), code,
			text.len ? buf_str(&text) : "no message");
	} else if (!code && out) {
		buf_addstr(out, buf_str(&text), NULL);
	}
	buf_release(&cmd);
	buf_release(&text);
	return code == 0 ? 0 : -1;
}

int nettool_nft_at(const struct nettool_at *at, const char *script,
		   struct buf *out, struct err *e)
{
	const char *args[] = { script, NULL };

	return at->shell ? remote_tool(at, "nft", args, out, e)
			 : nettool_nft(at->ns, script, out, e);
}

int nettool_tc(const struct nettool_at *at, const char *const *args,
	       struct buf *out, struct err *e)
{
	const char *argv[24];
	size_t n = 0;

	if (at->shell)
		return remote_tool(at, "tc", args, out, e);
	if (at->ns) {
		argv[n++] = "-n";
		argv[n++] = at->ns;
	}
	for (size_t i = 0; args[i] && n + 1 < sizeof(argv) / sizeof(*argv);
	     i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	return nettool_run("tc", argv, out, e);
}

int nettool_at_remote(struct nettool_at *at, const char *name,
		      int (*shell)(void *, const char *, struct buf *,
				   struct err *),
		      void *ctx, const char *addr, struct err *e)
{
	const char *args[] = { "-o", "-4", "addr", "show", "to", addr, NULL };
	struct buf text = BUF_INIT;
	const char *p;
	int rc;

	memset(at, 0, sizeof(*at));
	at->shell = shell;
	at->ctx = ctx;
	at->name = name;
	snprintf(at->addr, sizeof(at->addr), "%s", addr);
	/* One command: whether there is a tc, then the interface. */
	rc = remote_tool(at, "command -v tc >/dev/null && echo has tc; ip",
			 args, &text, e);
	p = buf_str(&text);
	at->has_tc = !strncmp(p, "has tc\n", 7);
	/* "2: eth0    inet 198.18.150.2/28 brd ..." */
	p = rc ? NULL : strchr(p + (at->has_tc ? 7 : 0), ':');
	if (p) {
		p += 1 + strspn(p + 1, " ");
		snprintf(at->dev, sizeof(at->dev), "%.*s",
			 (int)strcspn(p, " @:\n"), p);
	}
	if (!rc && !at->dev[0])
		rc = err_set(e, ERR_INFRA, "%s: no interface there has address "
			     "%s", name, addr);
	buf_release(&text);
	return rc;
}

int nettool_list_table_at(const struct nettool_at *at, const char *table,
			  struct buf *out, struct err *e)
{
	char want[160], *cmd;
	int rc;

	buf_reset(out);
	snprintf(want, sizeof(want), "table %s\n", table);
	if (nettool_nft_at(at, "list tables", out, e))
		return -1;
	if (!strstr(buf_str(out), want)) {
		buf_reset(out);
		return 0;
	}
	buf_reset(out);
	cmd = xprintf("list table %s", table);
	rc = nettool_nft_at(at, cmd, out, e);
	free(cmd);
	return rc ? -1 : 1;
}

int nettool_list_table(const char *ns, const char *table, struct buf *out,
		       struct err *e)
{
	struct nettool_at at;

	nettool_at_ns(&at, ns);
	return nettool_list_table_at(&at, table, out, e);
}
