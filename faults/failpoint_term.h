#ifndef TICHAOS_FAILPOINT_TERM_H
#define TICHAOS_FAILPOINT_TERM_H

/*
 * The failpoint fault's check of a term (faults/failpoint_term.c), as
 * pingcap/failpoint's terms.go parses one, for the suite's check and its
 * tests.
 */

#include <stddef.h>

/*
 * 0 when `term` is a failpoint term the library reads as written; -1
 * with `why` (`size` bytes) saying where it is not.
 */
int failpoint_term_check(const char *term, char *why, size_t size);

#endif
