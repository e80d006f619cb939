/* SPDX-License-Identifier: MIT */
/*
 * valu.c - vector comparisons, lane moves and AGPR moves, in the VOP3 opcode
 * space (isa.h); the conventions of every vector ALU handler.
 *
 * Each instruction reads its sources for all 64 lanes first, then computes
 * the active lanes (EXEC) and writes them: a VGPR that is both source and
 * destination is read before it is written, as on the hardware. Results of
 * inactive lanes are left alone, except the lane masks VOPC and the carry
 * outs write, whose inactive bits are 0.
 *
 * Floating point is the host's IEEE arithmetic (round to nearest even,
 * denormals kept). Where the hardware approximates (v_rcp, v_rsq, v_sqrt,
 * v_exp, v_log, v_sin, v_cos) the interpreter returns the correctly rounded
 * host value; v_div_scale never scales, v_div_fmas is a plain fma and
 * v_div_fixup returns the IEEE quotient of its operands: see
 * docs/simulator.md for what that changes.
 */
#include "operand.h"

/* v_cmp_class: bit 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0,
 * 6 +0, 7 +denormal, 8 +normal, 9 +inf. */
static bool fclass(double x, bool is_snan, uint32_t mask)
{
	unsigned bit;
	int c = fpclassify(x);
	bool neg = signbit(x);

	if (c == FP_NAN)
		bit = is_snan ? 0 : 1;
	else if (c == FP_INFINITE)
		bit = neg ? 2 : 9;
	else if (c == FP_NORMAL)
		bit = neg ? 3 : 8;
	else if (c == FP_SUBNORMAL)
		bit = neg ? 4 : 7;
	else
		bit = neg ? 5 : 6;
	return mask >> bit & 1;
}

/* a half's bits with VOP3/SDWA/DPP abs and neg, as a float */
static float m16bits(const struct isa_insn *in, unsigned i, uint32_t v)
{
	if (in->abs >> i & 1)
		v &= 0x7fffu;
	if (in->neg >> i & 1)
		v ^= 0x8000u;
	return isa_h2f(v);
}

/* v_cmp_class_f16: the same classes, from the half's own bits (a half
 * denormal is a normal float) */
static bool fclass16(uint32_t h, uint32_t mask)
{
	unsigned e = (h >> 10) & 0x1f, m = h & 0x3ff, bit;
	bool neg = h & 0x8000;

	if (e == 31)
		bit = m ? ((m & 0x200) ? 1 : 0) : neg ? 2 : 9;
	else if (e)
		bit = neg ? 3 : 8;
	else if (m)
		bit = neg ? 4 : 7;
	else
		bit = neg ? 5 : 6;
	return mask >> bit & 1;
}

int isa_h_vopc(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in)
{
	unsigned op = in->op, dst = in->fmt == F_VOPC ? in->sdst : in->dst;
	bool cmpx = isa_ops[in->row].flags & O_CMPX;
	uint64_t r = 0, ex = isa_exec(w);
	struct srcs sb, *s = &sb;

	(void)env;
	if (op == 0x10 || op == 0x11) {			/* v_cmp(x)_class_f32 */
		read32_ex(w, in, 0, s->a[0], ex);
		read32_ex(w, in, 1, s->a[1], ex);
		LANES(ex) {
			uint32_t v = s->a[0][l];
			float f = m32(in, 0, v);

			if (fclass(f, (v & 0x7fc00000u) == 0x7f800000u && (v & 0x7fffff), s->a[1][l]))
				r |= 1ull << l;
		}
	} else if (op == 0x12 || op == 0x13) {		/* v_cmp(x)_class_f64 */
		read64(w, in, 0, true, s->q[0]);
		read32_ex(w, in, 1, s->a[1], ex);
		LANES(ex) {
			uint64_t v = s->q[0][l];

			if (fclass(m64(in, 0, v), ((v >> 51) & 0xfff) == 0xffe && (v & 0x7ffffffffffffull),
				   s->a[1][l]))
				r |= 1ull << l;
		}
	} else if (op == 0x14 || op == 0x15) {		/* v_cmp(x)_class_f16 */
		read32_ex(w, in, 0, s->a[0], ex);
		read32_ex(w, in, 1, s->a[1], ex);
		LANES(ex) {
			uint32_t v = s->a[0][l] & 0xffff;

			v = in->abs & 1 ? v & 0x7fffu : v;
			v = in->neg & 1 ? v ^ 0x8000u : v;
			if (fclass16(v, s->a[1][l]))
				r |= 1ull << l;
		}
	} else if (op >= 0x20 && op < 0x40) {		/* f16 */
		read32_ex(w, in, 0, s->a[0], ex);
		read32_ex(w, in, 1, s->a[1], ex);
		LANES(ex) {
			uint32_t a = s->a[0][l] & 0xffff, b = s->a[1][l] & 0xffff;

			a = in->fmt == F_VOP3 && (in->opsel & 1) ? s->a[0][l] >> 16 : a;
			b = in->fmt == F_VOP3 && (in->opsel & 2) ? s->a[1][l] >> 16 : b;
			if (isa_fcmp(op, m16bits(in, 0, a), m16bits(in, 1, b)))
				r |= 1ull << l;
		}
	} else if (op >= 0x40 && op < 0x60) {		/* f32 */
		read32_ex(w, in, 0, s->a[0], ex);
		read32_ex(w, in, 1, s->a[1], ex);
		LANES(ex)
			if (isa_fcmp(op, m32(in, 0, s->a[0][l]), m32(in, 1, s->a[1][l])))
				r |= 1ull << l;
	} else if (op >= 0x60 && op < 0x80) {		/* f64 */
		read64(w, in, 0, true, s->q[0]);
		read64(w, in, 1, true, s->q[1]);
		LANES(ex)
			if (isa_fcmp(op, m64(in, 0, s->q[0][l]), m64(in, 1, s->q[1][l])))
				r |= 1ull << l;
	} else if (op >= 0xa0 && op < 0xc0) {		/* i16 / u16 */
		bool sgn = (op & 8) == 0;

		read32_ex(w, in, 0, s->a[0], ex);
		read32_ex(w, in, 1, s->a[1], ex);
		LANES(ex) {
			uint32_t a = s->a[0][l] & 0xffff, b = s->a[1][l] & 0xffff;
			int32_t sa = (int16_t)a, sb = (int16_t)b;
			int c = sgn ? (sa > sb) - (sa < sb) : (a > b) - (a < b);

			if (isa_icmp(op, c))
				r |= 1ull << l;
		}
	} else if (op >= 0xc0 && op < 0xe0) {		/* i32 / u32 */
		bool sgn = (op & 8) == 0;

		read32_ex(w, in, 0, s->a[0], ex);
		read32_ex(w, in, 1, s->a[1], ex);
		LANES(ex) {
			uint32_t a = s->a[0][l], b = s->a[1][l];
			int c = sgn ? ((int32_t)a > (int32_t)b) - ((int32_t)a < (int32_t)b) : (a > b) - (a < b);

			if (isa_icmp(op, c))
				r |= 1ull << l;
		}
	} else if (op >= 0xe0) {			/* i64 / u64 */
		bool sgn = (op & 8) == 0;

		read64(w, in, 0, false, s->q[0]);
		read64(w, in, 1, false, s->q[1]);
		LANES(ex) {
			uint64_t a = s->q[0][l], b = s->q[1][l];
			int c = sgn ? ((int64_t)a > (int64_t)b) - ((int64_t)a < (int64_t)b) : (a > b) - (a < b);

			if (isa_icmp(op, c))
				r |= 1ull << l;
		}
	} else {
		return -ISA_E_DECODE;
	}
	isa_swrite64(w, dst, r);
	if (cmpx)
		isa_swrite64(w, ISA_EXEC_LO, r);
	return 0;
}

/* Lane moves: readfirstlane, readlane, writelane. */
int isa_h_lanes(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in)
{
	unsigned src = in->src[0];
	uint64_t ex = isa_exec(w);

	(void)env;
	if (in->op == 0x142 || in->op == 0x289) {
		unsigned lane = 0;
		uint32_t v;

		if (in->op == 0x142)
			lane = ex ? (unsigned)__builtin_ctzll(ex) : 0;
		else
			lane = isa_sreg32(w, in, in->src[1]) & 63;
		v = src >= 256 ? w->v[src - 256][lane] : isa_sreg32(w, in, src);
		isa_swrite32(w, in->dst, v);
		return 0;
	}
	/* v_writelane_b32: one lane, whatever EXEC says */
	if (in->dst < ISA_NVGPR)
		w->v[in->dst][isa_sreg32(w, in, in->src[1]) & 63] = isa_sreg32(w, in, src);
	return 0;
}

/* v_accvgpr_read_b32 (AGPR -> VGPR), v_accvgpr_write_b32 (-> AGPR) */
int isa_h_accvgpr(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in)
{
	unsigned d = in->dst - 256;
	uint64_t ex = isa_exec(w);
	uint32_t buf[ISA_LANES];

	(void)env;
	if (in->op == 0x58) {
		unsigned a = in->src[0] >= 256 ? in->src[0] - 256u : 0;

		LANES(ex) w->v[d][l] = w->acc[a][l];
	} else {
		const uint32_t *v = src32(w, in, 0, buf);

		LANES(ex) w->acc[d][l] = v[l];
	}
	return 0;
}

/* v_nop */
int isa_h_vnop(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in)
{
	(void)w;
	(void)env;
	(void)in;
	return 0;
}

/* The row's own handler on the staged operands, for the lanes of en (EXEC
 * for the call; a cmpx's new EXEC stays). */
static int run_row(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *x,
		   uint64_t en)
{
	uint64_t ex = isa_exec(w);
	int err;

	isa_swrite64(w, ISA_EXEC_LO, en);
	err = isa_ops[x->row].fn(w, env, x);
	if (!(isa_ops[x->row].flags & O_CMPX))
		isa_swrite64(w, ISA_EXEC_LO, ex);
	return err;
}

/*
 * DPP: lane l of src0 is read from another lane of the same VGPR. Rows are
 * 16 lanes, banks 4 lanes of a row; a lane whose row or bank is off in
 * row_mask/bank_mask is not written. A lane whose source lane is out of
 * range (past its row for the row shifts, past the wave for the wave
 * shifts, row 0 for row_bcast:15, rows 0-1 for row_bcast:31) or off in
 * EXEC reads 0 with bound_ctrl set, and is not written without it.
 * Returns the source lane, or -1 for out of range.
 */
static int dpp_lane(unsigned ctrl, unsigned l)
{
	unsigned row = l & ~15u, r = l & 15, n = ctrl & 15;

	if (ctrl <= 0xff)				/* quad_perm */
		return (int)((l & ~3u) | ((ctrl >> (2 * (l & 3))) & 3));
	if (ctrl >= 0x101 && ctrl <= 0x10f)		/* row_shl */
		return r + n < 16 ? (int)(l + n) : -1;
	if (ctrl >= 0x111 && ctrl <= 0x11f)		/* row_shr */
		return r >= n ? (int)(l - n) : -1;
	if (ctrl >= 0x121 && ctrl <= 0x12f)		/* row_ror */
		return (int)(row | ((r - n) & 15));
	switch (ctrl) {
	case 0x130: return l < 63 ? (int)l + 1 : -1;	/* wave_shl:1 */
	case 0x134: return (int)((l + 1) & 63);	/* wave_rol:1 */
	case 0x138: return l > 0 ? (int)l - 1 : -1;	/* wave_shr:1 */
	case 0x13c: return (int)((l - 1) & 63);	/* wave_ror:1 */
	case 0x140: return (int)(row | (15 - r));	/* row_mirror */
	case 0x141: return (int)((l & ~7u) | (7 - (l & 7)));	/* row_half_mirror */
	case 0x142: return l >= 16 ? (int)row - 1 : -1;	/* row_bcast:15 */
	default: return l >= 32 ? 31 : -1;		/* row_bcast:31 */
	}
}

int isa_h_dpp(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in)
{
	struct isa_insn x = *in;
	uint64_t ex = isa_exec(w);
	uint32_t *t = w->v[ISA_NVGPR];
	const uint32_t *src = w->v[in->src[0] - 256];
	uint64_t en = 0;

	LANES(ex) {
		int from;

		if (!(in->row_mask >> (l >> 4) & 1) || !(in->bank_mask >> ((l >> 2) & 3) & 1))
			continue;
		from = dpp_lane(in->dpp_ctrl, (unsigned)l);
		if (from >= 0 && (ex >> from & 1)) {
			t[l] = src[from];
		} else if (in->bound_ctrl) {
			t[l] = 0;
		} else {
			continue;
		}
		en |= 1ull << l;
	}
	x.src[0] = 256 + ISA_NVGPR;
	return run_row(w, env, &x, en);
}

/* SDWA: each source is its selected byte or word, zero- or sign-extended;
 * the result's low byte or word goes to the destination's selected one,
 * the other bits zero (pad), the sign of the result's selected part
 * above it (sext), or the destination's own (preserve). */
static uint32_t sdwa_src(uint32_t v, unsigned sel, bool sext)
{
	if (sel <= SEL_BYTE3) {
		v = (v >> (8 * sel)) & 0xff;
		return sext ? (uint32_t)(int32_t)(int8_t)v : v;
	}
	if (sel <= SEL_WORD1) {
		v = (v >> (16 * (sel - SEL_WORD0))) & 0xffff;
		return sext ? (uint32_t)(int32_t)(int16_t)v : v;
	}
	return v;
}

static uint32_t sdwa_dst(uint32_t r, uint32_t old, unsigned sel, unsigned unused)
{
	unsigned sh, bits;
	uint32_t mask, v;

	if (sel == SEL_DWORD)
		return r;
	sh = sel <= SEL_BYTE3 ? 8 * sel : 16 * (sel - SEL_WORD0);
	bits = sel <= SEL_BYTE3 ? 8 : 16;
	mask = ((1u << bits) - 1) << sh;
	v = (r << sh) & mask;
	if (unused == UNUSED_PRESERVE)
		return v | (old & ~mask);
	if (unused == UNUSED_SEXT && (r >> (bits - 1) & 1) && sh + bits < 32)
		v |= ~0u << (sh + bits);
	return v;
}

int isa_h_sdwa(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in)
{
	struct isa_insn x = *in;
	uint64_t ex = isa_exec(w);
	unsigned n = in->fmt == F_VOP1 ? 1 : 2, d = in->dst - 256;
	uint32_t *td = w->v[ISA_NVGPR + 2];
	int err;

	for (unsigned i = 0; i < n; i++) {
		uint32_t *t = w->v[ISA_NVGPR + i];

		read32(w, in, i, t);
		LANES(ex)
			t[l] = sdwa_src(t[l], in->sel[i], in->sext >> i & 1);
		x.src[i] = (uint16_t)(256 + ISA_NVGPR + i);
	}
	if (in->fmt == F_VOPC || in->dst_sel == SEL_DWORD)
		return run_row(w, env, &x, ex);
	/* the old value too: v_mac reads its destination */
	memcpy(td, w->v[d], sizeof(w->v[0]));
	x.dst = (uint16_t)(256 + ISA_NVGPR + 2);
	err = run_row(w, env, &x, ex);
	if (!err)
		LANES(ex)
			w->v[d][l] = sdwa_dst(td[l], w->v[d][l], in->dst_sel, in->dst_unused);
	return err;
}
