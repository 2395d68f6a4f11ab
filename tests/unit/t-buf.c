/* lib/buf.c: appending, the size limit, files. */

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/buf.h"
#include "tests/unit/tap.h"
#include "tests/unit/tmpdir.h"

static void test_empty(void)
{
	struct buf b = BUF_INIT;
	struct buf c;

	is_str(buf_str(&b), "", "BUF_INIT: buf_str is \"\"");
	is_int(b.len, 0, "BUF_INIT: len 0");
	ok(b.data == NULL, "BUF_INIT: nothing allocated");
	buf_init(&c, 100);
	is_str(buf_str(&c), "", "buf_init: buf_str is \"\"");
	is_int(c.limit, 100, "buf_init keeps the limit");
	buf_release(&b);
	buf_release(&c);
}

static void test_add(void)
{
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;

	is_int(buf_addstr(&b, "select", &e), 0, "buf_addstr returns 0");
	is_int(buf_addch(&b, ' ', &e), 0, "buf_addch returns 0");
	is_int(buf_add(&b, "1 from tXXX", 8, &e), 0, "buf_add returns 0");
	is_int(buf_printf(&b, &e, "%d, '%s'", 42, "x"), 0,
	       "buf_printf returns 0");
	is_str(buf_str(&b), "select 1 from t42, 'x'", "contents appended");
	is_int(b.len, 22, "len counts the bytes");
	is_int(buf_add(&b, "ignored", 0, &e), 0, "adding 0 bytes is fine");
	is_int(b.len, 22, "and adds nothing");
	is_int(buf_add(&b, "a\0b", 3, &e), 0, "binary data");
	is_int(b.len, 25, "NUL bytes counted");
	ok(!memcmp(b.data + 22, "a\0b", 4), "binary data kept, NUL-terminated");
	ok(!err_isset(&e), "no error set on success");
	buf_release(&b);
	ok(b.data == NULL && b.len == 0 && b.cap == 0,
	   "buf_release empties the struct");

	is_int(buf_add(&b, NULL, 0, &e), 0, "adding nothing to an empty buf");
	is_str(buf_str(&b), "", "still \"\"");
	ok(b.data != NULL && b.data[0] == '\0',
	   "but now allocated and NUL-terminated");
	buf_release(&b);
}

static void test_addint(void)
{
	static const long long values[] = { 0, 7, -7, 10, 99, 1000000007,
					    -1234567890123LL, LLONG_MAX,
					    LLONG_MIN };
	struct buf b = BUF_INIT, want = BUF_INIT;

	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		buf_reset(&b);
		buf_reset(&want);
		buf_addint(&b, values[i], NULL);
		buf_printf(&want, NULL, "%lld", values[i]);
		is_str(buf_str(&b), buf_str(&want), "buf_addint %s",
		       buf_str(&want));
	}
	buf_release(&b);
	buf_init(&b, 3);
	ok(buf_addint(&b, 1000, NULL) == -1 && b.len == 0,
	   "buf_addint past the limit fails and adds nothing");
	buf_release(&b);
	buf_release(&want);
}

static void test_growth(void)
{
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	size_t i, bad = 0;
	int failed = 0;

	for (i = 0; i < 100000; i++)
		failed |= buf_addch(&b, (char)('a' + i % 26), &e);
	ok(!failed, "100000 buf_addch calls succeed");
	is_int(b.len, 100000, "len after 100000 bytes");
	ok(b.cap > b.len, "room for the terminator");
	for (i = 0; i < b.len; i++)
		if (b.data[i] != (char)('a' + i % 26))
			bad++;
	is_int(bad, 0, "every byte where it belongs");
	is_int(b.data[b.len], '\0', "NUL-terminated");
	for (i = 0; i < 1000; i++)
		failed |= buf_printf(&b, &e, "%04zu,", i);
	ok(!failed, "1000 buf_printf calls succeed");
	is_int(b.len, 105000, "len after printf");
	is_str(b.data + 100000 + 999 * 5, "0999,", "last printf at the end");
	ok(!strncmp(b.data + 100000 + 500 * 5, "0500,0501,", 10),
	   "printf in the middle");
	buf_release(&b);
}

static void test_limit(void)
{
	struct buf b;
	struct err e = ERR_INIT;

	buf_init(&b, 16);
	is_int(buf_addstr(&b, "0123456789", &e), 0, "10 bytes fit in 16");
	is_int(buf_addstr(&b, "abcdefg", &e), -1, "17 bytes do not");
	is_str(e.msg, "buffer limit of 16 bytes exceeded", "limit message");
	is_int(e.class, ERR_INFRA, "limit error is ERR_INFRA");
	is_str(buf_str(&b), "0123456789", "buffer unchanged after buf_add");
	is_int(b.len, 10, "len unchanged");

	err_clear(&e);
	is_int(buf_printf(&b, &e, "%s", "abcdefg"), -1, "printf over limit");
	is_str(e.msg, "buffer limit of 16 bytes exceeded",
	       "printf limit message");
	is_str(buf_str(&b), "0123456789", "buffer unchanged after printf");

	err_clear(&e);
	is_int(buf_addstr(&b, "abcdef", &e), 0, "exactly 16 bytes fit");
	is_str(buf_str(&b), "0123456789abcdef", "full buffer");
	is_int(buf_addch(&b, 'x', &e), -1, "one more byte does not");
	is_str(e.msg, "buffer limit of 16 bytes exceeded",
	       "addch limit message");
	is_int(b.len, 16, "len still 16");
	is_int(buf_add(&b, "", 0, &e), 0, "adding 0 bytes to a full buffer");

	/* A huge length must not wrap around the limit check. */
	err_clear(&e);
	buf_truncate(&b, 4);
	is_int(buf_add(&b, "x", SIZE_MAX, &e), -1, "SIZE_MAX bytes rejected");
	is_str(buf_str(&b), "0123", "buffer unchanged after SIZE_MAX");
	buf_release(&b);
	is_int(b.limit, 16, "buf_release keeps the limit");
	err_clear(&e);
	is_int(buf_addstr(&b, "0123456789abcdefg", &e), -1,
	       "limit still applies after release");
	buf_release(&b);

	buf_init(&b, 0);
	is_uint(b.limit, 0, "limit 0 stored as given");
	err_clear(&e);
	is_int(buf_add(&b, "x", BUF_DEFAULT_LIMIT + 1, &e), -1,
	       "limit 0 means BUF_DEFAULT_LIMIT");
	is_str(e.msg, "buffer limit of 67108864 bytes exceeded",
	       "default limit message");
	buf_release(&b);
}

static void test_trim(void)
{
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;

	buf_addstr(&b, "value \t\r\n \n", &e);
	buf_rtrim(&b);
	is_str(buf_str(&b), "value", "rtrim drops spaces, tabs, CR, LF");
	is_int(b.len, 5, "rtrim updates len");
	buf_rtrim(&b);
	is_str(buf_str(&b), "value", "rtrim without trailing space");
	buf_reset(&b);
	buf_addstr(&b, " \n\t", &e);
	buf_rtrim(&b);
	is_str(buf_str(&b), "", "rtrim of all whitespace");
	is_int(b.len, 0, "len 0");
	buf_addstr(&b, "  lead", &e);
	buf_rtrim(&b);
	is_str(buf_str(&b), "  lead", "rtrim keeps leading space");

	buf_truncate(&b, 3);
	is_str(buf_str(&b), "  l", "truncate shortens");
	is_int(b.len, 3, "truncate sets len");
	buf_truncate(&b, 10);
	is_str(buf_str(&b), "  l", "truncate longer is a no-op");
	is_int(b.len, 3, "len unchanged");
	buf_reset(&b);
	is_str(buf_str(&b), "", "reset empties");
	ok(b.data != NULL, "reset keeps the memory");
	buf_release(&b);

	buf_rtrim(&b);
	buf_truncate(&b, 0);
	is_str(buf_str(&b), "", "rtrim and truncate of a fresh buffer");
}

static void test_detach(void)
{
	struct buf b;
	struct err e = ERR_INIT;
	size_t len = 99;
	char *s;

	buf_init(&b, 1000);
	buf_addstr(&b, "owned", &e);
	s = buf_detach(&b, &len);
	is_str(s, "owned", "detach hands over the contents");
	is_int(len, 5, "and their length");
	ok(b.data == NULL && b.len == 0 && b.cap == 0, "buf is empty after");
	is_int(b.limit, 1000, "limit kept");
	is_str(buf_str(&b), "", "buf_str after detach");
	free(s);

	len = 99;
	s = buf_detach(&b, &len);
	ok(s != NULL, "detach of an empty buf is not NULL");
	is_str(s, "", "but \"\"");
	is_int(len, 0, "of length 0");
	free(s);

	buf_addstr(&b, "again", &e);
	s = buf_detach(&b, NULL);
	is_str(s, "again", "detach with NULL len");
	free(s);
	buf_release(&b);
}

static void test_read_file(struct tmpdir *t)
{
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	char missing[512], want[1024], path[512], *big;
	size_t size = 200000;

	snprintf(missing, sizeof(missing), "%s", tmpdir_path(t, "missing"));
	is_int(buf_read_file(&b, missing, &e), -1, "read of a missing file");
	snprintf(want, sizeof(want), "cannot open '%s': No such file or "
		 "directory", missing);
	is_str(e.msg, want, "missing file message");
	ok(!strncmp(e.msg, "cannot open '", 13),
	   "starts with \"cannot open '\"");
	is_int(e.class, ERR_INFRA, "missing file is ERR_INFRA");

	err_clear(&e);
	snprintf(path, sizeof(path), "%s", tmpdir_path(t, "empty"));
	write_text(path, "");
	is_int(buf_read_file(&b, path, &e), 0, "read of an empty file");
	ok(b.data != NULL, "empty file: buffer allocated");
	is_str(buf_str(&b), "", "empty file: \"\"");

	snprintf(path, sizeof(path), "%s", tmpdir_path(t, "text"));
	write_text(path, "hello\nworld\n");
	buf_addstr(&b, ">", &e);
	is_int(buf_read_file(&b, path, &e), 0, "read of a small file");
	is_str(buf_str(&b), ">hello\nworld\n", "read appends the contents");

	/* Larger than one read chunk. */
	big = malloc(size + 1);
	for (size_t i = 0; i < size; i++)
		big[i] = (char)('A' + i % 23);
	big[size] = '\0';
	snprintf(path, sizeof(path), "%s", tmpdir_path(t, "big"));
	write_text(path, big);
	buf_reset(&b);
	is_int(buf_read_file(&b, path, &e), 0, "read of a 200000-byte file");
	is_int(b.len, size, "all of it");
	ok(b.len == size && !memcmp(b.data, big, size), "byte for byte");
	buf_release(&b);

	/* Over the limit: 4 + 12 bytes fit exactly, 4 + 13 do not. */
	buf_init(&b, 16);
	buf_addstr(&b, "keep", &e);
	snprintf(path, sizeof(path), "%s", tmpdir_path(t, "text"));
	is_int(buf_read_file(&b, path, &e), 0, "file up to the limit");
	is_str(buf_str(&b), "keephello\nworld\n", "read to the limit");
	buf_truncate(&b, 4);
	write_text(path, "hello\nworld!\n");
	is_int(buf_read_file(&b, path, &e), -1, "file over the limit");
	snprintf(want, sizeof(want), "'%s' is larger than 16 bytes", path);
	is_str(e.msg, want, "over-limit message");
	is_int(e.class, ERR_INFRA, "over-limit is ERR_INFRA");
	is_str(buf_str(&b), "keep", "buffer unchanged");
	buf_release(&b);

	/* Over the limit after some chunks were read: still unchanged. */
	err_clear(&e);
	buf_init(&b, 150000);
	buf_addstr(&b, "keep", &e);
	snprintf(path, sizeof(path), "%s", tmpdir_path(t, "big"));
	is_int(buf_read_file(&b, path, &e), -1, "big file over the limit");
	snprintf(want, sizeof(want), "'%s' is larger than 150000 bytes",
		 path);
	is_str(e.msg, want, "big over-limit message");
	is_str(buf_str(&b), "keep", "no partial contents left behind");
	is_int(b.len, 4, "len unchanged");
	buf_release(&b);

	err_clear(&e);
	is_int(buf_read_file(&b, t->dir, &e), -1, "read of a directory");
	snprintf(want, sizeof(want), "cannot read '%s': Is a directory",
		 t->dir);
	is_str(e.msg, want, "directory message");
	buf_release(&b);
	free(big);
}

static void test_write_file(struct tmpdir *t)
{
	struct buf b = BUF_INIT, back = BUF_INIT;
	struct err e = ERR_INIT;
	char path[512], want[1024], text[64];
	struct stat st;
	mode_t mask = umask(022);

	snprintf(path, sizeof(path), "%s", tmpdir_path(t, "out"));
	buf_addstr(&b, "round\ntrip\n", &e);
	is_int(buf_write_file(&b, path, 0640, &e), 0, "buf_write_file");
	read_text(path, text, sizeof(text));
	is_str(text, "round\ntrip\n", "file holds the buffer");
	ok(!stat(path, &st) && (st.st_mode & 07777) == 0640,
	   "file mode as asked");
	is_int(buf_read_file(&back, path, &e), 0, "read it back");
	is_str(buf_str(&back), "round\ntrip\n", "round trip");

	buf_reset(&b);
	buf_addstr(&b, "new", &e);
	is_int(buf_write_file(&b, path, 0640, &e), 0, "overwrite");
	read_text(path, text, sizeof(text));
	is_str(text, "new", "old contents replaced, not appended");

	/* A temporary file left by an earlier crash is overwritten. */
	snprintf(want, sizeof(want), "%s.tmp.%ld", path, (long)getpid());
	write_text(want, "stale contents, longer than the new ones\n");
	is_int(buf_write_file(&b, path, 0640, &e), 0, "over a stale temp file");
	read_text(path, text, sizeof(text));
	is_str(text, "new", "the stale temp file's contents are gone");

	buf_release(&b);
	is_int(buf_write_file(&b, path, 0600, &e), 0, "write an empty buf");
	ok(!stat(path, &st) && st.st_size == 0, "empty file");
	snprintf(want, sizeof(want), "%s.tmp.%ld", path, (long)getpid());
	ok(access(want, F_OK) && errno == ENOENT, "no temporary file left");

	snprintf(path, sizeof(path), "%s", tmpdir_path(t, "nodir/out"));
	is_int(buf_write_file(&b, path, 0644, &e), -1,
	       "write into a missing directory");
	snprintf(want, sizeof(want), "cannot create '%s.tmp.%ld': No such "
		 "file or directory", path, (long)getpid());
	is_str(e.msg, want, "missing directory message");

	umask(mask);
	buf_release(&b);
	buf_release(&back);
}

/*
 * Allocation dies (docs/internals.md, Rules): xmalloc of more than the
 * machine has says so on stderr, in one line, and aborts.
 */
static void test_xmalloc_dies(void)
{
	int fds[2], status = 0;
	char out[200] = "";
	ssize_t n;
	pid_t pid;

#if defined(__SANITIZE_ADDRESS__)
	skip_build(2, "AddressSanitizer's allocator reports the size itself");
	return;
#endif
	if (pipe(fds)) {
		skip(2, "no pipe");
		return;
	}
	pid = fork();
	if (pid == 0) {
		struct rlimit none = { 0, 0 };

		setrlimit(RLIMIT_CORE, &none);	/* no core file left */
		dup2(fds[1], 2);
		close(fds[0]);
		xmalloc(SIZE_MAX / 2);
		_exit(0);
	}
	close(fds[1]);
	n = read(fds[0], out, sizeof(out) - 1);
	out[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	waitpid(pid, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
	   "out of memory: abort");
	is_str(out, "tichaos: out of memory allocating 9223372036854775807 "
	       "bytes\n", "after saying so, with the size");
}

int main(void)
{
	struct tmpdir t;

	test_xmalloc_dies();
	test_empty();
	test_add();
	test_addint();
	test_growth();
	test_limit();
	test_trim();
	test_detach();
	if (tmpdir_create(&t)) {
		diag("cannot create a temporary directory: %s",
		     strerror(errno));
		skip(1, "no temporary directory");
		return done_testing();
	}
	test_read_file(&t);
	test_write_file(&t);
	ok(!tmpdir_remove(&t), "temporary directory removed");
	return done_testing();
}
