/*
 * The local cluster's hosts over SSH (docs/topology.md, "Hosts over
 * SSH"): an sshd in each host's network namespace, and a topology file
 * that names those hosts, so that the same servers are driven as a static
 * cluster over SSH — starts, stops, signals, pid and log reads, and the
 * faults' commands all run on the hosts through their sshd.
 *
 * Layout of DIR/ssh: host_ed25519_key (one host key for every sshd),
 * id_ed25519 (the client's key), authorized_keys, known_hosts (every
 * host's address), sshd_config, and per host HOST.pid (the pid tichaos
 * started, checked against its command line) and HOST.log.
 * DIR/ssh-topology.yaml is the topology.
 */
#include "clusters/local.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "lib/netns.h"
#include "lib/proc.h"

#define SSHD "/usr/sbin/sshd"

static int keygen(const char *path, const char *comment, struct err *e)
{
	const char *argv[] = { "ssh-keygen", "-q", "-t", "ed25519", "-N", "",
			       "-C", comment, "-f", path, NULL };
	struct buf out = BUF_INIT;
	int code;

	if (!access(path, F_OK))
		return 0;
	code = proc_capture(argv, &out, &out, 30 * NS_PER_SEC, e);
	if (code > 0)
		err_set(e, ERR_INFRA, "ssh-keygen failed (exit %d): %s", code,
			buf_str(&out));
	buf_release(&out);
	return code == 0 ? 0 : -1;
}

/*
 * The keys, authorized_keys, known_hosts and sshd_config of DIR/ssh.
 * The hosts share this machine's root: its login shell is run for every
 * command, and Debian's bash sources ~/.bashrc when SSH_CLIENT is set and
 * SHLVL was not. SHLVL=1 keeps the machine's own rc files (0.7 s a command
 * where one runs `pyenv init`) out of what a host over SSH costs.
 */
static int ssh_files(const char *dir, const struct netns_net *net,
		     struct err *e)
{
	char *host_key = xprintf("%s/host_ed25519_key", dir);
	char *id = xprintf("%s/id_ed25519", dir);
	char *path = xprintf("%s.pub", id);
	struct buf pub = BUF_INIT, text = BUF_INIT;
	int rc;

	rc = keygen(host_key, "tichaos-host", e) ||
	     keygen(id, "tichaos-client", e);
	rc = rc || buf_read_file(&pub, path, e);
	free(path);
	path = xprintf("%s/authorized_keys", dir);
	rc = rc || buf_write_file(&pub, path, 0600, e);
	buf_reset(&pub);
	free(path);
	path = xprintf("%s.pub", host_key);
	rc = rc || buf_read_file(&pub, path, e);
	buf_rtrim(&pub);
	for (size_t i = 0; !rc && i < net->nhosts; i++) {
		/* "ssh-ed25519 KEY comment": the first two fields. */
		const char *sp = strchr(buf_str(&pub), ' ');
		const char *end = sp ? strchr(sp + 1, ' ') : NULL;

		buf_printf(&text, NULL, "%s %.*s\n", net->hosts[i].addr,
			   end ? (int)(end - buf_str(&pub)) : (int)pub.len,
			   buf_str(&pub));
	}
	free(path);
	path = xprintf("%s/known_hosts", dir);
	rc = rc || buf_write_file(&text, path, 0644, e);
	buf_reset(&text);
	free(path);
	path = xprintf("%s/sshd_config", dir);
	rc = rc || buf_printf(&text, e,
		"# written by tichaos cluster up --sshd\n"
		"Port 22\n"
		"HostKey %s\n"
		"AuthorizedKeysFile %s/authorized_keys\n"
		"StrictModes no\n"
		"PubkeyAuthentication yes\n"
		"PasswordAuthentication no\n"
		"KbdInteractiveAuthentication no\n"
		"UsePAM no\n"
		"PermitRootLogin prohibit-password\n"
		"SetEnv SHLVL=1\n"
		"LogLevel VERBOSE\n", host_key, dir) ||
	     buf_write_file(&text, path, 0644, e);
	free(path);
	free(host_key);
	free(id);
	buf_release(&pub);
	buf_release(&text);
	return rc ? -1 : 0;
}

/* The pid of host `h`'s sshd when it runs, else 0. */
static pid_t sshd_pid(const char *dir, const struct netns_host *h)
{
	char *path = xprintf("%s/%s.pid", dir, h->name);
	struct buf cmd = BUF_INIT;
	pid_t pid = 0;

	if (proc_read_pidfile(path, &pid, NULL) || !pid ||
	    proc_cmdline(pid, &cmd, NULL) || !strstr(buf_str(&cmd), SSHD) ||
	    !strstr(buf_str(&cmd), dir))
		pid = 0;
	buf_release(&cmd);
	free(path);
	return pid;
}

static int start_sshd(const char *dir, const struct netns_host *h,
		      struct err *e)
{
	char *config = xprintf("%s/sshd_config", dir);
	char *log = xprintf("%s/%s.log", dir, h->name);
	char *pidfile = xprintf("%s/%s.pid", dir, h->name);
	char *own = xprintf("PidFile=%s/%s.sshd.pid", dir, h->name);
	const char *argv[] = { "ip", "netns", "exec", h->ns, SSHD, "-D", "-e",
			       "-f", config, "-o", own, NULL };
	struct proc p = PROC_INIT;
	struct netns_probe probe = { .addr = h->addr, .port = 22 };
	struct buf text = BUF_INIT;
	int64_t deadline = clock_mono_ns() + 10 * NS_PER_SEC;
	int rc;

	p.argv = argv;
	p.out = log;
	p.append = 1;
	p.err_to_out = 1;
	p.new_session = 1;
	rc = proc_start(&p, e) || buf_printf(&text, e, "%ld\n", (long)p.pid) ||
	     buf_write_file(&text, pidfile, 0644, e);
	/* Ready when it answers on its host's port 22. */
	while (!rc && !netns_probe(&probe, 1, NS_PER_SEC, e) &&
	       !probe.answered) {
		if (!proc_alive(p.pid) || clock_mono_ns() >= deadline) {
			rc = err_set(e, ERR_INFRA, "sshd of host %s did not "
				     "answer on %s:22 (see '%s')", h->name,
				     h->addr, log);
			break;
		}
		clock_sleep_ns(50 * NS_PER_MS);
	}
	if (err_isset(e))
		rc = -1;
	buf_release(&text);
	free(config);
	free(log);
	free(pidfile);
	free(own);
	return rc;
}

/* The same servers as a static cluster over SSH: DIR/ssh-topology.yaml. */
static int ssh_topology(const struct cluster *c, const struct netns_net *net,
			const char *dir, struct err *e)
{
	struct cluster t = *c;
	char *key = xprintf("%s/id_ed25519", dir);
	char *known = xprintf("%s/known_hosts", dir);
	char *path = xprintf("%s/ssh-topology.yaml", c->dir);
	int rc;

	t.hosts = xcalloc(net->nhosts, sizeof(*t.hosts));
	t.nhosts = net->nhosts;
	t.comps = xcalloc(c->ncomps, sizeof(*t.comps));
	for (size_t i = 0; i < net->nhosts; i++) {
		t.hosts[i].name = (char *)net->hosts[i].name;
		t.hosts[i].ssh.address = net->hosts[i].addr;
		t.hosts[i].ssh.port = 22;
		t.hosts[i].ssh.user = "root";
		t.hosts[i].ssh.key = key;
		t.hosts[i].ssh.known_hosts = known;
		t.hosts[i].timeout_ns = 60 * NS_PER_SEC;
	}
	/* Each component on the host of its own name, its command run there
	 * by its sshd (already in the namespace). */
	for (size_t i = 0; i < c->ncomps; i++) {
		t.comps[i] = c->comps[i];
		t.comps[i].host = c->comps[i].name;
		t.comps[i].netns = NULL;
	}
	rc = topology_write(&t, path, e);
	free(t.hosts);
	free(t.comps);
	free(key);
	free(known);
	free(path);
	return rc;
}

int local_sshd_up(struct cluster *c, const struct netns_net *net,
		  struct err *e)
{
	char *dir = xprintf("%s/ssh", c->dir);
	int rc = 0;

	if (access(SSHD, X_OK))
		rc = err_set(e, ERR_INFRA, "%s not found (install "
			     "openssh-server, or run 'make deps')", SSHD);
	/* sshd refuses to start as root without it; only a booted
	 * openssh-server makes it. */
	if (!rc && ((mkdir(dir, 0700) && errno != EEXIST) ||
		    (mkdir("/run/sshd", 0755) && errno != EEXIST)))
		rc = err_errno(e, errno, "cannot create '%s' or /run/sshd",
			       dir);
	rc = rc || ssh_files(dir, net, e);
	for (size_t i = 0; !rc && i < net->nhosts; i++)
		if (!sshd_pid(dir, &net->hosts[i]))
			rc = start_sshd(dir, &net->hosts[i], e);
	rc = rc || ssh_topology(c, net, dir, e);
	if (!rc)
		log_info("sshd on every host; the cluster over SSH: "
			 "%s/ssh-topology.yaml", c->dir);
	free(dir);
	return rc;
}

int local_sshd_down(struct cluster *c, const struct netns_net *net,
		    struct err *e)
{
	char *dir = xprintf("%s/ssh", c->dir);
	int rc = 0;

	for (size_t i = 0; i < net->nhosts; i++) {
		pid_t pid = sshd_pid(dir, &net->hosts[i]);
		char *pidfile = xprintf("%s/%s.pid", dir, net->hosts[i].name);

		if (pid && (proc_signal(pid, SIGTERM, e) ||
			    proc_wait_gone(pid, 10 * NS_PER_SEC, e)))
			rc = -1;
		unlink(pidfile);
		free(pidfile);
	}
	free(dir);
	return rc;
}
