/*
 * report.c — ioping's lines and JSON (see report.h).
 */
#include "config.h"

#include "report.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "pgtempo/clock.h"
#include "pgtempo/json.h"
#include "pgtempo/strbuf.h"

#include "iofmt.h"

/* -I: the wall-clock time in the user's format, and a space. */
static void
print_time_prefix(io_report *rep)
{
	char		buf[256];
	time_t		now = time(NULL);
	struct tm	tm;

	localtime_r(&now, &tm);
	/* the user's format, as -I's argument asks (ioping's "%b %d %T" by default) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	if (strftime(buf, sizeof(buf), rep->s->time_format, &tm) > 0)
#pragma GCC diagnostic pop
		fprintf(rep->out, "%s ", buf);
	else
		fputs(" ", rep->out);
}

/* -J: the next object's opening, and its time and target. */
static void
json_object_head(io_report *rep)
{
	uint64_t	us = clock_wall_us();
	time_t		secs = (time_t) (us / 1000000);
	struct tm	tm;
	char		local[64];
	strbuf		path;
	json_writer w;

	localtime_r(&secs, &tm);
	strftime(local, sizeof(local), "%Y-%m-%dT%H:%M:%S%z", &tm);
	strbuf_init(&path);
	json_init(&w, &path, false);
	json_string(&w, rep->t->path);
	fputs(rep->json_open ? "},{\n" : "[{\n", rep->out);
	rep->json_open = true;
	fprintf(rep->out,
			"  \"timestamp\": %" PRIu64 ".%06" PRIu64 ",\n"
			"  \"localtime\": \"%s\",\n"
			"  \"target\": {\n"
			"    \"path\": %s,\n"
			"    \"fstype\": \"%s\",\n"
			"    \"device\": \"%s\",\n"
			"    \"device_size\": %" PRIu64 "\n"
			"  },\n",
			us / 1000000, us % 1000000, local, path.data,
			rep->t->kind == IO_TARGET_BLOCK ? "block device"
			: rep->t->kind == IO_TARGET_CHAR ? "character device" : rep->t->fstype,
			rep->t->kind == IO_TARGET_BLOCK || rep->t->kind == IO_TARGET_CHAR
			? rep->t->path : rep->t->device,
			rep->t->device_size);
	strbuf_free(&path);
}

void
report_request(io_report *rep, const io_request *r, const char *tag, bool ignored)
{
	char		size[IOFMT_MAX],
				t[IOFMT_MAX];

	if (rep->s->ioping_json)
	{
		json_object_head(rep);
		fprintf(rep->out,
				"  \"io\": {\n"
				"    \"request\": %" PRIu64 ",\n"
				"    \"operation\": \"%s\",\n"
				"    \"size\": %" PRIu64 ",\n"
				"    \"time\": %" PRIu64 ",\n"
				"    \"ignored\": %s\n"
				"  }\n",
				r->index, r->write ? "write" : "read", r->bytes, r->time_ns,
				ignored ? "true" : "false");
		return;
	}
	if (rep->s->print_time)
		print_time_prefix(rep);
	fprintf(rep->out, "%s %s %s (%s): request=%" PRIu64 " time=%s%s%s%s\n",
			iofmt_size(size, r->bytes), r->write ? ">>>" : "<<<", rep->t->path,
			rep->t->describe, r->index, iofmt_time(t, r->time_ns),
			tag != NULL ? " (" : "", tag != NULL ? tag : "", tag != NULL ? ")" : "");
}

void
report_burst(io_report *rep)
{
	if (!rep->s->ioping_json)
		fputc('\n', rep->out);
}

void
report_raw(io_report *rep, const io_window *w)
{
	io_figures	f;

	io_stats_figures(w, &f);
	fprintf(rep->out, "%" PRIu64 " %" PRIu64 " %.0f %.0f %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
			f.count, f.time_ns, f.iops, f.bps, f.min, f.avg, f.max, f.mdev,
			f.load_count, f.load_time_ns);
}

void
report_json_stat(io_report *rep, const io_window *w)
{
	io_figures	f;

	io_stats_figures(w, &f);
	json_object_head(rep);
	fprintf(rep->out,
			"  \"stat\": {\n"
			"    \"count\": %" PRIu64 ",\n"
			"    \"size\": %" PRIu64 ",\n"
			"    \"time\": %" PRIu64 ",\n"
			"    \"iops\": %f,\n"
			"    \"bps\": %.0f,\n"
			"    \"min\": %" PRIu64 ",\n"
			"    \"avg\": %" PRIu64 ",\n"
			"    \"max\": %" PRIu64 ",\n"
			"    \"mdev\": %" PRIu64 "\n"
			"  },\n"
			"  \"load\": {\n"
			"    \"count\": %" PRIu64 ",\n"
			"    \"size\": %" PRIu64 ",\n"
			"    \"time\": %" PRIu64 ",\n"
			"    \"iops\": %f,\n"
			"    \"bps\": %.0f\n"
			"  }\n",
			f.count, f.bytes, f.time_ns, f.iops, f.bps, f.min, f.avg, f.max, f.mdev,
			f.load_count, f.load_bytes, f.load_time_ns, f.load_iops, f.load_bps);
}

void
report_json_end(io_report *rep)
{
	if (rep->json_open)
		fputs("}]\n", rep->out);
	rep->json_open = false;
}

void
report_statistics(io_report *rep, const io_stats *st, io_op op)
{
	io_figures	f;
	char		a[IOFMT_MAX],
				b[IOFMT_MAX],
				c[IOFMT_MAX],
				d[IOFMT_MAX],
				e[IOFMT_MAX];

	io_stats_figures(&st->run, &f);
	fprintf(rep->out, "\n--- %s (%s) ioping statistics ---\n", rep->t->path, rep->t->describe);
	fprintf(rep->out, "%s requests completed in %s, %s%s, %s iops, %s/s\n",
			iofmt_count(a, f.count), iofmt_time(b, f.time_ns), iofmt_size(c, f.bytes),
			op == IO_OP_READ ? " read" : op == IO_OP_WRITE ? " written" : "",
			iofmt_count(d, (uint64_t) f.iops), iofmt_size(e, (uint64_t) f.bps));
	if (st->too_fast > 0)
		fprintf(rep->out, "%s too fast, ", iofmt_count(a, st->too_fast));
	if (st->too_slow > 0)
		fprintf(rep->out, "%s too slow, ", iofmt_count(a, st->too_slow));
	fprintf(rep->out, "generated %s requests in %s, %s, %s iops, %s/s\n",
			iofmt_count(a, f.load_count), iofmt_time(b, f.load_time_ns),
			iofmt_size(c, f.load_bytes), iofmt_count(d, (uint64_t) f.load_iops),
			iofmt_size(e, (uint64_t) f.load_bps));
	fprintf(rep->out, "min/avg/max/mdev = %s / %s / %s / %s\n", iofmt_time(a, f.min),
			iofmt_time(b, f.avg), iofmt_time(c, f.max), iofmt_time(d, f.mdev));
}
