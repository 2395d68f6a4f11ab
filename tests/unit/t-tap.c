/*
 * tests/unit/tap.h itself: a skip for a failed setup is a skip on a
 * developer's machine and a failure under CI (CI=true); a skip for the
 * build (skip_build) is a skip everywhere.
 */

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit/tap.h"

/*
 * Run `which` skip (1: skip, 0: skip_build) of one test in a child with
 * CI set to `ci` (NULL: unset); its TAP in `out`, its exit status
 * returned (-1 when it could not run).
 */
static int child_skip(int setup, const char *ci, char *out, size_t size)
{
	int fds[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(fds[1], 1);
		if (null >= 0)
			dup2(null, 2);
		close(fds[0]);
		if (ci)
			setenv("CI", ci, 1);
		else
			unsetenv("CI");
		tap_count = tap_failed = 0;
		tap_planned = -1;
		if (setup)
			skip(1, "no thing here");
		else
			skip_build(1, "not with this build");
		_exit(exit_status());
	}
	close(fds[1]);
	while (got < (ssize_t)size - 1 &&
	       (n = read(fds[0], out + got, size - 1 - got)) > 0)
		got += n;
	out[got] = '\0';
	close(fds[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int main(void)
{
	char out[256];

	is_int(child_skip(1, NULL, out, sizeof(out)), 0, "skip without CI: exit 0");
	is_str(out, "ok 1 # skip no thing here\n", "skip without CI: a skip");
	is_int(child_skip(1, "false", out, sizeof(out)), 0, "skip with CI=false: exit 0");
	is_str(out, "ok 1 # skip no thing here\n", "skip with CI=false: a skip");
	is_int(child_skip(1, "true", out, sizeof(out)), 1, "skip under CI=true: exit 1");
	is_str(out, "not ok 1 - no thing here (a setup that failed: CI=true runs every test)\n",
	       "skip under CI=true: a failure, saying why");
	is_int(child_skip(0, "true", out, sizeof(out)), 0, "skip_build under CI=true: exit 0");
	is_str(out, "ok 1 # skip not with this build\n", "skip_build under CI=true: a skip");
	return done_testing();
}
