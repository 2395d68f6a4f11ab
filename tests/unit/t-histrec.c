/* lib/histrec.c: one line of history.jsonl into a record, or what is wrong. */

#include <stdio.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/histrec.h"
#include "lib/history.h"
#include "tests/unit/tap.h"

/* A field's text, "-" when absent. */
#define OR_NONE(s) ((s) ? (s) : "-")

/*
 * `text` parsed as line 7 into `l`, its strings in `line`: 0, or -1 with
 * "COL: MESSAGE" in `said`.
 */
static int parse_as_line_7(const char *text, char *line, size_t size,
			   struct history_line *l, char *said, size_t saidsize)
{
	char msg[200];
	struct histrec r;
	size_t col = 99;

	snprintf(line, size, "%s", text);
	if (histrec_parse(line, strlen(line), &r, msg, sizeof(msg), &col)) {
		snprintf(said, saidsize, "%zu: %s", col, msg);
		return -1;
	}
	histrec_to_line(&r, 7, l);
	return 0;
}

/*
 * `text` parsed as line 7: the record as readers see it, every field
 * ("line 7 time 1 process 3 ..."), or "COL: MESSAGE".
 */
static const char *parsed(const char *text)
{
	static char said[512];
	char line[512];
	struct history_line l;

	if (parse_as_line_7(text, line, sizeof(line), &l, said, sizeof(said)))
		return said;
	snprintf(said, sizeof(said), "line %zu time %lld process %d type %s "
		 "f %s table %s node %s target %s error %s id %d:%lld ddl %d "
		 "fault %d value %.*s", l.line, (long long)l.time, l.process,
		 l.type, l.f, OR_NONE(l.table), OR_NONE(l.node),
		 OR_NONE(l.target), OR_NONE(l.error), l.has_id,
		 (long long)l.id, l.ddl, l.fault,
		 l.value ? (int)l.value_len : 1, l.value ? l.value : "-");
	return said;
}

/* An event as history_format writes it, without its newline, into
 * `line`. */
static void written(char *line, size_t size, const struct history_event *ev)
{
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;

	if (history_format(&b, ev, &e))
		buf_addstr(&b, "(not written)", NULL);
	buf_rtrim(&b);
	snprintf(line, size, "%s", buf_str(&b));
	buf_release(&b);
}

/* As history_format writes a record, and the same record otherwise:
 * its keys in another order, spaces, escapes, keys it does not know. */
static void test_same_record(void)
{
	static const struct history_event op = {
		1209100, 3, "ok", "insert", "test.t", "up-0", NULL, 4001,
		"lost connection", "{\"from\":3,\"to\":7,\"amount\":5}", 1, 0,
		0, NULL, 0
	};
	static const struct history_event step = {
		5160000, HISTORY_NEMESIS, "info", "resign", NULL, NULL,
		"autoid", -1, NULL, "{\"from\":\"tidb-0\"}", 0, 1, 2, NULL, 0
	};
	static const char op_record[] =
		"line 7 time 1209100 process 3 type ok f insert table test.t "
		"node up-0 target - error lost connection id 1:4001 ddl 1 "
		"fault -1 value {\"from\":3,\"to\":7,\"amount\":5}";
	static const char step_record[] =
		"line 7 time 5160000 process -1 type info f resign table - "
		"node - target autoid error - id 0:-1 ddl 0 fault 2 value "
		"{\"from\":\"tidb-0\"}";
	char line[512];

	written(line, sizeof(line), &op);
	is_str(line, "{\"time\":1209100,\"process\":3,\"type\":\"ok\",\"f\":"
	       "\"insert\",\"table\":\"test.t\",\"node\":\"up-0\",\"id\":4001,"
	       "\"error\":\"lost connection\",\"value\":{\"from\":3,\"to\":7,"
	       "\"amount\":5},\"ddl\":true}", "an operation, as written");
	is_str(parsed(line), op_record, "an operation: every field read");
	is_str(parsed(" { \"ddl\" : true, \"value\" : {\"from\":3,\"to\":7,"
		      "\"amount\":5} , \"error\":\"lost\\u0020connection\","
		      "\"id\":4001,\"node\":\"up-0\",\"extra\":[1,{\"x\":"
		      "null}],\"t\\u0061ble\":\"test.t\",\"f\":\"insert\","
		      "\"type\":\"ok\",\"process\":3,\"time\":1209100 } "),
	       op_record,
	       "its keys reordered, spaced, escaped, one more: the same");
	written(line, sizeof(line), &step);
	is_str(parsed(line), step_record, "a fault's step: every field read");
	is_str(parsed("{\"fault\":2,\"value\":{\"from\":\"tidb-0\"},"
		      "\"target\":\"autoid\",\"f\":\"resign\",\"type\":"
		      "\"info\",\"process\":\"nemesis\",\"time\":5160000,"
		      "\"ddl\":false}"), step_record,
	       "its keys reordered, ddl false: the same");
	is_str(parsed("{\"time\":5,\"process\":\"monitor\",\"type\":\"fail\","
		      "\"f\":\"owner\"}"), "line 7 time 5 process -2 type fail "
	       "f owner table - node - target - error - id 0:-1 ddl 0 fault -1 "
	       "value -", "the monitor, the least a record holds");
}

/* `text` parsed: its "holds" and "heal" ("holds down heal 0"), or what
 * is wrong ("0: MESSAGE"). */
static const char *marks(const char *text)
{
	static char said[256];
	char line[512];
	struct history_line l;

	if (parse_as_line_7(text, line, sizeof(line), &l, said, sizeof(said)))
		return said;
	snprintf(said, sizeof(said), "holds %s heal %d fault %d",
		 OR_NONE(l.holds), l.heal, l.fault);
	return said;
}

/* The marks of a fault's spans (lib/faultspan.h): an injection that
 * holds, a heal step; as written and read the general way. */
static void test_fault_marks(void)
{
	static const struct history_event inject = {
		1100, HISTORY_NEMESIS, "info", "kill", NULL, NULL, "cdc", -1,
		NULL, "{\"killed\":[]}", 0, 1, 0, "down", 0
	};
	static const struct history_event heal = {
		3000, HISTORY_NEMESIS, "invoke", "restart", NULL, NULL, "cdc",
		-1, NULL, NULL, 0, 1, 0, NULL, 1
	};
	char line[512];

	written(line, sizeof(line), &inject);
	is_str(line, "{\"time\":1100,\"process\":\"nemesis\",\"type\":"
	       "\"info\",\"f\":\"kill\",\"target\":\"cdc\",\"value\":"
	       "{\"killed\":[]},\"holds\":\"down\",\"fault\":0}",
	       "an injection that holds, as written");
	is_str(marks(line), "holds down heal 0 fault 0",
	       "an injection that holds: read straight through");
	written(line, sizeof(line), &heal);
	is_str(line, "{\"time\":3000,\"process\":\"nemesis\",\"type\":"
	       "\"invoke\",\"f\":\"restart\",\"target\":\"cdc\",\"heal\":"
	       "true,\"fault\":0}", "a heal step, as written");
	is_str(marks(line), "holds - heal 1 fault 0",
	       "a heal step: read straight through");
	is_str(marks("{\"heal\" : true, \"holds\":\"c\\u0075t\",\"fault\":3,"
		     "\"f\":\"x\",\"type\":\"info\",\"process\":\"nemesis\","
		     "\"time\":1}"), "holds cut heal 1 fault 3",
	       "both marks, keys reordered and escaped: read the general way");
	is_str(marks("{\"time\":1,\"process\":\"nemesis\",\"type\":\"info\","
		     "\"f\":\"x\",\"heal\":false}"), "holds - heal 0 fault -1",
	       "heal false");
	is_str(marks("{\"time\":1,\"process\":\"nemesis\",\"type\":\"info\","
		     "\"f\":\"x\",\"heal\":1}"),
	       "0: \"heal\" is not true or false", "heal: 1");
	is_str(marks("{\"time\":1,\"process\":\"nemesis\",\"type\":\"info\","
		     "\"f\":\"x\",\"holds\":2}"),
	       "0: \"holds\" is not a string", "holds: 2");
}

/* What is wrong with a line, as history_read says it after its number. */
static void test_messages(void)
{
	static const struct {
		const char *text, *said, *name;
	} cases[] = {
		{ "{\"time\":1,\"process\":\"nemesis\",\"type\":\"info\",\"f\":"
		  "\"kill\",\"fault\":-1}",
		  "0: \"fault\" is not a fault item's index",
		  "a fault below 0, as written" },
		{ "{\"fault\":2147483648,\"time\":1,\"process\":\"nemesis\","
		  "\"type\":\"info\",\"f\":\"kill\"}",
		  "0: \"fault\" is not a fault item's index",
		  "a fault past int, keys reordered" },
		{ "{\"time\":1,\"process\":0,\"type\":\"ok\",\"f\":\"x\","
		  "\"fault\":1.5}", "0: \"fault\" is not an integer",
		  "a fault with a fraction" },
		{ "{\"time\":1,\"process\":0,\"type\":\"ok\",\"f\":\"x\","
		  "\"id\":9223372036854775808}", "0: \"id\" is not an integer",
		  "an id past int64" },
		{ "{\"time\":1,\"process\":\"me\",\"type\":\"ok\",\"f\":\"x\"}",
		  "0: \"process\" is not a number, \"nemesis\" or \"monitor\"",
		  "a process of another name" },
		{ "{\"time\":1,\"process\":0,\"type\":\"ok\",\"f\":\"x\","
		  "\"ddl\":1}", "0: \"ddl\" is not true or false", "ddl: 1" },
		{ "{\"time\":1,\"process\":0,\"type\":\"ok\",\"f\":\"x\","
		  "\"table\":[]}", "0: \"table\" is not a string",
		  "a table that is no string" },
		{ "{\"time\":1,\"process\":0,\"type\":\"ok\"}", "0: no \"f\"",
		  "no f" },
		{ "{\"time\":1,\"process\":0,\"type\":\"bogus\",\"f\":\"x\"}",
		  "0: unknown type 'bogus'", "a type no record has" },
		{ "", "0: empty line", "an empty line" },
		{ "[1]", "1: not JSON: not a JSON object", "an array" },
		{ "{\"time\":1,\"process\":0,\"type\":\"ok\",\"f\":\"x\"} x",
		  "44: not JSON: text after the object", "text after it" },
		{ "{\"time\":1,\"process\":0 \"type\":\"ok\"}",
		  "23: not JSON: expected ',' or '}'", "a comma missing" },
		{ "{\"time\":1,\"process\":0,\"type\":\"ok\",\"f\":\"x\","
		  "\"value\":{\"a\":tru}}", "56: not JSON: expected a value",
		  "a value that is no JSON" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		is_str(parsed(cases[i].text), cases[i].said, "%s",
		       cases[i].name);
}

int main(void)
{
	test_same_record();
	test_fault_marks();
	test_messages();
	return done_testing();
}
