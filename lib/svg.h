#ifndef TICHAOS_SVG_H
#define TICHAOS_SVG_H

/*
 * The pieces report.html's plots share, for the report and for any kind
 * that draws its own part of it (core/figure.h): the plots' width and
 * margins, the x of a second of the run, a legend above a plot, the time
 * axis, and text escaped for HTML and SVG. The classes named here are the
 * page's stylesheet's (reports/html.c).
 */

#include <stddef.h>

#include "buf.h"

#define SVG_W 900		/* every plot's width */
#define SVG_LEFT 150		/* lane names, the y axis' label */
#define SVG_RIGHT 30

/* The x of second `sec` of a run `seconds` long, within the margins. */
double svg_x(double sec, int seconds);

/* `s` as HTML or SVG text or attribute value (&, <, >, " escaped). */
void svg_text(struct buf *out, const char *s);

/* How a legend shows a colour: as the plot draws it. */
enum svg_swatch { SVG_AREA, SVG_LINE, SVG_DOT };

#define SVG_LEGEND_MAX 48

/* What a legend lists: swatches with their meaning. */
struct svg_legend {
	const char *cls[SVG_LEGEND_MAX];
	const char *label[SVG_LEGEND_MAX];
	int shape[SVG_LEGEND_MAX];	/* enum svg_swatch */
	/* MAY: the i-th entry's class, built by the caller (cls[i]). */
	char own_cls[SVG_LEGEND_MAX][40];
	size_t n;
};

/* Add a swatch of class `cls` meaning `label` (both kept, not copied);
 * one past SVG_LEGEND_MAX is left out. */
void svg_legend_add(struct svg_legend *l, const char *cls, const char *label,
		    int shape);

/* The legend at the top of a plot, in rows as wide as the plot; its
 * height. */
int svg_legend(struct buf *out, const struct svg_legend *l);

/* `text` at (x, y) in the page's label style, cut with "..." to the
 * `room` pixels to its right; nothing when not three letters fit. */
void svg_label(struct buf *out, double x, int y, const char *text,
	       double room);

/* ", 1.0s to 3.0s" or, when `to` < 0, ", 3.5s, not healed". */
void svg_span(struct buf *out, double from, double to);

/* The time axis at `y`, its ticks below (every second up to 20 s, then
 * every 1, 2 or 5 times a power of ten: 10 s for 70 s); `label` (MAY) at
 * the top. */
void svg_axis(struct buf *out, int seconds, int y, const char *label);

/* A y axis: from `lo` at `bottom` to `hi` at `top`, logarithmic or not. */
struct svg_scale {
	double lo, hi;
	int log;
	int top, bottom;
};

/*
 * The y axis at the left margin from `bottom` to `top`, with its ticks
 * and their numbers: linear from 0 to the least of 1, 2 or 5 times a
 * power of ten at or above `max`; `log`: decades, the top one at or
 * above `max`, three below it (0.01 the least). Its scale, for svg_y.
 */
struct svg_scale svg_yaxis(struct buf *out, int top, int bottom, double max,
			   int log);

/*
 * A linear y axis over values from `lo` to `hi` (ids, counts): from the
 * multiple of a step (1, 2 or 5 times a power of ten, four or five steps)
 * at or below `lo` to the one at or above `hi`, a tick and its number at
 * each, every digit of it (1000200, not 1e+06). Its scale, for svg_y.
 */
struct svg_scale svg_yrange(struct buf *out, int top, int bottom, double lo,
			    double hi);

/* The y of `v` on scale `sc`, clamped to the axis. */
double svg_y(const struct svg_scale *sc, double v);

#endif