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

/* x86-64 with AVX2 (and FMA, where the row's one operation is an fma)
 * runs the loops 8 lanes at a time; chosen once, when the library loads.
 * Only for loops whose arithmetic is one IEEE operation per result, so
 * that no contraction can change a bit. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ISA_WIDE __attribute__((target_clones("avx2", "default")))
#define ISA_WIDE_FMA __attribute__((target_clones("avx2,fma", "default")))
#else
#define ISA_WIDE
#define ISA_WIDE_FMA
#endif

#define HANDLER(name) \
	int isa_h_##name(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in)

/* one, two, three 32-bit sources; F: a float row (modifiers: the general form) */
#define WAVE1(name, expr) \
	ISA_WIDE HANDLER(name) \
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
#define WAVE2_(name, attr, pre, expr) \
	attr HANDLER(name) \
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
#define WAVE2(name, expr) WAVE2_(name, ISA_WIDE, (void)0, expr)
#define WAVE2F(name, expr) WAVE2_(name, ISA_WIDE, if (in->mods) return isa_h_valu32(w, env, in), expr)
#define WAVE3F(name, expr) \
	ISA_WIDE_FMA HANDLER(name) \
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
WAVE2_(fmac_f32, ISA_WIDE_FMA, if (in->mods) return isa_h_valu32(w, env, in);
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

/* ---- VOP3P: packed f32 ----
 *
 * Each source is a 64-bit pair (a VGPR pair, or a scalar pair or constant
 * as read64 gives it); op_sel picks the dword of each source for the low
 * result, op_sel_hi for the high one, neg and neg_hi (the abs field) flip
 * their signs. Resolved here once per instruction into a pointer and a
 * sign mask per source and half, so the lane loop is plain. */
struct pk_src {
	const uint32_t *lo, *hi;
	uint32_t xlo, xhi;
};

static const uint32_t zero_lanes[ISA_LANES];

static void pk_sources(const struct isa_wave *w, const struct isa_insn *in, unsigned n,
		       struct pk_src *s, uint32_t (*buf)[2][ISA_LANES])
{
	for (unsigned i = 0; i < n; i++) {
		unsigned src = in->src[i];
		const uint32_t *d0, *d1;

		if (src >= 256) {
			unsigned r = src - 256;

			d0 = w->v[r];
			d1 = r + 1 < ISA_NVGPR ? w->v[r + 1] : zero_lanes;
		} else {
			uint64_t v = isa_sreg64(w, in, src, false);

			for (unsigned l = 0; l < ISA_LANES; l++) {
				buf[i][0][l] = (uint32_t)v;
				buf[i][1][l] = (uint32_t)(v >> 32);
			}
			d0 = buf[i][0];
			d1 = buf[i][1];
		}
		s[i].lo = in->opsel >> i & 1 ? d1 : d0;
		s[i].hi = in->opsel_hi >> i & 1 ? d1 : d0;
		s[i].xlo = in->neg >> i & 1 ? 0x80000000u : 0;
		s[i].xhi = in->abs >> i & 1 ? 0x80000000u : 0;
	}
}

/* the pair's two halves to the lanes of ex */
static void pk_put(struct isa_wave *w, unsigned dst, uint64_t ex, const uint32_t *lo,
		   const uint32_t *hi)
{
	unsigned d = dst - 256;

	if (dst < 256 || d + 1 >= ISA_NVGPR)
		return;
	put32(w, dst, ex, lo);
	put32(w, dst + 1, ex, hi);
}

#define PK_HANDLER(name, nsrc, expr) \
	ISA_WIDE_FMA HANDLER(name) \
	{ \
		uint32_t buf[nsrc][2][ISA_LANES], lo[ISA_LANES], hi[ISA_LANES]; \
		struct pk_src s[3]; \
		(void)env; \
		pk_sources(w, in, nsrc, s, buf); \
		for (unsigned l = 0; l < ISA_LANES; l++) { \
			float a = f32(s[0].lo[l] ^ s[0].xlo), b = f32(s[1].lo[l] ^ s[1].xlo); \
			float c = nsrc > 2 ? f32(s[nsrc - 1].lo[l] ^ s[nsrc - 1].xlo) : 0.0f; \
			lo[l] = u32(expr); \
			a = f32(s[0].hi[l] ^ s[0].xhi); \
			b = f32(s[1].hi[l] ^ s[1].xhi); \
			c = nsrc > 2 ? f32(s[nsrc - 1].hi[l] ^ s[nsrc - 1].xhi) : 0.0f; \
			hi[l] = u32(expr); \
			(void)c; \
		} \
		pk_put(w, in->dst, isa_exec(w), lo, hi); \
		return 0; \
	}

PK_HANDLER(pk_fma_f32, 3, __builtin_fmaf(a, b, c))
PK_HANDLER(pk_mul_f32, 2, a * b)
PK_HANDLER(pk_add_f32, 2, a + b)
