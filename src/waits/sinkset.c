/*
 * sinkset.c — the list of concrete sinks, above them (see sinkset.h).
 */
#include "config.h"

#include "sinkset.h"

#include "sink_files.h"
#include "sink_live.h"
#include "sink_log.h"
#include "sink_metrics.h"
#include "sink_store.h"
#include "sink_trace.h"

/*
 * The order is that of opening and closing: the live view first (it gives
 * the terminal back before anything else is said), the store before the
 * log (the log ends with the store's counts), the log before the files
 * written at the end; the metrics last, so that the endpoint (which
 * binds its port before connecting) is the last thing to stop.
 */
void
sinkset_add_all(sink_list *l)
{
	sink_live_add(l);
	sink_store_add(l);
	sink_log_add(l);
	sink_folded_add(l);
	sink_chart_add(l);
	sink_metrics_add(l);
	/* --trace goes with none of the others */
	sink_trace_add(l);
}
