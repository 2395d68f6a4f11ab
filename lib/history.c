#include "history.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "histrec.h"
#include "parse.h"

/* The largest buffer a slot keeps between flushes. */
#define SPARE_MAX ((size_t)4 << 20)

struct history_slot {
	pthread_mutex_t lock;
	struct buf lines;
	/* The buffer the last flush emptied, given back to `lines` at the
	 * next one so that a slot's buffer is not grown again at every
	 * flush; the flusher's alone (under the history's flush_lock). */
	struct buf spare;
	struct history_slot *next;
	uint64_t *ok_inserts;		/* the history's counter */
};

struct history {
	int fd;
	char *path;
	int64_t start_ns;
	pthread_mutex_t lock;		/* slots list, write_error, stop */
	pthread_mutex_t flush_lock;	/* one flush at a time: whole lines;
					 * guards pending and written */
	pthread_cond_t wake;
	struct history_slot *slots;
	int stop;
	/* The first write that failed, kept (sticky). */
	struct err write_error;
	/* Lines a failed write left, in order, tried again first at every
	 * flush; the file ends at `written`, after its last whole line. */
	struct buf pending;
	off_t written;
	pthread_t flusher;
	uint64_t ok_inserts;
};

/* Bytes json_quote copies as they are: printable ASCII but '"' and '\\'. */
static int plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

int json_quote(struct buf *out, const char *s, struct err *e)
{
	if (buf_addch(out, '"', e))
		return -1;
	for (;;) {
		const char *run = s;
		unsigned char c;
		size_t n;
		int rc;

		/* Most text is plain: copied a run at a time. */
		while (plain((unsigned char)*s))
			s++;
		if (s > run && buf_add(out, run, (size_t)(s - run), e))
			return -1;
		c = (unsigned char)*s;
		if (!c)
			break;
		if (c == '"' || c == '\\')
			rc = buf_addch(out, '\\', e) ||
			     buf_addch(out, (char)c, e);
		else if (c == '\n')
			rc = buf_addstr(out, "\\n", e);
		else if (c == '\t')
			rc = buf_addstr(out, "\\t", e);
		else if (c == '\r')
			rc = buf_addstr(out, "\\r", e);
		else if (c < 0x20 || c == 0x7f)
			rc = buf_printf(out, e, "\\u%04x", c);
		else if (!(n = utf8_len(s, strnlen(s, 4))))
			rc = buf_addstr(out, "\\ufffd", e);
		else {
			rc = buf_add(out, s, n, e);
			s += n - 1;
		}
		if (rc)
			return -1;
		s++;
	}
	return buf_addch(out, '"', e);
}

/* Append a string literal's bytes. */
#define ADD_LITERAL(out, lit, e) buf_add(out, lit, sizeof(lit) - 1, e)

/* `,"key":` and the value quoted; nothing when there is no value. The
 * key comes with its punctuation, as a literal: no formatting per line
 * (the history is written at every operation). */
#define FIELD(out, key, value, e)                                           \
	((value) ? ADD_LITERAL(out, ",\"" key "\":", e) ||                   \
		   json_quote(out, value, e)                                 \
		 : 0)

int history_format(struct buf *out, const struct history_event *ev,
		   struct err *e)
{
	int rc = ADD_LITERAL(out, "{\"time\":", e) ||
		 buf_addint(out, ev->time, e) ||
		 ADD_LITERAL(out, ",\"process\":", e);

	if (rc)
		return -1;
	if (ev->process == HISTORY_NEMESIS)
		rc = ADD_LITERAL(out, "\"nemesis\"", e);
	else if (ev->process == HISTORY_MONITOR)
		rc = ADD_LITERAL(out, "\"monitor\"", e);
	else
		rc = buf_addint(out, ev->process, e);
	rc = rc || FIELD(out, "type", ev->type, e) ||
	     FIELD(out, "f", ev->f, e) || FIELD(out, "table", ev->table, e) ||
	     FIELD(out, "node", ev->node, e) ||
	     FIELD(out, "target", ev->target, e);
	if (!rc && ev->id >= 0)
		rc = ADD_LITERAL(out, ",\"id\":", e) ||
		     buf_addint(out, ev->id, e);
	rc = rc || FIELD(out, "error", ev->error, e);
	if (!rc && ev->value)
		rc = ADD_LITERAL(out, ",\"value\":", e) ||
		     buf_addstr(out, ev->value, e);
	if (!rc && ev->ddl)
		rc = ADD_LITERAL(out, ",\"ddl\":true", e);
	if (!rc && ev->has_fault)
		rc = ADD_LITERAL(out, ",\"fault\":", e) ||
		     buf_addint(out, ev->fault, e);
	return rc || ADD_LITERAL(out, "}\n", e) ? -1 : 0;
}

/*
 * Append `b` to the file whole, or not at all: a write that fails (a full
 * disk) is cut back to the last whole line, its error kept, and -1
 * returned.
 */
static int write_all(struct history *h, const struct buf *b)
{
	size_t off = 0;

	while (off < b->len) {
		ssize_t n = write(h->fd, b->data + off, b->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int saved = errno;

			/* What part of `b` went in is cut off again, so the
			 * file ends after a whole line. */
			if (off && ftruncate(h->fd, h->written))
				saved = errno;
			pthread_mutex_lock(&h->lock);
			err_errno(&h->write_error, saved, "cannot write '%s'",
				  h->path);
			pthread_mutex_unlock(&h->lock);
			return -1;
		}
		off += (size_t)n;
	}
	h->written += (off_t)b->len;
	return 0;
}

/*
 * Hand every slot's lines to the file; the swap keeps the lock short.
 * While a write fails, lines wait in `pending` in their order and are
 * tried again first at the next flush, so that none is lost to a disk
 * that fills up and then gets space back.
 */
static void flush_slots(struct history *h)
{
	struct history_slot *s;

	pthread_mutex_lock(&h->flush_lock);
	if (h->pending.len && !write_all(h, &h->pending))
		buf_reset(&h->pending);
	pthread_mutex_lock(&h->lock);
	s = h->slots;
	pthread_mutex_unlock(&h->lock);
	for (; s; s = s->next) {
		struct buf taken = BUF_INIT;

		pthread_mutex_lock(&s->lock);
		if (s->lines.len) {
			taken = s->lines;
			s->lines = s->spare;	/* empty, its memory kept */
			buf_init(&s->spare, taken.limit);
		}
		pthread_mutex_unlock(&s->lock);
		if (!taken.len)
			continue;
		if (h->pending.len || write_all(h, &taken))
			buf_add(&h->pending, taken.data, taken.len, NULL);
		buf_reset(&taken);
		/* A burst's buffer is not kept for ever. */
		if (taken.cap > SPARE_MAX)
			buf_release(&taken);
		s->spare = taken;
	}
	pthread_mutex_unlock(&h->flush_lock);
}

static void *flusher(void *arg)
{
	struct history *h = arg;

	pthread_mutex_lock(&h->lock);
	while (!h->stop) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += HISTORY_FLUSH_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&h->wake, &h->lock, &until);
		pthread_mutex_unlock(&h->lock);
		flush_slots(h);
		pthread_mutex_lock(&h->lock);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

int history_open(struct history **out, const char *path, int64_t start_ns,
		 struct err *e)
{
	struct history *h = xcalloc(1, sizeof(*h));
	int rc;

	*out = NULL;
	h->path = xstrdup(path);
	h->start_ns = start_ns;
	h->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC,
		     0644);
	if (h->fd < 0) {
		err_errno(e, errno, "cannot create '%s'", path);
		free(h->path);
		free(h);
		return -1;
	}
	buf_init(&h->pending, (size_t)1 << 30);
	pthread_mutex_init(&h->lock, NULL);
	pthread_mutex_init(&h->flush_lock, NULL);
	pthread_cond_init(&h->wake, NULL);
	rc = pthread_create(&h->flusher, NULL, flusher, h);
	if (rc) {
		err_errno(e, rc, "cannot start the history flusher");
		close(h->fd);
		pthread_mutex_destroy(&h->lock);
		pthread_mutex_destroy(&h->flush_lock);
		pthread_cond_destroy(&h->wake);
		free(h->path);
		free(h);
		return -1;
	}
	*out = h;
	return 0;
}

int64_t history_now(const struct history *h)
{
	return clock_mono_ns() - h->start_ns;
}

struct history_slot *history_slot(struct history *h)
{
	struct history_slot *s = xcalloc(1, sizeof(*s));

	pthread_mutex_init(&s->lock, NULL);
	/* A slot holds at most a flush interval's lines. */
	buf_init(&s->lines, (size_t)256 << 20);
	buf_init(&s->spare, (size_t)256 << 20);
	s->ok_inserts = &h->ok_inserts;
	pthread_mutex_lock(&h->lock);
	s->next = h->slots;
	h->slots = s;
	pthread_mutex_unlock(&h->lock);
	return s;
}

void history_record(struct history_slot *s, const struct history_event *ev)
{
	size_t mark;

	/* Formatted straight into the slot's buffer: the lock is the
	 * thread's own but for the flusher's swap, so holding it while
	 * formatting costs nothing, and a line allocates nothing. */
	pthread_mutex_lock(&s->lock);
	mark = s->lines.len;
	if (history_format(&s->lines, ev, NULL))
		buf_truncate(&s->lines, mark);	/* no half line */
	pthread_mutex_unlock(&s->lock);
	/* An ok operation that returned an id: an id was allocated (an
	 * AUTO_INCREMENT insert), whichever workload did it. */
	if (ev->id >= 0 && ev->type && !strcmp(ev->type, "ok"))
		__atomic_add_fetch(s->ok_inserts, 1, __ATOMIC_RELAXED);
}

uint64_t history_ok_inserts(const struct history *h)
{
	return __atomic_load_n(&h->ok_inserts, __ATOMIC_RELAXED);
}

int history_flush(struct history *h, struct err *e)
{
	int rc = 0;

	flush_slots(h);
	pthread_mutex_lock(&h->lock);
	if (err_isset(&h->write_error))
		rc = err_set(e, h->write_error.class, "%s",
			     h->write_error.msg);
	pthread_mutex_unlock(&h->lock);
	return rc;
}

int history_failed(struct history *h, struct err *e)
{
	int rc = 0;

	pthread_mutex_lock(&h->lock);
	if (err_isset(&h->write_error))
		rc = err_set(e, h->write_error.class, "%s",
			     h->write_error.msg);
	pthread_mutex_unlock(&h->lock);
	return rc;
}

int history_close(struct history *h, struct err *e)
{
	struct history_slot *s, *next;
	int rc = 0;

	if (!h)
		return 0;
	pthread_mutex_lock(&h->lock);
	h->stop = 1;
	pthread_cond_signal(&h->wake);
	pthread_mutex_unlock(&h->lock);
	pthread_join(h->flusher, NULL);
	flush_slots(h);
	if (h->pending.len) {
		struct err first = h->write_error;
		size_t lost = 0;

		for (size_t i = 0; i < h->pending.len; i++)
			lost += h->pending.data[i] == '\n';
		err_clear(&h->write_error);
		err_set(&h->write_error, first.class, "%s (%zu lines lost)",
			first.msg, lost);
	}
	buf_release(&h->pending);
	if (fsync(h->fd) && errno != EINVAL)
		err_errno(&h->write_error, errno, "cannot sync '%s'", h->path);
	if (close(h->fd))
		err_errno(&h->write_error, errno, "cannot close '%s'",
			  h->path);
	if (err_isset(&h->write_error))
		rc = err_set(e, h->write_error.class, "%s",
			     h->write_error.msg);
	for (s = h->slots; s; s = next) {
		next = s->next;
		buf_release(&s->lines);
		buf_release(&s->spare);
		pthread_mutex_destroy(&s->lock);
		free(s);
	}
	pthread_mutex_destroy(&h->lock);
	pthread_mutex_destroy(&h->flush_lock);
	pthread_cond_destroy(&h->wake);
	free(h->path);
	free(h);
	return rc;
}

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
