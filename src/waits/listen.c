/*
 * listen.c — the --listen endpoint (see listen.h).
 *
 * The socket is bound here rather than by libmicrohttpd, so that a port in
 * use or an address not on this host is said with the system's reason
 * before sampling starts; libmicrohttpd is handed the listening socket.
 * libmicrohttpd's own messages are kept only while it starts (to say why
 * a certificate was refused); afterwards a client's failed handshake or
 * bad request is not the operator's business and is dropped.
 */
#include "config.h"

#include "listen.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgtempo/xalloc.h"

#ifdef HAVE_MICROHTTPD

#include "pgtempo/clock.h"
#include "pgtempo/metrics.h"

#include "webconfig.h"

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
/* and 0.9.56 added MHD_free() for what it allocates */
#if MHD_VERSION < 0x00095600
#define MHD_free free
#endif

/* What a client without the right credentials is told: nothing else. */
#define LISTEN_REALM		"pgtempo-waits"
#define LISTEN_UNAUTHORIZED	"Unauthorized\n"

/* A connection the endpoint serves, for the deadline (listen.h). */
typedef struct listen_conn
{
	struct listen_conn *prev,
			   *next;
	int			fd;
	uint64_t	start_ns;		/* clock_now_ns() when accepted */
	bool		cut;			/* shut down past the deadline */
} listen_conn;

struct listen_server
{
	struct MHD_Daemon *d;
	int			fd;
	/* the connections and the thread that cuts those past the deadline */
	pthread_mutex_t mu;
	pthread_cond_t wake;
	listen_conn *conns;
	bool		stopping;
	bool		watching;		/* the thread runs */
	pthread_t	watchdog;
	listen_render_fn render;
	void	   *arg;
	webconfig	wc;				/* --web-config-file; zeroed: plain HTTP, no users */
	bool		starting;		/* libmicrohttpd's messages are kept in why */
	char		why[256];
	char		addr[80];		/* what listen_address() says */
	char		url[128];		/* what listen_url() says */
};

bool
listen_supported(void)
{
	return true;
}

/* A short plain-text response (NULL when out of memory). */
static struct MHD_Response *
text_response(const char *text, const char *allow)
{
	struct MHD_Response *rsp;

	rsp = MHD_create_response_from_buffer(strlen(text), (void *) text, MHD_RESPMEM_PERSISTENT);
	if (rsp == NULL)
		return NULL;
	MHD_add_response_header(rsp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (allow != NULL)
		MHD_add_response_header(rsp, MHD_HTTP_HEADER_ALLOW, allow);
	return rsp;
}

/* Queue a short plain-text answer with this status. */
static mhd_result
answer_text(struct MHD_Connection *c, unsigned status, const char *text, const char *allow)
{
	struct MHD_Response *rsp = text_response(text, allow);
	mhd_result	ret;

	if (rsp == NULL)
		return MHD_NO;
	ret = MHD_queue_response(c, status, rsp);
	MHD_destroy_response(rsp);
	return ret;
}

/*
 * Whether the request carries a user and password of the web
 * configuration (always, when it names no users).  Runs on the endpoint's
 * one thread, which serializes webconfig_password_ok().
 */
static bool
authorized(listen_server *l, struct MHD_Connection *c)
{
	char	   *pass = NULL;
	char	   *user;
	bool		ok;

	if (l->wc.nusers == 0)
		return true;
	user = MHD_basic_auth_get_username_password(c, &pass);
	ok = user != NULL && pass != NULL && webconfig_password_ok(&l->wc, user, pass);
	if (pass != NULL)
	{
		explicit_bzero(pass, strlen(pass));
		MHD_free(pass);
	}
	if (user != NULL)
		MHD_free(user);
	return ok;
}

/* 401 with the realm to authenticate in, and a body that says nothing else. */
static mhd_result
answer_unauthorized(struct MHD_Connection *c)
{
	struct MHD_Response *rsp = text_response(LISTEN_UNAUTHORIZED, NULL);
	mhd_result	ret;

	if (rsp == NULL)
		return MHD_NO;
	ret = MHD_queue_basic_auth_fail_response(c, LISTEN_REALM, rsp);
	MHD_destroy_response(rsp);
	return ret;
}

/*
 * One request: without the credentials a 401 whatever was asked, then GET
 * or HEAD of /metrics is rendered, anything else gets a 4xx at once, before
 * any body is read.  libmicrohttpd leaves out the body of a HEAD answer
 * itself.
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

	if (!authorized(l, c))
		return answer_unauthorized(c);
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
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, LISTEN_BACKLOG) != 0)
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

/*
 * libmicrohttpd's thread: a connection accepted is listed with its socket,
 * one closed leaves the list.  It is told of the close before it closes
 * the socket, so the watchdog never shuts down a number reused since.
 */
static void
on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	listen_server *l = cls;
	listen_conn *lc = *socket_context;
	const union MHD_ConnectionInfo *ci;

	if (code == MHD_CONNECTION_NOTIFY_STARTED)
	{
		if ((ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD)) == NULL)
			return;
		lc = xcalloc(1, sizeof(*lc));
		lc->fd = ci->connect_fd;
		lc->start_ns = clock_now_ns();
		pthread_mutex_lock(&l->mu);
		lc->next = l->conns;
		if (l->conns != NULL)
			l->conns->prev = lc;
		l->conns = lc;
		pthread_mutex_unlock(&l->mu);
		*socket_context = lc;
	}
	else if (code == MHD_CONNECTION_NOTIFY_CLOSED && lc != NULL)
	{
		pthread_mutex_lock(&l->mu);
		if (lc->prev != NULL)
			lc->prev->next = lc->next;
		else
			l->conns = lc->next;
		if (lc->next != NULL)
			lc->next->prev = lc->prev;
		pthread_mutex_unlock(&l->mu);
		free(lc);
		*socket_context = NULL;
	}
}

/*
 * Once a second, shut down the connections older than the deadline: the
 * idle timeout alone lets a client that sends a byte every few seconds
 * keep its connection for ever.  libmicrohttpd then reads the end of the
 * stream and closes the connection itself.
 */
static void *
watchdog(void *arg)
{
	listen_server *l = arg;
	struct timespec ts;

	pthread_mutex_lock(&l->mu);
	while (!l->stopping)
	{
		uint64_t	now = clock_now_ns();

		for (listen_conn *lc = l->conns; lc != NULL; lc = lc->next)
			if (!lc->cut && now - lc->start_ns >= (uint64_t) LISTEN_DEADLINE_S * NS_PER_S)
			{
				shutdown(lc->fd, SHUT_RDWR);
				lc->cut = true;
			}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&l->wake, &l->mu, &ts);
	}
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

/* The watchdog's thread (signals blocked by the caller). */
static bool
start_watchdog(listen_server *l, char **cause)
{
	int			rc;

	if ((rc = pthread_create(&l->watchdog, NULL, watchdog, l)) != 0)
	{
		*cause = xasprintf("could not start serving /metrics on %s (--listen): %s", l->addr,
						   strerror(rc));
		return false;
	}
	l->watching = true;
	return true;
}

/* Stop the watchdog, if it runs. */
static void
stop_watchdog(listen_server *l)
{
	if (!l->watching)
		return;
	pthread_mutex_lock(&l->mu);
	l->stopping = true;
	pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&l->mu);
	pthread_join(l->watchdog, NULL);
	l->watching = false;
}

/* libmicrohttpd's messages: the first one while it starts, none after. */
static void
mhd_log(void *cls, const char *fmt, va_list ap)
{
	listen_server *l = cls;

	if (__atomic_load_n(&l->starting, __ATOMIC_ACQUIRE) && l->why[0] == '\0')
	{
		size_t		n;

		vsnprintf(l->why, sizeof(l->why), fmt, ap);
		n = strcspn(l->why, "\n");
		/* the message goes on after it */
		while (n > 0 && (l->why[n - 1] == '.' || l->why[n - 1] == ' '))
			n--;
		l->why[n] = '\0';
	}
}

/*
 * Start libmicrohttpd's one polling thread (epoll where there is) on the
 * socket, with the signals blocked: slow clients cost a slot each, not a
 * thread, and are bounded per address and in all (listen.h).
 */
static bool
start_daemon(listen_server *l, char **cause)
{
	bool		tls = l->wc.cert_pem != NULL;
	struct MHD_OptionItem ops[] = {
		{MHD_OPTION_LISTEN_SOCKET, (intptr_t) l->fd, NULL},
		{MHD_OPTION_CONNECTION_LIMIT, LISTEN_MAX_CONNECTIONS, NULL},
		{MHD_OPTION_PER_IP_CONNECTION_LIMIT, LISTEN_MAX_PER_ADDRESS, NULL},
		{MHD_OPTION_CONNECTION_TIMEOUT, LISTEN_TIMEOUT_S, NULL},
		/* without TLS the list ends here */
		{tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, l->wc.cert_pem},
		{MHD_OPTION_HTTPS_MEM_KEY, 0, l->wc.key_pem},
		{MHD_OPTION_END, 0, NULL}
	};
	sigset_t	block,
				old;

	/* the thread inherits the mask: SIGINT and the others must cut the sampler's sleep short */
	sigfillset(&block);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	l->starting = true;
	if (start_watchdog(l, cause))
		l->d = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG |
								(tls ? MHD_USE_TLS : 0), 0, NULL, NULL, answer, l,
								MHD_OPTION_EXTERNAL_LOGGER, mhd_log, l,
								MHD_OPTION_NOTIFY_CONNECTION, on_connection, l,
								MHD_OPTION_ARRAY, ops, MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (l->d == NULL && !l->watching)
		return false;
	if (l->d == NULL)
	{
		stop_watchdog(l);
		if (tls)
			*cause = xasprintf("could not start serving /metrics over TLS on %s (--listen): %s "
							   "(are \"%s\" and \"%s\" a certificate and its key?)", l->addr,
							   l->why[0] != '\0' ? l->why : "refused", l->wc.cert_file,
							   l->wc.key_file);
		else
			*cause = xasprintf("could not start serving /metrics on %s (--listen)%s%s", l->addr,
							   l->why[0] != '\0' ? ": " : "", l->why);
		return false;
	}
	/* the thread reads it only after a message: set before any client can cause one */
	__atomic_store_n(&l->starting, false, __ATOMIC_RELEASE);
	return true;
}

/* Free the server, its threads stopped (the daemon closed the socket it was handed). */
static void
server_free(listen_server *l)
{
	webconfig_free(&l->wc);
	/* libmicrohttpd said every connection closed, but it may not have accepted them all */
	while (l->conns != NULL)
	{
		listen_conn *next = l->conns->next;

		free(l->conns);
		l->conns = next;
	}
	pthread_cond_destroy(&l->wake);
	pthread_mutex_destroy(&l->mu);
	free(l);
}

/* Read the web configuration, listen, then start serving. */
listen_server *
listen_start(const char *host, int port, const char *web_config, listen_render_fn fn, void *arg,
			 char **cause)
{
	listen_server *l = xcalloc(1, sizeof(*l));
	pthread_condattr_t ca;

	l->render = fn;
	l->arg = arg;
	l->fd = -1;
	pthread_mutex_init(&l->mu, NULL);
	/* the watchdog's seconds are the monotonic clock's */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&l->wake, &ca);
	pthread_condattr_destroy(&ca);
	if ((web_config != NULL && !webconfig_load(web_config, &l->wc, cause)) ||
		(l->fd = bind_socket(host, port, l->addr, sizeof(l->addr), cause)) < 0 ||
		!start_daemon(l, cause))
	{
		if (l->fd >= 0)
			close(l->fd);
		server_free(l);
		return NULL;
	}
	snprintf(l->url, sizeof(l->url), "%s://%s/metrics", l->wc.cert_pem != NULL ? "https" : "http",
			 l->addr);
	return l;
}

const char *
listen_address(const listen_server *l)
{
	return l->addr;
}

const char *
listen_url(const listen_server *l)
{
	return l->url;
}

bool
listen_authenticates(const listen_server *l)
{
	return l->wc.nusers > 0;
}

/* Stop the thread; it closes every connection and the socket it was handed. */
void
listen_stop(listen_server *l)
{
	if (l == NULL)
		return;
	stop_watchdog(l);
	MHD_stop_daemon(l->d);
	server_free(l);
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
listen_start(const char *host, int port, const char *web_config, listen_render_fn fn, void *arg,
			 char **cause)
{
	*cause = xstrdup("--listen needs libmicrohttpd: this pgtempo-waits was built without it");
	return NULL;
}

const char *
listen_address(const listen_server *l)
{
	return "";
}

const char *
listen_url(const listen_server *l)
{
	return "";
}

bool
listen_authenticates(const listen_server *l)
{
	return false;
}

void
listen_stop(listen_server *l)
{
}

#endif
