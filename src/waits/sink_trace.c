/*
 * sink_trace.c — the --trace sink: a line when a traced backend's wait
 * begins and one when it ends, appended to --trace-file or written to
 * standard output (the format is in trace.h).
 *
 * The file is proved writable before connecting and opened once the
 * traced pids are known to be good, so a trace that cannot start leaves
 * no file behind.  Lines go through stdio; the trace pushes them out
 * (flush) about every 100 ms for tail -f.  A write error ends the trace
 * (run->failed): a trace with a hole in it would mislead.
 */
#include "config.h"

#include "sink_trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/msg.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"

typedef struct sink_trace
{
	sink		base;
	const char *path;			/* NULL: standard output */
	FILE	   *out;			/* NULL until opened, or after a failed reopen */
	bool		prefix;			/* several pids: each line starts with its pid */
	bool		write_failed;
} sink_trace;

/* A line was written: note a write error, which ends the trace. */
static void
wrote(sink_trace *t, int rc)
{
	if (rc < 0)
	{
		t->write_failed = true;
		t->base.run->failed = true;
	}
}

/* Push written lines out; false (reported) on a write error. */
static bool
flush_out(sink_trace *t)
{
	if (t->path == NULL)
	{
		if (t->write_failed || fflush(stdout) != 0 || ferror(stdout))
		{
			/* msg_flush_stdout() says why */
			wrote(t, -1);
			return msg_flush_stdout();
		}
		return true;
	}
	if (!t->write_failed && fflush(t->out) == 0 && !ferror(t->out))
		return true;
	msg_error("could not write to file \"%s\": %s", t->path, strerror(errno));
	wrote(t, -1);
	return false;
}

/* Close the file; false (reported) if what was left in it could not be written. */
static bool
close_out(sink_trace *t)
{
	bool		ok = flush_out(t);

	if (fclose(t->out) != 0 && ok)
	{
		msg_error("could not write to file \"%s\": %s", t->path, strerror(errno));
		ok = false;
	}
	t->out = NULL;
	return ok;
}

/* Open the trace file, appending; standard output needs nothing. */
static bool
open_out(sink_trace *t, char **cause)
{
	if (t->path == NULL)
	{
		t->out = stdout;
		return true;
	}
	t->out = fopen(t->path, "a");
	if (t->out == NULL)
	{
		*cause = xasprintf("could not open file \"%s\": %s", t->path, strerror(errno));
		return false;
	}
	return true;
}

/* Prove the file writable before connecting; open it once the trace can start. */
static bool
trace_open(sink *k, sink_open_stage stage, char **cause)
{
	sink_trace *t = (sink_trace *) k;

	if (stage == SINK_CHECK)
		return t->path == NULL || strbuf_check_writable(t->path, cause);
	if (stage == SINK_CONNECTED)
		return open_out(t, cause);
	return true;
}

/* "start <ts> <type> <event> <p1>..<p5>" or "stop <ts> <type>", after "<pid> " with several pids. */
static void
trace_record(sink *k, const sink_trace_rec *r)
{
	sink_trace *t = (sink_trace *) k;
	char		ts[FORMAT_LOCAL_TS_LEN];

	if (t->out == NULL)
		return;
	format_local_ts(ts, sizeof(ts), r->ts_us);
	if (t->prefix)
		wrote(t, fprintf(t->out, "%d ", (int) r->pid));
	if (r->start)
		wrote(t, fprintf(t->out, "start %s %s %s %s %s %s %s %s\n", ts, r->type, r->event,
						 r->params[0], r->params[1], r->params[2], r->params[3],
						 r->params[4]));
	else
		wrote(t, fprintf(t->out, "stop %s %s\n", ts, r->type));
}

/* SIGHUP: close the file and open it again under its name (logrotate). */
static void
trace_second(sink *k, uint64_t now_ns, bool reopen)
{
	sink_trace *t = (sink_trace *) k;
	char	   *cause = NULL;

	if (!reopen || t->path == NULL || t->out == NULL)
		return;
	if (!close_out(t) || !open_out(t, &cause))
	{
		if (cause != NULL)
			msg_error("%s", cause);
		free(cause);
		k->run->failed = true;
	}
}

static void
trace_flush(sink *k)
{
	sink_trace *t = (sink_trace *) k;

	if (t->out != NULL)
		flush_out(t);
}

/* The end: what is left is pushed out and the file closed; false if any line was lost. */
static bool
trace_close(sink *k, sink_close_stage stage)
{
	sink_trace *t = (sink_trace *) k;
	bool		ok;

	if (stage != SINK_CLOSE && stage != SINK_ABORT)
		return true;
	if (t->out == NULL)
		return stage == SINK_ABORT;
	/* standard output is not the trace's to close */
	ok = t->path != NULL ? close_out(t) : flush_out(t);
	t->out = NULL;
	return ok && !t->write_failed;
}

static const sink_ops trace_ops = {
	.open = trace_open,
	.trace = trace_record,
	.second = trace_second,
	.flush = trace_flush,
	.close = trace_close,
};

/* --trace: the lines of the traced waits. */
void
sink_trace_add(sink_list *l)
{
	const waits_settings *s = l->run.s;
	sink_trace *t;

	if (s->ntrace_pids == 0)
		return;
	t = (sink_trace *) sink_new(l, &trace_ops, sizeof(sink_trace));
	t->path = s->trace_path;
	t->prefix = s->ntrace_pids > 1;
}
