/*
 * table.c — plain-text tables in fixed-width columns.
 */
#include "config.h"

#include "pgtempo/table.h"

/* One cell after its column's separator, padded to the column's width. */
static void
put_cell(FILE *out, const table_col *c, const char *text)
{
	fputs(c->sep, out);
	fprintf(out, c->left ? "%-*s" : "%*s", c->width, text);
}

void
table_header(FILE *out, const table_col *cols, int ncols)
{
	for (int i = 0; i < ncols; i++)
		put_cell(out, &cols[i], cols[i].header);
	fputc('\n', out);
}

void
table_rule(FILE *out, const table_col *cols, int ncols)
{
	for (int i = 0; i < ncols; i++)
	{
		fputs(cols[i].sep, out);
		for (int k = 0; k < cols[i].width; k++)
			fputc('-', out);
	}
	fputc('\n', out);
}

void
table_row(FILE *out, const table_col *cols, int ncols, const char *const *cells)
{
	for (int i = 0; i < ncols; i++)
		put_cell(out, &cols[i], cells[i]);
	fputc('\n', out);
}
