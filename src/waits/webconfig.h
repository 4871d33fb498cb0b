/*
 * webconfig.h — --web-config-file: TLS and basic authentication for the
 * --listen endpoint, configured the way Prometheus exporters are (the
 * exporter-toolkit's web configuration file).
 *
 * Only a subset of that YAML is read, by a small strict parser: two
 * mappings, each "key: value" on a line of its own,
 *
 *   tls_server_config:
 *     cert_file: server.crt
 *     key_file: server.key
 *   basic_auth_users:
 *     prometheus: $2b$12$...      (a bcrypt hash)
 *
 * with comments, blank lines, a leading "---" and quoted scalars.  Every
 * other key and every other form (flow mappings, lists, anchors) is
 * refused with the file and line, so that a setting is never silently
 * ignored.  Relative file names are taken from the configuration file's
 * directory, as exporters do.
 */
#ifndef PGTEMPO_WAITS_WEBCONFIG_H
#define PGTEMPO_WAITS_WEBCONFIG_H

#include <stdbool.h>

typedef struct webconfig_user
{
	char	   *name;
	char	   *hash;			/* bcrypt: $2a$, $2b$ or $2y$ */
	char	   *verified;		/* the last password that matched, or NULL */
} webconfig_user;

typedef struct webconfig
{
	char	   *cert_file;		/* NULL: no TLS */
	char	   *key_file;
	char	   *cert_pem;		/* the files' contents, after webconfig_load() */
	char	   *key_pem;
	webconfig_user *users;		/* none: no authentication */
	int			nusers;
} webconfig;

/*
 * Parse the text of a configuration file named path (for the messages and
 * for relative file names) into *wc; false with *cause naming the file and
 * line.  Reads no other file.
 */
bool		webconfig_parse(const char *text, const char *path, webconfig *wc, char **cause);

/*
 * Read and parse path, then read the certificate and the key and check
 * that the system's crypt() takes every hash; false with *cause.
 */
bool		webconfig_load(const char *path, webconfig *wc, char **cause);

/*
 * Whether user's password is this one (bcrypt through crypt_r(), compared
 * in constant time; an unknown user costs a hash too).  Not thread-safe:
 * the caller serializes (it remembers the last password that matched, so
 * that a scraper is not hashed again at every scrape).
 */
bool		webconfig_password_ok(webconfig *wc, const char *user, const char *password);

void		webconfig_free(webconfig *wc);

#endif
