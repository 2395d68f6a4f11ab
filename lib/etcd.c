#include "etcd.h"

#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cancel.h"
#include "clock.h"
#include "http.h"

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *base64_encode(const char *s, size_t len)
{
	char *out = xmalloc((len + 2) / 3 * 4 + 1), *p = out;
	const unsigned char *in = (const unsigned char *)s;

	for (size_t i = 0; i < len; i += 3) {
		unsigned v = (unsigned)in[i] << 16;

		if (i + 1 < len)
			v |= (unsigned)in[i + 1] << 8;
		if (i + 2 < len)
			v |= in[i + 2];
		*p++ = b64[v >> 18 & 63];
		*p++ = b64[v >> 12 & 63];
		*p++ = i + 1 < len ? b64[v >> 6 & 63] : '=';
		*p++ = i + 2 < len ? b64[v & 63] : '=';
	}
	*p = '\0';
	return out;
}

/* Decode base64 (NUL-terminated result); NULL when malformed. */
static char *base64_decode(const char *s)
{
	size_t len = strlen(s), n = 0;
	char *out = xmalloc(len / 4 * 3 + 1);
	unsigned v = 0;
	int bits = 0;

	for (const char *p = s; *p && *p != '='; p++) {
		const char *at = strchr(b64, *p);

		if (!at || !*p) {
			free(out);
			return NULL;
		}
		v = v << 6 | (unsigned)(at - b64);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (char)(v >> bits & 0xff);
		}
	}
	out[n] = '\0';
	return out;
}

/*
 * POST `text` to URL/v3/<path> of one endpoint; the parsed JSON answer
 * into *answer. *pass says whether a failure is the member's alone (not
 * reached, or 503), so that the next endpoint may answer.
 */
static int call_one(const char *url, const char *path, const char *text,
		    int64_t timeout, json_t **answer, int *pass, struct err *e)
{
	char target[512];
	struct buf out = BUF_INIT;
	json_error_t jerr;
	long status;
	int rc;

	snprintf(target, sizeof(target), "%s/v3/%s", url, path);
	rc = http_request("POST", target, text, &out, &status, timeout, e);
	*pass = rc || status == 503;
	if (!rc && status != 200) {
		json_t *j = json_loads(buf_str(&out), 0, NULL);
		const char *msg = j ? json_string_value(json_object_get(j,
						"error")) : NULL;

		if (!msg && j)
			msg = json_string_value(json_object_get(j, "message"));
		rc = err_set(e, ERR_INFRA, "etcd '%s': %s: HTTP %ld%s%s", url,
			     path, status, msg ? ": " : "", msg ? msg : "");
		json_decref(j);
	} else if (!rc) {
		*answer = json_loads(buf_str(&out), 0, &jerr);
		if (!*answer)
			rc = err_set(e, ERR_INFRA, "etcd '%s': %s: bad JSON: "
				     "%s", url, path, jerr.text);
	}
	buf_release(&out);
	return rc;
}

/*
 * The endpoint of each list that answered last, by the list's hash,
 * direct-mapped: the next request starts there, so a member killed or cut
 * off costs its timeout once, not on every request.
 */
#define PREFS 16
static pthread_mutex_t prefs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	uint64_t hash;
	size_t at;
} prefs[PREFS];

static uint64_t list_hash(const char *urls)
{
	uint64_t h = 14695981039346656037ULL;	/* FNV-1a */

	for (const unsigned char *p = (const unsigned char *)urls; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return h;
}

/* The endpoint of `urls` a request starts at. */
static size_t preferred(const char *urls)
{
	uint64_t h = list_hash(urls);
	size_t start = 0;

	pthread_mutex_lock(&prefs_lock);
	if (prefs[h % PREFS].hash == h)
		start = prefs[h % PREFS].at;
	pthread_mutex_unlock(&prefs_lock);
	return start;
}

/* Endpoint `at` of `urls` answered: requests start there from now on. */
static void prefer(const char *urls, size_t at)
{
	uint64_t h = list_hash(urls);

	pthread_mutex_lock(&prefs_lock);
	prefs[h % PREFS].hash = h;
	prefs[h % PREFS].at = at;
	pthread_mutex_unlock(&prefs_lock);
}

/* The endpoints of a comma-separated list, *n of them; free with
 * endpoints_free. */
static char **endpoints(const char *urls, size_t *n)
{
	char **out = NULL;

	*n = 0;
	for (const char *at = urls; *at; ) {
		size_t len = strcspn(at, ",");

		out = xrealloc(out, (*n + 1) * sizeof(*out));
		out[(*n)++] = xstrndup(at, len);
		at += len + (at[len] == ',');
	}
	return out;
}

static void endpoints_free(char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

/* The error of a request none of `tried` endpoints of `urls` answered. */
static int no_answer(const char *urls, size_t tried, const struct err *last,
		     struct err *e)
{
	if (tried == 1)
		return err_set(e, last->class, "%s", last->msg);
	return err_set(e, last->class, "etcd '%s': no endpoint answered; "
		       "the last: %s", urls, last->msg);
}

/*
 * POST `body` to the first endpoint of `urls` that answers (etcd.h), each
 * given `timeout`.
 */
static int call_within(const char *urls, const char *path, json_t *body,
		       int64_t timeout, json_t **answer, struct err *e)
{
	char *text = json_dumps(body, JSON_COMPACT);
	struct err last = ERR_INIT;
	size_t n, tried = 0, start = preferred(urls), at = start;
	char **list = endpoints(urls, &n);
	int rc = -1, pass = 1;

	*answer = NULL;
	json_decref(body);
	for (; text && rc && pass && tried < n; tried++) {
		at = (start + tried) % n;
		err_clear(&last);
		rc = call_one(list[at], path, text, timeout, answer, &pass,
			      &last);
	}
	endpoints_free(list, n);
	if (!text)
		rc = err_set(e, ERR_INFRA, "out of memory");
	else if (!n)
		rc = err_set(e, ERR_INFRA, "etcd: no endpoint to ask");
	else if (rc && pass)
		no_answer(urls, tried, &last, e);
	else if (rc)
		err_set(e, last.class, "%s", last.msg);
	else if (at != start)
		prefer(urls, at);
	free(text);
	return rc ? -1 : 0;
}

/* call_within with 5 s an endpoint, what etcdctl gives a command. */
static int call(const char *urls, const char *path, json_t *body,
		json_t **answer, struct err *e)
{
	return call_within(urls, path, body, 5 * NS_PER_SEC, answer, e);
}

/* etcd's gateway writes int64 as strings. */
static int64_t int_of(json_t *v)
{
	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_string(v))
		return strtoll(json_string_value(v), NULL, 10);
	return 0;
}

static int by_create(const void *a, const void *b)
{
	const struct etcd_kv *x = a, *y = b;

	return x->create_revision < y->create_revision ? -1
	       : x->create_revision > y->create_revision;
}

int etcd_election(const char *url, const char *prefix, struct etcd_kvs *out,
		  struct err *e)
{
	size_t len = strlen(prefix);
	char *start = xmalloc(len + 2), *end = xmalloc(len + 2);
	char *k64, *e64;
	json_t *answer, *kvs;
	int rc;

	memset(out, 0, sizeof(*out));
	/* "<prefix>/" up to "<prefix>0": the candidates' keys only. */
	snprintf(start, len + 2, "%s/", prefix);
	snprintf(end, len + 2, "%s0", prefix);
	k64 = base64_encode(start, len + 1);
	e64 = base64_encode(end, len + 1);
	rc = call(url, "kv/range", json_pack("{s:s, s:s}", "key", k64,
					     "range_end", e64), &answer, e);
	free(start);
	free(end);
	free(k64);
	free(e64);
	if (rc)
		return -1;
	out->revision = int_of(json_object_get(json_object_get(answer,
							       "header"),
					       "revision"));
	kvs = json_object_get(answer, "kvs");
	if (json_is_array(kvs) && json_array_size(kvs)) {
		out->kvs = xcalloc(json_array_size(kvs), sizeof(*out->kvs));
		for (size_t i = 0; i < json_array_size(kvs); i++) {
			json_t *kv = json_array_get(kvs, i);
			const char *k = json_string_value(json_object_get(kv,
								      "key"));
			const char *v = json_string_value(json_object_get(kv,
								      "value"));
			struct etcd_kv *dst = &out->kvs[out->n];

			dst->key = k ? base64_decode(k) : NULL;
			dst->value = base64_decode(v ? v : "");
			if (!dst->key || !dst->value) {
				free(dst->key);
				free(dst->value);
				continue;
			}
			dst->create_revision = int_of(json_object_get(kv,
						"create_revision"));
			dst->mod_revision = int_of(json_object_get(kv,
						"mod_revision"));
			dst->lease = int_of(json_object_get(kv, "lease"));
			out->n++;
		}
		qsort(out->kvs, out->n, sizeof(*out->kvs), by_create);
	}
	json_decref(answer);
	return 0;
}

const struct etcd_kv *etcd_owner(const struct etcd_kvs *kvs)
{
	return kvs->n ? &kvs->kvs[0] : NULL;
}

void etcd_kvs_release(struct etcd_kvs *kvs)
{
	for (size_t i = 0; i < kvs->n; i++) {
		free(kvs->kvs[i].key);
		free(kvs->kvs[i].value);
	}
	free(kvs->kvs);
	memset(kvs, 0, sizeof(*kvs));
}

int etcd_put(const char *url, const char *key, const char *value,
	     int64_t lease, struct err *e)
{
	char *k64 = base64_encode(key, strlen(key));
	char *v64 = base64_encode(value, strlen(value));
	char id[32];
	json_t *body, *answer = NULL;
	int rc;

	snprintf(id, sizeof(id), "%lld", (long long)lease);
	body = json_pack("{s:s, s:s}", "key", k64, "value", v64);
	if (lease)
		json_object_set_new(body, "lease", json_string(id));
	rc = call(url, "kv/put", body, &answer, e);
	json_decref(answer);
	free(k64);
	free(v64);
	return rc;
}

int etcd_delete(const char *url, const char *key, int64_t *deleted,
		struct err *e)
{
	char *k64 = base64_encode(key, strlen(key));
	json_t *answer = NULL;
	int rc = call(url, "kv/deleterange", json_pack("{s:s}", "key", k64),
		      &answer, e);

	if (!rc && deleted)
		*deleted = int_of(json_object_get(answer, "deleted"));
	json_decref(answer);
	free(k64);
	return rc;
}

int etcd_lease_grant(const char *url, int64_t ttl_s, int64_t *id,
		     struct err *e)
{
	json_t *answer = NULL;
	int rc = call(url, "lease/grant", json_pack("{s:I}", "TTL",
						   (json_int_t)ttl_s),
		      &answer, e);

	if (!rc) {
		*id = int_of(json_object_get(answer, "ID"));
		if (!*id)
			rc = err_set(e, ERR_INFRA, "etcd '%s': lease/grant "
				     "gave no ID", url);
	}
	json_decref(answer);
	return rc;
}

static int lease_call(const char *url, const char *path, int64_t id,
		      struct err *e)
{
	char text[32];
	json_t *answer = NULL;
	int rc;

	snprintf(text, sizeof(text), "%lld", (long long)id);
	rc = call(url, path, json_pack("{s:s}", "ID", text), &answer, e);
	json_decref(answer);
	return rc;
}

int etcd_lease_keepalive(const char *url, int64_t id, struct err *e)
{
	return lease_call(url, "lease/keepalive", id, e);
}

int etcd_lease_revoke(const char *url, int64_t id, struct err *e)
{
	return lease_call(url, "lease/revoke", id, e);
}

struct watch {
	struct buf pending;	/* bytes of an unfinished line */
	etcd_watch_fn fn;
	void *arg;
	const struct cancel *stop;
	int failed;
	int streamed;		/* the member sent something */
};

/* One line of the watch stream: {"result":{"events":[...]}}. */
static void watch_line(struct watch *w, const char *line)
{
	json_t *doc = json_loads(line, 0, NULL);
	json_t *result = json_object_get(doc, "result");
	json_t *events = json_object_get(result, "events");

	if (!doc || json_object_get(doc, "error") ||
	    json_is_true(json_object_get(result, "canceled")))
		w->failed = 1;
	for (size_t i = 0; i < json_array_size(events); i++) {
		json_t *ev = json_array_get(events, i);
		json_t *kv = json_object_get(ev, "kv");
		const char *type = json_string_value(json_object_get(ev,
								     "type"));
		const char *k = json_string_value(json_object_get(kv, "key"));
		const char *v = json_string_value(json_object_get(kv, "value"));
		struct etcd_event out = { 0 };
		char *key = k ? base64_decode(k) : NULL;
		char *value = base64_decode(v ? v : "");

		if (key && value) {
			out.deleted = type && !strcmp(type, "DELETE");
			out.key = key;
			out.value = value;
			out.create_revision = int_of(json_object_get(kv,
						"create_revision"));
			out.mod_revision = int_of(json_object_get(kv,
						"mod_revision"));
			w->fn(w->arg, &out);
		}
		free(key);
		free(value);
	}
	json_decref(doc);
}

static size_t watch_data(char *data, size_t size, size_t n, void *arg)
{
	struct watch *w = arg;
	char *nl;

	w->streamed = 1;
	if (buf_add(&w->pending, data, size * n, NULL))
		return 0;
	while ((nl = memchr(w->pending.data, '\n', w->pending.len))) {
		size_t len = (size_t)(nl - w->pending.data) + 1;

		*nl = '\0';
		watch_line(w, w->pending.data);
		memmove(w->pending.data, w->pending.data + len,
			w->pending.len - len);
		buf_truncate(&w->pending, w->pending.len - len);
	}
	return w->failed ? 0 : size * n;
}

static int watch_progress(void *arg, curl_off_t a, curl_off_t b,
			  curl_off_t c, curl_off_t d)
{
	struct watch *w = arg;

	(void)a;
	(void)b;
	(void)c;
	(void)d;
	return cancelled(w->stop, CANCEL_STOP);
}

/* The body of a watch of "<prefix>/" from `start_revision` (0: now). */
static char *watch_body(const char *prefix, int64_t start_revision)
{
	size_t len = strlen(prefix);
	char *start = xmalloc(len + 2), *end = xmalloc(len + 2), *body;
	char *k64, *e64;
	json_t *req;

	snprintf(start, len + 2, "%s/", prefix);
	snprintf(end, len + 2, "%s0", prefix);
	k64 = base64_encode(start, len + 1);
	e64 = base64_encode(end, len + 1);
	req = json_pack("{s:{s:s, s:s}}", "create_request", "key", k64,
			"range_end", e64);
	if (start_revision > 0)
		json_object_set_new(json_object_get(req, "create_request"),
				    "start_revision",
				    json_integer(start_revision));
	body = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	free(start);
	free(end);
	free(k64);
	free(e64);
	return body;
}

/* Stream a watch from one endpoint until it ends; libcurl's code. */
static CURLcode watch_one(const char *url, const char *body, struct watch *w)
{
	char target[512];
	CURLcode rc;
	CURL *curl = curl_easy_init();

	if (!curl)
		return CURLE_FAILED_INIT;
	snprintf(target, sizeof(target), "%s/v3/watch", url);
	curl_easy_setopt(curl, CURLOPT_URL, target);
	curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 2000L);
	curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, watch_data);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, w);
	curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, watch_progress);
	curl_easy_setopt(curl, CURLOPT_XFERINFODATA, w);
	rc = curl_easy_perform(curl);
	curl_easy_cleanup(curl);
	return rc;
}

int etcd_watch(const char *url, const char *prefix, int64_t start_revision,
	       etcd_watch_fn fn, void *arg, const struct cancel *stop,
	       struct err *e)
{
	struct watch w = { BUF_INIT, fn, arg, stop, 0, 0 };
	struct err last = ERR_INIT;
	char *body = watch_body(prefix, start_revision);
	size_t n, tried = 0, start = preferred(url), at = start;
	char **list = endpoints(url, &n);
	CURLcode rc;

	for (; body && !w.streamed && !cancelled(stop, CANCEL_STOP) &&
	       tried < n; tried++) {
		at = (start + tried) % n;
		buf_reset(&w.pending);
		rc = watch_one(list[at], body, &w);
		err_set(&last, ERR_INFRA, "etcd '%s': watch of '%s' ended: %s",
			list[at], prefix, w.failed ? "canceled by etcd"
			: rc == CURLE_FAILED_INIT ? "cannot initialise libcurl"
			: curl_easy_strerror(rc));
	}
	endpoints_free(list, n);
	if (w.streamed && at != start)
		prefer(url, at);
	buf_release(&w.pending);
	if (!body)
		return err_set(e, ERR_INFRA, "out of memory");
	free(body);
	if (cancelled(stop, CANCEL_STOP))
		return 0;
	if (!n)
		return err_set(e, ERR_INFRA, "etcd: no endpoint to ask");
	if (!w.streamed)
		return no_answer(url, tried, &last, e);
	err_set(e, last.class, "%s", last.msg);
	return w.failed ? ETCD_WATCH_CANCELED : -1;
}

/* A uint64 of the gateway (a string, or a number) into `out`. */
static void id_of(json_t *v, char *out, size_t size)
{
	if (json_is_string(v))
		snprintf(out, size, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(out, size, "%lld", (long long)json_integer_value(v));
	else
		snprintf(out, size, "%s", "");
}

int etcd_members(const char *url, struct etcd_member *out, size_t max,
		 size_t *n, struct err *e)
{
	json_t *answer = NULL, *m;
	size_t i;
	int rc = call(url, "cluster/member/list", json_object(), &answer, e);

	*n = 0;
	json_array_foreach(rc ? NULL : json_object_get(answer, "members"), i,
			   m) {
		struct etcd_member *o = &out[*n];
		const char *name = json_string_value(json_object_get(m,
								      "name"));
		const char *client = json_string_value(json_array_get(
			json_object_get(m, "clientURLs"), 0));

		if (*n == max)
			break;
		id_of(json_object_get(m, "ID"), o->id, sizeof(o->id));
		snprintf(o->name, sizeof(o->name), "%s", name ? name : "");
		snprintf(o->client_url, sizeof(o->client_url), "%s",
			 client ? client : "");
		(*n)++;
	}
	json_decref(answer);
	return rc;
}

int etcd_leader(const char *url, char *id, size_t size, struct err *e)
{
	json_t *answer = NULL;
	int rc = call(url, "maintenance/status", json_object(), &answer, e);

	id_of(rc ? NULL : json_object_get(answer, "leader"), id, size);
	json_decref(answer);
	return rc;
}

int etcd_move_leader(const char *url, const char *id, struct err *e)
{
	json_t *answer = NULL;
	/* The leader may take etcd's request timeout to hand over: 5 s and
	 * two election timeouts, 7 s by default (ReqTimeout in etcd's
	 * server/config/config.go), and says so when it cannot. 10 s was
	 * met on an idle machine and missed beside a build (load 6 to 14,
	 * the server descheduled): 30 s leaves etcd its own verdict. */
	int rc = call_within(url, "maintenance/transfer-leadership",
			     json_pack("{s:s}", "targetID", id),
			     30 * NS_PER_SEC, &answer, e);

	json_decref(answer);
	return rc && strstr(e->msg, "etcdserver: not leader") ? ETCD_NOT_LEADER
							      : rc;
}

const struct etcd_member *etcd_member_find(const struct etcd_member *m,
					   size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(m[i].id, id))
			return &m[i];
	return NULL;
}

int etcd_leader_among(const struct etcd_member *m, size_t n, char *id,
		      size_t size, struct err *e)
{
	struct err first = ERR_INIT;
	int answered = 0;

	for (size_t i = 0; i < n; i++) {
		struct err one = ERR_INIT;

		if (etcd_leader(m[i].client_url, id, size, &one)) {
			if (!err_isset(&first))
				first = one;
			continue;
		}
		answered = 1;
		if (etcd_member_find(m, n, id))
			return 0;
	}
	if (size)
		id[0] = '\0';
	if (answered)
		return 1;
	return err_set(e, first.class, "%s", err_isset(&first) ? first.msg
		       : "no etcd member to ask");
}
