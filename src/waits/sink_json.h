/*
 * sink_json.h — --json=FILE: the JSON report in a file beside the text
 * report.  The report writes it at the end (report.h, baselineout.h);
 * the sink proves its path writable before connecting.  Added to a run's
 * sinks by sinkset.c when the settings ask for it.
 */
#ifndef PGTEMPO_WAITS_SINK_JSON_H
#define PGTEMPO_WAITS_SINK_JSON_H

#include "pgtempo/opt.h"
#include "sink.h"

/* The option: --json (also --json=-) the report on stdout; --json=FILE in FILE too. */
opt_status	sink_json_option(const opt_def *def, void *ctx, const char *arg);

/* --json=FILE: its path checked before connecting. */
void		sink_json_add(sink_list *l);

#endif
