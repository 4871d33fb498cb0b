/*
 * retain.h — --log-retain: delete the files a rotating --log pattern
 * made once they are older than a duration, or once all of them take
 * more than a size (oldest first).
 *
 * Only a file whose name the pattern could have produced is a candidate:
 * the pattern's directory (which may not hold escapes) is listed, and a
 * name matches when its text equals the pattern's outside the escapes and
 * each escape matches what strftime writes for it (%Y four digits, %m
 * two, %b a month's name ...).  The file being written is never deleted.
 */
#ifndef PGTEMPO_WAITS_RETAIN_H
#define PGTEMPO_WAITS_RETAIN_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* Can this pattern's files be matched (escapes we know, none in the directory)? */
bool		retain_pattern_ok(const char *pattern, char **cause);
/* Could pattern have expanded to name (both without the directory)? */
bool		retain_name_matches(const char *pattern, const char *name);

/* A file of the pattern: its path, when it was last written, its size. */
typedef struct retain_file
{
	char	   *path;
	time_t		mtime;
	int64_t		size;
} retain_file;

/*
 * Which of the n files to delete at time now: keep[i] false for a file
 * last written more than max_age_s ago (0: no limit), or one that goes
 * past max_bytes when counted after the file being written
 * (current_bytes) and every newer file (0: no limit).
 */
void		retain_choose(const retain_file *files, int n, time_t now, int64_t max_age_s,
						  int64_t max_bytes, int64_t current_bytes, bool *keep);

/*
 * Delete the files of pattern beyond the limits, never current (the file
 * being written).  Returns how many were deleted; a file that could not
 * be, or a directory that cannot be listed, is said once through *cause
 * (the caller warns), and the rest go on.
 */
int			retain_apply(const char *pattern, const char *current, time_t now,
						 int64_t max_age_s, int64_t max_bytes, char **cause);

#endif
