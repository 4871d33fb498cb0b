/*
 * waitsbars.h — the bar panel of pgtempo-waits --chart: a horizontal bar
 * per (label, value, note), such as the run's wait-event profile, in the
 * colours of the stacked areas above it.
 *
 * It is a custom panel of the core chart (chart.h): the chart places it
 * and draws its title, this module draws the bars; chart_free frees it.
 *
 *	wbars	   *b = wbars_add_panel(c, "The whole run", "%");
 *
 *	wbars_add(b, "CPU", 41.2, "412 samples", CHART_AUTO);
 */
#ifndef PGTEMPO_WAITS_WAITSBARS_H
#define PGTEMPO_WAITS_WAITSBARS_H

#include "pgtempo/chart.h"

typedef struct wbars wbars;

/* Add a bar panel to c; unit follows each value ("%" gives "41.2%"). */
wbars	   *wbars_add_panel(chart *c, const char *title, const char *unit);

/*
 * Add a bar: label on the left, value as its length, note (may be NULL)
 * after the value.  colour is a CHART_* colour or CHART_AUTO: the n-th
 * bar the n-th colour, as the n-th series of a time panel.
 */
void		wbars_add(wbars *b, const char *label, double value, const char *note, int colour);

#endif
