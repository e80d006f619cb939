/* SPDX-License-Identifier: MIT */
/*
 * salu.c - scalar instructions (SOP1/SOP2/SOPK/SOPC/SOPP), scalar memory
 * loads (SMEM), and the one-instruction step of a wave.
 *
 * s_waitcnt, cache invalidations and s_nop do nothing: the interpreter is
 * in order, so every access has completed before the next instruction.
 * s_barrier parks the wave (dispatch.c releases its workgroup); s_sleep
 * and s_sethalt-free programs need nothing else.
 */
#include "isa.h"

#include <string.h>
#include <time.h>

static void set_exec(struct isa_wave *w, uint64_t v)
{
	isa_swrite64(w, ISA_EXEC_LO, v);
}

/* s_setpc_b64 / s_swappc_b64: jumps within the code object */
static int setpc(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in,
		 unsigned op)
{
	uint64_t t = isa_sreg64(w, in, in->src[0], false);

	if (op == 0x1e)
		isa_swrite64(w, in->dst, env->code_vaddr + w->pc);
	if (t < env->code_vaddr)
		return -ISA_E_PC;
	w->pc = t - env->code_vaddr;
	return 0;
}

/* The families' bodies, each inlined into its rows' handlers (the end of
 * the file) with op a constant. */
#define INLINE static inline __attribute__((always_inline))

INLINE int sop1(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in,
		unsigned op)
{
	uint32_t a = isa_sreg32(w, in, in->src[0]);
	uint64_t a64 = isa_sreg64(w, in, in->src[0], false), ex = isa_exec(w), r;

	switch (op) {
	case 0x00: isa_swrite32(w, in->dst, a); break;			/* s_mov_b32 */
	case 0x01: isa_swrite64(w, in->dst, a64); break;		/* s_mov_b64 */
	case 0x02: if (w->scc) isa_swrite32(w, in->dst, a); break;	/* s_cmov_b32 */
	case 0x03: if (w->scc) isa_swrite64(w, in->dst, a64); break;
	case 0x04: isa_swrite32(w, in->dst, ~a); w->scc = ~a != 0; break;	/* s_not_b32 */
	case 0x05: isa_swrite64(w, in->dst, ~a64); w->scc = ~a64 != 0; break;
	case 0x08: {							/* s_brev_b32 */
		uint32_t v = 0;

		for (int i = 0; i < 32; i++)
			v |= ((a >> i) & 1u) << (31 - i);
		isa_swrite32(w, in->dst, v);
		break;
	}
	case 0x09: {							/* s_brev_b64 */
		uint64_t v = 0;

		for (int i = 0; i < 64; i++)
			v |= ((a64 >> i) & 1u) << (63 - i);
		isa_swrite64(w, in->dst, v);
		break;
	}
	case 0x0c: r = (uint32_t)__builtin_popcount(a); isa_swrite32(w, in->dst, (uint32_t)r); w->scc = r != 0; break;
	case 0x0d: r = (uint64_t)__builtin_popcountll(a64); isa_swrite32(w, in->dst, (uint32_t)r); w->scc = r != 0; break;
	case 0x10: isa_swrite32(w, in->dst, a ? (uint32_t)__builtin_ctz(a) : ~0u); break;	/* s_ff1_i32_b32 */
	case 0x11: isa_swrite32(w, in->dst, a64 ? (uint32_t)__builtin_ctzll(a64) : ~0u); break;
	case 0x12: isa_swrite32(w, in->dst, a ? (uint32_t)__builtin_clz(a) : ~0u); break;	/* s_flbit_i32_b32 */
	case 0x16: isa_swrite32(w, in->dst, (uint32_t)(int32_t)(int8_t)a); break;
	case 0x17: isa_swrite32(w, in->dst, (uint32_t)(int32_t)(int16_t)a); break;
	case 0x1c: isa_swrite64(w, in->dst, env->code_vaddr + w->pc); break;	/* s_getpc_b64 */
	case 0x1d: case 0x1e: return setpc(w, env, in, op);
	case 0x20: case 0x21: case 0x22: case 0x23: case 0x24: case 0x25: case 0x26: case 0x27:
	case 0x33: case 0x34: {						/* s_*_saveexec_b64 */
		switch (op) {
		case 0x20: r = a64 & ex; break;
		case 0x21: r = a64 | ex; break;
		case 0x22: r = a64 ^ ex; break;
		case 0x23: r = a64 & ~ex; break;
		case 0x24: r = a64 | ~ex; break;
		case 0x25: r = ~(a64 & ex); break;
		case 0x26: r = ~(a64 | ex); break;
		case 0x27: r = ~(a64 ^ ex); break;
		case 0x33: r = ~a64 & ex; break;
		default: r = ~a64 | ex; break;
		}
		isa_swrite64(w, in->dst, ex);
		set_exec(w, r);
		w->scc = r != 0;
		break;
	}
	case 0x30: {							/* s_abs_i32 */
		int32_t v = (int32_t)a;

		v = v < 0 ? (int32_t)(0u - (uint32_t)v) : v;
		isa_swrite32(w, in->dst, (uint32_t)v);
		w->scc = v != 0;
		break;
	}
	default:
		return -ISA_E_DECODE;
	}
	return 0;
}

INLINE int sop2(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in,
		unsigned op)
{
	uint32_t a = isa_sreg32(w, in, in->src[0]), b = isa_sreg32(w, in, in->src[1]), r;
	uint64_t a64, b64, r64;
	bool wide = op == 0x0b || op == 0x0d || op == 0x0f || op == 0x11 || op == 0x13 ||
		    op == 0x15 || op == 0x17 || op == 0x19 || op == 0x1b;

	if (wide) {
		a64 = isa_sreg64(w, in, in->src[0], false);
		b64 = isa_sreg64(w, in, in->src[1], false);
		switch (op) {
		case 0x0b: r64 = w->scc ? a64 : b64; isa_swrite64(w, in->dst, r64); return 0;
		case 0x0d: r64 = a64 & b64; break;
		case 0x0f: r64 = a64 | b64; break;
		case 0x11: r64 = a64 ^ b64; break;
		case 0x13: r64 = a64 & ~b64; break;
		case 0x15: r64 = a64 | ~b64; break;
		case 0x17: r64 = ~(a64 & b64); break;
		case 0x19: r64 = ~(a64 | b64); break;
		default: r64 = ~(a64 ^ b64); break;
		}
		isa_swrite64(w, in->dst, r64);
		w->scc = r64 != 0;
		return 0;
	}
	switch (op) {
	case 0x00: r = a + b; w->scc = r < a; break;			/* s_add_u32 */
	case 0x01: r = a - b; w->scc = b > a; break;			/* s_sub_u32 */
	case 0x02: r = a + b; w->scc = ((~(a ^ b) & (a ^ r)) >> 31) & 1; break;
	case 0x03: r = a - b; w->scc = (((a ^ b) & (a ^ r)) >> 31) & 1; break;
	case 0x04: {							/* s_addc_u32 */
		uint64_t t = (uint64_t)a + b + w->scc;

		r = (uint32_t)t;
		w->scc = t >> 32;
		break;
	}
	case 0x05: {							/* s_subb_u32 */
		uint64_t t = (uint64_t)a - b - w->scc;

		r = (uint32_t)t;
		w->scc = (t >> 32) != 0;
		break;
	}
	case 0x06: w->scc = (int32_t)a < (int32_t)b; r = w->scc ? a : b; break;
	case 0x07: w->scc = a < b; r = w->scc ? a : b; break;
	case 0x08: w->scc = (int32_t)a > (int32_t)b; r = w->scc ? a : b; break;
	case 0x09: w->scc = a > b; r = w->scc ? a : b; break;
	case 0x0a: r = w->scc ? a : b; isa_swrite32(w, in->dst, r); return 0;
	case 0x0c: r = a & b; w->scc = r != 0; break;
	case 0x0e: r = a | b; w->scc = r != 0; break;
	case 0x10: r = a ^ b; w->scc = r != 0; break;
	case 0x12: r = a & ~b; w->scc = r != 0; break;
	case 0x14: r = a | ~b; w->scc = r != 0; break;
	case 0x16: r = ~(a & b); w->scc = r != 0; break;
	case 0x18: r = ~(a | b); w->scc = r != 0; break;
	case 0x1a: r = ~(a ^ b); w->scc = r != 0; break;
	case 0x1c: r = a << (b & 31); w->scc = r != 0; break;
	case 0x1d: a64 = isa_sreg64(w, in, in->src[0], false); r64 = a64 << (b & 63);
		isa_swrite64(w, in->dst, r64); w->scc = r64 != 0; return 0;
	case 0x1e: r = a >> (b & 31); w->scc = r != 0; break;
	case 0x1f: a64 = isa_sreg64(w, in, in->src[0], false); r64 = a64 >> (b & 63);
		isa_swrite64(w, in->dst, r64); w->scc = r64 != 0; return 0;
	case 0x20: r = (uint32_t)((int32_t)a >> (b & 31)); w->scc = r != 0; break;
	case 0x21: a64 = isa_sreg64(w, in, in->src[0], false);
		r64 = (uint64_t)((int64_t)a64 >> (b & 63));
		isa_swrite64(w, in->dst, r64); w->scc = r64 != 0; return 0;
	case 0x22: r = ((1u << (a & 31)) - 1) << (b & 31); break;	/* s_bfm_b32 */
	case 0x24: r = a * b; break;					/* s_mul_i32 */
	case 0x25: {							/* s_bfe_u32 */
		unsigned off = b & 31, wd = (b >> 16) & 0x7f;

		r = wd == 0 ? 0 : wd + off >= 32 ? a >> off : (a >> off) & ((1u << wd) - 1);
		w->scc = r != 0;
		break;
	}
	case 0x26: {							/* s_bfe_i32 */
		unsigned off = b & 31, wd = (b >> 16) & 0x7f;

		if (wd == 0) {
			r = 0;
		} else {
			if (wd + off > 32)
				wd = 32 - off;
			r = (uint32_t)((int32_t)(a << (32 - off - wd)) >> (32 - wd));
		}
		w->scc = r != 0;
		break;
	}
	case 0x27: case 0x28: {						/* s_bfe_u64, s_bfe_i64 */
		unsigned off = b & 63, wd = (b >> 16) & 0x7f;

		a64 = isa_sreg64(w, in, in->src[0], false);
		if (wd == 0) {
			r64 = 0;
		} else {
			if (wd + off > 64)
				wd = 64 - off;
			r64 = a64 << (64 - off - wd);
			r64 = op == 0x28 ? (uint64_t)((int64_t)r64 >> (64 - wd)) : r64 >> (64 - wd);
		}
		isa_swrite64(w, in->dst, r64);
		w->scc = r64 != 0;
		return 0;
	}
	case 0x2a: {							/* s_absdiff_i32 */
		int64_t d = (int64_t)(int32_t)a - (int32_t)b;

		r = (uint32_t)(d < 0 ? -d : d);
		w->scc = r != 0;
		break;
	}
	case 0x2c: r = (uint32_t)(((uint64_t)a * b) >> 32); break;
	case 0x2d: r = (uint32_t)(((int64_t)(int32_t)a * (int32_t)b) >> 32); break;
	case 0x2e: case 0x2f: case 0x30: case 0x31:			/* s_lshlN_add_u32 */
		r = (a << (op - 0x2d)) + b;
		w->scc = ((uint64_t)a << (op - 0x2d)) + b > UINT32_MAX;
		break;
	case 0x32: r = (a & 0xffff) | b << 16; break;			/* s_pack_ll_b32_b16 */
	case 0x33: r = (a & 0xffff) | (b & 0xffff0000u); break;
	case 0x34: r = a >> 16 | (b & 0xffff0000u); break;
	default:
		return -ISA_E_DECODE;
	}
	isa_swrite32(w, in->dst, r);
	return 0;
}

INLINE int sopc(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in,
		unsigned op)
{
	uint32_t a = isa_sreg32(w, in, in->src[0]), b = isa_sreg32(w, in, in->src[1]);
	int32_t sa = (int32_t)a, sb = (int32_t)b;

	switch (op) {
	case 0x00: w->scc = sa == sb; break;
	case 0x01: w->scc = sa != sb; break;
	case 0x02: w->scc = sa > sb; break;
	case 0x03: w->scc = sa >= sb; break;
	case 0x04: w->scc = sa < sb; break;
	case 0x05: w->scc = sa <= sb; break;
	case 0x06: w->scc = a == b; break;
	case 0x07: w->scc = a != b; break;
	case 0x08: w->scc = a > b; break;
	case 0x09: w->scc = a >= b; break;
	case 0x0a: w->scc = a < b; break;
	case 0x0b: w->scc = a <= b; break;
	case 0x0c: w->scc = !((a >> (b & 31)) & 1); break;
	case 0x0d: w->scc = (a >> (b & 31)) & 1; break;
	case 0x12: case 0x13: {
		uint64_t a64 = isa_sreg64(w, in, in->src[0], false);
		uint64_t b64 = isa_sreg64(w, in, in->src[1], false);

		w->scc = op == 0x12 ? a64 == b64 : a64 != b64;
		break;
	}
	default:
		return -ISA_E_DECODE;
	}
	return 0;
}

INLINE int sopk(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in,
		unsigned op)
{
	uint32_t k = (uint32_t)in->offset, d = in->dst < ISA_NSGPR ? w->s[in->dst] : 0;
	int32_t sd = (int32_t)d, sk = in->offset;
	uint32_t uk = k & 0xffff;

	switch (op) {
	case 0x00: isa_swrite32(w, in->dst, k); break;			/* s_movk_i32 */
	case 0x01: if (w->scc) isa_swrite32(w, in->dst, k); break;
	case 0x02: w->scc = sd == sk; break;
	case 0x03: w->scc = sd != sk; break;
	case 0x04: w->scc = sd > sk; break;
	case 0x05: w->scc = sd >= sk; break;
	case 0x06: w->scc = sd < sk; break;
	case 0x07: w->scc = sd <= sk; break;
	case 0x08: w->scc = d == uk; break;
	case 0x09: w->scc = d != uk; break;
	case 0x0a: w->scc = d > uk; break;
	case 0x0b: w->scc = d >= uk; break;
	case 0x0c: w->scc = d < uk; break;
	case 0x0d: w->scc = d <= uk; break;
	case 0x0e: {							/* s_addk_i32 */
		uint32_t r = d + k;

		w->scc = ((~(d ^ k) & (d ^ r)) >> 31) & 1;
		isa_swrite32(w, in->dst, r);
		break;
	}
	case 0x0f: isa_swrite32(w, in->dst, d * k); break;		/* s_mulk_i32 */
	case 0x11: {							/* s_getreg_b32 */
		unsigned id = uk & 0x3f, off = (uk >> 6) & 0x1f, size = ((uk >> 11) & 0x1f) + 1;
		uint32_t v = 0;

		/* HW_REG_SH_MEM_BASES: bits 63:48 of the private (15:0) and
		 * shared (31:16) apertures; every other register reads 0 */
		if (id == 15)
			v = (ISA_SHARED_HI >> 16) << 16 | (ISA_PRIVATE_HI >> 16);
		v >>= off;
		isa_swrite32(w, in->dst, size >= 32 ? v : v & ((1u << size) - 1));
		break;
	}
	default:
		return -ISA_E_DECODE;
	}
	return 0;
}

/* SOPP. The program counter is already past the instruction: a branch
 * target is relative to it. */
int isa_h_nop(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in)
{
	(void)w;
	(void)env;
	(void)in;
	return 0;
}

/* s_sendmsg: on gfx9 a compute kernel sends only MSG_INTERRUPT (1), the
 * doorbell of a hostcall (printf); it reaches the host's handler. */
int isa_h_sendmsg(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in)
{
	if ((in->offset & 0xf) == 1 && env->interrupt)
		env->interrupt(env->interrupt_arg, w->s[ISA_M0]);
	return 0;
}

int isa_h_none(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in)
{
	(void)w;
	(void)env;
	(void)in;
	return -ISA_E_DECODE;	/* never bound (decode.c): a row that is known, not run */
}

int isa_h_endpgm(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in)
{
	(void)env;
	w->state = W_DONE;
	w->pc -= 4u * in->words;	/* an ended wave stays on its s_endpgm */
	return 0;
}

int isa_h_barrier(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in)
{
	(void)env;
	(void)in;
	w->state = W_BARRIER;
	return 0;
}

/* s_sleep: a wave that waits for another lets the workgroup's others run */
int isa_h_sleep(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in)
{
	(void)env;
	(void)in;
	w->yield = true;
	return 0;
}

int isa_h_branch(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in)
{
	int64_t target = (int64_t)w->pc + 4 * (int64_t)in->offset;
	bool take;

	(void)env;
	switch (in->op) {
	case 0x02: take = true; break;
	case 0x04: take = !w->scc; break;
	case 0x05: take = w->scc; break;
	case 0x06: take = isa_vcc(w) == 0; break;
	case 0x07: take = isa_vcc(w) != 0; break;
	case 0x08: take = isa_exec(w) == 0; break;
	default: take = isa_exec(w) != 0; break;
	}
	if (!take)
		return 0;
	if (target < 0)
		return -ISA_E_PC;
	w->pc = (uint64_t)target;
	return 0;
}

int isa_h_smem(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in)
{
	uint64_t base = isa_sreg64(w, in, in->addr, false) & 0xffffffffffffull, addr[16];
	unsigned n;
	int64_t off = in->offset;
	uint32_t buf[16];

	switch (in->op) {
	case 0x00: n = 1; break;
	case 0x01: n = 2; break;
	case 0x02: n = 4; break;
	case 0x03: n = 8; break;
	case 0x04: n = 16; break;
	case 0x20: case 0x21: case 0x22: case 0x23:	/* dcache inv/wb: in order, nothing */
		return 0;
	case 0x24: case 0x25: {				/* s_memtime, s_memrealtime */
		struct timespec ts;
		uint64_t hz = in->op == 0x25 ? ISA_REALTIME_HZ : ISA_SHADER_CLOCK_KHZ * 1000ull;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		isa_swrite64(w, in->dst, (uint64_t)ts.tv_sec * hz +
				 (uint64_t)ts.tv_nsec * (hz / 1000000u) / 1000u);
		/* a wave that reads a clock at or before the place of its last
		 * read has gone round a loop: it waits for a mark to pass, so
		 * its turn ends and the other resident groups' waves, which a
		 * GPU runs meanwhile, run too (dispatch.c). Reads in a straight
		 * line (clock64 then wall_clock64) do not end it: they would be
		 * a whole round of the groups apart, where a GPU takes cycles. */
		w->yield = w->pc <= w->clock_pc;
		w->clock_pc = w->pc;
		return 0;
	}
	default:
		return -ISA_E_DECODE;
	}
	if (in->soffset != 0xffff)
		off += isa_sreg32(w, in, in->soffset);
	/* the dwords side by side (adding 4 keeps the low bits cleared):
	 * one run, straight into the SGPRs when they are all plain ones */
	uint64_t a = (base + (uint64_t)off) & ~3ull;

	if (env->mem->run) {
		uint32_t *d = in->dst + n <= ISA_NSGPR ? &w->s[in->dst] : buf;

		if (env->mem->run(env->mem, a, n, 4, false, d))
			return -ISA_E_FAULT;
		if (d == w->s + in->dst)
			return 0;
	} else {
		for (unsigned i = 0; i < n; i++)
			addr[i] = a + 4 * i;
		if (env->mem->access(env->mem, addr, n, 4, false, buf))
			return -ISA_E_FAULT;
	}
	for (unsigned i = 0; i < n; i++)
		isa_swrite32(w, in->dst + i, buf[i]);
	return 0;
}

/* One handler per SOP1/SOP2/SOPC/SOPK row of the table (ops.def), its
 * family's body with the opcode fixed. */
#define SALU_HANDLER(h, body, op) \
	int isa_h_##h(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in) \
	{ \
		return body(w, env, in, op); \
	}
#define ROW(fmt, op, name, ty, fl, h) ROW_##fmt(op, h)
#define ROW_SOP1(op, h) SALU_HANDLER(h, sop1, op)
#define ROW_SOP2(op, h) SALU_HANDLER(h, sop2, op)
#define ROW_SOPC(op, h) SALU_HANDLER(h, sopc, op)
#define ROW_SOPK(op, h) SALU_HANDLER(h, sopk, op)
#define ROW_SOPP(op, h)
#define ROW_SMEM(op, h)
#define ROW_VOP(op, h)
#define ROW_VOP3P(op, h)
#define ROW_FLAT(op, h)
#define ROW_MUBUF(op, h)
#define ROW_DS(op, h)
#define ROW_MIMG(op, h)
#include "ops.def"
#undef ROW
