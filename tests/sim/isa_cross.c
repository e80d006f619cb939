/* SPDX-License-Identifier: MIT */
/*
 * isa_cross.c - the whole-wave float handlers (valu_wave.c) against the
 * general forms (valu_ops.c), which compute lane by lane with every
 * modifier: random VOP3 encodings of each row (VGPR, SGPR and inline
 * constant sources, destinations that overlap them, EXEC full, empty, a few
 * lanes or random), random wave state rich in NaNs, infinities, zeros and
 * denormals, both run from the same state and the whole register files
 * compared bit for bit, but for one thing: where both results are NaN
 * their payloads may differ (which input's NaN an operation returns when
 * both are NaN depends on the order the compiler gave the operands; the
 * hardware does not promise one either). Each case runs at every vector
 * level the CPU has (AVX-512, AVX2, none: isa_simd_limit), the general form
 * at none, so every hand-written path is checked on a machine that has it.
 * The seed is fixed and printed; HIPSVM_TEST_SEED sets another.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"

/* a row (or `count` rows from op on: a comparison's conditions), and the
 * general form its handler must equal */
struct row {
	const char *name;
	unsigned op;		/* VOP3 opcode */
	unsigned nsrc;
	isa_handler *general;
	unsigned width;		/* a float result's: 32 or 64; 0: an integer (exact) */
	unsigned count;		/* 0: one */
};

static const struct row rows[] = {
	{ "v_add_f64", 0x280, 2, isa_h_valu64, 64, 0 },
	{ "v_mul_f64", 0x281, 2, isa_h_valu64, 64, 0 },
	{ "v_fma_f64", 0x1cc, 3, isa_h_valu64, 64, 0 },
	{ "v_fmac_f64", 0x104, 2, isa_h_valu64, 64, 0 },
	{ "v_cvt_f64_f32", 0x150, 1, isa_h_valu64, 64, 0 },
	{ "v_cvt_f64_i32", 0x144, 1, isa_h_valu64, 64, 0 },
	{ "v_cvt_f64_u32", 0x156, 1, isa_h_valu64, 64, 0 },
	{ "v_cvt_f32_f64", 0x14f, 1, isa_h_valu32, 32, 0 },
	{ "v_cvt_i32_f64", 0x143, 1, isa_h_valu32, 0, 0 },
	{ "v_cvt_u32_f64", 0x155, 1, isa_h_valu32, 0, 0 },
	{ "v_add_f32", 0x101, 2, isa_h_valu32, 32, 0 },
	{ "v_sub_f32", 0x102, 2, isa_h_valu32, 32, 0 },
	{ "v_subrev_f32", 0x103, 2, isa_h_valu32, 32, 0 },
	{ "v_mul_f32", 0x105, 2, isa_h_valu32, 32, 0 },
	{ "v_fmac_f32", 0x13b, 2, isa_h_valu32, 32, 0 },
	{ "v_fma_f32", 0x1cb, 3, isa_h_valu32, 32, 0 },
	/* comparisons: the mask to an SGPR pair (and EXEC for cmpx) */
	{ "v_cmp_*_f32", 0x40, 2, isa_h_vopc, 0, 16 },
	{ "v_cmp_*_i32", 0xc0, 2, isa_h_vopc, 0, 8 },
	{ "v_cmp_*_u32", 0xc8, 2, isa_h_vopc, 0, 8 },
	{ "v_cmpx_*_i32", 0xd0, 2, isa_h_vopc, 0, 8 },
	{ "v_cmpx_*_u32", 0xd8, 2, isa_h_vopc, 0, 8 },
	{ "v_cmp_*_i64", 0xe0, 2, isa_h_vopc, 0, 8 },
	{ "v_cmp_*_u64", 0xe8, 2, isa_h_vopc, 0, 8 },
};

#define ROUNDS 400
#define NV 12			/* VGPRs the cases use */

static struct isa_wave start, fast, slow;

static const char *const level_name[] = {
	[ISA_SIMD_NONE] = "no vector paths", [ISA_SIMD_AVX2] = "AVX2",
	[ISA_SIMD_AVX512] = "AVX-512",
};
static uint64_t rng;

static uint64_t next(void)
{
	/* splitmix64 */
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* a 32-bit word: random bits, or the high or low dword of an edge double,
 * or an edge float, so that pairs of registers form every kind of double */
static uint32_t word(void)
{
	static const uint32_t edge[] = {
		0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7fa00000,
		0x00000001, 0x807fffff, 0x3f800000, 0x4f000000, 0xcf000001, 0x7ff00000,
		0xfff00000, 0x7ff80000, 0x7ff40000, 0x000fffff, 0x41e00000, 0xc1e00000,
		0x41efffff, 0x3ff00000, 0xffffffff, 0x7fffffff,
	};
	uint64_t r = next();

	if (r % 3 == 0)
		return edge[(r >> 8) % (sizeof(edge) / sizeof(edge[0]))];
	return (uint32_t)(r >> 16);
}

static unsigned source(void)
{
	uint64_t r = next() % 10;

	if (r < 6)
		return 256 + (unsigned)(next() % NV);	/* a VGPR */
	if (r < 8)
		return (unsigned)(next() % 16);		/* an SGPR (pair) */
	/* inline constants: 0, 1..64, -1..-16, 0.5, -0.5, 1.0, ..., -4.0, 1/(2pi) */
	static const unsigned k[] = { 128, 129, 192, 193, 208, 240, 241, 242, 243, 244,
				      245, 246, 247, 248 };
	return k[next() % (sizeof(k) / sizeof(k[0]))];
}

static uint64_t exec_mask(void)
{
	switch (next() % 6) {
	case 0: case 1: return ~0ull;
	case 2: return 0;
	case 3: return 1ull << (next() % 64);
	case 4: return (1ull << (next() % 64)) | (1ull << (next() % 64)) | 1ull << 63;
	default: return next();
	}
}

/* VOP3A: op, vdst, clamp, abs; src0..2, omod, neg */
static void encode(uint32_t *w, unsigned op, unsigned vdst, const unsigned *src, bool mods)
{
	unsigned abs = 0, neg = 0, omod = 0, clamp = 0;

	if (mods) {
		switch (next() % 4) {
		case 0: abs = (unsigned)next() & 7; break;
		case 1: neg = (unsigned)next() & 7; break;
		case 2: omod = 1 + (unsigned)(next() % 3); break;
		default: clamp = 1; break;
		}
	}
	w[0] = 0xd0000000u | (op & 0x3ff) << 16 | clamp << 15 | abs << 8 | (vdst & 0xff);
	w[1] = (src[0] & 0x1ff) | (src[1] & 0x1ff) << 9 | (src[2] & 0x1ff) << 18 | omod << 27 |
	       neg << 29;
}

static bool is_nan(unsigned width, uint64_t bits)
{
	if (width == 64)
		return (bits >> 52 & 0x7ff) == 0x7ff && (bits & 0xfffffffffffffull);
	return (bits >> 23 & 0xff) == 0xff && (bits & 0x7fffff);
}

/* the register files equal, the result's NaNs as NaNs (d: its VGPR) */
static bool same(const struct row *r, unsigned d)
{
	if (memcmp(fast.s, slow.s, sizeof(fast.s)))
		return false;
	for (unsigned v = 0; v < NV; v++)
		for (unsigned l = 0; l < ISA_LANES; l++) {
			if (fast.v[v][l] == slow.v[v][l])
				continue;
			if (!r->width || (v != d && !(r->width == 64 && v == d + 1)))
				return false;
			uint64_t a = fast.v[d][l], b = slow.v[d][l];

			if (r->width == 64) {
				a |= (uint64_t)fast.v[d + 1][l] << 32;
				b |= (uint64_t)slow.v[d + 1][l] << 32;
			}
			if (!is_nan(r->width, a) || !is_nan(r->width, b))
				return false;
		}
	return true;
}

static void report(const struct row *r, const uint32_t *code, unsigned round)
{
	for (unsigned v = 0; v < NV; v++)
		for (unsigned l = 0; l < ISA_LANES; l++)
			if (fast.v[v][l] != slow.v[v][l]) {
				cr_log_error("%s (%08" PRIx32 " %08" PRIx32 "), round %u: v%u lane %u: "
					     "whole-wave %08" PRIx32 ", general %08" PRIx32
					     " (before %08" PRIx32 ")",
					     r->name, code[0], code[1], round, v, l, fast.v[v][l],
					     slow.v[v][l], start.v[v][l]);
				return;
			}
	cr_log_error("%s (%08" PRIx32 " %08" PRIx32 "), round %u: the SGPRs differ", r->name,
		     code[0], code[1], round);
}

Test(isa_cross, whole_wave_equals_general_form)
{
	const char *env = getenv("HIPSVM_TEST_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : 0x28f64c05ull;
	unsigned cases = 0, fast_runs = 0;

	printf("# isa_cross seed 0x%" PRIx64 "\n", seed);
	rng = seed;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];

		for (unsigned round = 0; round < ROUNDS * (r->count ? r->count : 1); round++) {
			unsigned op = r->op + (r->count ? round % r->count : 0);
			unsigned src[3] = { 0, 0, 0 };
			uint32_t code[2];
			struct isa_insn in;
			struct isa_env e;
			bool mods = next() % 5 == 0;
			uint64_t ex = exec_mask();

			for (unsigned s = 0; s < r->nsrc; s++)
				src[s] = source();
			encode(code, op, (unsigned)(next() % (NV - 1)), src, mods);
			cr_assert_eq(isa_decode((const uint8_t *)code, sizeof(code), &in), 0,
				     "%s: %08x %08x does not decode", r->name, code[0], code[1]);
			cr_assert(in.fn != NULL, "%s: no handler", r->name);
			cr_assert(in.fn != r->general, "%s: the row has no whole-wave handler",
				  r->name);
			for (unsigned v = 0; v < NV; v++)
				for (unsigned l = 0; l < ISA_LANES; l++)
					start.v[v][l] = word();
			for (unsigned s = 0; s < 16; s++)
				start.s[s] = word();
			start.s[ISA_EXEC_LO] = (uint32_t)ex;
			start.s[ISA_EXEC_LO + 1] = (uint32_t)(ex >> 32);
			memset(&e, 0, sizeof(e));
			slow = start;
			isa_simd_limit(ISA_SIMD_NONE);
			int b = r->general(&slow, &e, &in);

			for (int lv = isa_simd_cpu(); lv >= ISA_SIMD_NONE; lv--) {
				isa_simd_limit((enum isa_simd)lv);
				fast = start;
				int a = in.fn(&fast, &e, &in);

				cr_assert_eq(a, b, "%s: whole-wave answers %d, general %d (%s)",
					     r->name, a, b, level_name[lv]);
				if (!same(r, in.dst & 0xff)) {
					report(r, code, round);
					cr_assert_fail("%s: the whole-wave handler differs at %s (seed "
						       "0x%" PRIx64 ")", r->name, level_name[lv], seed);
				}
				cases++;
				fast_runs += !in.mods;
			}
		}
	}
	isa_simd_limit(isa_simd_cpu());	/* back to the CPU's */
	printf("# isa_cross: %u cases at %s and below, %u without modifiers (the whole-wave "
	       "loops)\n", cases, level_name[isa_simd_cpu()], fast_runs);
	cr_assert_gt(fast_runs, cases / 2);
}

/* VOP3B (the carry rows): op, vdst, sdst; src0..2 */
static void encode3b(uint32_t *w, unsigned op, unsigned vdst, unsigned sdst, const unsigned *src)
{
	w[0] = 0xd0000000u | (op & 0x3ff) << 16 | (sdst & 0x7f) << 8 | (vdst & 0xff);
	w[1] = (src[0] & 0x1ff) | (src[1] & 0x1ff) << 9 | (src[2] & 0x1ff) << 18;
}

/* VOP2: op, vdst, src0, vsrc1 (a VGPR) */
static uint32_t encode2(unsigned op, unsigned vdst, unsigned src0, unsigned vsrc1)
{
	return (op & 0x3f) << 25 | (vdst & 0xff) << 17 | (vsrc1 & 0xff) << 9 | (src0 & 0x1ff);
}

/* the carry's SGPR pair: VCC, or one of the first 16 SGPRs the sources read */
static unsigned carry_sgpr(void)
{
	return next() % 3 == 0 ? ISA_VCC_LO : (unsigned)(next() % 8) * 2;
}

/*
 * v_add_co_u32 then the v_addc_co_u32 that takes its carry, VOP2 or VOP3
 * each: the fused handler (isa_h_carry_pair) against the two handlers one
 * after the other, from the same state; the whole register files equal,
 * pc past both and the second counted. Sources that are the carry's SGPRs,
 * destinations that are the second's sources, EXEC random.
 */
Test(isa_cross, carry_pair_equals_two_instructions)
{
	const char *env = getenv("HIPSVM_TEST_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : 0x28f64c05ull;
	unsigned fused_fast = 0;

	printf("# isa_cross carry pairs, seed 0x%" PRIx64 "\n", seed);
	rng = seed ^ 0xadd64;
	for (unsigned round = 0; round < 4 * ROUNDS; round++) {
		uint32_t code[4];
		unsigned n1, n2, s1 = carry_sgpr(), s2 = next() % 4 ? s1 : carry_sgpr();
		unsigned src[3] = { source(), 256 + (unsigned)(next() % NV), s1 };
		struct isa_insn prog[4];
		struct isa_env e;
		uint64_t ex = exec_mask();

		memset(prog, 0, sizeof(prog));
		if (s1 == ISA_VCC_LO && next() % 2) {
			code[0] = encode2(0x19, (unsigned)(next() % NV), src[0], src[1] - 256);
			n1 = 1;
		} else {
			if (next() % 2)
				src[1] = source();
			encode3b(code, 0x119, (unsigned)(next() % NV), s1, src);
			n1 = 2;
		}
		src[0] = source();
		src[1] = 256 + (unsigned)(next() % NV);
		src[2] = s1;
		if (s1 == ISA_VCC_LO && s2 == ISA_VCC_LO && next() % 2) {
			code[n1] = encode2(0x1c, (unsigned)(next() % NV), src[0], src[1] - 256);
			n2 = 1;
		} else {
			if (next() % 2)
				src[1] = source();
			encode3b(code + n1, 0x11c, (unsigned)(next() % NV), s2, src);
			n2 = 2;
		}
		cr_assert_eq(isa_decode((const uint8_t *)code, 4 * n1, &prog[0]), 0);
		cr_assert_eq(isa_decode((const uint8_t *)(code + n1), 4 * n2, &prog[n1]), 0);
		cr_assert_eq(prog[0].op, 0x119);
		cr_assert_eq(prog[n1].op, 0x11c);
		prog[0].end = 4 * (n1 + n2);
		for (unsigned v = 0; v < NV; v++)
			for (unsigned l = 0; l < ISA_LANES; l++)
				start.v[v][l] = next() % 4 ? (uint32_t)next() : 0xffffffffu;
		for (unsigned s = 0; s < 16; s++)
			start.s[s] = (uint32_t)next();
		start.s[ISA_VCC_LO] = (uint32_t)next();
		start.s[ISA_VCC_LO + 1] = (uint32_t)next();
		start.s[ISA_EXEC_LO] = (uint32_t)ex;
		start.s[ISA_EXEC_LO + 1] = (uint32_t)(ex >> 32);
		start.pc = 4 * n1;	/* where isa_exec_insn leaves it */
		start.insns = 0;
		memset(&e, 0, sizeof(e));
		slow = start;
		isa_simd_limit(ISA_SIMD_NONE);
		cr_assert_eq(prog[0].fn(&slow, &e, &prog[0]), 0);
		cr_assert_eq(prog[n1].fn(&slow, &e, &prog[n1]), 0);
		for (int lv = isa_simd_cpu(); lv >= ISA_SIMD_NONE; lv--) {
			isa_simd_limit((enum isa_simd)lv);
			fast = start;
			cr_assert_eq(isa_h_carry_pair(&fast, &e, &prog[0]), 0);
			cr_assert_eq(fast.pc, 4 * (n1 + n2), "pc past both");
			cr_assert_eq(fast.insns, 1, "the second counted");
			if (memcmp(fast.s, slow.s, sizeof(fast.s)) ||
			    memcmp(fast.v, slow.v, NV * sizeof(fast.v[0]))) {
				static const struct row pair = { "v_add_co_u32 + v_addc_co_u32", 0,
								 0, NULL, 0, 0 };

				report(&pair, code, round);
				cr_assert_fail("the fused pair differs at %s (seed 0x%" PRIx64 ")",
					       level_name[lv], seed);
			}
		}
		fused_fast += ex == ~0ull;
	}
	isa_simd_limit(isa_simd_cpu());	/* back to the CPU's */
	printf("# isa_cross: %u pairs at %s and below, %u with every lane on\n", 4 * ROUNDS,
	       level_name[isa_simd_cpu()], fused_fast);
	cr_assert_gt(fused_fast, ROUNDS / 2);
}

/*
 * The six carry rows (v_add_co_u32 0x119 ... v_subbrev_co_u32 0x11e) alone,
 * VOP3B, against a model written here in 64-bit arithmetic: a lane's result
 * is the low dword of a + b + cin (a - b - cin), its carry bit the dword
 * above; off lanes keep the destination and give 0 in the mask. Every
 * level the CPU has; VGPR, SGPR and constant sources; the carry-in's pair
 * one the sources or the destination may be.
 */
Test(isa_cross, carry_rows_equal_model)
{
	const char *env = getenv("HIPSVM_TEST_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : 0x28f64c05ull;
	unsigned cases = 0, full = 0;

	printf("# isa_cross carry rows, seed 0x%" PRIx64 "\n", seed);
	rng = seed ^ 0xca77;
	for (unsigned round = 0; round < 6 * ROUNDS; round++) {
		unsigned op = 0x119 + round % 6, sd = carry_sgpr(), d = (unsigned)(next() % NV);
		unsigned src[3] = { source(), next() % 3 ? 256 + (unsigned)(next() % NV) : source(),
				    carry_sgpr() };
		uint32_t code[2];
		struct isa_insn in;
		struct isa_env e;
		uint64_t ex = exec_mask();
		uint32_t want[ISA_LANES];
		uint64_t want_mask = 0;

		encode3b(code, op, d, sd, src);
		cr_assert_eq(isa_decode((const uint8_t *)code, sizeof(code), &in), 0,
			     "%08x %08x does not decode", code[0], code[1]);
		cr_assert(in.fn != NULL);
		for (unsigned v = 0; v < NV; v++)
			for (unsigned l = 0; l < ISA_LANES; l++)
				start.v[v][l] = next() % 4 ? word() : 0xffffffffu;
		for (unsigned s = 0; s < 16; s++)
			start.s[s] = word();
		start.s[ISA_VCC_LO] = (uint32_t)next();
		start.s[ISA_VCC_LO + 1] = (uint32_t)next();
		start.s[ISA_EXEC_LO] = (uint32_t)ex;
		start.s[ISA_EXEC_LO + 1] = (uint32_t)(ex >> 32);

		/* the model, from the state before: the sources as the hardware
		 * reads them (a constant's 32 bits, an SGPR's dword) */
		uint64_t cin = op >= 0x11c ? isa_sreg64(&start, &in, src[2], false) : 0;

		for (unsigned l = 0; l < ISA_LANES; l++) {
			uint64_t a = src[0] >= 256 ? start.v[src[0] - 256][l]
						   : isa_sreg32(&start, &in, src[0]);
			uint64_t b = src[1] >= 256 ? start.v[src[1] - 256][l]
						   : isa_sreg32(&start, &in, src[1]);
			uint64_t c = cin >> l & 1, r;

			if (op == 0x11b || op == 0x11e) {
				uint64_t t = a;

				a = b;
				b = t;
			}
			r = op == 0x119 || op == 0x11c ? a + b + c : a - b - c;
			want[l] = ex >> l & 1 ? (uint32_t)r : start.v[d][l];
			want_mask |= (uint64_t)(ex >> l & 1 && (r >> 32 & 1)) << l;
		}
		memset(&e, 0, sizeof(e));
		for (int lv = isa_simd_cpu(); lv >= ISA_SIMD_NONE; lv--) {
			isa_simd_limit((enum isa_simd)lv);
			fast = start;
			cr_assert_eq(in.fn(&fast, &e, &in), 0);
			for (unsigned l = 0; l < ISA_LANES; l++)
				cr_assert_eq(fast.v[d][l], want[l],
					     "%08x %08x at %s, round %u: lane %u %08x, the model %08x "
					     "(seed 0x%" PRIx64 ")", code[0], code[1], level_name[lv],
					     round, l, fast.v[d][l], want[l], seed);
			uint64_t got = fast.s[sd] | (uint64_t)fast.s[sd + 1] << 32;

			cr_assert_eq(got, want_mask,
				     "%08x %08x at %s, round %u: carry %016" PRIx64 ", the model %016"
				     PRIx64 " (seed 0x%" PRIx64 ")", code[0], code[1], level_name[lv],
				     round, got, want_mask, seed);
			for (unsigned v = 0; v < NV; v++)
				if (v != d)
					cr_assert(!memcmp(fast.v[v], start.v[v], sizeof(fast.v[v])),
						  "v%u changed", v);
			cases++;
			full += ex == ~0ull;
		}
	}
	isa_simd_limit(isa_simd_cpu());	/* back to the CPU's */
	printf("# isa_cross: %u carry cases at %s and below, %u with every lane on\n", cases,
	       level_name[isa_simd_cpu()], full);
	cr_assert_gt(full, cases / 4);
}
