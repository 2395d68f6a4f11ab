#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"

/*
 * The logger is process-wide state by nature: one stderr, one run log.
 * Everything here is guarded by `lock`.
 */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static enum log_level stderr_level = LOG_INFO;
static int run_log = -1;
static char *run_log_path;
/* The first failed write of the run log (0: none), and the lines it and
 * later ones left, tried again before each new line. */
static int run_log_errno;
static struct buf run_log_pending = { NULL, 0, 0, (size_t)1 << 20 };

static const char *const names[] = { "error", "warn", "info", "debug" };
/* The status line (log_status), shown when not empty. */
static char status[512];

void log_set_level(enum log_level level)
{
	pthread_mutex_lock(&lock);
	stderr_level = level;
	pthread_mutex_unlock(&lock);
}

enum log_level log_get_level(void)
{
	enum log_level level;

	pthread_mutex_lock(&lock);
	level = stderr_level;
	pthread_mutex_unlock(&lock);
	return level;
}

int log_open(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	char *copy;

	if (fd < 0)
		return -1;
	copy = xstrdup(path);
	pthread_mutex_lock(&lock);
	if (run_log >= 0)
		close(run_log);
	free(run_log_path);
	run_log = fd;
	run_log_path = copy;
	run_log_errno = 0;
	buf_reset(&run_log_pending);
	pthread_mutex_unlock(&lock);
	return 0;
}

void log_close(void)
{
	pthread_mutex_lock(&lock);
	if (run_log >= 0)
		close(run_log);
	run_log = -1;
	free(run_log_path);
	run_log_path = NULL;
	buf_release(&run_log_pending);
	run_log_pending.limit = (size_t)1 << 20;
	pthread_mutex_unlock(&lock);
}

int log_write_error(char *msg, size_t size)
{
	int failed;

	pthread_mutex_lock(&lock);
	failed = run_log_errno != 0;
	if (failed)
		snprintf(msg, size, "cannot write '%s': %s", run_log_path ?
			 run_log_path : "the run log", strerror(run_log_errno));
	pthread_mutex_unlock(&lock);
	return failed ? -1 : 0;
}

/* Under `lock`: the pending lines to the run log, whole. */
static void write_pending(void)
{
	size_t off = 0;

	while (off < run_log_pending.len) {
		ssize_t n = write(run_log, run_log_pending.data + off,
				  run_log_pending.len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			if (!run_log_errno)
				run_log_errno = errno;
			break;
		}
		off += (size_t)n;
	}
	memmove(run_log_pending.data, run_log_pending.data + off,
		run_log_pending.len - off);
	run_log_pending.len -= off;
}

void log_status(const char *text)
{
	pthread_mutex_lock(&lock);
	if (text && *text) {
		snprintf(status, sizeof(status), "%s", text);
		fprintf(stderr, "\r%s\033[K", status);
	} else if (status[0]) {
		fputc('\n', stderr);
		status[0] = '\0';
	}
	fflush(stderr);
	pthread_mutex_unlock(&lock);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	char line[2048], stamp[32];
	struct timespec ts;
	struct tm tm;
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	snprintf(stamp, sizeof(stamp), "%02d:%02d:%02d.%03ld", tm.tm_hour,
		 tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);

	pthread_mutex_lock(&lock);
	if (level <= stderr_level)
		fprintf(stderr, "%s%s %-5s %s\n%s%s", status[0] ? "\r\033[K" : "",
			stamp, names[level], line, status,
			status[0] ? "\033[K" : "");
	if (run_log >= 0) {
		buf_printf(&run_log_pending, NULL, "%s %-5s %s\n", stamp,
			   names[level], line);
		write_pending();
	}
	pthread_mutex_unlock(&lock);
}
