/* SPDX-License-Identifier: MIT */
/*
 * valu_ops.c - vector ALU operations with a 32-bit or a 64-bit result, in
 * the VOP3 opcode space (isa.h); see valu.c for the conventions and
 * docs/simulator.md for where the float results differ from the hardware.
 */
#include "operand.h"

/* The fraction bits of 2/pi, most significant first (1201 bits, then
 * zeroes), for v_trig_preop_f64: the range reduction of double sin/cos. */
static const uint32_t two_by_pi[] = {
	0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041,
	0xfe5163ab, 0xdebbc561, 0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c,
	0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484, 0xe99c7026, 0xb45f7e41,
	0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
	0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d,
	0x7527bac7, 0xebe5f17b, 0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08,
	0x56033046, 0xfc7b0000,
};

/* The 53 bits of 2/pi from bit `shift` on (shift 53 * segment, plus what a
 * large exponent adds), scaled to their place. */
static double trig_preop(double x, uint32_t seg)
{
	uint64_t bits = u64(x), hi, lo;
	unsigned e = (unsigned)(bits >> 52) & 0x7ff, shift = (seg & 31) * 53, idx, b;
	int scale;

	if (e > 1077)
		shift += e - 1077;
	idx = shift >> 5;
	if (idx + 2 >= sizeof(two_by_pi) / sizeof(two_by_pi[0]))
		return 0.0;
	b = shift & 31;
	hi = (uint64_t)two_by_pi[idx] << 32 | two_by_pi[idx + 1];
	lo = (uint64_t)two_by_pi[idx + 2] << 32;
	if (b)
		hi = hi << b | lo >> (64 - b);
	scale = -53 - (int)shift;
	if (e >= 1968)
		scale += 128;
	return ldexp((double)(hi >> 11), scale);
}

/* Operations with a 64-bit result (a VGPR pair). */
int isa_h_valu64(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in)
{
	struct srcs sb, *s = &sb;
	uint64_t *r = s->q[2];
	uint64_t carry = 0, ex = isa_exec(w);

	(void)env;
	switch (in->op) {
	case 0x104: /* v_fmac_f64 */
		read64(w, in, 0, true, s->q[0]);
		read64(w, in, 1, true, s->q[1]);
		read64(w, in, 2, true, s->q[2]);
		{
			uint64_t d[ISA_LANES];
			struct isa_insn t = *in;

			t.src[2] = (uint16_t)vdst(in);
			read64(w, &t, 2, true, d);
			LANES(ex)
				r[l] = u64(out64(in, fma(m64(in, 0, s->q[0][l]), m64(in, 1, s->q[1][l]),
							  m64(in, 2, d[l]))));
		}
		break;
	case 0x144: read32(w, in, 0, s->a[0]); LANES(ex) r[l] = u64((double)(int32_t)s->a[0][l]); break;
	case 0x150: read32(w, in, 0, s->a[0]); LANES(ex) r[l] = u64(out64(in, (double)m32(in, 0, s->a[0][l]))); break;
	case 0x156: read32(w, in, 0, s->a[0]); LANES(ex) r[l] = u64((double)s->a[0][l]); break;
	case 0x157: case 0x158: case 0x159: case 0x15a: case 0x165: case 0x166: case 0x168:
	case 0x171: case 0x172:
		read64(w, in, 0, true, s->q[0]);
		LANES(ex) {
			double a = m64(in, 0, s->q[0][l]), v;
			int e;

			switch (in->op) {
			case 0x157: v = trunc(a); break;
			case 0x158: v = ceil(a); break;
			case 0x159: v = nearbyint(a); break;
			case 0x15a: v = floor(a); break;
			case 0x165: v = 1.0 / a; break;
			case 0x166: v = 1.0 / sqrt(a); break;
			case 0x168: v = sqrt(a); break;
			case 0x171: v = isinf(a) || a != a ? a : frexp(a, &e); break;
			default: v = isinf(a) ? 0.0 : a - floor(a); if (v >= 1.0) v = nextafter(1.0, 0.0); break;
			}
			r[l] = u64(out64(in, v));
		}
		break;
	case 0x1cc: case 0x1e3: /* v_fma_f64, v_div_fmas_f64 */
		read64(w, in, 0, true, s->q[0]);
		read64(w, in, 1, true, s->q[1]);
		read64(w, in, 2, true, s->q[2]);
		LANES(ex)
			r[l] = u64(out64(in, fma(m64(in, 0, s->q[0][l]), m64(in, 1, s->q[1][l]),
						  m64(in, 2, s->q[2][l]))));
		break;
	case 0x1df: /* v_div_fixup_f64: the IEEE quotient num / den */
		read64(w, in, 1, true, s->q[1]);
		read64(w, in, 2, true, s->q[2]);
		LANES(ex)
			r[l] = u64(out64(in, m64(in, 2, s->q[2][l]) / m64(in, 1, s->q[1][l])));
		break;
	case 0x1e1: /* v_div_scale_f64: never scales */
		read64(w, in, 0, true, s->q[0]);
		LANES(ex) r[l] = u64(m64(in, 0, s->q[0][l]));
		isa_swrite64(w, in->sdst, 0);
		break;
	case 0x1e8: case 0x1e9: /* v_mad_u64_u32, v_mad_i64_i32 */
		read32(w, in, 0, s->a[0]);
		read32(w, in, 1, s->a[1]);
		read64(w, in, 2, false, s->q[0]);
		LANES(ex) {
			if (in->op == 0x1e8) {
				unsigned __int128 t = (unsigned __int128)((uint64_t)s->a[0][l] * s->a[1][l]) + s->q[0][l];

				r[l] = (uint64_t)t;
				if (t >> 64)
					carry |= 1ull << l;
			} else {
				__int128 t = (__int128)((int64_t)(int32_t)s->a[0][l] * (int32_t)s->a[1][l]) +
					     (int64_t)s->q[0][l];

				r[l] = (uint64_t)t;
				if (t > INT64_MAX || t < INT64_MIN)
					carry |= 1ull << l;
			}
		}
		isa_swrite64(w, in->sdst, carry);
		break;
	case 0x280: case 0x281: case 0x282: case 0x283:
		read64(w, in, 0, true, s->q[0]);
		read64(w, in, 1, true, s->q[1]);
		LANES(ex) {
			double a = m64(in, 0, s->q[0][l]), b = m64(in, 1, s->q[1][l]), v;

			switch (in->op) {
			case 0x280: v = a + b; break;
			case 0x281: v = a * b; break;
			case 0x282: v = fmin(a, b); break;
			default: v = fmax(a, b); break;
			}
			r[l] = u64(out64(in, v));
		}
		break;
	case 0x284: /* v_ldexp_f64 */
		read64(w, in, 0, true, s->q[0]);
		read32(w, in, 1, s->a[1]);
		LANES(ex) r[l] = u64(out64(in, ldexp(m64(in, 0, s->q[0][l]), (int32_t)s->a[1][l])));
		break;
	case 0x292: /* v_trig_preop_f64 */
		read64(w, in, 0, true, s->q[0]);
		read32(w, in, 1, s->a[1]);
		LANES(ex) r[l] = u64(out64(in, trig_preop(m64(in, 0, s->q[0][l]), s->a[1][l])));
		break;
	case 0x28f: case 0x290: case 0x291: /* 64-bit shifts: amount first */
		read32(w, in, 0, s->a[0]);
		read64(w, in, 1, false, s->q[1]);
		LANES(ex) {
			unsigned sh = s->a[0][l] & 63;
			uint64_t b = s->q[1][l];

			r[l] = in->op == 0x28f ? b << sh : in->op == 0x290 ? b >> sh :
			       (uint64_t)((int64_t)b >> sh);
		}
		break;
	default:
		return -ISA_E_DECODE;
	}
	write64(w, vdst(in), ex, r);
	return 0;
}

static uint32_t med3u(uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t mx = a > b ? a : b, mn = a < b ? a : b;

	return c > mx ? mx : c < mn ? mn : c;
}

static int32_t med3i(int32_t a, int32_t b, int32_t c)
{
	int32_t mx = a > b ? a : b, mn = a < b ? a : b;

	return c > mx ? mx : c < mn ? mn : c;
}

/* Operations with a 32-bit result: the general form, modifiers and all
 * (valu_wave.c's handlers come here when a modifier is on). VOP1 reads one
 * source, VOP2 two; VOP3 as its opcode range says; 64-bit sources are
 * read where noted. */
int isa_h_valu32(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in)
{
	struct srcs sb, *s = &sb;
	unsigned op = in->op, n = in->fmt == F_VOP1 || (op >= 0x140 && op < 0x1c0) ? 1 :
				   in->fmt == F_VOP2 || op < 0x140 ? 2 : 3;
	uint32_t r[ISA_LANES];
	uint64_t carry = 0, cin = 0, ex = isa_exec(w);

	(void)env;
	for (unsigned i = 0; i < 3; i++)
		s->p[i] = i < n ? src32_ex(w, in, i, s->a[i], ex) : s->a[i];
	const uint32_t *A = s->p[0], *B = s->p[1], *C = s->p[2];

	switch (op) {
	case 0x100: /* v_cndmask_b32: VCC, or an SGPR pair in VOP3 */
		cin = in->fmt == F_VOP3 ? isa_sreg64(w, in, in->src[2], false) : isa_vcc(w);
		LANES(ex) {
			uint32_t a = A[l], b = B[l];

			if (in->fmt == F_VOP3) {	/* abs/neg act on the bits */
				a = in->abs & 1 ? a & 0x7fffffffu : a;
				a = in->neg & 1 ? a ^ 0x80000000u : a;
				b = in->abs & 2 ? b & 0x7fffffffu : b;
				b = in->neg & 2 ? b ^ 0x80000000u : b;
			}
			r[l] = (cin >> l & 1) ? b : a;
		}
		break;
	case 0x101: LANES(ex) r[l] = u32(out32(in, m32(in, 0, A[l]) + m32(in, 1, B[l]))); break;
	case 0x102: LANES(ex) r[l] = u32(out32(in, m32(in, 0, A[l]) - m32(in, 1, B[l]))); break;
	case 0x103: LANES(ex) r[l] = u32(out32(in, m32(in, 1, B[l]) - m32(in, 0, A[l]))); break;
	case 0x105: LANES(ex) r[l] = u32(out32(in, m32(in, 0, A[l]) * m32(in, 1, B[l]))); break;
	case 0x106: LANES(ex) r[l] = (uint32_t)((int64_t)((int32_t)(A[l] << 8) >> 8) * ((int32_t)(B[l] << 8) >> 8)); break;
	case 0x107: LANES(ex) r[l] = (uint32_t)(((int64_t)((int32_t)(A[l] << 8) >> 8) * ((int32_t)(B[l] << 8) >> 8)) >> 32); break;
	case 0x108: LANES(ex) r[l] = (A[l] & 0xffffff) * (B[l] & 0xffffff); break;
	case 0x109: LANES(ex) r[l] = (uint32_t)(((uint64_t)(A[l] & 0xffffff) * (B[l] & 0xffffff)) >> 32); break;
	case 0x10a: LANES(ex) r[l] = u32(out32(in, fminf(m32(in, 0, A[l]), m32(in, 1, B[l])))); break;
	case 0x10b: LANES(ex) r[l] = u32(out32(in, fmaxf(m32(in, 0, A[l]), m32(in, 1, B[l])))); break;
	case 0x10c: LANES(ex) r[l] = (int32_t)A[l] < (int32_t)B[l] ? A[l] : B[l]; break;
	case 0x10d: LANES(ex) r[l] = (int32_t)A[l] > (int32_t)B[l] ? A[l] : B[l]; break;
	case 0x10e: LANES(ex) r[l] = A[l] < B[l] ? A[l] : B[l]; break;
	case 0x10f: LANES(ex) r[l] = A[l] > B[l] ? A[l] : B[l]; break;
	case 0x110: LANES(ex) r[l] = B[l] >> (A[l] & 31); break;
	case 0x111: LANES(ex) r[l] = (uint32_t)((int32_t)B[l] >> (A[l] & 31)); break;
	case 0x112: LANES(ex) r[l] = B[l] << (A[l] & 31); break;
	case 0x113: LANES(ex) r[l] = A[l] & B[l]; break;
	case 0x114: LANES(ex) r[l] = A[l] | B[l]; break;
	case 0x115: LANES(ex) r[l] = A[l] ^ B[l]; break;
	case 0x13d: LANES(ex) r[l] = ~(A[l] ^ B[l]); break;
	case 0x116: case 0x13b: /* v_mac_f32, v_fmac_f32: d = a * b + d */
		LANES(ex) {
			float d = f32(w->v[vdst(in) - 256][l]);

			r[l] = u32(out32(in, op == 0x13b ? fmaf(m32(in, 0, A[l]), m32(in, 1, B[l]), d)
							 : m32(in, 0, A[l]) * m32(in, 1, B[l]) + d));
		}
		break;
	case 0x117: LANES(ex) r[l] = u32(f32(A[l]) * f32(in->lit) + f32(B[l])); break;
	case 0x118: LANES(ex) r[l] = u32(f32(A[l]) * f32(B[l]) + f32(in->lit)); break;
	case 0x119: case 0x11a: case 0x11b: case 0x11c: case 0x11d: case 0x11e: {
		unsigned sd = in->fmt == F_VOP3 ? in->sdst : ISA_VCC_LO;

		if (op >= 0x11c)
			cin = in->fmt == F_VOP3 ? isa_sreg64(w, in, in->src[2], false) : isa_vcc(w);
		LANES(ex) {
			uint64_t a = A[l], b = B[l], c = cin >> l & 1, t;

			if (op == 0x11b || op == 0x11e) {
				t = a;
				a = b;
				b = t;
			}
			if (op == 0x119 || op == 0x11c)
				t = a + b + c;
			else
				t = a - b - c;
			r[l] = (uint32_t)t;
			if (t >> 32)
				carry |= 1ull << l;
		}
		isa_swrite64(w, sd, carry);
		break;
	}
	case 0x134: LANES(ex) r[l] = A[l] + B[l]; break;
	case 0x135: LANES(ex) r[l] = A[l] - B[l]; break;
	case 0x136: LANES(ex) r[l] = B[l] - A[l]; break;
	case 0x141: LANES(ex) r[l] = A[l]; break;		/* v_mov_b32 */
	case 0x143: read64(w, in, 0, true, s->q[0]); LANES(ex) r[l] = isa_cvt_i32(m64(in, 0, s->q[0][l])); break;
	case 0x145: LANES(ex) r[l] = u32(out32(in, (float)(int32_t)A[l])); break;
	case 0x146: LANES(ex) r[l] = u32(out32(in, (float)A[l])); break;
	case 0x147: LANES(ex) r[l] = isa_cvt_u32(m32(in, 0, A[l])); break;
	case 0x148: LANES(ex) r[l] = isa_cvt_i32(m32(in, 0, A[l])); break;
	case 0x14f: read64(w, in, 0, true, s->q[0]); LANES(ex) r[l] = u32(out32(in, (float)m64(in, 0, s->q[0][l]))); break;
	case 0x151: case 0x152: case 0x153: case 0x154:
		LANES(ex) r[l] = u32((float)((A[l] >> (8 * (op - 0x151))) & 0xff));
		break;
	case 0x155: read64(w, in, 0, true, s->q[0]); LANES(ex) r[l] = isa_cvt_u32(m64(in, 0, s->q[0][l])); break;
	case 0x15b: case 0x15c: case 0x15d: case 0x15e: case 0x15f: case 0x160: case 0x161:
	case 0x162: case 0x163: case 0x164: case 0x167: case 0x169: case 0x16a: case 0x174:
		LANES(ex) {
			float a = m32(in, 0, A[l]), v;
			int e;

			switch (op) {
			case 0x15b: v = isinf(a) ? 0.0f : a - floorf(a); if (v >= 1.0f) v = nextafterf(1.0f, 0.0f); break;
			case 0x15c: v = truncf(a); break;
			case 0x15d: v = ceilf(a); break;
			case 0x15e: v = nearbyintf(a); break;
			case 0x15f: v = floorf(a); break;
			case 0x160: v = exp2f(a); break;
			case 0x161: v = log2f(a); break;
			case 0x162: case 0x163: v = 1.0f / a; break;
			case 0x164: v = 1.0f / sqrtf(a); break;
			case 0x167: v = sqrtf(a); break;
			case 0x169: v = sinf(a * 6.2831853071795864769f); break;
			case 0x16a: v = cosf(a * 6.2831853071795864769f); break;
			default: v = isinf(a) || a != a ? a : frexpf(a, &e); break;
			}
			r[l] = u32(out32(in, v));
		}
		break;
	case 0x16b: LANES(ex) r[l] = ~A[l]; break;
	case 0x16c: LANES(ex) {
			uint32_t v = 0;

			for (int i = 0; i < 32; i++)
				v |= ((A[l] >> i) & 1u) << (31 - i);
			r[l] = v;
		}
		break;
	case 0x16d: LANES(ex) r[l] = A[l] ? (uint32_t)__builtin_clz(A[l]) : ~0u; break;
	case 0x16e: LANES(ex) r[l] = A[l] ? (uint32_t)__builtin_ctz(A[l]) : ~0u; break;
	case 0x16f: LANES(ex) {
			uint32_t v = (int32_t)A[l] < 0 ? ~A[l] : A[l];

			r[l] = (A[l] == 0 || A[l] == ~0u) ? ~0u : (uint32_t)__builtin_clz(v);
		}
		break;
	case 0x170: read64(w, in, 0, true, s->q[0]);
		LANES(ex) {
			double a = m64(in, 0, s->q[0][l]);
			int e = 0;

			if (!isinf(a) && a == a)
				frexp(a, &e);
			r[l] = (uint32_t)e;
		}
		break;
	case 0x173: LANES(ex) {
			float a = m32(in, 0, A[l]);
			int e = 0;

			if (!isinf(a) && a == a)
				frexpf(a, &e);
			r[l] = (uint32_t)e;
		}
		break;
	case 0x1c1: LANES(ex) r[l] = u32(out32(in, m32(in, 0, A[l]) * m32(in, 1, B[l]) + m32(in, 2, C[l]))); break;
	case 0x1c2: LANES(ex) r[l] = (uint32_t)((int32_t)(A[l] << 8) >> 8) * (uint32_t)((int32_t)(B[l] << 8) >> 8) + C[l]; break;
	case 0x1c3: LANES(ex) r[l] = (A[l] & 0xffffff) * (B[l] & 0xffffff) + C[l]; break;
	case 0x1c8: LANES(ex) {
			unsigned off = B[l] & 31, wd = C[l] & 31;

			r[l] = wd == 0 ? 0 : off + wd >= 32 ? A[l] >> off : (A[l] >> off) & ((1u << wd) - 1);
		}
		break;
	case 0x1c9: LANES(ex) {
			unsigned off = B[l] & 31, wd = C[l] & 31;

			if (wd == 0)
				r[l] = 0;
			else if (off + wd >= 32)
				r[l] = (uint32_t)((int32_t)A[l] >> off);
			else
				r[l] = (uint32_t)((int32_t)(A[l] << (32 - off - wd)) >> (32 - wd));
		}
		break;
	case 0x1ca: LANES(ex) r[l] = (A[l] & B[l]) | (~A[l] & C[l]); break;
	case 0x1cb: case 0x1e2: /* v_fma_f32, v_div_fmas_f32 */
		LANES(ex) r[l] = u32(out32(in, fmaf(m32(in, 0, A[l]), m32(in, 1, B[l]), m32(in, 2, C[l]))));
		break;
	case 0x1ce: LANES(ex) r[l] = (uint32_t)((((uint64_t)A[l] << 32) | B[l]) >> (C[l] & 31)); break;
	case 0x1cf: LANES(ex) r[l] = (uint32_t)((((uint64_t)A[l] << 32) | B[l]) >> (8 * (C[l] & 3))); break;
	case 0x1ed: LANES(ex) {	/* v_perm_b32: each byte picked from {A, B} by C's byte */
			uint64_t d = ((uint64_t)A[l] << 32) | B[l];
			uint32_t v = 0;

			for (unsigned i = 0; i < 4; i++) {
				unsigned sel = C[l] >> (8 * i) & 0xff;
				uint32_t b = sel >= 13 ? 0xff : sel == 12 ? 0
					   : sel >= 8 ? ((d >> (16 * (sel - 8) + 15) & 1) ? 0xff : 0)
					   : (uint32_t)(d >> (8 * sel) & 0xff);

				v |= b << (8 * i);
			}
			r[l] = v;
		}
		break;
	case 0x1d0: LANES(ex) r[l] = u32(out32(in, fminf(fminf(m32(in, 0, A[l]), m32(in, 1, B[l])), m32(in, 2, C[l])))); break;
	case 0x1d3: LANES(ex) r[l] = u32(out32(in, fmaxf(fmaxf(m32(in, 0, A[l]), m32(in, 1, B[l])), m32(in, 2, C[l])))); break;
	case 0x1d1: LANES(ex) { int32_t a = (int32_t)A[l], b = (int32_t)B[l], c = (int32_t)C[l]; a = a < b ? a : b; r[l] = (uint32_t)(a < c ? a : c); } break;
	case 0x1d2: LANES(ex) { uint32_t a = A[l] < B[l] ? A[l] : B[l]; r[l] = a < C[l] ? a : C[l]; } break;
	case 0x1d4: LANES(ex) { int32_t a = (int32_t)A[l], b = (int32_t)B[l], c = (int32_t)C[l]; a = a > b ? a : b; r[l] = (uint32_t)(a > c ? a : c); } break;
	case 0x1d5: LANES(ex) { uint32_t a = A[l] > B[l] ? A[l] : B[l]; r[l] = a > C[l] ? a : C[l]; } break;
	case 0x1d6: LANES(ex) {
			float a = m32(in, 0, A[l]), b = m32(in, 1, B[l]), c = m32(in, 2, C[l]);
			float mx = fmaxf(a, b), mn = fminf(a, b);

			r[l] = u32(out32(in, fmaxf(mn, fminf(mx, c))));
		}
		break;
	case 0x1d7: LANES(ex) r[l] = (uint32_t)med3i((int32_t)A[l], (int32_t)B[l], (int32_t)C[l]); break;
	case 0x1d8: LANES(ex) r[l] = med3u(A[l], B[l], C[l]); break;
	case 0x1de: /* v_div_fixup_f32: the IEEE quotient num / den */
		LANES(ex) r[l] = u32(out32(in, m32(in, 2, C[l]) / m32(in, 1, B[l])));
		break;
	case 0x1e0: /* v_div_scale_f32: never scales */
		LANES(ex) r[l] = u32(m32(in, 0, A[l]));
		isa_swrite64(w, in->sdst, 0);
		break;
	case 0x1dc: LANES(ex) r[l] = (A[l] > B[l] ? A[l] - B[l] : B[l] - A[l]) + C[l]; break;	/* v_sad_u32 */
	case 0x1f3: LANES(ex) r[l] = (A[l] ^ B[l]) + C[l]; break;	/* v_xad_u32 */
	case 0x29c: LANES(ex) r[l] = A[l] + B[l]; break;		/* v_add_i32 (no clamp) */
	case 0x29d: LANES(ex) r[l] = A[l] - B[l]; break;		/* v_sub_i32 (no clamp) */
	case 0x1fd: LANES(ex) r[l] = (A[l] << (B[l] & 31)) + C[l]; break;
	case 0x1fe: LANES(ex) r[l] = (A[l] + B[l]) << (C[l] & 31); break;
	case 0x1ff: LANES(ex) r[l] = A[l] + B[l] + C[l]; break;
	case 0x200: LANES(ex) r[l] = (A[l] << (B[l] & 31)) | C[l]; break;
	case 0x201: LANES(ex) r[l] = (A[l] & B[l]) | C[l]; break;
	case 0x202: LANES(ex) r[l] = A[l] | B[l] | C[l]; break;
	case 0x285: LANES(ex) r[l] = A[l] * B[l]; break;
	case 0x286: LANES(ex) r[l] = (uint32_t)(((uint64_t)A[l] * B[l]) >> 32); break;
	case 0x287: LANES(ex) r[l] = (uint32_t)(((int64_t)(int32_t)A[l] * (int32_t)B[l]) >> 32); break;
	case 0x288: LANES(ex) r[l] = u32(out32(in, ldexpf(m32(in, 0, A[l]), (int32_t)B[l]))); break;
	case 0x28b: LANES(ex) r[l] = (uint32_t)__builtin_popcount(A[l]) + B[l]; break;
	case 0x28c: case 0x28d: /* v_mbcnt_lo/hi_u32_b32 */
		LANES(ex) {
			uint64_t below = l ? (~0ull >> (64 - l)) : 0;
			uint32_t m = op == 0x28c ? (uint32_t)below : (uint32_t)(below >> 32);

			r[l] = (uint32_t)__builtin_popcount(A[l] & m) + B[l];
		}
		break;
	case 0x293: LANES(ex) r[l] = ((1u << (A[l] & 31)) - 1) << (B[l] & 31); break;
	default:
		return isa_valu_op16(w, in, s, ex);
	}
	write32(w, vdst(in), ex, r);
	return 0;
}
