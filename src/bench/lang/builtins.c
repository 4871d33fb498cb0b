/*
 * builtins.c — pgbench's built-in scripts (-b, -N, -S, --show-script),
 * with the text pgbench 15 has, byte for byte.
 */
#include "config.h"

#include "script.h"

#include <stdio.h>
#include <string.h>

#include "pgtempo/msg.h"

/* The start the TPC-B-like scripts share: the variables, the account update and read. */
#define TPCB_START \
	"\\set aid random(1, 100000 * :scale)\n" \
	"\\set bid random(1, 1 * :scale)\n" \
	"\\set tid random(1, 10 * :scale)\n" \
	"\\set delta random(-5000, 5000)\n" \
	"BEGIN;\n" \
	"UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;\n" \
	"SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"

const builtin_script script_builtins[] = {
	{
		"tpcb-like",
		"<builtin: TPC-B (sort of)>",
		TPCB_START
		"UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;\n"
		"UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;\n"
		"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);\n"
		"END;\n"
	},
	{
		"simple-update",
		"<builtin: simple update>",
		TPCB_START
		"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);\n"
		"END;\n"
	},
	{
		"select-only",
		"<builtin: select only>",
		"\\set aid random(1, 100000 * :scale)\n"
		"SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"
	},
};

const int	script_nbuiltins = (int) (sizeof(script_builtins) / sizeof(script_builtins[0]));

/* "-b list", also printed after a failed lookup: to stderr, as pgbench does. */
void
script_list_builtins(void)
{
	fflush(stdout);
	fprintf(stderr, "Available builtin scripts:\n");
	for (int i = 0; i < script_nbuiltins; i++)
		fprintf(stderr, "  %13s: %s\n", script_builtins[i].name, script_builtins[i].desc);
	fprintf(stderr, "\n");
	fflush(stderr);
}

/* The builtin whose name starts with name, if exactly one does. */
const builtin_script *
script_find_builtin(const char *name)
{
	size_t		len = strlen(name);
	const builtin_script *found = NULL;
	int			nfound = 0;

	for (int i = 0; i < script_nbuiltins; i++)
	{
		if (strncmp(script_builtins[i].name, name, len) == 0)
		{
			found = &script_builtins[i];
			nfound++;
		}
	}
	if (nfound == 1)
		return found;

	if (nfound == 0)
		msg_error("no builtin script found for name \"%s\"", name);
	else
		msg_error("ambiguous builtin name: %d builtin scripts found for prefix \"%s\"",
				  nfound, name);
	script_list_builtins();
	return NULL;
}
