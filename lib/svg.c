/*
 * The plots' shared pieces (lib/svg.h).
 */

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

void svg_span(struct buf *out, double from, double to)
{
	if (to >= 0)
		buf_printf(out, NULL, ", %.1fs to %.1fs", from, to);
	else
		buf_printf(out, NULL, ", %.1fs, not healed", from);
}

void svg_axis(struct buf *out, int seconds, int y, const char *label)
{
	buf_printf(out, NULL, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		   "class=\"axis\"/>\n", SVG_LEFT, y, SVG_W - SVG_RIGHT, y);
	for (int s = 0; s <= seconds; s += seconds > 20 ? seconds / 10 : 1)
		buf_printf(out, NULL, "<text x=\"%.1f\" y=\"%d\" "
			   "class=\"tick\">%ds</text>\n", svg_x(s, seconds),
			   y + 15, s);
	if (label)
		buf_printf(out, NULL, "<text x=\"4\" y=\"14\" class=\"tick\">"
			   "%s</text>\n", label);
}
