/*
 * sink_log.h — the --log sink.  Added to a run's sinks by sinkset.c
 * when the settings ask for it (each add function checks).
 */
#ifndef PGTEMPO_WAITS_SINK_LOG_H
#define PGTEMPO_WAITS_SINK_LOG_H

#include "sink.h"

/* --log: raw rows or interval profiles of the run, with health and gap records. */
void		sink_log_add(sink_list *l);

#endif
