#ifndef TICHAOS_HTTP_H
#define TICHAOS_HTTP_H

/*
 * HTTP requests (libcurl) to status and API endpoints: etcd's JSON
 * gateway, TiDB status ports, the TiCDC Open API, PD.
 */

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

#endif
