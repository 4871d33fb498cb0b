/*
 * sink_json.h — --json=FILE: the JSON report in a file beside the text
 * report.  The report writes it at the end (report.h, baselineout.h);
 * the sink proves its path writable before connecting.  Added to a run's
 * sinks by sinkset.c when the settings ask for it.
 */
#ifndef PGTEMPO_WAITS_SINK_JSON_H
#define PGTEMPO_WAITS_SINK_JSON_H

#include "sink.h"

/* --json=FILE: its path checked before connecting. */
void		sink_json_add(sink_list *l);

#endif
