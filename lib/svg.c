/*
 * The plots' shared pieces (lib/svg.h).
 */

#include <math.h>
#include <string.h>

#include "svg.h"

double svg_x(double sec, int seconds)
{
	double x = SVG_LEFT + (SVG_W - SVG_LEFT - SVG_RIGHT) * sec /
		   (seconds > 0 ? seconds : 1);

	/* A heal at the end of the run comes after its last second. */
	return x < SVG_LEFT ? SVG_LEFT : x > SVG_W - SVG_RIGHT ?
	       SVG_W - SVG_RIGHT : x;
}

void svg_text(struct buf *out, const char *s)
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

void svg_legend_add(struct svg_legend *l, const char *cls, const char *label,
		    int shape)
{
	if (l->n == SVG_LEGEND_MAX)
		return;
	l->cls[l->n] = cls;
	l->label[l->n] = label;
	l->shape[l->n] = shape;
	l->n++;
}

int svg_legend(struct buf *out, const struct svg_legend *l)
{
	int x = 4, y = 4;

	buf_addstr(out, "<g class=\"legend\">\n", NULL);
	for (size_t i = 0; i < l->n; i++) {
		int width = 16 + 6 * (int)strlen(l->label[i]) + 14;

		if (x > 4 && x + width > SVG_W) {
			x = 4;
			y += 16;
		}
		if (l->shape[i] == SVG_LINE)
			buf_printf(out, NULL, "<line x1=\"%d\" y1=\"%d\" "
				   "x2=\"%d\" y2=\"%d\" class=\"%s\"/>", x,
				   y + 5, x + 12, y + 5, l->cls[i]);
		else if (l->shape[i] == SVG_DOT)
			buf_printf(out, NULL, "<circle cx=\"%d\" cy=\"%d\" "
				   "r=\"3\" class=\"%s\"/>", x + 6, y + 5,
				   l->cls[i]);
		else
			buf_printf(out, NULL, "<rect x=\"%d\" y=\"%d\" "
				   "width=\"12\" height=\"10\" class=\"%s\"/>",
				   x, y, l->cls[i]);
		buf_printf(out, NULL, "<text x=\"%d\" y=\"%d\" class=\"tick\">"
			   "%s</text>\n", x + 16, y + 9, l->label[i]);
		x += width;
	}
	buf_addstr(out, "</g>\n", NULL);
	return y + 18;
}

void svg_label(struct buf *out, double x, int y, const char *text,
	       double room)
{
	size_t fit = room > 0 ? (size_t)(room / 5.6) : 0, n = strlen(text);
	struct buf cut = BUF_INIT;

	if (fit < 3)
		return;
	if (n > fit) {
		buf_add(&cut, text, fit - 2, NULL);
		buf_addstr(&cut, "...", NULL);
	} else {
		buf_addstr(&cut, text, NULL);
	}
	buf_printf(out, NULL, "<text x=\"%.1f\" y=\"%d\" class=\"flabel\">",
		   x, y);
	svg_text(out, buf_str(&cut));
	buf_addstr(out, "</text>\n", NULL);
	buf_release(&cut);
}

void svg_span(struct buf *out, double from, double to)
{
	if (to >= 0)
		buf_printf(out, NULL, ", %.1fs to %.1fs", from, to);
	else
		buf_printf(out, NULL, ", %.1fs, not healed", from);
}

/* The least of 1, 2, 5 times a power of ten at or above `v` (> 0). */
static double nice(double v)
{
	double p = 1;

	while (p * 10 <= v)
		p *= 10;
	while (p > v)
		p /= 10;
	return v <= p ? p : v <= 2 * p ? 2 * p : v <= 5 * p ? 5 * p : 10 * p;
}

void svg_axis(struct buf *out, int seconds, int y, const char *label)
{
	/* Up to 20 s, every second; then 1, 2 or 5 times a power of ten,
	 * ten ticks or fewer. */
	int step = seconds > 20 ? (int)nice(seconds / 10.0) : 1;

	buf_printf(out, NULL, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		   "class=\"axis\"/>\n", SVG_LEFT, y, SVG_W - SVG_RIGHT, y);
	for (int s = 0; s <= seconds; s += step)
		buf_printf(out, NULL, "<text x=\"%.1f\" y=\"%d\" "
			   "class=\"tick\">%ds</text>\n", svg_x(s, seconds),
			   y + 15, s);
	if (label)
		buf_printf(out, NULL, "<text x=\"4\" y=\"14\" class=\"tick\">"
			   "%s</text>\n", label);
}

/* A tick's number as it reads: 0.5, 20, 1500, 2e+06. */
static void tick_text(struct buf *out, double v)
{
	if (v != 0 && (v < 0.01 || v >= 1e6))
		buf_printf(out, NULL, "%.0e", v);
	else
		buf_printf(out, NULL, "%g", v);
}

/* One tick of a y axis at value `v`: its mark and its number (`exact`:
 * every digit, as an id reads; else short: 2e+06). */
static void ytick(struct buf *out, const struct svg_scale *sc, double v,
		  int exact)
{
	double y = svg_y(sc, v);

	buf_printf(out, NULL, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
		   "y2=\"%.1f\" class=\"axis\"/><text x=\"%d\" "
		   "y=\"%.1f\" class=\"tick\" text-anchor=\"end\">",
		   SVG_LEFT - 4, y, SVG_LEFT, y, SVG_LEFT - 6, y + 4);
	if (exact)
		buf_printf(out, NULL, "%.15g", v);
	else
		tick_text(out, v);
	buf_addstr(out, "</text>\n", NULL);
}

static void yline(struct buf *out, int top, int bottom)
{
	buf_printf(out, NULL, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		   "class=\"axis\"/>\n", SVG_LEFT, top, SVG_LEFT, bottom);
}

struct svg_scale svg_yaxis(struct buf *out, int top, int bottom, double max,
			   int log)
{
	struct svg_scale sc = { 0, 0, log, top, bottom };
	double v;

	if (log) {
		/* Decades: the top one at or above max, three below it
		 * (0.01 the least). */
		for (sc.hi = 0.01; sc.hi < max; sc.hi *= 10)
			;
		sc.lo = sc.hi / 1000 > 0.01 ? sc.hi / 1000 : 0.01;
	} else {
		sc.hi = nice(max > 0 ? max : 1);
	}
	yline(out, top, bottom);
	for (int i = 0; i <= 4; i++) {
		if (log) {
			v = sc.lo;
			for (int k = 0; k < i; k++)
				v *= 10;
			if (v > sc.hi * 1.0001)
				break;
		} else {
			v = sc.hi * i / 4;
		}
		ytick(out, &sc, v, 0);
	}
	return sc;
}

struct svg_scale svg_yrange(struct buf *out, int top, int bottom, double lo,
			    double hi)
{
	struct svg_scale sc = { 0, 0, 0, top, bottom };
	double step = nice(hi > lo ? (hi - lo) / 4 : 1);

	sc.lo = floor(lo / step) * step;
	sc.hi = ceil(hi / step) * step;
	if (sc.hi <= sc.lo)
		sc.hi = sc.lo + step;
	yline(out, top, bottom);
	for (int i = 0; sc.lo + i * step <= sc.hi + step / 2; i++)
		ytick(out, &sc, sc.lo + i * step, 1);
	return sc;
}

double svg_y(const struct svg_scale *sc, double v)
{
	double f;

	if (sc->log)
		f = v <= sc->lo ? 0 : (log10(v) - log10(sc->lo)) /
				      (log10(sc->hi) - log10(sc->lo));
	else
		f = sc->hi > sc->lo ? (v - sc->lo) / (sc->hi - sc->lo) : 0;
	f = f < 0 ? 0 : f > 1 ? 1 : f;
	return sc->bottom - (sc->bottom - sc->top) * f;
}
