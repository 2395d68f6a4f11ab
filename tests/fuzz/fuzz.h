#ifndef TICHAOS_FUZZ_H
#define TICHAOS_FUZZ_H

/*
 * Fuzz harnesses (docs/reliability.md): one file per loader,
 * tests/fuzz/fuzz-NAME.c, each with one entry point fuzz_NAME() that
 * feeds the input bytes to the real loader, the way `tichaos` calls it.
 *
 * Built by `make fuzz` with -DLIBFUZZER, a harness also defines
 * LLVMFuzzerTestOneInput() and becomes a libFuzzer program
 * (fuzz-build/fuzz-NAME). Built normally, the entry points are linked into
 * tests/unit/t-fuzz-regress, which replays the inputs kept in
 * tests/data/fuzz-regressions/NAME/ under `make test`.
 *
 * An entry point returns 0 whatever the loader thought of the input; it
 * aborts (fuzz_fail) when the loader broke one of its promises, so that
 * the fuzzer keeps the input as a crash.
 */

#include <stddef.h>
#include <stdint.h>

int fuzz_suite(const uint8_t *data, size_t size);
int fuzz_topology(const uint8_t *data, size_t size);
int fuzz_history(const uint8_t *data, size_t size);

/*
 * Write `size` bytes to file `name` in the process's scratch directory
 * (created on first use under $TMPDIR, else /dev/shm, else /tmp; removed
 * at exit). Returns the path (static storage, one per name). Aborts when
 * the file cannot be written.
 */
const char *fuzz_file(const char *name, const void *data, size_t size);

/* The scratch directory itself. */
const char *fuzz_dir(void);

/* Print "fuzz: <message>" on stderr and abort(). */
__attribute__((noreturn, format(printf, 1, 2)))
void fuzz_fail(const char *fmt, ...);

#endif
