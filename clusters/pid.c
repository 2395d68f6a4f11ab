/*
 * A component's process (clusters/cluster.h): its pid, from a pidfile
 * checked against the start command, a pid command or TiCDC's status;
 * its state; the last line of its log, and its first error line.
 */
#include "clusters/internal.h"

#include <ctype.h>
#include <jansson.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/http.h"
#include "lib/parse.h"

/* Whether `have` is `want`, each "{start}" in it standing for digits
 * (the number of a start: whichever made the process). */
static int same_text(const char *have, const char *want)
{
	const char *at = strstr(want, "{start}");
	size_t n = at ? (size_t)(at - want) : strlen(want) + 1;

	if (strncmp(have, want, n))
		return 0;
	if (!at)
		return 1;
	have += n;
	if (!isdigit((unsigned char)*have))
		return 0;
	while (isdigit((unsigned char)*have))
		if (same_text(have++, at + 7))
			return 1;
	return same_text(have, at + 7);
}

/* Is `pid` running the component's start command (perhaps through the
 * interpreter of a script, or env(1) setting its `env`)? */
static int runs_component(struct host *h, pid_t pid,
			  const struct component *comp)
{
	struct buf cmdline = BUF_INIT, want = BUF_INIT;
	int same;

	if (!comp->start)
		return h->ops->state(h, pid) != 0;
	/* A process between two execs (a start under a prefix that execs
	 * the component: component_start_under) shows no command line for
	 * a moment (the cmdline op fails on an empty one); a kernel thread
	 * or a zombie shows none for good, a process gone has no state. */
	for (int tries = 0; h->ops->cmdline(h, pid, &cmdline, NULL); tries++) {
		char state = h->ops->state(h, pid);

		if (tries == 50 || !state || state == 'Z' || state == 'X') {
			buf_release(&cmdline);
			return 0;
		}
		clock_sleep_ns(NS_PER_MS);
	}
	for (char **a = comp->start; *a; a++)
		buf_printf(&want, NULL, "%s%s", a == comp->start ? "" : " ",
			   *a);
	/* A script's interpreter comes first: "/usr/bin/perl SCRIPT ...". */
	same = same_text(buf_str(&cmdline), buf_str(&want));
	for (const char *sp = buf_str(&cmdline); !same &&
	     (sp = strchr(sp, ' ')); sp++)
		same = same_text(sp + 1, buf_str(&want));
	buf_release(&cmdline);
	buf_release(&want);
	return same;
}

/* A pid printed by a pidfile or a command: 0 when there is none. */
static pid_t parse_pid(struct buf *text)
{
	int64_t v;

	buf_rtrim(text);
	return parse_int64(buf_str(text), 1, INT32_MAX, &v, NULL) ? 0
								: (pid_t)v;
}

/* TiCDC's GET /api/v2/status at http_url's origin: {"pid": N, ...}. */
static pid_t status_pid(const struct component *comp)
{
	struct buf body = BUF_INIT;
	char url[512];
	json_t *doc, *pid;
	long status;
	pid_t v = -1;

	if (!comp->http_url)
		return -1;
	url_origin(comp->http_url, "/api/v2/status", url, sizeof(url));
	if (http_request("GET", url, NULL, &body, &status, 2 * NS_PER_SEC,
			 NULL))
		return 0;	/* nobody answers: not running */
	doc = status == 200 ? json_loads(buf_str(&body), 0, NULL) : NULL;
	pid = json_object_get(doc, "pid");
	if (json_is_integer(pid) && json_integer_value(pid) > 0 &&
	    json_integer_value(pid) <= INT32_MAX)
		v = (pid_t)json_integer_value(pid);
	json_decref(doc);
	buf_release(&body);
	return v;
}

pid_t component_pid(const struct cluster *c, const struct component *comp)
{
	struct host *h = component_host(c, comp);
	struct buf text = BUF_INIT;
	pid_t pid = -1;

	if (comp->pidfile) {
		if (h->ops->read_file(h, comp->pidfile, 0, 64, &text, NULL))
			pid = 0;
		else if ((pid = parse_pid(&text)) &&
			 !runs_component(h, pid, comp))
			pid = 0;
	} else if (comp->pid_command) {
		pid = h->ops->shell(h, comp->pid_command, &text, NULL) ? 0
		      : parse_pid(&text);
		if (pid && !h->ops->state(h, pid))
			pid = 0;
	} else if (comp->status_pid) {
		pid = status_pid(comp);
		/* Not answering yet: the process tichaos started, while it
		 * lives, starts (TiCDC serves its status once it is up). */
		if (pid == 0 && comp->started_pid > 0 &&
		    h->ops->state(h, comp->started_pid) &&
		    h->ops->start_time(h, comp->started_pid) ==
		    comp->started_at)
			pid = comp->started_pid;
	}
	buf_release(&text);
	return pid;
}

/* Whether a word of `cmdline` is the program `prog` (by its file name):
 * the same server with other arguments, not a pid the system gave an
 * unrelated process since. */
static int runs_program(const char *cmdline, const char *prog)
{
	const char *base = strrchr(prog, '/');
	size_t n;

	base = base ? base + 1 : prog;
	n = strlen(base);
	for (const char *w = cmdline; *w; w += strcspn(w, " "),
	     w += strspn(w, " ")) {
		size_t len = strcspn(w, " ");
		const char *slash = memrchr(w, '/', len);
		const char *name = slash ? slash + 1 : w;

		if ((size_t)(w + len - name) == n && !strncmp(name, base, n))
			return 1;
	}
	return 0;
}

int component_pidfile_foreign(const struct cluster *c,
			      const struct component *comp, struct err *e)
{
	struct host *h = component_host(c, comp);
	struct buf text = BUF_INIT, cmdline = BUF_INIT;
	pid_t pid;
	int foreign = 0;

	if (!comp->pidfile ||
	    h->ops->read_file(h, comp->pidfile, 0, 64, &text, NULL))
		goto out;
	pid = parse_pid(&text);
	if (pid <= 0 || !h->ops->state(h, pid) || runs_component(h, pid, comp) ||
	    h->ops->cmdline(h, pid, &cmdline, NULL) ||
	    !runs_program(buf_str(&cmdline), comp->start[0]))
		goto out;
	foreign = 1;
	err_set(e, ERR_INFRA, "%s: its pidfile '%s' names pid %ld, which runs "
		"'%s', not its start command: a server started otherwise, or "
		"before the topology changed; stop it first (its pid), or "
		"mend the topology", comp->name, comp->pidfile, (long)pid,
		buf_str(&cmdline));
out:
	buf_release(&text);
	buf_release(&cmdline);
	return foreign;
}

enum component_state component_state(const struct cluster *c,
				      const struct component *comp)
{
	struct host *h = component_host(c, comp);
	pid_t pid = component_pid(c, comp);

	if (pid < 0)
		return STATE_UNKNOWN;
	if (pid == 0)
		return STATE_STOPPED;
	return h->ops->state(h, pid) == 'T' ? STATE_PAUSED : STATE_RUNNING;
}

void component_last_log_line(const struct cluster *c,
			     const struct component *comp, struct buf *out)
{
	buf_reset(out);
	if (comp->log)
		host_last_line(component_host(c, comp), comp->log, out);
}

void host_last_line(struct host *h, const char *path, struct buf *out)
{
	struct buf text = BUF_INIT;
	const char *end, *start;
	int64_t size;

	buf_reset(out);
	if ((size = h->ops->file_size(h, path)) < 0)
		return;
	if (h->ops->read_file(h, path, size > 8192 ? size - 8192 : 0,
			      8192, &text, NULL)) {
		buf_release(&text);
		return;
	}
	buf_rtrim(&text);
	end = buf_str(&text) + text.len;
	start = end;
	while (start > buf_str(&text) && start[-1] != '\n')
		start--;
	buf_add(out, start, (size_t)(end - start), NULL);
	buf_release(&text);
}

/* Does `line` (`len` bytes) say it is an error? */
static int error_line(const char *line, size_t len)
{
	static const char *const marks[] = {
		"[ERROR]", "[FATAL]", "\"level\":\"error\"",
		"\"level\":\"fatal\"", NULL,
	};

	for (int i = 0; marks[i]; i++)
		if (memmem(line, len, marks[i], strlen(marks[i])))
			return 1;
	return 0;
}

void component_first_error_line(const struct cluster *c,
				const struct component *comp,
				struct buf *out)
{
	struct host *h = component_host(c, comp);
	struct buf text = BUF_INIT;
	int64_t size, from = comp->log_from;
	const char *p, *end, *nl;

	buf_reset(out);
	if (!comp->log || (size = h->ops->file_size(h, comp->log)) < 0)
		return;
	/* Made anew since the start: all of it is this start's. */
	if (from > size)
		from = 0;
	if (h->ops->read_file(h, comp->log, from, 65536, &text, NULL)) {
		buf_release(&text);
		return;
	}
	end = buf_str(&text) + text.len;
	for (p = buf_str(&text); p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (error_line(p, (size_t)(nl - p))) {
			buf_add(out, p, (size_t)(nl - p), NULL);
			buf_rtrim(out);
			break;
		}
	}
	buf_release(&text);
}
