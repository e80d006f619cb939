/* SPDX-License-Identifier: MIT */
/*
 * operand.h - operand access of the vector handlers (valu*.c, vmem.c):
 * the sources of one instruction for all lanes, the float modifiers, and
 * the masked writes. Scalar operands are operand.c's (isa.h). Internal to
 * sim/isa/.
 */
#ifndef HIPSVM_SIM_ISA_OPERAND_H
#define HIPSVM_SIM_ISA_OPERAND_H

#include "isa.h"

#include <math.h>
#include <string.h>

/* AVX-512 and AVX2 code paths (GCC on x86-64), chosen per call by the
 * level simd.c keeps; elsewhere the plain loops. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define ISA_HAVE_AVX2() (isa_simd_level >= ISA_SIMD_AVX2)
#define ISA_HAVE_AVX512() (isa_simd_level >= ISA_SIMD_AVX512)
#else
#define ISA_HAVE_AVX2() 0
#define ISA_HAVE_AVX512() 0
#endif

/* the active lanes, lowest first (a full EXEC is the common case) */
#define LANES(ex) \
	for (uint64_t m_ = (ex), l = 0; m_ && ((l = (unsigned)__builtin_ctzll(m_)), 1); m_ &= m_ - 1)

static inline float f32(uint32_t v) { float f; memcpy(&f, &v, 4); return f; }
static inline uint32_t u32(float f) { uint32_t v; memcpy(&v, &f, 4); return v; }
static inline double f64(uint64_t v) { double f; memcpy(&f, &v, 8); return f; }
static inline uint64_t u64(double f) { uint64_t v; memcpy(&v, &f, 8); return v; }

/* Sources of one instruction, all lanes: p[i] points at a VGPR's lanes or
 * at a[i], filled with a scalar source. */
struct srcs {
	const uint32_t *p[3];
	uint32_t a[3][ISA_LANES];
	uint64_t q[3][ISA_LANES];
};

/* A 32-bit source: the VGPR itself (no copy) or a[i] filled. */
static inline const uint32_t *src32(const struct isa_wave *w, const struct isa_insn *in, unsigned i,
			     uint32_t *buf)
{
	unsigned src = in->src[i];

	if (src >= 256)
		return w->v[src - 256];
	uint32_t v = isa_sreg32(w, in, src);

	ISA_UNROLL
	for (unsigned l = 0; l < ISA_LANES; l++)
		buf[l] = v;
	return buf;
}

static inline void read32(const struct isa_wave *w, const struct isa_insn *in, unsigned i,
		   uint32_t *out)
{
	unsigned src = in->src[i];

	if (src >= 256) {
		memcpy(out, w->v[src - 256], sizeof(w->v[0]));
	} else {
		uint32_t v = isa_sreg32(w, in, src);

		for (unsigned l = 0; l < ISA_LANES; l++)
			out[l] = v;
	}
}

static inline void read64(const struct isa_wave *w, const struct isa_insn *in, unsigned i, bool fp,
		   uint64_t *out)
{
	unsigned src = in->src[i];

	if (src >= 256) {
		unsigned r = src - 256;

		for (unsigned l = 0; l < ISA_LANES; l++)
			out[l] = w->v[r][l] | (r + 1 < ISA_NVGPR ? (uint64_t)w->v[r + 1][l] << 32 : 0);
	} else {
		uint64_t v = isa_sreg64(w, in, src, fp);

		for (unsigned l = 0; l < ISA_LANES; l++)
			out[l] = v;
	}
}

/* Double to a saturated integer, NaN 0 (v_cvt_i32_f64, v_cvt_u32_f64 and
 * the f32 forms). */
static inline uint32_t isa_cvt_i32(double v)
{
	if (v != v)
		return 0;
	if (v >= 2147483647.0)
		return 0x7fffffffu;
	if (v <= -2147483648.0)
		return 0x80000000u;
	return (uint32_t)(int32_t)v;
}

static inline uint32_t isa_cvt_u32(double v)
{
	if (v != v || v <= 0.0)
		return 0;
	if (v >= 4294967295.0)
		return 0xffffffffu;
	return (uint32_t)v;
}

/* abs/neg modifiers of VOP3 (only float operations take them). */
static inline float m32(const struct isa_insn *in, unsigned i, uint32_t v)
{
	if (in->abs >> i & 1)
		v &= 0x7fffffffu;
	if (in->neg >> i & 1)
		v ^= 0x80000000u;
	return f32(v);
}

static inline double m64(const struct isa_insn *in, unsigned i, uint64_t v)
{
	if (in->abs >> i & 1)
		v &= 0x7fffffffffffffffull;
	if (in->neg >> i & 1)
		v ^= 0x8000000000000000ull;
	return f64(v);
}

static inline float out32(const struct isa_insn *in, float r)
{
	static const float om[4] = { 1.0f, 2.0f, 4.0f, 0.5f };

	if (in->fmt == F_VOP3 || in->ext == ISA_EXT_SDWA) {
		r *= om[in->omod];
		if (in->clamp)
			r = r < 0.0f ? 0.0f : r > 1.0f ? 1.0f : r;	/* NaN -> 0 */
		if (in->clamp && r != r)
			r = 0.0f;
	}
	return r;
}

static inline double out64(const struct isa_insn *in, double r)
{
	static const double om[4] = { 1.0, 2.0, 4.0, 0.5 };

	if (in->fmt == F_VOP3) {
		r *= om[in->omod];
		if (in->clamp)
			r = r != r ? 0.0 : r < 0.0 ? 0.0 : r > 1.0 ? 1.0 : r;
	}
	return r;
}

static inline void write32(struct isa_wave *w, unsigned dst, uint64_t ex, const uint32_t *r)
{
	if (dst < 256 || dst - 256 >= ISA_NVGPR + ISA_VTMP)
		return;
	LANES(ex)
		w->v[dst - 256][l] = r[l];
}

static inline void write64(struct isa_wave *w, unsigned dst, uint64_t ex, const uint64_t *r)
{
	unsigned d = dst - 256;

	if (dst < 256 || d + 1 >= ISA_NVGPR)
		return;
	LANES(ex) {
		w->v[d][l] = (uint32_t)r[l];
		w->v[d + 1][l] = (uint32_t)(r[l] >> 32);
	}
}

/* The destination VGPR as a 9-bit operand number, whatever the encoding. */
static inline unsigned vdst(const struct isa_insn *in)
{
	return in->fmt == F_VOP3 && in->dst < 256 ? in->dst + 256u : in->dst;
}

/* Lane l's 0/1 in c[l] as bit l: eight lanes a multiply (each byte's bit
 * lands in the top byte, in order). */
static inline uint64_t pack_mask(const uint8_t *c)
{
	uint64_t m = 0;

	for (unsigned g = 0; g < ISA_LANES / 8; g++) {
		uint64_t x;

		memcpy(&x, c + 8 * g, 8);
		m |= ((x * 0x0102040810204080ull) >> 56) << (8 * g);
	}
	return m;
}

/* 8 lanes as one value: the whole-wave copies below in 32-byte moves
 * (memcpy of 256 bytes is 16-byte moves at -O2) */
typedef uint32_t isa_lanes8 __attribute__((vector_size(32), aligned(4), may_alias));

/* A comparison's condition (the opcode's low bits) on one lane: floats
 * (unordered conditions true for NaN), integers by the sign of a - b. */
static inline bool isa_fcmp(unsigned c, double a, double b)
{
	bool un = a != a || b != b;

	switch (c & 15) {
	case 0: return false;
	case 1: return a < b;
	case 2: return a == b;
	case 3: return a <= b;
	case 4: return a > b;
	case 5: return a < b || a > b;
	case 6: return a >= b;
	case 7: return !un;
	case 8: return un;
	case 9: return !(a >= b);
	case 10: return !(a < b || a > b);
	case 11: return !(a > b);
	case 12: return !(a <= b);
	case 13: return !(a == b);
	case 14: return !(a < b);
	default: return true;
	}
}

static inline bool isa_icmp(unsigned c, int cmp /* -1, 0, 1 */)
{
	switch (c & 7) {
	case 0: return false;
	case 1: return cmp < 0;
	case 2: return cmp == 0;
	case 3: return cmp <= 0;
	case 4: return cmp > 0;
	case 5: return cmp != 0;
	case 6: return cmp >= 0;
	default: return true;
	}
}

/* At most ISA_FEW lanes on (a single work-item's loop, the tail of a
 * reduction): the whole-wave handlers then compute just those lanes, lane
 * by lane, instead of 64 and a blend (about 150 host instructions for one
 * lane). Four bit clears, no popcount (the AVX2 clones have none). */
#define ISA_FEW 4
static inline bool few_lanes(uint64_t ex)
{
	ex &= ex - 1;
	ex &= ex - 1;
	ex &= ex - 1;
	ex &= ex - 1;
	return ex == 0;
}
/* src32 and read32 for the general forms, which read only the lanes of
 * EXEC: with few lanes on (few_lanes) a scalar source fills, or a VGPR
 * copies, just those lanes of the buffer. */
static inline const uint32_t *src32_ex(const struct isa_wave *w, const struct isa_insn *in,
				       unsigned i, uint32_t *buf, uint64_t ex)
{
	unsigned src = in->src[i];

	if (src >= 256 || !few_lanes(ex))
		return src32(w, in, i, buf);
	uint32_t v = isa_sreg32(w, in, src);

	LANES(ex)
		buf[l] = v;
	return buf;
}

static inline void read32_ex(const struct isa_wave *w, const struct isa_insn *in, unsigned i,
			     uint32_t *out, uint64_t ex)
{
	unsigned src = in->src[i];

	if (!few_lanes(ex)) {
		read32(w, in, i, out);
		return;
	}
	if (src >= 256) {
		LANES(ex)
			out[l] = w->v[src - 256][l];
	} else {
		uint32_t v = isa_sreg32(w, in, src);

		LANES(ex)
			out[l] = v;
	}
}

/* Lane l's bit of ex as an all-ones or zero lane: 32-bit shifts, which
 * vectorise. */
static inline void lane_masks(uint64_t ex, uint32_t *m)
{
	uint32_t e0 = (uint32_t)ex, e1 = (uint32_t)(ex >> 32);

	ISA_UNROLL
	for (unsigned l = 0; l < ISA_LANES / 2; l++) {
		m[l] = 0u - (e0 >> l & 1);
		m[l + ISA_LANES / 2] = 0u - (e1 >> l & 1);
	}
}

/* Writes r to the lanes of ex of the destination VGPR (out of range:
 * dropped): a plain copy when every lane is on, a blend otherwise. */
static inline void put32(struct isa_wave *w, unsigned dst, uint64_t ex, const uint32_t *r)
{
	uint32_t *d, m[ISA_LANES];

	if (dst < 256 || dst - 256 >= ISA_NVGPR + ISA_VTMP)
		return;
	d = w->v[dst - 256];
	if (ex == ~0ull) {
		ISA_UNROLL
		for (unsigned c = 0; c < ISA_LANES / 8; c++)
			((isa_lanes8 *)(void *)d)[c] = ((const isa_lanes8 *)(const void *)r)[c];
		return;
	}
	lane_masks(ex, m);
	ISA_UNROLL
	for (unsigned l = 0; l < ISA_LANES; l++)
		d[l] = (r[l] & m[l]) | (d[l] & ~m[l]);
}

/* valu16.c: half precision and 16-bit integer operations (isa_h_valu32
 * comes here for their opcodes), and the half conversions the comparisons
 * use. */
int isa_valu_op16(struct isa_wave *w, const struct isa_insn *in, struct srcs *s, uint64_t ex);
float isa_h2f(uint32_t v);
uint32_t isa_f2h(float x);

#endif
