/*
 * baseline_win.c — a compared window's slices and a key's estimate from
 * them, for baseline.c (events, totals, limits) and baseline_heads.c
 * (head blockers) alike; it calls neither.
 */
#include "config.h"

#include <math.h>

#include "baseline_int.h"

/* The slice of time t (clamped: a profile line counted by its middle may start before). */
int
bl_slice_of(const bl_window *w, uint64_t t)
{
	double		k = floor(((double) t - (double) w->slice0_us) / w->slice_us);

	return k < 0 ? 0 : k >= w->nslices ? w->nslices - 1 : (int) k;
}

/* The estimate of one series of the window (y: its samples per slice), at least the sampling's error. */
void
bl_series_est(const bl_window *w, const double *y, keydiff_est *out)
{
	double		k = 0;

	for (int i = 0; i < w->nslices; i++)
		k += y[i];
	keydiff_est_series(y, w->ticks, w->nslices, keydiff_sampling_se(k, w->samples, w->total_ticks),
					   out);
}
