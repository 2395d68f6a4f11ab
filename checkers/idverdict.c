/*
 * The ids check's details and verdict from what its judge found
 * (checkers/idverdict.h).
 */
#include <stdio.h>
#include <string.h>

#include "checkers/idverdict.h"
#include "lib/intern.h"

static const char *who(const struct idjudging *j, const struct idop *op,
		       char *out, size_t size)
{
	if (op->node != INTERN_NONE)
		return j->nodes[op->node];
	snprintf(out, size, "process %d", (int)op->process);
	return out;
}

static int op_json(struct buf *d, const struct idjudging *j,
		   const struct idop *op, struct err *e)
{
	char inv[32], done[32];

	if (buf_printf(d, e, "{\"process\":%d,\"node\":", (int)op->process))
		return -1;
	if (op->node == INTERN_NONE ? buf_addstr(d, "null", e)
				: json_quote(d, j->nodes[op->node], e))
		return -1;
	return buf_printf(d, e, ",\"invoke\":%s,\"complete\":%s,\"id\":%lld,"
			  "\"line\":%u%s}",
			  ids_secs(inv, sizeof(inv), op->invoke),
			  ids_secs(done, sizeof(done), op->complete),
			  (long long)op->id, (unsigned)op->line,
			  op->refused ? ",\"refused\":true" : "");
}

/* The details' "excluded": the tables dropped after DDL, by name. */
static int excluded_json(const struct idjudging *j, struct buf *d,
			 struct err *e)
{
	char s1[32];

	if (buf_addstr(d, ",\"excluded\":[", e))
		return -1;
	for (size_t i = 0, n = 0; i < j->ntables; i++) {
		const struct idtable *m = &j->tmeta[j->order[i]];

		if (!m->excluded || !m->inserts)
			continue;
		if (buf_addstr(d, n++ ? ",{\"table\":" : "{\"table\":", e) ||
		    json_quote(d, j->tables[j->order[i]], e) ||
		    buf_printf(d, e, ",\"because\":\"%s\",\"type\":\"%s\","
			       "\"at\":%s,\"inserts\":%zu}", m->because,
			       m->how, ids_secs(s1, sizeof(s1), m->at),
			       m->inserts))
			return -1;
	}
	return buf_addch(d, ']', e);
}

/* The details' "first": each violation with the events between. */
static int violations_json(const struct idjudging *j, struct buf *d,
			   struct err *e)
{
	struct idevents_window w;
	struct buf line = BUF_INIT;
	int rc = buf_addstr(d, ",\"first\":[", e);

	for (size_t i = 0; !rc && i < j->npairs; i++) {
		const struct idop *a = &j->pairs[i].a, *b = &j->pairs[i].b;

		rc = buf_addstr(d, i ? ",{\"table\":" : "{\"table\":", e) ||
		     json_quote(d, j->tables[a->table], e) ||
		     buf_addstr(d, ",\"a\":", e) || op_json(d, j, a, e) ||
		     buf_addstr(d, ",\"b\":", e) || op_json(d, j, b, e) ||
		     buf_addstr(d, ",\"between\":[", e);
		if (rc)
			break;
		idevents_between(j->events, a->complete, b->invoke, &w);
		for (size_t k = 0; !rc && k < w.n; k++) {
			buf_reset(&line);
			idevent_line(&line, w.ev[k], w.lo,
				   w.hi);
			rc = (k && buf_addch(d, ',', e)) ||
			     json_quote(d, buf_str(&line), e);
		}
		if (!rc && w.all > w.n)
			rc = buf_printf(d, e, ",\"and %zu more\"",
					w.all - w.n);
		rc = rc || buf_addstr(d, "]}", e);
	}
	buf_release(&line);
	return rc || buf_addch(d, ']', e) ? -1 : 0;
}

/* The details' "duplicate_ids": each with its inserts. */
static int duplicates_json(const struct idjudging *j, struct buf *d,
			   struct err *e)
{
	if (buf_addstr(d, ",\"duplicate_ids\":[", e))
		return -1;
	for (size_t i = 0; i < j->ndups; i++) {
		const struct iddup *k = &j->dups[i];

		if (buf_addstr(d, i ? ",{\"table\":" : "{\"table\":", e) ||
		    json_quote(d, j->tables[k->table], e) ||
		    buf_printf(d, e, ",\"id\":%lld,\"count\":%zu,\"ops\":[",
			       (long long)k->id, k->count))
			return -1;
		for (size_t m = 0; m < k->nops; m++)
			if ((m && buf_addch(d, ',', e)) ||
			    op_json(d, j, &k->ops[m], e))
				return -1;
		if (buf_addstr(d, "]}", e))
			return -1;
	}
	return buf_addch(d, ']', e);
}

/* The first violation, with the events between its two inserts. */
static void say_violation(const struct idjudging *j, struct buf *msg)
{
	struct idevents_window w;
	const struct idop *a = &j->pairs[0].a, *b = &j->pairs[0].b;
	char s1[32], s2[32], w1[64], w2[64];
	size_t shown = 0;

	buf_printf(msg, NULL, "%s: id %lld (%s, invoked %ss%s) after id %lld "
		   "(%s, done %ss)", j->tables[a->table], (long long)b->id,
		   who(j, b, w1, sizeof(w1)),
		   ids_secs(s1, sizeof(s1), b->invoke),
		   b->refused ? ", refused by the primary key" : "",
		   (long long)a->id, who(j, a, w2, sizeof(w2)),
		   ids_secs(s2, sizeof(s2), a->complete));
	idevents_between(j->events, a->complete, b->invoke, &w);
	/* As many as fit in a message. */
	for (; shown < w.n && msg->len < 380; shown++) {
		buf_addstr(msg, shown ? ", " : "; between: ", NULL);
		idevent_line(msg, w.ev[shown], w.lo, w.hi);
	}
	if (!w.all)
		buf_addstr(msg, "; no fault or owner change between", NULL);
	else if (shown < w.all)
		buf_printf(msg, NULL, " and %zu more", w.all - shown);
}

/* The first duplicate id, with (up to three of) its inserts. */
static void say_duplicate(const struct idjudging *j, struct buf *msg)
{
	const struct iddup *k = &j->dups[0];
	char s1[32], w1[64];

	buf_printf(msg, NULL, "%s: id %lld returned ", j->tables[k->table],
		   (long long)k->id);
	if (k->count == 2)
		buf_addstr(msg, "twice: ", NULL);
	else
		buf_printf(msg, NULL, "%zu times: ", k->count);
	for (size_t m = 0; m < k->nops && m < 3; m++)
		buf_printf(msg, NULL, "%s%s (%s %ss)", m ? ", " : "",
			   who(j, &k->ops[m], w1, sizeof(w1)),
			   k->ops[m].refused ? "refused by the primary key"
					     : "done",
			   ids_secs(s1, sizeof(s1), k->ops[m].complete));
	if (k->count > 3)
		buf_printf(msg, NULL, " and %zu more", k->count - 3);
}

void idverdict(const struct idjudging *j, struct check_result *r)
{
	struct buf msg = BUF_INIT;
	char s1[32];

	if (!j->inserts) {
		check_verdict(r, VERDICT_SKIP, "no ok inserts with ids in the "
			      "history%s", j->scoped ? " on the checked tables"
			      : "");
	} else if (!j->nops) {
		const struct idtable *m;
		size_t i = 0;

		while (!j->tmeta[j->order[i]].excluded ||
		       !j->tmeta[j->order[i]].inserts)
			i++;
		m = &j->tmeta[j->order[i]];
		check_verdict(r, VERDICT_SKIP, "no table to check: %s excluded "
			      "after %s at %ss%s", j->tables[j->order[i]],
			      m->because, ids_secs(s1, sizeof(s1), m->at),
			      j->nexcluded > 1 ? " and more" : "");
	} else if (j->npairs) {
		say_violation(j, &msg);
		check_verdict(r, VERDICT_FAIL, "%s", buf_str(&msg));
	} else if (j->ndups) {
		say_duplicate(j, &msg);
		check_verdict(r, VERDICT_FAIL, "%s", buf_str(&msg));
	} else {
		check_verdict(r, VERDICT_PASS, "%zu table%s, %zu inserts: ids "
			      "%s%s%s", j->checked, j->checked == 1 ? "" : "s",
			      j->nops, j->unique ? "unique" : "",
			      j->unique && j->monotonic ? " and " : "",
			      j->monotonic ? "increasing" : "");
		if (j->refused) {
			size_t len = strlen(r->message);

			snprintf(r->message + len, sizeof(r->message) - len,
				 " (%zu of them refused by the primary key%s)",
				 j->refused, j->unique ? ", their ids in no "
				 "other insert" : "");
		}
		if (j->nexcluded) {
			size_t len = strlen(r->message);

			snprintf(r->message + len, sizeof(r->message) - len,
				 "; %zu table%s excluded after DDL",
				 j->nexcluded, j->nexcluded == 1 ? "" : "s");
		}
	}
	snprintf(r->numbers, sizeof(r->numbers),
		 "inserts=%zu violations=%zu duplicates=%zu refused=%zu",
		 j->nops, j->violations, j->duplicates, j->refused);
	buf_release(&msg);
}


int idverdict_details(const struct idjudging *j, size_t cut_line,
		      const char *reread, struct buf *d, struct err *e)
{
	return buf_printf(d, e, "\"tables\":%zu,\"inserts\":%zu,"
			  "\"refused\":%zu,\"violations\":%zu,"
			  "\"duplicates\":%zu", j->checked, j->nops,
			  j->refused, j->violations, j->duplicates) ||
	       excluded_json(j, d, e) || violations_json(j, d, e) ||
	       duplicates_json(j, d, e) ||
	       (cut_line && buf_printf(d, e, ",\"ignored_last_line\":%zu",
				       cut_line)) ||
	       (reread[0] && (buf_addstr(d, ",\"reread\":", e) ||
			      json_quote(d, reread, e))) ? -1 : 0;
}
