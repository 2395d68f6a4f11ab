#include "http.h"

#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"

void http_library_init(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

void http_library_end(void)
{
	curl_global_cleanup();
}

struct sink {
	struct buf *out;
	struct err overflow;
};

static size_t collect(char *data, size_t size, size_t n, void *arg)
{
	struct sink *s = arg;

	if (s->out && buf_add(s->out, data, size * n, &s->overflow))
		return 0;
	return size * n;
}

int http_request(const char *method, const char *url, const char *body,
		 struct buf *out, long *status, int64_t timeout_ns,
		 struct err *e)
{
	return http_request_opts(method, url, NULL, body, out, status,
				 timeout_ns, e);
}

int http_request_opts(const char *method, const char *url,
		      const struct http_opts *opts, const char *body,
		      struct buf *out, long *status, int64_t timeout_ns,
		      struct err *e)
{
	struct sink sink = { out, ERR_INIT };
	struct curl_slist *headers = NULL;
	CURLcode rc;
	CURL *curl;
	long ms = timeout_ns > 0 ? (long)(timeout_ns / NS_PER_MS) : 10000;

	*status = 0;
	curl = curl_easy_init();
	if (!curl)
		return err_set(e, ERR_INFRA, "cannot initialise libcurl");
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, ms);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, ms);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
	if (opts && opts->user) {
		/* Basic alone: sent with the first request, unasked. */
		curl_easy_setopt(curl, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
		curl_easy_setopt(curl, CURLOPT_USERNAME, opts->user);
		curl_easy_setopt(curl, CURLOPT_PASSWORD,
				 opts->password ? opts->password : "");
	}
	if (opts && opts->header)
		headers = curl_slist_append(headers, opts->header);
	if (body) {
		headers = curl_slist_append(headers,
					    "Content-Type: application/json");
		curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
	}
	if (headers)
		curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
	rc = curl_easy_perform(curl);
	if (rc == CURLE_OK)
		curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
	curl_slist_free_all(headers);
	curl_easy_cleanup(curl);
	if (rc == CURLE_WRITE_ERROR && err_isset(&sink.overflow))
		return err_set(e, ERR_INFRA, "response of %s '%s': %s",
			       method, url, sink.overflow.msg);
	/* A timeout says its deadline. */
	if (rc == CURLE_OPERATION_TIMEDOUT)
		return err_set(e, ERR_INFRA, "cannot %s '%s': no whole answer "
			       "within %ld ms (%s)", method, url, ms,
			       curl_easy_strerror(rc));
	if (rc != CURLE_OK)
		return err_set(e, ERR_INFRA, "cannot %s '%s': %s", method, url,
			       curl_easy_strerror(rc));
	return 0;
}

static int is_wanted(json_t *v, enum http_want want)
{
	switch (want) {
	case WANT_STRING:
		return json_is_string(v);
	case WANT_INTEGER:
		return json_is_integer(v) && json_integer_value(v) >= 0;
	case WANT_BOOL:
		return json_is_boolean(v);
	case WANT_OBJECT:
		return json_is_object(v);
	case WANT_ARRAY:
		return json_is_array(v);
	}
	return 0;
}

static const char *want_name(enum http_want want)
{
	static const char *const names[] = {
		"a string", "an integer >= 0", "true or false", "an object",
		"an array",
	};

	return names[want];
}

int http_field(json_t *root, const char *path, unsigned want,
	       const char *where, json_t **out, struct err *e)
{
	enum http_want type = (enum http_want)(want & ~WANT_OPTIONAL);
	const char *key = path, *dot;
	json_t *v = root;

	*out = NULL;
	do {
		char name[256];

		dot = strchr(key, '.');
		snprintf(name, sizeof(name), "%.*s",
			 dot ? (int)(dot - key) : (int)strlen(key), key);
		v = json_is_object(v) ? json_object_get(v, name) : NULL;
		key = dot + 1;
	} while (v && dot);
	if (!v || json_is_null(v)) {
		if (want & WANT_OPTIONAL)
			return 0;
		return err_set(e, ERR_INFRA, "%s: no '%s' in the answer", where,
			       path);
	}
	if (!is_wanted(v, type))
		return err_set(e, ERR_INFRA, "%s: '%s' is not %s", where, path,
			       want_name(type));
	*out = v;
	return 0;
}
