/*
 * waitschart.h — pgtempo-waits --chart: wait-event shares over time.
 *
 * The run's samples are cut into one-second intervals; for each, the
 * active samples of every wait event are kept (a few numbers per event
 * seen in that second, whatever the sampling rate).  At the end,
 * wchart_write() draws a stacked area of each event's share of the
 * active samples over time (the twelve largest events of the run, the
 * rest as "other") above a bar chart of the whole run's profile, with
 * the same colour for an event in both.
 */
#ifndef PGTEMPO_WAITS_WAITSCHART_H
#define PGTEMPO_WAITS_WAITSCHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strpool.h"
#include "wprof.h"

/* One event's samples in one interval. */
typedef struct wchart_cell
{
	const char *label;			/* "Lock:relation", "CPU"; interned */
	uint64_t	samples;
} wchart_cell;

typedef struct wchart_interval
{
	double		t;				/* end of the interval, Unix time in seconds */
	uint64_t	active;			/* active samples in it */
	size_t		first;			/* its cells: cells[first .. first + ncells) */
	size_t		ncells;
} wchart_interval;

typedef struct wchart
{
	strpool    *pool;			/* interns the labels */
	wchart_interval *iv;
	size_t		niv;
	size_t		cap_iv;
	wchart_cell *cells;
	size_t		ncells;
	size_t		cap_cells;
} wchart;

void		wchart_init(wchart *c, strpool *pool);
void		wchart_free(wchart *c);

/* Keep the interval profile iv (one second of samples) that ended at t. */
void		wchart_add_interval(wchart *c, double t, const wprof *iv);

/*
 * Draw the chart of the intervals and the run's profile into path.
 * Returns false with *cause set (caller frees) when it cannot be written.
 */
bool		wchart_write(const wchart *c, const wprof *run, const char *path,
						 const char *subtitle, char **cause);

#endif
