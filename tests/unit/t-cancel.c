/*
 * lib/cancel.c: the run's cancellation token. Its level only rises, a ^C
 * escalates it one step (HURRY, then KILL), and a NULL token is never
 * cancelled. (Its sleeps are in t-clock.)
 */
#include "lib/cancel.h"
#include "tests/unit/tap.h"

int main(void)
{
	struct cancel c = CANCEL_INIT;

	plan(12);
	is_int(cancel_level(NULL), CANCEL_NONE, "a NULL token is never "
	       "cancelled");
	ok(!cancelled(NULL, CANCEL_STOP), "not even at STOP");
	ok(cancelled(&c, CANCEL_NONE) && !cancelled(&c, CANCEL_STOP),
	   "a new token is at NONE");

	cancel_raise(&c, CANCEL_STOP);
	is_int(cancel_level(&c), CANCEL_STOP, "raised to STOP");
	ok(cancelled(&c, CANCEL_STOP) && !cancelled(&c, CANCEL_HURRY),
	   "STOP reached, HURRY not");

	cancel_escalate(&c, CANCEL_HURRY);
	is_int(cancel_level(&c), CANCEL_HURRY, "a ^C after the run's end: "
	       "HURRY, not one step past STOP only");
	cancel_raise(&c, CANCEL_STOP);
	is_int(cancel_level(&c), CANCEL_HURRY, "raising lower never lowers");
	cancel_escalate(&c, CANCEL_HURRY);
	is_int(cancel_level(&c), CANCEL_KILL, "a second ^C: KILL");
	cancel_escalate(&c, CANCEL_HURRY);
	is_int(cancel_level(&c), CANCEL_KILL, "KILL is the last level");

	c = (struct cancel)CANCEL_INIT;
	cancel_escalate(&c, CANCEL_HURRY);
	is_int(cancel_level(&c), CANCEL_HURRY, "a first ^C while running: "
	       "HURRY");
	ok(cancel_sleep(&c, CANCEL_STOP, 10 * 1000000000LL),
	   "a sleep returns at once, saying it was cut short");
	ok(!cancel_sleep(&c, CANCEL_KILL, 1000000),
	   "a sleep waiting for a higher level runs out, saying so");
	return exit_status();
}
