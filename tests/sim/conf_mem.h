/* SPDX-License-Identifier: MIT */
/*
 * conf_mem.h - shared helpers of the memory conformance suite
 * (tests/sim/conf_mem_*.c). Each case checks one answer of ROCm 5.2.3's
 * runtime and names the function whose answer it is. Every file is built
 * twice: on the simulator alone and with libhipsvm linked first, so the same
 * cases prove that the shim changes no answer. Criterion runs each case in
 * a fresh process, so a case may set HIPSVM_SIM_* before its first call.
 * It adds to conf.h, which every conformance file shares.
 */
#ifndef HIPSVM_CONF_MEM_H
#define HIPSVM_CONF_MEM_H

#include <hip/hip_runtime_api.h>
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "hipsvm_sim.h"

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)
#define GIB ((size_t)1 << 30)

/* A device allocation that must succeed. */
static inline void *dmalloc(size_t n)
{
	void *p = NULL;

	cr_assert_eq(hipMalloc(&p, n), hipSuccess, "hipMalloc(%zu)", n);
	cr_assert_not_null(p);
	return p;
}

/* Fills a host buffer with a pattern that depends on the seed. */
static inline void pattern(void *buf, size_t n, unsigned seed)
{
	unsigned char *b = buf;
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (unsigned char)(i * 31u + seed * 7u + (i >> 8));
}

/* A channel descriptor built by hand (hipCreateChannelDesc is another
 * area's function). */
static inline hipChannelFormatDesc chan(int x, int y, int z, int w, enum hipChannelFormatKind f)
{
	hipChannelFormatDesc d = { x, y, z, w, f };

	return d;
}

/* xorshift64*: the randomised cases print their seed. */
static inline uint64_t conf_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

#endif
