/*
 * svg.h — the pieces of an SVG document that any drawing needs: escaped,
 * truncated text, coordinates and numbers written by hand (the locale
 * never changes the output), and text width estimates.
 *
 * Text is XML-escaped; invalid UTF-8 becomes U+FFFD and control
 * characters are dropped (tabs and newlines become spaces), so any event
 * name or command line gives a well-formed document.  Coordinates have
 * one decimal at most and are clamped to +-SVG_PX_MAX.
 */
#ifndef PGTEMPO_SVG_H
#define PGTEMPO_SVG_H

#include <stdbool.h>
#include <stddef.h>

#include "pgtempo/strbuf.h"

#define SVG_PX_MAX 1e6			/* |coordinate| written */

/* 10^0 .. 10^9, for formatting with a given number of decimals. */
extern const double svg_pow10[10];

/*
 * Append s escaped for XML text or a quoted attribute; with max_chars > 0
 * and a longer s, its first max_chars - 1 characters and an ellipsis.
 */
void		svg_text(strbuf *out, const char *s, size_t max_chars);
/* Estimated width of s in px at font_size. */
double		svg_text_width(const char *s, double font_size);
/* Characters of text at font_size that fit in width px (at least 4). */
size_t		svg_fit_chars(double width, double font_size);
/* <text x y [text-anchor] [extra]>s</text>, s escaped and cut to max_chars (0: whole). */
void		svg_text_el(strbuf *out, double x, double y, const char *anchor, const char *extra,
						const char *s, size_t max_chars);

/* Append a coordinate: one decimal at most, clamped to +-SVG_PX_MAX. */
void		svg_num(strbuf *out, double v);
/* Append ` name="v"` with v a coordinate. */
void		svg_attr_num(strbuf *out, const char *name, double v);
/* v rounded as svg_num writes it, so equal points compare equal. */
double		svg_px_round(double v);

/*
 * v with exactly `decimals` decimals (0..9), '.' as the decimal point,
 * trailing zeros dropped when trim.  False when v is too large for
 * integer arithmetic at that precision (the caller falls back).
 */
bool		svg_fixed(char *buf, size_t size, double v, int decimals, bool trim);

/*
 * Format v compactly with three significant digits at most and a k/M/G/T
 * suffix: 0, 0.25, 12.3, 950, 1.5k, 2M; 1.2e-5 and 3e20 outside that.
 * Always a '.' for the decimal point.  buf should hold 16 bytes.
 */
void		svg_format_number(double v, char *buf, size_t size);

#endif
