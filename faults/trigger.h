#ifndef TICHAOS_TRIGGER_H
#define TICHAOS_TRIGGER_H

/*
 * What fires a fault item with `on:` (docs/faults.md, Triggers): a record
 * of the run's history, as the nemesis sees it recorded
 * (history_observe). Each planned event of such an item arms it at its
 * time; it fires on the first matching record at or after that time, and
 * is injected `after` later. The records, as their writers make them:
 *
 *   ddl    a worker's "ok" of a DDL operation ("ddl": true, from a kind
 *          with KIND_DDL), of one of `on_ops` when it lists any;
 *   heal   the nemesis's "info" of a heal step ("heal": true) of another
 *          fault item;
 *   owner  the monitor's "info" of an owner change ("f": "owner"), but
 *          the first owner it saw of an election ("from": null);
 *   ddl_applied  the DDL watch's "info" of a table whose partitions
 *          changed downstream (clusters/cluster.h, cluster_ddl_watch),
 *          which the nemesis runs when an item asks for it;
 *   ddl_running  the DDL watch's "info" of a partition DDL it saw
 *          running downstream, of one of `on_ops` when it lists any
 *          (its value's "op").
 *
 * The injection's invoke says what fired it (fault_fired_json), so the
 * history tells which record, and how long after it the fault came.
 */

#include <stdint.h>

#include "core/suite.h"
#include "faults/fault.h"
#include "lib/buf.h"
#include "lib/history.h"

/* A record that fired a fault, copied: its strings are the recorder's. */
struct fault_fired {
	int64_t time;		/* the record's, ns since the run started */
	int process;		/* a worker's index, or HISTORY_* */
	char f[64];
	char table[192];	/* "" when it has none */
	char target[192];	/* "" when it has none */
	int fault;		/* heal: the item healed; else -1 */
};

/*
 * A trigger, by its enum fault_trigger (fault_triggers[on], its name in
 * `on:` fault_trigger_names[on]): whether `on_ops` narrows it, what the DDL watch must ask for
 * (DDL_WATCH_*, clusters/cluster.h; 0: no watch) so that its records
 * come, and whether record `ev` fires item `item_index` with options `o`.
 */
struct fault_trigger_kind {
	int takes_ops;
	unsigned ddl_watch;
	int (*matches)(const struct fault_opts *o, int item_index,
		       const struct history_event *ev);
};

/* Indexed by enum fault_trigger. */
extern const struct fault_trigger_kind fault_triggers[];

/* Non-zero when record `ev` fires item `it` (index `item_index`). */
int fault_trigger_matches(const struct suite_item *it, int item_index,
			  const struct history_event *ev);

/* Copy what a reader of the trigger needs of `ev` into `f`. */
void fault_fired_from(struct fault_fired *f, const struct history_event *ev);

/*
 * The trigger as the invoke records it, a JSON object: {"on": "ddl",
 * "event": {"time": NS, "process": P, "f": ..., "table"/"target"/"fault"
 * when it has them}, "after_ns": the item's after, "late_ns": how much
 * later than the event and `after` the injection began}.
 */
void fault_fired_json(struct buf *out, const struct suite_item *it,
		      const struct fault_fired *f, int64_t late_ns);

#endif
