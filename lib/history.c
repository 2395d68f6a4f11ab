#include "history.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "parse.h"

struct history_slot {
	pthread_mutex_t lock;
	struct buf lines;
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

int json_quote(struct buf *out, const char *s, struct err *e)
{
	if (buf_addch(out, '"', e))
		return -1;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		size_t n;
		int rc;

		if (c == '"' || c == '\\')
			rc = buf_printf(out, e, "\\%c", c);
		else if (c == '\n')
			rc = buf_addstr(out, "\\n", e);
		else if (c == '\t')
			rc = buf_addstr(out, "\\t", e);
		else if (c == '\r')
			rc = buf_addstr(out, "\\r", e);
		else if (c < 0x20 || c == 0x7f)
			rc = buf_printf(out, e, "\\u%04x", c);
		else if (c < 0x80)
			rc = buf_addch(out, (char)c, e);
		else if (!(n = utf8_len(s, strnlen(s, 4))))
			rc = buf_addstr(out, "\\ufffd", e);
		else {
			rc = buf_add(out, s, n, e);
			s += n - 1;
		}
		if (rc)
			return -1;
	}
	return buf_addch(out, '"', e);
}

static int field(struct buf *out, const char *key, const char *value,
		 struct err *e)
{
	if (!value)
		return 0;
	return buf_printf(out, e, ",\"%s\":", key) || json_quote(out, value, e);
}

int history_format(struct buf *out, const struct history_event *ev,
		   struct err *e)
{
	int rc = buf_printf(out, e, "{\"time\":%lld,\"process\":",
			    (long long)ev->time);

	if (rc)
		return -1;
	if (ev->process == HISTORY_NEMESIS)
		rc = buf_addstr(out, "\"nemesis\"", e);
	else if (ev->process == HISTORY_MONITOR)
		rc = buf_addstr(out, "\"monitor\"", e);
	else
		rc = buf_printf(out, e, "%d", ev->process);
	rc = rc || field(out, "type", ev->type, e) ||
	     field(out, "f", ev->f, e) || field(out, "table", ev->table, e) ||
	     field(out, "node", ev->node, e) ||
	     field(out, "target", ev->target, e);
	if (!rc && ev->id >= 0)
		rc = buf_printf(out, e, ",\"id\":%lld", (long long)ev->id);
	rc = rc || field(out, "error", ev->error, e);
	if (!rc && ev->value)
		rc = buf_printf(out, e, ",\"value\":%s", ev->value);
	return rc || buf_addstr(out, "}\n", e) ? -1 : 0;
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
	struct buf taken = BUF_INIT;

	pthread_mutex_lock(&h->flush_lock);
	if (h->pending.len && !write_all(h, &h->pending))
		buf_reset(&h->pending);
	pthread_mutex_lock(&h->lock);
	s = h->slots;
	pthread_mutex_unlock(&h->lock);
	for (; s; s = s->next) {
		pthread_mutex_lock(&s->lock);
		if (s->lines.len) {
			taken = s->lines;
			buf_init(&s->lines, s->lines.limit);
		}
		pthread_mutex_unlock(&s->lock);
		if (taken.len && (h->pending.len || write_all(h, &taken)))
			buf_add(&h->pending, taken.data, taken.len, NULL);
		buf_release(&taken);
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
	struct history *h = calloc(1, sizeof(*h));
	int rc;

	*out = NULL;
	if (!h || !(h->path = strdup(path))) {
		free(h);
		return err_set(e, ERR_INFRA, "out of memory");
	}
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
	struct history_slot *s = calloc(1, sizeof(*s));

	if (!s)
		abort();
	pthread_mutex_init(&s->lock, NULL);
	/* A slot holds at most a flush interval's lines. */
	buf_init(&s->lines, (size_t)256 << 20);
	s->ok_inserts = &h->ok_inserts;
	pthread_mutex_lock(&h->lock);
	s->next = h->slots;
	h->slots = s;
	pthread_mutex_unlock(&h->lock);
	return s;
}

void history_record(struct history_slot *s, const struct history_event *ev)
{
	struct buf line = BUF_INIT;
	struct err e = ERR_INIT;

	/* Format outside the lock, into a scratch buffer. */
	if (history_format(&line, ev, &e)) {
		buf_release(&line);
		return;
	}
	pthread_mutex_lock(&s->lock);
	buf_add(&s->lines, line.data, line.len, NULL);
	pthread_mutex_unlock(&s->lock);
	buf_release(&line);
	if (ev->type && ev->f && !strcmp(ev->type, "ok") &&
	    !strcmp(ev->f, "insert"))
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

const char *history_ddl_op(const char *f)
{
	static const char *const ops[] = {
		"drop_create", "drop_recover", "truncate", "drop_add",
		"remove_repartition", "exchange", "reorganize", NULL,
	};

	for (int i = 0; ops[i]; i++)
		if (!strcmp(ops[i], f))
			return ops[i];
	return NULL;
}

/* At `p`: `,"key":"text"` into out (p past it), else "" (p stays). */
static const char *take_string(const char *p, const char *key, char *out,
			       size_t size)
{
	size_t n = strlen(key);
	const char *end;

	out[0] = '\0';
	if (p[0] != ',' || p[1] != '"' || strncmp(p + 2, key, n) ||
	    strncmp(p + 2 + n, "\":\"", 3))
		return p;
	p += n + 5;
	end = strchr(p, '"');
	if (!end)
		return p - n - 5;
	snprintf(out, size, "%.*s", (int)(end - p), p);
	return end + 1;
}

/* A JSON string at `p` (its opening quote): past its closing quote. */
static const char *skip_string(const char *p)
{
	for (p++; *p && *p != '"'; p++)
		if (*p == '\\' && p[1])
			p++;
	return *p ? p + 1 : p;
}

static int parse_line(const char *line, size_t len, struct history_line *l)
{
	const char *p;
	char *end;

	memset(l, 0, sizeof(*l));
	l->id = -1;
	if (strncmp(line, "{\"time\":", 8))
		return -1;
	l->time = strtoll(line + 8, &end, 10);
	p = end;
	if (strncmp(p, ",\"process\":", 11))
		return -1;
	p += 11;
	if (!strncmp(p, "\"nemesis\"", 9)) {
		l->process = HISTORY_NEMESIS;
		p += 9;
	} else if (!strncmp(p, "\"monitor\"", 9)) {
		l->process = HISTORY_MONITOR;
		p += 9;
	} else {
		l->process = (int)strtol(p, &end, 10);
		if (end == p)
			return -1;
		p = end;
	}
	p = take_string(p, "type", l->type, sizeof(l->type));
	p = take_string(p, "f", l->f, sizeof(l->f));
	p = take_string(p, "table", l->table, sizeof(l->table));
	p = take_string(p, "node", l->node, sizeof(l->node));
	p = take_string(p, "target", l->target, sizeof(l->target));
	if (!strncmp(p, ",\"id\":", 6)) {
		l->id = strtoll(p + 6, &end, 10);
		p = end;
	}
	if (!strncmp(p, ",\"error\":\"", 10))
		p = skip_string(p + 9);
	if (!strncmp(p, ",\"value\":", 9)) {
		l->value = p + 9;
		/* Up to the record's closing brace. */
		l->value_len = (size_t)(line + len - 1 - l->value);
		while (l->value_len && l->value[l->value_len] != '}')
			l->value_len--;
	}
	return l->type[0] ? 0 : -1;
}

int history_read(const char *path,
		 int (*fn)(const struct history_line *l, void *arg),
		 void *arg, struct err *e)
{
	struct history_line l;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *in = fopen(path, "re");

	if (!in)
		return errno == ENOENT ? 0 : err_errno(e, errno, "cannot read "
						       "'%s'", path);
	while ((n = getline(&line, &cap, in)) > 0) {
		/* The last line without its newline was cut by a kill. */
		if (line[n - 1] != '\n')
			break;
		line[--n] = '\0';
		if (!parse_line(line, (size_t)n, &l) && fn(&l, arg))
			break;
	}
	free(line);
	fclose(in);
	return 0;
}
