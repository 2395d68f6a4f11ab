/*
 * A component's process (clusters/pid.c) on this machine: its pid from a
 * pidfile, checked against its start command (a recycled pid is not
 * ours), or from a pid command; its state, paused included; and the last
 * line of its log.
 */
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clusters/cluster.h"
#include "lib/buf.h"
#include "lib/clock.h"
#include "tests/unit/tap.h"
#include "tests/unit/tmpdir.h"

static struct tmpdir dir;

/* `sleep 30` as a child of ours; its pid, or -1. */
static pid_t start_sleep(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		execlp("sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* Wait (at most 2 s) until the component is in `want`. */
static enum component_state state_within(const struct cluster *c,
					 const struct component *comp,
					 enum component_state want)
{
	enum component_state s = component_state(c, comp);

	for (int i = 0; s != want && i < 200; i++) {
		clock_sleep_ns(10 * NS_PER_MS);
		s = component_state(c, comp);
	}
	return s;
}

static void put_pid(const char *path, long pid)
{
	char text[32];

	snprintf(text, sizeof(text), "%ld\n", pid);
	write_text(path, text);
}

static void test_pidfile(struct cluster *c, struct component *comp)
{
	static char sleep_[] = "sleep", thirty[] = "30";
	char *start[] = { sleep_, thirty, NULL };
	char pidfile[512];
	pid_t child = start_sleep();

	snprintf(pidfile, sizeof(pidfile), "%s", tmpdir_path(&dir, "pid"));
	comp->pidfile = pidfile;
	comp->start = start;
	is_int(component_pid(c, comp), 0, "no pidfile: not running");
	is_str(component_state_name(component_state(c, comp)), "stopped",
	       "stopped");
	write_text(pidfile, "not a pid\n");
	is_int(component_pid(c, comp), 0, "a pidfile without a pid: not "
	       "running");
	/* Wait for the exec, then the pid runs our start command. */
	clock_sleep_ns(100 * NS_PER_MS);
	put_pid(pidfile, child);
	is_int(component_pid(c, comp), child, "the pidfile's pid runs the "
	       "start command");
	is_str(component_state_name(state_within(c, comp, STATE_RUNNING)),
	       "running", "running");
	kill(child, SIGSTOP);
	is_str(component_state_name(state_within(c, comp, STATE_PAUSED)),
	       "paused", "SIGSTOP: paused");
	kill(child, SIGCONT);
	is_str(component_state_name(state_within(c, comp, STATE_RUNNING)),
	       "running", "SIGCONT: running again");
	put_pid(pidfile, getpid());
	is_int(component_pid(c, comp), 0, "a pid that runs another program "
	       "is not the component's");
	comp->start = NULL;
	is_int(component_pid(c, comp), getpid(), "without a start command any "
	       "live pid is");
	comp->start = start;
	put_pid(pidfile, child);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	is_int(component_pid(c, comp), 0, "the process gone: not running");
	comp->pidfile = NULL;
	comp->start = NULL;
}

static void test_pid_command(struct cluster *c, struct component *comp)
{
	char command[64];

	snprintf(command, sizeof(command), "echo %ld", (long)getpid());
	comp->pid_command = command;
	is_int(component_pid(c, comp), getpid(), "a pid command's pid");
	snprintf(command, sizeof(command), "echo 0");
	is_int(component_pid(c, comp), 0, "a pid command printing no pid");
	snprintf(command, sizeof(command), "exit 1");
	is_int(component_pid(c, comp), 0, "a pid command that fails");
	comp->pid_command = NULL;
	is_int(component_pid(c, comp), -1, "no pid source: it cannot be told");
	is_str(component_state_name(component_state(c, comp)), "unknown",
	       "its state is unknown");
}

static void test_log(struct cluster *c, struct component *comp)
{
	struct buf line = BUF_INIT;
	char log[512];

	component_last_log_line(c, comp, &line);
	is_str(buf_str(&line), "", "no log: no line");
	snprintf(log, sizeof(log), "%s", tmpdir_path(&dir, "log"));
	comp->log = log;
	component_last_log_line(c, comp, &line);
	is_str(buf_str(&line), "", "a log not written yet: no line");
	write_text(log, "first\nthe last one\n\n  \n");
	component_last_log_line(c, comp, &line);
	is_str(buf_str(&line), "the last one", "the last line with text");
	write_text(log, "one line, no newline");
	component_last_log_line(c, comp, &line);
	is_str(buf_str(&line), "one line, no newline", "a single line");
	comp->log = NULL;
	buf_release(&line);
}

int main(void)
{
	static char name[] = "x-0";
	struct component comp;
	struct cluster c;

	if (tmpdir_create(&dir)) {
		ok(0, "a scratch directory");
		return exit_status();
	}
	memset(&c, 0, sizeof(c));
	memset(&comp, 0, sizeof(comp));
	comp.name = name;
	c.comps = &comp;
	c.ncomps = 1;
	test_pidfile(&c, &comp);
	test_pid_command(&c, &comp);
	test_log(&c, &comp);
	tmpdir_remove(&dir);
	return done_testing();
}
