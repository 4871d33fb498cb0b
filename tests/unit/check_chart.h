/*
 * check_chart.h — what the two halves of the chart unit test share.
 */
#ifndef PGTEMPO_TESTS_CHECK_CHART_H
#define PGTEMPO_TESTS_CHECK_CHART_H

#include "pgtempo/chart.h"
#include "unit.h"

#define N(a) ((int) (sizeof(a) / sizeof((a)[0])))

/* The test case of the chart writer's pieces: checker, ticks, numbers, escaping. */
TCase	   *check_chart_pieces_tcase(void);

#endif
