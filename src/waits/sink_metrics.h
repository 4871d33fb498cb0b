/*
 * sink_metrics.h — the metrics sink: --metrics (a textfile for
 * node_exporter's textfile collector, written at each --log-interval and
 * at the end) and --listen (/metrics served while sampling).  Added to a
 * run's sinks by sinkset.c when the settings ask for either.
 */
#ifndef PGTEMPO_WAITS_SINK_METRICS_H
#define PGTEMPO_WAITS_SINK_METRICS_H

#include "sink.h"

void		sink_metrics_add(sink_list *l);

#endif
