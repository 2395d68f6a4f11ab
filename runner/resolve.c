#include "runner/resolve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clusters/api.h"
#include "clusters/cluster.h"
#include "core/suite.h"
#include "faults/fault.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/optspec.h"
#include "lib/ynode.h"

/* Does `name` (a role or a component name) name anything in `c`? */
static int names_something(const struct cluster *c, const char *name)
{
	unsigned role = role_parse(name);

	for (size_t i = 0; i < c->ncomps; i++)
		if (role ? (c->comps[i].roles & role) != 0
			 : !strcmp(c->comps[i].name, name))
			return 1;
	return 0;
}

/*
 * The roles the cluster has, then its component names: NULL-terminated,
 * borrowed from `c` and role_names; the caller frees the array.
 */
static const char **known_names(const struct cluster *c, size_t *nroles)
{
	const char **names = xcalloc(c->ncomps + 8, sizeof(*names));
	size_t n = 0;

	for (int r = 0; role_names[r]; r++)
		if (names_something(c, role_names[r]))
			names[n++] = role_names[r];
	*nroles = n;
	for (size_t i = 0; i < c->ncomps; i++)
		names[n++] = c->comps[i].name;
	return names;
}

static int unknown(const struct suite *s, const struct suite_item *it,
		   const char *section, const struct optspec *sp,
		   const struct optval *v, const char *name,
		   const struct cluster *c, struct err *e)
{
	struct ynode at = { YNODE_SCALAR, v->line ? v->line : it->line,
			    v->line ? v->col : it->col, NULL, 0, NULL, 0 };
	struct buf text = BUF_INIT;
	size_t nroles = 0;
	const char **names = known_names(c, &nroles);
	const char *hint = ynode_suggest(name, names);

	if (hint)
		buf_printf(&text, NULL, " (did you mean '%s'?)", hint);
	buf_addstr(&text, "; this cluster has roles ", NULL);
	for (size_t i = 0; names && names[i]; i++)
		buf_printf(&text, NULL, "%s%s", i == nroles ? " and components "
			   : i ? ", " : "", names[i]);
	ynode_error(e, s->path, &at, "%s in %s '%s' names nothing in this "
		    "cluster: '%s'%s", sp->key, section, it->kind, name,
		    buf_str(&text));
	buf_release(&text);
	free(names);
	return -1;
}

static int resolve_item(const struct suite *s, const struct suite_item *it,
			const char *section, struct cluster *c,
			struct err *e)
{
	for (size_t i = 0; i < it->nspecs; i++) {
		const struct optspec *sp = &it->specs[i];
		const struct optval *v = &it->vals[i];

		if (!v->set)
			continue;
		if (sp->type == OPT_COMPONENT && !names_something(c, v->s))
			return unknown(s, it, section, sp, v, v->s, c, e);
		for (size_t j = 0; sp->type == OPT_COMPONENTS && j < v->n; j++)
			if (!names_something(c, v->list[j]))
				return unknown(s, it, section, sp, v,
					       v->list[j], c, e);
	}
	return 0;
}

/*
 * tichaos reads TiCDC through its Open API v2 (captures, changefeeds, the
 * owner's resign), which came with TiCDC 6.6 (pingcap/tiflow cdc/api/v2):
 * a capture that says it runs an older release, or has no /api/v2, is
 * refused by name instead of failing later on a 404.
 */
static int ticdc_floor(struct cluster *c, struct err *e)
{
	for (size_t i = 0; i < c->ncomps; i++) {
		const struct component *comp = &c->comps[i];
		struct err why = ERR_INIT;
		struct release r;
		int rc;

		if (!(comp->roles & ROLE_CDC) || !comp->http_url)
			continue;
		rc = server_release(comp, &r, &why);
		if (rc == 1)
			return err_set(e, ERR_USAGE, "%s: %s: " NO_OPEN_API_V2,
				       comp->name, why.msg);
		if (rc || r.major < 0) {
			log_warn("%s: cannot tell its TiCDC release (%s): "
				 "TiCDC >= 6.6 is assumed", comp->name,
				 rc ? why.msg : r.text);
			continue;
		}
		if (release_older(&r, 6, 6, 0))
			return err_set(e, ERR_USAGE, "%s runs TiCDC %s: "
				       "tichaos needs TiCDC >= 6.6 (its Open "
				       "API v2, cdc/api/v2 in pingcap/tiflow)",
				       comp->name, r.text);
		log_debug("%s runs TiCDC %s", comp->name, r.text);
	}
	return 0;
}

int suite_resolve(const struct suite *s, struct cluster *c, struct err *e)
{
	if (ticdc_floor(c, e))
		return -1;
	for (size_t i = 0; i < s->nworkloads; i++)
		if (resolve_item(s, &s->workloads[i], "workload", c, e))
			return -1;
	for (size_t i = 0; i < s->nfaults; i++) {
		const struct fault_type *t = fault_type_of(&s->faults[i]);

		if (resolve_item(s, &s->faults[i], "fault", c, e) ||
		    (t->resolve && t->resolve(c, s, &s->faults[i], e)))
			return -1;
	}
	for (size_t i = 0; i < s->nchecks; i++)
		if (resolve_item(s, &s->checks[i], "check", c, e))
			return -1;
	return 0;
}

int suite_fixed_here(const struct suite *s, struct cluster *c, char *why,
		     size_t size)
{
	const struct suite_catch *k = &s->catches;
	int cdc = k->server == REQUIRE_TICDC;
	const char *server = cdc ? "TiCDC" : "TiDB";
	struct buf list = BUF_INIT;
	int fixed = 0;

	for (size_t i = 0; k->bug && i < c->ncomps; i++) {
		const struct component *comp = &c->comps[i];
		struct err e = ERR_INIT;
		struct release r;
		int has;

		if (!(comp->roles & (cdc ? ROLE_CDC : ROLE_UPSTREAM)) ||
		    !comp->http_url)
			continue;
		if (server_release(comp, &r, &e) || r.major < 0) {
			log_info("%s: cannot tell its %s release (%s): %s may "
				 "show", comp->name, server, err_isset(&e) ?
				 e.msg : r.text, k->bug);
			continue;
		}
		has = suite_catch_fixed(k, &r);
		if (has < 0)
			log_info("%s runs %s, a build from before v%d.%d.%d, "
				 "the first of its line with the fix of %s: "
				 "it may not have it", comp->name, r.text,
				 r.major, r.minor, r.patch < 0 ? 0 : r.patch,
				 k->bug);
		else if (!has)
			log_info("%s runs %s, before the fix of %s", comp->name,
				 r.text, k->bug);
		if (has <= 0) {
			fixed = 0;
			*why = '\0';
			break;
		}
		if (fixed++)
			continue;
		for (size_t f = 0; f < k->nfixed; f++)
			buf_printf(&list, NULL, "%s%s", f ? ", " : "",
				   k->fixed_in[f].text);
		snprintf(why, size, "%s runs %s, which has the fix of %s (%s "
			 "%s): not expected to catch it here", comp->name,
			 r.text, k->bug, server, buf_str(&list));
	}
	buf_release(&list);
	return fixed > 0;
}
