/* SPDX-License-Identifier: MIT */
/*
 * valu_wave.c - element-wise vector operations as whole-wave loops: the
 * handler shape every hot VALU row takes.
 *
 * A handler reads its sources by pointer (a VGPR's 64 lanes in place, a
 * scalar broadcast once), computes all 64 lanes in a plain loop the
 * compiler vectorises (inactive lanes too: element-wise operations have no
 * side effects, and IEEE exceptions are masked), and writes the lanes of
 * EXEC (a plain copy when EXEC is full). Source modifiers are resolved at
 * decode time: a float row with one on (isa_insn.mods) takes the general
 * form in valu_ops.c instead, so the loops here never test a modifier.
 * Integer rows ignore modifiers, as the general form does.
 */
#include "operand.h"

#define HANDLER(name) \
	int isa_h_##name(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in)

/* one, two, three 32-bit sources; F: a float row (modifiers: the general form) */
#define WAVE1(name, expr) \
	HANDLER(name) \
	{ \
		uint32_t ba[ISA_LANES], r[ISA_LANES]; \
		const uint32_t *A = src32(w, in, 0, ba); \
		(void)env; \
		for (unsigned l = 0; l < ISA_LANES; l++) { \
			uint32_t a = A[l]; \
			r[l] = (expr); \
		} \
		put32(w, vdst(in), isa_exec(w), r); \
		return 0; \
	}
#define WAVE2_(name, pre, expr) \
	HANDLER(name) \
	{ \
		uint32_t ba[ISA_LANES], bb[ISA_LANES], r[ISA_LANES]; \
		pre; \
		const uint32_t *A = src32(w, in, 0, ba), *B = src32(w, in, 1, bb); \
		(void)env; \
		for (unsigned l = 0; l < ISA_LANES; l++) { \
			uint32_t a = A[l], b = B[l]; \
			r[l] = (expr); \
		} \
		put32(w, vdst(in), isa_exec(w), r); \
		return 0; \
	}
#define WAVE2(name, expr) WAVE2_(name, (void)0, expr)
#define WAVE2F(name, expr) WAVE2_(name, if (in->mods) return isa_h_valu32(w, env, in), expr)
#define WAVE3F(name, expr) \
	HANDLER(name) \
	{ \
		uint32_t ba[ISA_LANES], bb[ISA_LANES], bc[ISA_LANES], r[ISA_LANES]; \
		if (in->mods) \
			return isa_h_valu32(w, env, in); \
		const uint32_t *A = src32(w, in, 0, ba), *B = src32(w, in, 1, bb); \
		const uint32_t *C = src32(w, in, 2, bc); \
		for (unsigned l = 0; l < ISA_LANES; l++) { \
			uint32_t a = A[l], b = B[l], c = C[l]; \
			r[l] = (expr); \
		} \
		put32(w, vdst(in), isa_exec(w), r); \
		return 0; \
	}

WAVE2F(add_f32, u32(f32(a) + f32(b)))
WAVE2F(sub_f32, u32(f32(a) - f32(b)))
WAVE2F(subrev_f32, u32(f32(b) - f32(a)))
WAVE2F(mul_f32, u32(f32(a) * f32(b)))
WAVE3F(fma_f32, u32(__builtin_fmaf(f32(a), f32(b), f32(c))))
/* d = a * b + d: the destination is the third source */
WAVE2_(fmac_f32, if (in->mods) return isa_h_valu32(w, env, in);
		 const uint32_t *D = w->v[(vdst(in) - 256) & 0xff],
       u32(__builtin_fmaf(f32(a), f32(b), f32(D[l]))))

WAVE2(min_i32, (int32_t)a < (int32_t)b ? a : b)
WAVE2(max_i32, (int32_t)a > (int32_t)b ? a : b)
WAVE2(min_u32, a < b ? a : b)
WAVE2(max_u32, a > b ? a : b)
WAVE2(lshrrev_b32, b >> (a & 31))
WAVE2(ashrrev_i32, (uint32_t)((int32_t)b >> (a & 31)))
WAVE2(lshlrev_b32, b << (a & 31))
WAVE2(and_b32, a & b)
WAVE2(or_b32, a | b)
WAVE2(xor_b32, a ^ b)
WAVE2(xnor_b32, ~(a ^ b))
WAVE2(add_u32, a + b)
WAVE2(sub_u32, a - b)
WAVE2(subrev_u32, b - a)
WAVE2(mul_lo_u32, a * b)
WAVE1(mov_b32, a)
WAVE1(not_b32, ~a)
