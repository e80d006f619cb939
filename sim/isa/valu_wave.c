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

/*
 * The lane loop, for every lane on: eight lanes a step into a local the
 * compiler keeps in one vector register, stored straight into the
 * destination (a destination that is a source is read, eight lanes, before
 * those lanes are written); otherwise all lanes into r and the lanes of
 * EXEC written. `body` computes r8[j] for lane l = c + j.
 */
#define LANE_LOOP(body) \
	do { \
		uint64_t ex_ = isa_exec(w); \
		unsigned d_ = vdst(in); \
		if (ex_ == ~0ull && d_ >= 256 && d_ - 256 < ISA_NVGPR + ISA_VTMP) { \
			uint32_t *D_ = w->v[d_ - 256]; \
			ISA_UNROLL \
			for (unsigned c = 0; c < ISA_LANES; c += 8) { \
				uint32_t r8[8]; \
				for (unsigned j = 0; j < 8; j++) { \
					unsigned l = c + j; \
					body; \
				} \
				*(isa_lanes8 *)(void *)(D_ + c) = *(const isa_lanes8 *)(const void *)r8; \
			} \
		} else if (few_lanes(ex_)) { \
			if (d_ < 256 || d_ - 256 >= ISA_NVGPR + ISA_VTMP) \
				break; \
			uint32_t *D_ = w->v[d_ - 256], r8[8]; \
			LANES(ex_) { \
				/* read before written, as in the loops */ \
				unsigned j = 0; \
				body; \
				D_[l] = r8[0]; \
			} \
		} else { \
			uint32_t r[ISA_LANES]; \
			for (unsigned c = 0; c < ISA_LANES; c += 8) \
				for (unsigned j = 0; j < 8; j++) { \
					unsigned l = c + j; \
					uint32_t *r8 = r + c; \
					body; \
				} \
			put32(w, d_, ex_, r); \
		} \
	} while (0)

/* one, two, three 32-bit sources; F: a float row (modifiers: the general form) */
#define WAVE1(name, expr) \
	ISA_WIDE HANDLER(name) \
	{ \
		uint32_t ba[ISA_LANES]; \
		const uint32_t *A = src32(w, in, 0, ba); \
		(void)env; \
		LANE_LOOP(uint32_t a = A[l]; r8[j] = (expr)); \
		return 0; \
	}
#define WAVE2_(name, attr, pre, expr) \
	attr HANDLER(name) \
	{ \
		uint32_t ba[ISA_LANES], bb[ISA_LANES]; \
		pre; \
		const uint32_t *A = src32(w, in, 0, ba), *B = src32(w, in, 1, bb); \
		(void)env; \
		LANE_LOOP(uint32_t a = A[l]; uint32_t b = B[l]; r8[j] = (expr)); \
		return 0; \
	}
#define WAVE2(name, expr) WAVE2_(name, ISA_WIDE, (void)0, expr)
#define WAVE2F(name, expr) WAVE2_(name, ISA_WIDE, if (in->mods) return isa_h_valu32(w, env, in), expr)
/* three 32-bit integer sources (modifiers ignored, as the general form does) */
#define WAVE3(name, expr) \
	ISA_WIDE HANDLER(name) \
	{ \
		uint32_t ba[ISA_LANES], bb[ISA_LANES], bc[ISA_LANES]; \
		const uint32_t *A = src32(w, in, 0, ba), *B = src32(w, in, 1, bb); \
		const uint32_t *C = src32(w, in, 2, bc); \
		(void)env; \
		LANE_LOOP(uint32_t a = A[l]; uint32_t b = B[l]; uint32_t c_ = C[l]; \
			  r8[j] = (expr)); \
		return 0; \
	}
#define WAVE3F(name, expr) \
	ISA_WIDE_FMA HANDLER(name) \
	{ \
		uint32_t ba[ISA_LANES], bb[ISA_LANES], bc[ISA_LANES]; \
		if (in->mods) \
			return isa_h_valu32(w, env, in); \
		const uint32_t *A = src32(w, in, 0, ba), *B = src32(w, in, 1, bb); \
		const uint32_t *C = src32(w, in, 2, bc); \
		LANE_LOOP(uint32_t a = A[l]; uint32_t b = B[l]; uint32_t c_ = C[l]; \
			  r8[j] = (expr)); \
		return 0; \
	}

WAVE2F(add_f32, u32(f32(a) + f32(b)))
WAVE2F(sub_f32, u32(f32(a) - f32(b)))
WAVE2F(subrev_f32, u32(f32(b) - f32(a)))
WAVE2F(mul_f32, u32(f32(a) * f32(b)))
WAVE3F(fma_f32, u32(__builtin_fmaf(f32(a), f32(b), f32(c_))))
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
/* v_add_u32, v_sub_u32, v_subrev_u32: VOP3's clamp saturates (an overflow
 * gives 0xffffffff, a borrow 0), in a handler of its own so that the hot
 * loop tests nothing (LLVM's usub.sat/uadd.sat, and __clzll's 32 + ffbh) */
#define WAVE2_SAT(name, expr, sat) \
	WAVE2_(name##_sat, static __attribute__((noinline)), (void)0, sat) \
	WAVE2_(name, ISA_WIDE, if (in->clamp) return isa_h_##name##_sat(w, env, in), expr)
WAVE2_SAT(add_u32, a + b, a + b < a ? ~0u : a + b)
WAVE2_SAT(sub_u32, a - b, a < b ? 0u : a - b)
WAVE2_SAT(subrev_u32, b - a, b < a ? 0u : b - a)
WAVE2(mul_lo_u32, a * b)
WAVE3(add3_u32, a + b + c_)
WAVE3(lshl_add_u32, (a << (b & 31)) + c_)
WAVE3(bfe_u32, (c_ & 31) == 0 ? 0u
	       : (b & 31) + (c_ & 31) >= 32 ? a >> (b & 31)
					    : (a >> (b & 31)) & ((1u << (c_ & 31)) - 1))
/* v_mov_b32: an SGPR or constant to every lane (a scalar kept in a VGPR
 * for a 64-bit add, several an iteration of a pointer loop) is a
 * broadcast straight into the destination, not a buffer filled and then
 * copied */
ISA_WIDE HANDLER(mov_b32)
{
	unsigned d = vdst(in);

	(void)env;
	if (in->src[0] >= 256 || isa_exec(w) != ~0ull || d < 256 || d - 256 >= ISA_NVGPR + ISA_VTMP) {
		uint32_t ba[ISA_LANES];
		const uint32_t *A = src32(w, in, 0, ba);

		LANE_LOOP(r8[j] = A[l]);
		return 0;
	}
	uint32_t v = isa_sreg32(w, in, in->src[0]), *D = w->v[d - 256];

	ISA_UNROLL
	for (unsigned l = 0; l < ISA_LANES; l++)
		D[l] = v;
	return 0;
}
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

/* inlined, so that its broadcasts are the handler's wide loops */
static inline __attribute__((always_inline)) void
pk_sources(const struct isa_wave *w, const struct isa_insn *in, unsigned n, struct pk_src *s,
	   uint32_t (*buf)[2][ISA_LANES])
{
	ISA_UNROLL
	for (unsigned i = 0; i < n; i++) {
		unsigned src = in->src[i];
		const uint32_t *d0, *d1;

		if (src >= 256) {
			unsigned r = src - 256;

			d0 = w->v[r];
			d1 = r + 1 < ISA_NVGPR ? w->v[r + 1] : zero_lanes;
		} else {
			uint64_t v = isa_sreg64(w, in, src, false);

			ISA_UNROLL
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

/* v_pk_mov_b32 (a 64-bit value copied, or its dwords rearranged: a
 * pointer kept in a register pair across a loop): the low result is the
 * dword of src0 op_sel[0] picks, the high one the dword of src1 op_sel[1]
 * picks; no modifiers. The high half is staged before the low one is
 * written, so a pair that is both source and destination is read first. */
ISA_WIDE HANDLER(pk_mov_b32)
{
	uint32_t buf[2][2][ISA_LANES], hi[ISA_LANES];
	struct pk_src s[3];

	(void)env;
	pk_sources(w, in, 2, s, buf);
	memcpy(hi, s[1].lo, sizeof(hi));
	pk_put(w, in->dst, isa_exec(w), s[0].lo, hi);
	return 0;
}

#define PK_HANDLER(name, nsrc, expr) \
	ISA_WIDE_FMA HANDLER(name) \
	{ \
		uint32_t buf[nsrc][2][ISA_LANES], lo[ISA_LANES], hi[ISA_LANES]; \
		struct pk_src s[3]; \
		(void)env; \
		uint64_t ex = isa_exec(w); \
		unsigned d = in->dst - 256u; \
		pk_sources(w, in, nsrc, s, buf); \
		if (ex == ~0ull && in->dst >= 256 && d + 1 < ISA_NVGPR) { \
			/* every lane on: eight lanes a step straight into the \
			 * pair (each step reads its lanes of every source, \
			 * the destination's too, before it writes them) */ \
			uint32_t *D0 = w->v[d], *D1 = w->v[d + 1]; \
			/* no neg, no neg_hi (the common case): the sign \
			 * masks are zero, and the loop leaves their xors out */ \
			if (!(in->neg | in->abs)) \
				PK_FULL(PK_LANE_PLAIN, nsrc, expr); \
			else \
				PK_FULL(PK_LANE, nsrc, expr); \
			return 0; \
		} \
		for (unsigned l = 0; l < ISA_LANES; l++) \
			PK_LANE(l, lo[l], hi[l], nsrc, expr); \
		pk_put(w, in->dst, ex, lo, hi); \
		return 0; \
	}
/* the eight-lane steps of every lane on, lane by lane_ (PK_LANE or
 * PK_LANE_PLAIN) */
#define PK_FULL(lane_, nsrc, expr) \
	do { \
		ISA_UNROLL \
		for (unsigned c8 = 0; c8 < ISA_LANES; c8 += 8) { \
			uint32_t lo8[8], hi8[8]; \
			for (unsigned j = 0; j < 8; j++) \
				lane_(c8 + j, lo8[j], hi8[j], nsrc, expr); \
			*(isa_lanes8 *)(void *)(D0 + c8) = *(const isa_lanes8 *)(const void *)lo8; \
			*(isa_lanes8 *)(void *)(D1 + c8) = *(const isa_lanes8 *)(const void *)hi8; \
		} \
	} while (0)
/* PK_LANE without the sign masks (every one zero) */
#define PK_LANE_PLAIN(l, rlo, rhi, nsrc, expr) \
	do { \
		float a = f32(s[0].lo[l]), b = f32(s[1].lo[l]); \
		float c = nsrc > 2 ? f32(s[nsrc - 1].lo[l]) : 0.0f; \
		rlo = u32(expr); \
		a = f32(s[0].hi[l]); \
		b = f32(s[1].hi[l]); \
		c = nsrc > 2 ? f32(s[nsrc - 1].hi[l]) : 0.0f; \
		rhi = u32(expr); \
		(void)c; \
	} while (0)
/* lane l's two results of a packed operation */
#define PK_LANE(l, rlo, rhi, nsrc, expr) \
	do { \
		float a = f32(s[0].lo[l] ^ s[0].xlo), b = f32(s[1].lo[l] ^ s[1].xlo); \
		float c = nsrc > 2 ? f32(s[nsrc - 1].lo[l] ^ s[nsrc - 1].xlo) : 0.0f; \
		rlo = u32(expr); \
		a = f32(s[0].hi[l] ^ s[0].xhi); \
		b = f32(s[1].hi[l] ^ s[1].xhi); \
		c = nsrc > 2 ? f32(s[nsrc - 1].hi[l] ^ s[nsrc - 1].xhi) : 0.0f; \
		rhi = u32(expr); \
		(void)c; \
	} while (0)

PK_HANDLER(pk_fma_f32, 3, __builtin_fmaf(a, b, c))
PK_HANDLER(pk_mul_f32, 2, a * b)
PK_HANDLER(pk_add_f32, 2, a + b)

/* ---- carries, masks, 64-bit shifts ---- */

/* The lane mask source of v_addc/v_subb/v_cndmask: VCC, or an SGPR pair
 * in VOP3 */
static uint64_t mask_src(const struct isa_wave *w, const struct isa_insn *in)
{
	return in->fmt == F_VOP3 ? isa_sreg64(w, in, in->src[2], false) : isa_vcc(w);
}

/*
 * v_add_co_u32 and v_sub_co_u32 (the reversed form's sources swapped) with
 * every lane on, on x86-64 with AVX2: eight lanes a step straight into the
 * destination, the carry (borrow) an unsigned compare (a sign-flipped
 * signed one) whose lanes' top bits are the mask's eight bits. The byte
 * array and its packing cost about half the handler.
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target("avx2"))) static uint64_t carry_full_avx2(uint32_t *D, const uint32_t *A,
								const uint32_t *B, bool sub)
{
	const __m256i s = _mm256_set1_epi32((int)0x80000000u);
	uint64_t m = 0;

	ISA_UNROLL
	for (unsigned c = 0; c < ISA_LANES; c += 8) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(A + c));
		__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(B + c)), r, lt;

		if (sub) {
			r = _mm256_sub_epi32(a, b);
			lt = _mm256_cmpgt_epi32(_mm256_xor_si256(b, s), _mm256_xor_si256(a, s));
		} else {
			r = _mm256_add_epi32(a, b);
			lt = _mm256_cmpgt_epi32(_mm256_xor_si256(a, s), _mm256_xor_si256(r, s));
		}
		_mm256_storeu_si256((__m256i *)(void *)(D + c), r);
		m |= (uint64_t)(uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(lt)) << c;
	}
	return m;
}

/* v_addc_co_u32 and v_subb_co_u32 (the reversed form's sources swapped)
 * likewise, the carry-in cin's eight bits a step as all-ones lanes (each
 * lane's own bit tested) */
__attribute__((target("avx2"))) static uint64_t carryin_full_avx2(uint32_t *D, const uint32_t *A,
								  const uint32_t *B, uint64_t cin,
								  bool sub)
{
	const __m256i s = _mm256_set1_epi32((int)0x80000000u), zero = _mm256_setzero_si256();
	const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
	uint64_t m = 0;

	ISA_UNROLL
	for (unsigned c = 0; c < ISA_LANES; c += 8) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(A + c));
		__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(B + c)), t, r, co;
		__m256i ci = _mm256_cmpeq_epi32(
			_mm256_and_si256(_mm256_set1_epi32((int)(cin >> c & 0xff)), bit), bit);

		if (sub) {	/* r = a - b - ci; borrow: a < b, or t = 0 with ci */
			t = _mm256_sub_epi32(a, b);
			r = _mm256_add_epi32(t, ci);
			co = _mm256_or_si256(
				_mm256_cmpgt_epi32(_mm256_xor_si256(b, s), _mm256_xor_si256(a, s)),
				_mm256_and_si256(ci, _mm256_cmpeq_epi32(t, zero)));
		} else {	/* r = a + b + ci; carry: t < a, or r < t */
			t = _mm256_add_epi32(a, b);
			r = _mm256_sub_epi32(t, ci);
			co = _mm256_or_si256(
				_mm256_cmpgt_epi32(_mm256_xor_si256(a, s), _mm256_xor_si256(t, s)),
				_mm256_cmpgt_epi32(_mm256_xor_si256(t, s), _mm256_xor_si256(r, s)));
		}
		_mm256_storeu_si256((__m256i *)(void *)(D + c), r);
		m |= (uint64_t)(uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(co)) << c;
	}
	return m;
}

/* With AVX-512 sixteen lanes a step, and no mask expanded or packed: the
 * unsigned compares give the carry's bits directly, and the carry-in's
 * bits are the masked add's (or subtract's) own mask. */
__attribute__((target("avx512f"))) static uint64_t carry_full_avx512(uint32_t *D, const uint32_t *A,
								    const uint32_t *B, bool sub)
{
	uint64_t m = 0;

	ISA_UNROLL
	for (unsigned c = 0; c < ISA_LANES; c += 16) {
		__m512i a = _mm512_loadu_si512(A + c), b = _mm512_loadu_si512(B + c), r;
		__mmask16 k;

		if (sub) {
			r = _mm512_sub_epi32(a, b);
			k = _mm512_cmplt_epu32_mask(a, b);
		} else {
			r = _mm512_add_epi32(a, b);
			k = _mm512_cmplt_epu32_mask(r, a);
		}
		_mm512_storeu_si512(D + c, r);
		m |= (uint64_t)k << c;
	}
	return m;
}

__attribute__((target("avx512f"))) static uint64_t carryin_full_avx512(uint32_t *D, const uint32_t *A,
								      const uint32_t *B, uint64_t cin,
								      bool sub)
{
	const __m512i one = _mm512_set1_epi32(1), zero = _mm512_setzero_si512();
	uint64_t m = 0;

	ISA_UNROLL
	for (unsigned c = 0; c < ISA_LANES; c += 16) {
		__m512i a = _mm512_loadu_si512(A + c), b = _mm512_loadu_si512(B + c), t, r;
		__mmask16 ci = (__mmask16)(cin >> c), k;

		if (sub) {	/* borrow: a < b, or t = 0 with ci */
			t = _mm512_sub_epi32(a, b);
			r = _mm512_mask_sub_epi32(t, ci, t, one);
			k = _mm512_cmplt_epu32_mask(a, b) | _mm512_mask_cmpeq_epi32_mask(ci, t, zero);
		} else {	/* carry: t < a, or r < t */
			t = _mm512_add_epi32(a, b);
			r = _mm512_mask_add_epi32(t, ci, t, one);
			k = _mm512_cmplt_epu32_mask(t, a) | _mm512_mask_cmplt_epu32_mask(ci, r, t);
		}
		_mm512_storeu_si512(D + c, r);
		m |= (uint64_t)k << c;
	}
	return m;
}
#else
#define carry_full_avx2(D, A, B, sub) ((void)(D), (void)(A), (void)(B), 0ull)
#define carryin_full_avx2(D, A, B, cin, sub) ((void)(D), (void)(A), (void)(B), (void)(cin), 0ull)
#define carry_full_avx512 carry_full_avx2
#define carryin_full_avx512 carryin_full_avx2
#endif

/* v_add_co_u32 (0x119), v_sub_co_u32, v_subrev_co_u32, v_addc_co_u32,
 * v_subb_co_u32, v_subbrev_co_u32 (0x11e): a 32-bit result and a carry
 * (borrow) mask, 0 in the lanes that are off */
ISA_WIDE HANDLER(carry)
{
	uint32_t ba[ISA_LANES], bb[ISA_LANES], r[ISA_LANES];
	const uint32_t *A = src32(w, in, 0, ba), *B = src32(w, in, 1, bb);
	unsigned op = in->op, sd = in->fmt == F_VOP3 ? in->sdst : ISA_VCC_LO;
	uint64_t ex = isa_exec(w), cin = op >= 0x11c ? mask_src(w, in) : 0, carry;
	uint8_t co[ISA_LANES];

	(void)env;
	if (op == 0x11b || op == 0x11e) {	/* the reversed forms */
		const uint32_t *t = A;

		A = B;
		B = t;
	}
	if (ex == ~0ull && ISA_HAVE_AVX2()) {
		unsigned d = vdst(in);

		if (d >= 256 && d - 256 < ISA_NVGPR + ISA_VTMP) {
			uint32_t *D = w->v[d - 256];

			if (ISA_HAVE_AVX512()) {
				if (op == 0x119)
					carry = carry_full_avx512(D, A, B, false);
				else if (op < 0x11c)
					carry = carry_full_avx512(D, A, B, true);
				else if (op == 0x11c)
					carry = carryin_full_avx512(D, A, B, cin, false);
				else
					carry = carryin_full_avx512(D, A, B, cin, true);
			} else if (op == 0x119)
				carry = carry_full_avx2(D, A, B, false);
			else if (op < 0x11c)
				carry = carry_full_avx2(D, A, B, true);
			else if (op == 0x11c)
				carry = carryin_full_avx2(D, A, B, cin, false);
			else
				carry = carryin_full_avx2(D, A, B, cin, true);
			isa_swrite64(w, sd, carry);
			return 0;
		}
	}
	if (op < 0x11c) {
		if (op == 0x119)
			for (unsigned l = 0; l < ISA_LANES; l++) {
				r[l] = A[l] + B[l];
				co[l] = r[l] < A[l];
			}
		else
			for (unsigned l = 0; l < ISA_LANES; l++) {
				r[l] = A[l] - B[l];
				co[l] = A[l] < B[l];
			}
	} else {
		/* the carry-in bits as lanes: 32-bit shifts, which vectorise
		 * (a 64-bit mask shifted into bytes does not) */
		uint32_t ci[ISA_LANES], c0 = (uint32_t)cin, c1 = (uint32_t)(cin >> 32);

		for (unsigned l = 0; l < ISA_LANES / 2; l++) {
			ci[l] = c0 >> l & 1;
			ci[l + ISA_LANES / 2] = c1 >> l & 1;
		}
		if (op == 0x11c)
			for (unsigned l = 0; l < ISA_LANES; l++) {
				uint32_t t = A[l] + B[l];

				r[l] = t + ci[l];
				co[l] = (t < A[l]) | (r[l] < t);
			}
		else
			for (unsigned l = 0; l < ISA_LANES; l++) {
				uint32_t t = A[l] - B[l];

				r[l] = t - ci[l];
				co[l] = (A[l] < B[l]) | (t < ci[l]);
			}
	}
	carry = pack_mask(co);
	isa_swrite64(w, sd, carry & ex);
	put32(w, vdst(in), ex, r);
	return 0;
}

/*
 * A 64-bit add as compilers write it, v_add_co_u32 of the low dwords then
 * v_addc_co_u32 of the high ones with that carry (every 64-bit address a
 * kernel computes): with every lane on and AVX2, both in one pass eight
 * lanes a step, the carry between them a vector instead of a mask written
 * and expanded again, and one handler call instead of two. Each step
 * finishes the first instruction's lanes before the second reads them, and
 * the second's scalar sources may not be the carry's SGPRs (it would read
 * them before the first wrote them), so this is the two in order; anything
 * else runs the two handlers one after the other.
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target("avx2"))) static void add64_avx2(uint32_t *D1, const uint32_t *A1,
							const uint32_t *B1, uint32_t *D2,
							const uint32_t *A2, const uint32_t *B2,
							uint64_t *m1, uint64_t *m2)
{
	const __m256i s = _mm256_set1_epi32((int)0x80000000u);
	uint64_t c1 = 0, c2 = 0;

	ISA_UNROLL
	for (unsigned c = 0; c < ISA_LANES; c += 8) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(A1 + c));
		__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(B1 + c));
		__m256i r = _mm256_add_epi32(a, b);
		/* -1 where the low add carried */
		__m256i cy = _mm256_cmpgt_epi32(_mm256_xor_si256(a, s), _mm256_xor_si256(r, s));

		_mm256_storeu_si256((__m256i *)(void *)(D1 + c), r);
		c1 |= (uint64_t)(uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(cy)) << c;
		a = _mm256_loadu_si256((const __m256i *)(const void *)(A2 + c));
		b = _mm256_loadu_si256((const __m256i *)(const void *)(B2 + c));
		/* r = a + b + carry; its carry: t < a, or r < t */
		__m256i t = _mm256_add_epi32(a, b);

		r = _mm256_sub_epi32(t, cy);
		cy = _mm256_or_si256(_mm256_cmpgt_epi32(_mm256_xor_si256(a, s), _mm256_xor_si256(t, s)),
				     _mm256_cmpgt_epi32(_mm256_xor_si256(t, s), _mm256_xor_si256(r, s)));
		_mm256_storeu_si256((__m256i *)(void *)(D2 + c), r);
		c2 |= (uint64_t)(uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(cy)) << c;
	}
	*m1 = c1;
	*m2 = c2;
}
#define HAVE_ADD64_AVX2 1

__attribute__((target("avx512f"))) static void add64_avx512(uint32_t *D1, const uint32_t *A1,
							    const uint32_t *B1, uint32_t *D2,
							    const uint32_t *A2, const uint32_t *B2,
							    uint64_t *m1, uint64_t *m2)
{
	const __m512i one = _mm512_set1_epi32(1);
	uint64_t c1 = 0, c2 = 0;

	ISA_UNROLL
	for (unsigned c = 0; c < ISA_LANES; c += 16) {
		__m512i a = _mm512_loadu_si512(A1 + c), b = _mm512_loadu_si512(B1 + c);
		__m512i r = _mm512_add_epi32(a, b), t;
		__mmask16 cy = _mm512_cmplt_epu32_mask(r, a);

		_mm512_storeu_si512(D1 + c, r);
		c1 |= (uint64_t)cy << c;
		a = _mm512_loadu_si512(A2 + c);
		b = _mm512_loadu_si512(B2 + c);
		t = _mm512_add_epi32(a, b);
		r = _mm512_mask_add_epi32(t, cy, t, one);
		cy = _mm512_cmplt_epu32_mask(t, a) | _mm512_mask_cmplt_epu32_mask(cy, r, t);
		_mm512_storeu_si512(D2 + c, r);
		c2 |= (uint64_t)cy << c;
	}
	*m1 = c1;
	*m2 = c2;
}
#endif

ISA_WIDE HANDLER(carry_pair)
{
	const struct isa_insn *in2 = in + in->words;
	unsigned s1 = in->fmt == F_VOP3 ? in->sdst : ISA_VCC_LO;
	unsigned s2 = in2->fmt == F_VOP3 ? in2->sdst : ISA_VCC_LO;
	unsigned d1 = vdst(in) - 256u, d2 = vdst(in2) - 256u;

	/* past both (isa_exec_insn sets the first's end), the second counted */
	w->pc = in->end;
	w->insns++;
#ifdef HAVE_ADD64_AVX2
	bool reads_carry = false;

	for (unsigned i = 0; i < 2; i++)
		reads_carry |= in2->src[i] == s1 || in2->src[i] == s1 + 1;
	if (isa_exec(w) == ~0ull && ISA_HAVE_AVX2() && !reads_carry &&
	    d1 < ISA_NVGPR + ISA_VTMP && d2 < ISA_NVGPR + ISA_VTMP) {
		uint32_t ba[ISA_LANES], bb[ISA_LANES], bc[ISA_LANES], bd[ISA_LANES];
		const uint32_t *A1 = src32(w, in, 0, ba), *B1 = src32(w, in, 1, bb);
		const uint32_t *A2 = src32(w, in2, 0, bc), *B2 = src32(w, in2, 1, bd);
		uint64_t m1, m2;

		if (ISA_HAVE_AVX512())
			add64_avx512(w->v[d1], A1, B1, w->v[d2], A2, B2, &m1, &m2);
		else
			add64_avx2(w->v[d1], A1, B1, w->v[d2], A2, B2, &m1, &m2);
		isa_swrite64(w, s1, m1);
		isa_swrite64(w, s2, m2);
		return 0;
	}
#else
	(void)s1, (void)s2, (void)d1, (void)d2;
#endif
	int err = isa_h_carry(w, env, in);

	return err ? err : isa_h_carry(w, env, in2);
}

/* v_cndmask_b32 without modifiers */
ISA_WIDE HANDLER(cndmask)
{
	uint32_t ba[ISA_LANES], bb[ISA_LANES], r[ISA_LANES];
	const uint32_t *A, *B;
	uint64_t m;

	if (in->mods)
		return isa_h_valu32(w, env, in);
	A = src32(w, in, 0, ba);
	B = src32(w, in, 1, bb);
	uint32_t mk[ISA_LANES];

	m = mask_src(w, in);
	if (few_lanes(isa_exec(w))) {
		unsigned d = vdst(in);

		if (d < 256 || d - 256 >= ISA_NVGPR + ISA_VTMP)
			return 0;
		LANES(isa_exec(w))
			w->v[d - 256][l] = m >> l & 1 ? B[l] : A[l];
		return 0;
	}
	lane_masks(m, mk);
	for (unsigned l = 0; l < ISA_LANES; l++)
		r[l] = (B[l] & mk[l]) | (A[l] & ~mk[l]);
	put32(w, vdst(in), isa_exec(w), r);
	return 0;
}

/* v_lshlrev_b64, v_lshrrev_b64, v_ashrrev_i64: the amount first */
ISA_WIDE HANDLER(shift64)
{
	uint32_t ba[ISA_LANES], lo[ISA_LANES], hi[ISA_LANES];
	const uint32_t *A = src32(w, in, 0, ba), *L, *H;
	unsigned src = in->src[1], d = vdst(in) - 256;
	uint32_t bl[ISA_LANES], bh[ISA_LANES];
	uint64_t ex = isa_exec(w);

	(void)env;
	if (src >= 256) {
		L = w->v[src - 256];
		H = src - 256 + 1 < ISA_NVGPR ? w->v[src - 256 + 1] : zero_lanes;
	} else {
		uint64_t v = isa_sreg64(w, in, src, false);

		for (unsigned l = 0; l < ISA_LANES; l++) {
			bl[l] = (uint32_t)v;
			bh[l] = (uint32_t)(v >> 32);
		}
		L = bl;
		H = bh;
	}
	if (in->src[0] < 256 && (A[0] & 31)) {
		/* one amount for every lane (a constant, mostly), not a
		 * multiple of 32: the two dwords with 32-bit shifts, one plain
		 * loop per case (a choice inside a loop keeps it scalar) */
		unsigned sh = A[0] & 63, k = sh & 31, kk = 32 - k;

#define SHIFT64_EACH(elo, ehi) \
	ISA_UNROLL \
	for (unsigned l = 0; l < ISA_LANES; l++) { \
		uint32_t x = L[l], y = H[l]; \
		(void)x; \
		(void)y; \
		lo[l] = (elo); \
		hi[l] = (ehi); \
	}
		if (in->op == 0x28f && sh < 32)		/* lshl */
			SHIFT64_EACH(x << k, y << k | x >> kk)
		else if (in->op == 0x28f)
			SHIFT64_EACH(0, x << k)
		else if (in->op == 0x290 && sh < 32)	/* lshr */
			SHIFT64_EACH(x >> k | y << kk, y >> k)
		else if (in->op == 0x290)
			SHIFT64_EACH(y >> k, 0)
		else if (sh < 32)			/* ashr */
			SHIFT64_EACH(x >> k | y << kk, (uint32_t)((int32_t)y >> k))
		else
			SHIFT64_EACH((uint32_t)((int32_t)y >> k), (uint32_t)((int32_t)y >> 31))
#undef SHIFT64_EACH
		goto put;
	}
	/* one loop per operation: a choice inside the loop keeps it scalar */
#define SHIFT64_LOOP(expr) \
	for (unsigned l = 0; l < ISA_LANES; l++) { \
		uint64_t b = L[l] | (uint64_t)H[l] << 32, r; \
		unsigned sh = A[l] & 63; \
		r = (expr); \
		lo[l] = (uint32_t)r; \
		hi[l] = (uint32_t)(r >> 32); \
	}
	if (in->op == 0x28f)
		SHIFT64_LOOP(b << sh)
	else if (in->op == 0x290)
		SHIFT64_LOOP(b >> sh)
	else
		SHIFT64_LOOP((uint64_t)((int64_t)b >> sh))
#undef SHIFT64_LOOP
put:
	if (d + 1 >= ISA_NVGPR)
		return 0;
	put32(w, d + 256, ex, lo);
	put32(w, d + 257, ex, hi);
	return 0;
}

/* Comparisons of 32-bit integers and floats, whole-wave: the condition
 * (the opcode's low bits) picked once, each lane's answer a bit of the
 * mask; inactive lanes 0. Float rows with a modifier, and the other
 * types, take the general form (valu.c). */
#define CMP_LOOP(T, cond) \
	for (unsigned l = 0; l < ISA_LANES; l++) { \
		T a = (T)A[l], b = (T)B[l]; \
		c[l] = (cond); \
	}

/* the comparison's mask (its inactive lanes cleared here) to its
 * destination, and to EXEC for cmpx */
static int cmp_write(struct isa_wave *w, const struct isa_insn *in, uint64_t m)
{
	uint64_t r = m & isa_exec(w);

	isa_swrite64(w, in->fmt == F_VOPC ? in->sdst : in->dst, r);	/* sdst: VCC, or SDWA's SGPR pair */
	if (isa_ops[in->row].flags & O_CMPX)
		isa_swrite64(w, ISA_EXEC_LO, r);
	return 0;
}

static int cmp_done(struct isa_wave *w, const struct isa_insn *in, const uint8_t *c)
{
	return cmp_write(w, in, pack_mask(c));
}

/* With AVX2, eight lanes a step: lt, eq and gt each a compare (unsigned
 * ones with the sign bits flipped). The byte a lane of the plain loop and
 * its packing cost about 400 host instructions a comparison (an
 * `if (i < n)` of every kernel). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
/* eight lanes' outcomes (all-ones lanes) ORed as the condition's bits name
 * them (1 lt, 2 eq, 4 gt), as the lanes' top bits (the 32- and 64-bit
 * comparisons; the masks are the loop's invariants once inlined) */
static inline __attribute__((always_inline, target("avx2"))) uint64_t
cond_lanes(__m256i lt, __m256i eq, __m256i gt, unsigned op)
{
	__m256i r = _mm256_or_si256(
		_mm256_or_si256(_mm256_and_si256(lt, _mm256_set1_epi32(-(int)(op & 1))),
				_mm256_and_si256(eq, _mm256_set1_epi32(-(int)(op >> 1 & 1)))),
		_mm256_and_si256(gt, _mm256_set1_epi32(-(int)(op >> 2 & 1))));

	return (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(r));
}

__attribute__((target("avx2"))) static uint64_t cmp32_avx2(const uint32_t *A, const uint32_t *B,
							   unsigned op, bool sgn)
{
	const __m256i s = sgn ? _mm256_setzero_si256() : _mm256_set1_epi32((int)0x80000000u);
	uint64_t m = 0;

	ISA_UNROLL
	for (unsigned c = 0; c < ISA_LANES; c += 8) {
		__m256i a = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(A + c)), s);
		__m256i b = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(B + c)), s);

		m |= cond_lanes(_mm256_cmpgt_epi32(b, a), _mm256_cmpeq_epi32(a, b),
				_mm256_cmpgt_epi32(a, b), op) << c;
	}
	return m;
}

/* With AVX-512 sixteen lanes a step, each outcome a compare's own mask:
 * lt, eq and gt of a and b, signed or not */
static inline __attribute__((always_inline, target("avx512f"))) void
outcomes16(__m512i a, __m512i b, bool sgn, __mmask16 *lt, __mmask16 *eq, __mmask16 *gt)
{
	*lt = sgn ? _mm512_cmplt_epi32_mask(a, b) : _mm512_cmplt_epu32_mask(a, b);
	*gt = sgn ? _mm512_cmpgt_epi32_mask(a, b) : _mm512_cmpgt_epu32_mask(a, b);
	*eq = _mm512_cmpeq_epi32_mask(a, b);
}

/* the lanes whose outcome the condition names (1 lt, 2 eq, 4 gt) */
static inline __attribute__((always_inline)) uint64_t cond16(__mmask16 lt, __mmask16 eq,
							      __mmask16 gt, unsigned op)
{
	return (uint16_t)((lt & -(op & 1)) | (eq & -(op >> 1 & 1)) | (gt & -(op >> 2 & 1)));
}

__attribute__((target("avx512f"))) static uint64_t cmp32_avx512(const uint32_t *A, const uint32_t *B,
							       unsigned op, bool sgn)
{
	uint64_t m = 0;

	ISA_UNROLL
	for (unsigned c = 0; c < ISA_LANES; c += 16) {
		__mmask16 lt, eq, gt;

		outcomes16(_mm512_loadu_si512(A + c), _mm512_loadu_si512(B + c), sgn, &lt, &eq, &gt);
		m |= cond16(lt, eq, gt, op) << c;
	}
	return m;
}
#else
#define cmp32_avx2(A, B, op, sgn) ((void)(A), (void)(B), (void)(op), (void)(sgn), 0ull)
#define cmp32_avx512 cmp32_avx2
#endif

#define ICMP_HANDLER(name, T, sgn) \
	ISA_WIDE HANDLER(name) \
	{ \
		uint32_t ba[ISA_LANES], bb[ISA_LANES]; \
		const uint32_t *A = src32(w, in, 0, ba), *B = src32(w, in, 1, bb); \
		uint8_t c[ISA_LANES]; \
		(void)env; \
		if (few_lanes(isa_exec(w))) { \
			uint64_t m = 0; \
			LANES(isa_exec(w)) { \
				T a = (T)A[l], b = (T)B[l]; \
				m |= (uint64_t)isa_icmp(in->op, (a > b) - (a < b)) << l; \
			} \
			return cmp_write(w, in, m); \
		} \
		if (ISA_HAVE_AVX512()) \
			return cmp_write(w, in, cmp32_avx512(A, B, in->op & 7, sgn)); \
		if (ISA_HAVE_AVX2()) \
			return cmp_write(w, in, cmp32_avx2(A, B, in->op & 7, sgn)); \
		switch (in->op & 7) { \
		case 0: memset(c, 0, sizeof(c)); break; \
		case 1: CMP_LOOP(T, a < b) break; \
		case 2: CMP_LOOP(T, a == b) break; \
		case 3: CMP_LOOP(T, a <= b) break; \
		case 4: CMP_LOOP(T, a > b) break; \
		case 5: CMP_LOOP(T, a != b) break; \
		case 6: CMP_LOOP(T, a >= b) break; \
		default: memset(c, 1, sizeof(c)); break; \
		} \
		return cmp_done(w, in, c); \
	}

ICMP_HANDLER(cmp_i32, int32_t, true)
ICMP_HANDLER(cmp_u32, uint32_t, false)

/* 64-bit integers (a size_t or int64_t loop's index against its bound):
 * each source a VGPR pair read in place, or a scalar pair or constant
 * (isa_sreg64) broadcast; the general form built 64-bit arrays lane by
 * lane and chose the condition per lane (about 1,000 host instructions a
 * comparison, the most of any instruction in hip-tests' managed-memory
 * loops). */
/* source i's two dwords of every lane (fp: a constant read as a double's;
 * the double rows below use it too) */
static inline __attribute__((always_inline)) void
src64(const struct isa_wave *w, const struct isa_insn *in, unsigned i, bool fp, const uint32_t **lo,
      const uint32_t **hi, uint32_t *blo, uint32_t *bhi)
{
	unsigned src = in->src[i];

	if (src >= 256) {
		unsigned r = src - 256;

		*lo = w->v[r];
		*hi = r + 1 < ISA_NVGPR ? w->v[r + 1] : zero_lanes;
		return;
	}
	uint64_t v = isa_sreg64(w, in, src, fp);

	ISA_UNROLL
	for (unsigned l = 0; l < ISA_LANES; l++) {
		blo[l] = (uint32_t)v;
		bhi[l] = (uint32_t)(v >> 32);
	}
	*lo = blo;
	*hi = bhi;
}

/* The condition's three bits are lt, eq and gt (1 lt, 2 eq, 3 le, 4 gt,
 * 5 ne, 6 ge, 7 t), so a lane's answer is the OR of those of its outcomes
 * the condition names: one loop for all eight. In 32-bit halves: the high
 * dwords compared signed or not, the low ones unsigned where the high ones
 * are equal. With AVX2 eight lanes a step, the mask's bits the lanes' top
 * bits (movemask), as the carries do: as a plain loop, four source
 * pointers and the result kept GCC from vectorising it (more alias checks
 * than it versions a loop for), and a byte a lane cost as much again. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target("avx2"))) static uint64_t cmp64_avx2(const uint32_t *AL, const uint32_t *AH,
							   const uint32_t *BL, const uint32_t *BH,
							   unsigned op, bool sgn)
{
	const __m256i s = _mm256_set1_epi32((int)0x80000000u);
	const __m256i hs = sgn ? _mm256_setzero_si256() : s;
	uint64_t m = 0;

	ISA_UNROLL
	for (unsigned c = 0; c < ISA_LANES; c += 8) {
		__m256i al = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(AL + c)), s);
		__m256i bl = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(BL + c)), s);
		__m256i ah = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(AH + c)), hs);
		__m256i bh = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(BH + c)), hs);
		__m256i heq = _mm256_cmpeq_epi32(ah, bh);
		__m256i lt = _mm256_or_si256(_mm256_cmpgt_epi32(bh, ah),
					     _mm256_and_si256(heq, _mm256_cmpgt_epi32(bl, al)));
		__m256i gt = _mm256_or_si256(_mm256_cmpgt_epi32(ah, bh),
					     _mm256_and_si256(heq, _mm256_cmpgt_epi32(al, bl)));
		__m256i eq = _mm256_and_si256(heq, _mm256_cmpeq_epi32(al, bl));

		m |= cond_lanes(lt, eq, gt, op) << c;
	}
	return m;
}

/* With AVX-512 sixteen lanes a step: the high dwords' outcomes, signed or
 * not, the low ones' unsigned where the high ones are equal */
__attribute__((target("avx512f"))) static uint64_t cmp64_avx512(const uint32_t *AL, const uint32_t *AH,
							       const uint32_t *BL, const uint32_t *BH,
							       unsigned op, bool sgn)
{
	uint64_t m = 0;

	ISA_UNROLL
	for (unsigned c = 0; c < ISA_LANES; c += 16) {
		__mmask16 hlt, heq, hgt, llt, leq, lgt;

		outcomes16(_mm512_loadu_si512(AH + c), _mm512_loadu_si512(BH + c), sgn, &hlt, &heq,
			   &hgt);
		outcomes16(_mm512_loadu_si512(AL + c), _mm512_loadu_si512(BL + c), false, &llt, &leq,
			   &lgt);
		m |= cond16(hlt | (heq & llt), heq & leq, hgt | (heq & lgt), op) << c;
	}
	return m;
}
#else
#define cmp64_avx2(AL, AH, BL, BH, op, sgn) \
	((void)(AL), (void)(AH), (void)(BL), (void)(BH), (void)(op), (void)(sgn), 0ull)
#define cmp64_avx512 cmp64_avx2
#endif

static uint64_t cmp64_lanes(const uint32_t *AL, const uint32_t *AH, const uint32_t *BL,
			    const uint32_t *BH, unsigned op, bool sgn)
{
	uint64_t m = 0;

	for (unsigned l = 0; l < ISA_LANES; l++) {
		uint64_t a = AL[l] | (uint64_t)AH[l] << 32, b = BL[l] | (uint64_t)BH[l] << 32;
		bool lt = sgn ? (int64_t)a < (int64_t)b : a < b;
		bool gt = sgn ? (int64_t)a > (int64_t)b : a > b;
		unsigned k = lt ? 1 : gt ? 4 : 2;

		m |= (uint64_t)((op & k) != 0) << l;
	}
	return m;
}

#define ICMP64_HANDLER(name, sgn) \
	ISA_WIDE HANDLER(name) \
	{ \
		uint32_t bal[ISA_LANES], bah[ISA_LANES], bbl[ISA_LANES], bbh[ISA_LANES]; \
		const uint32_t *AL, *AH, *BL, *BH; \
		(void)env; \
		src64(w, in, 0, false, &AL, &AH, bal, bah); \
		src64(w, in, 1, false, &BL, &BH, bbl, bbh); \
		if (ISA_HAVE_AVX512()) \
			return cmp_write(w, in, cmp64_avx512(AL, AH, BL, BH, in->op & 7, sgn)); \
		return cmp_write(w, in, ISA_HAVE_AVX2() ? cmp64_avx2(AL, AH, BL, BH, in->op & 7, sgn) \
						       : cmp64_lanes(AL, AH, BL, BH, in->op & 7, sgn)); \
	}

ICMP64_HANDLER(cmp_i64, true)
ICMP64_HANDLER(cmp_u64, false)

/* f32: the 16 conditions, unordered ones true for NaN */
#define FCMP_LOOP(cond) \
	for (unsigned l = 0; l < ISA_LANES; l++) { \
		float a = f32(A[l]), b = f32(B[l]); \
		c[l] = (cond); \
	}

ISA_WIDE HANDLER(cmp_f32)
{
	uint32_t ba[ISA_LANES], bb[ISA_LANES];
	const uint32_t *A, *B;
	uint8_t c[ISA_LANES];

	if (in->mods)
		return isa_h_vopc(w, env, in);
	A = src32(w, in, 0, ba);
	B = src32(w, in, 1, bb);
	if (few_lanes(isa_exec(w))) {
		uint64_t m = 0;

		LANES(isa_exec(w))
			m |= (uint64_t)isa_fcmp(in->op, f32(A[l]), f32(B[l])) << l;
		return cmp_write(w, in, m);
	}
	switch (in->op & 15) {
	case 0: memset(c, 0, sizeof(c)); break;
	case 1: FCMP_LOOP(a < b) break;
	case 2: FCMP_LOOP(a == b) break;
	case 3: FCMP_LOOP(a <= b) break;
	case 4: FCMP_LOOP(a > b) break;
	case 5: FCMP_LOOP(a < b || a > b) break;
	case 6: FCMP_LOOP(a >= b) break;
	case 7: FCMP_LOOP(a == a && b == b) break;
	case 8: FCMP_LOOP(a != a || b != b) break;
	case 9: FCMP_LOOP(!(a >= b)) break;
	case 10: FCMP_LOOP(!(a < b || a > b)) break;
	case 11: FCMP_LOOP(!(a > b)) break;
	case 12: FCMP_LOOP(!(a <= b)) break;
	case 13: FCMP_LOOP(!(a == b)) break;
	case 14: FCMP_LOOP(!(a < b)) break;
	default: memset(c, 1, sizeof(c)); break;
	}
	return cmp_done(w, in, c);
}

/* ---- double precision ----
 *
 * A 64-bit source is a VGPR pair (its two registers' lanes in place) or a
 * scalar pair or constant broadcast once, as read64 gives them; lane l's
 * double is the pair's dwords joined. As with the 32-bit float rows, a
 * modifier on sends the row to the general form (valu_ops.c), so the loops
 * below are the general form's arithmetic with nothing to test: a kernel
 * that computes in double (a float constant that is a double literal is
 * enough: x * 5.34 is v_cvt_f64_f32, v_mul_f64, v_cvt_f32_f64) spent most
 * of its time in the general form's lane-by-lane reads and writes.
 */
struct d_src {
	const uint32_t *lo, *hi;
};

/* a double source of the float rows (src64, its constants read as a double's) */
static inline __attribute__((always_inline)) void
d_source(const struct isa_wave *w, const struct isa_insn *in, unsigned i, struct d_src *s,
	 uint32_t (*buf)[ISA_LANES])
{
	src64(w, in, i, true, &s->lo, &s->hi, buf[0], buf[1]);
}

static inline double d_lane(const struct d_src *s, unsigned l)
{
	return f64((uint64_t)s->hi[l] << 32 | s->lo[l]);
}

/*
 * The lane loop of a 64-bit result, `body` setting double v for lane l:
 * with every lane on, eight lanes a step straight into the pair (each step
 * reads its lanes of every source before it writes them); with few lanes
 * on, just those; otherwise all lanes, then the lanes of EXEC of each half.
 * A pair past the last VGPR is dropped, as write64 drops it.
 */
#define D_LOOP(body) \
	do { \
		uint64_t ex_ = isa_exec(w); \
		unsigned dd_ = vdst(in), d_ = dd_ - 256u; \
		if (dd_ < 256 || d_ + 1 >= ISA_NVGPR) \
			break; \
		uint32_t *D0 = w->v[d_], *D1 = w->v[d_ + 1]; \
		if (ex_ == ~0ull) { \
			ISA_UNROLL \
			for (unsigned c = 0; c < ISA_LANES; c += 8) { \
				uint32_t lo8[8], hi8[8]; \
				for (unsigned j = 0; j < 8; j++) { \
					unsigned l = c + j; \
					double v; \
					body; \
					uint64_t b_ = u64(v); \
					lo8[j] = (uint32_t)b_; \
					hi8[j] = (uint32_t)(b_ >> 32); \
				} \
				*(isa_lanes8 *)(void *)(D0 + c) = *(const isa_lanes8 *)(const void *)lo8; \
				*(isa_lanes8 *)(void *)(D1 + c) = *(const isa_lanes8 *)(const void *)hi8; \
			} \
		} else if (few_lanes(ex_)) { \
			LANES(ex_) { \
				double v; \
				body; \
				uint64_t b_ = u64(v); \
				D0[l] = (uint32_t)b_; \
				D1[l] = (uint32_t)(b_ >> 32); \
			} \
		} else { \
			uint32_t lo[ISA_LANES], hi[ISA_LANES]; \
			for (unsigned l = 0; l < ISA_LANES; l++) { \
				double v; \
				body; \
				uint64_t b_ = u64(v); \
				lo[l] = (uint32_t)b_; \
				hi[l] = (uint32_t)(b_ >> 32); \
			} \
			put32(w, dd_, ex_, lo); \
			put32(w, dd_ + 1, ex_, hi); \
		} \
	} while (0)

/*
 * With AVX2 and every lane on, the doubles four at a time: a pair's lanes
 * are two arrays of dwords, so eight lanes' low and high dwords unpack
 * into two vectors of doubles, lanes 0, 1, 4, 5 and 2, 3, 6, 7 (the unpack
 * works within each 128-bit half); an element-wise operation keeps that
 * order, and one shuffle a half packs the results' dwords back. The same
 * host instructions as the lane loops (vaddpd is addsd four times, as
 * vcvtps2pd is cvtss2sd), so the results are the same bits; the loops
 * above joined and split each lane's dwords one at a time (a v_mul_f64 of
 * 64 lanes was about 400 host instructions).
 */
enum { D_ADD, D_MUL, D_FMA, D_FROM_F32, D_TO_F32 };

/* a source of the AVX2 forms: a VGPR pair in place, or a scalar's double
 * broadcast (no buffer filled) */
struct d_op {
	const uint32_t *lo, *hi;
	uint64_t v;
	bool bc;
};

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define D_AVX2 1
__attribute__((target("avx2,fma"), always_inline)) static inline void
d_join(const struct d_op *s, unsigned c, __m256d *x, __m256d *y)
{
	if (s->bc) {
		*x = *y = _mm256_castsi256_pd(_mm256_set1_epi64x((long long)s->v));
		return;
	}
	__m256i lo = _mm256_loadu_si256((const __m256i *)(const void *)(s->lo + c));
	__m256i hi = _mm256_loadu_si256((const __m256i *)(const void *)(s->hi + c));

	*x = _mm256_castsi256_pd(_mm256_unpacklo_epi32(lo, hi));	/* lanes 0 1 4 5 */
	*y = _mm256_castsi256_pd(_mm256_unpackhi_epi32(lo, hi));	/* lanes 2 3 6 7 */
}

__attribute__((target("avx2,fma"), always_inline)) static inline void
d_split(uint32_t *D0, uint32_t *D1, unsigned c, __m256d x, __m256d y)
{
	__m256 xs = _mm256_castpd_ps(x), ys = _mm256_castpd_ps(y);

	_mm256_storeu_ps((float *)(void *)(D0 + c), _mm256_shuffle_ps(xs, ys, _MM_SHUFFLE(2, 0, 2, 0)));
	_mm256_storeu_ps((float *)(void *)(D1 + c), _mm256_shuffle_ps(xs, ys, _MM_SHUFFLE(3, 1, 3, 1)));
}

/* op over every lane: D_ADD, D_MUL, D_FMA of the double sources s into the
 * pair D0, D1; D_FROM_F32 of the floats A into it; D_TO_F32 of s[0] into
 * the floats D0. Each step reads its eight lanes of every source before
 * it writes them. */
__attribute__((target("avx2,fma"), always_inline)) static inline void
d_full(int op, const struct d_op *s, const uint32_t *A, uint32_t *D0, uint32_t *D1)
{
	ISA_UNROLL
	for (unsigned c = 0; c < ISA_LANES; c += 8) {
		__m256d x0, y0, x1, y1, x2, y2;

		if (op == D_FROM_F32) {
			/* the floats of lanes 0 1 4 5 and 2 3 6 7: their 64-bit pairs reordered */
			__m256i a = _mm256_permute4x64_epi64(
				_mm256_loadu_si256((const __m256i *)(const void *)(A + c)),
				_MM_SHUFFLE(3, 1, 2, 0));

			x0 = _mm256_cvtps_pd(_mm_castsi128_ps(_mm256_castsi256_si128(a)));
			y0 = _mm256_cvtps_pd(_mm_castsi128_ps(_mm256_extracti128_si256(a, 1)));
			d_split(D0, D1, c, x0, y0);
			continue;
		}
		d_join(&s[0], c, &x0, &y0);
		if (op == D_TO_F32) {
			/* floats of lanes 0 1 4 5 | 2 3 6 7, the pairs put back in order */
			__m256i f = _mm256_castps_si256(_mm256_set_m128(_mm256_cvtpd_ps(y0),
									_mm256_cvtpd_ps(x0)));

			_mm256_storeu_si256((__m256i *)(void *)(D0 + c),
					    _mm256_permute4x64_epi64(f, _MM_SHUFFLE(3, 1, 2, 0)));
			continue;
		}
		d_join(&s[1], c, &x1, &y1);
		if (op == D_ADD) {
			x0 = _mm256_add_pd(x0, x1);
			y0 = _mm256_add_pd(y0, y1);
		} else if (op == D_MUL) {
			x0 = _mm256_mul_pd(x0, x1);
			y0 = _mm256_mul_pd(y0, y1);
		} else {
			d_join(&s[2], c, &x2, &y2);
			x0 = _mm256_fmadd_pd(x0, x1, x2);
			y0 = _mm256_fmadd_pd(y0, y1, y2);
		}
		d_split(D0, D1, c, x0, y0);
	}
}

/* one function an operation, op a constant in each */
#define D_FULL(name, op) \
	__attribute__((target("avx2,fma"), noinline)) static void name( \
		const struct d_op *s, const uint32_t *A, uint32_t *D0, uint32_t *D1) \
	{ \
		d_full(op, s, A, D0, D1); \
	}
D_FULL(d_add_avx2, D_ADD)
D_FULL(d_mul_avx2, D_MUL)
D_FULL(d_fma_avx2, D_FMA)
D_FULL(d_from_f32_avx2, D_FROM_F32)
D_FULL(d_to_f32_avx2, D_TO_F32)
#undef D_FULL
#endif

/* The AVX2 form of op when it applies (every lane on, no modifier, the
 * destination a VGPR pair, or one VGPR for D_TO_F32; the CPU has FMA for
 * D_FMA): true when it ran. The double sources are the instruction's
 * first nsrc, then for D_FMA with nsrc 2 the destination pair (v_fmac);
 * A is D_FROM_F32's floats. */
static inline __attribute__((always_inline)) bool
d_wave(struct isa_wave *w, const struct isa_insn *in, int op, unsigned nsrc, const uint32_t *A)
{
#ifdef D_AVX2
	unsigned dd = vdst(in), d = dd - 256u;
	struct d_op s[3];

	if (isa_exec(w) != ~0ull || in->mods || dd < 256 || d + (op != D_TO_F32) >= ISA_NVGPR ||
	    !ISA_HAVE_AVX2() || (op == D_FMA && !__builtin_cpu_supports("fma")))
		return false;
	for (unsigned i = 0; i < nsrc; i++) {
		unsigned src = in->src[i];

		if (src >= 256) {
			unsigned r = src - 256;

			s[i].lo = w->v[r];
			s[i].hi = r + 1 < ISA_NVGPR ? w->v[r + 1] : zero_lanes;
			s[i].bc = false;
		} else {
			s[i].v = isa_sreg64(w, in, src, true);
			s[i].bc = true;
		}
	}
	if (op == D_FMA && nsrc == 2) {
		s[2].lo = w->v[d];
		s[2].hi = w->v[d + 1];
		s[2].bc = false;
	}
	switch (op) {
	case D_ADD: d_add_avx2(s, A, w->v[d], w->v[d + 1]); break;
	case D_MUL: d_mul_avx2(s, A, w->v[d], w->v[d + 1]); break;
	case D_FMA: d_fma_avx2(s, A, w->v[d], w->v[d + 1]); break;
	case D_FROM_F32: d_from_f32_avx2(s, A, w->v[d], w->v[d + 1]); break;
	default: d_to_f32_avx2(s, A, w->v[d], NULL); break;
	}
	return true;
#else
	(void)w, (void)in, (void)op, (void)nsrc, (void)A;
	return false;
#endif
}

/* nsrc double sources a, b, c; a double result */
#define WAVED(name, attr, nsrc, op, expr) \
	attr HANDLER(name) \
	{ \
		uint32_t buf[nsrc][2][ISA_LANES]; \
		struct d_src s[nsrc]; \
		if (in->mods) \
			return isa_h_valu64(w, env, in); \
		if (d_wave(w, in, op, nsrc, NULL)) \
			return 0; \
		ISA_UNROLL \
		for (unsigned i = 0; i < nsrc; i++) \
			d_source(w, in, i, &s[i], buf[i]); \
		D_LOOP(double a = d_lane(&s[0], l); double b = d_lane(&s[nsrc > 1 ? 1 : 0], l); \
		       double c = d_lane(&s[nsrc - 1], l); (void)b; (void)c; v = (expr)); \
		return 0; \
	}

WAVED(add_f64, ISA_WIDE, 2, D_ADD, a + b)
WAVED(mul_f64, ISA_WIDE, 2, D_MUL, a * b)
WAVED(fma_f64, ISA_WIDE_FMA, 3, D_FMA, fma(a, b, c))

/* v_fmac_f64: d = a * b + d, the destination pair the third source */
ISA_WIDE_FMA HANDLER(fmac_f64)
{
	uint32_t buf[2][2][ISA_LANES];
	struct d_src s[3];
	unsigned d = (vdst(in) - 256) & 0xff;

	if (in->mods)
		return isa_h_valu64(w, env, in);
	if (d_wave(w, in, D_FMA, 2, NULL))
		return 0;
	d_source(w, in, 0, &s[0], buf[0]);
	d_source(w, in, 1, &s[1], buf[1]);
	s[2].lo = w->v[d];
	s[2].hi = d + 1 < ISA_NVGPR ? w->v[d + 1] : zero_lanes;
	D_LOOP(v = fma(d_lane(&s[0], l), d_lane(&s[1], l), d_lane(&s[2], l)));
	return 0;
}

/* conversions to double from a 32-bit source */
#define WAVE_TO_D(name, op, expr) \
	ISA_WIDE HANDLER(name) \
	{ \
		uint32_t ba[ISA_LANES]; \
		const uint32_t *A; \
		if (in->mods) \
			return isa_h_valu64(w, env, in); \
		A = src32(w, in, 0, ba); \
		if (op >= 0 && d_wave(w, in, op, 0, A)) \
			return 0; \
		D_LOOP(uint32_t a = A[l]; v = (expr)); \
		return 0; \
	}
WAVE_TO_D(cvt_f64_f32, D_FROM_F32, (double)f32(a))
WAVE_TO_D(cvt_f64_i32, -1, (double)(int32_t)a)
WAVE_TO_D(cvt_f64_u32, -1, (double)a)

/* conversions from double to a 32-bit result */
#define WAVE_FROM_D(name, op, expr) \
	ISA_WIDE HANDLER(name) \
	{ \
		uint32_t buf[2][ISA_LANES]; \
		struct d_src A; \
		if (in->mods) \
			return isa_h_valu32(w, env, in); \
		(void)env; \
		if (op >= 0 && d_wave(w, in, op, 1, NULL)) \
			return 0; \
		d_source(w, in, 0, &A, buf); \
		LANE_LOOP(double a = d_lane(&A, l); r8[j] = (expr)); \
		return 0; \
	}
WAVE_FROM_D(cvt_f32_f64, D_TO_F32, u32((float)a))
WAVE_FROM_D(cvt_i32_f64, -1, isa_cvt_i32(a))
WAVE_FROM_D(cvt_u32_f64, -1, isa_cvt_u32(a))
