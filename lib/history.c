#include "history.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
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
	struct history *h;
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
	/* history_observe's: set (atomically) once any observer was, so a
	 * history never observed takes no lock for it. */
	int observed;
	pthread_rwlock_t observe_lock;	/* observer, observer_arg */
	history_observer_fn *observer;
	void *observer_arg;
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
	rc = rc || FIELD(out, "holds", ev->holds, e);
	if (!rc && ev->heal)
		rc = ADD_LITERAL(out, ",\"heal\":true", e);
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
	pthread_rwlock_init(&h->observe_lock, NULL);
	rc = pthread_create(&h->flusher, NULL, flusher, h);
	if (rc) {
		err_errno(e, rc, "cannot start the history flusher");
		close(h->fd);
		pthread_mutex_destroy(&h->lock);
		pthread_mutex_destroy(&h->flush_lock);
		pthread_cond_destroy(&h->wake);
		pthread_rwlock_destroy(&h->observe_lock);
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
	s->h = h;
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
	if (__atomic_load_n(&s->h->observed, __ATOMIC_ACQUIRE)) {
		pthread_rwlock_rdlock(&s->h->observe_lock);
		if (s->h->observer)
			s->h->observer(s->h->observer_arg, ev);
		pthread_rwlock_unlock(&s->h->observe_lock);
	}
}

void history_observe(struct history *h, history_observer_fn *fn, void *arg)
{
	pthread_rwlock_wrlock(&h->observe_lock);
	h->observer = fn;
	h->observer_arg = arg;
	pthread_rwlock_unlock(&h->observe_lock);
	if (fn)
		__atomic_store_n(&h->observed, 1, __ATOMIC_RELEASE);
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
	pthread_rwlock_destroy(&h->observe_lock);
	free(h->path);
	free(h);
	return rc;
}
