/*
 * fakepg.c — a PostgreSQL server just real enough for libpq to connect.
 */
#include "config.h"

#include "fakepg.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* A message being built. */
typedef struct msg
{
	char		b[512];
	size_t		n;
} msg;

static void
put(msg *m, const void *p, size_t n)
{
	if (m->n + n <= sizeof(m->b))
		memcpy(m->b + m->n, p, n);
	m->n += n;
}

static void
put32(msg *m, uint32_t v)
{
	unsigned char b[4] = {v >> 24, v >> 16, v >> 8, v};

	put(m, b, 4);
}

static void
put16(msg *m, uint16_t v)
{
	unsigned char b[2] = {v >> 8, v};

	put(m, b, 2);
}

static void
puts0(msg *m, const char *s)
{
	put(m, s, strlen(s) + 1);
}

/* Send a message of type t with body m. */
static bool
send_msg(int fd, char t, const msg *m)
{
	unsigned char h[5] = {(unsigned char) t, (m->n + 4) >> 24, (m->n + 4) >> 16,
	(m->n + 4) >> 8, m->n + 4};

	return write(fd, h, 5) == 5 && (m->n == 0 || write(fd, m->b, m->n) == (ssize_t) m->n);
}

static bool
read_all(int fd, void *p, size_t n)
{
	for (size_t got = 0; got < n;)
	{
		ssize_t		r = read(fd, (char *) p + got, n - got);

		if (r <= 0)
			return false;
		got += (size_t) r;
	}
	return true;
}

static uint32_t
get32(const unsigned char *b)
{
	return (uint32_t) b[0] << 24 | (uint32_t) b[1] << 16 | (uint32_t) b[2] << 8 | b[3];
}

/* Read the startup packet (refusing SSL and GSS encryption first). */
static bool
startup(int fd)
{
	for (;;)
	{
		unsigned char h[8];
		char		skip[1024];
		uint32_t	len;

		if (!read_all(fd, h, 8) || (len = get32(h)) < 8 || len - 8 > sizeof(skip) ||
			!read_all(fd, skip, len - 8))
			return false;
		if (get32(h + 4) != 80877103 && get32(h + 4) != 80877104)
			return true;
		if (write(fd, "N", 1) != 1)
			return false;
	}
}

/* Authentication done, the server's settings, ready. */
static bool
greet(int fd)
{
	static const char *const params[] = {
		"integer_datetimes", "on", "server_version", "15.0", "server_encoding", "UTF8",
		"client_encoding", "UTF8", "DateStyle", "ISO, MDY", "standard_conforming_strings", "on",
	};
	msg			m = {.n = 0};
	bool		ok;

	put32(&m, 0);
	ok = send_msg(fd, 'R', &m);
	for (size_t i = 0; ok && i < sizeof(params) / sizeof(params[0]); i += 2)
	{
		m.n = 0;
		puts0(&m, params[i]);
		puts0(&m, params[i + 1]);
		ok = send_msg(fd, 'S', &m);
	}
	m.n = 0;
	put32(&m, 4242);
	put32(&m, 1);
	ok = ok && send_msg(fd, 'K', &m);
	m.n = 0;
	put(&m, "I", 1);
	return ok && send_msg(fd, 'Z', &m);
}

/* One field of a row description: binary format. */
static void
field(msg *m, const char *name, uint32_t type, int16_t len)
{
	puts0(m, name);
	put32(m, 0);
	put16(m, 0);
	put32(m, type);
	put16(m, (uint16_t) len);
	put32(m, UINT32_MAX);
	put16(m, 1);
}

/* The answer to a query: the row of a type lookup for pg_catalog.oid. */
static bool
answer(int fd, bool extended)
{
	msg			m = {.n = 0};
	bool		ok = !extended || (send_msg(fd, '1', &m) && send_msg(fd, '2', &m));

	put16(&m, 5);
	field(&m, "idx", 23, 4);
	field(&m, "typoid", 26, 4);
	field(&m, "arroid", 26, 4);
	field(&m, "typlen", 21, 2);
	field(&m, "arr_props", 25, -1);
	ok = ok && send_msg(fd, 'T', &m);
	m.n = 0;
	put16(&m, 5);
	put32(&m, 4);
	put32(&m, 1);
	put32(&m, 4);
	put32(&m, 26);
	put32(&m, 4);
	put32(&m, 1028);
	put32(&m, 2);
	put16(&m, 4);
	put32(&m, UINT32_MAX);
	ok = ok && send_msg(fd, 'D', &m);
	m.n = 0;
	puts0(&m, "SELECT 1");
	ok = ok && send_msg(fd, 'C', &m);
	m.n = 0;
	put(&m, "I", 1);
	return ok && send_msg(fd, 'Z', &m);
}

/* Serve one connection until the client ends it. */
static void *
serve(void *arg)
{
	fakepg	   *f = arg;
	int			fd = accept(f->listen_fd, NULL, NULL);
	unsigned char h[5];
	char		body[4096];

	if (fd < 0)
		return NULL;
	if (startup(fd) && greet(fd))
		while (read_all(fd, h, 5) && h[0] != 'X')
		{
			uint32_t	len = get32(h + 1);

			if (len < 4 || len - 4 > sizeof(body) || !read_all(fd, body, len - 4))
				break;
			if ((h[0] == 'S' || h[0] == 'Q') && !answer(fd, h[0] == 'S'))
				break;
		}
	close(fd);
	return NULL;
}

PGconn *
fakepg_connect(fakepg *f)
{
	struct sockaddr_un sa;
	char		conninfo[256];
	PGconn	   *conn;

	memset(f, 0, sizeof(*f));
	f->listen_fd = -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/fakepg.XXXXXX");
	if (mkdtemp(f->dir) == NULL)
		return NULL;
	snprintf(f->path, sizeof(f->path), "%s/.s.PGSQL.5432", f->dir);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(f->path) >= sizeof(sa.sun_path))
	{
		fakepg_stop(f, NULL);
		return NULL;
	}
	memcpy(sa.sun_path, f->path, strlen(f->path) + 1);
	if ((f->listen_fd = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
		bind(f->listen_fd, (struct sockaddr *) &sa, sizeof(sa)) != 0 ||
		listen(f->listen_fd, 1) != 0 || pthread_create(&f->thread, NULL, serve, f) != 0)
	{
		fakepg_stop(f, NULL);
		return NULL;
	}
	f->started = true;
	snprintf(conninfo, sizeof(conninfo), "host=%s port=5432 user=test dbname=test "
			 "sslmode=disable gssencmode=disable connect_timeout=10", f->dir);
	conn = PQconnectdb(conninfo);
	if (PQstatus(conn) != CONNECTION_OK)
	{
		fprintf(stderr, "fakepg: %s", PQerrorMessage(conn));
		fakepg_stop(f, conn);
		return NULL;
	}
	return conn;
}

void
fakepg_stop(fakepg *f, PGconn *conn)
{
	PQfinish(conn);
	if (f->listen_fd >= 0)
		shutdown(f->listen_fd, SHUT_RDWR);	/* wakes an accept() that got no one */
	if (f->started)
		pthread_join(f->thread, NULL);
	if (f->listen_fd >= 0)
		close(f->listen_fd);
	if (f->path[0] != '\0')
		unlink(f->path);
	if (f->dir[0] != '\0')
		rmdir(f->dir);
	memset(f, 0, sizeof(*f));
	f->listen_fd = -1;
}
