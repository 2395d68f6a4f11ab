#ifndef TICHAOS_HELD_H
#define TICHAOS_HELD_H

/*
 * What a fault makes of the components it acts on while it holds, from
 * its injection to its heal: a fault kind describes its own (struct
 * fault_type.holds), the history names it on every injection ("holds":
 * its name), and report.html draws the components so held on their lanes
 * in its colour (reports/timeline.h). No list of them is kept anywhere
 * else: a fault with a new way of holding brings its description along.
 */

/* A member of an injection's value that says how ("loss": 5). */
struct fault_detail {
	const char *member;	/* "loss" */
	const char *label;	/* "loss" */
	const char *unit;	/* "%"; "" */
	const char *unless;	/* MAY: left out when it is this ("1") */
};

/* The history's "holds" of a fault that heals and holds no component (a
 * changefeed paused): its window alone. */
#define FAULT_HOLDS_OTHER "other"

struct fault_holds {
	/* The history's "holds": a word, unique among the fault kinds
	 * (tests/unit/t-holds checks it); report.html's class s-NAME. */
	const char *name;
	/* What a held component is, as a report says it: "down", "cut
	 * off", "clock skewed". */
	const char *label;
	/* How report.html's words on its timeline say a component was
	 * so: "down", "had its clock skewed". */
	const char *prose;
	/* How a report draws it: "#d62728". */
	const char *colour;
	/* Legends list ways of holding by rank, lowest first. */
	int rank;
	/*
	 * The member of the injection's value listing the components held,
	 * each {"component": NAME, ...}; NULL: its "cuts" do, [{"host":
	 * NAME, "drops": [NAME, ...]}, ...] (who dropped what came from
	 * whom).
	 */
	const char *list;
	/* MAY: what says how, {NULL}-terminated. */
	const struct fault_detail *details;
};

#endif
