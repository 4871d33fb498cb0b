/*
 * sink_files.h — the files written at the end of a run: --folded and --chart.  Added to a run's sinks by sinkset.c
 * when the settings ask for it (each add function checks).
 */
#ifndef PGTEMPO_WAITS_SINK_FILES_H
#define PGTEMPO_WAITS_SINK_FILES_H

#include "sink.h"

/* --folded: the stacks of the whole run, at the end. */
void		sink_folded_add(sink_list *l);

/* --chart: the shares of every second, drawn at the end. */
void		sink_chart_add(sink_list *l);

#endif
