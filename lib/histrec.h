#ifndef TICHAOS_HISTREC_H
#define TICHAOS_HISTREC_H

/*
 * One line of history.jsonl read into a record, for the history's reader
 * (lib/histread.c) alone: internal to the history modules. A reader of a
 * history calls history_read (lib/history.h).
 *
 * Reading history.jsonl back (history_read): every line is checked as
 * JSON whole, with a message naming the column of what is wrong; the
 * strings of the record are decoded in place. A line exactly as
 * history_format writes it is read straight through; any other, with
 * its keys in another order, spaces or escapes, is read the general way
 * (lib/jsonscan.h) into the same record.
 */

#include <stddef.h>
#include <stdint.h>

#include "history.h"

enum proc_kind { PROC_NONE, PROC_WORKER, PROC_NEMESIS, PROC_MONITOR };

/* A record as read; its strings point into the line, NULL when absent. */
struct histrec {
	int has_time, has_id, has_fault, ddl, heal;
	int64_t time, id, fault;
	enum proc_kind proc;
	int64_t process;
	char *type, *f, *table, *node, *target, *error, *holds;
	const char *value;	/* its JSON text, not terminated */
	size_t value_len;
};

/*
 * Parse one line (without its newline) into `r`; strings point into
 * `line`, which is modified. On error the message goes into `msg`
 * (msgsize bytes): "not JSON: expected ',' or '}'" with the column of
 * what is wrong, from 1, in *col; or a record's fault, *col 0: "empty
 * line", "\"id\" is not an integer", "\"ddl\" is not true or false",
 * "no \"type\"", "unknown type 'x'". 0, or -1 on error.
 */
int histrec_parse(char *line, size_t len, struct histrec *r, char *msg,
		  size_t msgsize, size_t *col);

/* The record of a parsed line as readers see it. */
static inline void histrec_to_line(const struct histrec *r, size_t number,
				   struct history_line *l)
{
	l->line = number;
	l->time = r->time;
	l->process = r->proc == PROC_NEMESIS ? HISTORY_NEMESIS
		     : r->proc == PROC_MONITOR ? HISTORY_MONITOR
		     : (int)r->process;
	l->type = r->type;
	l->f = r->f;
	l->table = r->table;
	l->node = r->node;
	l->target = r->target;
	l->error = r->error;
	l->has_id = r->has_id;
	l->id = r->has_id ? r->id : -1;
	l->ddl = r->ddl;
	l->holds = r->holds;
	l->heal = r->heal;
	l->fault = r->has_fault ? (int)r->fault : -1;
	l->value = r->value;
	l->value_len = r->value_len;
}

#endif
