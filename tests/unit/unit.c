#include "config.h"

#include "unit.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int
unit_run(Suite *s)
{
	SRunner    *sr = srunner_create(s);
	int			failed;

	/* TAP goes to stdout; Check's own report is silenced so the stream stays valid. */
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* Fork, point the child's stderr at a pipe, run fn there, and collect what it said. */
int
unit_run_in_child(void (*fn) (void), char *err, size_t errsize)
{
	int			fds[2];
	pid_t		pid;
	int			status;
	size_t		got = 0;
	ssize_t		n;

	ck_assert_int_eq(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
	{
		dup2(fds[1], STDERR_FILENO);
		close(fds[0]);
		close(fds[1]);
		fn();
		_exit(0);
	}
	close(fds[1]);
	while (got < errsize - 1 && (n = read(fds[0], err + got, errsize - 1 - got)) > 0)
		got += n;
	err[got] = '\0';
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

static int	saved_stderr = -1;
static FILE *captured_stderr;

void
unit_stderr_begin(void)
{
	fflush(stderr);
	captured_stderr = tmpfile();
	ck_assert_ptr_nonnull(captured_stderr);
	saved_stderr = dup(2);
	ck_assert_int_ge(saved_stderr, 0);
	dup2(fileno(captured_stderr), 2);
}

char *
unit_stderr_peek(void)
{
	int			fd = fileno(captured_stderr);
	off_t		len;
	char	   *text;

	/* raw fd calls: stdio would cache an offset that writes to fd 2 move */
	fflush(stderr);
	len = lseek(fd, 0, SEEK_END);
	ck_assert_int_ge(len, 0);
	text = malloc((size_t) len + 1);
	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(pread(fd, text, (size_t) len, 0), len);
	text[len] = '\0';
	return text;
}

char *
unit_stderr_end(void)
{
	char	   *text = unit_stderr_peek();

	dup2(saved_stderr, 2);
	close(saved_stderr);
	saved_stderr = -1;
	fclose(captured_stderr);
	captured_stderr = NULL;
	return text;
}

int
unit_count_lines(const char *text)
{
	int			n = 0;

	for (const char *p = text; *p; p++)
		n += *p == '\n';
	return n;
}

char *
unit_slurp(const char *path)
{
	FILE	   *f = fopen(path, "r");
	size_t		len = 0,
				cap = 4096,
				n;
	char	   *text = malloc(cap);

	ck_assert_ptr_nonnull(text);
	while (f != NULL && (n = fread(text + len, 1, cap - len - 1, f)) > 0)
	{
		len += n;
		if (cap - len - 1 == 0)
		{
			cap *= 2;
			text = realloc(text, cap);
			ck_assert_ptr_nonnull(text);
		}
	}
	if (f != NULL)
		fclose(f);
	text[len] = '\0';
	return text;
}

int
unit_count_entries(const char *dir)
{
	DIR		   *d = opendir(dir);
	struct dirent *e;
	int			n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}
