/* SPDX-License-Identifier: MIT */
/*
 * valu16.c - the vector ALU's 16-bit operations: half precision (IEEE
 * binary16) and 16-bit integer arithmetic in the VOP1/VOP2/VOP3 opcode
 * space (isa.h), and the packed 16-bit and mixed-precision VOP3P ones.
 *
 * Half precision is converted by hand (not every compiler has _Float16 on
 * x86). A sum, difference, product, quotient or square root of halves is
 * computed in float and rounded once more to half: float has 24 bits, at
 * least 2 * 11 + 2, so that second rounding gives the correctly rounded
 * half (the double-rounding bound). Fused multiply-adds are computed
 * exactly instead: the product of two halves or floats is exact in double,
 * the sum's rounding error is recovered exactly (two-sum), and the one
 * rounding to half sees it. Denormals are kept (the mode hipcc's kernels
 * run in); a NaN operand gives that NaN quieted, as the host does.
 *
 * gfx9 writes 16-bit results to the low half of the destination and zeroes
 * the high half, unless VOP3 op_sel bit 3 asks for the high half (the low
 * half then stays). VOP3 op_sel bits 0-2 read the sources' high halves.
 */
#include "operand.h"

float isa_h2f(uint32_t v)
{
	uint32_t h = v & 0xffff, sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;

	if (e == 0) {
		float r = ldexpf((float)m, -24);	/* zero or subnormal */

		return sign ? -r : r;
	}
	return f32(sign | (e == 31 ? 0x7f800000u | m << 13 : (e + 112) << 23 | m << 13));
}

/*
 * x + err (err: what the rounding of x lost, |err| at most half an ulp of
 * x in double) rounded to half: to nearest even, or toward zero (rtz).
 * err decides the ties only: an x exactly half-way between two halves is
 * above or below the half-way point by err's sign.
 */
static uint32_t d2h(double x, double err, bool rtz)
{
	uint64_t b = u64(x), m = b & 0xfffffffffffffull, rem, half;
	uint32_t sign = (uint32_t)(b >> 48) & 0x8000u, r;
	int e = (int)(b >> 52 & 0x7ff), he = e - 1023 + 15;
	unsigned shift;
	bool up;

	if (e == 0x7ff)		/* inf, or a NaN quieted with its payload */
		return sign | 0x7c00u | (m ? 0x200u | (uint32_t)(m >> 42) : 0);
	if (he >= 31)
		return sign | (rtz ? 0x7bffu : 0x7c00u);
	if (e == 0)
		return sign;	/* zero, or a double denormal: far below half's range */
	if (he >= 1) {
		r = (uint32_t)he << 10 | (uint32_t)(m >> 42);
		rem = m & ((1ull << 42) - 1);
		half = 1ull << 41;
	} else {		/* a half denormal, or zero */
		shift = (unsigned)(42 + 1 - he);
		if (shift > 60)
			return sign;
		m |= 1ull << 52;
		r = (uint32_t)(m >> shift);
		rem = m & ((1ull << shift) - 1);
		half = 1ull << (shift - 1);
	}
	if (rtz)
		up = false;
	else if (rem != half)
		up = rem > half;
	else if (err != 0)
		up = (err > 0) == (x > 0);
	else
		up = r & 1;
	/* a carry rounds into the exponent, up to inf at the top */
	return sign | (r + up);
}

uint32_t isa_f2h(float x)
{
	return d2h((double)x, 0, false);
}

/* a * b + c rounded once to half; a, b, c halves or floats */
static uint32_t fma_h(float a, float b, float c)
{
	double p = (double)a * b, s = p + c, bp = s - c, bc = s - bp;
	double err = (p - bp) + (c - bc);

	if (isinf(s) || s != s || isinf(p))
		return isa_f2h((float)s);
	return d2h(s, err, false);
}

/* operand i's 16 bits: its high half with VOP3 op_sel bit i */
static uint32_t hsel(const struct isa_insn *in, unsigned i, uint32_t v)
{
	return in->fmt == F_VOP3 && (in->opsel >> i & 1) ? v >> 16 : v & 0xffff;
}

static float m16(const struct isa_insn *in, unsigned i, uint32_t v)
{
	v = hsel(in, i, v);
	if (in->abs >> i & 1)
		v &= 0x7fffu;
	if (in->neg >> i & 1)
		v ^= 0x8000u;
	return isa_h2f(v);
}

/* a half result with the VOP3 clamp and output modifier */
static uint32_t hout(const struct isa_insn *in, float r)
{
	return isa_f2h(out32(in, r));
}

static uint32_t sat_u16(int64_t v, bool clamp)
{
	if (clamp)
		v = v < 0 ? 0 : v > 0xffff ? 0xffff : v;
	return (uint32_t)v & 0xffff;
}

static uint32_t sat_i16(int64_t v, bool clamp)
{
	if (clamp)
		v = v < -32768 ? -32768 : v > 32767 ? 32767 : v;
	return (uint32_t)v & 0xffff;
}

static uint32_t cvt16(float f, bool sgn)
{
	float lo = sgn ? -32768.0f : 0.0f, hi = sgn ? 32767.0f : 65535.0f;

	if (f != f)
		return 0;
	f = truncf(f);
	f = f < lo ? lo : f > hi ? hi : f;
	return (uint32_t)(int32_t)f & 0xffff;
}

static float med3f(float a, float b, float c)
{
	return fmaxf(fminf(a, b), fminf(fmaxf(a, b), c));
}

static int32_t med3(int32_t a, int32_t b, int32_t c)
{
	int32_t mx = a > b ? a : b, mn = a < b ? a : b;

	return c > mx ? mx : c < mn ? mn : c;
}

/* One 16-bit operation of lane values a, b, c (the selected halves). */
static uint32_t op16(const struct isa_insn *in, unsigned op, uint32_t A, uint32_t B, uint32_t C)
{
	uint32_t a = hsel(in, 0, A), b = hsel(in, 1, B), c = hsel(in, 2, C);
	int32_t sa = (int16_t)a, sb = (int16_t)b, sc = (int16_t)c;
	bool cl = in->clamp;
	float x = m16(in, 0, A), y, z, v;
	int e;

	switch (op) {
	case 0x11f: return hout(in, x + m16(in, 1, B));		/* v_add_f16 */
	case 0x120: return hout(in, x - m16(in, 1, B));		/* v_sub_f16 */
	case 0x121: return hout(in, m16(in, 1, B) - x);		/* v_subrev_f16 */
	case 0x122: return hout(in, x * m16(in, 1, B));		/* v_mul_f16 */
	case 0x12d: return hout(in, fmaxf(x, m16(in, 1, B)));	/* v_max_f16 */
	case 0x12e: return hout(in, fminf(x, m16(in, 1, B)));	/* v_min_f16 */
	case 0x133: return hout(in, ldexpf(x, sb));		/* v_ldexp_f16 */
	case 0x126: return sat_u16((int64_t)a + b, cl);		/* v_add_u16 */
	case 0x127: return sat_u16((int64_t)a - b, cl);		/* v_sub_u16 */
	case 0x128: return sat_u16((int64_t)b - a, cl);		/* v_subrev_u16 */
	case 0x129: return (a * b) & 0xffff;			/* v_mul_lo_u16 */
	case 0x12a: return (b << (a & 15)) & 0xffff;		/* v_lshlrev_b16 */
	case 0x12b: return b >> (a & 15);			/* v_lshrrev_b16 */
	case 0x12c: return (uint32_t)(sb >> (a & 15)) & 0xffff;	/* v_ashrrev_i16 */
	case 0x12f: return a > b ? a : b;			/* v_max_u16 */
	case 0x130: return (uint32_t)(sa > sb ? sa : sb) & 0xffff;	/* v_max_i16 */
	case 0x131: return a < b ? a : b;			/* v_min_u16 */
	case 0x132: return (uint32_t)(sa < sb ? sa : sb) & 0xffff;	/* v_min_i16 */
	case 0x14a: return hout(in, m32(in, 0, A));		/* v_cvt_f16_f32 */
	case 0x179: return hout(in, (float)a);			/* v_cvt_f16_u16 */
	case 0x17a: return hout(in, (float)sa);			/* v_cvt_f16_i16 */
	case 0x17b: return cvt16(x, false);			/* v_cvt_u16_f16 */
	case 0x17c: return cvt16(x, true);			/* v_cvt_i16_f16 */
	case 0x17d: return hout(in, 1.0f / x);			/* v_rcp_f16 */
	case 0x17e: return hout(in, sqrtf(x));			/* v_sqrt_f16 */
	case 0x17f: return hout(in, 1.0f / sqrtf(x));		/* v_rsq_f16 */
	case 0x180: return hout(in, log2f(x));			/* v_log_f16 */
	case 0x181: return hout(in, exp2f(x));			/* v_exp_f16 */
	case 0x182: return hout(in, isinf(x) || x != x ? x : frexpf(x, &e));	/* v_frexp_mant_f16 */
	case 0x183:						/* v_frexp_exp_i16_f16 */
		e = 0;
		if (!isinf(x) && x == x)
			frexpf(x, &e);
		return (uint32_t)e & 0xffff;
	case 0x184: return hout(in, floorf(x));
	case 0x185: return hout(in, ceilf(x));
	case 0x186: return hout(in, truncf(x));
	case 0x187: return hout(in, nearbyintf(x));
	case 0x188:						/* v_fract_f16 */
		v = isinf(x) ? 0.0f : x - floorf(x);
		/* the largest half below 1 */
		return v >= 1.0f - 0x1p-11f && x == x ? 0x3bffu : hout(in, v);
	case 0x189: return hout(in, sinf(x * 6.2831853071795864769f));
	case 0x18a: return hout(in, cosf(x * 6.2831853071795864769f));
	case 0x18f: {						/* v_sat_pk_u8_i16 */
		int32_t lo = (int16_t)A, hi = (int16_t)(A >> 16);

		lo = lo < 0 ? 0 : lo > 255 ? 255 : lo;
		hi = hi < 0 ? 0 : hi > 255 ? 255 : hi;
		return (uint32_t)lo | (uint32_t)hi << 8;
	}
	case 0x1f4: case 0x1f7: case 0x1fa:		/* v_min3/max3/med3_f16 */
		y = m16(in, 1, B);
		z = m16(in, 2, C);
		v = op == 0x1f4 ? fminf(fminf(x, y), z) : op == 0x1f7 ? fmaxf(fmaxf(x, y), z) :
		    med3f(x, y, z);
		return hout(in, v);
	case 0x1f5: return (uint32_t)(sa < sb ? (sa < sc ? sa : sc) : (sb < sc ? sb : sc)) & 0xffff;
	case 0x1f6: return a < b ? (a < c ? a : c) : (b < c ? b : c);
	case 0x1f8: return (uint32_t)(sa > sb ? (sa > sc ? sa : sc) : (sb > sc ? sb : sc)) & 0xffff;
	case 0x1f9: return a > b ? (a > c ? a : c) : (b > c ? b : c);
	case 0x1fb: return (uint32_t)med3(sa, sb, sc) & 0xffff;
	case 0x1fc: return (uint32_t)med3((int32_t)a, (int32_t)b, (int32_t)c);
	/* the _legacy forms are the same operations without op_sel */
	case 0x204: case 0x1eb: return sat_u16((int64_t)a * b + c, cl);	/* v_mad_u16 */
	case 0x205: case 0x1ec: return sat_i16((int64_t)sa * sb + sc, cl);	/* v_mad_i16 */
	case 0x206: case 0x1ee:					/* v_fma_f16 */
		if (in->omod || cl)
			return hout(in, isa_h2f(fma_h(x, m16(in, 1, B), m16(in, 2, C))));
		return fma_h(x, m16(in, 1, B), m16(in, 2, C));
	case 0x207: case 0x1ef:					/* v_div_fixup_f16 */
		return hout(in, m16(in, 2, C) / m16(in, 1, B));
	}
	return UINT32_MAX;	/* not a 16-bit operation */
}

int isa_valu_op16(struct isa_wave *w, const struct isa_insn *in, struct srcs *s, uint64_t ex)
{
	const uint32_t *A = s->p[0], *B = s->p[1], *C = s->p[2];
	unsigned op = in->op, d = vdst(in) - 256;
	uint32_t r[ISA_LANES];

	if (op == 0x14b) {	/* v_cvt_f32_f16: a signalling NaN comes out quiet */
		LANES(ex) {
			uint32_t v = u32(m16(in, 0, A[l]));

			r[l] = u32(out32(in, f32(v))) | ((v & 0x7f800000u) == 0x7f800000u &&
							 (v & 0x7fffff) ? 0x400000u : 0);
		}
	} else if (op == 0x2a0 || op == 0x296) {
		/* v_pack_b32_f16: two halves side by side; v_cvt_pkrtz_f16_f32:
		 * two floats to halves, rounded toward zero */
		LANES(ex) {
			uint32_t lo, hi;

			if (op == 0x2a0) {	/* the bits move: no NaN is quieted */
				lo = hsel(in, 0, A[l]);
				hi = hsel(in, 1, B[l]);
				lo = (in->abs & 1 ? lo & 0x7fffu : lo) ^ (in->neg & 1 ? 0x8000u : 0);
				hi = (in->abs & 2 ? hi & 0x7fffu : hi) ^ (in->neg & 2 ? 0x8000u : 0);
			} else {
				lo = d2h(m32(in, 0, A[l]), 0, true);
				hi = d2h(m32(in, 1, B[l]), 0, true);
			}
			r[l] = lo | hi << 16;
		}
		write32(w, vdst(in), ex, r);
		return 0;
	} else {
		if (op16(in, op, 0, 0, 0) == UINT32_MAX)
			return -ISA_E_DECODE;	/* a row that names no operation here */
		LANES(ex)
			r[l] = op16(in, op, A[l], B[l], C[l]);
	}
	if (in->fmt == F_VOP3 && (in->opsel & 8) && op != 0x14b)
		LANES(ex) r[l] = (w->v[d][l] & 0xffff) | r[l] << 16;
	write32(w, vdst(in), ex, r);
	return 0;
}

/* ---- VOP3P: packed 16-bit operations and the mixed-precision fma ---- */

/*
 * Packed: the low result takes each source's half chosen by op_sel, the
 * high result the half chosen by op_sel_hi; neg_lo/neg_hi negate the float
 * halves. v_fma_mix*: each source is a float, or (op_sel_hi set) a half
 * chosen by op_sel; neg and abs (the neg_hi field) apply to it; mixlo and
 * mixhi write the half result to one half of the destination and keep the
 * other.
 */
static uint32_t pk(const struct isa_insn *in, const uint32_t v[3], bool hi)
{
	uint32_t a[3] = { 0, 0, 0 }, r;
	unsigned n = in->op == 0x00 || in->op == 0x09 || in->op == 0x0e ? 3 : 2;
	float f[3] = { 0, 0, 0 };
	bool cl = in->clamp;

	for (unsigned i = 0; i < n; i++) {
		a[i] = (hi ? in->opsel_hi : in->opsel) >> i & 1 ? v[i] >> 16 : v[i] & 0xffff;
		f[i] = isa_h2f(a[i] ^ (((hi ? in->abs : in->neg) >> i & 1) ? 0x8000u : 0));
	}
	int32_t s0 = (int16_t)a[0], s1 = (int16_t)a[1];

	switch (in->op) {
	case 0x00: r = sat_i16((int64_t)s0 * s1 + (int16_t)a[2], cl); break;
	case 0x01: r = (a[0] * a[1]) & 0xffff; break;
	case 0x02: r = sat_i16((int64_t)s0 + s1, cl); break;
	case 0x03: r = sat_i16((int64_t)s0 - s1, cl); break;
	case 0x04: r = (a[1] << (a[0] & 15)) & 0xffff; break;
	case 0x05: r = a[1] >> (a[0] & 15); break;
	case 0x06: r = (uint32_t)(s1 >> (a[0] & 15)) & 0xffff; break;
	case 0x07: r = (uint32_t)(s0 > s1 ? s0 : s1) & 0xffff; break;
	case 0x08: r = (uint32_t)(s0 < s1 ? s0 : s1) & 0xffff; break;
	case 0x09: r = sat_u16((int64_t)a[0] * a[1] + a[2], cl); break;
	case 0x0a: r = sat_u16((int64_t)a[0] + a[1], cl); break;
	case 0x0b: r = sat_u16((int64_t)a[0] - a[1], cl); break;
	case 0x0c: r = a[0] > a[1] ? a[0] : a[1]; break;
	case 0x0d: r = a[0] < a[1] ? a[0] : a[1]; break;
	case 0x0e:
		r = fma_h(f[0], f[1], f[2]);
		if (cl)
			r = isa_f2h(fmaxf(0.0f, fminf(1.0f, isa_h2f(r))));
		break;
	default: {
		float x = in->op == 0x0f ? f[0] + f[1] : in->op == 0x10 ? f[0] * f[1] :
			  in->op == 0x11 ? fminf(f[0], f[1]) : fmaxf(f[0], f[1]);

		if (cl)
			x = x != x ? 0.0f : fmaxf(0.0f, fminf(1.0f, x));
		r = isa_f2h(x);
	}
	}
	return r;
}

static float mix_src(const struct isa_insn *in, unsigned i, uint32_t v)
{
	float f;

	if (in->opsel_hi >> i & 1)
		f = isa_h2f(in->opsel >> i & 1 ? v >> 16 : v);
	else
		f = f32(v);
	if (in->abs >> i & 1)
		f = fabsf(f);
	return in->neg >> i & 1 ? -f : f;
}

int isa_h_vop3p16(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in)
{
	uint32_t r[ISA_LANES];
	unsigned d = in->dst - 256;
	uint64_t ex = isa_exec(w);
	struct srcs sb, *s = &sb;

	(void)env;
	for (unsigned i = 0; i < 3; i++)
		read32(w, in, i, s->a[i]);
	LANES(ex) {
		uint32_t v[3] = { s->a[0][l], s->a[1][l], s->a[2][l] };

		if (in->op >= 0x20) {
			float a = mix_src(in, 0, v[0]), b = mix_src(in, 1, v[1]), c = mix_src(in, 2, v[2]);
			uint32_t h;

			if (in->op == 0x20) {
				float x = fmaf(a, b, c);

				if (in->clamp)
					x = x != x ? 0.0f : fmaxf(0.0f, fminf(1.0f, x));
				r[l] = u32(x);
				continue;
			}
			h = fma_h(a, b, c);
			if (in->clamp)
				h = isa_f2h(fmaxf(0.0f, fminf(1.0f, isa_h2f(h))));
			r[l] = in->op == 0x21 ? (w->v[d][l] & 0xffff0000u) | h
					      : (w->v[d][l] & 0xffff) | h << 16;
		} else {
			r[l] = pk(in, v, false) | pk(in, v, true) << 16;
		}
	}
	write32(w, in->dst, ex, r);
	return 0;
}
