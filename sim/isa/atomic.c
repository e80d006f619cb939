/* SPDX-License-Identifier: MIT */
/*
 * atomic.c - what each atomic operation (isa.h's ISA_AT_*) makes of the
 * old value: one definition for the memory backends' host atomics
 * (guard.c's compare-and-swap loops) and the interpreter's own memory
 * (flat atomics on LDS or scratch, vmem.c).
 */
#include "isa.h"

#include <string.h>

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

		memcpy(&a, &o, 4);
		memcpy(&f, &s, 4);
		a += f;
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
	}
	return old;
}
