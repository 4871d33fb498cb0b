/*
 * webconfig.c — --web-config-file (see webconfig.h).
 */
#include "config.h"

#include "webconfig.h"

#ifdef HAVE_CRYPT_R
#include <crypt.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"

/* A certificate or key file larger than this is no PEM file. */
#define WEBCONFIG_MAX_FILE	(1024 * 1024)
/* "$2b$" two digits "$", 22 characters of salt, 31 of hash */
#define BCRYPT_LEN	60

typedef enum webconfig_section
{
	SECTION_NONE,
	SECTION_TLS,
	SECTION_USERS
} webconfig_section;

typedef struct parse_state
{
	const char *path;
	int			line;
	webconfig_section section;
	int			indent;			/* the section's entries' indentation; 0: none yet */
	unsigned	seen;			/* the sections given (1 << section) */
	webconfig  *wc;
	char	  **cause;
} parse_state;

/*
 * Say what is wrong with the current line, then where, then why (NULL:
 * nothing more); always false.
 */
static bool
fail(parse_state *st, const char *why, const char *fmt,...) __attribute__((format(printf, 3, 4)));
static bool
fail(parse_state *st, const char *why, const char *fmt,...)
{
	va_list		ap;
	strbuf		sb;

	strbuf_init(&sb);
	va_start(ap, fmt);
	strbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	strbuf_printf(&sb, " in file \"%s\" line %d%s%s", st->path, st->line, why ? ": " : "",
				  why ? why : "");
	*st->cause = strbuf_detach(&sb);
	return false;
}

/*
 * A scalar at *p: quoted ('...' or "..." without escapes) or plain (a key
 * ends at ": ", a value at the end of the line or " #").  NULL with *why.
 */
static char *
scan_scalar(const char **p, bool key, const char **why)
{
	const char *s = *p,
			   *e;

	if (*s == '"' || *s == '\'')
	{
		e = strchr(s + 1, *s);
		if (e == NULL)
			return *why = "unterminated quoted string", NULL;
		if ((*s == '"' && memchr(s + 1, '\\', (size_t) (e - s - 1)) != NULL) || e[1] == *s)
			return *why = "escapes in quoted strings are not supported", NULL;
		*p = e + 1;
		return xstrndup(s + 1, (size_t) (e - s - 1));
	}
	if (*s != '\0' && strchr("{}[]&*!|>%@`,-?", *s) != NULL && (*s != '-' || s[1] == ' ' || s[1] == '\0'))
		return *why = "only \"key: value\" lines are supported (no lists, flow mappings, "
			"anchors, tags or block scalars)", NULL;
	for (e = s; *e != '\0'; e++)
	{
		if (key && e[0] == ':' && (e[1] == ' ' || e[1] == '\t' || e[1] == '\0'))
			break;
		if (!key && e[0] == '#' && e > s && (e[-1] == ' ' || e[-1] == '\t'))
			break;
	}
	*p = e;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	if (e == s)
		return *why = key ? "a key is missing" : "a value is missing", NULL;
	return xstrndup(s, (size_t) (e - s));
}

/*
 * A line's key and value (NULL: none, a mapping follows); false with the
 * message said (and nothing to free).
 */
static bool
scan_line(parse_state *st, const char *s, char **key, char **value)
{
	const char *why = NULL;
	char	   *k,
			   *v = NULL;

	*key = *value = NULL;
	if ((k = scan_scalar(&s, true, &why)) == NULL)
		return fail(st, why, "syntax error");
	if (*s != ':')
		why = "expected \"key: value\"";
	else
	{
		for (s++; *s == ' ' || *s == '\t'; s++)
			;
		if (*s != '\0' && *s != '#' && (v = scan_scalar(&s, false, &why)) != NULL)
		{
			while (*s == ' ' || *s == '\t')
				s++;
			if (*s != '\0' && *s != '#')
				why = "text after the value";
		}
	}
	if (why != NULL)
	{
		free(k);
		free(v);
		return fail(st, why, "syntax error");
	}
	*key = k;
	*value = v;
	return true;
}

/* A file name of the configuration, taken from its directory when relative. */
static char *
resolve(const char *path, const char *name)
{
	const char *slash = strrchr(path, '/');

	if (name[0] == '/' || slash == NULL)
		return xstrdup(name);
	return xasprintf("%.*s/%s", (int) (slash - path), path, name);
}

/* Whether hash has bcrypt's form; the system's crypt() is asked later. */
static bool
bcrypt_shaped(const char *hash)
{
	if (strlen(hash) != BCRYPT_LEN || hash[0] != '$' || hash[1] != '2' ||
		strchr("aby", hash[2]) == NULL || hash[3] != '$' || hash[6] != '$')
		return false;
	for (int i = 7; i < BCRYPT_LEN; i++)
		if (strchr("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", hash[i]) == NULL)
			return false;
	return hash[4] >= '0' && hash[4] <= '3' && hash[5] >= '0' && hash[5] <= '9';
}

/* A line of a section: key and value into the settings. */
static bool
section_entry(parse_state *st, char *key, char *value)
{
	webconfig  *wc = st->wc;
	char	  **slot;

	if (value == NULL || value[0] == '\0')
		return fail(st, NULL, "key \"%s\" needs a value", key);
	if (st->section == SECTION_USERS)
	{
		for (int i = 0; i < wc->nusers; i++)
			if (strcmp(wc->users[i].name, key) == 0)
				return fail(st, NULL, "user \"%s\" is given twice", key);
		/* the hash itself is never said: it is a secret too */
		if (!bcrypt_shaped(value))
			return fail(st, NULL, "the password hash of user \"%s\" is not a bcrypt hash "
						"($2a$, $2b$ or $2y$, 60 characters)", key);
		wc->users = xrealloc(wc->users, (size_t) (wc->nusers + 1) * sizeof(*wc->users));
		wc->users[wc->nusers++] = (webconfig_user) {xstrdup(key), xstrdup(value), NULL};
		return true;
	}
	if (strcmp(key, "cert_file") == 0)
		slot = &wc->cert_file;
	else if (strcmp(key, "key_file") == 0)
		slot = &wc->key_file;
	else
		return fail(st, "pgtempo-waits reads cert_file and key_file of tls_server_config",
					"unrecognized key \"%s\"", key);
	if (*slot != NULL)
		return fail(st, NULL, "key \"%s\" is given twice", key);
	*slot = resolve(st->path, value);
	return true;
}

/* A line at the top level: a section's name. */
static bool
section_start(parse_state *st, const char *key, const char *value)
{
	webconfig_section sec;

	if (strcmp(key, "tls_server_config") == 0)
		sec = SECTION_TLS;
	else if (strcmp(key, "basic_auth_users") == 0)
		sec = SECTION_USERS;
	else
		return fail(st, "pgtempo-waits reads tls_server_config and basic_auth_users",
					"unrecognized key \"%s\"", key);
	if (value != NULL)
		return fail(st, NULL, "key \"%s\" needs its entries on the lines below it", key);
	if ((st->seen & (1u << sec)) != 0)
		return fail(st, NULL, "key \"%s\" is given twice", key);
	st->seen |= 1u << sec;
	st->section = sec;
	st->indent = 0;
	return true;
}

/* One line of the file (without its newline). */
static bool
parse_line(parse_state *st, const char *line)
{
	int			indent = 0;
	char	   *key,
			   *value;
	bool		ok;

	while (line[indent] == ' ')
		indent++;
	if (line[indent] == '\t')
		return fail(st, "a tab in the indentation", "syntax error");
	if (line[indent] == '\0' || line[indent] == '#')
		return true;
	if (indent == 0 && strcmp(line, "---") == 0 && st->seen == 0 && st->section == SECTION_NONE)
		return true;
	if (indent > 0 && st->section == SECTION_NONE)
		return fail(st, "an indented line outside a section", "syntax error");
	if (indent > 0 && st->indent != 0 && indent != st->indent)
		return fail(st, "the indentation differs from the line before", "syntax error");
	if (!scan_line(st, line + indent, &key, &value))
		return false;
	if (indent == 0)
		ok = section_start(st, key, value);
	else
	{
		st->indent = indent;
		ok = section_entry(st, key, value);
	}
	free(key);
	free(value);
	return ok;
}

bool
webconfig_parse(const char *text, const char *path, webconfig *wc, char **cause)
{
	parse_state st = {path, 0, SECTION_NONE, 0, 0, wc, cause};
	const char *p = text;

	memset(wc, 0, sizeof(*wc));
	while (*p != '\0')
	{
		const char *nl = strchr(p, '\n');
		size_t		len = nl != NULL ? (size_t) (nl - p) : strlen(p);
		char	   *line = xstrndup(p, len);
		bool		ok;

		st.line++;
		if (len > 0 && line[len - 1] == '\r')
			line[len - 1] = '\0';
		ok = parse_line(&st, line);
		free(line);
		if (!ok)
			return webconfig_free(wc), false;
		p += len + (nl != NULL);
	}
	if ((wc->cert_file == NULL) != (wc->key_file == NULL) ||
		((st.seen & (1u << SECTION_TLS)) != 0 && wc->cert_file == NULL))
	{
		*cause = xasprintf("tls_server_config needs both cert_file and key_file in file \"%s\"",
						   path);
		return webconfig_free(wc), false;
	}
	return true;
}

/* A whole file, refused when larger than max; NULL with *cause. */
static char *
read_file(const char *path, size_t max, char **cause)
{
	int			fd = open(path, O_RDONLY | O_CLOEXEC);
	strbuf		sb;
	char		buf[8192];
	ssize_t		n;

	if (fd < 0)
		return *cause = xasprintf("could not open file \"%s\": %s", path, strerror(errno)), NULL;
	strbuf_init(&sb);
	while ((n = read(fd, buf, sizeof(buf))) > 0 && sb.len <= max)
		strbuf_append(&sb, buf, (size_t) n);
	if (n < 0 || sb.len > max || memchr(sb.data, '\0', sb.len) != NULL)
	{
		*cause = n < 0 ? xasprintf("could not read file \"%s\": %s", path, strerror(errno)) :
			xasprintf("file \"%s\" is not a text file of at most %zu bytes", path, max);
		close(fd);
		strbuf_free(&sb);
		return NULL;
	}
	close(fd);
	return strbuf_detach(&sb);
}

/* The certificate or key file, which must hold a PEM block of this kind. */
static char *
read_pem(const char *path, const char *what, const char *marker, char **cause)
{
	char	   *pem = read_file(path, WEBCONFIG_MAX_FILE, cause);

	if (pem != NULL && strstr(pem, marker) == NULL)
	{
		*cause = xasprintf("file \"%s\" holds no %s in PEM form (no \"%s\" line)", path, what,
						   marker);
		free(pem);
		return NULL;
	}
	return pem;
}

/* a and b equal, in a time that depends on their lengths only */
static bool
same_secret(const char *a, const char *b)
{
	size_t		la = strlen(a),
				lb = strlen(b);
	unsigned char diff = la != lb;

	for (size_t i = 0; i < la; i++)
		diff |= (unsigned char) (a[i] ^ b[i % (lb > 0 ? lb : 1)]);
	return diff == 0;
}

#ifdef HAVE_CRYPT_R

/* Whether the system's crypt() takes every user's hash. */
static bool
hashes_ok(const webconfig *wc, const char *path, char **cause)
{
	struct crypt_data *cd = xcalloc(1, sizeof(*cd));

	for (int i = 0; i < wc->nusers; i++)
	{
		const char *h = crypt_r("", wc->users[i].hash, cd);

		if (h == NULL || strlen(h) != BCRYPT_LEN || strncmp(h, wc->users[i].hash, 7) != 0)
		{
			*cause = xasprintf("the system's crypt() does not take the password hash of user "
							   "\"%s\" in file \"%s\"", wc->users[i].name, path);
			free(cd);
			return false;
		}
	}
	free(cd);
	return true;
}

/* user's bcrypt hash of password equals hash, compared in constant time */
static bool
hash_matches(const char *password, const char *hash, bool known)
{
	struct crypt_data *cd = xcalloc(1, sizeof(*cd));
	const char *h = crypt_r(password, hash, cd);
	bool		ok = known && h != NULL && same_secret(h, hash);

	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return ok;
}

#else							/* !HAVE_CRYPT_R */

static bool
hashes_ok(const webconfig *wc, const char *path, char **cause)
{
	if (wc->nusers == 0)
		return true;
	*cause = xasprintf("basic_auth_users in file \"%s\" cannot be checked: this pgtempo-waits "
					   "was built without crypt_r", path);
	return false;
}

static bool
hash_matches(const char *password, const char *hash, bool known)
{
	return false;
}

#endif

bool
webconfig_load(const char *path, webconfig *wc, char **cause)
{
	char	   *text = read_file(path, WEBCONFIG_MAX_FILE, cause);

	if (text == NULL || !webconfig_parse(text, path, wc, cause))
		return free(text), false;
	free(text);
	if (wc->cert_file != NULL &&
		((wc->cert_pem = read_pem(wc->cert_file, "certificate", "-----BEGIN CERTIFICATE-----",
								  cause)) == NULL ||
		 (wc->key_pem = read_pem(wc->key_file, "private key", "PRIVATE KEY-----", cause)) == NULL))
		return webconfig_free(wc), false;
	if (!hashes_ok(wc, path, cause))
		return webconfig_free(wc), false;
	return true;
}

bool
webconfig_password_ok(webconfig *wc, const char *user, const char *password)
{
	webconfig_user *u = NULL;
	bool		ok;

	if (wc->nusers == 0)
		return false;
	for (int i = 0; i < wc->nusers && u == NULL; i++)
		if (strcmp(wc->users[i].name, user) == 0)
			u = &wc->users[i];
	if (u != NULL && u->verified != NULL && same_secret(password, u->verified))
		return true;
	/* an unknown user is hashed against a known hash too, so that it takes as long */
	ok = hash_matches(password, u != NULL ? u->hash : wc->users[0].hash, u != NULL);
	if (ok)
	{
		if (u->verified != NULL)
			explicit_bzero(u->verified, strlen(u->verified));
		free(u->verified);
		u->verified = xstrdup(password);
	}
	return ok;
}

void
webconfig_free(webconfig *wc)
{
	for (int i = 0; i < wc->nusers; i++)
	{
		free(wc->users[i].name);
		free(wc->users[i].hash);
		if (wc->users[i].verified != NULL)
			explicit_bzero(wc->users[i].verified, strlen(wc->users[i].verified));
		free(wc->users[i].verified);
	}
	free(wc->users);
	free(wc->cert_file);
	free(wc->key_file);
	if (wc->key_pem != NULL)
		explicit_bzero(wc->key_pem, strlen(wc->key_pem));
	free(wc->key_pem);
	free(wc->cert_pem);
	memset(wc, 0, sizeof(*wc));
}
