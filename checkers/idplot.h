#ifndef TICHAOS_IDPLOT_H
#define TICHAOS_IDPLOT_H

/*
 * The ids check's draw (core/figure.h): for each table its details'
 * "first" pairs name, at most four, a plot of each server's ids over the
 * run (its lowest and highest in each of 400 slices of the run, from the
 * history's inserts), the pairs out of order joined and circled, the
 * faults' windows shaded, instant faults and owner changes a line across.
 * The details' text keeps every member.
 */

#include "core/figure.h"

figure_draw ids_draw;

#endif
