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

/*
 * PostgreSQL's tests (pgdisk.c): one panel of bars per test, the
 * distribution of its request times, every panel on the same buckets.
 */
void		iochart_render_dists(const char *subtitle, const io_dist *d, int n, strbuf *out);

#endif
