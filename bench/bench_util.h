/* SPDX-License-Identifier: MIT */
/* bench_util.h - the clock and the median that every benchmark prints. */
#ifndef HIPSVM_BENCH_UTIL_H
#define HIPSVM_BENCH_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "shim/clock.h"

static inline uint64_t now_ns(void)
{
	return hipsvm_now_ns();
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Sorts v in place; medians, not means: these machines are shared and noisy. */
static inline double bench_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), bench_cmp_double);
	return v[n / 2];
}

#endif
