#ifndef TICHAOS_HTTP_H
#define TICHAOS_HTTP_H

/*
 * HTTP requests (libcurl) to status and API endpoints: etcd's JSON
 * gateway, TiDB status ports, the TiCDC Open API, PD.
 */

#include <jansson.h>
#include <stdint.h>

#include "buf.h"
#include "err.h"

/* Once per process, before any thread makes a request. */
void http_library_init(void);
void http_library_end(void);

/*
 * `method` ("GET", "POST", ...) on `url`, with `body` (NULL for none) sent
 * as application/json. The response body is appended to `out` (may be
 * NULL) and the HTTP status stored in *status. Any status is a success
 * here; failing to get one (refused, timed out) is ERR_INFRA:
 * "cannot GET 'http://127.0.0.1:2379/health': Couldn't connect to server".
 */
int http_request(const char *method, const char *url, const char *body,
		 struct buf *out, long *status, int64_t timeout_ns,
		 struct err *e);

/* What a request carries besides its body: borrowed strings. */
struct http_opts {
	/* HTTP basic authentication (RFC 7617), sent at once as an
	 * "Authorization: Basic" header, not in the URL, so that no
	 * message holds the password. NULL: none. */
	const char *user;	/* no ':' in it (the scheme cannot say one) */
	const char *password;	/* NULL: empty */
	/* One more header, "Name: value" (PD's "PD-Allow-follower-handle:
	 * true"). NULL: none. */
	const char *header;
};

/* http_request() with `opts` (NULL: none). */
int http_request_opts(const char *method, const char *url,
		      const struct http_opts *opts, const char *body,
		      struct buf *out, long *status, int64_t timeout_ns,
		      struct err *e);

/* What http_field() accepts at a path. */
enum http_want {
	WANT_STRING,
	WANT_INTEGER,		/* an integer >= 0 */
	WANT_BOOL,
	WANT_OBJECT,
	WANT_ARRAY,
};

/* Or'ed into the want: an absent or null member is no error. */
#define WANT_OPTIONAL 0x100

/*
 * The member at `path` of an API answer `root`: object keys separated by
 * dots ("error.message"), checked to be what `want` says. 0 with *out
 * borrowed from `root` (NULL for an absent optional member); otherwise -1
 * with `e` (ERR_INFRA) led by `where`, the request ("GET 'URL'"):
 * "GET 'URL': no 'state' in the answer", "...: 'checkpoint_ts' is not an
 * integer >= 0".
 */
int http_field(json_t *root, const char *path, unsigned want,
	       const char *where, json_t **out, struct err *e);

#endif
