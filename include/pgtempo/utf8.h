/*
 * utf8.h — making text from the server valid UTF-8.
 *
 * A server's text is not always UTF-8: an SQL_ASCII database hands out any
 * bytes its clients stored.  JSON output and a UTF-8 store need valid text,
 * so each byte that does not start a well-formed UTF-8 sequence (RFC 3629:
 * no overlongs, no surrogates, nothing above U+10FFFF) is written as the
 * four ASCII characters \xNN instead — visible, lossless for the reader,
 * and the same in every output of every tool.
 *
 * Text for a terminal or a text report needs more: a newline or an escape
 * sequence in an application_name must not start a line or drive the
 * terminal.  utf8_append_printable also writes control characters (C0,
 * DEL and the C1 range U+0080..U+009F) as \n, \r, \t or \xNN; everything
 * else that is valid UTF-8 is kept.  utf8_width says how many terminal
 * columns such text takes, so tables can line up names that are not ASCII.
 */
#ifndef PGTEMPO_UTF8_H
#define PGTEMPO_UTF8_H

#include <stdbool.h>
#include <stddef.h>

#include "pgtempo/strbuf.h"

/* Length (1..4) of the well-formed sequence at s[0..n), or 0 if there is none. */
size_t		utf8_seq_len(const char *s, size_t n);

/* True if s[0..n) is entirely well-formed UTF-8. */
bool		utf8_valid(const char *s, size_t n);

/* Append s[0..n) to sb with each byte of an invalid sequence written as \xNN. */
void		utf8_append_escaped(strbuf *sb, const char *s, size_t n);

/* Append s[0..n) with control characters and invalid bytes escaped, as above. */
void		utf8_append_printable(strbuf *sb, const char *s, size_t n);

/*
 * Append s[0..n) as one frame of a folded stack (flame graphs): printable
 * as above, but ';' written as ':' and line breaks and tabs as a space.
 */
void		utf8_append_frame(strbuf *sb, const char *s, size_t n);

/*
 * s (NULL as "") made printable in sb, which is reset first; returns sb's
 * text, valid until sb changes.  For printf arguments.
 */
const char *utf8_printable(strbuf *sb, const char *s);

/*
 * Terminal columns of s[0..n): one per character, two for East Asian wide
 * and fullwidth characters, none for combining marks; an invalid byte
 * counts one.
 */
int			utf8_width(const char *s, size_t n);

#endif
