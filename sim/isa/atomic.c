/* SPDX-License-Identifier: MIT */
/*
 * atomic.c - what each atomic operation (isa.h's ISA_AT_*) makes of the
 * old value: one definition for the memory backends' host atomics
 * (guard.c's compare-and-swap loops) and the interpreter's own memory
 * (flat atomics on LDS or scratch, vmem.c).
 */
#include "isa.h"

#include <math.h>
#include <string.h>

/* A float denormal as the zero of its sign. */
static float flush32(float f)
{
	return fpclassify(f) == FP_SUBNORMAL ? copysignf(0.0f, f) : f;
}

/* global/flat_atomic_min_f64 and _max_f64: IEEE minNum/maxNum, a NaN
 * loses to a number (both NaN: the memory's, quieted) and -0 is below +0;
 * denormals kept, as all of CDNA2's f64 atomics keep them. */
static uint64_t minmax64(uint64_t old, uint64_t src, bool max)
{
	double a, b;

	memcpy(&a, &old, 8);
	memcpy(&b, &src, 8);
	if (isnan(a))
		return isnan(b) ? old | 1ull << 51 : src;
	if (isnan(b))
		return old;
	if (a == b)	/* only the zeros differ: the sign bit decides */
		return max ? old & src : old | src;
	return (a < b) != max ? old : src;
}

uint64_t isa_atomic_rmw(int op, unsigned size, uint64_t old, uint64_t src)
{
	double d;
	float f;

	switch (op) {
	case ISA_AT_SWAP: return src;
	case ISA_AT_ADD: return old + src;
	case ISA_AT_SUB: return old - src;
	case ISA_AT_SMIN:
		if (size == 4)
			return (int32_t)old < (int32_t)src ? old : src;
		return (int64_t)old < (int64_t)src ? old : src;
	case ISA_AT_UMIN: return old < src ? old : src;
	case ISA_AT_SMAX:
		if (size == 4)
			return (int32_t)old > (int32_t)src ? old : src;
		return (int64_t)old > (int64_t)src ? old : src;
	case ISA_AT_UMAX: return old > src ? old : src;
	case ISA_AT_AND: return old & src;
	case ISA_AT_OR: return old | src;
	case ISA_AT_XOR: return old ^ src;
	case ISA_AT_INC: return old >= src ? 0 : old + 1;
	case ISA_AT_DEC: return old == 0 || old > src ? src : old - 1;
	case ISA_AT_FADD32: {
		uint32_t o = (uint32_t)old, s = (uint32_t)src;
		float a;

		/* CDNA2's global/flat f32 atomic add flushes denormals, in and
		 * out, whatever the kernel's float mode (why LLVM keeps the
		 * instruction to kernels whose f32 mode is preserve-sign) */
		memcpy(&a, &o, 4);
		memcpy(&f, &s, 4);
		a = flush32(flush32(a) + flush32(f));
		memcpy(&o, &a, 4);
		return o;
	}
	case ISA_AT_FADD64: {
		double a;

		memcpy(&a, &old, 8);
		memcpy(&d, &src, 8);
		a += d;
		memcpy(&old, &a, 8);
		return old;
	}
	case ISA_AT_FMIN64: return minmax64(old, src, false);
	case ISA_AT_FMAX64: return minmax64(old, src, true);
	}
	return old;
}
