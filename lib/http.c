#include "http.h"

#include <curl/curl.h>
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
	if (body) {
		headers = curl_slist_append(headers,
					    "Content-Type: application/json");
		curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
		curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
	}
	rc = curl_easy_perform(curl);
	if (rc == CURLE_OK)
		curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
	curl_slist_free_all(headers);
	curl_easy_cleanup(curl);
	if (rc == CURLE_WRITE_ERROR && err_isset(&sink.overflow))
		return err_set(e, ERR_INFRA, "response of %s '%s': %s",
			       method, url, sink.overflow.msg);
	if (rc != CURLE_OK)
		return err_set(e, ERR_INFRA, "cannot %s '%s': %s", method, url,
			       curl_easy_strerror(rc));
	return 0;
}
