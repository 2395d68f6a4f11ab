#include <stdio.h>

#include "core/suite.h"
#include "runner/kinds.h"
#include "runner/runner.h"

int cmd_validate(int argc, char **argv)
{
	static const struct opt opts[] = { { NULL, 0, NULL, NULL } };
	int n = opts_parse(command_find("validate"), opts, argc, argv);
	int rc = EXIT_PASS;

	if (n < 1)
		die(EXIT_USAGE, "validate: expected SUITE.yaml... (see "
		    "'tichaos help validate')");
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
	return rc;
}
