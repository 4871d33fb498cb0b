/*
 * iochart.h — --chart: an SVG of the request times, over the run (the mean
 * and the slowest of each time bin, on a log scale, and the requests per
 * second) and as a distribution (the log2 histogram's bars).
 */
#ifndef PGTEMPO_IO_IOCHART_H
#define PGTEMPO_IO_IOCHART_H

#include "pgtempo/strbuf.h"

#include "settings.h"
#include "stats.h"
#include "target.h"

/* Append the SVG document to out; st must have kept its timeline. */
void		iochart_render(const io_settings *s, const io_target *t, const io_stats *st,
						   strbuf *out);

#endif
