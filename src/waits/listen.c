/*
 * listen.c — the --listen endpoint (see listen.h).
 *
 * The socket is bound here rather than by libmicrohttpd, so that a port in
 * use or an address not on this host is said with the system's reason
 * before sampling starts; libmicrohttpd is handed the listening socket.
 */
#include "config.h"

#include "listen.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgtempo/xalloc.h"

#ifdef HAVE_MICROHTTPD

#include "pgtempo/metrics.h"

#include <netdb.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <microhttpd.h>

/* libmicrohttpd 0.9.71 made its callbacks' int an enum. */
#if MHD_VERSION < 0x00097002
typedef int mhd_result;
#else
typedef enum MHD_Result mhd_result;
#endif

struct listen_server
{
	struct MHD_Daemon *d;
	int			fd;
	listen_render_fn render;
	void	   *arg;
	char		addr[80];		/* what listen_address() says */
};

bool
listen_supported(void)
{
	return true;
}

/* Queue a short plain-text answer with this status. */
static mhd_result
answer_text(struct MHD_Connection *c, unsigned status, const char *text, const char *allow)
{
	struct MHD_Response *rsp;
	mhd_result	ret;

	rsp = MHD_create_response_from_buffer(strlen(text), (void *) text, MHD_RESPMEM_PERSISTENT);
	if (rsp == NULL)
		return MHD_NO;
	MHD_add_response_header(rsp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (allow != NULL)
		MHD_add_response_header(rsp, MHD_HTTP_HEADER_ALLOW, allow);
	ret = MHD_queue_response(c, status, rsp);
	MHD_destroy_response(rsp);
	return ret;
}

/*
 * One request: GET or HEAD of /metrics is rendered, anything else gets a
 * 4xx at once, before any body is read.  libmicrohttpd leaves out the body
 * of a HEAD answer itself.
 */
static mhd_result
answer(void *cls, struct MHD_Connection *c, const char *url, const char *method,
	   const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	listen_server *l = cls;
	bool		om;
	strbuf		body;
	struct MHD_Response *rsp;
	mhd_result	ret;
	size_t		len;

	if (strcmp(url, "/metrics") != 0)
		return answer_text(c, MHD_HTTP_NOT_FOUND, "Not found: the metrics are at /metrics\n",
						   NULL);
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return answer_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "Method not allowed: GET /metrics\n",
						   "GET, HEAD");
	om = metrics_accepts_openmetrics(MHD_lookup_connection_value(c, MHD_HEADER_KIND,
																 MHD_HTTP_HEADER_ACCEPT));
	strbuf_init(&body);
	switch (l->render(l->arg, om, &body))
	{
		case LISTEN_SERVED:
			break;
		case LISTEN_NOT_READY:
			strbuf_free(&body);
			return answer_text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "Sampling has not started yet\n",
							   NULL);
		case LISTEN_FAILED:
			strbuf_free(&body);
			return answer_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "The metrics could not be "
							   "written\n", NULL);
	}
	len = body.len;
	rsp = MHD_create_response_from_buffer(len, strbuf_detach(&body), MHD_RESPMEM_MUST_FREE);
	if (rsp == NULL)
		return MHD_NO;
	MHD_add_response_header(rsp, MHD_HTTP_HEADER_CONTENT_TYPE,
							metrics_content_type(om ? METRICS_OPENMETRICS : 0));
	ret = MHD_queue_response(c, MHD_HTTP_OK, rsp);
	MHD_destroy_response(rsp);
	return ret;
}

/* "host:port", "[v6]:port": the address a socket is bound to. */
static void
format_address(const struct sockaddr *sa, socklen_t len, char *out, size_t size)
{
	char		host[NI_MAXHOST],
				port[NI_MAXSERV];

	if (getnameinfo(sa, len, host, sizeof(host), port, sizeof(port),
					NI_NUMERICHOST | NI_NUMERICSERV) != 0)
		snprintf(out, size, "?");
	else
		snprintf(out, size, sa->sa_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host, port);
}

/* A socket bound to host:port and listening, or -1 with *cause. */
static int
bind_socket(const char *host, int port, char *addr, size_t addrlen, char **cause)
{
	struct addrinfo hints,
			   *res,
			   *ai;
	char		portstr[16];
	int			rc,
				fd = -1,
				err = 0,
				one = 1;
	struct sockaddr_storage ss;
	socklen_t	sslen = sizeof(ss);

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	snprintf(portstr, sizeof(portstr), "%d", port);
	if ((rc = getaddrinfo(host, portstr, &hints, &res)) != 0)
	{
		*cause = xasprintf("could not listen on \"%s\" (--listen): %s", host, gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai != NULL && fd < 0; ai = ai->ai_next)
	{
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0)
		{
			err = errno;
			continue;
		}
		/* a restart binds again at once, past the old connections' TIME_WAIT */
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 16) != 0)
		{
			err = errno;
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	if (fd < 0)
	{
		*cause = xasprintf("could not listen on %s%s%s:%d (--listen): %s",
						   strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "",
						   port, strerror(err));
		return -1;
	}
	if (getsockname(fd, (struct sockaddr *) &ss, &sslen) == 0)
		format_address((struct sockaddr *) &ss, sslen, addr, addrlen);
	return fd;
}

/* Listen, then start libmicrohttpd's thread on the socket with the signals blocked. */
listen_server *
listen_start(const char *host, int port, listen_render_fn fn, void *arg, char **cause)
{
	listen_server *l = xcalloc(1, sizeof(*l));
	sigset_t	block,
				old;

	l->render = fn;
	l->arg = arg;
	if ((l->fd = bind_socket(host, port, l->addr, sizeof(l->addr), cause)) < 0)
	{
		free(l);
		return NULL;
	}
	/* the thread inherits the mask: SIGINT and the others must cut the sampler's sleep short */
	sigfillset(&block);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	l->d = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, 0, NULL, NULL, answer, l,
							MHD_OPTION_LISTEN_SOCKET, (MHD_socket) l->fd,
							MHD_OPTION_CONNECTION_LIMIT, (unsigned) LISTEN_MAX_CONNECTIONS,
							MHD_OPTION_CONNECTION_TIMEOUT, (unsigned) LISTEN_TIMEOUT_S,
							MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (l->d == NULL)
	{
		*cause = xasprintf("could not start serving /metrics on %s (--listen)", l->addr);
		close(l->fd);
		free(l);
		return NULL;
	}
	return l;
}

const char *
listen_address(const listen_server *l)
{
	return l->addr;
}

/* Stop the thread; it closes every connection and the socket it was handed. */
void
listen_stop(listen_server *l)
{
	if (l == NULL)
		return;
	MHD_stop_daemon(l->d);
	free(l);
}

#else							/* !HAVE_MICROHTTPD */

struct listen_server
{
	int			unused;
};

bool
listen_supported(void)
{
	return false;
}

/* Never: main() refuses --listen first; this says the same should it be called. */
listen_server *
listen_start(const char *host, int port, listen_render_fn fn, void *arg, char **cause)
{
	*cause = xstrdup("--listen needs libmicrohttpd: this pgtempo-waits was built without it");
	return NULL;
}

const char *
listen_address(const listen_server *l)
{
	return "";
}

void
listen_stop(listen_server *l)
{
}

#endif
