/*
 * listen.h — --listen: an HTTP endpoint that serves /metrics while the
 * sampler runs (libmicrohttpd, on a thread of its own).
 *
 * The sampler never waits for it: the endpoint's thread calls the render
 * function, which reads what the sampler last published (waitsmetrics.h)
 * under a lock the sampler only ever tries.  A bounded number of
 * connections and an idle timeout keep slow or silent clients from
 * holding more than their own slot; anything but GET or HEAD of /metrics
 * gets a 4xx.
 */
#ifndef PGTEMPO_WAITS_LISTEN_H
#define PGTEMPO_WAITS_LISTEN_H

#include <stdbool.h>

#include "pgtempo/strbuf.h"

/* Connections served at once; more are refused until one closes. */
#define LISTEN_MAX_CONNECTIONS	8
/* A connection idle this long (nothing sent, nothing read) is closed. */
#define LISTEN_TIMEOUT_S		10

typedef enum listen_result
{
	LISTEN_SERVED,				/* 200 */
	LISTEN_NOT_READY,			/* 503: sampling has not started */
	LISTEN_FAILED				/* 500 */
} listen_result;

/*
 * Render a scrape's body into out (on the endpoint's thread); openmetrics:
 * the scraper asked for OpenMetrics.
 */
typedef listen_result (*listen_render_fn) (void *arg, bool openmetrics, strbuf *out);

typedef struct listen_server listen_server;

/* Was pgtempo-waits built with libmicrohttpd? */
bool		listen_supported(void);

/*
 * Listen on host:port (port 0: a free one) and serve /metrics from fn;
 * NULL with *cause when the address cannot be used (port in use, no such
 * address) or the server cannot start.  Signals are left to the caller's
 * thread.
 */
listen_server *listen_start(const char *host, int port, listen_render_fn fn, void *arg,
							char **cause);
/* The address served, e.g. "127.0.0.1:9187" or "[::1]:9187". */
const char *listen_address(const listen_server *l);
/* Close the connections and stop the thread (NULL: nothing). */
void		listen_stop(listen_server *l);

#endif
