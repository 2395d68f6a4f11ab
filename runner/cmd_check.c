#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "clusters/cluster.h"
#include "core/suite.h"
#include "lib/http.h"
#include "lib/log.h"
#include "lib/sql.h"
#include "reports/report.h"
#include "runner/checks.h"
#include "runner/kinds.h"
#include "runner/runner.h"
#include "workloads/workload.h"

/* The run's cluster when every component of it answers; else NULL. */
static struct cluster *attach(const char *dir, struct cluster *c,
			      int *dialect)
{
	struct cluster_options o = { .cluster = NULL };
	char path[4096];
	struct stat sb;
	struct err e = ERR_INIT;

	snprintf(path, sizeof(path), "%s/topology.yaml", dir);
	if (stat(path, &sb))
		return NULL;
	o.cluster = path;
	if (cluster_open(c, &o, &e)) {
		log_warn("%s", e.msg);
		return NULL;
	}
	for (size_t i = 0; i < c->ncomps; i++)
		if (component_answers(c, &c->comps[i], &e)) {
			log_info("the run's cluster is not up (%s): live "
				 "checks are skipped", e.msg);
			cluster_close(c);
			return NULL;
		}
	for (size_t i = 0; i < c->ncomps; i++) {
		const struct component *u = &c->comps[i];
		struct sql s = SQL_INIT;
		struct buf v = BUF_INIT;

		if (!(u->roles & ROLE_UPSTREAM) || !u->sql_port)
			continue;
		if (!component_connect(u, &s, NULL, 5, &e) &&
		    sql_value(&s, "SELECT VERSION()", &v, &e) == 0)
			*dialect = strstr(buf_str(&v), "TiDB") ? DIALECT_TIDB
				   : strstr(buf_str(&v), "MariaDB")
				   ? DIALECT_MARIADB : DIALECT_MYSQL;
		sql_close(&s);
		buf_release(&v);
		break;
	}
	return c;
}

static void now_utc(char *out, size_t n)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/*
 * What this check says of each check: its fresh verdict where it reached
 * one, else the recorded one, which stands (said on stderr, as is a
 * fresh verdict the record keeps beside a stronger one).
 */
static json_t *shown(const json_t *fresh, const json_t *merged)
{
	json_t *items = json_array();

	for (size_t i = 0; i < json_array_size(fresh); i++) {
		const json_t *now = json_array_get(fresh, i);
		const json_t *it = json_array_get(merged, i);
		const char *v = report_str(now, "verdict");

		if (!strcmp(v, "skip") && strcmp(report_str(it, "verdict"),
						 "skip")) {
			log_warn("check %zu %s: not checked again (%s); the "
				 "recorded verdict stands: %s", i + 1,
				 report_str(it, "name"), report_str(now, "skip"),
				 results_item_verdict(it));
			json_array_append(items, (json_t *)it);
			continue;
		}
		if (strcmp(results_item_verdict(now), results_item_verdict(it)))
			log_warn("check %zu %s: %s now; the run directory keeps "
				 "the recorded %s, this verdict beside it",
				 i + 1, report_str(it, "name"),
				 results_item_verdict(now),
				 results_item_verdict(it));
		json_array_append(items, (json_t *)now);
	}
	return items;
}

/*
 * results.json with its checks merged (a new one for a run that never
 * finished), and every report rebuilt from it. Prints, and returns the
 * exit code of, what this check says of each check (shown()).
 */
static int update_results(const char *dir, const struct suite *s,
			  const struct check_result *res, struct err *e)
{
	static const char *const checks_only[] = { "checks", NULL };
	struct buf out = BUF_INIT, tap = BUF_INIT;
	json_t *doc = NULL, *said, *fresh;
	const char *ran_on;
	char path[4200], at[32], *text;
	int rc;

	if (results_load(dir, &doc, NULL))
		doc = json_pack("{s:s, s:I, s:s, s:[], s:[]}", "suite",
				s->name, "seed", (json_int_t)s->seed,
				"run_dir", dir, "workloads", "faults");
	/* The kind of cluster the run was on, for the suite's expect:
	 * (unknown for a run that never wrote its results: any). */
	ran_on = json_string_value(json_object_get(doc, "cluster"));
	fresh = checks_items(s, res, ran_on ? cluster_kind(ran_on) : NULL);
	now_utc(at, sizeof(at));
	json_object_set_new(doc, "checks", checks_merge(
		json_object_get(doc, "checks"), fresh,
		report_str(doc, "started"), at));
	said = json_pack("{s:o}", "checks", shown(fresh, json_object_get(
					doc, "checks")));
	json_object_set(said, "run_dir", json_object_get(doc, "run_dir"));
	json_object_set(said, "seed", json_object_get(doc, "seed"));
	json_decref(fresh);
	json_object_del(doc, "skip");
	json_object_set_new(doc, "verdict", json_string(results_verdict(doc)));
	text = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	snprintf(path, sizeof(path), "%s/results.json", dir);
	rc = !text || buf_addstr(&out, text, e) || buf_addch(&out, '\n', e) ||
	     buf_write_file(&out, path, 0644, e) ||
	     kinds_reports_write(doc, dir, e) ||
	     report_tap_sections(said, checks_only, &tap, e);
	free(text);
	if (!rc) {
		fputs(buf_str(&tap), stdout);
		fflush(stdout);
	}
	rc = rc ? -1 : results_exit_code(said);
	json_decref(said);
	json_decref(doc);
	buf_release(&out);
	buf_release(&tap);
	return rc;
}

int cmd_check(int argc, char **argv)
{
	static const struct opt opts[] = { { NULL, 0, NULL, NULL, NULL } };
	int n = opts_parse(command_find("check"), opts, argc, argv);
	struct check_ctx ctx = { NULL, NULL, NULL, -1, NULL };
	struct check_result *res = NULL;
	struct err e = ERR_INIT;
	struct cluster c;
	struct suite s;
	char path[4096];
	int rc = EXIT_PASS;

	if (n != 1)
		die(EXIT_USAGE, "check: expected one RUN_DIR (see 'tichaos "
		    "help check')");
	snprintf(path, sizeof(path), "%s/suite.yaml", argv[1]);
	if (suite_load(&s, path, &tichaos_kinds, &e)) {
		suite_release(&s);
		die(EXIT_USAGE, "check: '%s' is not a run directory: %s",
		    argv[1], e.msg);
	}
	sql_library_init();
	http_library_init();
	ctx.suite = &s;
	ctx.run_dir = argv[1];
	ctx.cluster = attach(argv[1], &c, &ctx.dialect);
	res = xcalloc(s.nchecks + 1, sizeof(*res));
	checks_run(&ctx, res);
	rc = update_results(argv[1], &s, res, &e);
	if (rc < 0)
		rc = EXIT_INFRA;
	checks_release(&s, res);
	free(res);
	if (ctx.cluster)
		cluster_close(&c);
	suite_release(&s);
	http_library_end();
	sql_library_end();
	if (err_isset(&e))
		die_err(&e);
	return rc;
}
