/*
 * capsweep_int.h — what --sweep's run (capsweep.c), its merge
 * (capsweepmerge.c) and the capacity report (capreport.c) share.
 */
#ifndef PGTEMPO_BENCH_CAPSWEEP_INT_H
#define PGTEMPO_BENCH_CAPSWEEP_INT_H

#include "capacity_int.h"
#include "capsweep.h"
#include "pgtempo/json.h"

/* One step's measured seconds and -P lag points, as its report carries them. */
struct capsweep_data
{
	series		sr;
	report_progress_point *lag;
	int			nlag;
	double		epoch_s;		/* the step's start (the plan's clock) */
};

/* The bracket of a sweep from its judged steps: the lowest failing rate, the highest passing below it. */
void		capsweep_bracket(cap_search *cs);

/* The report's first line for a sweep (in place of the search's and its probe's). */
void		capsweep_print_header(FILE *out, const cap_search *cs);

/* --json's "sweep": the plan, the share, and each step's seconds and lag points. */
void		capsweep_write_json(json_writer *w, const cap_search *cs);


/* Free the steps' data of p. */
void		capsweep_free_data(capsweep_plan *p);

#endif
