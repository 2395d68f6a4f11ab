#include "core/suite.h"

#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/parse.h"
#include "lib/sql.h"
#include "lib/ynode.h"

const char *const suite_require_names[] = {
	"tidb", "ticdc", "mariadb", NULL,
};

static const char *const top_keys[] = {
	"name", "description", "requires", "cluster", "duration", "seed",
	"database", "tables", "workloads", "faults", "checks", "expect",
	"catches", NULL,
};

static const struct optspec top_specs[] = {
	{ "name", OPT_STRING, NULL, 0, NULL, 0, 0,
	  "the suite's name (default: the file name without .yaml)", 0 },
	{ "description", OPT_STRING, NULL, 0, NULL, 0, 0,
	  "what the suite reproduces", 0 },
	{ "requires", OPT_ENUM_LIST, NULL, 0, suite_require_names, 0, 0,
	  "what the cluster must be; elsewhere the suite is skipped", 0 },
	{ "duration", OPT_DURATION, "60s", 0, NULL, 0, 0,
	  "how long workloads and faults run (--duration overrides)", 0 },
	{ "seed", OPT_INT, "0", 0, NULL, 0, INT64_MAX,
	  "seed of the plan; 0 picks one and records it", 0 },
	{ "database", OPT_IDENT, "test", 0, NULL, 0, 0,
	  "the database holding the suite's tables", 0 },
};
enum { TOP_NAME, TOP_DESCRIPTION, TOP_REQUIRES, TOP_DURATION, TOP_SEED,
       TOP_DATABASE, NTOP };

static const struct optspec cluster_specs[] = {
	{ "captures", OPT_INT, "0", 0, NULL, 0, 64,
	  "TiCDC captures to start (0: the backend's default)", 0 },
	{ "tidb", OPT_INT, "0", 0, NULL, 0, 64, "TiDB servers to start", 0 },
	{ "pd", OPT_INT, "0", 0, NULL, 0, 64, "PD servers to start", 0 },
	{ "kv", OPT_INT, "0", 0, NULL, 0, 64, "TiKV servers to start", 0 },
};

static const struct optspec table_specs[] = {
	{ "name", OPT_NAMES, NULL, 1, NULL, 0, 0,
	  "table name(s); '{a..b}' expands to several tables", 0 },
	{ "columns", OPT_SQL, NULL, 1, NULL, 0, 0,
	  "column definitions, as in CREATE TABLE (...)", 0 },
	{ "partition", OPT_SQL, NULL, 0, NULL, 0, 0,
	  "partitioning, as after PARTITION BY", 0 },
	{ "options", OPT_SQL, NULL, 0, NULL, 0, 0,
	  "table options, as after the column list (AUTO_ID_CACHE=1)", 0 },
};
enum { TAB_NAME, TAB_COLUMNS, TAB_PARTITION, TAB_OPTIONS, NTAB };

static const struct optspec expect_specs[] = {
	{ "check", OPT_STRING, NULL, 1, NULL, 0, 0,
	  "the kind of the check that fails", 0 },
	{ "match", OPT_STRING, NULL, 1, NULL, 0, 0,
	  "a POSIX extended regular expression its message matches", 0 },
	{ "note", OPT_STRING, NULL, 1, NULL, 0, 0,
	  "why it fails: the upstream bug, a link", 0 },
	{ "cluster", OPT_ENUM_LIST, NULL, 0, NULL, 0, 0,
	  "the kinds of cluster it fails on (default: every kind)", 0 },
};
enum { EXP_CHECK, EXP_MATCH, EXP_NOTE, EXP_CLUSTER, NEXP };

/* The servers a catch's releases are read of, as REQUIRE_* bits. */
static const char *const catch_servers[] = { "tidb", "ticdc", NULL };
static const unsigned catch_server_bits[] = { REQUIRE_TIDB, REQUIRE_TICDC };

static const struct optspec catch_specs[] = {
	{ "bug", OPT_STRING, NULL, 1, NULL, 0, 0,
	  "the bug the suite catches: its issue, a link", 0 },
	{ "server", OPT_ENUM, NULL, 1, catch_servers, 0, 0,
	  "whose bug it is: the server whose release is read", 0 },
	{ "fixed_in", OPT_STRING_LIST, NULL, 1, NULL, 0, 0,
	  "the first release of each line with the fix (v7.5.2)", 0 },
};
enum { CATCH_BUG, CATCH_SERVER, CATCH_FIXED_IN, NCATCH };

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *const kind_key[] = { "kind", NULL };

/* A section of items, resolved in its registry (struct suite_kinds). */
struct section {
	const char *key;	/* "workloads" */
	const char *what;	/* "workload" */
	kind_nth_fn nth;
};

static int load_tables(struct suite *s, const char *file,
		       const struct ynode *root, struct err *e)
{
	const struct ynode *list = ynode_get(root, "tables");

	if (!list)
		return ynode_error(e, file, root, "the suite has no tables");
	if (list->kind != YNODE_SEQ)
		return ynode_error(e, file, list, "tables must be a list, not "
				   "%s", ynode_kind_name(list->kind));
	if (!list->n)
		return ynode_error(e, file, list, "tables must not be empty");
	for (size_t i = 0; i < list->n; i++) {
		struct optval v[NTAB] = { { 0 } };
		const struct ynode *item = list->items[i];
		int rc = optspec_parse(file, item, table_specs, NTAB, NULL,
				       "table", v, e);

		for (size_t j = 0; !rc && j < v[TAB_NAME].n; j++) {
			const char *name = v[TAB_NAME].list[j];
			const struct suite_table *first = suite_table(s, name);
			struct suite_table *t, *grown;

			if (first) {
				rc = ynode_error(e, file, ynode_get(item,
								    "name"),
						 "duplicate table '%s' (first "
						 "at line %d)", name,
						 first->line);
				break;
			}
			grown = xrealloc(s->tables, (s->ntables + 1) *
					sizeof(*grown));
			s->tables = grown;
			t = &s->tables[s->ntables++];
			memset(t, 0, sizeof(*t));
			t->name = xstrdup(name);
			t->columns = xstrdup(v[TAB_COLUMNS].s);
			if (v[TAB_PARTITION].s)
				t->partition = xstrdup(v[TAB_PARTITION].s);
			if (v[TAB_OPTIONS].s)
				t->options = xstrdup(v[TAB_OPTIONS].s);
			t->line = item->line;
			t->col = item->col;
		}
		optvals_release(v, NTAB);
		if (rc)
			return -1;
	}
	return 0;
}

static int load_item(struct suite *s, const char *file,
		     const struct section *sec, const struct ynode *n,
		     struct suite_item *it, struct err *e)
{
	const struct ynode *kind;
	const struct kind *k;
	const char *names[64];
	char what[128];
	size_t nnames = 0;

	if (n->kind != YNODE_MAP)
		return ynode_error(e, file, n, "%s must be a mapping, not %s",
				   sec->what, ynode_kind_name(n->kind));
	kind = ynode_get(n, "kind");
	if (!kind)
		return ynode_error(e, file, n, "%s needs 'kind'", sec->what);
	if (kind->kind != YNODE_SCALAR)
		return ynode_error(e, file, kind, "kind in %s must be a name, "
				   "not %s", sec->what,
				   ynode_kind_name(kind->kind));
	k = kind_find(sec->nth, kind->value);
	if (!k) {
		const char *hint;

		while (nnames < 63 && (names[nnames] = sec->nth(nnames)
				       ? sec->nth(nnames)->name : NULL))
			nnames++;
		names[nnames] = NULL;
		hint = ynode_suggest(kind->value, names);
		if (hint)
			return ynode_error(e, file, kind, "unknown %s kind "
					   "'%s' (did you mean '%s'?)",
					   sec->what, kind->value, hint);
		if (!nnames)
			return ynode_error(e, file, kind, "unknown %s kind "
					   "'%s' (no %s kinds in this build)",
					   sec->what, kind->value, sec->what);
		return ynode_error(e, file, kind, "unknown %s kind '%s' (see "
				   "'tichaos list')", sec->what, kind->value);
	}
	/* The kind is the first member of its type's descriptor. */
	it->type = k;
	it->kind = k->name;
	it->specs = k->opts;
	it->nspecs = k->nopts;
	it->line = n->line;
	it->col = n->col;
	it->vals = xcalloc(it->nspecs + 1, sizeof(*it->vals));
	snprintf(what, sizeof(what), "%s '%s'", sec->what, it->kind);
	if (optspec_parse(file, n, it->specs, it->nspecs, kind_key, what,
			  it->vals, e))
		return -1;
	if (k->opts_size) {
		void *opts = xcalloc(1, k->opts_size);

		optspec_bind(it->specs, it->nspecs, it->vals, opts);
		it->opts = opts;
	}
	/* Tables named by any option must be the suite's. */
	for (size_t i = 0; i < it->nspecs; i++) {
		const struct optval *v = &it->vals[i];

		if (it->specs[i].type != OPT_TABLES)
			continue;
		for (size_t j = 0; j < v->n; j++)
			if (!suite_table(s, v->list[j])) {
				struct ynode at = { YNODE_SCALAR, v->line,
						    v->col, NULL, 0, NULL, 0 };

				return ynode_error(e, file, v->line ? &at : n,
						   "%s in %s: no table '%s' in "
						   "the suite",
						   it->specs[i].key, what,
						   v->list[j]);
			}
	}
	return 0;
}

static int load_section(struct suite *s, const char *file,
			const struct section *sec, const struct ynode *list,
			struct suite_item **items, size_t *n, struct err *e)
{
	if (!list)
		return 0;
	if (list->kind != YNODE_SEQ)
		return ynode_error(e, file, list, "%s must be a list, not %s",
				   sec->key, ynode_kind_name(list->kind));
	*items = xcalloc(list->n + 1, sizeof(**items));
	for (size_t i = 0; i < list->n; i++) {
		*n = i + 1;
		if (load_item(s, file, sec, list->items[i], &(*items)[i], e))
			return -1;
	}
	return 0;
}

static char *default_name(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (len > 5 && !strcmp(base + len - 5, ".yaml"))
		len -= 5;
	else if (len > 4 && !strcmp(base + len - 4, ".yml"))
		len -= 4;
	return xstrndup(base, len);
}

static int check_name(const char *file, const struct ynode *at,
		      const char *name, struct err *e)
{
	size_t n = strlen(name);

	if (!n || n > 100)
		return ynode_error(e, file, at, "suite name must be 1 to 100 "
				   "characters");
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' ||
		      *p == '.') || (p == name && *p == '.'))
			return ynode_error(e, file, at, "suite name '%s' may "
					   "hold letters, digits, '_', '-' "
					   "and '.' only", name);
	return 0;
}

/* An option the item's kind refuses (struct kind.refuse) must not be given. */
static int check_refused(const struct suite *s, const char *what,
			 const struct suite_item *it, struct err *e)
{
	for (size_t k = 0; it->type->refuse && it->type->refuse[k]; k++) {
		const struct optval *v = suite_opt(it, it->type->refuse[k]);
		struct ynode at = { YNODE_SCALAR, v ? v->line : 0,
				    v ? v->col : 0, NULL, 0, NULL, 0 };

		if (v && v->given)
			return ynode_error(e, s->path, &at, "%s in %s '%s': "
					   "%s", it->type->refuse[k], what,
					   it->kind, it->type->refuse_why);
	}
	return 0;
}

static int has_check(const struct suite *s, const char *kind)
{
	for (size_t k = 0; k < s->nchecks; k++)
		if (!strcmp(s->checks[k].kind, kind))
			return 1;
	return 0;
}

static int load_expects(struct suite *s, const char *file,
			const struct ynode *list, struct err *e)
{
	if (!list)
		return 0;
	if (list->kind != YNODE_SEQ)
		return ynode_error(e, file, list, "expect must be a list, not "
				   "%s", ynode_kind_name(list->kind));
	s->expects = xcalloc(list->n + 1, sizeof(*s->expects));
	for (size_t i = 0; i < list->n; i++) {
		const struct ynode *item = list->items[i];
		struct suite_expect *x = &s->expects[i];
		struct optval v[NEXP] = { { 0 } };
		struct optspec specs[NEXP];
		regex_t re;
		int rc;

		memcpy(specs, expect_specs, sizeof(specs));
		specs[EXP_CLUSTER].choices = s->cluster_kinds;
		if (optspec_parse(file, item, specs, NEXP, NULL, "expect", v,
				  e)) {
			optvals_release(v, NEXP);
			return -1;
		}
		x->check = xstrdup(v[EXP_CHECK].s);
		x->match = xstrdup(v[EXP_MATCH].s);
		x->note = xstrdup(v[EXP_NOTE].s);
		for (size_t k = 0; k < v[EXP_CLUSTER].n; k++)
			for (int c = 0; s->cluster_kinds[c]; c++)
				if (!strcmp(v[EXP_CLUSTER].list[k],
					    s->cluster_kinds[c]))
					x->clusters |= 1u << c;
		x->line = item->line;
		x->col = item->col;
		s->nexpects = i + 1;
		optvals_release(v, NEXP);
		if (!has_check(s, x->check))
			return ynode_error(e, file, ynode_get(item, "check"),
					   "expect: the suite has no check "
					   "'%s' in checks", x->check);
		rc = regcomp(&re, x->match, REG_EXTENDED | REG_NOSUB);
		if (rc) {
			char why[160];

			regerror(rc, &re, why, sizeof(why));
			return ynode_error(e, file, ynode_get(item, "match"),
					   "expect: match '%s' is not a "
					   "regular expression: %s", x->match,
					   why);
		}
		regfree(&re);
	}
	return 0;
}

/* One release of catches.fixed_in, `at` where it is written. */
static int add_fixed(struct suite_catch *c, const char *file,
		     const struct ynode *at, const char *text, struct err *e)
{
	struct release *r = &c->fixed_in[c->nfixed];

	if (*text != 'v' || release_parse(text, r) || r->patch < 0 ||
	    strcmp(r->text, text))
		return ynode_error(e, file, at, "fixed_in in catches: '%s' is "
				   "not a release (vMAJOR.MINOR.PATCH, e.g. "
				   "v7.5.2)", text);
	for (size_t k = 0; k < c->nfixed; k++)
		if (c->fixed_in[k].major == r->major &&
		    c->fixed_in[k].minor == r->minor)
			return ynode_error(e, file, at, "fixed_in in catches: "
					   "%s and %s are both of %d.%d (give "
					   "the first release of each line "
					   "with the fix)",
					   c->fixed_in[k].text, text, r->major,
					   r->minor);
	c->nfixed++;
	return 0;
}

static int load_catches(struct suite *s, const char *file,
			const struct ynode *n, struct err *e)
{
	struct suite_catch *c = &s->catches;
	struct optval v[NCATCH] = { { 0 } };
	const struct ynode *list;
	int rc;

	if (!n)
		return 0;
	rc = optspec_parse(file, n, catch_specs, NCATCH, NULL, "catches", v,
			   e);
	if (!rc) {
		c->bug = xstrdup(v[CATCH_BUG].s);
		c->server = catch_server_bits[v[CATCH_SERVER].i];
		c->line = n->line;
		c->col = n->col;
		c->fixed_in = xcalloc(v[CATCH_FIXED_IN].n,
				      sizeof(*c->fixed_in));
		list = ynode_get(n, "fixed_in");
	}
	for (size_t i = 0; !rc && i < v[CATCH_FIXED_IN].n; i++)
		rc = add_fixed(c, file, list->kind == YNODE_SEQ ?
			       list->items[i] : list,
			       v[CATCH_FIXED_IN].list[i], e);
	optvals_release(v, NCATCH);
	return rc;
}

int suite_catch_fixed(const struct suite_catch *c, const struct release *r)
{
	const struct release *newest = NULL, *at = NULL;

	if (!c->bug || r->major < 0)
		return 0;
	for (size_t i = 0; i < c->nfixed; i++) {
		const struct release *f = &c->fixed_in[i];

		if (f->major == r->major && f->minor == r->minor)
			at = f;
		if (!newest ||
		    release_older(newest, f->major, f->minor, f->patch))
			newest = f;
	}
	if (!at && (!newest || release_older(r, newest->major, newest->minor,
					     newest->patch)))
		return 0;	/* a line between the listed ones, or older */
	if (!at)
		return 1;	/* a line that branched off with the fix */
	if (release_older(r, at->major, at->minor, at->patch))
		return 0;
	/* A build before the fixed release itself: the fix came somewhere
	 * on the way to it. */
	return r->pre && (r->patch < 0 ? 0 : r->patch) == at->patch ? -1 : 1;
}

int suite_expect_applies(const struct suite *s, const struct suite_expect *x,
			 const char *cluster)
{
	const char *const *kinds = s->cluster_kinds;

	if (!x->clusters || !cluster)
		return 1;
	for (int c = 0; kinds[c]; c++)
		if (!strcmp(cluster, kinds[c]))
			return (x->clusters >> c) & 1;
	return 0;
}

const struct suite_expect *suite_expected(const struct suite *s,
					  const char *kind,
					  const char *message,
					  const char *cluster)
{
	for (size_t i = 0; i < s->nexpects; i++) {
		const struct suite_expect *x = &s->expects[i];
		regex_t re;
		int hit;

		if (strcmp(x->check, kind) ||
		    !suite_expect_applies(s, x, cluster) ||
		    regcomp(&re, x->match, REG_EXTENDED | REG_NOSUB))
			continue;
		hit = !regexec(&re, message, 0, NULL, 0);
		regfree(&re);
		if (hit)
			return x;
	}
	return NULL;
}

/* Every item's refused options and its kind's `check`, in suite order. */
static int check_section(const struct suite *s, const char *what,
			 const struct suite_item *items, size_t n,
			 struct err *e)
{
	for (size_t i = 0; i < n; i++)
		if (check_refused(s, what, &items[i], e) ||
		    (items[i].type->check &&
		     items[i].type->check(s, &items[i], e)))
			return -1;
	return 0;
}

static int check_cluster_sections(const struct suite *s,
				  const struct suite_kinds *kinds,
				  struct err *e)
{
	for (size_t i = 0; i < s->nsections; i++) {
		const struct suite_section *x = &s->sections[i];

		if (x->type->check && x->type->check(s, x->data, kinds, e))
			return -1;
	}
	return 0;
}

static int check_items(const struct suite *s,
		       const struct suite_kinds *kinds, struct err *e)
{
	return check_section(s, "workload", s->workloads, s->nworkloads, e) ||
	       check_section(s, "fault", s->faults, s->nfaults, e) ||
	       check_section(s, "check", s->checks, s->nchecks, e) ||
	       check_cluster_sections(s, kinds, e) ? -1 : 0;
}

/*
 * cluster: the hints of every kind (cl), and each kind's own section,
 * routed to the kind of its name, in the order of the kinds.
 */
static int load_cluster(struct suite *s, const char *path,
			const struct ynode *n, const struct suite_kinds *kinds,
			struct optval *cl, struct err *e)
{
	const struct suite_section_type *types[SUITE_MAX_CLUSTER_KINDS];
	const char *names[SUITE_MAX_CLUSTER_KINDS + 1];
	size_t nnames = 0;

	for (size_t i = 0; kinds->cluster_section && s->cluster_kinds[i];
	     i++) {
		types[nnames] = kinds->cluster_section(i);
		if (types[nnames])
			names[nnames++] = s->cluster_kinds[i];
	}
	names[nnames] = NULL;
	if (optspec_parse(path, n, cluster_specs, N(cluster_specs), names,
			  "cluster", cl, e))
		return -1;
	for (size_t i = 0; i < nnames; i++) {
		const struct ynode *node = ynode_get(n, names[i]);
		struct suite_section *x = &s->sections[s->nsections];
		void *data = NULL;

		if (!node)
			continue;
		if (types[i]->load(s, path, node, &data, e)) {
			types[i]->free(data);
			return -1;
		}
		if (!data)
			continue;
		x->kind = names[i];
		x->type = types[i];
		x->data = data;
		s->nsections++;
	}
	return 0;
}

const void *suite_cluster_section(const struct suite *s, const char *kind)
{
	for (size_t i = 0; i < s->nsections; i++)
		if (!strcmp(s->sections[i].kind, kind))
			return s->sections[i].data;
	return NULL;
}

/* `n` and all below it placed at line:col. */
static void place(struct ynode *n, int line, int col)
{
	n->line = line;
	n->col = col;
	for (size_t i = 0; i < n->n; i++)
		place(n->items[i], line, col);
}

/*
 * Mapping `map`'s `key` set to `value` (taken), replacing what it held;
 * both placed at line -1, where ynode_error names --set (lib/ynode.h).
 */
static void map_put(struct ynode *map, const char *key, struct ynode *value)
{
	struct ynode *k;

	place(value, -1, -1);
	for (size_t i = 0; i + 1 < map->n; i += 2)
		if (!strcmp(map->items[i]->value, key)) {
			ynode_free(map->items[i + 1]);
			map->items[i + 1] = value;
			return;
		}
	k = xcalloc(1, sizeof(*k));
	k->kind = YNODE_SCALAR;
	k->value = xstrdup(key);
	k->plain = 1;
	place(k, -1, -1);
	map->items = xrealloc(map->items, (map->n + 2) * sizeof(*map->items));
	map->items[map->n++] = k;
	map->items[map->n++] = value;
}

/*
 * One --set SECTION.KIND.OPTION=VALUE (docs/suite-format.md): OPTION of
 * every item of kind KIND in SECTION set to VALUE, a YAML value, in the
 * suite's tree before it is read, as if the file said it there.
 */
static int apply_set(const char *path, struct ynode *root, const char *set,
		     struct err *e)
{
	static const char *const sections[] = { "workloads", "faults",
						"checks", NULL };
	static const char *const items[] = { "workload", "fault", "check" };
	const char *eq = strchr(set, '=');
	char key[256], *kind = NULL, *opt = NULL;
	struct ynode *list;
	size_t hits = 0;
	int si = 0;

	if (eq && eq > set && (size_t)(eq - set) < sizeof(key)) {
		memcpy(key, set, (size_t)(eq - set));
		key[eq - set] = '\0';
		kind = strchr(key, '.');
		opt = kind ? strchr(kind + 1, '.') : NULL;
	}
	if (!opt || opt == kind + 1 || !opt[1] || strchr(opt + 1, '.'))
		return err_set(e, ERR_USAGE, "--set '%s': expected "
			       "SECTION.KIND.OPTION=VALUE, as in "
			       "checks.consistency.diff_config=FILE", set);
	*kind++ = '\0';
	*opt++ = '\0';
	while (sections[si] && strcmp(sections[si], key))
		si++;
	if (!sections[si])
		return err_set(e, ERR_USAGE, "--set '%s': no section '%s' "
			       "(workloads, faults or checks)", set, key);
	list = (struct ynode *)ynode_get(root, key);
	for (size_t i = 0; list && list->kind == YNODE_SEQ && i < list->n;
	     i++) {
		struct ynode *it = list->items[i], *value;
		const struct ynode *k = ynode_get(it, "kind");

		if (it->kind != YNODE_MAP || !k || k->kind != YNODE_SCALAR ||
		    strcmp(k->value, kind))
			continue;
		if (ynode_load_string("--set", eq + 1, strlen(eq + 1), &value,
				      e))
			return -1;
		if (!value)
			return err_set(e, ERR_USAGE, "--set '%s': no value",
				       set);
		map_put(it, opt, value);
		hits++;
	}
	if (!hits)
		return err_set(e, ERR_USAGE, "%s: --set '%s': the suite has "
			       "no %s of kind '%s'", path, set, items[si],
			       kind);
	return 0;
}

int suite_load(struct suite *s, const char *path,
	       const struct suite_kinds *kinds, struct err *e)
{
	return suite_load_set(s, path, kinds, NULL, 0, e);
}

int suite_load_set(struct suite *s, const char *path,
		   const struct suite_kinds *kinds, const char *const *sets,
		   size_t nsets, struct err *e)
{
	struct section sections[] = {
		{ "workloads", "workload", NULL },
		{ "faults", "fault", NULL },
		{ "checks", "check", NULL },
	};
	struct optval top[NTOP] = { { 0 } };
	struct optval cl[N(cluster_specs)] = { { 0 } };
	struct ynode *root = NULL;
	const struct ynode *n;
	int rc = -1;

	memset(s, 0, sizeof(*s));
	s->path = xstrdup(path);
	for (size_t i = 0; kinds->cluster_kind && i < SUITE_MAX_CLUSTER_KINDS &&
	     (s->cluster_kinds[i] = kinds->cluster_kind(i)); i++)
		;
	if (ynode_load_file(path, &root, e))
		goto out;
	if (!root) {
		ynode_error(e, path, NULL, "empty suite");
		goto out;
	}
	if (root->kind != YNODE_MAP) {
		ynode_error(e, path, root, "a suite must be a mapping, not %s",
			    ynode_kind_name(root->kind));
		goto out;
	}
	for (size_t i = 0; i < nsets; i++)
		if (apply_set(path, root, sets[i], e))
			goto out;
	if (optspec_parse(path, root, top_specs, NTOP, top_keys, "suite",
			  top, e))
		goto out;
	s->name = top[TOP_NAME].s ? xstrdup(top[TOP_NAME].s)
				  : default_name(path);
	if (check_name(path, ynode_get(root, "name") ? ynode_get(root, "name")
						     : root, s->name, e))
		goto out;
	if (top[TOP_DESCRIPTION].s)
		s->description = xstrdup(top[TOP_DESCRIPTION].s);
	for (size_t i = 0; i < top[TOP_REQUIRES].n; i++)
		for (int r = 0; suite_require_names[r]; r++)
			if (!strcmp(top[TOP_REQUIRES].list[i],
				    suite_require_names[r]))
				s->requires |= 1u << r;
	s->duration_ns = top[TOP_DURATION].i;
	if (s->duration_ns < NS_PER_SEC) {
		ynode_error(e, path, ynode_get(root, "duration"), "duration "
			    "in suite must be at least 1s");
		goto out;
	}
	s->seed = (uint64_t)top[TOP_SEED].i;
	s->database = xstrdup(top[TOP_DATABASE].s);
	n = ynode_get(root, "cluster");
	if (n) {
		if (load_cluster(s, path, n, kinds, cl, e))
			goto out;
		s->captures = (int)cl[0].i;
		s->tidb = (int)cl[1].i;
		s->pd = (int)cl[2].i;
		s->kv = (int)cl[3].i;
	}
	sections[0].nth = kinds->workloads;
	sections[1].nth = kinds->faults;
	sections[2].nth = kinds->checks;
	if (load_tables(s, path, root, e) ||
	    load_section(s, path, &sections[0], ynode_get(root, "workloads"),
			 &s->workloads, &s->nworkloads, e) ||
	    load_section(s, path, &sections[1], ynode_get(root, "faults"),
			 &s->faults, &s->nfaults, e) ||
	    load_section(s, path, &sections[2], ynode_get(root, "checks"),
			 &s->checks, &s->nchecks, e))
		goto out;
	if (!s->nworkloads) {
		ynode_error(e, path, root, "the suite has no workloads");
		goto out;
	}
	if (check_items(s, kinds, e))
		goto out;
	if (load_expects(s, path, ynode_get(root, "expect"), e) ||
	    load_catches(s, path, ynode_get(root, "catches"), e))
		goto out;
	rc = 0;
out:
	optvals_release(top, NTOP);
	optvals_release(cl, N(cluster_specs));
	ynode_free(root);
	return rc;
}

static void release_items(struct suite_item *items, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (items[i].vals)
			optvals_release(items[i].vals, items[i].nspecs);
		free(items[i].vals);
		free((void *)items[i].opts);
	}
	free(items);
}

void suite_release(struct suite *s)
{
	for (size_t i = 0; i < s->ntables; i++) {
		free(s->tables[i].name);
		free(s->tables[i].columns);
		free(s->tables[i].partition);
		free(s->tables[i].options);
	}
	free(s->tables);
	release_items(s->workloads, s->nworkloads);
	release_items(s->faults, s->nfaults);
	release_items(s->checks, s->nchecks);
	for (size_t i = 0; i < s->nexpects; i++) {
		free(s->expects[i].check);
		free(s->expects[i].match);
		free(s->expects[i].note);
	}
	free(s->expects);
	free(s->catches.bug);
	free(s->catches.fixed_in);
	for (size_t i = 0; i < s->nsections; i++)
		s->sections[i].type->free(s->sections[i].data);
	free(s->path);
	free(s->name);
	free(s->description);
	free(s->database);
	memset(s, 0, sizeof(*s));
}

const struct suite_table *suite_table(const struct suite *s,
				      const char *name)
{
	for (size_t i = 0; i < s->ntables; i++)
		if (!strcmp(s->tables[i].name, name))
			return &s->tables[i];
	return NULL;
}

int suite_create_sql(const struct suite *s, const struct suite_table *t,
		     struct buf *out, struct err *e)
{
	int rc = buf_addstr(out, "CREATE TABLE ", e) ||
		 sql_quote_ident(out, s->database, e) ||
		 buf_addch(out, '.', e) || sql_quote_ident(out, t->name, e) ||
		 buf_printf(out, e, " (%s)", t->columns);

	if (!rc && t->options)
		rc = buf_printf(out, e, " %s", t->options);
	if (!rc && t->partition)
		rc = buf_printf(out, e, " PARTITION BY %s", t->partition);
	return rc ? -1 : 0;
}

const struct optval *suite_opt(const struct suite_item *it, const char *key)
{
	for (size_t i = 0; i < it->nspecs; i++)
		if (!strcmp(it->specs[i].key, key))
			return &it->vals[i];
	return NULL;
}

const struct optval *suite_optval(const struct suite_item *it,
				  const void *member)
{
	return optspec_bound(it->specs, it->nspecs, it->vals, it->opts,
			     member);
}

int suite_opt_error(struct err *e, const struct suite *s,
		    const struct suite_item *it, const void *member,
		    const char *fmt, ...)
{
	const struct optval *v = suite_optval(it, member);
	int given = v && v->line;
	struct ynode at = { YNODE_SCALAR, given ? v->line : it->line,
			    given ? v->col : it->col, NULL, 0, NULL, 0 };
	char msg[sizeof(e->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ynode_error(e, s->path, &at, "%s", msg);
}

/* One option's value as YAML. */
static int write_value(struct buf *out, const struct optspec *sp,
		       const struct optval *v, struct err *e)
{
	char d[64];

	switch (sp->type) {
	case OPT_BOOL:
		return buf_addstr(out, v->i ? "true" : "false", e);
	case OPT_INT:
		return buf_printf(out, e, "%lld", (long long)v->i);
	case OPT_FLOAT:
		return buf_printf(out, e, "%.17g", v->f);
	case OPT_DURATION:
		return buf_addstr(out, format_duration(v->i, d, sizeof(d)), e);
	case OPT_STRING:
	case OPT_IDENT:
	case OPT_SQL:
	case OPT_COMPONENT:
		return ynode_quote(out, v->s, e);
	case OPT_ENUM:
		return buf_addstr(out, sp->choices[v->i], e);
	case OPT_DURATION_LIST:
		if (buf_addch(out, '[', e))
			return -1;
		for (size_t i = 0; i < v->n; i++)
			if (buf_printf(out, e, "%s%s", i ? ", " : "",
				       format_duration(v->ints[i], d,
						       sizeof(d))))
				return -1;
		return buf_addch(out, ']', e);
	case OPT_ENUM_LIST:
	case OPT_STRING_LIST:
	case OPT_NAMES:
	case OPT_TABLES:
	case OPT_COMPONENTS:
		if (buf_addch(out, '[', e))
			return -1;
		for (size_t i = 0; i < v->n; i++)
			if ((i && buf_addstr(out, ", ", e)) ||
			    ynode_quote(out, v->list[i], e))
				return -1;
		return buf_addch(out, ']', e);
	}
	return 0;
}

static int write_items(struct buf *out, const char *key,
		       const struct suite_item *items, size_t n,
		       struct err *e)
{
	if (!n)
		return buf_printf(out, e, "%s: []\n", key);
	if (buf_printf(out, e, "%s:\n", key))
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct suite_item *it = &items[i];

		if (buf_printf(out, e, "  - kind: %s\n", it->kind))
			return -1;
		for (size_t j = 0; j < it->nspecs; j++) {
			if (!it->vals[j].set ||
			    kind_refuses(it->type, it->specs[j].key))
				continue;
			if (buf_printf(out, e, "    %s: ", it->specs[j].key) ||
			    write_value(out, &it->specs[j], &it->vals[j], e) ||
			    buf_addch(out, '\n', e))
				return -1;
		}
	}
	return 0;
}

static int write_catches(struct buf *out, const struct suite_catch *c,
			 struct err *e)
{
	int rc;

	if (!c->bug)
		return 0;
	rc = buf_addstr(out, "catches:\n  bug: ", e) ||
	     ynode_quote(out, c->bug, e) ||
	     buf_printf(out, e, "\n  server: %s\n  fixed_in: [",
			c->server == REQUIRE_TICDC ? "ticdc" : "tidb");
	for (size_t i = 0; !rc && i < c->nfixed; i++)
		rc = buf_printf(out, e, "%s%s", i ? ", " : "",
				c->fixed_in[i].text);
	return rc || buf_addstr(out, "]\n", e) ? -1 : 0;
}

int suite_write(const struct suite *s, uint64_t seed, int64_t duration_ns,
		struct buf *out, struct err *e)
{
	char d[64];
	int rc;

	rc = buf_addstr(out, "# The suite as run: defaults filled in, ranges "
			"expanded (docs/suite-format.md).\nname: ", e) ||
	     ynode_quote(out, s->name, e) || buf_addch(out, '\n', e);
	if (!rc && s->description)
		rc = buf_addstr(out, "description: ", e) ||
		     ynode_quote(out, s->description, e) ||
		     buf_addch(out, '\n', e);
	if (!rc && s->requires)
		rc = buf_addstr(out, "requires: [", e);
	for (int r = 0, first = 1; !rc && suite_require_names[r]; r++)
		if (s->requires & (1u << r)) {
			rc = buf_printf(out, e, "%s%s", first ? "" : ", ",
					suite_require_names[r]);
			first = 0;
		}
	if (!rc && s->requires)
		rc = buf_addstr(out, "]\n", e);
	rc = rc || buf_printf(out, e, "cluster: { captures: %d, tidb: %d, "
			      "pd: %d, kv: %d", s->captures, s->tidb, s->pd,
			      s->kv);
	for (size_t i = 0; !rc && i < s->nsections; i++)
		rc = buf_printf(out, e, ",\n  %s: ", s->sections[i].kind) ||
		     s->sections[i].type->write(s->sections[i].data, out, e);
	rc = rc || buf_addstr(out, " }\n", e) ||
	     buf_printf(out, e, "duration: %s\n",
			format_duration(s->duration_ns, d, sizeof(d)));
	/* The schedules are the suite's; --duration changes how many
	 * cycles fit (plan.json has the run's duration). */
	if (!rc && duration_ns != s->duration_ns)
		rc = buf_printf(out, e, "# run for %s with --duration\n",
				format_duration(duration_ns, d, sizeof(d)));
	rc = rc || buf_printf(out, e, "seed: %llu\ndatabase: %s\ntables:\n",
			      (unsigned long long)seed, s->database);
	for (size_t i = 0; !rc && i < s->ntables; i++) {
		const struct suite_table *t = &s->tables[i];

		rc = buf_printf(out, e, "  - name: %s\n    columns: ",
				t->name) ||
		     ynode_quote(out, t->columns, e) ||
		     buf_addch(out, '\n', e);
		if (!rc && t->partition)
			rc = buf_addstr(out, "    partition: ", e) ||
			     ynode_quote(out, t->partition, e) ||
			     buf_addch(out, '\n', e);
		if (!rc && t->options)
			rc = buf_addstr(out, "    options: ", e) ||
			     ynode_quote(out, t->options, e) ||
			     buf_addch(out, '\n', e);
	}
	rc = rc || write_items(out, "workloads", s->workloads, s->nworkloads,
			       e) ||
	     write_items(out, "faults", s->faults, s->nfaults, e) ||
	     write_items(out, "checks", s->checks, s->nchecks, e);
	if (!rc && s->nexpects)
		rc = buf_addstr(out, "expect:\n", e);
	for (size_t i = 0; !rc && i < s->nexpects; i++) {
		const struct suite_expect *x = &s->expects[i];

		rc = buf_addstr(out, "  - check: ", e) ||
		     ynode_quote(out, x->check, e) ||
		     buf_addstr(out, "\n    match: ", e) ||
		     ynode_quote(out, x->match, e) ||
		     buf_addstr(out, "\n    note: ", e) ||
		     ynode_quote(out, x->note, e) ||
		     buf_addch(out, '\n', e);
		for (int c = 0, n = 0; !rc && s->cluster_kinds[c]; c++)
			if ((x->clusters >> c) & 1)
				rc = buf_printf(out, e, "%s%s", n++ ? ", "
						: "    cluster: [",
						s->cluster_kinds[c]);
		if (!rc && x->clusters)
			rc = buf_addstr(out, "]\n", e);
	}
	return rc || write_catches(out, &s->catches, e) ? -1 : 0;
}
