/*
 * output.c — the one sequence that writes pgtempo-bench's outputs and
 * its one failure rule (see output.h); it names no output.
 */
#include "config.h"

#include "output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/exitcode.h"
#include "pgtempo/msg.h"
#include "pgtempo/strbuf.h"

const char *
output_path(const bench_settings *s, const output_def *d)
{
	return *(const char *const *) ((const char *) s + d->field);
}

bool
output_in_mode(const output_def *d, output_mode mode)
{
	return d->write[mode] != NULL;
}

bool
output_check_paths(const bench_settings *s, output_mode mode)
{
	bool		ok = true;

	for (int i = 0; i < s->noutputs; i++)
	{
		const output_def *d = &s->outputs[i];
		const char *path = output_path(s, d);
		char	   *cause = NULL;

		if (output_in_mode(d, mode) && path != NULL && !d->check(path, &cause))
		{
			msg_error("%s", cause);
			free(cause);
			ok = false;
		}
	}
	return ok;
}

bool
output_only_mode(const bench_settings *s, output_mode mode, const char *what)
{
	for (int i = 0; i < s->noutputs; i++)
	{
		const output_def *d = &s->outputs[i];

		if (output_path(s, d) != NULL && !output_in_mode(d, mode))
		{
			msg_error("%s writes no --%s", what, d->option);
			return false;
		}
	}
	return true;
}

int
output_stdout_count(const bench_settings *s)
{
	int			n = 0;

	for (int i = 0; i < s->noutputs; i++)
	{
		const char *path = output_path(s, &s->outputs[i]);

		n += path != NULL && strcmp(path, "-") == 0;
	}
	return n;
}

bool
output_stdout_ok(const bench_settings *s, output_mode mode)
{
	strbuf		names;
	int			n = 0,
				k = 0;

	if (output_stdout_count(s) <= 1)
		return true;
	for (int i = 0; i < s->noutputs; i++)
		n += output_in_mode(&s->outputs[i], mode);
	/* "--json, --latency-histogram and --chart": the mode's outputs, in the table's order */
	strbuf_init(&names);
	for (int i = 0; i < s->noutputs; i++)
		if (output_in_mode(&s->outputs[i], mode))
			strbuf_printf(&names, "%s--%s", k++ == 0 ? "" : k == n ? " and " : ", ",
						  s->outputs[i].option);
	msg_error("only one of %s can write to standard output", names.data);
	strbuf_free(&names);
	return false;
}

/* One output that could not be written: the failure rule of output.h. */
static void
output_failed(const char *path, char *cause, int *status)
{
	msg_error("%s", cause);
	free(cause);
	/* said here: main()'s last check of standard output must not say it again */
	if (strcmp(path, "-") == 0)
		clearerr(stdout);
	if (*status == EXITCODE_OK)
		*status = EXITCODE_ERROR;
}

void
output_write_all(const bench_settings *s, output_mode mode, const void *data, int *status)
{
	/* first the outputs that do not record the exit status, then those that do */
	for (unsigned pass = 0; pass < 2; pass++)
		for (int i = 0; i < s->noutputs; i++)
		{
			const output_def *d = &s->outputs[i];
			const char *path = output_path(s, d);
			output_ctx	c = {s, data, *status};
			char	   *cause = NULL;

			if (!output_in_mode(d, mode) || path == NULL || ((d->flags & OUTPUT_STATUS) != 0) != pass)
				continue;
			if (!d->write[mode](&c, path, &cause))
				output_failed(path, cause, status);
		}
}
