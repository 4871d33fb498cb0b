/*
 * cmpjson.c — the envelope of a comparison's JSON document, for every
 * tool that compares (cmpjson.h).
 */
#include "config.h"

#include "pgtempo/cmpjson.h"

/* A side's object under its name. */
static void
write_side(json_writer *w, const cmpjson_doc *d, int side)
{
	json_key(w, side == 0 ? "base" : "new");
	json_object_begin(w);
	d->ops->side(d->arg, w, side);
	json_object_end(w);
}

void
cmpjson_write(strbuf *sb, const cmpjson_doc *d)
{
	json_writer w;

	json_init(&w, sb, true);
	json_object_begin(&w);
	json_kv_string(&w, "tool", d->tool);
	json_kv_string(&w, "version", PACKAGE_VERSION);
	json_kv_string(&w, "kind", "comparison");
	json_kv_int(&w, "schema", CMPJSON_SCHEMA);
	write_side(&w, d, 0);
	write_side(&w, d, 1);
	json_key(&w, "method");
	json_object_begin(&w);
	json_kv_double(&w, "level", d->level);
	json_kv_int(&w, "family", d->family);
	json_kv_double(&w, "level_each", d->level_each);
	d->ops->method(d->arg, &w);
	json_object_end(&w);
	d->ops->body(d->arg, &w);
	json_key(&w, "fail_if");
	json_array_begin(&w);
	for (int i = 0; i < d->nlimits; i++)
	{
		json_object_begin(&w);
		json_kv_string(&w, "limit", d->ops->limit_text(d->arg, i));
		d->ops->limit(d->arg, &w, i);
		json_kv_bool(&w, "tripped", d->ops->tripped(d->arg, i));
		json_object_end(&w);
	}
	json_array_end(&w);
	json_kv_int(&w, "exit_status", d->exit_status);
	json_object_end(&w);
	strbuf_putc(sb, '\n');
}
