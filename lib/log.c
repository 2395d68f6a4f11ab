#include "log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

/*
 * The logger is process-wide state by nature: one stderr, one run log.
 * Everything here is guarded by `lock`.
 */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static enum log_level stderr_level = LOG_INFO;
static FILE *run_log;

static const char *const names[] = { "error", "warn", "info", "debug" };

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
	FILE *f = fopen(path, "ae");

	if (!f)
		return -1;
	setvbuf(f, NULL, _IOLBF, 0);
	pthread_mutex_lock(&lock);
	if (run_log)
		fclose(run_log);
	run_log = f;
	pthread_mutex_unlock(&lock);
	return 0;
}

void log_close(void)
{
	pthread_mutex_lock(&lock);
	if (run_log)
		fclose(run_log);
	run_log = NULL;
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
		fprintf(stderr, "%s %-5s %s\n", stamp, names[level], line);
	if (run_log)
		fprintf(run_log, "%s %-5s %s\n", stamp, names[level], line);
	pthread_mutex_unlock(&lock);
}
