/*
 * faults/trigger.c: which records of the history fire a fault item with
 * `on:` — a DDL's ok (of its on_ops), another item's heal, an owner
 * change but the monitor's first sight — and the invoke's record of it.
 */

#include <string.h>

#include "faults/fault.h"
#include "faults/trigger.h"
#include "tests/unit/tap.h"

/* A record: time, process, type, f; the rest as the writers set them. */
static struct history_event rec(int64_t time, int process, const char *type,
				const char *f)
{
	struct history_event ev = { time, process, type, f, NULL, NULL, NULL,
				    -1, NULL, NULL, 0, 0, 0, NULL, 0 };

	return ev;
}

static void ddl(void)
{
	char truncate[] = "truncate", exchange[] = "exchange";
	char *ops[] = { truncate, exchange };
	struct fault_opts o = { .on = TRIGGER_DDL };
	struct suite_item it = { .kind = "kill", .opts = &o };
	struct history_event ev = rec(5, 2, "ok", "truncate");

	ev.ddl = 1;
	ev.table = "db.p";
	ok(fault_trigger_matches(&it, 0, &ev), "a DDL's ok fires on: ddl");
	ev.type = "invoke";
	ok(!fault_trigger_matches(&it, 0, &ev), "its invoke does not");
	ev.type = "info";
	ok(!fault_trigger_matches(&it, 0, &ev), "nor an info (unknown)");
	ev.type = "ok";
	ev.ddl = 0;
	ok(!fault_trigger_matches(&it, 0, &ev), "nor an ok of no DDL");
	ev.ddl = 1;
	o.on_ops = (struct optlist){ ops, 2 };
	ok(fault_trigger_matches(&it, 0, &ev), "on_ops: one of them fires");
	ev.f = "drop_add";
	ok(!fault_trigger_matches(&it, 0, &ev), "another op does not");
	ev.f = "exchange";
	ev.process = HISTORY_NEMESIS;
	ok(!fault_trigger_matches(&it, 0, &ev), "nor a nemesis record");
}

static void heal(void)
{
	struct fault_opts o = { .on = TRIGGER_HEAL };
	struct suite_item it = { .kind = "pause", .opts = &o };
	struct history_event ev = rec(9, HISTORY_NEMESIS, "info", "restart");

	ev.heal = 1;
	ev.has_fault = 1;
	ev.fault = 0;
	ok(fault_trigger_matches(&it, 1, &ev), "another item's heal fires");
	ok(!fault_trigger_matches(&it, 0, &ev), "the item's own does not");
	ev.type = "fail";
	ok(!fault_trigger_matches(&it, 1, &ev), "nor a heal that failed");
	ev.type = "info";
	ev.heal = 0;
	ok(!fault_trigger_matches(&it, 1, &ev), "nor an injection");
}

static void owner(void)
{
	struct fault_opts o = { .on = TRIGGER_OWNER };
	struct suite_item it = { .kind = "kill", .opts = &o };
	struct history_event ev = rec(3, HISTORY_MONITOR, "info", "owner");

	ev.target = "tidb/autoid/leader";
	ev.value = "{\"from\":\"a\",\"to\":\"b\",\"to_component\":null}";
	ok(fault_trigger_matches(&it, 0, &ev), "an owner change fires");
	ev.value = "{\"from\":\"a\",\"to\":null,\"to_component\":null}";
	ok(fault_trigger_matches(&it, 0, &ev), "so does a lost owner");
	ev.value = "{\"from\":null,\"to\":\"a\",\"to_component\":null}";
	ok(!fault_trigger_matches(&it, 0, &ev),
	   "the monitor's first sight does not");
	o.on = TRIGGER_DDL;
	ev.value = "{\"from\":\"a\",\"to\":\"b\"}";
	ok(!fault_trigger_matches(&it, 0, &ev), "nor for on: ddl");
}

static void applied(void)
{
	struct fault_opts o = { .on = TRIGGER_DDL_APPLIED };
	struct suite_item it = { .kind = "kill", .opts = &o };
	struct history_event ev = rec(7, HISTORY_MONITOR, "info",
				      "ddl_applied");

	ev.table = "test.p_1";
	ev.node = "down-0";
	ev.value = "{\"partitions\":\"p0,p1\"}";
	ok(fault_trigger_matches(&it, 0, &ev), "the DDL watch's record fires");
	ev.f = "replica_stopped";
	ok(!fault_trigger_matches(&it, 0, &ev), "another monitor record not");
	ev.f = "ddl_applied";
	ev.process = 0;
	ok(!fault_trigger_matches(&it, 0, &ev), "nor a worker's of that name");
}

static void running(void)
{
	struct fault_opts o = { .on = TRIGGER_DDL_RUNNING };
	struct suite_item it = { .kind = "kill", .opts = &o };
	struct history_event ev = rec(7, HISTORY_MONITOR, "info",
				      "ddl_running");
	char exchange[] = "exchange", truncate[] = "truncate",
	     drop_add[] = "drop_add";
	char *one[] = { exchange }, *two[] = { truncate, drop_add };

	ev.table = "test.table_10";
	ev.node = "down-0";
	ev.value = "{\"op\":\"exchange\",\"query\":\"ALTER TABLE t "
		   "EXCHANGE PARTITION p0 WITH TABLE u\"}";
	ok(fault_trigger_matches(&it, 0, &ev), "the DDL watch's record fires");
	o.on_ops = (struct optlist){ one, 1 };
	ok(fault_trigger_matches(&it, 0, &ev), "its op listed, it fires");
	o.on_ops = (struct optlist){ two, 2 };
	ok(!fault_trigger_matches(&it, 0, &ev), "not listed, it does not");
	ev.value = "{\"query\":\"x\",\"op\":\"drop_add\"}";
	ok(!fault_trigger_matches(&it, 0, &ev),
	   "nor a value without op first");
	ev.value = "{\"op\":\"drop_add\",\"query\":\"x\"}";
	ok(fault_trigger_matches(&it, 0, &ev), "the second of two listed");
	ev.f = "ddl_applied";
	ok(!fault_trigger_matches(&it, 0, &ev), "a ddl_applied record not");
	ev.f = "ddl_running";
	ev.process = 0;
	ok(!fault_trigger_matches(&it, 0, &ev), "nor a worker's of that name");
}

static void recorded(void)
{
	struct fault_opts o = { .on = TRIGGER_DDL, .after = 300000000 };
	struct suite_item it = { .kind = "kill", .opts = &o };
	struct history_event ev = rec(2120921361, 1, "ok", "truncate");
	struct fault_fired f;
	struct buf out = BUF_INIT;

	ev.ddl = 1;
	ev.table = "trig.p";
	fault_fired_from(&f, &ev);
	ev.table = "changed after";
	fault_fired_json(&out, &it, &f, 1580773);
	is_str(buf_str(&out), "{\"on\":\"ddl\",\"event\":{\"time\":2120921361,"
	       "\"process\":1,\"f\":\"truncate\",\"table\":\"trig.p\"},"
	       "\"after_ns\":300000000,\"late_ns\":1580773}",
	       "a DDL's: its time, worker, op and table, copied");
	buf_reset(&out);
	o.on = TRIGGER_HEAL;
	o.after = 0;
	ev = rec(3124322072, HISTORY_NEMESIS, "info", "restart");
	ev.target = "downstream";
	ev.has_fault = 1;
	ev.heal = 1;
	fault_fired_from(&f, &ev);
	fault_fired_json(&out, &it, &f, 0);
	is_str(buf_str(&out), "{\"on\":\"heal\",\"event\":{\"time\":3124322072,"
	       "\"process\":\"nemesis\",\"f\":\"restart\",\"target\":"
	       "\"downstream\",\"fault\":0},\"after_ns\":0,\"late_ns\":0}",
	       "a heal's: the nemesis, its target and item");
	buf_release(&out);
}

int main(void)
{
	ddl();
	heal();
	owner();
	applied();
	running();
	recorded();
	return done_testing();
}
