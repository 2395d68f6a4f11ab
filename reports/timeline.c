/*
 * report.html's timeline in lanes, from history.jsonl
 * (reports/timeline.h): what each fault's records say it did to which
 * component (where its kind's `holds` says), the monitor's owner and
 * replica records, the workers' DDL.
 */
#include "reports/timeline.h"

#include <float.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/held.h"
#include "lib/buf.h"
#include "lib/history.h"

/* Not a time of the run (a corrupt line): not drawn. */
#define MAX_SECONDS 86400
/* Hosts of one cut, at most (lib/netns.h has 32). */
#define MAX_HOSTS 64

const struct fault_holds timeline_other = {
	FAULT_HOLDS_OTHER, "other fault", NULL, "#7f7f7f", INT_MAX, NULL, NULL,
};

/*
 * The way of holding the history's "holds" names: one of t->holds;
 * timeline_other for a fault that holds no component, and for one this
 * build does not know (a history of another build).
 */
static const struct fault_holds *holds_named(const struct timeline *t,
					     const char *name)
{
	for (size_t i = 0; t->holds && t->holds[i]; i++)
		if (!strcmp(t->holds[i]->name, name))
			return t->holds[i];
	return &timeline_other;
}

static void *grow(void *p, size_t n, size_t size)
{
	return xrealloc(p, (n + 1) * size);
}

static const char *or_none(const char *s)
{
	return s ? s : "";
}

/* The lane of `group` called `name`, added when there is none yet. */
static size_t lane_of(struct timeline *t, int group, const char *name)
{
	for (size_t i = t->nlanes; i-- > 0;)
		if (t->lanes[i].group == group &&
		    !strcmp(t->lanes[i].name, name))
			return i;
	t->lanes = grow(t->lanes, t->nlanes, sizeof(*t->lanes));
	memset(&t->lanes[t->nlanes], 0, sizeof(*t->lanes));
	t->lanes[t->nlanes].group = group;
	t->lanes[t->nlanes].name = xstrdup(name);
	t->lanes[t->nlanes].rows = 1;
	return t->nlanes++;
}

static void add_mark(struct timeline *t, double at, int kind, int group,
		     const char *lane, const char *what)
{
	struct timeline_mark *m;

	t->m = grow(t->m, t->nm, sizeof(*t->m));
	m = &t->m[t->nm++];
	m->at = at;
	m->kind = kind;
	m->lane = lane_of(t, group, lane);
	m->what = xstrdup(what);
	t->lanes[m->lane].nmarks++;
}

static void add_segment(struct timeline *t, size_t window, int group,
			const char *lane, const char *what)
{
	struct timeline_segment *s;

	t->seg = grow(t->seg, t->nseg, sizeof(*t->seg));
	s = &t->seg[t->nseg++];
	s->window = window;
	s->lane = lane_of(t, group, lane);
	s->what = xstrdup(what);
	s->row = 0;
	t->lanes[s->lane].nsegments++;
}

/* Append `text` to the window's note, after a "; ". */
static void add_note(struct timeline_window *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_note(struct timeline_window *w, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	buf_addstr(&b, or_none(w->note), NULL);
	if (w->note)
		buf_addstr(&b, "; ", NULL);
	va_start(ap, fmt);
	buf_vprintf(&b, NULL, fmt, ap);
	va_end(ap);
	free(w->note);
	w->note = buf_detach(&b, NULL);
}

static json_t *value_of(const struct history_line *l)
{
	return l->value ? json_loadb(l->value, l->value_len,
				     JSON_DECODE_ANY, NULL) : NULL;
}

/* " (a | b c)": who was on which side of a partition, from its value. */
static void sides_of(const json_t *v, char *out, size_t size)
{
	json_t *sides = json_object_get(v, "sides"), *side, *name;
	struct buf b = BUF_INIT;
	size_t i, j;

	json_array_foreach(sides, i, side) {
		buf_addstr(&b, i ? " | " : " (", NULL);
		json_array_foreach(side, j, name)
			buf_printf(&b, NULL, "%s%s", j ? " " : "",
				   json_is_string(name) ? json_string_value(name)
							: "?");
	}
	if (b.len)
		buf_addch(&b, ')', NULL);
	snprintf(out, size, "%s", buf_str(&b));
	buf_release(&b);
}

/* A window for the injection `l` made, from `from`; its index. */
static size_t open_window(struct timeline *t, const struct history_line *l,
			  const json_t *v, double from,
			  const struct fault_holds *held)
{
	struct timeline_window *w;
	char sides[120];

	sides_of(v, sides, sizeof(sides));
	t->w = grow(t->w, t->nw, sizeof(*t->w));
	w = &t->w[t->nw];
	memset(w, 0, sizeof(*w));
	w->from = from;
	w->to = -1;
	w->fault = l->fault;
	w->held = held;
	snprintf(w->target, sizeof(w->target), "%s", or_none(l->target));
	snprintf(w->what, sizeof(w->what), "%.20s %.40s%.120s", l->f,
		 or_none(l->target), sides);
	if (!strcmp(l->type, "fail"))
		add_note(w, "did not take effect: %.200s", or_none(l->error));
	return t->nw++;
}

/* The name of a {"component": NAME} or a NAME; NULL when neither. */
static const char *name_of(const json_t *item)
{
	const json_t *c = json_is_object(item)
			  ? json_object_get(item, "component") : item;
	const char *name = json_string_value(c);

	return name && *name ? name : NULL;
}

/* What the details of `h` in value `v` say, " (loss 5%, ...)", into `b`. */
static void details_of(struct buf *b, const struct fault_holds *h,
		       const json_t *v)
{
	size_t start = b->len;
	char text[64];

	for (const struct fault_detail *d = h->details; d && d->member; d++) {
		const json_t *x = json_object_get(v, d->member);

		if (json_is_number(x))
			snprintf(text, sizeof(text), "%g",
				 json_number_value(x));
		else if (json_is_string(x))
			snprintf(text, sizeof(text), "%s",
				 json_string_value(x));
		else
			continue;
		if (d->unless && !strcmp(text, d->unless))
			continue;
		buf_printf(b, NULL, "%s%s %s%s", b->len > start ? ", " : " (",
			   d->label, text, d->unit);
	}
	if (b->len > start)
		buf_addch(b, ')', NULL);
}

/* What a held component was: "degraded (delay 100ms, loss 5%)". */
static char *held_what(const struct fault_holds *h, const json_t *v)
{
	struct buf b = BUF_INIT;

	buf_addstr(&b, h->label, NULL);
	details_of(&b, h, v);
	return buf_detach(&b, NULL);
}

/* Segments for the components the list of `h` in value `v` names. */
static size_t listed_segments(struct timeline *t, size_t w,
			      const struct fault_holds *h, const json_t *v)
{
	const json_t *list = json_object_get(v, h->list), *item;
	char *what = held_what(h, v);
	size_t i, n = 0;

	json_array_foreach(list, i, item)
		if (name_of(item)) {
			add_segment(t, w, LANE_COMPONENT, name_of(item),
				    what);
			n++;
		}
	free(what);
	return n;
}

/* The hosts of a cut and who dropped whose packets. */
struct hosts {
	const char *name[MAX_HOSTS];
	size_t n;
	/* drop[i][j]: host i dropped what came from host j */
	unsigned char drop[MAX_HOSTS][MAX_HOSTS];
};

static size_t host_index(struct hosts *h, const char *name)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (!strcmp(h->name[i], name))
			return i;
	if (h->n == MAX_HOSTS)
		return MAX_HOSTS;
	h->name[h->n] = name;
	return h->n++;
}

/* Every host a value's sides and cuts name, with who dropped whom. */
static void hosts_of(const json_t *v, struct hosts *h)
{
	const json_t *side, *name, *cut;
	size_t i, j;

	memset(h, 0, sizeof(*h));
	json_array_foreach(json_object_get(v, "sides"), i, side)
		json_array_foreach(side, j, name)
			if (name_of(name))
				host_index(h, name_of(name));
	json_array_foreach(json_object_get(v, "cuts"), i, cut) {
		const char *host = name_of(json_object_get(cut, "host"));
		size_t a = host ? host_index(h, host) : MAX_HOSTS, b;

		json_array_foreach(json_object_get(cut, "drops"), j, name) {
			if (!name_of(name))
				continue;
			b = host_index(h, name_of(name));
			if (a < MAX_HOSTS && b < MAX_HOSTS)
				h->drop[a][b] = 1;
		}
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * "LABEL a, b": the hosts host i was cut from, sorted: both ways (dir 0),
 * only what came from them (dir < 0), only what it sent them (dir > 0).
 */
static void host_list(struct buf *out, const struct hosts *h, size_t i,
		      int dir, const char *label)
{
	const char *names[MAX_HOSTS];
	size_t n = 0;

	for (size_t j = 0; j < h->n; j++) {
		int in = h->drop[i][j], sent = h->drop[j][i];

		if (dir == 0 ? in && sent : dir < 0 ? in && !sent
		    : sent && !in)
			names[n++] = h->name[j];
	}
	if (!n)
		return;
	qsort(names, n, sizeof(*names), by_name);
	buf_printf(out, NULL, "%s%s ", out->len ? "; " : "", label);
	for (size_t j = 0; j < n; j++)
		buf_printf(out, NULL, "%s%s", j ? ", " : "", names[j]);
}

/*
 * A segment for each host the "cuts" of value `v` cut: from whom both
 * ways, from whom it heard nothing, whom nothing it sent reached. A host
 * on a side nothing cut (a partition's bridge) has its lane all the same.
 */
static size_t cut_segments(struct timeline *t, size_t w,
				 const json_t *v)
{
	struct hosts *h = xcalloc(1, sizeof(*h));
	struct buf what = BUF_INIT;
	size_t n = 0;

	hosts_of(v, h);
	for (size_t i = 0; i < h->n; i++) {
		buf_reset(&what);
		host_list(&what, h, i, 0, "cut off from");
		host_list(&what, h, i, -1, "hears nothing from");
		host_list(&what, h, i, 1, "nothing it sends reaches");
		if (what.len)
			add_segment(t, w, LANE_COMPONENT, h->name[i],
				    buf_str(&what));
		else
			lane_of(t, LANE_COMPONENT, h->name[i]);
		n++;
	}
	buf_release(&what);
	free(h);
	return n;
}

/*
 * An injection of a fault that heals: a window, and a segment on the
 * lane of each component it names (its target's when it names none).
 * One that did not take effect and names none broke nothing: a mark.
 */
static void injected(struct timeline *t, const struct history_line *l,
		     const struct fault_holds *h, double at)
{
	json_t *v = value_of(l);
	int ours = t->invoke_fault == l->fault && !strcmp(t->invoke_f, l->f);
	double from = ours ? t->invoke_at : at;
	size_t n = 0, w;

	t->invoke_fault = -2;
	if (!strcmp(l->type, "fail") &&
	    !json_array_size(json_object_get(v, h == &timeline_other
						? "" : h->list ? h->list
						: "cuts"))) {
		char what[320];

		snprintf(what, sizeof(what), "%.40s %.60s did not take "
			 "effect: %.200s", l->f, or_none(l->target),
			 or_none(l->error));
		add_mark(t, at, MARK_FAULT, LANE_FAULTS, "other faults", what);
		json_decref(v);
		return;
	}
	w = open_window(t, l, v, from, h);
	if (ours && t->invoke_fired[0])
		add_note(&t->w[w], "%s", t->invoke_fired);
	if (h != &timeline_other)
		n = h->list ? listed_segments(t, w, h, v)
			    : cut_segments(t, w, v);
	if (!n && h != &timeline_other && l->target && *l->target) {
		char *what = held_what(h, v);

		add_segment(t, w, LANE_COMPONENT, l->target, what);
		free(what);
	} else if (!n) {
		add_segment(t, w, LANE_FAULTS, "other faults", t->w[w].what);
	}
	json_decref(v);
}

/* A heal settles the oldest open window of its fault item and target. */
static void healed(struct timeline *t, const struct history_line *l,
		   double at)
{
	for (size_t i = 0; i < t->nw; i++) {
		struct timeline_window *w = &t->w[i];

		if (w->settled || w->fault != l->fault ||
		    strcmp(w->target, or_none(l->target)))
			continue;
		w->settled = 1;
		if (!strcmp(l->type, "info"))
			w->to = at;
		else
			add_note(w, "%s failed at %.1fs: %.200s", l->f, at,
				 or_none(l->error));
		return;
	}
}

/* A string member of `v`, or NULL when it is null or no string. */
static const char *member(const json_t *v, const char *key)
{
	return json_string_value(json_object_get(v, key));
}

/*
 * What fired an injection, from its invoke's "trigger": "fired by
 * truncate test.p at 2.121s" (", +300ms" when it came `after` that);
 * "" when nothing did.
 */
static void fired_by(const struct history_line *l, char *out, size_t size)
{
	json_t *v = value_of(l);
	const json_t *trig = json_object_get(v, "trigger");
	const json_t *ev = json_object_get(trig, "event");
	const char *f = member(ev, "f");
	const char *on = member(ev, "table") ? member(ev, "table")
			 : member(ev, "target");
	json_int_t after = json_integer_value(json_object_get(trig,
							      "after_ns"));
	double time = (double)json_integer_value(json_object_get(ev, "time"))
		      / 1e9;
	struct buf b = BUF_INIT;

	if (f) {
		buf_printf(&b, NULL, "fired by %.40s%s%.80s at %.3fs", f,
			   on ? " " : "", on ? on : "", time);
		if (after)
			buf_printf(&b, NULL, ", +%lldms",
				   (long long)(after / 1000000));
	}
	snprintf(out, size, "%s", buf_str(&b));
	buf_release(&b);
	json_decref(v);
}

static void nemesis_line(struct timeline *t, const struct history_line *l,
			 double at)
{
	char what[320];

	if (!strcmp(l->type, "invoke")) {
		if (!l->heal) {
			t->invoke_at = at;
			t->invoke_fault = l->fault;
			snprintf(t->invoke_f, sizeof(t->invoke_f), "%s", l->f);
			fired_by(l, t->invoke_fired, sizeof(t->invoke_fired));
		}
	} else if (l->heal) {
		healed(t, l, at);
	} else if (l->holds) {
		injected(t, l, holds_named(t, l->holds), at);
	} else {
		if (!strcmp(l->type, "fail"))
			snprintf(what, sizeof(what), "%.40s %.100s did not "
				 "take effect: %.160s", l->f,
				 or_none(l->target), or_none(l->error));
		else
			snprintf(what, sizeof(what), "%.40s %.100s", l->f,
				 or_none(l->target));
		add_mark(t, at, MARK_FAULT, LANE_FAULTS, "other faults", what);
	}
}

/* "KEY: HOLDER, was FROM", HOLDER with its component when that is
 * another name ("KEY: 7f3a... (tidb-1), was 7f2c..."). */
static void owner_change(struct timeline *t, const struct history_line *l,
			 double at)
{
	json_t *v = value_of(l);
	const char *to = member(v, "to"), *comp = member(v, "to_component");
	const char *from = member(v, "from");
	int other = comp && to && strcmp(comp, to);
	char what[400];

	if (!json_is_object(v))
		snprintf(what, sizeof(what), "%.100s: %.*s",
			 or_none(l->target),
			 (int)(l->value_len < 200 ? l->value_len : 200),
			 or_none(l->value));
	else
		snprintf(what, sizeof(what), "%.100s: %.80s%s%.60s%s, was "
			 "%.80s", or_none(l->target), to ? to : "no owner",
			 other ? " (" : "", other ? comp : "",
			 other ? ")" : "", from ? from : "none");
	add_mark(t, at, MARK_OWNER, LANE_OWNERS, "owners", what);
	json_decref(v);
}

static int timeline_line(const struct history_line *l, void *arg)
{
	struct timeline *t = arg;
	double at = (double)l->time / 1e9;
	char what[320];

	/* Not a time of the run (a corrupt line): not drawn. */
	if (at < 0 || at >= MAX_SECONDS)
		return 0;
	if (l->process == HISTORY_NEMESIS) {
		nemesis_line(t, l, at);
	} else if (l->process == HISTORY_MONITOR &&
		   !strncmp(l->f, "replica_", 8)) {
		snprintf(what, sizeof(what), "%.20s %.40s %.*s", l->f,
			 or_none(l->target),
			 (int)(l->value_len < 200 ? l->value_len : 200),
			 or_none(l->value));
		add_mark(t, at, MARK_REPLICA, LANE_REPLICA, "replica", what);
	} else if (l->process == HISTORY_MONITOR) {
		owner_change(t, l, at);
	} else if (l->process >= 0 && !strcmp(l->type, "invoke") && l->ddl) {
		snprintf(what, sizeof(what), "%.40s %.200s", l->f,
			 l->table ? l->table : "(no table)");
		add_mark(t, at, MARK_DDL, LANE_TABLE,
			 l->table ? l->table : "(no table)", what);
	}
	return 0;
}

/* A lane's place in the sort, and where it was. */
struct lane_key {
	int group;
	const char *name;
	size_t was;
};

static int by_group_name(const void *a, const void *b)
{
	const struct lane_key *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Lanes by group, then name; segments and marks follow their lane. */
static void sort_lanes(struct timeline *t)
{
	struct lane_key *k = xcalloc(t->nlanes + 1, sizeof(*k));
	struct timeline_lane *sorted = xcalloc(t->nlanes + 1,
					       sizeof(*sorted));
	size_t *now = xcalloc(t->nlanes + 1, sizeof(*now));

	for (size_t i = 0; i < t->nlanes; i++)
		k[i] = (struct lane_key){ t->lanes[i].group,
					  t->lanes[i].name, i };
	qsort(k, t->nlanes, sizeof(*k), by_group_name);
	for (size_t i = 0; i < t->nlanes; i++) {
		sorted[i] = t->lanes[k[i].was];
		now[k[i].was] = i;
	}
	for (size_t i = 0; i < t->nseg; i++)
		t->seg[i].lane = now[t->seg[i].lane];
	for (size_t i = 0; i < t->nm; i++)
		t->m[i].lane = now[t->m[i].lane];
	free(t->lanes);
	t->lanes = sorted;
	free(now);
	free(k);
}

/* A segment's place in its lane: by start, then as read. */
struct span {
	double from, to;
	size_t seg;
};

static int by_start(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->seg < y->seg ? -1 : x->seg > y->seg;
}

/* Each segment in the first row of its lane free when it starts. */
static void stack_lane(struct timeline *t, size_t lane)
{
	size_t n = t->lanes[lane].nsegments, k = 0;
	struct span *s = xcalloc(n + 1, sizeof(*s));
	double *ends = xcalloc(n + 1, sizeof(*ends));
	int rows = 0;

	for (size_t i = 0; i < t->nseg && k < n; i++) {
		const struct timeline_window *w = &t->w[t->seg[i].window];

		if (t->seg[i].lane == lane)
			s[k++] = (struct span){ w->from,
						w->to < 0 ? DBL_MAX : w->to,
						i };
	}
	qsort(s, k, sizeof(*s), by_start);
	for (size_t i = 0; i < k; i++) {
		int r = 0;

		while (r < rows && ends[r] > s[i].from)
			r++;
		if (r == rows)
			rows++;
		ends[r] = s[i].to;
		t->seg[s[i].seg].row = r;
	}
	t->lanes[lane].rows = rows ? rows : 1;
	free(ends);
	free(s);
}

void timeline_read(struct timeline *t, const char *path, double end,
		   const struct fault_holds *const *holds)
{
	memset(t, 0, sizeof(*t));
	t->end = end;
	t->holds = holds;
	t->invoke_fault = -2;
	lane_of(t, LANE_OWNERS, "owners");
	/* An unreadable history draws no lanes, a line that is no record
	 * is not drawn; the verdicts stand. */
	history_read(path, HISTORY_NO_OPS, timeline_line, t, NULL, NULL);
	sort_lanes(t);
	for (size_t i = 0; i < t->nlanes; i++)
		stack_lane(t, i);
}

void timeline_release(struct timeline *t)
{
	for (size_t i = 0; i < t->nw; i++)
		free(t->w[i].note);
	for (size_t i = 0; i < t->nseg; i++)
		free(t->seg[i].what);
	for (size_t i = 0; i < t->nm; i++)
		free(t->m[i].what);
	for (size_t i = 0; i < t->nlanes; i++)
		free(t->lanes[i].name);
	free(t->w);
	free(t->seg);
	free(t->m);
	free(t->lanes);
	memset(t, 0, sizeof(*t));
}
