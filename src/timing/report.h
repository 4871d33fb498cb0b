/*
 * report.h — pg_test_timing's text and JSON reports, printed from the
 * results (results.h); the text report pass by pass, as they end.
 */
#ifndef PGTEMPO_TIMING_REPORT_H
#define PGTEMPO_TIMING_REPORT_H

#include <stdio.h>

#include "pgtempo/strbuf.h"

#include "results.h"

void		report_header(FILE *out, const timing_settings *s);
void		report_pass_text(FILE *out, const timing_results *r, const timing_pass *p);
void		report_env_text(FILE *out, const timing_results *r);
/* What a clock read of the system clock costs PostgreSQL's timing features (pgcost.h). */
void		report_cost_text(FILE *out, const timing_results *r);
void		report_cross_text(FILE *out, const timing_results *r, const crosscpu_result *c);
void		report_json(strbuf *out, const timing_results *r);

/* The names the reports use (the --metrics file too). */
/* A pass's clock: the test clock reports as "system". */
const char *report_clock_name(const timing_pass *p);
/* "ok", "backwards", "interrupted", "unavailable". */
const char *report_outcome_name(timing_outcome o);
/* The run's verdict: "ok", "backwards", "backwards_across_cpus", "interrupted". */
const char *report_verdict(const timing_results *r);

#endif
