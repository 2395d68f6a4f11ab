/*
 * The records that fire faults (faults/trigger.h).
 */
#include "faults/trigger.h"

#include <stdio.h>
#include <string.h>

#include "clusters/cluster.h"
#include "faults/fault.h"

/* An op `on_ops` lists, or any when it lists none. */
static int op_listed(const struct optlist *ops, const char *f)
{
	if (!ops->n)
		return 1;
	for (size_t i = 0; i < ops->n; i++)
		if (f && !strcmp(ops->v[i], f))
			return 1;
	return 0;
}

static int is(const char *a, const char *b)
{
	return a && !strcmp(a, b);
}

/* The op of a ddl_running record's value, which the DDL watch writes
 * first ({"op":"exchange",...}); NULL when it is not there. */
static const char *running_op(const char *value, char *op, size_t size)
{
	static const char key[] = "{\"op\":\"";
	const char *end;

	if (!value || strncmp(value, key, sizeof(key) - 1))
		return NULL;
	value += sizeof(key) - 1;
	end = strchr(value, '"');
	if (!end || (size_t)(end - value) >= size)
		return NULL;
	memcpy(op, value, (size_t)(end - value));
	op[end - value] = '\0';
	return op;
}

static int on_ddl(const struct fault_opts *o, int item_index,
		  const struct history_event *ev)
{
	(void)item_index;
	return ev->process >= 0 && ev->ddl && is(ev->type, "ok") &&
	       op_listed(&o->on_ops, ev->f);
}

static int on_heal(const struct fault_opts *o, int item_index,
		   const struct history_event *ev)
{
	(void)o;
	return ev->process == HISTORY_NEMESIS && ev->heal &&
	       is(ev->type, "info") && ev->has_fault && ev->fault != item_index;
}

/* The monitor's first sight of an election is no change (runner/
 * monitor.c writes "from" first). */
static int on_owner(const struct fault_opts *o, int item_index,
		    const struct history_event *ev)
{
	(void)o;
	(void)item_index;
	return ev->process == HISTORY_MONITOR && is(ev->f, "owner") &&
	       is(ev->type, "info") && ev->value &&
	       strncmp(ev->value, "{\"from\":null", 12);
}

static int on_ddl_applied(const struct fault_opts *o, int item_index,
			  const struct history_event *ev)
{
	(void)o;
	(void)item_index;
	return ev->process == HISTORY_MONITOR && is(ev->f, "ddl_applied") &&
	       is(ev->type, "info");
}

static int on_ddl_running(const struct fault_opts *o, int item_index,
			  const struct history_event *ev)
{
	char op[64];

	(void)item_index;
	return ev->process == HISTORY_MONITOR && is(ev->f, "ddl_running") &&
	       is(ev->type, "info") &&
	       op_listed(&o->on_ops, running_op(ev->value, op, sizeof(op)));
}

const struct fault_trigger_kind fault_triggers[] = {
	[TRIGGER_DDL] = { 1, 0, on_ddl },
	[TRIGGER_HEAL] = { 0, 0, on_heal },
	[TRIGGER_OWNER] = { 0, 0, on_owner },
	[TRIGGER_DDL_APPLIED] = { 0, DDL_WATCH_PARTITIONS, on_ddl_applied },
	[TRIGGER_DDL_RUNNING] = { 1, DDL_WATCH_RUNNING, on_ddl_running },
};
_Static_assert(sizeof(fault_triggers) / sizeof(fault_triggers[0]) ==
	       TRIGGER_DDL_RUNNING + 1, "a trigger of each enum fault_trigger");

int fault_trigger_matches(const struct suite_item *it, int item_index,
			  const struct history_event *ev)
{
	const struct fault_opts *o = fault_opts_of(it);

	return o->on >= 0 && fault_triggers[o->on].matches(o, item_index, ev);
}

void fault_fired_from(struct fault_fired *f, const struct history_event *ev)
{
	f->time = ev->time;
	f->process = ev->process;
	snprintf(f->f, sizeof(f->f), "%s", ev->f ? ev->f : "");
	snprintf(f->table, sizeof(f->table), "%s", ev->table ? ev->table : "");
	snprintf(f->target, sizeof(f->target), "%s",
		 ev->target ? ev->target : "");
	f->fault = ev->has_fault ? ev->fault : -1;
}

void fault_fired_json(struct buf *out, const struct suite_item *it,
		      const struct fault_fired *f, int64_t late_ns)
{
	const struct fault_opts *o = fault_opts_of(it);

	buf_addstr(out, "{\"on\":", NULL);
	json_quote(out, fault_trigger_names[o->on], NULL);
	buf_printf(out, NULL, ",\"event\":{\"time\":%lld,\"process\":",
		   (long long)f->time);
	if (f->process >= 0)
		buf_printf(out, NULL, "%d", f->process);
	else
		json_quote(out, f->process == HISTORY_NEMESIS ? "nemesis"
			   : "monitor", NULL);
	buf_addstr(out, ",\"f\":", NULL);
	json_quote(out, f->f, NULL);
	if (f->table[0]) {
		buf_addstr(out, ",\"table\":", NULL);
		json_quote(out, f->table, NULL);
	}
	if (f->target[0]) {
		buf_addstr(out, ",\"target\":", NULL);
		json_quote(out, f->target, NULL);
	}
	if (f->fault >= 0)
		buf_printf(out, NULL, ",\"fault\":%d", f->fault);
	buf_printf(out, NULL, "},\"after_ns\":%lld,\"late_ns\":%lld}",
		   (long long)o->after, (long long)late_ns);
}
