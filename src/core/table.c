/*
 * table.c — plain-text tables in fixed-width columns.
 */
#include "config.h"

#include "pgtempo/table.h"

#include <string.h>

#include "pgtempo/strbuf.h"
#include "pgtempo/utf8.h"

/* Write n spaces. */
static void
pad(FILE *out, int n)
{
	for (int i = 0; i < n; i++)
		fputc(' ', out);
}

/* One cell after its column's separator, made printable, padded to the column's width. */
static void
put_cell(FILE *out, const table_col *c, const char *text)
{
	strbuf		sb;
	int			w;

	strbuf_init(&sb);
	utf8_printable(&sb, text);
	w = utf8_width(sb.data, sb.len);
	fputs(c->sep, out);
	if (!c->left)
		pad(out, c->width - w);
	fputs(sb.data, out);
	if (c->left)
		pad(out, c->width - w);
	strbuf_free(&sb);
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

void
table_fit(table_col *col, const char *text)
{
	strbuf		sb;
	int			w;

	strbuf_init(&sb);
	utf8_printable(&sb, text);
	w = utf8_width(sb.data, sb.len);
	if (w > col->width)
		col->width = w;
	strbuf_free(&sb);
}

int
table_offset(const table_col *cols, int col)
{
	int			x = 0;

	for (int i = 0; i < col; i++)
		x += (int) strlen(cols[i].sep) + cols[i].width;
	return x + (int) strlen(cols[col].sep);
}
