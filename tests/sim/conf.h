/* SPDX-License-Identifier: MIT */
/*
 * conf.h - shared helpers of the conformance suite (tests/sim/conf_*.c).
 * Each case checks one answer of ROCm 5.2.3's runtime, named in the case's
 * name or comment. The suite runs with HIPSVM_SIM_GPUS=4 and
 * HIPSVM_SIM_QUIET=1 (tests/sim/meson.build), on the simulator alone and with
 * the shim linked in first.
 */
#ifndef HIPSVM_TESTS_SIM_CONF_H
#define HIPSVM_TESTS_SIM_CONF_H

#include <criterion/criterion.h>
#include <hip/hip_runtime_api.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hipsvm_sim.h"

/* A call's answer, with both names on failure. */
#define EXPECT_HIP(call, want)                                                           \
	do {                                                                             \
		hipError_t got_ = (call);                                                \
		hipError_t want_ = (want);                                               \
		cr_expect_eq(got_, want_, "%s: %s (%d), want %s (%d)", #call,            \
			     hipGetErrorName(got_), got_, hipGetErrorName(want_), want_); \
	} while (0)

#define ASSERT_OK(call)                                                                  \
	do {                                                                             \
		hipError_t got_ = (call);                                                \
		cr_assert_eq(got_, hipSuccess, "%s: %s", #call, hipGetErrorName(got_));  \
	} while (0)

/* A stream handle that was destroyed (ROCm: no longer a stream). */
static inline hipStream_t conf_dead_stream(void)
{
	hipStream_t s;

	ASSERT_OK(hipStreamCreate(&s));
	ASSERT_OK(hipStreamDestroy(s));
	return s;
}

/* A stream callback that holds its stream for 300 ms and then sets *done
 * (an atomic_int), so that work queued behind it has not run yet when an
 * asynchronous call returns, unless that call waited for it. */
static inline void conf_hold_stream(hipStream_t s, hipError_t e, void *done)
{
	struct timespec ts = { 0, 300 * 1000 * 1000 };

	(void)s;
	(void)e;
	nanosleep(&ts, NULL);
	atomic_store((atomic_int *)done, 1);
}

static inline int conf_ngpu(void)
{
	int n = 0;

	ASSERT_OK(hipGetDeviceCount(&n));
	return n;
}

#endif
