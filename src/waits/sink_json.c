/*
 * sink_json.c — --json=FILE (see sink_json.h): a bad path fails before
 * the run, not after it.
 */
#include "config.h"

#include "sink_json.h"

#include <string.h>

#include "pgtempo/strbuf.h"

opt_status
sink_json_option(const opt_def *def, void *ctx, const char *arg)
{
	waits_settings *s = ctx;

	(void) def;
	if (arg == NULL || strcmp(arg, "-") == 0)
		s->json = true;
	else
		s->json_path = arg;
	return OPT_OK;
}

static bool
json_open(sink *k, sink_open_stage stage, char **cause)
{
	return stage != SINK_CHECK || strbuf_check_writable(k->run->s->json_path, cause);
}

static const sink_ops json_ops = {
	.open = json_open,
};

void
sink_json_add(sink_list *l)
{
	if (l->run.s->json_path != NULL)
		sink_new(l, &json_ops, sizeof(sink));
}
