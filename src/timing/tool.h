/*
 * tool.h — pg_test_timing as a whole: settings in, passes run, report out.
 */
#ifndef PGTEMPO_TIMING_TOOL_H
#define PGTEMPO_TIMING_TOOL_H

#include "results.h"

/*
 * Run everything the settings ask for; print the report (report.h) as
 * each pass ends; return the exit status.
 */
int			tool_run(const timing_settings *s);

#endif
