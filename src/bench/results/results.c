/*
 * results.c — the report, the end-of-run messages and the output files.
 */
#include "config.h"

#include "results.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmetrics.h"
#include "jsonreport.h"
#include "pgtempo/exitcode.h"
#include "pgtempo/msg.h"
#include "pgtempo/strbuf.h"

void
results_window(report_window *w, double start_epoch_s, double end_epoch_s, const clock_sync *c)
{
	memset(w, 0, sizeof(*w));
	jsonreport_iso8601(w->start, sizeof(w->start), start_epoch_s);
	jsonreport_iso8601(w->end, sizeof(w->end), end_epoch_s);
	w->nknown = c->known ? 1 : 0;
	w->nsynced = c->known && c->synchronized ? 1 : 0;
	w->est_error_ms = c->est_error_s * 1e3;
	w->max_error_ms = c->max_error_s * 1e3;
}

/* The text report and the messages on how the run ended; returns the exit status so far. */
static int
print_outcome(const bench_settings *s, const bench_results *res)
{
	int			status = EXITCODE_OK;

	if (res->setup_failed && res->stop_signal == 0)
		return EXITCODE_ERROR;
	if (res->aborted_all)
	{
		/* no text report, as pgbench; --json has it */
		msg_error("Run was aborted due to an error in thread %d", res->abort_thread);
		return EXITCODE_RUN_FAILED;
	}
	{
		FILE	   *out = report_stream(s);
		report_data d = res->data;
		report_window w;

		if (s->start_at_epoch_s > 0)
		{
			results_window(&w, res->bench_start_epoch_s, res->end_epoch_s, &res->clock);
			d.window = &w;
		}
		if (s->warmup != WARMUP_NONE)
			d.warmup = &res->warmup;
		report_print(out, s, &res->server, &d);
		fflush(out);
	}
	if (res->client_aborted)
		status = EXITCODE_RUN_FAILED;
	if (res->stop_signal != 0)
		msg_warning("interrupted by %s: the report covers the transactions that ended before the stop",
					res->stop_signal == SIGINT ? "SIGINT" : "SIGTERM");
	if (res->abandoned > 0)
	{
		if (res->second_signal)
			msg_warning("%d client(s) abandoned at the second signal: their backends had not answered the cancel request",
						res->abandoned);
		else
			msg_warning("%d client(s) abandoned: their backends did not answer within %d s of the cancel request",
						res->abandoned, STOP_CANCEL_WAIT_S);
		msg_detail("Their connections were closed; a backend that resumes ends the statement.");
		if (status == EXITCODE_OK)
			status = EXITCODE_RUN_FAILED;
	}
	if (res->stop_signal != 0)
		status = EXITCODE_SIGNAL(res->stop_signal);
	else if (status == EXITCODE_RUN_FAILED && res->abandoned == 0)
		msg_error("Run was aborted; the above results are incomplete.");
	return status;
}

bool
results_write_hist(const output_ctx *c, const char *path, char **cause)
{
	const bench_results *res = c->data;

	return !res->merged || report_histogram_write(path, res->data.lat_hist, cause);
}

bool
results_write_json(const output_ctx *c, const char *path, char **cause)
{
	const bench_settings *s = c->s;
	const bench_results *res = c->data;
	jsonreport_run run = {
		.server = &res->server,
		.server_version = res->server_version,
		.server_version_num = res->server_version_num,
		.start_epoch_s = res->start_epoch_s,
		.end_epoch_s = res->end_epoch_s,
		.bench_start_epoch_s = res->merged ? res->bench_start_epoch_s : 0,
		.clock = &res->clock,
		.stop_signal = res->stop_signal,
		.log_lines_lost = res->log_lines_lost,
		.clients_abandoned = res->abandoned,
		.data = res->merged ? &res->data : NULL,
		.progress = res->progress,
		.nprogress = res->nprogress,
		.series = &res->series,
		.waits = res->waits,
		.exit_status = c->status,
		.warmup = s->warmup != WARMUP_NONE ? &res->warmup : NULL,
	};

	return jsonreport_write(path, s, &run, cause);
}

bool
results_write_chart(const output_ctx *c, const char *path, char **cause)
{
	const bench_results *res = c->data;

	(void) path;				/* bench_chart_write writes s->chart_path */
	return !res->merged || bench_chart_write(c->s, c->s->command_line, res->chart, res->nchart, cause);
}

bool
results_write_metrics(const output_ctx *c, const char *path, char **cause)
{
	return benchmetrics_write(path, c->s, c->data, c->status, cause);
}

int
results_finish(const bench_settings *s, const bench_results *res)
{
	int			status = print_outcome(s, res);

	if (res->log_lines_lost > 0)
	{
		msg_error("%lld log line(s) were lost: the -l log files are incomplete",
				  (long long) res->log_lines_lost);
		if (status == EXITCODE_OK)
			status = EXITCODE_ERROR;
	}
	output_write_all(s, OUTPUT_RUN, res, &status);
	return status;
}

int
results_not_started(const bench_settings *s)
{
	bench_results none;
	int			status = EXITCODE_ERROR;

	memset(&none, 0, sizeof(none));
	output_write_all(s, OUTPUT_NOT_STARTED, &none, &status);
	return status;
}

void
results_free(bench_results *res, int nscripts)
{
	if (res->merged)
		report_data_free(&res->data, nscripts);
	free(res->server_version);
	free(res->progress);
	free(res->chart);
	series_free(&res->series);
	bwaits_report_free(res->waits);
	memset(res, 0, sizeof(*res));
}
