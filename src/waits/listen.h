/*
 * listen.h — --listen: an HTTP endpoint that serves /metrics while the
 * sampler runs (libmicrohttpd, on a thread of its own).
 *
 * The sampler never waits for it: the endpoint's thread calls the render
 * function, which reads what the sampler last published (waitsmetrics.h)
 * under a lock the sampler only ever tries.  One polling thread serves
 * every connection, so a slow or silent client costs a slot, not a thread:
 * a connection idle for a few seconds is closed, one open for ten seconds
 * is shut down whatever it does, one address holds at most
 * a few slots, and the total leaves room for the scraper (an address of
 * its own) however many connections another address opens.  With
 * --web-config-file (webconfig.h) the endpoint speaks TLS and asks for a
 * user and password; anything but GET or HEAD of /metrics gets a 4xx.
 */
#ifndef PGTEMPO_WAITS_LISTEN_H
#define PGTEMPO_WAITS_LISTEN_H

#include <stdbool.h>

#include "pgtempo/strbuf.h"

/* Connections served at once; more wait in the backlog until one closes. */
#define LISTEN_MAX_CONNECTIONS	64
/* Connections from one address at once; more are closed as they come. */
#define LISTEN_MAX_PER_ADDRESS	8
/* Connections waiting to be accepted. */
#define LISTEN_BACKLOG			64
/*
 * A connection idle this long (nothing sent, nothing read) is closed: a
 * client that sends half a request and waits holds its slot this long.
 */
#define LISTEN_TIMEOUT_S		5
/*
 * A connection open this long is shut down, however busy: a scrape takes a
 * fraction of it (and Prometheus gives up on one after 10 s by default),
 * a client that sends its request a byte every few seconds no longer.
 */
#define LISTEN_DEADLINE_S		10

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
 * Listen on host:port (port 0: a free one) and serve /metrics from fn,
 * with TLS and users from the web configuration file web_config (NULL:
 * none); NULL with *cause when the file is wrong, the address cannot be
 * used (port in use, no such address) or the server cannot start.
 * Signals are left to the caller's thread.
 */
listen_server *listen_start(const char *host, int port, const char *web_config,
							listen_render_fn fn, void *arg, char **cause);
/* The address served, e.g. "127.0.0.1:9187" or "[::1]:9187". */
const char *listen_address(const listen_server *l);
/* The metrics' URL, e.g. "https://127.0.0.1:9187/metrics". */
const char *listen_url(const listen_server *l);
/* Whether a scrape must give a user and password. */
bool		listen_authenticates(const listen_server *l);
/* Close the connections and stop the thread (NULL: nothing). */
void		listen_stop(listen_server *l);

#endif
