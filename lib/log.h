#ifndef TICHAOS_LOG_H
#define TICHAOS_LOG_H

/*
 * Logging for humans: one line per message, "HH:MM:SS.mmm level message" (the
 * level lowercase, padded to five columns), to stderr (at or above the stderr
 * level) and, once log_open() was called, to a run log file (every level up
 * to debug). Thread-safe. The TAP stream on stdout is never touched.
 */

#include <stddef.h>

enum log_level {
	LOG_ERROR,
	LOG_WARN,
	LOG_INFO,
	LOG_DEBUG,
};

/* Messages at or above `level` go to stderr (default LOG_INFO). */
void log_set_level(enum log_level level);
enum log_level log_get_level(void);

/* Also append every message to `path` (created when missing), written
 * line by line with write(2). 0, or -1 (errno set). */
int log_open(const char *path);

/* Stop writing to the run log; closes it. */
void log_close(void);

/*
 * 0 while every write of the run log has succeeded; else -1 and "cannot
 * write 'PATH': REASON" in `msg`. Lines that could not be written are
 * kept (up to 1 MiB) and written before the next line, so a disk that
 * gets space back loses none of them.
 */
int log_write_error(char *msg, size_t size);

void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A live status line on stderr (a run's progress on a terminal), drawn in
 * place: a message on stderr first clears it, then draws it again on the
 * line below, so the two never share a line. NULL leaves the status shown
 * as a line of its own (ended) and stops redrawing it. Only for a
 * terminal: the caller asks isatty(2).
 */
void log_status(const char *text);

#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
