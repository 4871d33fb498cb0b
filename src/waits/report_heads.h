/*
 * report_heads.h — the head blockers of a profile (heads.h) in the text
 * and JSON reports: who was at the head of the chains of lock waits, what
 * it was doing, and the blocked backend time it caused (samples × period,
 * with the profile's 95 % error bound), then the chains as folded stacks.
 */
#ifndef PGTEMPO_WAITS_REPORT_HEADS_H
#define PGTEMPO_WAITS_REPORT_HEADS_H

#include <stdio.h>

#include "pgtempo/json.h"

#include "report.h"

/* How many heads and chains the text report lists (JSON lists all). */
#define REPORT_HEADS_MAX 10

/* The "head blockers" section of the text report (nothing when no session was blocked). */
void		report_heads_text(FILE *out, const report_info *ri);
/* The "blockers" member of the JSON report. */
void		report_heads_json(json_writer *w, const report_info *ri);

/*
 * One line about what head c was doing: state, wait event, transaction
 * age, query id ("idle in transaction, Client/ClientRead, xact 12.3 s,
 * query_id 42"); the text report's and the live view's.
 */
void		report_head_doing(strbuf *sb, const heads_cell *c);
/*
 * A session's identity as JSON members: pid, backend_start (null when
 * unknown); a head's, and a profile group's by pid.
 */
void		report_head_json_id(json_writer *w, int32_t pid, int64_t backend_start_us);

#endif
