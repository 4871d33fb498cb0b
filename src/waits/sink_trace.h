/*
 * sink_trace.h — the --trace sink.  Added to a run's sinks by sinkset.c
 * when the settings ask for it (each add function checks).
 */
#ifndef PGTEMPO_WAITS_SINK_TRACE_H
#define PGTEMPO_WAITS_SINK_TRACE_H

#include "sink.h"

/* --trace: a line when a traced backend's wait begins and one when it ends. */
void		sink_trace_add(sink_list *l);

#endif
