/*
 * The suite loader (core/suite.c, lib/ynode.c, lib/optspec.c and every
 * kind's option checks): the input is a suite file.
 *
 * A suite that loads is written as run (suite_write, what a run keeps as
 * suite.yaml and `tichaos replay` loads) and must load back to the same
 * text.
 */
#include <string.h>

#include "core/suite.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/log.h"
#include "runner/kinds.h"
#include "tests/fuzz/fuzz.h"

int fuzz_suite(const uint8_t *data, size_t size)
{
	struct suite s, again;
	struct buf first = BUF_INIT, second = BUF_INIT;
	struct err e = ERR_INIT;
	const char *path;

	log_set_level(LOG_ERROR);
	path = fuzz_file("fuzz.yaml", data, size);
	if (suite_load(&s, path, &tichaos_kinds, &e)) {
		suite_release(&s);
		return 0;
	}
	if (suite_write(&s, s.seed, s.duration_ns, &first, &e))
		fuzz_fail("suite_write: %s", e.msg);
	path = fuzz_file("as-run.yaml", first.data, first.len);
	if (suite_load(&again, path, &tichaos_kinds, &e))
		fuzz_fail("the suite as run does not load: %s\n%s", e.msg,
			  buf_str(&first));
	if (suite_write(&again, again.seed, again.duration_ns, &second, &e))
		fuzz_fail("suite_write: %s", e.msg);
	if (strcmp(buf_str(&first), buf_str(&second)))
		fuzz_fail("the suite as run loads back different:\n%s\n---\n%s",
			  buf_str(&first), buf_str(&second));
	suite_release(&again);
	suite_release(&s);
	buf_release(&first);
	buf_release(&second);
	return 0;
}

#ifdef LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_suite(data, size);
}
#endif
