/*
 * measured_int.h — what the parts of the measured figures share: the pairs
 * of a measured figure and its sampled estimate, and a pair worked out.
 * measured.c reads the counters and counts the samples, measured_fig.c
 * works out the figures, their bounds, reasons and --fail-if, and
 * measured_out.c prints them (text, JSON) with the timing settings' cost.
 */
#ifndef PGTEMPO_WAITS_MEASURED_INT_H
#define PGTEMPO_WAITS_MEASURED_INT_H

#include "measured.h"

/* A measured figure and the sampled estimate of the same thing. */
typedef struct measured_pair
{
	measured_kind kind;
	const char *name;			/* JSON */
	const char *what;			/* text */
	int			time_col;
	int			count_col;		/* -1: no count */
	const char *count_word;
	int			setting_col;	/* -1: always timed */
	const char *measured_by;	/* before a server says otherwise (measured_run.by) */
	const char *sampled_by;
	const char *sampled_type;	/* the wait event type and event of the rows; event NULL: any */
	const char *sampled_event;
	int			out_col;		/* of the time, by processes the sampling leaves out; -1: none */
} measured_pair;

/* One pair per kind of sampled rows, in measured_kind's order. */
#define MEASURED_NPAIRS MEAS_NKINDS
extern const measured_pair measured_pairs[MEASURED_NPAIRS];

/* One pair worked out for the report. */
typedef struct measured_fig
{
	const char *missing;		/* why there is no measured figure; NULL: there is */
	double		measured_s;
	bool		has_count;
	int64_t		count;
	double		sampled_s;
	double		bound_s;
	bool		compared;		/* the sampled side describes the same thing */
	bool		agree;
	bool		reset;
	double		own_s;			/* our own statements, taken off the measured active time */
	bool		own_in;			/* ... which are in it, but could not be taken off */
	double		out_s;			/* of the measured, by processes the sampling leaves out; < 0 unknown */
	const char *reasons[5];
	int			nreasons;
} measured_fig;

/* Work out pair p over the whole run. */
void		measured_figure(const measured_run *m, const measured_pair *p, double period_s, measured_fig *f);

/* The --fail-if=disagree lines of the text report, and the JSON's fail_if. */
void		measured_text_gate(FILE *out, const measured_run *m, double period_s);
void		measured_json_gate(json_writer *w, const measured_run *m, double period_s);

#endif
