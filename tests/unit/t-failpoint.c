/*
 * faults/failpoint.c's check of a term, against what pingcap/failpoint's
 * terms.go (v0.0.0-20240528011301-b51a646c7c86) does with it: the terms
 * it parses as written are accepted; those it refuses, and those it
 * parses as something else, are refused with where.
 */

#include <string.h>

#include "faults/failpoint_term.h"
#include "tests/unit/tap.h"

static void good(const char *term)
{
	char why[300] = "";

	ok(failpoint_term_check(term, why, sizeof(why)) == 0,
	   "accepted: %s%s%s", term, why[0] ? " — " : "", why);
}

static void bad(const char *term, const char *want)
{
	char why[300] = "";

	ok(failpoint_term_check(term, why, sizeof(why)) == -1,
	   "refused: %s", term);
	is_str(why, want, "  saying where");
}

int main(void)
{
	/* parseAct's actions, alone (parseVal of "" is struct{}). */
	good("off");
	good("return");
	good("sleep(10)");
	good("panic");
	good("break");
	good("print");
	good("pause");
	/* parseVal: (), an int as %d prints it, a bool, a string. */
	good("return()");
	good("return(0)");
	good("return(-12)");
	good("return(true)");
	good("return(false)");
	good("return(\"abc\")");
	good("return(\"\")");
	good("return(`raw`)");
	/* parseMod: percents (int or float) and counts, any number. */
	good("50%return(1)");
	good("0.5%return(1)");
	good("5.%return(1)");
	good("3*return(1)");
	good("50%3*return(1)");
	/* parse: terms joined by ->. */
	good("1*return(1)->off");
	good("2*off->return(\"x\")->sleep(5)");
	good("sleep(\"1s\")");
	good("sleep(\"1m30.5s\")");
	good("sleep(\"-2ms\")");
	good("sleep(\"0\")");

	bad("", "an empty term");
	bad("retrun(1)", "no action at 'retrun(1)' (off, return, sleep, "
	    "panic, break, print, pause)");
	bad("50%", "no action at '' (off, return, sleep, panic, break, "
	    "print, pause)");
	bad("1.5*return", "no action at '1.5*return' (off, return, sleep, "
	    "panic, break, print, pause)");
	/* Sscanf %d reads 5 from "5x", and the length of "(5)" is taken. */
	bad("return(5x)", "'(5x)' is no value of return (an integer, true or "
	    "false, a \"string\")");
	/* %d prints 7 for 007: the length taken is wrong. */
	bad("return(007)", "'(007)' is no value of return (an integer, true "
	    "or false, a \"string\")");
	bad("return(+1)", "'(+1)' is no value of return (an integer, true or "
	    "false, a \"string\")");
	bad("return(-0)", "'(-0)' is no value of return (an integer, true or "
	    "false, a \"string\")");
	bad("return(True)", "'(True)' is no value of return (an integer, true "
	    "or false, a \"string\")");
	/* An escape: the length is counted from the unquoted string. */
	bad("return(\"a\\\"b\")", "'(\"a\\\"b\")' is no value of return (an "
	    "integer, true or false, a \"string\")");
	bad("return(\"open)", "'(\"open)' is no value of return (an integer, "
	    "true or false, a \"string\")");
	bad("return(1", "'(1' is no value of return (an integer, true or "
	    "false, a \"string\")");
	bad("return(1)off", "'off' after 'return(1)': terms are joined by ->");
	bad("return(1)->", "nothing after the last ->");
	bad("return(1)-", "'-' after 'return(1)': terms are joined by ->");
	bad("sleep", "sleep takes milliseconds or a Go duration: sleep(1000), "
	    "sleep(\"1s\"), not 'sleep'");
	bad("sleep(true)", "sleep takes milliseconds or a Go duration: "
	    "sleep(1000), sleep(\"1s\"), not 'sleep(true)'");
	bad("sleep(\"1 s\")", "sleep takes milliseconds or a Go duration: "
	    "sleep(1000), sleep(\"1s\"), not 'sleep(\"1 s\")'");
	bad("sleep(\"10\")", "sleep takes milliseconds or a Go duration: "
	    "sleep(1000), sleep(\"1s\"), not 'sleep(\"10\")'");
	bad("1*sleep(\"1d\")", "sleep takes milliseconds or a Go duration: "
	    "sleep(1000), sleep(\"1s\"), not '1*sleep(\"1d\")'");
	return done_testing();
}
