#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void vset(struct err *e, enum err_class class, const char *suffix,
		 const char *fmt, va_list ap)
{
	size_t len;

	if (!e || e->class != ERR_NONE)
		return;
	e->class = class;
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	len = strlen(e->msg);
	if (suffix)
		snprintf(e->msg + len, sizeof(e->msg) - len, ": %s", suffix);
	for (char *p = e->msg; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

int err_set(struct err *e, enum err_class class, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(e, class, NULL, fmt, ap);
	va_end(ap);
	return -1;
}

int err_errno(struct err *e, int errnum, const char *fmt, ...)
{
	char text[256];
	va_list ap;

	va_start(ap, fmt);
	vset(e, ERR_INFRA, strerror_r(errnum, text, sizeof(text)), fmt, ap);
	va_end(ap);
	return -1;
}

int err_isset(const struct err *e)
{
	return e && e->class != ERR_NONE;
}

void err_clear(struct err *e)
{
	if (!e)
		return;
	e->class = ERR_NONE;
	e->msg[0] = '\0';
}
