#ifndef TICHAOS_SQL_H
#define TICHAOS_SQL_H

/*
 * SQL connections (libmysqlclient / MariaDB Connector/C) with errors
 * translated in one place and classed the way workloads need them
 * (sysbench's db_error_t): a lost connection during a fault is expected,
 * not fatal.
 */

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "err.h"

enum sql_class {
	SQL_OK,
	SQL_RETRYABLE,	/* certainly did not happen: deadlock, lock wait */
	SQL_AMBIGUOUS,	/* may have happened: connection lost, timeout */
	SQL_FATAL,	/* certainly did not happen and will not: syntax,
			 * duplicate key, unknown table */
};

struct sql {
	void *my;		/* MYSQL *, opaque to callers */
	char addr[128];		/* "host:port", for messages */
	unsigned last_errno;	/* of the last failed call, else 0 */
	enum sql_class last_class;
};

#define SQL_INIT { NULL, "", 0, SQL_OK }

struct sql_result {
	size_t nrows;
	size_t ncols;
	char **names;		/* ncols column names */
	char **cells;		/* nrows * ncols, row-major; NULL for NULL */
};

#define SQL_RESULT_INIT { 0, 0, NULL, NULL }

/* Once per process, before any thread uses SQL. */
void sql_library_init(void);
void sql_library_end(void);

/* In every thread that uses SQL: first thing, and last thing. */
void sql_thread_init(void);
void sql_thread_end(void);

/*
 * Connect over TCP. `password` and `database` may be NULL. Connect, read
 * and write time out after `timeout_s` seconds. Fails with ERR_INFRA:
 * "cannot connect to '127.0.0.1:24000': Can't connect to ... (2002)".
 */
int sql_connect(struct sql *s, const char *host, int port, const char *user,
		const char *password, const char *database, int timeout_s,
		struct err *e);

/* sql_connect, each read allowed `read_timeout_s` seconds instead (a
 * scan of a large table answers once it has read it all). */
int sql_connect_read(struct sql *s, const char *host, int port,
		     const char *user, const char *password,
		     const char *database, int timeout_s, int read_timeout_s,
		     struct err *e);

/* Close the connection (safe on a closed one). */
void sql_close(struct sql *s);

/*
 * The server's version as its handshake gave it ("10.11.19-MariaDB-0+
 * deb12u1", "8.0.11-TiDB-v7.5.0"): no query asked. "" when not
 * connected.
 */
const char *sql_server_version(const struct sql *s);

/* Run a statement, discarding any result. */
int sql_exec(struct sql *s, const char *query, struct err *e);

/* Run a query and keep all of its result (caller releases). */
int sql_query(struct sql *s, const char *query, struct sql_result *r,
	      struct err *e);

/*
 * The first column of the first row into `out` (replacing it). Returns 1
 * when the query gave no row or NULL, 0 when a value was read.
 */
int sql_value(struct sql *s, const char *query, struct buf *out,
	      struct err *e);

/* The cell of `row` in the column named `name`, or NULL (also for NULL). */
const char *sql_cell(const struct sql_result *r, size_t row,
		     const char *name);

void sql_result_release(struct sql_result *r);

/* The AUTO_INCREMENT id of the last INSERT on this connection. */
uint64_t sql_insert_id(const struct sql *s);

/*
 * Append `name` as a quoted identifier: `name`, backticks doubled.
 * Identifiers from suites are validated too (docs/internals.md, Rules); this
 * makes the generated SQL safe whatever it is given.
 */
int sql_quote_ident(struct buf *out, const char *name, struct err *e);

/* Append `s` as a quoted string literal, escaped for MySQL and TiDB. */
int sql_quote_string(struct buf *out, const char *s, struct err *e);

/* The class of a server or client error number. */
enum sql_class sql_classify(unsigned errnum);

#endif
