/* SPDX-License-Identifier: MIT */
/*
 * operand.c - scalar operand access (isa.h): the 9-bit source encoding
 * (SGPRs, inline integer and float constants, the apertures, VCCZ, EXECZ,
 * SCC, the literal) as 32- and 64-bit values, and SGPR writes.
 */
#include "isa.h"

/* Inline constants of the 9-bit source encoding, as 32-bit values. */
static const uint32_t fconst32[] = {
	0x3f000000, 0xbf000000, 0x3f800000, 0xbf800000, 0x40000000, 0xc0000000,
	0x40800000, 0xc0800000, 0x3e22f983,
};
static const uint64_t fconst64[] = {
	0x3fe0000000000000ull, 0xbfe0000000000000ull, 0x3ff0000000000000ull,
	0xbff0000000000000ull, 0x4000000000000000ull, 0xc000000000000000ull,
	0x4010000000000000ull, 0xc010000000000000ull, 0x3fc45f306dc9c882ull,
};

uint32_t isa_sreg32_any(const struct isa_wave *w, const struct isa_insn *in, unsigned src)
{
	if (src < ISA_NSGPR)
		return w->s[src];
	if (src == 128)
		return 0;
	if (src <= 192)
		return src - 128;
	if (src <= 208)
		return (uint32_t)(192 - (int)src);
	if (src >= 240 && src <= 248)
		return fconst32[src - 240];
	switch (src) {
	case 235: case 236: return ISA_SHARED_HI;	/* src_shared_base / limit */
	case 237: case 238: return ISA_PRIVATE_HI;	/* src_private_base / limit */
	case 251: return isa_vcc(w) == 0;
	case 252: return isa_exec(w) == 0;
	case 253: return w->scc;
	case 255: return in->lit;
	}
	return 0;
}

uint64_t isa_sreg64_any(const struct isa_wave *w, const struct isa_insn *in, unsigned src, bool f64)
{
	if (src < ISA_NSGPR - 1)
		return (uint64_t)w->s[src] | (uint64_t)w->s[src + 1] << 32;
	if (src >= 129 && src <= 208)
		return (uint64_t)(int64_t)(int32_t)isa_sreg32_any(w, in, src);
	/* a float inline constant is a double in every 64-bit operand, integer
	 * ones too (s_mov_b64 s[6:7], 1.0 is how -O0 code makes 1.0); only a
	 * literal depends on the operand's type */
	if (src >= 240 && src <= 248)
		return fconst64[src - 240];
	if (src == 255)
		return f64 ? (uint64_t)in->lit << 32 : in->lit;
	if (src == 235 || src == 237)	/* apertures: a 64-bit base */
		return (uint64_t)isa_sreg32_any(w, in, src) << 32;
	return isa_sreg32_any(w, in, src);
}
