/*
 * Starting and stopping (clusters/lifecycle.c) on this machine, with
 * `sleep` as the server and a kind of the test's own: a start records
 * the pid and waits for it, a second start is refused, pause and
 * continue are seen in the process state, a stop removes the pidfile, a
 * server that exits while starting is named with its last log line (and
 * with the first error line of that start before it, its cause), and
 * a cluster comes up whole, calls its kind's hooks, and a failed up
 * stops what it started.
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "clusters/cluster.h"
#include "lib/clock.h"
#include "lib/err.h"
#include "tests/unit/port.h"
#include "tests/unit/tap.h"
#include "tests/unit/tmpdir.h"

static struct tmpdir dir;
static int setups, downs;

static int test_setup(struct cluster *c, struct err *e)
{
	setups++;
	return 0;
}

static int test_down(struct cluster *c, struct err *e)
{
	downs++;
	return 0;
}

static const struct cluster_type test_kind = {
	.name = "test",
	.setup = test_setup,
	.down = test_down,
};

static char sleep_[] = "sleep", thirty[] = "30";
static char sh[] = "/bin/sh", dash_c[] = "-c", bye[] = "echo bye; exit 3";
static char *sleeps[] = { sleep_, thirty, NULL };
static char *exits[] = { sh, dash_c, bye, NULL };
static char old[] = "echo '0 [ERROR] old cause'; echo gone; exit 1";
static char bind_[] = "echo '0 [Note] starting'; echo '0 [ERROR] Can'\\''t "
		      "start server: Bind on TCP/IP port. Got error: 98: "
		      "Address already in use'; echo '0 [ERROR] Aborting'; "
		      "exit 1";
static char *exits_old[] = { sh, dash_c, old, NULL };
static char *exits_bind[] = { sh, dash_c, bind_, NULL };

/* Component `name` with its pidfile and log in the scratch directory. */
static void fill(struct component *comp, const char *name, char **start)
{
	memset(comp, 0, sizeof(*comp));
	comp->name = xstrdup(name);
	comp->start = argv_dup((const char *const *)start);
	comp->pidfile = xstrdup(tmpdir_path(&dir, name));
	comp->log = xprintf("%s.log", tmpdir_path(&dir, name));
}

static void test_component(struct cluster *c, struct component *a)
{
	struct err e = ERR_INIT;

	if (!ok(!component_start(c, a, &e), "a component starts") ||
	    !is_str(component_state_name(component_state(c, a)), "running",
		    "and runs"))
		diag("%s", e.msg);
	ok(access(a->pidfile, F_OK) == 0, "its pidfile written");
	ok(component_start(c, a, &e), "a second start is refused");
	is_str(e.msg, "a is already running", "as it runs");
	err_clear(&e);
	ok(!component_pause(c, a, &e), "pause");
	is_str(component_state_name(component_state(c, a)), "paused",
	       "paused");
	ok(!component_continue(c, a, &e), "continue");
	is_str(component_state_name(component_state(c, a)), "running",
	       "running again");
	ok(!component_stop(c, a, &e), "stop");
	is_str(component_state_name(component_state(c, a)), "stopped",
	       "stopped");
	ok(access(a->pidfile, F_OK) != 0, "its pidfile removed");
	ok(!component_stop(c, a, &e), "stopping what is stopped is nothing");
	ok(component_kill(c, a, SIGKILL, &e), "killing it is refused");
	is_str(e.msg, "a is not running", "as it is not running");
	err_clear(&e);
	ok(component_pause(c, a, &e), "so is pausing it");
	err_clear(&e);
}

static void test_failures(struct cluster *c, struct component *bad)
{
	struct err e = ERR_INIT;
	char **start = bad->start;

	ok(component_start(c, bad, &e), "a server that exits while starting");
	is_str(e.msg, "b exited while starting; last log line: bye",
	       "is named with its last log line");
	err_clear(&e);
	bad->start = NULL;
	ok(component_start(c, bad, &e), "one with no start command");
	is_str(e.msg, "b: no start command in the topology", "says so");
	err_clear(&e);
	bad->start = exits_old;
	ok(component_start(c, bad, &e), "one that says an error, then exits");
	is_str(e.msg, "b exited while starting: 0 [ERROR] old cause; last log "
	       "line: gone", "is named with its error first");
	err_clear(&e);
	bad->start = exits_bind;
	ok(component_start(c, bad, &e), "one whose port was taken");
	is_str(e.msg, "b exited while starting: 0 [ERROR] Can't start server: "
	       "Bind on TCP/IP port. Got error: 98: Address already in use; "
	       "last log line: 0 [ERROR] Aborting",
	       "names it: the first error since this start, not the old one");
	err_clear(&e);
	bad->start = start;
	ok(component_start(c, bad, &e), "one that says no error");
	is_str(e.msg, "b exited while starting; last log line: bye",
	       "its last line alone, whatever errors earlier starts wrote");
	err_clear(&e);
}

static void test_cluster(struct cluster *c)
{
	struct err e = ERR_INIT;

	c->ncomps = 1;
	if (!ok(!cluster_up(c, &e), "a cluster comes up"))
		diag("%s", e.msg);
	is_str(component_state_name(component_state(c, &c->comps[0])),
	       "running", "its component runs");
	is_int(setups, 1, "the kind's setup ran once");
	ok(!cluster_up(c, &e), "up again: nothing to do");
	ok(!cluster_down(c, &e), "down");
	is_str(component_state_name(component_state(c, &c->comps[0])),
	       "stopped", "its component stopped");
	is_int(downs, 1, "the kind's down ran");
	c->ncomps = 2;
	ok(cluster_up(c, &e), "a cluster with a server that exits fails");
	is_str(e.msg, "b exited while starting; last log line: bye",
	       "naming it");
	is_str(component_state_name(component_state(c, &c->comps[0])),
	       "stopped", "and stops what it started");
	is_int(downs, 2, "then cleans up after it as a down does");
}

int main(void)
{
	struct component comps[2];
	struct cluster c;

	if (tmpdir_create(&dir)) {
		ok(0, "a scratch directory");
		return exit_status();
	}
	memset(&c, 0, sizeof(c));
	c.type = &test_kind;
	c.dir = xstrdup(dir.dir);
	c.timeout_ns = 5 * NS_PER_SEC;
	fill(&comps[0], "a", sleeps);
	fill(&comps[1], "b", exits);
	/* Never ready while it runs: it fails by exiting, whenever. */
	comps[1].http_url = xprintf("http://127.0.0.1:%d/", closed_port());
	c.comps = comps;
	c.ncomps = 2;
	test_component(&c, &comps[0]);
	test_failures(&c, &comps[1]);
	test_cluster(&c);
	for (size_t i = 0; i < 2; i++) {
		component_stop(&c, &comps[i], NULL);
		component_release(&comps[i]);
	}
	free(c.dir);
	tmpdir_remove(&dir);
	return done_testing();
}
