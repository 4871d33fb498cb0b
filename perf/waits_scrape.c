/*
 * perf/waits_scrape.c — the --listen endpoint with a chosen number of
 * series, for perf/waits_metrics.sh to time scrapes against: what a
 * scrape of a big profile costs, without a server that has that many
 * wait events.
 *
 * usage: waits_scrape [SERIES [SECONDS]]   (defaults 300 and 60)
 * Prints the CPU time one rendering of the published counters takes
 * (the endpoint's work per scrape, HTTP aside: the mean of 1000), then
 * the address served; then counts and publishes once a second as the
 * sampler does, until SECONDS are over.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "pgtempo/msg.h"

#include "listen.h"
#include "strpool.h"
#include "waitsmetrics.h"

int
main(int argc, char **argv)
{
	int			nseries = argc > 1 ? atoi(argv[1]) : 300;
	int			secs = argc > 2 ? atoi(argv[2]) : 60;
	strpool		pool;
	wmetrics	m;
	sample_batch b;
	listen_server *l;
	char	   *cause = NULL;
	char		name[64];

	msg_set_progname(argv[0]);
	strpool_init(&pool);
	wmetrics_init(&m);
	sample_batch_init(&b);
	sample_batch_reset(&b, 0);
	/* a row per series: 30 backend types of nseries / 30 events each */
	for (int i = 0; i < nseries; i++)
	{
		sample_row *r = sample_batch_add(&b);

		snprintf(name, sizeof(name), "Event%d", i / 30);
		r->wait_event = strpool_intern(&pool, name);
		r->wait_event_type = strpool_intern(&pool, "LWLock");
		snprintf(name, sizeof(name), "backend type %d", i % 30);
		r->backend_type = strpool_intern(&pool, name);
		r->cls = SAMPLE_WAIT;
		r->samples = 1;
	}
	m.live.server = strpool_intern(&pool, "db.example:5432");
	m.live.server_version = "17.2";
	m.live.source = "pg_stat_activity";
	m.live.started = true;
	wmetrics_count(&m, m.live.server, &b, NULL, false, 0.01, 0);
	wmetrics_publish(&m, true);
	/* a scrape's own work: render what was published */
	{
		struct timespec t0,
					t1;
		strbuf		out;

		strbuf_init(&out);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
		for (int i = 0; i < 1000; i++)
		{
			strbuf_reset(&out);
			wmetrics_render_published(&m, false, &out);
		}
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
		printf("render: %.1f us of CPU for %zu bytes\n",
			   ((double) (t1.tv_sec - t0.tv_sec) * 1e9 + (double) (t1.tv_nsec - t0.tv_nsec)) / 1e3 / 1000,
			   out.len);
		strbuf_free(&out);
	}
	if ((l = listen_start("127.0.0.1", 0, wmetrics_render_published, &m, &cause)) == NULL)
		msg_fatal("%s", cause);
	printf("%s\n", listen_address(l));
	fflush(stdout);
	for (int s = 0; s < secs; s++)
	{
		/* a second of samples at 100 Hz, published once */
		for (int k = 0; k < 100; k++)
			wmetrics_count(&m, m.live.server, &b, NULL, false, 0.01, 0);
		m.live.h.samples += 100;
		wmetrics_publish(&m, false);
		sleep(1);
	}
	listen_stop(l);
	sample_batch_free(&b);
	wmetrics_free(&m);
	strpool_free(&pool);
	return 0;
}
