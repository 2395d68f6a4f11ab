/*
 * The local cluster's own section of a suite (clusters/local_suite.c)
 * through the core's routing (core/suite.c): the core hands cluster.local
 * to the kind of that name and keeps only what it parsed; the section's
 * values, its errors where they were given, the check it needs, the suite
 * as run, and a section for a kind the core was not told of.
 */
#include <string.h>

#include "clusters/local.h"
#include "core/suite.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "runner/kinds.h"
#include "tests/unit/tap.h"
#include "tests/unit/tmpdir.h"

static struct tmpdir dir;

static const char head[] =
	"name: l\n"
	"tables:\n"
	"  - name: t\n"
	"    columns: \"id INT AUTO_INCREMENT PRIMARY KEY\"\n"
	"workloads:\n"
	"  - kind: insert\n"
	"    tables: t\n";

static const char progress[] = "checks:\n  - kind: progress\n";

/*
 * Load `head` + `cluster` (line 8 on), with a progress check after it
 * unless `cluster` has checks of its own; 0 or -1 with `e`.
 */
static int load(struct suite *s, const char *cluster,
		const struct suite_kinds *kinds, struct err *e)
{
	char text[2048];

	snprintf(text, sizeof(text), "%s%s%s", head, cluster,
		 strstr(cluster, "checks:") ? "" : progress);
	if (write_text(tmpdir_path(&dir, "s.yaml"), text))
		return err_set(e, ERR_INFRA, "cannot write the suite");
	return suite_load(s, tmpdir_path(&dir, "s.yaml"), kinds, e);
}

/* The message of a suite that does not load, past "DIR/s.yaml:". */
static const char *error_of(const char *cluster)
{
	static char msg[1024];
	struct suite s;
	struct err e = ERR_INIT;
	const char *at;

	if (!load(&s, cluster, &tichaos_kinds, &e)) {
		suite_release(&s);
		return "(loaded)";
	}
	suite_release(&s);
	at = strstr(e.msg, "s.yaml:");
	snprintf(msg, sizeof(msg), "%s", at ? at + 7 : e.msg);
	return msg;
}

static void test_values(void)
{
	struct suite s;
	struct err e = ERR_INIT;
	const struct local_suite *l;

	if (!ok(!load(&s, "cluster:\n  local:\n"
		      "    replica_skip_errors: [1062, 1032]\n"
		      "    upstream: { options: { sync_binlog: 1 } }\n"
		      "    hosts: false\n", &tichaos_kinds, &e),
		"a cluster.local section loads")) {
		diag("%s", e.msg);
		suite_release(&s);
		return;
	}
	l = suite_cluster_section(&s, "local");
	ok(l != NULL, "the local kind parsed it");
	ok(!suite_cluster_section(&s, "static"), "no other kind has one");
	if (l) {
		is_int(l->nskip_errors, 2, "two errors to skip");
		is_int(l->skip_errors[1], 1032, "in the suite's order");
		is_int(l->skip_line, 10, "where they were given");
		is_int(l->noptions[0], 1, "one upstream option");
		is_str(l->options[0][0], "sync_binlog", "its name as written");
		is_str(l->options[0][1], "1", "its value");
		ok(!l->options[1], "no downstream options");
		is_int(l->hosts, HOSTS_OFF, "hosts: false");
	}
	suite_release(&s);

	if (ok(!load(&s, "cluster:\n  local: {}\n", &tichaos_kinds, &e),
	       "an empty section loads"))
		ok(!suite_cluster_section(&s, "local"), "and sets nothing");
	suite_release(&s);
}

static void test_errors(void)
{
	is_str(error_of("cluster:\n  local:\n    replica_skip_error: [1]\n"),
	       "10:5: unknown key 'replica_skip_error' in cluster.local (did "
	       "you mean 'replica_skip_errors'?)", "a misspelt key");
	is_str(error_of("cluster:\n  local:\n    replica_skip_errors: [1, "
			"1]\n"),
	       "10:30: replica_skip_errors: 1 is listed twice",
	       "an error listed twice");
	is_str(error_of("cluster:\n  local:\n    replica_skip_errors: x\n"),
	       "10:26: replica_skip_errors: 'x' is not an error code (1 to "
	       "65535)", "not an error code");
	is_str(error_of("cluster:\n  local:\n    downstream: { options: { "
			"slave_skip_errors: all } }\n"),
	       "10:30: 'slave_skip_errors' in cluster.local.downstream "
	       "options: errors the replica skips are cluster.local."
	       "replica_skip_errors (counted and reported)",
	       "skip errors as a server option");
	is_str(error_of("cluster:\n  local:\n    upstream: { options: { "
			"datadir: /x } }\n"),
	       "10:28: 'datadir' in cluster.local.upstream options is set "
	       "by tichaos (docs/suite-format.md)", "an option tichaos sets");
	is_str(error_of("cluster:\n  local:\n    upstream: { options: { "
			"sync_binlog: 1, sync-binlog: 2 } }\n"),
	       "10:44: option 'sync-binlog' in cluster.local.upstream is "
	       "given twice (as 'sync_binlog' on line 10)",
	       "an option given twice");
	is_str(error_of("cluster:\n  local:\n    hosts: maybe\n"),
	       "10:12: cluster.local.hosts must be true, false or auto",
	       "a bad hosts");
	is_str(error_of("cluster:\n  static:\n    x: 1\n"),
	       "9:3: unknown key 'static' in cluster",
	       "a kind with no section of its own has none");
}

/* The build's check kinds without the ones that count skips. */
static const struct kind *consistency_only(size_t i)
{
	const struct kind *k;

	for (size_t n = 0; (k = tichaos_kinds.checks(n)); n++)
		if (!strcmp(k->name, "consistency"))
			return i ? NULL : k;
	return NULL;
}

static void test_routing(void)
{
	/* The core told of no cluster kind knows no cluster.local. */
	struct suite_kinds bare = tichaos_kinds;
	struct suite s;
	struct err e = ERR_INIT;

	bare.cluster_kind = NULL;
	bare.cluster_section = NULL;
	ok(load(&s, "cluster:\n  local:\n    hosts: true\n", &bare, &e),
	   "without the kinds, cluster.local is refused");
	ok(strstr(e.msg, "unknown key 'local' in cluster") != NULL,
	   "as an unknown key: %s", e.msg);
	suite_release(&s);

	/* replica_skip_errors with no check that counts the skips: the
	 * error names the one the kinds have, else says what it must do. */
	err_clear(&e);
	ok(load(&s, "checks:\n  - kind: consistency\ncluster:\n  local:\n"
		"    replica_skip_errors: [1517]\n", &tichaos_kinds, &e) &&
	   strstr(e.msg, "s.yaml:12:26: replica_skip_errors needs a progress "
		  "check: it counts and reports every event the replica "
		  "skips"), "the skips need the check that counts them: %s",
	   e.msg);
	suite_release(&s);
	bare = tichaos_kinds;
	bare.checks = consistency_only;
	err_clear(&e);
	ok(load(&s, "checks:\n  - kind: consistency\ncluster:\n  local:\n"
		"    replica_skip_errors: [1517]\n", &bare, &e) &&
	   strstr(e.msg, "s.yaml:12:26: replica_skip_errors needs a "
		  "counting check"), "or a counting one: %s", e.msg);
	suite_release(&s);
}

static void test_as_run(void)
{
	struct suite s, again;
	struct buf first = BUF_INIT, second = BUF_INIT;
	struct err e = ERR_INIT;

	if (!ok(!load(&s, "cluster:\n  local:\n"
		      "    replica_skip_errors: 1062\n"
		      "    downstream: { options: { a_b: x, c: \"y z\" } }\n"
		      "    hosts: auto\n", &tichaos_kinds, &e),
		"a section to write")) {
		diag("%s", e.msg);
		suite_release(&s);
		return;
	}
	ok(!suite_write(&s, 1, s.duration_ns, &first, &e),
	   "the suite as run is written");
	ok(strstr(buf_str(&first), "cluster: { captures: 0, tidb: 0, pd: 0, "
		  "kv: 0,\n  local: { replica_skip_errors: [1062], "
		  "downstream: { options: { a_b: \"x\", c: \"y z\" } }, hosts: "
		  "auto } }\n") != NULL, "with the kind's section");
	write_text(tmpdir_path(&dir, "again.yaml"), buf_str(&first));
	if (ok(!suite_load(&again, tmpdir_path(&dir, "again.yaml"),
			   &tichaos_kinds, &e), "which loads back")) {
		suite_write(&again, 1, again.duration_ns, &second, &e);
		is_str(buf_str(&second), buf_str(&first), "the same");
	}
	suite_release(&again);
	suite_release(&s);
	buf_release(&first);
	buf_release(&second);
}

int main(void)
{
	if (tmpdir_create(&dir)) {
		ok(0, "a scratch directory");
		return exit_status();
	}
	test_values();
	test_errors();
	test_routing();
	test_as_run();
	tmpdir_remove(&dir);
	return done_testing();
}
