#include "history.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "histrec.h"

/* A worker's operation that is no DDL, told cheaply (HISTORY_NO_OPS). */
static int plain_op(const char *line, size_t len)
{
	static const char head[] = "{\"time\":", proc[] = ",\"process\":";
	const char *p = line + sizeof(head) - 1, *end = line + len;

	if (len < sizeof(head) - 1 || memcmp(line, head, sizeof(head) - 1))
		return 0;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	if ((size_t)(end - p) < sizeof(proc) ||
	    memcmp(p, proc, sizeof(proc) - 1))
		return 0;
	p += sizeof(proc) - 1;
	if (*p < '0' || *p > '9')
		return 0;
	/* "ddl" anywhere: a 'd' is rare in such a line, memchr is fast. */
	for (p = line + 1; (p = memchr(p, 'd', (size_t)(end - p))); p++)
		if (end - p >= 4 && p[-1] == '"' && !memcmp(p, "ddl\"", 4))
			return 0;
	return 1;
}

/*
 * history_read in two threads: a parser reads the file in blocks of whole
 * lines and parses each block's lines into its items, while the caller's
 * thread hands the items of the block before to `fn`, in file order. A
 * history of millions of lines takes the longer of the two, not their
 * sum. The strings of an item point into its block's text, which is not
 * reused before the caller is done with the block.
 */

#define READ_BLOCK ((size_t)512 << 10)
#define READ_BLOCKS 3

struct item {
	struct history_line l;
	int bad;		/* no record: l.line alone is set */
};

struct block {
	char *text;
	size_t cap, len;
	struct item *items;
	size_t nitems, items_cap;
	size_t lines;		/* lines of the file up to its end */
	/* The first line of the block that is no record, said. */
	size_t bad_line, bad_col;
	char bad_msg[200];
	/* The last block: a cut last line's number, a read's errno. */
	int last;
	size_t cut;
	int error;
};

struct reader {
	int fd;
	unsigned flags;
	struct block blocks[READ_BLOCKS];
	char *carry;		/* a line begun in one block, for the next */
	size_t carry_len, carry_cap, lines;
	/* Blocks go round: the parser fills filled % READ_BLOCKS next,
	 * the caller takes taken % READ_BLOCKS next. */
	size_t filled, taken;
	int stop;		/* the caller wants no more */
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

/* Parse the whole lines of b->text[0, upto) into b's items. */
static void parse_block(struct reader *rd, struct block *b, size_t upto)
{
	char *p = b->text, *end = b->text + upto;

	b->nitems = 0;
	b->bad_line = 0;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)(nl - p), col;
		struct item *it;
		struct histrec r;
		char msg[200];

		rd->lines++;
		if ((rd->flags & HISTORY_NO_OPS) && plain_op(p, len)) {
			p = nl + 1;
			continue;
		}
		if (b->nitems == b->items_cap) {
			b->items_cap = b->items_cap ? b->items_cap * 2 : 1024;
			b->items = xrealloc(b->items,
					    b->items_cap * sizeof(*b->items));
		}
		it = &b->items[b->nitems++];
		it->bad = histrec_parse(p, len, &r, msg, sizeof(msg), &col);
		if (it->bad) {
			it->l.line = rd->lines;
			if (!b->bad_line) {
				b->bad_line = rd->lines;
				b->bad_col = col;
				snprintf(b->bad_msg, sizeof(b->bad_msg), "%s",
					 msg);
			}
		} else {
			histrec_to_line(&r, rd->lines, &it->l);
		}
		p = nl + 1;
	}
	b->lines = rd->lines;
}

/*
 * Fill `b` with the next whole lines of the file (a line longer than the
 * block widens it) and parse them; at the end of the file, or when a
 * read fails, it is the last.
 */
static void fill_block(struct reader *rd, struct block *b)
{
	char *nl = NULL;

	if (b->cap < rd->carry_len + READ_BLOCK / 2) {
		b->cap = rd->carry_len + READ_BLOCK;
		b->text = xrealloc(b->text, b->cap);
	}
	if (rd->carry_len)
		memcpy(b->text, rd->carry, rd->carry_len);
	b->len = rd->carry_len;
	b->last = 0;
	b->cut = 0;
	b->error = 0;
	for (;;) {
		ssize_t n;

		if (b->len == b->cap) {
			nl = memrchr(b->text, '\n', b->len);
			if (nl)
				break;
			b->cap *= 2;
			b->text = xrealloc(b->text, b->cap);
		}
		n = read(rd->fd, b->text + b->len, b->cap - b->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			b->last = 1;
			b->error = n < 0 ? errno : 0;
			nl = memrchr(b->text, '\n', b->len);
			break;
		}
		b->len += (size_t)n;
	}
	/* What follows the last newline: the next block's, or, at the end,
	 * a last line a kill cut (counted, never read). */
	rd->carry_len = nl ? b->len - (size_t)(nl + 1 - b->text) : b->len;
	if (rd->carry_len > rd->carry_cap) {
		rd->carry_cap = rd->carry_len;
		rd->carry = xrealloc(rd->carry, rd->carry_cap);
	}
	if (rd->carry_len)
		memcpy(rd->carry, b->text + b->len - rd->carry_len,
		       rd->carry_len);
	parse_block(rd, b, nl ? (size_t)(nl + 1 - b->text) : 0);
	if (b->last && !b->error && rd->carry_len)
		b->cut = b->lines = ++rd->lines;
}

static void *parser(void *arg)
{
	struct reader *rd = arg;
	int last = 0;

	while (!last) {
		struct block *b;

		pthread_mutex_lock(&rd->lock);
		while (!rd->stop && rd->filled - rd->taken == READ_BLOCKS)
			pthread_cond_wait(&rd->cond, &rd->lock);
		if (rd->stop) {
			pthread_mutex_unlock(&rd->lock);
			break;
		}
		b = &rd->blocks[rd->filled % READ_BLOCKS];
		pthread_mutex_unlock(&rd->lock);
		fill_block(rd, b);
		last = b->last;
		pthread_mutex_lock(&rd->lock);
		rd->filled++;
		pthread_cond_broadcast(&rd->cond);
		pthread_mutex_unlock(&rd->lock);
	}
	return NULL;
}

int history_read(const char *path, unsigned flags,
		 int (*fn)(const struct history_line *l, void *arg),
		 void *arg, struct history_reading *info, struct err *e)
{
	struct history_reading none;
	const char *base = strrchr(path, '/');
	struct reader rd;
	pthread_t th;
	int rc = 0, threaded, done = 0, error = 0;

	if (!info)
		info = &none;
	memset(info, 0, sizeof(*info));
	base = base ? base + 1 : path;
	memset(&rd, 0, sizeof(rd));
	rd.flags = flags;
	rd.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (rd.fd < 0)
		return err_errno(e, errno, "cannot open '%s'", path);
	pthread_mutex_init(&rd.lock, NULL);
	pthread_cond_init(&rd.cond, NULL);
	/* Without a second thread, the same blocks one after the other. */
	threaded = !pthread_create(&th, NULL, parser, &rd);
	while (!done) {
		struct block *b = &rd.blocks[rd.taken % READ_BLOCKS];

		if (threaded) {
			pthread_mutex_lock(&rd.lock);
			while (rd.filled == rd.taken)
				pthread_cond_wait(&rd.cond, &rd.lock);
			pthread_mutex_unlock(&rd.lock);
		} else {
			fill_block(&rd, b);
		}
		for (size_t i = 0; !done && i < b->nitems; i++) {
			struct item *it = &b->items[i];

			info->lines = it->l.line;
			if (!it->bad) {
				rc = fn(&it->l, arg);
				done = rc != 0;
				continue;
			}
			if (!info->bad[0] && it->l.line == b->bad_line) {
				char where[32] = "";

				if (b->bad_col)
					snprintf(where, sizeof(where), "%zu:",
						 b->bad_col);
				snprintf(info->bad, sizeof(info->bad),
					 "%s:%zu:%s %s", base, it->l.line,
					 where, b->bad_msg);
			}
			done = flags & HISTORY_STRICT;
		}
		if (!done) {
			info->lines = b->lines;
			info->cut = b->cut;
			error = b->error;
			done = b->last;
		}
		pthread_mutex_lock(&rd.lock);
		rd.taken++;
		rd.stop = done;
		pthread_cond_broadcast(&rd.cond);
		pthread_mutex_unlock(&rd.lock);
	}
	if (threaded)
		pthread_join(th, NULL);
	if (rc >= 0 && error)
		rc = err_errno(e, error, "cannot read '%s'", path);
	for (int i = 0; i < READ_BLOCKS; i++) {
		free(rd.blocks[i].text);
		free(rd.blocks[i].items);
	}
	free(rd.carry);
	pthread_mutex_destroy(&rd.lock);
	pthread_cond_destroy(&rd.cond);
	close(rd.fd);
	return rc < 0 ? -1 : 0;
}
