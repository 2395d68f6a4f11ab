/*
 * lib/toml.h: sync-diff-inspector's configuration as TiCDC's integration
 * tests write it (pingcap/ticdc, tests/integration_tests/
 * consistent_fail_over_ddl_mix/conf/diff_config.toml at 201619cf3388),
 * the rest of what is read, and every refusal at its line and column.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/toml.h"
#include "tests/unit/tap.h"

static char path[64];

/* `text` read as a file; its error, "" when it was read. */
static const char *read_text(struct toml *t, const char *text)
{
	static struct err e;
	FILE *f = fopen(path, "w");

	err_clear(&e);
	fputs(text, f);
	fclose(f);
	toml_release(t);
	toml_read(t, path, &e);
	return e.msg + (strncmp(e.msg, path, strlen(path)) ? 0 :
			strlen(path));
}

static const char ticdc[] =
	"# diff Configuration.\n"
	"check-thread-count = 4\n"
	"\n"
	"export-fix-sql = true\n"
	"\n"
	"check-struct-only = false\n"
	"\n"
	"[task]\n"
	"output-dir = \"/tmp/tidb_cdc_test/consistent_fail_over_ddl_mix/"
	"sync_diff/output\"\n"
	"\n"
	"source-instances = [\"tidb0\"]\n"
	"\n"
	"target-instance = \"mysql1\"\n"
	"\n"
	"target-check-tables = [\"test.*\"]\n"
	"\n"
	"[data-sources]\n"
	"[data-sources.tidb0]\n"
	"host = \"127.0.0.1\"\n"
	"port = 4000\n"
	"user = \"root\"\n"
	"password = \"\"\n"
	"\n"
	"[data-sources.mysql1]\n"
	"host = \"127.0.0.1\"\n"
	"port = 3306\n"
	"user = \"root\"\n"
	"password = \"\"\n";

static void test_ticdc(void)
{
	struct toml t = { 0 };
	const struct toml_entry *x;

	is_str(read_text(&t, ticdc), "", "TiCDC's diff_config.toml is read");
	is_int(t.n, 15, "15 keys");
	x = toml_get(&t, "check-thread-count");
	ok(x && x->v.type == TOML_INT && x->v.i == 4 && x->line == 2 &&
	   x->col == 1 && !strcmp(x->table, ""), "a top key: 4, at 2:1");
	x = toml_get(&t, "task.source-instances");
	ok(x && x->v.type == TOML_ARRAY && x->v.n == 1 &&
	   !strcmp(x->v.items[0].str, "tidb0") && x->v.line == 11 &&
	   x->v.col == 20 && !strcmp(x->table, "task"),
	   "an array of one string, in [task], its value at 11:20");
	x = toml_get(&t, "data-sources.mysql1.port");
	ok(x && x->v.type == TOML_INT && x->v.i == 3306 && x->line == 26,
	   "a key of a dotted table: 3306 at line 26");
	x = toml_get(&t, "data-sources.tidb0.password");
	ok(x && x->v.type == TOML_STRING && !strcmp(x->v.str, ""),
	   "an empty string");
	x = toml_get(&t, "check-struct-only");
	ok(x && x->v.type == TOML_BOOL && x->v.i == 0, "false");
	toml_release(&t);
}

static void test_more(void)
{
	struct toml t = { 0 };
	const struct toml_entry *x;

	is_str(read_text(&t, "a.'b c'.d = 'C:\\x' # literal\n"
			 "\"q\\\"k\" = \"tab\\there \\u00e9\\U0001F600\"\n"
			 "arr = [\n  \"x\", # one\n  'y',\n]\n"
			 "n = -1_000\nm = +7\nnested = [[1, 2], []]\n"
			 "[ t . u ]\nk=true\r\n"),
	       "", "dotted and quoted keys, escapes, a multi-line array");
	x = toml_get(&t, "a.b c.d");
	ok(x && !strcmp(x->v.str, "C:\\x"), "a literal string keeps \\");
	x = toml_get(&t, "q\"k");
	ok(x && !strcmp(x->v.str, "tab\there \xc3\xa9\xf0\x9f\x98\x80"),
	   "\\t, \\u00e9 and \\U0001F600 as UTF-8");
	x = toml_get(&t, "arr");
	ok(x && x->v.n == 2 && !strcmp(x->v.items[1].str, "y") &&
	   x->v.items[1].line == 5, "comments and a trailing comma in it");
	ok((x = toml_get(&t, "n")) && x->v.i == -1000, "-1_000");
	ok((x = toml_get(&t, "m")) && x->v.i == 7, "+7");
	x = toml_get(&t, "nested");
	ok(x && x->v.n == 2 && x->v.items[0].n == 2 &&
	   x->v.items[0].items[1].i == 2 && x->v.items[1].n == 0,
	   "arrays in an array");
	ok((x = toml_get(&t, "t.u.k")) && x->v.i == 1 && !strcmp(x->table,
								  "t.u"),
	   "[ t . u ] and a CRLF line");
	toml_release(&t);
}

static void test_refused(void)
{
	static const char *const cases[][3] = {
		{ "a = 1\nb = 2\na = 3\n", ":3:1: 'a' is given twice (first "
		  "at line 1)", "a key given twice" },
		{ "[t]\nk = 1\n[u]\n[t]\nk = 2\n", ":5:1: 't.k' is given "
		  "twice (first at line 2)", "a key of a table given twice" },
		{ "x = 1.5\n", ":1:6: only decimal integers are read here",
		  "a float" },
		{ "x = 0x1f\n", ":1:6: only decimal integers are read here",
		  "a hex integer" },
		{ "x = { a = 1 }\n", ":1:5: inline tables are not read here",
		  "an inline table" },
		{ "[[t]]\n", ":1:1: arrays of tables are not read here",
		  "an array of tables" },
		{ "x = \"\"\"a\n\"\"\"\n", ":1:5: multi-line strings are not "
		  "read here", "a multi-line string" },
		{ "x = \"abc\n", ":1:9: the string does not end on its line",
		  "a string not closed" },
		{ "x = \"\\q\"\n", ":1:7: unknown escape", "an unknown escape" },
		{ "x = 1 y = 2\n", ":1:7: expected the end of the line",
		  "two keys on a line" },
		{ "x 1\n", ":1:3: expected '=' after the key", "no =" },
		{ "= 1\n", ":1:1: expected a key", "no key" },
		{ "x =\n", ":1:4: expected a value: a string, an integer, "
		  "true, false or an array", "no value" },
		{ "x = [1 2]\n", ":1:8: expected ',' or ']' in the array",
		  "no comma in an array" },
		{ "[t\n", ":1:3: expected ']'", "a header not closed" },
		{ "x = 99999999999999999999\n", ":1:25: not an integer",
		  "an integer past 64 bits" },
		{ "x = tru\n", ":1:5: expected a value: a string, an integer, "
		  "true, false or an array", "a word" },
		{ "x = \"\\ud800\"\n", ":1:7: no such code point",
		  "a surrogate" },
		{ "", "", "" },
	};
	struct toml t = { 0 };

	for (size_t i = 0; cases[i][2][0]; i++)
		is_str(read_text(&t, cases[i][0]), cases[i][1], "%s",
		       cases[i][2]);
	toml_release(&t);
}

int main(void)
{
	struct toml t = { 0 };
	struct err e = ERR_INIT;
	int fd;

	snprintf(path, sizeof(path), "/tmp/t-toml.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	test_ticdc();
	test_more();
	test_refused();
	ok(toml_read(&t, "/nonexistent/x.toml", &e) == -1 &&
	   strstr(e.msg, "/nonexistent/x.toml"),
	   "a file that is not there: an error naming it");
	toml_release(&t);
	unlink(path);
	return done_testing();
}
