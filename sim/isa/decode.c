/* SPDX-License-Identifier: MIT */
/*
 * decode.c - gfx90a instruction words to struct isa_insn.
 *
 * The format is told by the top bits of the first dword, most specific
 * first (SOP1/SOPC/SOPP share SOP2's top bits, SOPK too). A source operand
 * of 255 pulls in a 32-bit literal dword after the instruction (one per
 * instruction). VOP1, VOP2 and VOPC with src0 250 (DPP) or 249 (SDWA)
 * carry a second dword instead, with the real src0 and the lane or
 * sub-dword controls (ext_word). MTBUF and EXP are not decoded, nor MIMG
 * with AGPR data, LWE, A16 or D16: a kernel that has one falls back to the
 * buffer-touch model.
 *
 * Then the instruction is bound to its row of the opcode table (ops.def):
 * the handler that runs it, chosen here once, and the float modifiers
 * turned into per-source masks (isa.h), so that no handler tests them per
 * lane.
 */
#include "isa.h"

#include <string.h>

static uint32_t word(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static int need_lit(struct isa_insn *in, unsigned src, const uint8_t *code, size_t len,
		    unsigned at)
{
	if (src != 255 || in->words > at)
		return 0;
	if (len < (size_t)(at + 1) * 4)
		return -ISA_E_DECODE;
	in->lit = word(code + 4 * at);
	in->words = at + 1;
	return 0;
}

static int lits(struct isa_insn *in, unsigned n, const uint8_t *code, size_t len)
{
	unsigned base = in->words;

	for (unsigned i = 0; i < n; i++) {
		if (in->src[i] == 249 || in->src[i] == 250)
			return -ISA_E_DECODE;	/* SDWA, DPP */
		if (need_lit(in, in->src[i], code, len, base))
			return -ISA_E_DECODE;
	}
	return 0;
}

/* VOP3 and VOP3P take no literal on gfx9 (nor SDWA/DPP). */
static int no_lit(const struct isa_insn *in)
{
	for (unsigned i = 0; i < 3; i++)
		if (in->src[i] == 255 || in->src[i] == 249 || in->src[i] == 250)
			return -ISA_E_DECODE;
	return 0;
}

/*
 * The DPP or SDWA dword of a VOP1/VOP2/VOPC (gfx9 layouts):
 *   DPP:  src0 [7:0] (a VGPR), dpp_ctrl [16:8], bound_ctrl [19], src0
 *         neg/abs [20]/[21], src1 neg/abs [22]/[23], bank_mask [27:24],
 *         row_mask [31:28].
 *   SDWA: src0 [7:0], dst_sel [10:8], dst_unused [12:11], clamp [13], omod
 *         [15:14] (VOPC: sdst [14:8] and its enable [15] instead), src0_sel
 *         [18:16], sext [19], neg [20], abs [21], src0 is an SGPR or constant
 *         [23]; src1_sel [26:24], sext [27], neg [28], abs [29], src1 (the
 *         first dword's VGPR field) is an SGPR [31].
 * No literal can follow: the dword takes its place.
 */
static int ext_word(struct isa_insn *in, const uint8_t *code, size_t len)
{
	uint32_t d;

	if (in->src[0] != 249 && in->src[0] != 250)
		return 1;
	if (len < 8)
		return -ISA_E_DECODE;
	d = word(code + 4);
	in->words = 2;
	if (in->src[0] == 250) {
		in->ext = ISA_EXT_DPP;
		in->src[0] = 256 + (d & 0xff);
		in->dpp_ctrl = (d >> 8) & 0x1ff;
		in->bound_ctrl = (d >> 19) & 1;
		in->neg = ((d >> 20) & 1) | ((d >> 22) & 1) << 1;
		in->abs = ((d >> 21) & 1) | ((d >> 23) & 1) << 1;
		in->bank_mask = (d >> 24) & 0xf;
		in->row_mask = (d >> 28) & 0xf;
		/* 0x100 and the gaps between the shift families are reserved */
		if (in->dpp_ctrl == 0x100 || in->dpp_ctrl == 0x110 || in->dpp_ctrl == 0x120 ||
		    (in->dpp_ctrl > 0x12f && in->dpp_ctrl != 0x130 && in->dpp_ctrl != 0x134 &&
		     in->dpp_ctrl != 0x138 && in->dpp_ctrl != 0x13c && (in->dpp_ctrl < 0x140 ||
		     in->dpp_ctrl > 0x143)))
			return -ISA_E_DECODE;
		return 0;
	}
	in->ext = ISA_EXT_SDWA;
	in->src[0] = (d >> 23 & 1) ? (d & 0xff) : 256 + (d & 0xff);
	if (d >> 31 & 1)
		in->src[1] -= 256;	/* src1 is an SGPR (or a constant) */
	if (in->fmt == F_VOPC) {
		if (d >> 15 & 1)
			in->sdst = (d >> 8) & 0x7f;
		in->dst_sel = SEL_DWORD;
	} else {
		in->dst_sel = (d >> 8) & 7;
		in->dst_unused = (d >> 11) & 3;
		in->clamp = (d >> 13) & 1;
		in->omod = (d >> 14) & 3;
	}
	in->sel[0] = (d >> 16) & 7;
	in->sel[1] = (d >> 24) & 7;
	in->sext = ((d >> 19) & 1) | ((d >> 27) & 1) << 1;
	in->neg = ((d >> 20) & 1) | ((d >> 28) & 1) << 1;
	in->abs = ((d >> 21) & 1) | ((d >> 29) & 1) << 1;
	if (in->dst_sel > SEL_DWORD || in->sel[0] > SEL_DWORD || in->sel[1] > SEL_DWORD ||
	    in->dst_unused > UNUSED_PRESERVE)
		return -ISA_E_DECODE;
	return 0;
}


/* A VOP1/VOP2/VOPC's DPP or SDWA dword, or else its literal */
static int ext_or_lits(struct isa_insn *in, unsigned n, const uint8_t *code, size_t len)
{
	int e = ext_word(in, code, len);

	return e <= 0 ? e : lits(in, n, code, len);
}

static int sext(uint32_t v, unsigned bits)
{
	return (int32_t)(v << (32 - bits)) >> (32 - bits);
}

static int fields(const uint8_t *code, size_t len, struct isa_insn *in)
{
	uint32_t a, b = 0;

	memset(in, 0, sizeof(*in));
	if (len < 4)
		return -ISA_E_DECODE;
	a = word(code);
	in->words = 1;
	if (len >= 8)
		b = word(code + 4);
	if (a >> 23 == 0x17D) {
		in->fmt = F_SOP1;
		in->op = (a >> 8) & 0xff;
		in->dst = (a >> 16) & 0x7f;
		in->src[0] = a & 0xff;
		return lits(in, 1, code, len);
	}
	if (a >> 23 == 0x17E) {
		in->fmt = F_SOPC;
		in->op = (a >> 16) & 0x7f;
		in->src[0] = a & 0xff;
		in->src[1] = (a >> 8) & 0xff;
		return lits(in, 2, code, len);
	}
	if (a >> 23 == 0x17F) {
		in->fmt = F_SOPP;
		in->op = (a >> 16) & 0x7f;
		in->offset = sext(a & 0xffff, 16);
		return 0;
	}
	if (a >> 28 == 0xB) {
		in->fmt = F_SOPK;
		in->op = (a >> 23) & 0x1f;
		in->dst = (a >> 16) & 0x7f;
		in->offset = sext(a & 0xffff, 16);
		return 0;
	}
	if (a >> 30 == 2) {
		in->fmt = F_SOP2;
		in->op = (a >> 23) & 0x7f;
		in->dst = (a >> 16) & 0x7f;
		in->src[0] = a & 0xff;
		in->src[1] = (a >> 8) & 0xff;
		return lits(in, 2, code, len);
	}
	if (a >> 26 == 0x30) {	/* SMEM */
		if (len < 8)
			return -ISA_E_DECODE;
		in->fmt = F_SMEM;
		in->words = 2;
		in->op = (a >> 18) & 0xff;
		in->imm = (a >> 17) & 1;
		in->glc = (a >> 16) & 1;
		in->dst = (a >> 6) & 0x7f;
		in->addr = (a & 0x3f) << 1;	/* sbase, an SGPR pair */
		if (in->imm) {
			in->offset = sext(b & 0x1fffff, 21);
			in->soffset = (a >> 14) & 1 ? (b >> 25) & 0x7f : 0xffff;
		} else {
			in->offset = 0;
			in->soffset = b & 0xff;	/* an SGPR holds the offset */
		}
		return 0;
	}
	if (a >> 23 == 0x1A7) {	/* VOP3P */
		if (len < 8)
			return -ISA_E_DECODE;
		in->fmt = F_VOP3P;
		in->words = 2;
		in->op = (a >> 16) & 0x7f;
		in->dst = 256 + (a & 0xff);
		in->abs = (a >> 8) & 7;	/* neg_hi */
		in->opsel = (a >> 11) & 7;
		in->opsel_hi = ((a >> 14) & 1) << 2 | ((b >> 27) & 3);
		in->clamp = (a >> 15) & 1;
		in->src[0] = b & 0x1ff;
		in->src[1] = (b >> 9) & 0x1ff;
		in->src[2] = (b >> 18) & 0x1ff;
		in->neg = (b >> 29) & 7;
		return no_lit(in);
	}
	if (a >> 26 == 0x34) {	/* VOP3a/b */
		if (len < 8)
			return -ISA_E_DECODE;
		in->fmt = F_VOP3;
		in->words = 2;
		in->op = (a >> 16) & 0x3ff;
		in->dst = a & 0xff;	/* VGPR, or SGPR for VOPC and readlane */
		in->sdst = (a >> 8) & 0x7f;
		in->abs = (a >> 8) & 7;
		in->opsel = (a >> 11) & 0xf;
		in->clamp = (a >> 15) & 1;
		in->src[0] = b & 0x1ff;
		in->src[1] = (b >> 9) & 0x1ff;
		in->src[2] = (b >> 18) & 0x1ff;
		in->omod = (b >> 27) & 3;
		in->neg = (b >> 29) & 7;
		return no_lit(in);
	}
	if (a >> 26 == 0x36) {	/* DS */
		if (len < 8)
			return -ISA_E_DECODE;
		in->fmt = F_DS;
		in->words = 2;
		in->op = (a >> 17) & 0xff;
		in->gds = (a >> 16) & 1;
		in->offset = a & 0xff;
		in->offset1 = (a >> 8) & 0xff;
		in->addr = b & 0xff;
		in->data = (b >> 8) & 0xff;
		in->data1 = (b >> 16) & 0xff;
		in->dst = (b >> 24) & 0xff;
		return in->gds ? -ISA_E_DECODE : 0;
	}
	if (a >> 26 == 0x37) {	/* FLAT, SCRATCH, GLOBAL */
		if (len < 8)
			return -ISA_E_DECODE;
		in->fmt = F_FLAT;
		in->words = 2;
		in->op = (a >> 18) & 0x7f;
		in->slc = (a >> 17) & 1;
		in->glc = (a >> 16) & 1;
		in->seg = (a >> 14) & 3;
		in->offset = in->seg ? sext(a & 0x1fff, 13) : (int32_t)(a & 0xfff);
		in->addr = b & 0xff;
		in->data = (b >> 8) & 0xff;
		in->saddr = (b >> 16) & 0x7f;
		in->dst = (b >> 24) & 0xff;
		if ((a >> 13) & 1 || in->seg == 3)
			return -ISA_E_DECODE;	/* LDS DMA, reserved segment */
		return 0;
	}
	if (a >> 26 == 0x38) {	/* MUBUF */
		if (len < 8)
			return -ISA_E_DECODE;
		in->fmt = F_MUBUF;
		in->words = 2;
		in->op = (a >> 18) & 0x7f;
		in->offset = a & 0xfff;
		in->offen = (a >> 12) & 1;
		in->idxen = (a >> 13) & 1;
		in->glc = (a >> 14) & 1;
		in->slc = (a >> 17) & 1;
		in->addr = b & 0xff;
		in->data = (b >> 8) & 0xff;
		in->srsrc = ((b >> 16) & 0x1f) << 2;
		in->soffset = (b >> 24) & 0xff;
		if ((a >> 16) & 1)
			return -ISA_E_DECODE;	/* LDS DMA */
		return need_lit(in, in->soffset, code, len, 2);
	}
	if (a >> 26 == 0x3c) {	/* MIMG */
		if (len < 8)
			return -ISA_E_DECODE;
		in->fmt = F_MIMG;
		in->words = 2;
		in->op = (a >> 18) & 0x7f;
		in->dmask = (a >> 8) & 0xf;
		in->unorm = (a >> 12) & 1;
		in->glc = (a >> 13) & 1;
		in->da = (a >> 14) & 1;
		in->slc = (a >> 25) & 1;
		in->addr = b & 0xff;
		in->data = (b >> 8) & 0xff;
		in->srsrc = ((b >> 16) & 0x1f) << 2;
		in->saddr = ((b >> 21) & 0x1f) << 2;
		/* A16 (15), AGPR data (16), LWE (17), D16 (63); no component */
		if ((a >> 15) & 7 || b >> 31 || !in->dmask)
			return -ISA_E_DECODE;
		return 0;
	}
	if (a >> 25 == 0x3F) {	/* VOP1 */
		in->fmt = F_VOP1;
		in->op = 0x140 + ((a >> 9) & 0xff);
		in->dst = 256 + ((a >> 17) & 0xff);
		in->src[0] = a & 0x1ff;
		if (isa_ops[isa_row(F_VOP3, in->op)].flags & O_SGPR_DST)
			in->dst -= 256;	/* v_readfirstlane_b32 */
		return ext_or_lits(in, 1, code, len);
	}
	if (a >> 25 == 0x3E) {	/* VOPC */
		in->fmt = F_VOPC;
		in->op = (a >> 17) & 0xff;
		in->sdst = ISA_VCC_LO;
		in->src[0] = a & 0x1ff;
		in->src[1] = 256 + ((a >> 9) & 0xff);
		return ext_or_lits(in, 2, code, len);
	}
	if (a >> 31 == 0) {	/* VOP2 */
		unsigned op = (a >> 25) & 0x3f;

		in->fmt = F_VOP2;
		in->op = 0x100 + op;
		in->dst = 256 + ((a >> 17) & 0xff);
		in->src[0] = a & 0x1ff;
		in->src[1] = 256 + ((a >> 9) & 0xff);
		in->sdst = ISA_VCC_LO;
		/* v_madmk/madak carry a literal constant */
		if (isa_ops[isa_row(F_VOP3, in->op)].flags & O_LIT) {
			if (len < 8 || in->src[0] == 249 || in->src[0] == 250)
				return -ISA_E_DECODE;
			in->lit = b;
			in->words = 2;
		}
		return ext_or_lits(in, 1, code, len);
	}
	return -ISA_E_DECODE;
}

/* The row, the handler and the source masks (isa.h). */
static int bind(struct isa_insn *in)
{
	bool vop = in->fmt == F_VOP1 || in->fmt == F_VOP2 || in->fmt == F_VOPC || in->fmt == F_VOP3;
	const struct isa_opdef *o;

	in->row = (uint16_t)isa_row(vop ? F_VOP3 : in->fmt, in->op);
	if (!in->row)
		return -ISA_E_DECODE;
	o = &isa_ops[in->row];
	in->fn = o->flags & O_HOSTCALL ? NULL : o->fn;
	for (unsigned i = 0; i < 3; i++) {
		in->sand[i] = ~0u;
		in->sxor[i] = 0;
	}
	if (!vop)
		return 0;
	/* VOP3b: bits 8..14 are sdst, not abs/op_sel (VOPC's VOP3 form is VOP3a) */
	if (in->fmt == F_VOP3 && (o->flags & O_SDST) && in->op >= 0x100)
		in->abs = in->opsel = 0;
	if (((o->flags & O_NO_CLAMP) && in->clamp) ||
	    ((o->flags & O_NO_OPSEL) && in->fmt == F_VOP3 && in->opsel))
		in->fn = NULL;
	for (unsigned i = 0; i < 3; i++) {
		unsigned t = ISA_STYPE(o->types, i);
		uint32_t sign = t == OT_h ? 0x8000u : 0x80000000u;

		if (t != OT_f && t != OT_d && t != OT_h)
			continue;
		if (in->abs >> i & 1)
			in->sand[i] = ~sign;
		if (in->neg >> i & 1)
			in->sxor[i] = sign;
	}
	in->mods = in->abs || in->neg || in->omod || in->clamp;
	if (in->ext && in->fn) {
		/* DPP and SDWA extend the operations with 32- or 16-bit sources
		 * and result, not the lane moves nor 64-bit operands */
		for (unsigned i = 0; i < 3; i++) {
			unsigned t = i ? ISA_STYPE(o->types, i - 1) : ISA_DTYPE(o->types);

			if ((t == OT_B && !(i == 0 && (o->flags & O_SDST))) || t == OT_d)
				in->fn = NULL;
		}
		if (o->flags & O_SGPR_DST || o->fn == isa_h_lanes)
			in->fn = NULL;
		if (in->fn)
			in->fn = in->ext == ISA_EXT_DPP ? isa_h_dpp : isa_h_sdwa;
	}
	return 0;
}

/* The DS opcodes that leave the LDS as it is, a bit each: ds_read_b32
 * (0x36), read2 and read2st64 (0x37, 0x38), the byte and short reads
 * (0x39-0x3c), permute and bpermute (0x3e, 0x3f), read_b64 (0x76),
 * read2(st64)_b64 (0x77, 0x78), read_b96 and read_b128 (0xfe, 0xff). */
static const uint8_t ds_reads[32] = {
	[0x36 >> 3] = 1u << (0x36 & 7) | 1u << (0x37 & 7),
	[0x38 >> 3] = 0x1fu << (0x38 & 7) | 1u << (0x3e & 7) | 1u << (0x3f & 7),
	[0x76 >> 3] = 1u << (0x76 & 7) | 1u << (0x77 & 7),
	[0x78 >> 3] = 1u << (0x78 & 7),
	[0xfe >> 3] = 1u << (0xfe & 7) | 1u << (0xff & 7),
};

/* Can running it change what another wave or agent sees, or bring in
 * something the registers do not hold (isa_insn.event)? Any opcode of a
 * memory family that is not known to only read counts. */
static bool is_event(const struct isa_insn *in)
{
	switch (in->fmt) {
	case F_FLAT:
		return in->op < 0x10 || in->op > 0x17;
	case F_MUBUF:
		return !((in->op >= 0x10 && in->op <= 0x17) || in->op == 0x28 || in->op == 0x29 ||
			 in->op == 0x3e || in->op == 0x3f);
	case F_DS:
		return !(in->op < 256 && ds_reads[in->op >> 3] >> (in->op & 7) & 1);
	case F_SOPP:
		return in->op == 0x10 || in->op == 0x11;	/* s_sendmsg(halt) */
	case F_SMEM:
		return in->op == 0x24 || in->op == 0x25;	/* the clocks */
	default:
		return false;
	}
}

int isa_decode(const uint8_t *code, size_t len, struct isa_insn *in)
{
	int err = fields(code, len, in);

	if (err)
		return err;
	in->event = is_event(in);
	return bind(in);
}
