/* lib/err.c: first message wins, classes, errno text, one-line messages. */

#include <errno.h>
#include <string.h>

#include "lib/err.h"
#include "tests/unit/tap.h"

static void test_init(void)
{
	struct err e = ERR_INIT;

	ok(!err_isset(&e), "ERR_INIT is not set");
	is_int(e.class, ERR_NONE, "ERR_INIT class is ERR_NONE");
	is_str(e.msg, "", "ERR_INIT message is empty");
}

static void test_set(void)
{
	struct err e = ERR_INIT;

	is_int(err_set(&e, ERR_USAGE, "unknown fault '%s'", "kil"), -1,
	       "err_set returns -1");
	ok(err_isset(&e), "error is set");
	is_int(e.class, ERR_USAGE, "class kept");
	is_str(e.msg, "unknown fault 'kil'", "message formatted");
}

static void test_first_wins(void)
{
	struct err e = ERR_INIT;

	err_set(&e, ERR_INFRA, "cannot connect to '%s'", "127.0.0.1:4000");
	is_int(err_set(&e, ERR_CHECK, "second"), -1,
	       "a second err_set still returns -1");
	is_int(err_errno(&e, ENOENT, "third"), -1,
	       "a later err_errno still returns -1");
	is_int(e.class, ERR_INFRA, "first class kept");
	is_str(e.msg, "cannot connect to '127.0.0.1:4000'",
	       "first message kept");

}

static void test_errno(void)
{
	struct err e = ERR_INIT;
	char want[ERR_MSG_MAX];

	is_int(err_errno(&e, ENOENT, "cannot open '%s'", "/nope"), -1,
	       "err_errno returns -1");
	is_str(e.msg, "cannot open '/nope': No such file or directory",
	       "err_errno appends ': strerror'");
	is_int(e.class, ERR_INFRA, "err_errno classes as ERR_INFRA");

	err_clear(&e);
	err_errno(&e, EACCES, "cannot write '%s'", "x");
	snprintf(want, sizeof(want), "cannot write 'x': %s", strerror(EACCES));
	is_str(e.msg, want, "err_errno with EACCES");

	err_clear(&e);
	errno = EPERM;
	err_errno(&e, 0, "no error");
	is_str(e.msg, "no error: Success", "errnum is used, not errno");
}

static void test_newlines(void)
{
	struct err e = ERR_INIT;

	err_set(&e, ERR_INFRA, "line one\nline two\r\nthree\n");
	is_str(e.msg, "line one line two  three ",
	       "newlines and carriage returns become spaces");
	ok(!strchr(e.msg, '\n'), "message is one line");

	err_clear(&e);
	err_set(&e, ERR_INFRA, "server said '%s'", "Access denied\nfor user");
	is_str(e.msg, "server said 'Access denied for user'",
	       "newlines in arguments become spaces");

	err_clear(&e);
	err_errno(&e, ENOENT, "a\nb");
	is_str(e.msg, "a b: No such file or directory",
	       "err_errno replaces newlines too");
}

static void test_clear(void)
{
	struct err e = ERR_INIT;

	err_set(&e, ERR_CHECK, "lost write of id %d", 42);
	err_clear(&e);
	ok(!err_isset(&e), "err_clear: not set");
	is_int(e.class, ERR_NONE, "err_clear: class ERR_NONE");
	is_str(e.msg, "", "err_clear: message empty");

	err_set(&e, ERR_INTERRUPTED, "interrupted");
	is_str(e.msg, "interrupted", "a cleared err takes a new message");
	is_int(e.class, ERR_INTERRUPTED, "and a new class");
}

static void test_long_message(void)
{
	struct err e = ERR_INIT;
	char text[3 * ERR_MSG_MAX];

	memset(text, 'a', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	err_set(&e, ERR_INFRA, "%s", text);
	is_int(strlen(e.msg), ERR_MSG_MAX - 1, "long message truncated");

	err_clear(&e);
	err_errno(&e, ENOENT, "%s", text);
	is_int(strlen(e.msg), ERR_MSG_MAX - 1,
	       "long err_errno message truncated");
	ok(e.msg[0] == 'a' && e.msg[ERR_MSG_MAX - 2] == 'a',
	   "the start is kept, the suffix dropped");
}

static void test_null(void)
{
	/* Library code passes NULL when it does not want the message
	 * (buf_read_file, proc_capture): setting must be a no-op then. */
	is_int(err_set(NULL, ERR_INFRA, "dropped %d", 1), -1,
	       "err_set(NULL) returns -1");
	is_int(err_errno(NULL, ENOENT, "dropped"), -1,
	       "err_errno(NULL) returns -1");
}

int main(void)
{
	test_init();
	test_set();
	test_first_wins();
	test_errno();
	test_newlines();
	test_clear();
	test_long_message();
	test_null();
	return done_testing();
}
