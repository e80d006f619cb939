/* SPDX-License-Identifier: MIT */
/* clock.h - the one monotonic clock of the user-space code (a vDSO call, no
 * system call; async-signal-safe). */
#ifndef HIPSVM_CLOCK_H
#define HIPSVM_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t hipsvm_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * UINT64_C(1000000000) + (uint64_t)t.tv_nsec;
}

#endif
