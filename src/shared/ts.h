/* SPDX-License-Identifier: MIT */
/*
 * ts.h - 48-bit GPU timestamps (docs/design.md, Timestamps).
 *
 * The hardware writes 48-bit timestamps that wrap at 2^48. Shifting both left by
 * 16 puts the 48 bits at the top of a 64-bit word, so the difference read as a
 * signed number says which one is later, across the wrap, as long as the two are
 * less than 2^47 apart. The subtraction is done unsigned: the kernel's form,
 * (int64_t)(t2 << 16) - (int64_t)(t1 << 16), overflows a signed type (undefined
 * behaviour in C) when the two straddle the sign bit.
 *
 * Argument order follows the kernel's macros: the question is always whether the
 * SECOND argument is after the first.
 */
#ifndef HIPSVM_TS_H
#define HIPSVM_TS_H

#include "shared/compat.h"

#define HIPSVM_TS_BITS 48
#define HIPSVM_TS_MASK ((UINT64_C(1) << HIPSVM_TS_BITS) - 1)

static inline int64_t hipsvm_ts_diff(uint64_t t1, uint64_t t2)
{
	return (int64_t)((t2 << 16) - (t1 << 16));
}

/* Is t2 strictly after t1? */
static inline bool hipsvm_ts_after(uint64_t t1, uint64_t t2)
{
	return hipsvm_ts_diff(t1, t2) > 0;
}

/* Is t2 at or after t1? */
static inline bool hipsvm_ts_after_or_equal(uint64_t t1, uint64_t t2)
{
	return hipsvm_ts_diff(t1, t2) >= 0;
}

static inline uint64_t hipsvm_ts_add(uint64_t t, uint64_t delta)
{
	return (t + delta) & HIPSVM_TS_MASK;
}

#endif
