/*
 * tool.c — run the passes pg_test_timing's settings ask for, collect the
 * results, and have report.c print them (report.c never calls back).
 */
#include "config.h"

#include "tool.h"

#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/exitcode.h"
#include "pgtempo/msg.h"
#include "pgtempo/signals.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"

#include "report.h"
#include "timingmetrics.h"

static volatile sig_atomic_t caught_signal;

/* First SIGINT/SIGTERM: finish the current pass early and report; the handler then resets. */
static void
on_signal(int signo)
{
	caught_signal = signo;
	timing_request_stop();
}

/* Install the test clock from $PGTEMPO_FAKE_CLOCK, if set (*readings then not NULL); false on a bad value. */
static bool
setup_fake_clock(uint64_t **readings)
{
	const char *spec = getenv("PGTEMPO_FAKE_CLOCK");
	size_t		n;

	*readings = NULL;
	if (spec == NULL || *spec == '\0')
		return true;
	if (!timing_parse_fake_clock(spec, readings, &n))
	{
		msg_error("invalid value \"%s\" for environment variable PGTEMPO_FAKE_CLOCK", spec);
		return false;
	}
	timing_set_fake_clock(*readings, n);
	return true;
}

/*
 * The passes, one per clock asked for, each reported as it ends; they stop
 * at a signal or at the first that sees time go backwards.  fake: the
 * system clock is the test clock.
 */
static void
run_passes(timing_results *r, uint64_t duration_ns, bool fake)
{
	const timing_settings *s = r->settings;

	for (int c = 0; c < TIMING_CLOCK_COUNT && !caught_signal; c++)
	{
		timing_pass *p;
		timing_clock clock = (timing_clock) c;

		if (!s->clocks[c])
			continue;
		if (clock == TIMING_CLOCK_SYSTEM && fake)
			clock = TIMING_CLOCK_FAKE;
		p = xmalloc(sizeof(*p));
		r->passes[r->npasses++] = p;
		timing_run(p, clock, duration_ns, &r->tsc);
		if (p->outcome == TIMING_BACKWARDS)
		{
			/* PostgreSQL's words, without a prefix: scripts look for them */
			fflush(stdout);
			fprintf(stderr, "Detected clock going backwards in time.\n");
			fprintf(stderr, "Time warp: %llu ns\n", (unsigned long long) p->warp_ns);
		}
		if (!s->json)
			report_pass_text(stdout, r, p);
		if (p->outcome == TIMING_BACKWARDS)
			break;
	}
	if (!s->json)
	{
		report_env_text(stdout, r);
		report_cost_text(stdout, r);
	}
}

/* --cross-cpu: the check for every clock asked for that this machine has, until a signal. */
static void
run_cross_cpu(timing_results *r, uint64_t duration_ns)
{
	const timing_settings *s = r->settings;

	for (int c = 0; c < TIMING_CLOCK_COUNT && !caught_signal; c++)
	{
		timing_clock clock = (timing_clock) c;

		if (!s->clocks[c])
			continue;
		if (clock != TIMING_CLOCK_SYSTEM && !r->tsc.usable)
			continue;
		if (clock == TIMING_CLOCK_RDTSCP && !r->tsc.has_rdtscp)
			continue;
		crosscpu_run(&r->cross[c], clock, duration_ns, &r->tsc);
		r->cross_ran[c] = true;
		if (!s->json)
			report_cross_text(stdout, r, &r->cross[c]);
	}
}

/* --json=FILE: the JSON document, whole or not at all. */
static bool
json_write(const char *path, const timing_results *r, char **cause)
{
	strbuf		out;

	strbuf_init(&out);
	report_json(&out, r);
	return strbuf_write_free(&out, path, cause);
}

/*
 * The output files: the path's field in the settings, its check before
 * the first pass, its writer.  In the order they are written: --metrics
 * last (its verdict and exit status are the run's).  Adding an output is
 * its writer and one line here.
 */
static const struct
{
	size_t		field;
	bool		(*check) (const char *path, char **cause);
	bool		(*write) (const char *path, const timing_results *r, char **cause);
}			outputs[] = {
	{offsetof(timing_settings, json_path), strbuf_check_writable, json_write},
	{offsetof(timing_settings, metrics_path), metrics_check_path, timingmetrics_write},
};

/* The path output i is asked for at; NULL: not asked for. */
static const char *
output_path(const timing_settings *s, size_t i)
{
	return *(const char *const *) ((const char *) s + outputs[i].field);
}

/* Every output's path can be written: found out now, not after the passes. */
static bool
check_outputs(const timing_settings *s)
{
	for (size_t i = 0; i < sizeof(outputs) / sizeof(outputs[0]); i++)
	{
		const char *path = output_path(s, i);
		char	   *cause = NULL;

		if (path != NULL && !outputs[i].check(path, &cause))
		{
			msg_error("%s", cause);
			free(cause);
			return false;
		}
	}
	return true;
}

/*
 * Write every output asked for; one that is not written is said, and is
 * output lost as stdout's: exit status 1 unless it already says more.
 */
static void
write_outputs(timing_results *r)
{
	for (size_t i = 0; i < sizeof(outputs) / sizeof(outputs[0]); i++)
	{
		const char *path = output_path(r->settings, i);
		char	   *cause = NULL;

		if (path != NULL && !outputs[i].write(path, r, &cause))
		{
			msg_error("%s", cause);
			free(cause);
			if (r->exit_status == EXITCODE_OK)
				r->exit_status = EXITCODE_ERROR;
		}
	}
}

/* The exit status, the JSON report or the text report's last words; r->exit_status set. */
static void
finish(timing_results *r)
{
	r->signo = caught_signal;
	if (results_backwards(r) || results_cross_backwards(r))
		r->exit_status = EXITCODE_ERROR;
	else if (r->signo)
		r->exit_status = EXITCODE_SIGNAL(r->signo);

	if (r->settings->json)
	{
		strbuf		out;

		strbuf_init(&out);
		report_json(&out, r);
		fwrite(out.data, 1, out.len, stdout);
		strbuf_free(&out);
	}
	else if (r->signo)
		printf("\nInterrupted by signal %d: the results above cover the time until then.\n",
			   r->signo);
	if (results_cross_backwards(r))
		msg_error("Detected clock going backwards across CPUs.");
	if (!msg_flush_stdout() && r->exit_status == EXITCODE_OK)
		r->exit_status = EXITCODE_ERROR;
	write_outputs(r);
}

/* Free what the passes and checks allocated. */
static void
free_results(timing_results *r)
{
	for (int i = 0; i < r->npasses; i++)
		free(r->passes[i]);
	for (int c = 0; c < TIMING_CLOCK_COUNT; c++)
		if (r->cross_ran[c])
			crosscpu_free(&r->cross[c]);
}

int
tool_run(const timing_settings *s)
{
	timing_results r;
	uint64_t	duration_ns = (uint64_t) s->duration_s * NS_PER_S;
	uint64_t   *fake = NULL;

	memset(&r, 0, sizeof(r));
	r.settings = s;
	if (!check_outputs(s))
		return EXITCODE_ERROR;
	if (!setup_fake_clock(&fake))
		return EXITCODE_ERROR;
	/* a second signal ends the program at once */
	signals_catch_stop(on_signal, SA_RESETHAND);
	clockenv_read(&r.env);
	clock_tsc_probe(&r.tsc);
	if (!s->json)
	{
		report_header(stdout, s);
		/* a report that cannot be written is not worth the measuring time */
		if (ferror(stdout))
		{
			msg_flush_stdout();
			free(fake);
			return EXITCODE_ERROR;
		}
	}
	run_passes(&r, duration_ns, fake != NULL);
	if (s->cross_cpu && !results_backwards(&r))
		run_cross_cpu(&r, duration_ns);
	finish(&r);
	free_results(&r);
	free(fake);
	return r.exit_status;
}
