/*
 * tool.c — ioping's front end on the request engine: each request
 * classified (warm-up, too fast, too slow, fast, slow) and counted, its
 * line and the periodic lines printed, the closing statistics, then the
 * suite's outputs (suiteout.h).
 */
#include "config.h"

#include "tool.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "pgtempo/clock.h"
#include "pgtempo/exitcode.h"
#include "pgtempo/metrics.h"
#include "pgtempo/msg.h"

#include "engine.h"
#include "report.h"
#include "stats.h"
#include "suiteout.h"
#include "target.h"

/*
 * From the MARK_FROM-th valid request on, one is "fast" below half the mean
 * of the valid ones (itself included) and "slow" above twice it: ioping's
 * rule, found by running it under a clock that gives set request times.
 */
#define MARK_FROM 6

typedef struct io_run
{
	const io_settings *s;
	io_target	t;
	io_plan		plan;
	io_stats	st;
	io_report	rep;
	uint64_t	next_period_ns;	/* -P: the next line is due then */
} io_run;

/* ioping's tag of a request, and whether it counts in the statistics. */
static const char *
classify(const io_run *run, const io_request *r, bool *valid)
{
	const io_settings *s = run->s;
	const hist *h = run->st.run.valid;

	*valid = false;
	if (r->eagain)
		return "EAGAIN";
	if (r->index <= s->warmup)
		return "warmup";
	if (r->time_ns < (uint64_t) s->min_time_ns)
		return "too fast";
	if (s->max_time_ns > 0 && r->time_ns > (uint64_t) s->max_time_ns)
		return "too slow";
	*valid = true;
	if (h->total + 1 >= MARK_FROM)
	{
		double		mean = (h->sum + (double) r->time_ns) / (double) (h->total + 1);

		if ((double) r->time_ns < mean / 2)
			return "fast";
		if ((double) r->time_ns > mean * 2)
			return "slow";
	}
	return NULL;
}

/* A period ends: its raw line (or -J object), and the next begins. */
static void
end_period(io_run *run, uint64_t now)
{
	if (run->s->ioping_json)
		report_json_stat(&run->rep, &run->st.period);
	else
		report_raw(&run->rep, &run->st.period);
	io_stats_new_period(&run->st, now);
}

/* The engine's on_request: count, print, and the periodic lines. */
static bool
on_request(void *ctx, const io_request *r)
{
	io_run	   *run = ctx;
	const io_settings *s = run->s;
	bool		valid;
	const char *tag = classify(run, r, &valid);
	uint64_t	end = r->start_ns + r->time_ns;

	if (r->eagain)
		run->st.run.end_ns = run->st.period.end_ns = end;	/* time passes, nothing counts */
	else
	{
		if (!valid && strcmp(tag, "too fast") == 0)
			run->st.too_fast++;
		else if (!valid && strcmp(tag, "too slow") == 0)
			run->st.too_slow++;
		io_stats_add(&run->st, r->time_ns, r->bytes, end, valid);
	}
	if (!s->quiet)
	{
		if (r->burst_start)
			report_burst(&run->rep);
		report_request(&run->rep, r, tag, !valid);
	}
	if (s->print_count > 0 && run->st.period.valid->total >= s->print_count)
		end_period(run, end);
	else if (s->print_interval_ns > 0 && end >= run->next_period_ns)
	{
		/* on ioping's schedule: every -P from the start, whatever the requests' times */
		while (run->next_period_ns <= end)
			run->next_period_ns += (uint64_t) s->print_interval_ns;
		end_period(run, end);
	}
	if (!s->quiet || s->print_count > 0 || s->print_interval_ns > 0)
		fflush(run->rep.out);
	return true;
}

/* ioping's closing output: the raw line, the JSON's last object or the statistics. */
static void
print_closing(io_run *run)
{
	const io_settings *s = run->s;

	if (s->json)
		return;					/* --json: the document instead */
	if (s->ioping_json)
	{
		/* -J wins over -B, as in ioping */
		report_json_stat(&run->rep, &run->st.run);
		report_json_end(&run->rep);
	}
	else if (s->batch)
		report_raw(&run->rep, &run->st.run);
	else if (!(s->quiet && (s->print_count > 0 || s->print_interval_ns > 0)))
		report_statistics(&run->rep, &run->st, run->plan.op);
}

/* Everything after the requests; returns the exit status given the run's. */
static int
finish(io_run *run, int status)
{
	print_closing(run);
	if (!suiteout_write(run->s, &run->t, &run->st) && status == EXITCODE_OK)
		status = EXITCODE_ERROR;
	if (!msg_flush_stdout() && status == EXITCODE_OK)
		status = EXITCODE_ERROR;
	return status;
}

/* The engine's on_cut: a request hangs at the deadline or a signal; report now. */
static int
on_cut(void *ctx, int signo, uint64_t now_ns)
{
	io_run	   *run = ctx;

	run->st.run.end_ns = now_ns;
	return finish(run, signo != 0 ? EXITCODE_SIGNAL(signo) : EXITCODE_OK);
}

/* The engine's plan from the settings and the opened target. */
static void
make_plan(io_run *run)
{
	const io_settings *s = run->s;
	io_plan    *p = &run->plan;

	memset(p, 0, sizeof(*p));
	p->fd = run->t.fd;
	p->op = s->read_write ? IO_OP_PINGPONG : s->write > 0 ? IO_OP_WRITE : IO_OP_READ;
	p->size = s->size;
	p->offset = run->t.work_offset;
	p->span = run->t.work_size;
	p->linear = s->linear;
	p->seed = s->seed != 0 ? s->seed : clock_wall_us() ^ clock_now_ns();
	p->drop_cache = !s->cached && !s->direct;
	p->sync_writes = !s->cached;
	if (s->nowait)
		p->rwf_flags |= RWF_NOWAIT;
	if (s->hipri)
		p->rwf_flags |= RWF_HIPRI;
	p->async = s->async;
	p->align = 4096;
	p->count = s->count;
	p->interval_ns = (uint64_t) s->interval_ns;
	if (s->rate_limit > 0 && NS_PER_S / s->rate_limit > p->interval_ns)
		p->interval_ns = NS_PER_S / s->rate_limit;
	if (s->speed_limit > 0 && s->size * NS_PER_S / s->speed_limit > p->interval_ns)
		p->interval_ns = s->size * NS_PER_S / s->speed_limit;
	p->burst = s->burst;
	p->deadline_ns = (uint64_t) s->deadline_ns;
}

int
io_tool_run(const io_settings *s)
{
	io_run		run;
	io_outcome	out;
	char	   *cause = NULL;
	int			rc;
	int			status = EXITCODE_OK;

	memset(&run, 0, sizeof(run));
	run.s = s;
	/* -P counts from here, the work file's preparation included, as ioping does */
	run.next_period_ns = clock_now_ns() + (uint64_t) s->print_interval_ns;
	if (!suiteout_check(s))
		return EXITCODE_ERROR;
	if ((rc = io_target_open(&run.t, s, &cause)) != 0)
	{
		msg_error("%s", cause);
		if (run.t.direct_refused)
			msg_detail("Direct I/O (O_DIRECT) is not available on the file system of \"%s\" (%s).",
					   s->target, run.t.fstype[0] ? run.t.fstype : "its type unknown");
		free(cause);
		return rc == IO_TARGET_USAGE ? EXITCODE_ERROR : IO_EXIT_PREPARATION;
	}
	run.rep.out = stdout;
	run.rep.s = s;
	run.rep.t = &run.t;
	make_plan(&run);
	io_stats_init(&run.st, clock_now_ns());
	run.st.periods = s->print_count > 0 || s->print_interval_ns > 0;
	if (s->chart_path != NULL)
		io_stats_keep_timeline(&run.st);
	io_engine_run(&run.plan, on_request, on_cut, &run, &out);
	run.st.run.start_ns = out.start_ns;
	switch (out.end)
	{
		case IO_END_ERROR:
			if (s->async && out.start_ns == 0)
				msg_error("asynchronous I/O (-A) could not be set up: %s", strerror(out.errnum));
			else if (out.errnum != 0)
				msg_error("%s failed: %s", out.write ? "write" : "read", strerror(out.errnum));
			else
				msg_error("request returned less than expected: %llu",
						  (unsigned long long) out.bytes);
			status = IO_EXIT_RUNTIME;
			break;
		case IO_END_SIGNAL:
			status = EXITCODE_SIGNAL(out.signo);
			break;
		case IO_END_COUNT:
		case IO_END_DEADLINE:
		case IO_END_STOPPED:
			break;
	}
	status = finish(&run, status);
	io_target_close(&run.t);
	io_stats_free(&run.st);
	return status;
}
