/*
 * table.h — plain-text tables: a header line, an optional rule of dashes
 * and rows, in columns of fixed width, each column written after its
 * separator.
 *
 * The caller formats each cell (so a column can be %.4f in one table and
 * a name in another); a cell is padded to its column's width, numbers on
 * the left and names (left-aligned columns) on the right, and a cell
 * wider than its column is written whole, as printf's %*s would.
 * Widths are terminal columns, not bytes: a cell is written as
 * utf8_append_printable makes it (a name from the server can hold a
 * newline, an escape sequence or bytes that are not UTF-8), and measured
 * with utf8_width, so names that are not ASCII line up too.  A column
 * sized by its contents starts at the header's width and grows with
 * table_fit over its cells before anything is written.
 *
 *	static const table_col cols[] = {
 *		{"ns", 8, "", false}, {"% of total", 10, "   ", false},
 *	};
 *	table_header(out, cols, 2);
 *	table_row(out, cols, 2, (const char *[]) {"15", "42.8571"});
 */
#ifndef PGTEMPO_TABLE_H
#define PGTEMPO_TABLE_H

#include <stdbool.h>
#include <stdio.h>

typedef struct table_col
{
	const char *header;
	int			width;			/* cells are padded to this many columns */
	const char *sep;			/* written before the column ("" for the first) */
	bool		left;			/* left-aligned (names); else right-aligned (numbers) */
} table_col;

/* The number of columns of a table_col array. */
#define TABLE_NCOLS(cols) ((int) (sizeof(cols) / sizeof((cols)[0])))

/* The headers, aligned as the cells. */
void		table_header(FILE *out, const table_col *cols, int ncols);
/* Dashes as wide as each column, under the headers. */
void		table_rule(FILE *out, const table_col *cols, int ncols);
/* One row: cells[i] is the text of column i. */
void		table_row(FILE *out, const table_col *cols, int ncols, const char *const *cells);
/* Widen col to hold text as table_row writes it. */
void		table_fit(table_col *col, const char *text);
/* Where column col's cells start on a line: for lines indented under a row. */
int			table_offset(const table_col *cols, int col);

#endif
