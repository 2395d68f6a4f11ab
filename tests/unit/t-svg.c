/* lib/svg.c: the x of a second, escaping, a window's span, the legend's
 * rows and height, the time axis' ticks. */

#include <string.h>

#include "lib/svg.h"
#include "tests/unit/tap.h"

/* How many times `needle` is in `hay`. */
static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* A linear axis over any range: ids far from 0, one value. */
static void test_yrange(void)
{
	struct buf b = BUF_INIT;
	struct svg_scale sc;

	/* ids 2673 to 35120 of a real run (TiDB issue 52600). */
	sc = svg_yrange(&b, 20, 140, 2673, 35120);
	ok(sc.lo == 0 && sc.hi == 40000 && !sc.log,
	   "ids: 0 to 40000 by 10000 (%g, %g)", sc.lo, sc.hi);
	ok(count(buf_str(&b), "text-anchor=\"end\">") == 5 &&
	   strstr(buf_str(&b), ">30000</text>") != NULL, "a tick a step");
	buf_reset(&b);
	sc = svg_yrange(&b, 20, 140, 1000001, 1000400);
	ok(sc.lo == 1000000 && sc.hi == 1000400,
	   "a narrow range far from 0: 1000000 to 1000400 (%g, %g)", sc.lo,
	   sc.hi);
	ok(count(buf_str(&b), "text-anchor=\"end\">") == 5 &&
	   strstr(buf_str(&b), ">1000200</text>") != NULL, "its ticks by 100");
	buf_reset(&b);
	sc = svg_yrange(&b, 20, 140, 7, 7);
	ok(sc.lo == 7 && sc.hi == 8 && svg_y(&sc, 7) == 140,
	   "one value: a step above it (%g, %g)", sc.lo, sc.hi);
	buf_release(&b);
}

/* A label cut to its room, escaped, or left out. */
static void test_label(void)
{
	struct buf b = BUF_INIT;

	svg_label(&b, 10, 20, "partition cdc (down-0 | up-0)", 60);
	ok(!strcmp(buf_str(&b), "<text x=\"10.0\" y=\"20\" class=\"flabel\">"
		   "partitio...</text>\n"), "a label cut to its room: %s",
	   buf_str(&b));
	buf_reset(&b);
	svg_label(&b, 10, 20, "a<b", 12);
	ok(!*buf_str(&b), "no room for three letters: nothing");
	svg_label(&b, 10, 20, "a<b", 100);
	ok(strstr(buf_str(&b), ">a&lt;b</text>") != NULL, "escaped");
	buf_release(&b);
}

int main(void)
{
	struct buf b = BUF_INIT;
	struct svg_legend l;
	char labels[SVG_LEGEND_MAX + 1][8];
	struct svg_scale sc;
	int height;

	ok(svg_x(0, 10) == SVG_LEFT, "second 0 at the left margin");
	ok(svg_x(10, 10) == SVG_W - SVG_RIGHT, "the last second at the right");
	ok(svg_x(5, 10) == SVG_LEFT + (SVG_W - SVG_LEFT - SVG_RIGHT) / 2.0,
	   "the middle in the middle");
	ok(svg_x(12, 10) == SVG_W - SVG_RIGHT, "a heal after the end: clamped");
	ok(svg_x(-1, 10) == SVG_LEFT, "before the start: clamped");
	ok(svg_x(3, 0) == SVG_W - SVG_RIGHT, "a run of no length: no division "
	   "by zero");

	svg_text(&b, "a<b & \"c\" >d");
	is_str(buf_str(&b), "a&lt;b &amp; &quot;c&quot; &gt;d",
	       "&, <, >, \" escaped");
	buf_reset(&b);
	svg_text(&b, NULL);
	is_str(buf_str(&b), "", "NULL: nothing");

	svg_span(&b, 1, 3);
	svg_span(&b, 3.5, -1);
	is_str(buf_str(&b), ", 1.0s to 3.0s, 3.5s, not healed",
	       "a window's span, healed and not");
	buf_reset(&b);

	memset(&l, 0, sizeof(l));
	svg_legend_add(&l, "ops", "ok", SVG_LINE);
	svg_legend_add(&l, "n0", "cdc-1", SVG_DOT);
	svg_legend_add(&l, "s-down", "down", SVG_AREA);
	height = svg_legend(&b, &l);
	is_str(buf_str(&b), "<g class=\"legend\">\n"
	       "<line x1=\"4\" y1=\"9\" x2=\"16\" y2=\"9\" class=\"ops\"/>"
	       "<text x=\"20\" y=\"13\" class=\"tick\">ok</text>\n"
	       "<circle cx=\"52\" cy=\"9\" r=\"3\" class=\"n0\"/>"
	       "<text x=\"62\" y=\"13\" class=\"tick\">cdc-1</text>\n"
	       "<rect x=\"106\" y=\"4\" width=\"12\" height=\"10\" "
	       "class=\"s-down\"/>"
	       "<text x=\"122\" y=\"13\" class=\"tick\">down</text>\n</g>\n",
	       "each swatch as the plot draws it, side by side");
	ok(height == 22, "one row: 22 high (%d)", height);
	buf_reset(&b);

	memset(&l, 0, sizeof(l));
	for (size_t i = 0; i <= SVG_LEGEND_MAX; i++) {
		snprintf(labels[i], sizeof(labels[i]), "l%zu", i);
		svg_legend_add(&l, "x", labels[i], SVG_AREA);
	}
	ok(l.n == SVG_LEGEND_MAX, "one past the most is left out (%zu)", l.n);
	height = svg_legend(&b, &l);
	/* Entries 42 wide ("l0".."l9"), then 48: 19, 18 and 11 to a row. */
	ok(height == 4 + 2 * 16 + 18, "rows as wide as the plot: 3 rows (%d)",
	   height);
	ok(count(buf_str(&b), "<rect ") == SVG_LEGEND_MAX, "every one drawn");
	buf_reset(&b);

	svg_axis(&b, 40, 100, "ops");
	ok(count(buf_str(&b), "class=\"tick\">") == 10,
	   "40 s: a tick every 5 s (0..40), and the label");
	ok(strstr(buf_str(&b), ">40s</text>") != NULL, "the last second ticked");
	buf_reset(&b);
	svg_axis(&b, 5, 100, NULL);
	ok(count(buf_str(&b), "class=\"tick\">") == 6,
	   "5 s: a tick every second, no label");
	buf_reset(&b);
	svg_axis(&b, 70, 100, NULL);
	ok(count(buf_str(&b), "class=\"tick\">") == 8 &&
	   strstr(buf_str(&b), ">10s</text>") && strstr(buf_str(&b), ">70s<") &&
	   !strstr(buf_str(&b), ">7s<"), "70 s: every 10 s, not every 7");
	buf_reset(&b);

	sc = svg_yaxis(&b, 20, 140, 101, 0);
	ok(sc.lo == 0 && sc.hi == 200, "linear: 0 to 200 for 101 (%g, %g)",
	   sc.lo, sc.hi);
	ok(count(buf_str(&b), "text-anchor=\"end\">") == 5 &&
	   strstr(buf_str(&b), ">150</text>") != NULL,
	   "five ticks, 0 to 200 by 50");
	ok(svg_y(&sc, 0) == 140 && svg_y(&sc, 200) == 20 &&
	   svg_y(&sc, 100) == 80 && svg_y(&sc, 900) == 20,
	   "a value's y, clamped to the axis");
	buf_reset(&b);
	sc = svg_yaxis(&b, 20, 140, 36.9, 1);
	ok(sc.lo > 0.0999 && sc.lo < 0.1001 && sc.hi > 99.99 && sc.hi < 100.01,
	   "log: decades 0.1 to 100 for 36.9 ms (%g, %g)", sc.lo, sc.hi);
	ok(count(buf_str(&b), "text-anchor=\"end\">") == 4 &&
	   strstr(buf_str(&b), ">0.1</text>") != NULL &&
	   strstr(buf_str(&b), ">100</text>") != NULL, "a tick a decade");
	ok(svg_y(&sc, 10) > 59.9 && svg_y(&sc, 10) < 60.1 &&
	   svg_y(&sc, 0.001) == 140, "10 two thirds up; below 0.1 at the bottom");
	buf_release(&b);
	test_yrange();
	test_label();
	return done_testing();
}
