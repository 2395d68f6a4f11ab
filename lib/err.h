#ifndef TICHAOS_ERR_H
#define TICHAOS_ERR_H

/*
 * Error reporting for library code.
 *
 * Functions that can fail return 0 on success and -1 on failure, filling a
 * caller-owned `struct err`. A set error is never overwritten: the first
 * message wins, so calls chain with `||` and the root cause is what the user
 * sees. On success the struct is left untouched. err_set() and err_errno()
 * accept a NULL `e` when the caller does not want the message.
 *
 * The class says what kind of failure it was; it is also the exit code the
 * runner uses for it (docs/internals.md, Rules).
 */

#include <stddef.h>

enum err_class {
	ERR_NONE = 0,
	ERR_CHECK = 1,		/* a check failed: a bug was found */
	ERR_USAGE = 2,		/* bad command line or suite */
	ERR_INFRA = 3,		/* cluster, server, system call */
	ERR_INTERRUPTED = 4,	/* SIGINT / SIGTERM */
};

#define ERR_MSG_MAX 1024

struct err {
	enum err_class class;
	char msg[ERR_MSG_MAX];
};

#define ERR_INIT { ERR_NONE, "" }

/*
 * Record an error of the given class unless one is already recorded.
 * The message is one line, lowercase, no trailing period; newlines in the
 * formatted text are replaced by spaces. Always returns -1.
 */
int err_set(struct err *e, enum err_class class, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Like err_set, with ": strerror(errnum)" appended. Always returns -1. */
int err_errno(struct err *e, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Non-zero when an error is recorded (0 for a NULL `e`). */
int err_isset(const struct err *e);

/* Forget the recorded error. */
void err_clear(struct err *e);

#endif
