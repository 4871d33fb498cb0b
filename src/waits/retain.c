/*
 * retain.c — deleting the old files of a rotating --log pattern.
 */
#include "config.h"

#include "retain.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgtempo/xalloc.h"

/* How strftime writes an escape: digits (how many; 0 any), or letters. */
typedef struct retain_spec
{
	char		c;
	int			digits;			/* exact count; -1: letters; 0: one or more digits */
} retain_spec;

static const retain_spec specs[] = {
	{'Y', 4}, {'m', 2}, {'d', 2}, {'H', 2}, {'M', 2}, {'S', 2}, {'j', 3}, {'y', 2},
	{'e', 2}, {'I', 2}, {'u', 1}, {'w', 1}, {'U', 2}, {'W', 2}, {'V', 2}, {'G', 4},
	{'s', 0}, {'a', -1}, {'A', -1}, {'b', -1}, {'B', -1}, {'h', -1}, {'p', -1},
};

/* The spec of escape c, or NULL when strftime's output for it is not one we match. */
static const retain_spec *
find_spec(char c)
{
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		if (specs[i].c == c)
			return &specs[i];
	return NULL;
}

/* The pattern's last '/', or NULL. */
static const char *
base_of(const char *pattern)
{
	const char *slash = strrchr(pattern, '/');

	return slash ? slash + 1 : pattern;
}

/* Escapes only in the file name, and only ones whose output we can match. */
bool
retain_pattern_ok(const char *pattern, char **cause)
{
	const char *base = base_of(pattern);

	for (const char *p = pattern; *p; p++)
	{
		if (*p != '%')
			continue;
		if (p < base)
		{
			*cause = xasprintf("--log-retain needs the strftime escapes of --log \"%s\" in "
							   "the file name, not in its directory", pattern);
			return false;
		}
		p++;
		if (*p != '%' && find_spec(*p) == NULL)
		{
			*cause = xasprintf("--log-retain cannot tell the files of --log \"%s\": escape "
							   "%%%c is not one of %%Y %%m %%d %%H %%M %%S %%j %%y %%e %%I %%u "
							   "%%w %%U %%W %%V %%G %%s %%a %%A %%b %%B %%h %%p", pattern,
							   *p ? *p : ' ');
			return false;
		}
	}
	if (strchr(base, '%') == NULL)
	{
		*cause = xasprintf("--log-retain needs a --log name with strftime escapes: \"%s\" is "
						   "never rotated", pattern);
		return false;
	}
	return true;
}

/* Match the text strftime wrote for spec at n; how many bytes, or -1. */
static int
match_spec(const retain_spec *sp, const char *n)
{
	int			k = 0;

	if (sp->digits < 0)
	{
		while (isalpha((unsigned char) n[k]))
			k++;
		return k > 0 ? k : -1;
	}
	/* %e pads with a space */
	if (sp->c == 'e' && n[0] == ' ' && isdigit((unsigned char) n[1]))
		return 2;
	while (isdigit((unsigned char) n[k]) && (sp->digits == 0 || k < sp->digits))
		k++;
	return (sp->digits == 0 ? k > 0 : k == sp->digits) ? k : -1;
}

/* Could pattern (its file name part) have been expanded to name? */
bool
retain_name_matches(const char *pattern, const char *name)
{
	const char *p = base_of(pattern);
	const char *n = name;

	while (*p)
	{
		if (p[0] == '%' && p[1] == '%')
		{
			if (*n++ != '%')
				return false;
			p += 2;
		}
		else if (p[0] == '%')
		{
			const retain_spec *sp = find_spec(p[1]);
			int			k = sp ? match_spec(sp, n) : -1;

			if (k < 0)
				return false;
			n += k;
			p += 2;
		}
		else if (*p++ != *n++)
			return false;
	}
	return *n == '\0';
}

/* Newest first. */
static int
cmp_newest(const void *a, const void *b)
{
	const retain_file *x = *(const retain_file *const *) a;
	const retain_file *y = *(const retain_file *const *) b;

	if (x->mtime != y->mtime)
		return x->mtime > y->mtime ? -1 : 1;
	return strcmp(y->path, x->path);
}

/* Mark the files past the age or the size limit. */
void
retain_choose(const retain_file *files, int n, time_t now, int64_t max_age_s,
			  int64_t max_bytes, int64_t current_bytes, bool *keep)
{
	const retain_file **order = xcalloc((size_t) n + 1, sizeof(*order));
	int64_t		total = current_bytes;

	for (int i = 0; i < n; i++)
	{
		order[i] = &files[i];
		keep[i] = max_age_s <= 0 || (int64_t) (now - files[i].mtime) <= max_age_s;
	}
	qsort(order, (size_t) n, sizeof(*order), cmp_newest);
	for (int i = 0; i < n; i++)
	{
		total += order[i]->size;
		if (max_bytes > 0 && total > max_bytes)
			keep[order[i] - files] = false;
	}
	free(order);
}

/*
 * The files of the pattern in its directory, but current; a directory that
 * cannot be listed is said through *cause (NULL so far), with what was read.
 */
static int
list_files(const char *pattern, const char *current, retain_file **out, char **cause)
{
	const char *base = base_of(pattern);
	char	   *dir = base > pattern ? xstrndup(pattern, (size_t) (base - pattern)) : xstrdup("./");
	DIR		   *d = opendir(dir);
	struct dirent *e;
	int			n = 0;

	*out = NULL;
	if (d == NULL)
		*cause = xasprintf("could not open directory \"%s\" to delete old log files: %s", dir,
						   strerror(errno));
	while (d != NULL && (errno = 0, e = readdir(d)) != NULL)
	{
		struct stat st;
		char	   *path;

		if (!retain_name_matches(pattern, e->d_name))
			continue;
		path = xasprintf("%s%s", base > pattern ? dir : "", e->d_name);
		/* only regular files, never the one being written (nor a link to it) */
		if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || strcmp(path, current) == 0)
		{
			free(path);
			continue;
		}
		*out = xrealloc(*out, (size_t) (n + 1) * sizeof(retain_file));
		(*out)[n++] = (retain_file) {path, st.st_mtime, (int64_t) st.st_size};
	}
	if (d != NULL && errno != 0)
		*cause = xasprintf("could not read directory \"%s\" to delete old log files: %s", dir,
						   strerror(errno));
	if (d != NULL)
		closedir(d);
	free(dir);
	return n;
}

/* Delete what is past the limits; the first failure goes to *cause. */
int
retain_apply(const char *pattern, const char *current, time_t now, int64_t max_age_s,
			 int64_t max_bytes, char **cause)
{
	retain_file *files;
	int			n = list_files(pattern, current, &files, cause);
	bool	   *keep = xcalloc((size_t) n + 1, sizeof(bool));
	struct stat st;
	int			deleted = 0;

	retain_choose(files, n, now, max_age_s, max_bytes,
				  stat(current, &st) == 0 ? (int64_t) st.st_size : 0, keep);
	for (int i = 0; i < n; i++)
	{
		if (!keep[i])
		{
			if (unlink(files[i].path) == 0)
				deleted++;
			else if (*cause == NULL)
				*cause = xasprintf("could not delete old log file \"%s\": %s", files[i].path,
								   strerror(errno));
		}
		free(files[i].path);
	}
	free(files);
	free(keep);
	return deleted;
}
