/*
 * report_cost.h — what sampling cost the server, and what the cost budget
 * (budget.h) did about it: a line of the text report and a member of the
 * JSON report.
 */
#ifndef PGTEMPO_WAITS_REPORT_COST_H
#define PGTEMPO_WAITS_REPORT_COST_H

#include <stdbool.h>
#include <stdio.h>

#include "pgtempo/json.h"

typedef struct report_cost
{
	double		share;			/* the budget, of one CPU; 0: none */
	bool		measured;		/* our backend's CPU could be read (a server on this host) */
	bool		user_interval;	/* -i: the rate is the user's, never changed */
	bool		known_pids;		/* --pid: a statement that reads only their status was ready */
	bool		pids_each;		/* ... and the last sample used it (a server with many backends) */
	int			npids;
	double		want_interval_s;	/* asked for */
	double		interval_s;		/* at the end */
	double		max_interval_s;	/* the longest used */
	double		cost_us;		/* CPU per sample, last window; < 0: unknown */
	double		max_cost_us;	/* the highest window's; < 0: unknown */
	int			backends;		/* on the server, last counted; < 0: unknown */
	int			changes;		/* times the budget changed the rate */
	double		error_factor;	/* the error bounds against those at the rate asked for */
} report_cost;

/* "cost: ..." lines of the text report. */
void		report_cost_text(FILE *out, const report_cost *c);
/* The "cost" member of the JSON report. */
void		report_cost_json(json_writer *w, const report_cost *c);

#endif
