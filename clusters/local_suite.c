/*
 * The local cluster's own section of a suite, cluster.local
 * (docs/suite-format.md#the-local-cluster): the errors its replica
 * skips, server options for each side, and its hosts. The core hands
 * the section here (struct cluster_type's suite) and knows none of it.
 */
#include "clusters/local.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/suite.h"
#include "lib/parse.h"
#include "lib/ynode.h"

static const char *const local_keys[] = {
	"replica_skip_errors", "upstream", "downstream", "hosts", NULL,
};
static const char *const server_keys[] = { "options", NULL };

/*
 * Server options tichaos sets itself on the local cluster (its layout,
 * ports, identity, binlog and relay log): a suite cannot move them.
 * Compared with '_' read as '-'.
 */
static const char *const owned_options[] = {
	"datadir", "port", "bind-address", "socket", "tmpdir", "pid-file",
	"log-error", "user", "server-id", "log-bin", "relay-log",
	"skip-slave-start", "skip-networking", "defaults-file",
	"defaults-extra-file", NULL,
};

/* hosts: as written, for each enum hosts_mode but HOSTS_DEFAULT. */
static const struct {
	const char *text;
	enum hosts_mode mode;
} hosts_values[] = {
	{ "true", HOSTS_ON }, { "false", HOSTS_OFF }, { "auto", HOSTS_AUTO },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* An option name as the server reads it: '_' is '-'. */
static void option_key(const char *name, char *out, size_t size)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < size; i++)
		out[i] = name[i] == '_' ? '-' : name[i];
	out[i] = '\0';
}

/* Option `k` of side `where` is one a suite may set, with value `v`. */
static int check_option(const char *file, const struct ynode *k,
			const struct ynode *v, const char *where,
			struct err *e)
{
	size_t len = strlen(k->value);
	char key[80];

	option_key(k->value, key, sizeof(key));
	if (!len || len > 64 || strspn(k->value, "abcdefghijklmnopq"
	    "rstuvwxyz0123456789_-") != len || k->value[0] == '-' ||
	    k->value[0] == '_')
		return ynode_error(e, file, k, "'%s' in %s options is not a "
				   "server option name (lower-case letters, "
				   "digits, '_' and '-', up to 64)", k->value,
				   where);
	if (!strcmp(key, "slave-skip-errors") ||
	    !strcmp(key, "replica-skip-errors"))
		return ynode_error(e, file, k, "'%s' in %s options: errors "
				   "the replica skips are cluster.local."
				   "replica_skip_errors (counted and "
				   "reported)", k->value, where);
	for (int j = 0; owned_options[j]; j++)
		if (!strcmp(key, owned_options[j]))
			return ynode_error(e, file, k, "'%s' in %s options is "
					   "set by tichaos "
					   "(docs/suite-format.md)", k->value,
					   where);
	if (v->kind != YNODE_SCALAR || !v->value[0] ||
	    strcspn(v->value, "\"'#\\\n\r\t") != strlen(v->value))
		return ynode_error(e, file, v, "option '%s' in %s must be one "
				   "plain value (no quotes, '#', backslashes "
				   "or line breaks)", k->value, where);
	return 0;
}

static int load_options(struct local_suite *l, const char *file,
			const struct ynode *server, int side, struct err *e)
{
	static const char *const what[] = { "upstream", "downstream" };
	const struct ynode *map;
	char where[64];

	snprintf(where, sizeof(where), "cluster.local.%s", what[side]);
	if (ynode_check_map(file, server, server_keys, where, e))
		return -1;
	map = ynode_get(server, "options");
	if (!map)
		return 0;
	if (map->kind != YNODE_MAP)
		return ynode_error(e, file, map, "options in %s must be a "
				   "mapping of server options, not %s", where,
				   ynode_kind_name(map->kind));
	l->options[side] = xcalloc(map->n + 1, sizeof(*l->options[side]));
	for (size_t i = 0; i + 1 < map->n; i += 2) {
		const struct ynode *k = map->items[i], *v = map->items[i + 1];
		char key[80];

		if (check_option(file, k, v, where, e))
			return -1;
		option_key(k->value, key, sizeof(key));
		for (size_t j = 0; j < i; j += 2) {
			char other[80];

			option_key(map->items[j]->value, other, sizeof(other));
			if (!strcmp(other, key))
				return ynode_error(e, file, k, "option '%s' in "
						   "%s is given twice (as "
						   "'%s' on line %d)", k->value,
						   where, map->items[j]->value,
						   map->items[j]->line);
		}
		l->options[side][i] = xstrdup(k->value);
		l->options[side][i + 1] = xstrdup(v->value);
		l->noptions[side]++;
	}
	return 0;
}

static int load_skip_errors(struct local_suite *l, const char *file,
			    const struct ynode *n, struct err *e)
{
	size_t count = n->kind == YNODE_SEQ ? n->n : 1;

	if (n->kind == YNODE_MAP || !count)
		return ynode_error(e, file, n, "replica_skip_errors must be a "
				   "list of MariaDB error codes");
	l->skip_errors = xcalloc(count, sizeof(*l->skip_errors));
	for (size_t i = 0; i < count; i++) {
		const struct ynode *code = n->kind == YNODE_SEQ ? n->items[i]
							       : n;
		int64_t v;

		if (code->kind != YNODE_SCALAR ||
		    parse_int64(code->value, 1, 65535, &v, NULL))
			return ynode_error(e, file, code, "replica_skip_errors"
					   ": '%s' is not an error code (1 to "
					   "65535)", code->kind == YNODE_SCALAR
					   ? code->value : "?");
		for (size_t j = 0; j < i; j++)
			if (l->skip_errors[j] == v)
				return ynode_error(e, file, code, "replica_"
						   "skip_errors: %lld is "
						   "listed twice",
						   (long long)v);
		l->skip_errors[i] = (long)v;
		l->nskip_errors++;
	}
	l->skip_line = n->line;
	l->skip_col = n->col;
	return 0;
}

static int local_empty(const struct local_suite *l)
{
	return !l->nskip_errors && !l->noptions[0] && !l->noptions[1] &&
	       l->hosts == HOSTS_DEFAULT;
}

static void local_free(void *section)
{
	struct local_suite *l = section;

	if (!l)
		return;
	for (int side = 0; side < 2; side++) {
		for (size_t i = 0; l->options[side] &&
		     l->options[side][i]; i++)
			free(l->options[side][i]);
		free(l->options[side]);
	}
	free(l->skip_errors);
	free(l);
}

static int local_load(struct suite *s, const char *file,
		      const struct ynode *local, void **out, struct err *e)
{
	struct local_suite *l = xcalloc(1, sizeof(*l));
	const struct ynode *n;

	*out = l;
	if (ynode_check_map(file, local, local_keys, "cluster.local", e))
		return -1;
	n = ynode_get(local, "replica_skip_errors");
	if (n && load_skip_errors(l, file, n, e))
		return -1;
	for (int side = 0; side < 2; side++) {
		n = ynode_get(local, side ? "downstream" : "upstream");
		if (n && load_options(l, file, n, side, e))
			return -1;
	}
	n = ynode_get(local, "hosts");
	for (size_t i = 0; n && n->kind == YNODE_SCALAR &&
	     i < N(hosts_values); i++)
		if (!strcmp(n->value, hosts_values[i].text))
			l->hosts = hosts_values[i].mode;
	if (n && l->hosts == HOSTS_DEFAULT)
		return ynode_error(e, file, n, "cluster.local.hosts must be "
				   "true, false or auto");
	if (local_empty(l)) {
		local_free(l);
		*out = NULL;
		return 0;
	}
	return 0;
}

/* Skipped replica events must be counted by a check that says so. */
static int local_check(const struct suite *s, const void *section,
		       const struct suite_kinds *kinds, struct err *e)
{
	const struct local_suite *l = section;
	const struct kind *k, *counter = NULL;
	struct ynode at = { YNODE_SCALAR, l->skip_line, l->skip_col, NULL, 0,
			    NULL, 0 };

	if (!l->nskip_errors)
		return 0;
	for (size_t i = 0; i < s->nchecks; i++)
		if (s->checks[i].type->flags & KIND_COUNTS_SKIPS)
			return 0;
	for (size_t i = 0; !counter && (k = kinds->checks(i)); i++)
		if (k->flags & KIND_COUNTS_SKIPS)
			counter = k;
	return ynode_error(e, s->path, &at, "replica_skip_errors needs a "
			   "%s check: it counts and reports every event the "
			   "replica skips", counter ? counter->name
						    : "counting");
}

static int local_write(const void *section, struct buf *out, struct err *e)
{
	const struct local_suite *l = section;
	const char *sep = "";
	int rc;

	rc = buf_addch(out, '{', e);
	if (!rc && l->nskip_errors)
		rc = buf_addstr(out, " replica_skip_errors: [", e);
	for (size_t i = 0; !rc && i < l->nskip_errors; i++)
		rc = buf_printf(out, e, "%s%ld", i ? ", " : "",
				l->skip_errors[i]);
	if (!rc && l->nskip_errors) {
		rc = buf_addch(out, ']', e);
		sep = ",";
	}
	for (int side = 0; !rc && side < 2; side++) {
		if (!l->noptions[side])
			continue;
		rc = buf_printf(out, e, "%s %s: { options: {", sep,
				side ? "downstream" : "upstream");
		for (size_t i = 0; !rc && i < l->noptions[side]; i++)
			rc = buf_printf(out, e, "%s %s: ", i ? "," : "",
					l->options[side][2 * i]) ||
			     ynode_quote(out, l->options[side][2 * i + 1], e);
		rc = rc || buf_addstr(out, " } }", e);
		sep = ",";
	}
	for (size_t i = 0; !rc && i < N(hosts_values); i++)
		if (l->hosts == hosts_values[i].mode)
			rc = buf_printf(out, e, "%s hosts: %s", sep,
					hosts_values[i].text);
	return rc || buf_addstr(out, " }", e) ? -1 : 0;
}

const struct suite_section_type local_suite_section = {
	.load = local_load,
	.check = local_check,
	.write = local_write,
	.free = local_free,
};
