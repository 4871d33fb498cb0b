/*
 * chart_colour.c — the charts' palette and colour picking, shared by the
 * model (chart.c), the panels drawn (chart_time.c, chart_stack.c) and
 * custom panels of the tools; it calls none of them.
 */
#include "config.h"

#include "pgtempo/chart.h"

#include "pgtempo/strbuf.h"

#include "chart_int.h"

/* Colours by CHART_* index (pgtempo/chart.h). */
const char *const chart_palette[CHART_NCOLOURS] = {
	"#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7",
	"#F0E442", "#332288", "#999933", "#882255", "#44AA99", "#CC6677",
	"#BBBBBB", "#000000"
};

/* The colour asked for, or the next automatic one of the panel. */
int
chart_colour_pick(int colour, int *nauto)
{
	if (colour >= 0 && colour < CHART_NCOLOURS)
		return colour;
	return (*nauto)++ % CHART_NAUTO;
}

/* An SVG attribute name="#rrggbb" of a colour. */
void
chart_colour_attr(strbuf *out, const char *name, int colour)
{
	strbuf_printf(out, " %s=\"%s\"", name, chart_palette[colour]);
}
