/*
 * Readiness (clusters/ready.c) against a small HTTP server of the test's
 * own on 127.0.0.1 and a port nothing listens on: an HTTP endpoint is
 * ready on a 2xx and answers on anything, etcd is ready when /health
 * says so, an SQL endpoint that refuses fails naming the component, and
 * a replica's source is found by name.
 */
#include <netinet/in.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clusters/internal.h"
#include "lib/err.h"
#include "tests/unit/port.h"
#include "tests/unit/tap.h"

static int listen_fd = -1;
static int port;
static const char *health = "{\"health\":\"true\"}";
static volatile int quit;

/* Answer each request by its path: /ok 200, /busy 503, /health etcd's. */
static void answer(int fd)
{
	char req[2048], resp[512];
	size_t n = 0;
	ssize_t got;
	const char *body = "", *status = "200 OK";

	while (n + 1 < sizeof(req) &&
	       (got = read(fd, req + n, sizeof(req) - 1 - n)) > 0) {
		n += (size_t)got;
		req[n] = '\0';
		if (strstr(req, "\r\n\r\n"))
			break;
	}
	req[n] = '\0';
	if (strstr(req, "GET /busy "))
		status = "503 Service Unavailable";
	else if (strstr(req, "GET /health "))
		body = health;
	snprintf(resp, sizeof(resp), "HTTP/1.1 %s\r\nContent-Length: %zu\r\n"
		 "Connection: close\r\n\r\n%s", status, strlen(body), body);
	if (write(fd, resp, strlen(resp)) < 0)
		diag("cannot answer");
}

static void *serve(void *arg)
{
	while (!quit) {
		int fd = accept(listen_fd, NULL, NULL);

		if (fd < 0)
			continue;
		if (!quit)
			answer(fd);
		close(fd);
	}
	return NULL;
}

/* Wake the server's accept with one last connection. */
static void wake(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)port);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)))
		diag("cannot wake the server");
	if (fd >= 0)
		close(fd);
}

static void test_http(struct cluster *c, struct component *comp)
{
	struct err e = ERR_INIT;
	char url[128], want[256];

	ok(!component_ready(c, comp, &e), "nothing to ask: ready");
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/ok", port);
	comp->http_url = url;
	ok(!component_ready(c, comp, &e), "HTTP 200: ready");
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/busy", port);
	ok(component_ready(c, comp, &e), "HTTP 503: not ready");
	snprintf(want, sizeof(want), "x-0: '%s' answered HTTP 503", url);
	is_str(e.msg, want, "saying what answered what");
	err_clear(&e);
	ok(!component_answers(c, comp, &e), "but it answers");
	comp->http_url = NULL;
}

static void test_etcd(struct cluster *c, struct component *comp)
{
	struct err e = ERR_INIT;
	char url[128];

	snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
	comp->etcd_url = url;
	ok(!component_ready(c, comp, &e), "etcd healthy: ready");
	health = "{\"health\":\"false\"}";
	ok(component_ready(c, comp, &e), "etcd unhealthy: not ready");
	is_str(e.msg, "x-0: etcd is not healthy (HTTP 200)", "as it says");
	health = "{\"health\":\"true\"}";
	comp->etcd_url = NULL;
}

static void test_refused(struct cluster *c, struct component *comp)
{
	static char lo[] = "127.0.0.1";
	struct err e = ERR_INIT;
	char url[128], want[128];
	int closed = closed_port();

	snprintf(url, sizeof(url), "http://127.0.0.1:%d/ok", closed);
	comp->http_url = url;
	ok(component_ready(c, comp, &e) && component_answers(c, comp, &e),
	   "nobody at its HTTP URL: neither ready nor answering");
	comp->http_url = NULL;
	comp->sql_host = lo;
	comp->sql_port = closed;
	err_clear(&e);
	ok(component_ready(c, comp, &e), "nobody at its SQL port: not ready");
	snprintf(want, sizeof(want), "x-0: cannot connect to '127.0.0.1:%d'",
		 closed);
	ok(!strncmp(e.msg, want, strlen(want)), "naming the component: %s",
	   e.msg);
	is_int(component_lag(c, comp), -1, "no lag of one that replicates "
	       "nothing");
	comp->sql_port = 0;
	comp->sql_host = NULL;
}

static void test_source(struct cluster *c)
{
	static char up[] = "up-0", nope[] = "nope";

	ok(!component_source(c, &c->comps[0]), "no source of a component "
	   "that does not replicate");
	c->comps[1].replicates = up;
	ok(component_source(c, &c->comps[1]) == &c->comps[0],
	   "a replica's source, by name");
	c->comps[1].replicates = nope;
	ok(!component_source(c, &c->comps[1]), "none when the cluster has "
	   "no such component");
	c->comps[1].replicates = NULL;
}

int main(void)
{
	static char x[] = "x-0", up[] = "up-0";
	struct component comps[2];
	struct cluster c;
	pthread_t server;

	memset(&c, 0, sizeof(c));
	memset(comps, 0, sizeof(comps));
	comps[0].name = up;
	comps[1].name = x;
	c.comps = comps;
	c.ncomps = 2;
	port = listening_port(&listen_fd);
	if (!ok(port > 0, "a server of the test's own") ||
	    pthread_create(&server, NULL, serve, NULL))
		return exit_status();
	test_http(&c, &comps[1]);
	test_etcd(&c, &comps[1]);
	test_refused(&c, &comps[1]);
	test_source(&c);
	quit = 1;
	wake();
	pthread_join(server, NULL);
	close(listen_fd);
	return done_testing();
}
