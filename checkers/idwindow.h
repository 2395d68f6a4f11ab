#ifndef TICHAOS_IDWINDOW_H
#define TICHAOS_IDWINDOW_H

/*
 * The ids check's reorder window (checkers/idwindow.c): the invokes and
 * completions of a history that is only roughly in time order (the ids
 * check's header comment says how the flusher writes it), let out in
 * time order. A lane a process, each a ring of its dues in time order,
 * merged by a heap of lanes by their first; the earliest is let out
 * once more than `window` are held. A due that comes too late for that
 * (before one let out already, or more than IDWINDOW_LANE_SLACK places
 * out of its own lane's order) is refused, saying why, and the caller
 * reads its file again with a window of SIZE_MAX: every due held, and
 * sorted when drained.
 *
 * The window knows a due's time and the caller's reference to it; the
 * rest of its key, for dues at one time, it asks the caller for.
 */

#include <stddef.h>
#include <stdint.h>

/* Places a due may be out of its own lane's time order. */
#define IDWINDOW_LANE_SLACK 16
#define IDWINDOW_NO_LANE UINT32_MAX

/* Of two dues at one time, an invoke first. */
enum idwindow_kind { IDWINDOW_INVOKE, IDWINDOW_COMPLETE };

struct idwindow_due {		/* an invoke or completion in the window */
	int64_t time;
	uint32_t ref;		/* the caller's: its operation */
	uint32_t kind;		/* enum idwindow_kind */
};

/*
 * Where a due goes in time order: by time, kind, then (completions at
 * one time) invoke and line; an invoke's invoke is 0.
 */
struct idwindow_key {
	int64_t time;
	uint32_t kind;
	uint32_t line;
	int64_t invoke;
};

/* The key of due `d` (its time and kind as in d). */
typedef struct idwindow_key (*idwindow_key_fn)(const struct idwindow_due *d,
					       void *arg);
/* Due `d` let out, in time order. */
typedef void (*idwindow_out_fn)(struct idwindow_due d, void *arg);

struct idwindow_lane;
struct idwindow_ref;

struct idwindow {
	size_t window;		/* dues held at most; SIZE_MAX: all */
	idwindow_key_fn key;
	idwindow_out_fn out;
	void *arg;
	/* The window's own. */
	struct idwindow_lane *lanes;
	struct idwindow_ref *heap;	/* lanes by their first due */
	size_t nlanes, lanes_cap, nheap;
	struct idwindow_due *all;	/* window SIZE_MAX: every due */
	size_t nall, all_cap;
	size_t held;		/* dues in the lanes */
	int let_out_any;
	/* The last due let out: its key is asked for only when a due
	 * comes at its time (most come later). */
	struct idwindow_due last_out;
};

/* An empty window of `window` dues (SIZE_MAX: all) calling key and out
 * with `arg`. */
void idwindow_init(struct idwindow *w, size_t window, idwindow_key_fn key,
		   idwindow_out_fn out, void *arg);

/*
 * Due `d` into lane *lane (IDWINDOW_NO_LANE: a new one, set in *lane),
 * letting the earliest out while the window holds too many. 0, or 1 when
 * it comes too late, with *why (static) saying so: "came after the
 * reorder window had let out a later one", "is out of its process's
 * time order"; `d` is not held then.
 */
int idwindow_add(struct idwindow *w, uint32_t *lane, struct idwindow_due d,
		 const char **why);

/* Let out everything still held, in time order. */
void idwindow_drain(struct idwindow *w);

/* Free what the window holds (without letting it out). */
void idwindow_release(struct idwindow *w);

#endif
