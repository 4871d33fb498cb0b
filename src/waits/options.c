/*
 * options.c — parsing pgtempo-waits' option values.
 */
#include "config.h"

#include "options.h"

#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtempo/clock.h"
#include "pgtempo/parse.h"
#include "pgtempo/strbuf.h"
#include "pgtempo/xalloc.h"

#include "measured.h"

static const char *const source_names[] = {
	[SAMPLER_SOURCE_AUTO] = "auto",
	[SAMPLER_SOURCE_ACTIVITY] = "activity",
	[SAMPLER_SOURCE_PG_WAIT_SAMPLING] = "pg_wait_sampling",
	[SAMPLER_SOURCE_PG_STAT_WAIT] = "pg_stat_wait",
};

/* The --source spelling of a source. */
const char *
options_source_name(sampler_source s)
{
	return source_names[s];
}

/* A --by list: known names, none twice, order kept for the report columns. */
bool
options_parse_by(const char *arg, waits_settings *s, char **cause)
{
	const char *p = arg;
	bool		seen[WPROF_DIM_COUNT] = {false};
	wprof_dim	dims[WPROF_DIM_COUNT];
	int			n = 0;

	do
	{
		size_t		len = strcspn(p, ",");
		wprof_dim d;

		if (!wprof_dim_parse(p, len, &d))
		{
			*cause = xasprintf("invalid value \"%s\" for option --by: must be a comma-separated "
							   "list of event, pid, query, db, user, app, backend_type", arg);
			return false;
		}
		if (seen[d])
		{
			*cause = xasprintf("invalid value \"%s\" for option --by: \"%s\" is listed twice",
							   arg, wprof_dim_name(d));
			return false;
		}
		seen[d] = true;
		dims[n++] = d;
		p += len;
	} while (*p++ == ',');
	memcpy(s->by, dims, sizeof(dims[0]) * (size_t) n);
	s->nby = n;
	return true;
}

/* A --source value. */
bool
options_parse_source(const char *arg, waits_settings *s, char **cause)
{
	int			i = parse_name(source_names, sizeof(source_names) / sizeof(source_names[0]),
							   arg, strlen(arg));

	if (i >= 0)
	{
		s->source = (sampler_source) i;
		return true;
	}
	*cause = xasprintf("invalid value \"%s\" for option --source: must be auto, activity, "
					   "pg_wait_sampling or pg_stat_wait", arg);
	return false;
}

/* One pid or a comma-separated list of them, for option name, appended to the others. */
static bool
parse_pid_list(const char *arg, const char *name, int32_t **pids, int *npids, char **cause)
{
	const char *p = arg;

	do
	{
		size_t		len = strcspn(p, ",");
		char	   *one = xstrndup(p, len);
		int64_t		v;
		char	   *why = NULL;
		bool		ok = parse_int64(one, name, 1, INT32_MAX, &v, &why);

		free(one);
		if (!ok)
		{
			free(why);
			*cause = xasprintf("invalid value \"%s\" for option %s: must be a process ID "
							   "or a comma-separated list of them", arg, name);
			return false;
		}
		*pids = xrealloc(*pids, (size_t) (*npids + 1) * sizeof(int32_t));
		(*pids)[(*npids)++] = (int32_t) v;
		p += len;
	} while (*p++ == ',');
	return true;
}

/* A --pid value. */
bool
options_parse_pids(const char *arg, waits_settings *s, char **cause)
{
	return parse_pid_list(arg, "--pid", &s->pids, &s->npids, cause);
}

/* A --trace value. */
bool
options_parse_trace_pids(const char *arg, waits_settings *s, char **cause)
{
	return parse_pid_list(arg, "--trace", &s->trace_pids, &s->ntrace_pids, cause);
}

/* The sessions: client backends and the processes that work for them. */
const char *const options_default_backend_types[] = {
	"client backend", "parallel worker", "autovacuum worker", "walsender", NULL
};

/* Is name one of the types --backend-type takes? */
static bool
known_backend_type(const char *name, size_t len)
{
	static const char *const other[] = {OPTIONS_OTHER_BACKEND_TYPE};

	return parse_name(other, 1, name, len) >= 0 ||
		parse_name(sampler_backend_types, SIZE_MAX, name, len) >= 0;
}

/* A --backend-type value: a comma-separated list of known types, or all. */
bool
options_parse_backend_types(const char *arg, waits_settings *s, char **cause)
{
	const char *p = arg;

	do
	{
		size_t		len = strcspn(p, ",");

		if (len == 3 && memcmp(p, "all", 3) == 0)
			s->backend_types_all = true;
		else if (!known_backend_type(p, len))
		{
			strbuf		sb;

			strbuf_init(&sb);
			for (int i = 0; sampler_backend_types[i] != NULL; i++)
				strbuf_printf(&sb, "\"%s\", ", sampler_backend_types[i]);
			*cause = xasprintf("invalid value \"%s\" for option --backend-type: "
							   "\"%.*s\" is not a backend type; valid are all, %s"
							   "and \"%s\" (extension workers)",
							   arg, (int) len, p, sb.data, OPTIONS_OTHER_BACKEND_TYPE);
			strbuf_free(&sb);
			return false;
		}
		else
		{
			char	   *one = xstrndup(p, len);

			options_strlist_add(&s->backend_types, one);
			free(one);
		}
		p += len;
	} while (*p++ == ',');
	return true;
}

/* The default list of backend types, when none was given. */
void
options_default_backend_types_fill(sampler_strlist *l)
{
	if (l->n > 0)
		return;
	for (int i = 0; options_default_backend_types[i] != NULL; i++)
		options_strlist_add(l, options_default_backend_types[i]);
}

/* A --log-format value. */
bool
options_parse_log_format(const char *arg, waits_settings *s, char **cause)
{
	if (strcmp(arg, "csv") == 0)
		s->log_format = WAITS_LOG_CSV;
	else if (strcmp(arg, "jsonl") == 0)
		s->log_format = WAITS_LOG_JSONL;
	else
	{
		*cause = xasprintf("invalid value \"%s\" for option --log-format: must be csv or jsonl",
						   arg);
		return false;
	}
	return true;
}

/* Does s end with suffix? */
static bool
ends_with(const char *s, const char *suffix)
{
	size_t		n = strlen(s),
				m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The format asked for, else the one the file name suggests. */
waits_log_format
options_log_format_for(const char *path, waits_log_format asked)
{
	if (asked != WAITS_LOG_AUTO)
		return asked;
	if (path != NULL && (ends_with(path, ".jsonl") || ends_with(path, ".json")))
		return WAITS_LOG_JSONL;
	return WAITS_LOG_CSV;
}

/*
 * --log-retain: an age as every duration is read (parse.h) but with its
 * unit, "7d", "36h", "90min"; or a size, "10GB", "500 MB".
 */
bool
options_parse_retain(const char *arg, waits_settings *s, char **cause)
{
	static const struct
	{
		const char *unit;
		double		factor;
	}			sizes[] = {
		{"kB", 1024.0}, {"MB", 1048576.0}, {"GB", 1073741824.0}, {"TB", 1099511627776.0},
	};
	size_t		n = strlen(arg);
	const char *what = "age";
	int64_t    *out = &s->log_retain_ns;
	int64_t		v = 0;
	bool		ok = false;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
	{
		size_t		m = strlen(sizes[i].unit);
		char	   *num;
		double		d;

		if (n < m || strcmp(arg + n - m, sizes[i].unit) != 0)
			continue;
		what = "size";
		out = &s->log_retain_bytes;
		num = xstrndup(arg, n - m);
		/* at least a byte: less would read as no limit */
		ok = parse_double(num, "--log-retain", 0, 9.2e18, &d, NULL) &&
			d * sizes[i].factor >= 1.0 && d * sizes[i].factor < 9.2e18;
		v = ok ? (int64_t) (d * sizes[i].factor) : 0;
		free(num);
		break;
	}
	/* at least a second */
	if (out == &s->log_retain_ns)
		ok = parse_duration_ns(arg, "--log-retain", NULL, NS_PER_S, INT64_MAX, &v, NULL);
	if (!ok)
	{
		*cause = xasprintf("invalid value \"%s\" for option --log-retain: must be an age with a "
						   "unit (s, min, h, d) or a size with a unit (kB, MB, GB, TB)", arg);
		return false;
	}
	if (*out != 0)
	{
		*cause = xasprintf("option --log-retain gives the %s twice", what);
		return false;
	}
	*out = v;
	return true;
}

/* The NAME of a --fail-if item: total, TYPE or EVENT, or TYPE:EVENT (or TYPE/EVENT). */
static bool
parse_limit_name(const char *name, size_t len, waits_limit *l, const char **why)
{
	const char *colon = memchr(name, ':', len);
	size_t		tlen,
				elen;

	if (colon == NULL)
		colon = memchr(name, '/', len);
	tlen = colon != NULL ? (size_t) (colon - name) : len;
	elen = colon != NULL ? len - tlen - 1 : 0;
	*why = "the name is total, a wait event type, a wait event, or TYPE:EVENT";
	if (tlen == 0 || tlen >= sizeof(l->type) || elen >= sizeof(l->event) ||
		(colon != NULL && elen == 0) || memchr(name, ',', len) != NULL ||
		(colon != NULL && memchr(colon + 1, ':', elen) != NULL))
		return false;
	memcpy(l->type, name, tlen);
	l->type[tlen] = '\0';
	if (colon != NULL)
		memcpy(l->event, colon + 1, elen);
	l->event[elen] = '\0';
	l->total = colon == NULL && strcmp(l->type, "total") == 0;
	l->either = colon == NULL && !l->total;
	return true;
}

/* What a --fail-if limit is (a disagreement's may also be a time: disagree:+50ms). */
#define LIMIT_HELP "the limit is a signed number of active sessions (+0.5) or a signed " \
	"percentage (-10%), or a ratio after < or > (<0.95x)"

/* A disagreement limit's name: "disagree" or "disagree:FIGURE"; false if it is not one. */
static bool
parse_disagree_name(const char *name, waits_limit *l)
{
	size_t		len = strlen(MEASURED_GATE_NAME);

	if (strncmp(name, MEASURED_GATE_NAME, len) != 0 || (name[len] != '\0' && name[len] != ':'))
		return false;
	l->disagree = true;
	snprintf(l->event, sizeof(l->event), "%s", name[len] == ':' ? name + len + 1 : "");
	return true;
}

/* The gate's check of a limit's name (and, for a disagreement, of its unit). */
static bool
limit_name_ok(gate_limit *g, const char **why)
{
	waits_limit l;

	memset(&l, 0, sizeof(l));
	if (parse_disagree_name(g->name, &l))
	{
		*why = "the figures are active_time, data_file_reads, data_file_writes, wal_writes and "
			"wal_syncs";
		return l.event[0] == '\0' || measured_figure_known(l.event);
	}
	/* a time is a disagreement's limit only: for the others, the limits they take */
	*why = LIMIT_HELP;
	if (g->unit == GATE_UNIT_TIME)
		return false;
	return parse_limit_name(g->name, strlen(g->name), &l, why);
}

/* A disagreement limit may be its name alone: "disagree", or "disagree:" and a word. */
static bool
limit_bare_ok(const char *item)
{
	waits_limit l;

	return parse_disagree_name(item, &l) &&
		strspn(l.event, "abcdefghijklmnopqrstuvwxyz_") == strlen(l.event);
}

bool
options_parse_fail_if(const char *arg, waits_settings *s, char **cause)
{
	static const gate_spec spec = {
		"--fail-if", GATE_UNIT_NONE | GATE_UNIT_PCT | GATE_UNIT_TIME, "Lock:+0.5,total:+50%",
		LIMIT_HELP, limit_name_ok, limit_bare_ok
	};
	gate_limit	g[GATE_MAX_LIMITS];
	const char *why;
	int			n;

	s->nfail_if = 0;
	if (!gate_parse(arg, &spec, g, &n, cause))
		return false;
	for (int i = 0; i < n; i++)
	{
		waits_limit *l = &s->fail_if[i];

		memset(l, 0, sizeof(*l));
		l->lim = g[i];
		if (!parse_disagree_name(g[i].name, l))
			parse_limit_name(g[i].name, strlen(g[i].name), l, &why);
	}
	s->nfail_if = n;
	return true;
}

/* --listen: "9187", "127.0.0.1:9187", "[::1]:9187", "0.0.0.0:9187". */
bool
options_parse_listen(const char *arg, waits_settings *s, char **cause)
{
	const char *colon = strrchr(arg, ':');
	const char *port = colon != NULL ? colon + 1 : arg;
	const char *host = arg;
	size_t		hlen = colon != NULL ? (size_t) (colon - arg) : 0;
	char	   *end;
	long		v;

	if (hlen >= 2 && arg[0] == '[' && arg[hlen - 1] == ']')
	{
		host++;
		hlen -= 2;
	}
	else if (hlen > 0 && memchr(arg, ':', hlen) != NULL)
		hlen = 0;				/* an IPv6 address without brackets: refused below */
	errno = 0;
	v = strtol(port, &end, 10);
	if (*port < '0' || *port > '9' || *end != '\0' || errno != 0 || v > 65535 ||
		(colon != NULL && hlen == 0))
	{
		*cause = xasprintf("invalid value \"%s\" for option --listen: must be [HOST:]PORT, "
						   "an IPv6 address in brackets ([::1]:9187)", arg);
		return false;
	}
	free(s->listen_host);
	s->listen_host = colon != NULL ? xstrndup(host, hlen) : xstrdup("127.0.0.1");
	s->listen_port = (int) v;
	return true;
}

/* Append a copy of a repeated option's value. */
void
options_strlist_add(sampler_strlist *l, const char *v)
{
	l->v = xrealloc(l->v, (size_t) (l->n + 1) * sizeof(char *));
	l->v[l->n++] = xstrdup(v);
}

/* Free a list of option values. */
void
options_strlist_free(sampler_strlist *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* What the history outputs, the live view, the report's --by keys and the filters use. */
unsigned
options_query_omit(const waits_settings *s)
{
	/*
	 * The head blockers need backend_start (a head is its pid and start)
	 * and leader_pid (a parallel query is one session) in every run: two
	 * fixed-width columns.  Their user, database and application are not
	 * worth reading with every row of every sample: a run that does not
	 * read them anyway looks up the sessions of lock chains apart, once
	 * per new session and at most once a second (sampler_config.chain_idents,
	 * the sampler's idents.h).
	 */
	unsigned	omit = SAMPLER_OMIT_DATID | SAMPLER_OMIT_USESYSID |
		SAMPLER_OMIT_APPNAME | SAMPLER_OMIT_CLIENT_ADDR;

	if (s->top || s->log_path != NULL || s->store != NULL)
		return 0;
	/* folded stacks: datname;backend_type;wait_event_type;wait_event;query_id */
	if (s->folded_path != NULL)
		omit &= ~SAMPLER_OMIT_DATID;
	/* the matches of --user and --application-name are checked at the end */
	if (s->users.n > 0)
		omit &= ~SAMPLER_OMIT_USESYSID;
	if (s->apps.n > 0)
		omit &= ~SAMPLER_OMIT_APPNAME;
	for (int i = 0; i < s->nby; i++)
		switch (s->by[i])
		{
			case WPROF_DIM_PID:
				/* a session is its pid and start, shown with its user and database */
				omit &= ~(SAMPLER_OMIT_DATID | SAMPLER_OMIT_USESYSID);
				break;
			case WPROF_DIM_DB:
				omit &= ~SAMPLER_OMIT_DATID;
				break;
			case WPROF_DIM_USER:
				omit &= ~SAMPLER_OMIT_USESYSID;
				break;
			case WPROF_DIM_APP:
				omit &= ~SAMPLER_OMIT_APPNAME;
				break;
			default:
				break;
		}
	return omit;
}

/* The sampler's part of the settings. */
void
options_sampler_config(const waits_settings *s, sampler_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->conn = &s->conn;
	cfg->interval_ns = s->interval_ns;
	cfg->interval_given = s->interval_given;
	cfg->source = s->source;
	cfg->pids = s->pids;
	cfg->npids = s->npids;
	cfg->dbs = s->dbs;
	cfg->users = s->users;
	cfg->apps = s->apps;
	cfg->backend_types = s->backend_types;
	cfg->include_idle = s->include_idle;
	cfg->query_text = s->query_text;
	cfg->omit = options_query_omit(s);
	cfg->chain_idents = true;
}
