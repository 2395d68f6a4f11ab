/*
 * lib/optspec.c: options bound into a kind's own struct (optspec_bind,
 * OPT_AT). Every type lands in its member as lib/optspec.h says, unset
 * values are 0, NULL, empty or -1, a spec without `at` binds nothing,
 * and optspec_bound finds where a bound value was given.
 */
#include <string.h>

#include "lib/err.h"
#include "lib/optspec.h"
#include "lib/ynode.h"
#include "tests/unit/tap.h"

static const char *const colours[] = { "red", "green", "blue", NULL };

struct bound {
	int flag;
	int64_t count;
	double rate;
	int64_t wait;
	const char *name;
	int colour;
	int shade;		/* an enum with no default, not given */
	struct optlist tables;
	struct optlist picks;
	struct optints at;
	const char *target;
	const char *note;	/* not given, no default */
	int64_t untouched;	/* no spec binds it */
};

#define AT(member) OPT_AT(struct bound, member)

static const struct optspec specs[] = {
	{ "flag", OPT_BOOL, "false", 0, NULL, 0, 0, "a bool", AT(flag) },
	{ "count", OPT_INT, "3", 0, NULL, 0, 100, "an int", AT(count) },
	{ "rate", OPT_FLOAT, "0", 0, NULL, 0, 0, "a float", AT(rate) },
	{ "wait", OPT_DURATION, "1s", 0, NULL, 0, 0, "a duration",
	  AT(wait) },
	{ "name", OPT_IDENT, NULL, 1, NULL, 0, 0, "an ident", AT(name) },
	{ "colour", OPT_ENUM, "red", 0, colours, 0, 0, "an enum",
	  AT(colour) },
	{ "shade", OPT_ENUM, NULL, 0, colours, 0, 0, "an enum, unset",
	  AT(shade) },
	{ "tables", OPT_TABLES, NULL, 1, NULL, 0, 0, "tables", AT(tables) },
	{ "picks", OPT_ENUM_LIST, "[green]", 0, colours, 0, 0, "choices",
	  AT(picks) },
	{ "at", OPT_DURATION_LIST, NULL, 0, NULL, 0, 0, "durations",
	  AT(at) },
	{ "target", OPT_COMPONENT, NULL, 0, NULL, 0, 0, "a component",
	  AT(target) },
	{ "note", OPT_STRING, NULL, 0, NULL, 0, 0, "a string", AT(note) },
	{ "loose", OPT_INT, "7", 0, NULL, 0, 10, "not bound", 0 },
};

#define NSPECS (sizeof(specs) / sizeof(specs[0]))

static const char text[] =
	"flag: true\n"
	"rate: 2.5\n"
	"wait: 250ms\n"
	"name: t_1\n"
	"colour: blue\n"
	"tables: t_{1..3}\n"
	"at: [1s, 3s]\n"
	"target: cdc\n";

int main(void)
{
	struct optval vals[NSPECS];
	struct bound b;
	struct ynode *root = NULL;
	struct err e = ERR_INIT;
	const struct optval *v;

	plan(27);
	memset(vals, 0, sizeof(vals));
	memset(&b, 0xff, sizeof(b));
	b.untouched = 42;
	if (ynode_load_string("t.yaml", text, strlen(text), &root, &e) ||
	    optspec_parse("t.yaml", root, specs, NSPECS, NULL, "test", vals,
			  &e)) {
		diag("set-up: %s", e.msg);
		return 1;
	}
	optspec_bind(specs, NSPECS, vals, &b);
	is_int(b.flag, 1, "bool given: 1");
	is_int(b.count, 3, "int defaulted: 3");
	ok(b.rate == 2.5, "float: 2.5");
	is_int(b.wait, 250000000, "duration in ns");
	is_str(b.name, "t_1", "ident");
	is_int(b.colour, 2, "enum: the choice's index");
	is_int(b.shade, -1, "enum unset: -1");
	is_int((int64_t)b.tables.n, 3, "tables: the range expanded");
	is_str(b.tables.v[0], "t_1", "first table");
	is_str(b.tables.v[2], "t_3", "last table");
	is_int((int64_t)b.picks.n, 1, "enum list defaulted: one choice");
	is_str(b.picks.v[0], "green", "as written");
	is_int((int64_t)b.at.n, 2, "duration list: two");
	is_int(b.at.v[1], 3000000000LL, "in ns");
	is_str(b.target, "cdc", "component");
	ok(b.note == NULL, "string unset: NULL");
	is_int(b.untouched, 42, "a member no spec binds is left alone");

	v = optspec_bound(specs, NSPECS, vals, &b, &b.rate);
	ok(v == &vals[2], "optspec_bound finds the value bound at a member");
	is_int(v->line, 2, "where it was given: line");
	is_int(v->col, 7, "and column");
	ok(v->given && v->set, "given and set");
	v = optspec_bound(specs, NSPECS, vals, &b, &b.count);
	ok(v && v->set && !v->given, "a default: set, not given");
	v = optspec_bound(specs, NSPECS, vals, &b, &b.note);
	ok(v && !v->set, "an unset option: not set");
	ok(optspec_bound(specs, NSPECS, vals, &b, &b.untouched) == NULL,
	   "a member no spec binds: NULL");

	/* Bound again after a change of a value: the struct follows. */
	vals[1].i = 9;
	optspec_bind(specs, NSPECS, vals, &b);
	is_int(b.count, 9, "bind reads the values as they are");
	ok(b.tables.v == (char *const *)vals[7].list,
	   "lists point into the values, not copies");
	ok(b.name == vals[4].s, "so do strings");

	optvals_release(vals, NSPECS);
	ynode_free(root);
	return exit_status();
}
