/*
 * report.html: one self-contained page (no network, no script): the
 * verdicts, a timeline of the run with fault windows, DDL and owner
 * changes, per-workload throughput and latency (p50 / p99 per second) as
 * inline SVG with the fault windows shaded, and the details of what
 * failed, with links to logs/ and fix-sql/.
 *
 * Built from results.json (counts and latencies per second, measured by
 * the workers) and history.jsonl (the timeline) only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "faults/fault.h"
#include "lib/clock.h"
#include "lib/history.h"
#include "reports/report.h"

#define MAX_SECONDS 86400

struct window {
	double from, to;	/* seconds; to < 0: never healed */
	char what[160];
	int fault;		/* its fault item: its heal closes it */
	char target[96];
};

struct mark {
	double at;
	char what[160];
	int kind;		/* 0 DDL, 1 owner change, 2 instant fault,
				 * 3 the replica stopped, ran, skipped */
};

/* A workload's steps, from results.json (per_step). */
struct series {
	const char *name;
	const json_t *ok;
	const json_t *errors;
	const json_t *p50;
	const json_t *p99;
	int step;		/* seconds */
};

struct timeline {
	struct window *w;
	size_t nw;
	struct mark *m;
	size_t nm;
	struct series *s;
	size_t ns;
	int seconds;
};

static void html(struct buf *out, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '&':
			buf_addstr(out, "&amp;", NULL);
			break;
		case '<':
			buf_addstr(out, "&lt;", NULL);
			break;
		case '>':
			buf_addstr(out, "&gt;", NULL);
			break;
		case '"':
			buf_addstr(out, "&quot;", NULL);
			break;
		default:
			buf_addch(out, *s, NULL);
		}
}

static void *grow(void *p, size_t n, size_t size)
{
	return xrealloc(p, (n + 1) * size);
}

static void add_mark(struct timeline *t, double at, int kind,
		     const char *what)
{
	t->m = grow(t->m, t->nm, sizeof(*t->m));
	t->m[t->nm].at = at;
	t->m[t->nm].kind = kind;
	snprintf(t->m[t->nm].what, sizeof(t->m[0].what), "%s", what);
	t->nm++;
}

static const char *or_none(const char *s)
{
	return s ? s : "";
}

/* " (a | b c)": who was on which side of a partition, from its value. */
static void sides_of(const struct history_line *l, char *out, size_t size)
{
	json_t *v = l->value ? json_loadb(l->value, l->value_len,
					  JSON_DECODE_ANY, NULL) : NULL;
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
	json_decref(v);
}

static int timeline_line(const struct history_line *l, void *arg)
{
	struct timeline *t = arg;
	double at = (double)l->time / 1e9;
	char what[160];

	/* Not a time of the run (a corrupt line): not drawn. */
	if (at < 0 || at >= MAX_SECONDS)
		return 0;
	if (l->process == HISTORY_NEMESIS && !strcmp(l->type, "info")) {
		const struct fault_type *k = fault_healed_by(l->f);
		const struct fault_type *f = fault_type_named(l->f);

		if (k) {
			/* A heal closes the oldest open window of its own
			 * fault item and target. */
			for (size_t i = 0; i < t->nw; i++)
				if (t->w[i].to < 0 && t->w[i].fault == l->fault &&
				    !strcmp(t->w[i].target,
					    or_none(l->target))) {
					t->w[i].to = at;
					break;
				}
		} else if (f && f->heal) {
			char sides[100];

			sides_of(l, sides, sizeof(sides));
			t->w = grow(t->w, t->nw, sizeof(*t->w));
			t->w[t->nw].from = at;
			t->w[t->nw].to = -1;
			t->w[t->nw].fault = l->fault;
			snprintf(t->w[t->nw].target, sizeof(t->w[0].target),
				 "%s", or_none(l->target));
			snprintf(t->w[t->nw].what, sizeof(t->w[0].what),
				 "%.20s %.30s%.100s", l->f,
				 or_none(l->target), sides);
			t->nw++;
		} else {
			snprintf(what, sizeof(what), "%.40s %.100s", l->f,
				 or_none(l->target));
			add_mark(t, at, 2, what);
		}
	} else if (l->process == HISTORY_MONITOR) {
		int replica = !strncmp(l->f, "replica_", 8);

		snprintf(what, sizeof(what), "%.20s %.40s %.*s",
			 replica ? l->f : "owner", or_none(l->target),
			 (int)(l->value_len < 90 ? l->value_len : 90),
			 l->value ? l->value : "");
		add_mark(t, at, replica ? 3 : 1, what);
	} else if (l->process >= 0 && !strcmp(l->type, "invoke") && l->ddl) {
		snprintf(what, sizeof(what), "%.40s %.100s", l->f,
			 or_none(l->table));
		add_mark(t, at, 0, what);
	}
	return 0;
}

static void read_history(struct timeline *t, const char *run_dir)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/history.jsonl", run_dir);
	/* An unreadable history draws no timeline, a line that is no
	 * record is not drawn; the verdicts stand. */
	history_read(path, 0, timeline_line, t, NULL, NULL);
}

#define W 900
#define H 160
#define PAD 40

static double x_of(double sec, int seconds)
{
	return PAD + (W - 2 * PAD) * sec / (seconds > 0 ? seconds : 1);
}

static void shade(struct buf *out, const struct timeline *t, int height)
{
	for (size_t i = 0; i < t->nw; i++) {
		double a = x_of(t->w[i].from, t->seconds);
		double b = x_of(t->w[i].to >= 0 ? t->w[i].to : t->seconds,
				t->seconds);

		buf_printf(out, NULL, "<rect x=\"%.1f\" y=\"10\" width=\"%.1f\" "
			   "height=\"%d\" class=\"fault\"><title>", a,
			   b - a > 1 ? b - a : 1, height - 30);
		html(out, t->w[i].what);
		if (t->w[i].to >= 0)
			buf_printf(out, NULL, ", %.1fs to %.1fs",
				   t->w[i].from, t->w[i].to);
		else
			buf_printf(out, NULL, ", %.1fs, never healed",
				   t->w[i].from);
		buf_addstr(out, "</title></rect>\n", NULL);
	}
}

static void axis(struct buf *out, int seconds, int height, const char *label)
{
	buf_printf(out, NULL, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		   "class=\"axis\"/>\n", PAD, height - 20, W - PAD,
		   height - 20);
	for (int s = 0; s <= seconds; s += seconds > 20 ? seconds / 10 : 1)
		buf_printf(out, NULL, "<text x=\"%.1f\" y=\"%d\" "
			   "class=\"tick\">%ds</text>\n", x_of(s, seconds),
			   height - 5, s);
	buf_printf(out, NULL, "<text x=\"4\" y=\"14\" class=\"tick\">%s"
		   "</text>\n", label);
}

/* The value at second `sec` (steps of s->step seconds); latencies in ms,
 * counts per second. */
static double value(const struct series *s, const json_t *a, int sec,
		    int latency)
{
	const json_t *v = json_array_get(a, (size_t)(sec / s->step));
	double x = json_is_number(v) ? json_number_value(v) : 0;

	return latency ? x / 1000.0 : x / s->step;
}

static void plot(struct buf *out, const struct timeline *t,
		 const struct series *s, int latency)
{
	double max = 1, v;

	for (int sec = 0; sec < t->seconds; sec++) {
		v = value(s, latency ? s->p99 : s->ok, sec, latency);
		if (v > max)
			max = v;
	}
	buf_printf(out, NULL, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
		   "width=\"%d\" height=\"%d\" role=\"img\">\n", W, H);
	shade(out, t, H);
	axis(out, t->seconds, H, latency ? "latency ms (p50, p99)"
					 : "operations per second (ok, errors)");
	/* Latency: p50 and p99; throughput: ok and errors. */
	for (int line = 0; line < 2; line++) {
		const json_t *a = latency ? (line ? s->p99 : s->p50)
				  : line ? s->errors : s->ok;

		if (!a)
			continue;
		buf_printf(out, NULL, "<polyline class=\"%s\" points=\"",
			   latency ? (line ? "p99" : "p50")
			   : line ? "errors" : "ops");
		for (int sec = 0; sec < t->seconds; sec++)
			buf_printf(out, NULL, "%.1f,%.1f ",
				   x_of(sec + 0.5, t->seconds),
				   (H - 20) - (H - 40) *
				   value(s, a, sec, latency) / max);
		buf_addstr(out, "\"/>\n", NULL);
	}
	buf_printf(out, NULL, "<text x=\"%d\" y=\"24\" class=\"tick\">max "
		   "%.1f</text>\n</svg>\n", W - PAD - 80, max);
}

static void timeline_svg(struct buf *out, const struct timeline *t)
{
	int height = 120;

	buf_printf(out, NULL, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
		   "width=\"%d\" height=\"%d\" role=\"img\">\n", W, height);
	shade(out, t, height);
	axis(out, t->seconds, height, "faults, DDL, owners");
	for (size_t i = 0; i < t->nm; i++) {
		static const char *const cls[] = {
			"ddl", "owner", "instant", "replica",
		};
		int y = 30 + 25 * t->m[i].kind;

		buf_printf(out, NULL, "<circle cx=\"%.1f\" cy=\"%d\" r=\"3\" "
			   "class=\"%s\"><title>%.3fs ",
			   x_of(t->m[i].at, t->seconds), y,
			   cls[t->m[i].kind], t->m[i].at);
		html(out, t->m[i].what);
		buf_addstr(out, "</title></circle>\n", NULL);
	}
	buf_addstr(out, "</svg>\n", NULL);
}

static const char *str(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : "";
}

static void verdicts(struct buf *out, const json_t *results)
{
	static const char *const sections[] = {
		"workloads", "faults", "checks", NULL,
	};

	buf_addstr(out, "<table><tr><th>what</th><th>verdict</th>"
		   "<th>summary</th></tr>\n", NULL);
	for (int s = 0; sections[s]; s++) {
		const json_t *items = json_object_get(results, sections[s]);

		for (size_t i = 0; i < json_array_size(items); i++) {
			const json_t *it = json_array_get(items, i);
			const char *summary = str(it, "summary");

			buf_addstr(out, "<tr><td>", NULL);
			html(out, str(it, "name"));
			buf_printf(out, NULL, "</td><td class=\"v-%s\">%s"
				   "</td><td>", results_item_verdict(it),
				   results_item_verdict(it));
			html(out, *summary ? summary : *str(it, "message")
			     ? str(it, "message") : str(it, "skip"));
			if (*str(it, "known")) {
				buf_addstr(out, "<br>known failure: ", NULL);
				html(out, str(it, "known"));
			}
			if (*str(it, "unmet")) {
				buf_addstr(out, "<br><b>", NULL);
				html(out, str(it, "unmet"));
				buf_addstr(out, "</b>", NULL);
			}
			buf_addstr(out, "</td></tr>\n", NULL);
		}
	}
	buf_addstr(out, "</table>\n", NULL);
}

static void failures(struct buf *out, const json_t *results)
{
	static const char *const sections[] = {
		"workloads", "faults", "checks", NULL,
	};
	int any = 0;

	for (int s = 0; sections[s]; s++) {
		const json_t *items = json_object_get(results, sections[s]);

		for (size_t i = 0; i < json_array_size(items); i++) {
			const json_t *it = json_array_get(items, i);
			const char *v = str(it, "verdict");
			char *details;

			if (strcmp(v, "fail") && strcmp(v, "unknown") &&
			    strcmp(v, "error"))
				continue;
			if (!any++)
				buf_addstr(out, "<h2>What failed</h2>\n", NULL);
			buf_addstr(out, "<h3>", NULL);
			html(out, str(it, "name"));
			buf_addstr(out, "</h3>\n<p>", NULL);
			html(out, str(it, "message"));
			buf_addstr(out, "</p>\n", NULL);
			details = json_dumps(json_object_get(it, "details"),
					     JSON_INDENT(2) |
					     JSON_PRESERVE_ORDER);
			if (details && strcmp(details, "{}")) {
				buf_addstr(out, "<pre>", NULL);
				html(out, details);
				buf_addstr(out, "</pre>\n", NULL);
			}
			free(details);
		}
	}
}

static void links(struct buf *out)
{
	buf_addstr(out, "<h2>Files</h2>\n<ul>\n"
		   "<li><a href=\"logs/\">logs/</a>: the components' logs "
		   "of the run</li>\n"
		   "<li><a href=\"fix-sql/\">fix-sql/</a>: SQL that repairs "
		   "the downstream, when tables differ</li>\n"
		   "<li><a href=\"history.jsonl\">history.jsonl</a>, "
		   "<a href=\"plan.json\">plan.json</a>, "
		   "<a href=\"results.json\">results.json</a></li>\n"
		   "</ul>\n", NULL);
}

static int build(const json_t *results, const char *run_dir,
		 struct buf *out, struct err *e)
{
	const json_t *w = json_object_get(results, "workloads");
	struct timeline t;

	memset(&t, 0, sizeof(t));
	t.s = xcalloc(json_array_size(w) + 1, sizeof(*t.s));
	t.seconds = (int)(json_integer_value(json_object_get(results,
							      "duration_ns"))
			  / NS_PER_SEC);
	for (size_t i = 0; i < json_array_size(w); i++) {
		const json_t *it = json_array_get(w, i);
		const json_t *ps = json_object_get(it, "per_step");
		struct series *s = &t.s[t.ns];

		if (!json_is_object(ps))
			continue;
		s->name = str(it, "name");
		s->ok = json_object_get(ps, "ok");
		s->errors = json_object_get(ps, "errors");
		s->p50 = json_object_get(ps, "p50_us");
		s->p99 = json_object_get(ps, "p99_us");
		s->step = (int)json_integer_value(json_object_get(ps,
								  "step_s"));
		if (s->step < 1)
			s->step = 1;
		t.ns++;
	}
	read_history(&t, run_dir);
	buf_addstr(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
		   "charset=\"utf-8\"><title>tichaos: ", e);
	html(out, str(results, "suite"));
	buf_addstr(out, "</title>\n<style>\nbody{font:14px/1.4 sans-serif;"
		   "margin:2em;color:#222}\ntable{border-collapse:collapse}\n"
		   "td,th{border:1px solid #ccc;padding:3px 8px;text-align:"
		   "left}\n.v-pass{background:#dfd}.v-fail,.v-unknown,.v-error"
		   "{background:#fdd}.v-skip{background:#eee}.v-known{background:"
		   "#fe9}\n.fault{fill:"
		   "#f99;opacity:.35}.axis{stroke:#888}.tick{font-size:11px;"
		   "fill:#555}\n.ops{fill:none;stroke:#36c;stroke-width:1.5}"
		   ".errors{fill:none;stroke:#c00;stroke-width:1}"
		   ".p50{fill:none;stroke:#393;stroke-width:1.5}.p99{fill:none;"
		   "stroke:#c63;stroke-width:1.5}\n.ddl{fill:#36c}.owner{fill:"
		   "#939}.instant{fill:#c00}.replica{fill:#e80}\npre{background:#f6f6f6;padding:"
		   "8px;overflow:auto;max-height:30em}\n</style></head><body>\n",
		   e);
	buf_addstr(out, "<h1>", e);
	html(out, str(results, "suite"));
	buf_printf(out, e, ": <span class=\"v-%s\">%s</span></h1>\n<p>seed "
		   "%lld, duration %s, started %s, cluster ",
		   str(results, "verdict"), str(results, "verdict"),
		   (long long)json_integer_value(json_object_get(results,
								 "seed")),
		   str(results, "duration"), str(results, "started"));
	html(out, str(results, "cluster"));
	buf_addstr(out, "; replay: <code>tichaos replay ", e);
	html(out, str(results, "run_dir"));
	buf_addstr(out, "</code></p>\n", e);
	if (json_object_get(results, "aborted")) {
		buf_addstr(out, "<p>Aborted: ", e);
		html(out, str(results, "aborted"));
		buf_addstr(out, "</p>\n", e);
	}
	if (json_object_get(results, "skip")) {
		buf_addstr(out, "<p>Skipped: ", e);
		html(out, str(results, "skip"));
		buf_addstr(out, "</p>\n", e);
	}
	verdicts(out, results);
	buf_addstr(out, "<h2>Timeline</h2>\n<p>Shaded: components down or "
		   "paused. Dots: DDL (blue), owner changes (purple), other "
		   "faults (red), the replica stopping or skipping (orange); "
		   "hover for details.</p>\n", e);
	timeline_svg(out, &t);
	for (size_t i = 0; i < t.ns; i++) {
		buf_addstr(out, "<h2>", e);
		html(out, t.s[i].name);
		buf_addstr(out, "</h2>\n", e);
		plot(out, &t, &t.s[i], 0);
		plot(out, &t, &t.s[i], 1);
	}
	failures(out, results);
	links(out);
	buf_addstr(out, "</body></html>\n", e);
	free(t.s);
	free(t.w);
	free(t.m);
	return err_isset(e) ? -1 : 0;
}

const struct report_type report_html = {
	"html", "report.html", "one self-contained page: verdicts, timeline, "
	"throughput and latency with fault windows", build,
};
