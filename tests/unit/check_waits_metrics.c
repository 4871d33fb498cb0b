/*
 * check_waits_metrics.c — pgtempo-waits' metrics: the counters a sample's
 * rows add (the time a sample stands for, missed ticks included), the
 * published copy the sampler never waits for, the rendering, and the
 * --listen endpoint's answers over a real loopback socket.
 */
#include "config.h"

#include "waitsmetrics.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pgtempo/strbuf.h"

#include "listen.h"
#include "unit.h"

static const char *const server = "db:5432";
static const char *const cpu = "CPU";
static const char *const client = "client backend";
static const char *const autovac = "autovacuum worker";
static const char *const timeout = "Timeout";
static const char *const sleep_ev = "PgSleep";
static const char *const lock = "Lock";
static const char *const relation = "relation";

/* A batch of rows: type, event, backend type, class, samples. */
typedef struct row_spec
{
	const char *type;
	const char *event;
	const char *btype;
	sample_class cls;
	uint32_t	samples;
} row_spec;

static void
fill_batch(sample_batch *b, const row_spec *rows, int n)
{
	sample_batch_reset(b, 1000);
	for (int i = 0; i < n; i++)
	{
		sample_row *r = sample_batch_add(b);

		r->wait_event_type = rows[i].type;
		r->wait_event = rows[i].event;
		r->backend_type = rows[i].btype;
		r->cls = rows[i].cls;
		r->samples = rows[i].samples;
	}
}

/* The series of these names, or NULL. */
static const wmetrics_series *
find(const wmetrics_view *v, const char *type, const char *event, const char *btype)
{
	for (int i = 0; i < v->n; i++)
		if (v->v[i].type == type && v->v[i].event == event && v->v[i].backend_type == btype)
			return &v->v[i];
	return NULL;
}

/* Rows of each class: hidden never counts, idle only with include_idle; a series per names. */
START_TEST(counts)
{
	static const row_spec rows[] = {
		{timeout, sleep_ev, client, SAMPLE_WAIT, 1},
		{timeout, sleep_ev, client, SAMPLE_WAIT, 1},
		{cpu, cpu, client, SAMPLE_CPU, 1},
		{cpu, cpu, autovac, SAMPLE_CPU, 1},
		{lock, relation, client, SAMPLE_WAIT, 7},	/* an in-server row: 7 samples */
		{"Activity", "idle", client, SAMPLE_IDLE, 1},
		{NULL, NULL, NULL, SAMPLE_HIDDEN, 1},
	};
	static const struct
	{
		const char *type;
		const char *event;
		const char *btype;
		uint64_t	samples;
		double		active_s;	/* after two samples at 10 ms, the second after 3 missed ticks */
	}			want[] = {
		{timeout, sleep_ev, client, 4, 0.02 + 0.08},
		{cpu, cpu, client, 2, 0.01 + 0.04},
		{cpu, cpu, autovac, 2, 0.01 + 0.04},
		{lock, relation, client, 14, 0.07 + 0.28},
	};
	wmetrics	m;
	sample_batch b;

	wmetrics_init(&m);
	sample_batch_init(&b);
	fill_batch(&b, rows, (int) (sizeof(rows) / sizeof(rows[0])));
	wmetrics_count(&m, server, &b, NULL, false, 0.01, 0);
	wmetrics_count(&m, server, &b, NULL, false, 0.01, 3);
	ck_assert_int_eq(m.live.n, 4);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
	{
		const wmetrics_series *s = find(&m.live, want[i].type, want[i].event, want[i].btype);

		ck_assert_msg(s != NULL, "series %zu", i);
		ck_assert_ptr_eq(s->server, server);
		ck_assert_uint_eq(s->samples, want[i].samples);
		ck_assert_double_eq_tol(s->active_s, want[i].active_s, 1e-12);
	}
	/* the missed ticks were counted once: the next sample stands for one tick again */
	wmetrics_count(&m, server, &b, NULL, false, 0.01, 3);
	ck_assert_double_eq_tol(find(&m.live, timeout, sleep_ev, client)->active_s, 0.12, 1e-12);
	/* with --include-idle, the idle row is a series too */
	wmetrics_count(&m, server, &b, NULL, true, 0.01, 3);
	ck_assert_int_eq(m.live.n, 5);
	sample_batch_free(&b);
	wmetrics_free(&m);
}
END_TEST

/*
 * A chain A <- B <- C (B and C wait on locks, A on nothing): A, a client
 * backend, heads both blocked samples; an autovacuum worker D blocking E
 * is a series of its own; the counter renders by server and backend type.
 */
START_TEST(heads)
{
	static const struct
	{
		int32_t		pid;
		const char *type;
		const char *btype;
		sample_class cls;
		int32_t		blocker;	/* 0: none */
	}			rows[] = {
		{1, NULL, client, SAMPLE_CPU, 0},
		{2, lock, client, SAMPLE_WAIT, 1},
		{3, lock, client, SAMPLE_WAIT, 2},
		{4, NULL, autovac, SAMPLE_CPU, 0},
		{5, lock, client, SAMPLE_WAIT, 4},
	};
	wmetrics	m;
	sample_batch b;
	metrics		mx;
	strbuf		out;
	char	   *cause = NULL;
	const wmetrics_series *h;

	wmetrics_init(&m);
	sample_batch_init(&b);
	metrics_init(&mx);
	strbuf_init(&out);
	sample_batch_reset(&b, 1000);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
	{
		sample_row *r = sample_batch_add(&b);

		r->pid = rows[i].pid;
		r->wait_event_type = rows[i].type;
		r->wait_event = rows[i].type != NULL ? relation : NULL;
		r->backend_type = rows[i].btype;
		r->cls = rows[i].cls;
		r->samples = 1;
		r->blockers_off = b.nblockers;
		if (rows[i].blocker != 0)
			sample_batch_add_blocker(&b, rows[i].blocker);
	}
	wmetrics_count(&m, server, &b, NULL, false, 0.01, 0);
	wmetrics_count(&m, server, &b, NULL, false, 0.01, 1);	/* a missed tick: 20 ms */
	h = find(&m.live, wmetrics_head_key, wmetrics_head_key, client);
	ck_assert_ptr_nonnull(h);
	ck_assert_double_eq_tol(h->active_s, 2 * 0.01 + 2 * 0.02, 1e-12);
	h = find(&m.live, wmetrics_head_key, wmetrics_head_key, autovac);
	ck_assert_ptr_nonnull(h);
	ck_assert_double_eq_tol(h->active_s, 0.01 + 0.02, 1e-12);
	m.live.started = true;
	ck_assert_msg(wmetrics_render(&m.live, &mx, false, &out, &cause), "%s", cause ? cause : "");
	ck_assert_ptr_nonnull(strstr(out.data, "# TYPE pgtempo_waits_head_blocked_seconds_total counter\n"));
	ck_assert_ptr_nonnull(strstr(out.data, "pgtempo_waits_head_blocked_seconds_total{server=\"db:5432\","
								 "backend_type=\"client backend\"} 0.06\n"));
	/* no event series named after the heads */
	ck_assert_ptr_null(strstr(out.data, "wait_event=\"head blockers\""));
	strbuf_free(&out);
	metrics_free(&mx);
	sample_batch_free(&b);
	wmetrics_free(&m);
}
END_TEST

/* The sampler never waits: a lock held by a scrape makes publish fail, the next call succeeds. */
START_TEST(publish)
{
	static const row_spec rows[] = {{timeout, sleep_ev, client, SAMPLE_WAIT, 1}};
	wmetrics	m;
	sample_batch b;
	strbuf		out;

	wmetrics_init(&m);
	sample_batch_init(&b);
	strbuf_init(&out);
	ck_assert_int_eq(wmetrics_render_published(&m, false, &out), LISTEN_NOT_READY);
	fill_batch(&b, rows, 1);
	wmetrics_count(&m, server, &b, NULL, false, 0.01, 0);
	m.live.started = true;
	m.live.h.samples = 1;
	pthread_mutex_lock(&m.lock);
	ck_assert(!wmetrics_publish(&m, false));
	pthread_mutex_unlock(&m.lock);
	ck_assert_int_eq(m.pub.n, 0);
	ck_assert(wmetrics_publish(&m, false));
	ck_assert_int_eq(m.pub.n, 1);
	/* the published copy is the sampler's at that moment, not later counts */
	wmetrics_count(&m, server, &b, NULL, false, 0.01, 0);
	ck_assert_uint_eq(m.pub.v[0].samples, 1);
	ck_assert_int_eq(wmetrics_render_published(&m, false, &out), LISTEN_SERVED);
	ck_assert_ptr_nonnull(strstr(out.data, "pgtempo_waits_backend_samples_total{server=\"db:5432\","
								 "wait_event_type=\"Timeout\",wait_event=\"PgSleep\","
								 "backend_type=\"client backend\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(out.data, "# TYPE pgtempo_waits_active_seconds_total counter\n"));
	ck_assert_ptr_nonnull(strstr(out.data, "pgtempo_waits_samples_total 1\n"));
	strbuf_reset(&out);
	ck_assert_int_eq(wmetrics_render_published(&m, true, &out), LISTEN_SERVED);
	ck_assert_ptr_nonnull(strstr(out.data, "# TYPE pgtempo_waits_active_seconds counter\n"));
	ck_assert(out.len > 6 && strcmp(out.data + out.len - 6, "# EOF\n") == 0);
	strbuf_free(&out);
	sample_batch_free(&b);
	wmetrics_free(&m);
}
END_TEST

/* A render function for the endpoint: a fixed body, or not ready. */
static listen_result
fixed_render(void *arg, bool openmetrics, strbuf *out)
{
	if (arg == NULL)
		return LISTEN_NOT_READY;
	strbuf_puts(out, openmetrics ? "om 1\n# EOF\n" : "text 1\n");
	return LISTEN_SERVED;
}

/* Send a request to 127.0.0.1:port and return the whole answer (caller frees). */
static char *
http(int port, const char *request)
{
	struct sockaddr_in sa;
	int			fd = socket(AF_INET, SOCK_STREAM, 0);
	strbuf		sb;
	char		buf[4096];
	ssize_t		n;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t) port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(connect(fd, (struct sockaddr *) &sa, sizeof(sa)), 0);
	ck_assert_int_eq(write(fd, request, strlen(request)), (ssize_t) strlen(request));
	strbuf_init(&sb);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		strbuf_append(&sb, buf, (size_t) n);
	close(fd);
	return strbuf_detach(&sb);
}

/* The endpoint's answers, request by request. */
START_TEST(endpoint)
{
	static const struct
	{
		const char *request;
		const char *status;
		const char *has;		/* in the answer */
	}			cases[] = {
		{"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "200", "\r\n\r\ntext 1\n"},
		{"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
			"Accept: application/openmetrics-text; version=1.0.0\r\n\r\n", "200", "om 1\n# EOF\n"},
		{"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "200",
		 "Content-Type: text/plain; version=0.0.4"},
		{"HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "200", "Content-Length: 7"},
		{"POST /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 3\r\n\r\nabc",
		 "405", "Allow: GET, HEAD"},
		{"PUT /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", "405", ""},
		{"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "404", ""},
		{"GET /metricsx HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "404", ""},
		{"DELETE /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "404", ""},
	};
	char	   *cause = NULL;
	listen_server *l;
	listen_server *again;
	int			port;
	char	   *a;
	char		addr[80];

	if (!listen_supported())
		return;
	l = listen_start("127.0.0.1", 0, NULL, fixed_render, (void *) 1, &cause);
	ck_assert_msg(l != NULL, "%s", cause ? cause : "");
	ck_assert_int_eq(sscanf(listen_address(l), "127.0.0.1:%d", &port), 1);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		char		status[16];

		a = http(port, cases[i].request);
		snprintf(status, sizeof(status), "HTTP/1.1 %s ", cases[i].status);
		ck_assert_msg(strncmp(a, status, strlen(status)) == 0, "case %zu: %.40s", i, a);
		ck_assert_msg(strstr(a, cases[i].has) != NULL, "case %zu: %s", i, a);
		if (strncmp(cases[i].request, "HEAD", 4) == 0)
			ck_assert_ptr_null(strstr(a, "text 1"));
		free(a);
	}
	/* the port is taken: a second endpoint says so */
	snprintf(addr, sizeof(addr), "could not listen on 127.0.0.1:%d (--listen): Address already in use",
			 port);
	again = listen_start("127.0.0.1", port, NULL, fixed_render, NULL, &cause);
	ck_assert_ptr_null(again);
	ck_assert_str_eq(cause, addr);
	free(cause);
	listen_stop(l);

	/* nothing to serve yet: 503 */
	l = listen_start("127.0.0.1", 0, NULL, fixed_render, NULL, &cause);
	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(sscanf(listen_address(l), "127.0.0.1:%d", &port), 1);
	a = http(port, cases[0].request);
	ck_assert_msg(strncmp(a, "HTTP/1.1 503 ", 13) == 0, "%s", a);
	free(a);
	listen_stop(l);

	cause = NULL;
	ck_assert_ptr_null(listen_start("no-such-host.invalid", 0, NULL, fixed_render, NULL, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "could not listen on \"no-such-host.invalid\" (--listen): "));
	free(cause);
}
END_TEST

int
main(void)
{
	Suite	   *s = suite_create("waits_metrics");
	TCase	   *tc = tcase_create("metrics");

	tcase_add_test(tc, counts);
	tcase_add_test(tc, heads);
	tcase_add_test(tc, publish);
	tcase_add_test(tc, endpoint);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
