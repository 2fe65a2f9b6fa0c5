/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* Medians for the benchmark programs. */
#ifndef RWV_BENCH_STATS_H
#define RWV_BENCH_STATS_H

#include <stdlib.h>

static inline int bench_cmp_double (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

/* Sorts v in place. */
static inline double bench_median (double *v, int n)
{
    qsort (v, (size_t) n, sizeof (*v), bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
