#include "sql.h"

#include <mysql.h>
#include <mysqld_error.h>
#include <errmsg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sql_library_init(void)
{
	mysql_library_init(0, NULL, NULL);
}

void sql_library_end(void)
{
	mysql_library_end();
}

void sql_thread_init(void)
{
	mysql_thread_init();
}

void sql_thread_end(void)
{
	mysql_thread_end();
}

enum sql_class sql_classify(unsigned errnum)
{
	switch (errnum) {
	case 0:
		return SQL_OK;
	case ER_LOCK_DEADLOCK:
	case ER_LOCK_WAIT_TIMEOUT:
	case ER_TOO_MANY_USER_CONNECTIONS:
	case ER_CON_COUNT_ERROR:
	case CR_CONN_HOST_ERROR:
	case CR_CONNECTION_ERROR:
	case CR_UNKNOWN_HOST:
		return SQL_RETRYABLE;
	case CR_SERVER_GONE_ERROR:
	case CR_SERVER_LOST:
	case CR_SERVER_LOST_EXTENDED:
	case ER_QUERY_INTERRUPTED:
	case ER_SERVER_SHUTDOWN:
	case ER_NET_READ_INTERRUPTED:
	case ER_NET_WRITE_INTERRUPTED:
	case ER_NET_READ_ERROR:
	case ER_NET_ERROR_ON_WRITE:
		return SQL_AMBIGUOUS;
	default:
		return SQL_FATAL;
	}
}

/* The one place MySQL errors become tichaos errors. */
static int fail(struct sql *s, const char *what, struct err *e)
{
	MYSQL *my = s->my;

	s->last_errno = my ? mysql_errno(my) : CR_OUT_OF_MEMORY;
	s->last_class = sql_classify(s->last_errno);
	return err_set(e, ERR_INFRA, "%s on '%s': %s (%u)", what, s->addr,
		       my ? mysql_error(my) : "out of memory", s->last_errno);
}

int sql_connect(struct sql *s, const char *host, int port, const char *user,
		const char *password, const char *database, int timeout_s,
		struct err *e)
{
	return sql_connect_read(s, host, port, user, password, database,
				timeout_s, timeout_s, e);
}

int sql_connect_read(struct sql *s, const char *host, int port,
		     const char *user, const char *password,
		     const char *database, int timeout_s, int read_timeout_s,
		     struct err *e)
{
	unsigned timeout = timeout_s > 0 ? (unsigned)timeout_s : 10;
	unsigned reads = read_timeout_s > 0 ? (unsigned)read_timeout_s
					    : timeout;
	my_bool off = 0;
	MYSQL *my;

	snprintf(s->addr, sizeof(s->addr), "%s:%d", host, port);
	s->last_errno = 0;
	s->last_class = SQL_OK;
	my = mysql_init(NULL);
	if (!my) {
		s->my = NULL;
		return fail(s, "cannot connect", e);
	}
	s->my = my;
	mysql_options(my, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
	mysql_options(my, MYSQL_OPT_READ_TIMEOUT, &reads);
	mysql_options(my, MYSQL_OPT_WRITE_TIMEOUT, &timeout);
	mysql_options(my, MYSQL_OPT_RECONNECT, &off);
	mysql_options(my, MYSQL_SET_CHARSET_NAME, "utf8mb4");
	mysql_options(my, MYSQL_READ_DEFAULT_GROUP, "tichaos-no-such-group");
	if (!mysql_real_connect(my, host, user, password, database,
				(unsigned)port, NULL, 0)) {
		s->last_errno = mysql_errno(my);
		s->last_class = sql_classify(s->last_errno);
		err_set(e, ERR_INFRA, "cannot connect to '%s': %s (%u)",
			s->addr, mysql_error(my), s->last_errno);
		mysql_close(my);
		s->my = NULL;
		return -1;
	}
	return 0;
}

void sql_close(struct sql *s)
{
	if (s->my)
		mysql_close(s->my);
	s->my = NULL;
}

static int run(struct sql *s, const char *query, struct err *e)
{
	if (!s->my)
		return err_set(e, ERR_INFRA, "not connected to '%s'", s->addr);
	if (mysql_real_query(s->my, query, strlen(query)))
		return fail(s, "query failed", e);
	s->last_errno = 0;
	s->last_class = SQL_OK;
	return 0;
}

int sql_exec(struct sql *s, const char *query, struct err *e)
{
	MYSQL_RES *res;

	if (run(s, query, e))
		return -1;
	do {
		res = mysql_store_result(s->my);
		if (res)
			mysql_free_result(res);
		else if (mysql_field_count(s->my))
			return fail(s, "query failed", e);
	} while (mysql_next_result(s->my) == 0);
	if (mysql_errno(s->my))
		return fail(s, "query failed", e);
	return 0;
}

int sql_query(struct sql *s, const char *query, struct sql_result *r,
	      struct err *e)
{
	MYSQL_FIELD *fields;
	MYSQL_RES *res;
	MYSQL_ROW row;
	size_t i = 0;

	memset(r, 0, sizeof(*r));
	if (run(s, query, e))
		return -1;
	res = mysql_store_result(s->my);
	if (!res) {
		if (mysql_field_count(s->my))
			return fail(s, "query failed", e);
		return 0;
	}
	r->ncols = mysql_num_fields(res);
	r->nrows = (size_t)mysql_num_rows(res);
	r->names = xcalloc(r->ncols ? r->ncols : 1, sizeof(char *));
	r->cells = xcalloc(r->nrows * r->ncols + 1, sizeof(char *));
	fields = mysql_fetch_fields(res);
	for (size_t c = 0; c < r->ncols; c++)
		r->names[c] = xstrdup(fields[c].name);
	while ((row = mysql_fetch_row(res))) {
		unsigned long *lengths = mysql_fetch_lengths(res);

		for (size_t c = 0; c < r->ncols; c++, i++) {
			if (!row[c])
				continue;
			r->cells[i] = xstrndup(row[c], lengths[c]);
		}
	}
	mysql_free_result(res);
	return 0;
}

int sql_value(struct sql *s, const char *query, struct buf *out,
	      struct err *e)
{
	struct sql_result r = SQL_RESULT_INIT;
	int rc = 1;

	buf_reset(out);
	if (sql_query(s, query, &r, e))
		return -1;
	if (r.nrows && r.ncols && r.cells[0])
		rc = buf_addstr(out, r.cells[0], e);
	sql_result_release(&r);
	return rc;
}

const char *sql_cell(const struct sql_result *r, size_t row, const char *name)
{
	if (row >= r->nrows)
		return NULL;
	for (size_t c = 0; c < r->ncols; c++)
		if (!strcmp(r->names[c], name))
			return r->cells[row * r->ncols + c];
	return NULL;
}

void sql_result_release(struct sql_result *r)
{
	if (r->names)
		for (size_t c = 0; c < r->ncols; c++)
			free(r->names[c]);
	if (r->cells)
		for (size_t i = 0; i < r->nrows * r->ncols; i++)
			free(r->cells[i]);
	free(r->names);
	free(r->cells);
	memset(r, 0, sizeof(*r));
}

uint64_t sql_insert_id(const struct sql *s)
{
	return s->my ? (uint64_t)mysql_insert_id(s->my) : 0;
}

int sql_quote_ident(struct buf *out, const char *name, struct err *e)
{
	if (buf_addch(out, '`', e))
		return -1;
	for (;;) {
		/* Up to the next backtick, which is doubled. */
		size_t n = strcspn(name, "`");

		if (buf_add(out, name, n, e))
			return -1;
		if (!name[n])
			break;
		if (buf_addstr(out, "``", e))
			return -1;
		name += n + 1;
	}
	return buf_addch(out, '`', e);
}

int sql_quote_string(struct buf *out, const char *s, struct err *e)
{
	if (buf_addch(out, '\'', e))
		return -1;
	for (; *s; s++) {
		const char *esc = NULL;

		switch (*s) {
		case '\'':
			esc = "\\'";
			break;
		case '\\':
			esc = "\\\\";
			break;
		case '\n':
			esc = "\\n";
			break;
		case '\r':
			esc = "\\r";
			break;
		case '\032':
			esc = "\\Z";
			break;
		}
		if (esc ? buf_addstr(out, esc, e) : buf_addch(out, *s, e))
			return -1;
	}
	return buf_addch(out, '\'', e);
}

const char *sql_server_version(const struct sql *s)
{
	const char *v = s->my ? mysql_get_server_info(s->my) : NULL;

	return v ? v : "";
}
