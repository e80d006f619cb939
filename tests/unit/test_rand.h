/* SPDX-License-Identifier: MIT */
/*
 * test_rand.h - the seeded generator of the randomised unit tests: the
 * default seed is fixed and printed by each test, HIPSVM_TEST_SEED replays
 * or varies it, and xorshift64* gives the same sequence on every libc
 * (rand_r does not).
 */
#ifndef HIPSVM_TEST_RAND_H
#define HIPSVM_TEST_RAND_H

#include <stdint.h>
#include <stdlib.h>

static inline uint64_t test_seed(uint64_t def)
{
	const char *s = getenv("HIPSVM_TEST_SEED");

	return s && *s ? strtoull(s, NULL, 0) : def;
}

static inline uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

#endif
