/*
 * report_heads.c — the head blockers in the text and JSON reports.
 */
#include "config.h"

#include "report_heads.h"

#include <inttypes.h>
#include <stdlib.h>

#include "pgtempo/strbuf.h"
#include "pgtempo/utf8.h"

#include "format.h"

/* The age of c's transaction when it was last seen heading a chain; < 0 unknown. */
static double
xact_age_s(const heads_cell *c)
{
	if (c->xact_start_us == INT64_MIN || c->last_us < c->xact_start_us)
		return -1;
	return (double) (c->last_us - c->xact_start_us) / 1e6;
}

void
report_head_doing(strbuf *sb, const heads_cell *c)
{
	double		age = xact_age_s(c);

	if (!c->seen)
	{
		strbuf_puts(sb, "not in the samples (filtered out, or idle)");
		return;
	}
	if (c->state == NULL && c->type == NULL)
	{
		/* its row was there, with nothing in it we may read */
		strbuf_puts(sb, "hidden (insufficient privilege)");
		return;
	}
	strbuf_puts(sb, c->state != NULL ? c->state : "?");
	if (c->type != NULL)
		strbuf_printf(sb, ", %s/%s", c->type, c->event != NULL ? c->event : "");
	if (age >= 0)
		strbuf_printf(sb, ", xact %.1f s", age);
	if (c->query_id != 0)
		strbuf_printf(sb, ", query_id %" PRId64, c->query_id);
	if (c->cycle)
		strbuf_puts(sb, ", in a lock cycle");
}

void
report_heads_text(FILE *out, const report_info *ri)
{
	const heads_prof *h = &ri->p->heads;
	uint64_t	n = ri->p->active;
	double		period = ri->src.period_s;
	const heads_cell **v;
	const heads_chain **ch;
	int			nv,
				nch;
	strbuf		sb,
				pr;

	if (h->cells.n == 0)
		return;
	strbuf_init(&sb);
	strbuf_init(&pr);
	v = heads_sorted(h, &nv);
	fprintf(out, "\nhead blockers: %.3f s of blocked backend time (directly and through chains)\n",
			h->blocked * period);
	for (int i = 0; i < nv && i < REPORT_HEADS_MAX; i++)
	{
		const heads_cell *c = v[i];
		char		ts[FORMAT_TS_LEN];

		fprintf(out, "  pid %" PRId32, c->id.pid);
		if (c->id.backend_start_us != INT64_MIN)
		{
			format_ts(ts, c->id.backend_start_us);
			fprintf(out, " (started %s)", ts);
		}
		fprintf(out, ": %.3f ± %.3f s blocked, %.3f s directly\n", c->samples * period,
				wprof_error_s(c->samples, n, period), c->direct * period);
		strbuf_reset(&sb);
		/* user, database and application when known (read, or looked up: idents.h) */
		if (c->id.usename != NULL || c->id.datname != NULL)
			strbuf_printf(&sb, "%s@%s, ", c->id.usename ? c->id.usename : "?",
						  c->id.datname ? c->id.datname : "?");
		if (c->id.application_name != NULL && c->id.application_name[0] != '\0')
			strbuf_printf(&sb, "%s, ", c->id.application_name);
		report_head_doing(&sb, c);
		fprintf(out, "      %s\n", utf8_printable(&pr, sb.data));
		if (c->query != NULL)
			fprintf(out, "      query: %s\n", utf8_printable(&pr, c->query));
	}
	if (nv > REPORT_HEADS_MAX)
		fprintf(out, "  (%d more heads not shown; --json lists all)\n", nv - REPORT_HEADS_MAX);
	free(v);
	ch = heads_chains_sorted(h, &nch);
	fprintf(out, "chains (folded: head;blocked;blocked by that):\n");
	for (int i = 0; i < nch && i < REPORT_HEADS_MAX; i++)
		fprintf(out, "  %s  %.3f s\n", utf8_printable(&pr, ch[i]->stack), ch[i]->samples * period);
	if (nch > REPORT_HEADS_MAX)
		fprintf(out, "  (%d more chains not shown; --json lists all)\n", nch - REPORT_HEADS_MAX);
	free(ch);
	strbuf_free(&sb);
	strbuf_free(&pr);
}

void
report_head_json_id(json_writer *w, int32_t pid, int64_t backend_start_us)
{
	char		ts[FORMAT_TS_LEN];

	json_kv_int(w, "pid", pid);
	if (backend_start_us != INT64_MIN)
	{
		format_ts(ts, backend_start_us);
		json_kv_string(w, "backend_start", ts);
	}
	else
		json_kv_string(w, "backend_start", NULL);
}

/* One head as a JSON object. */
static void
json_head(json_writer *w, const heads_cell *c, uint64_t n, double period)
{
	double		age = xact_age_s(c);

	json_object_begin(w);
	report_head_json_id(w, c->id.pid, c->id.backend_start_us);
	json_kv_double(w, "samples", c->samples);
	json_kv_double(w, "est_seconds", c->samples * period);
	json_kv_double(w, "error_seconds", wprof_error_s(c->samples, n, period));
	json_kv_double(w, "direct_samples", c->direct);
	json_kv_bool(w, "seen", c->seen);
	json_kv_bool(w, "cycle", c->cycle);
	json_kv_string(w, "datname", c->id.datname);
	json_kv_string(w, "usename", c->id.usename);
	json_kv_string(w, "application_name", c->id.application_name);
	json_kv_string(w, "backend_type", c->id.backend_type);
	json_kv_string(w, "state", c->state);
	json_kv_string(w, "wait_event_type", c->type);
	json_kv_string(w, "wait_event", c->event);
	json_kv_int_or_null(w, "query_id", c->query_id != 0, c->query_id);
	json_kv_double_or_null(w, "xact_age_seconds", age >= 0, age);
	json_kv_string(w, "query", c->query);
	json_object_end(w);
}

void
report_heads_json(json_writer *w, const report_info *ri)
{
	const heads_prof *h = &ri->p->heads;
	double		period = ri->src.period_s;
	const heads_cell **v;
	const heads_chain **ch;
	int			nv,
				nch;

	json_key(w, "blockers");
	json_object_begin(w);
	json_kv_double(w, "blocked_seconds", h->blocked * period);
	json_kv_double(w, "blocked_samples", h->blocked);
	v = heads_sorted(h, &nv);
	json_key(w, "heads");
	json_array_begin(w);
	for (int i = 0; i < nv; i++)
		json_head(w, v[i], ri->p->active, period);
	json_array_end(w);
	free(v);
	ch = heads_chains_sorted(h, &nch);
	json_key(w, "chains");
	json_array_begin(w);
	for (int i = 0; i < nch; i++)
	{
		json_object_begin(w);
		json_kv_string(w, "stack", ch[i]->stack);
		json_kv_double(w, "samples", ch[i]->samples);
		json_kv_double(w, "est_seconds", ch[i]->samples * period);
		json_object_end(w);
	}
	json_array_end(w);
	free(ch);
	json_object_end(w);
}
