#include <stdio.h>
#include <string.h>

#include "clusters/cluster.h"
#include "core/suite.h"
#include "lib/http.h"
#include "lib/sql.h"
#include "runner/kinds.h"
#include "runner/runner.h"

int validate_cluster(const char *name, int say_ok)
{
	struct cluster_options o = { .cluster = name };
	struct buf lines = BUF_INIT;
	struct err e = ERR_INIT;
	struct cluster c;
	const char *p;
	int bad, rc = EXIT_PASS;

	sql_library_init();
	http_library_init();
	if (cluster_open(&c, &o, &e)) {
		fprintf(stderr, "tichaos: %s\n", e.msg);
		rc = (int)e.class;
		goto out;
	}
	bad = cluster_preflight(&c, &lines);
	for (p = buf_str(&lines); *p;) {
		const char *nl = strchr(p, '\n');
		int len = (int)(nl - p);

		if (!strncmp(p, "ok ", 3)) {
			if (say_ok)
				printf("%.*s\n", len, p);
		}
		else
			fprintf(stderr, "tichaos: %s: %.*s\n", name, len, p);
		p = nl + 1;
	}
	if (bad) {
		fflush(stdout);
		fprintf(stderr, "tichaos: %s: %d of %zu components cannot "
			"start as they are\n", name, bad, c.ncomps);
		rc = EXIT_USAGE;
	}
	cluster_close(&c);
out:
	buf_release(&lines);
	http_library_end();
	sql_library_end();
	return rc;
}

int cmd_validate(int argc, char **argv)
{
	const char *cluster = NULL;
	const struct opt opts[] = {
		{ "cluster", 0, &cluster, NULL, NULL },
		{ NULL, 0, NULL, NULL, NULL },
	};
	int n = opts_parse(command_find("validate"), opts, argc, argv);
	int rc = EXIT_PASS;

	if (n < 1 && !cluster)
		die(EXIT_USAGE, "validate: expected SUITE.yaml... or --cluster "
		    "TOPOLOGY.yaml (see 'tichaos help validate')");
	for (int i = 1; i <= n; i++) {
		struct err e = ERR_INIT;
		struct suite s;

		if (suite_load(&s, argv[i], &tichaos_kinds, &e)) {
			fflush(stdout);
			fprintf(stderr, "tichaos: %s\n", e.msg);
			if (rc == EXIT_PASS || e.class == ERR_INFRA)
				rc = (int)e.class;
		} else {
			printf("ok %s\n", argv[i]);
		}
		suite_release(&s);
	}
	if (cluster) {
		int crc = validate_cluster(cluster, 1);

		if (rc == EXIT_PASS || crc == EXIT_INFRA)
			rc = crc == EXIT_PASS ? rc : crc;
	}
	return rc;
}
