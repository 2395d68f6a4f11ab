/*
 * The chunks' checksums (checkers/tablediff.h): a pool of connections a
 * side, both sides at once, a side done helping the other.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/tablediff.h"
#include "lib/buf.h"
#include "lib/sql.h"

/* Chunk checksums of one side, computed by a pool of connections. */
struct pool {
	const struct component *comp;
	const char *session;
	const struct table *t;
	const struct range *ranges;
	size_t nchunks;
	struct sum *sums;
	size_t next;		/* atomic */
	struct err err;
	pthread_mutex_t lock;
	struct pool *other;	/* the other side's */
};

/* Checksum p's chunks on a connection of this worker's until none is
 * left to start; 0, or -1 when p failed (its err, every worker stops). */
static int pool_work(struct pool *p)
{
	struct side s = { p->comp, SQL_INIT, p->session };
	struct err e = ERR_INIT;

	if (!tablediff_connect(&s, &e))
		for (;;) {
			size_t i = __atomic_fetch_add(&p->next, 1,
						      __ATOMIC_RELAXED);

			if (i >= p->nchunks ||
			    tablerange_checksum(&s.conn, p->t, &p->ranges[i],
						&p->sums[i], &e))
				break;
		}
	sql_close(&s.conn);
	if (!err_isset(&e))
		return 0;
	pthread_mutex_lock(&p->lock);
	err_set(&p->err, e.class, "%s", e.msg);
	pthread_mutex_unlock(&p->lock);
	__atomic_store_n(&p->next, p->nchunks, __ATOMIC_RELAXED);
	__atomic_store_n(&p->other->next, p->other->nchunks,
			 __ATOMIC_RELAXED);
	return -1;
}

/*
 * A worker of one side; when that side has no chunk left to start, it
 * helps the other with the chunks still left there, on a connection of
 * its own to that side: the side behind (a slower server, or one that
 * shares the cores with the other) has twice the connections for its
 * last chunks, on the cores the side done no longer uses.
 */
static void *pool_worker(void *arg)
{
	struct pool *p = arg;

	sql_thread_init();
	if (!pool_work(p) &&
	    __atomic_load_n(&p->other->next, __ATOMIC_RELAXED) <
	    p->other->nchunks)
		pool_work(p->other);
	sql_thread_end();
	return NULL;
}

/*
 * The checksums of `nchunks` ranges on both sides at once, `threads`
 * connections a side: sums[UP] and sums[DOWN] (the caller frees them).
 */
int tablepool_checksum(struct side *sides, const struct table *t,
		       const struct range *ranges, size_t nchunks, int threads,
		       struct sum *sums[2], struct err *e)
{
	struct pool pools[2];
	pthread_t *th;
	int rc = 0;

	for (int s = 0; s < 2; s++) {
		struct pool *p = &pools[s];

		memset(p, 0, sizeof(*p));
		p->comp = sides[s].comp;
		p->session = sides[s].session;
		p->t = t;
		p->ranges = ranges;
		p->nchunks = nchunks;
		p->sums = sums[s] = xcalloc(nchunks, sizeof(*p->sums));
		p->other = &pools[!s];
		pthread_mutex_init(&p->lock, NULL);
	}
	th = xcalloc((size_t)threads * 2, sizeof(*th));
	for (int i = 0; i < threads * 2; i++)
		pthread_create(&th[i], NULL, pool_worker, &pools[i % 2]);
	for (int i = 0; i < threads * 2; i++)
		pthread_join(th[i], NULL);
	free(th);
	for (int s = 0; s < 2; s++) {
		if (!rc && err_isset(&pools[s].err))
			rc = err_set(e, pools[s].err.class, "%s",
				     pools[s].err.msg);
		pthread_mutex_destroy(&pools[s].lock);
	}
	return rc;
}
