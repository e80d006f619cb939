/* SPDX-License-Identifier: MIT */
/*
 * isa.h - the simulator's gfx90a interpreter: decoder, wave state,
 * instruction semantics, and the memory interface the semantics use.
 *
 * Layers (each file one idea):
 *   ops.def    the opcode table: every opcode's row (format, opcode,
 *              mnemonic, operand types, flags, handler)
 *   ops.c      the table as data: the decoder's index, names, counts
 *   decode.c   instruction words -> struct isa_insn (no state, no memory),
 *              the handler picked here, once
 *   step.c     one instruction of one wave: the decoded handler, run
 *   operand.c  operand access: scalar sources and destinations, inline
 *              constants (operand.h: the vector sources and masked writes)
 *   simd.c     which of the handlers' x86 vector paths run (AVX2, AVX-512)
 *   salu.c     scalar ALU, SMEM, branches and program control
 *   valu.c     vector comparisons, lane moves, VOP3P, DPP and SDWA operands
 *   valu_ops.c vector ALU operations with 32- and 64-bit results
 *   valu16.c   16-bit integer and half-precision operations, packed and mixed
 *   valu_wave.c element-wise vector operations as whole-wave loops
 *   vmem.c     FLAT/GLOBAL, MUBUF (scratch), DS (LDS)
 *   dispatch.c kernel descriptor, dispatch packet, workgroups on threads
 *   guard.c    the simulator's memory backend: fault path + guarded copies
 *   run.c      launches in the simulated runtime (prepared-kernel cache)
 *
 * Contract: isa_step runs one instruction of one wave; it never blocks
 * except inside the memory backend (a GPU page fault waits for its
 * handler). Errors are negative ISA_E_* values, everywhere (the memory
 * interface's callbacks too); nothing here logs. A wave
 * belongs to one thread at a time (its workgroup's); LDS is shared by the
 * waves of a workgroup, which run cooperatively on one thread, so LDS needs
 * no locking. Global memory is reached only through struct isa_mem.
 */
#ifndef HIPSVM_SIM_ISA_H
#define HIPSVM_SIM_ISA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ISA_LANES 64
#define ISA_NSGPR 128		/* s0..s101, flat_scr, xnack, vcc, ttmp, m0, exec */
#define ISA_NVGPR 256
#define ISA_NAGPR 256
/* Registers past the architectural VGPRs: DPP and SDWA operands are
 * staged there (valu.c), so every handler reads them as plain VGPRs. */
#define ISA_VTMP 3

/* special SGPR slots in isa_wave.s[] (the operand encoding's numbers) */
#define ISA_FLAT_SCR_LO 102
#define ISA_VCC_LO 106
#define ISA_M0 124
#define ISA_EXEC_LO 126

/* The LDS and private apertures of flat addresses: the high dword of an
 * address in them. Above 2^47, so no host mapping can be there. */
#define ISA_SHARED_HI 0x10000u
#define ISA_PRIVATE_HI 0x20000u
/* The base a scratch buffer descriptor carries (48 bits, likewise). */
#define ISA_SCRATCH_BASE 0xfffe00000000ull
/* one wave's private memory for a per-lane size: whole dwords a lane */
#define ISA_SCRATCH_WAVE(lane) ((size_t)ISA_LANES * (((size_t)(lane) + 3) & ~(size_t)3))

/*
 * The two counters a kernel reads, both from CLOCK_MONOTONIC so that a
 * kernel waiting on either waits that long in wall time: s_memrealtime at
 * the constant 100 MHz of MI200's reference clock, s_memtime (clock64())
 * at the shader clock the runtime reports as clockRate, in kHz (what a
 * delay kernel multiplies milliseconds by).
 */
#define ISA_REALTIME_HZ 100000000ull
#define ISA_SHADER_CLOCK_KHZ 1700000u

enum isa_err {
	ISA_OK = 0,
	ISA_E_DECODE = 1,	/* an encoding the table lacks, or an operand form it refuses */
	ISA_E_FAULT = 2,	/* a real GPU memory fault: hipErrorIllegalAddress */
	ISA_E_PC = 3,		/* the program counter left the kernel's code */
	ISA_E_ABORT = 4,	/* stopped from outside (another wave faulted) */
	ISA_E_LIMIT = 5,	/* beyond what the interpreter sizes (waves per workgroup) */
	ISA_E_NOMEM = 6,	/* an allocation failed */
	ISA_E_LDS = 7,		/* more LDS than a workgroup has (ISA_LDS_MAX) */
	ISA_E_SCRATCH = 8,	/* the scratch (private segment) cannot be allocated */
};

/* A sentence for -ISA_E_* (or "unknown error"). */
const char *isa_strerror(int err);

enum isa_ext { ISA_EXT_DPP = 1, ISA_EXT_SDWA = 2 };

/* SDWA operand selects and the destination's unused bits */
enum isa_sdwa_sel { SEL_BYTE0, SEL_BYTE1, SEL_BYTE2, SEL_BYTE3, SEL_WORD0, SEL_WORD1, SEL_DWORD };
enum isa_sdwa_unused { UNUSED_PAD, UNUSED_SEXT, UNUSED_PRESERVE };

enum isa_fmt {
	F_SOP2 = 1, F_SOPK, F_SOP1, F_SOPC, F_SOPP, F_SMEM,
	F_VOP2, F_VOP1, F_VOPC, F_VOP3, F_VOP3P, F_DS, F_FLAT, F_MUBUF, F_MIMG,
	F_COUNT
};

/* Operand types of a table row (ops.def's T(), ISA_T here): 4 bits each for the
 * destination and up to three sources. */
enum isa_otype { OT__, OT_b, OT_B, OT_f, OT_d, OT_h };
#define ISA_T(d, a, b, c) ((uint16_t)(OT_##d | OT_##a << 4 | OT_##b << 8 | OT_##c << 12))
#define ISA_DTYPE(t) ((t) & 15u)
#define ISA_STYPE(t, i) ((t) >> (4 * ((i) + 1)) & 15u)

/* Row flags (ops.def). */
enum isa_oflag {
	O_SDST = 1 << 0,	/* writes a lane mask: VCC, or VOP3b's sdst */
	O_CMPX = 1 << 1,	/* ... and EXEC */
	O_LIT = 1 << 2,		/* a VOP2 whose encoding carries a literal */
	O_SGPR_DST = 1 << 3,	/* a VOP1 with an SGPR result */
	O_NO_CLAMP = 1 << 4,	/* refused with clamp */
	O_NO_OPSEL = 1 << 5,	/* refused with op_sel */
	O_HOSTCALL = 1 << 7,	/* a message to the host: refused at prepare */
};

struct isa_wave;
struct isa_env;
struct isa_insn;

/* One instruction on a whole wave: every lane of EXEC in one call. The
 * program counter has already moved past the instruction (a branch sets
 * it); 0 or -ISA_E_*. */
typedef int isa_handler(struct isa_wave *w, const struct isa_env *env,
			const struct isa_insn *in);

/* A row of the opcode table. */
struct isa_opdef {
	uint8_t fmt;		/* F_SOP1.., F_VOP3 for the VOP space */
	uint16_t op;
	uint16_t types;		/* ISA_T() */
	uint16_t flags;		/* O_* */
	const char *name;	/* the mnemonic (FLAT's with flat_) */
	isa_handler *fn;	/* NULL: known, not run */
};

/* ops.c: the table (row 0 is none), and the row of (format, opcode) in
 * the table's numbering (VOP1/VOP2/VOPC in the VOP3 space), or 0. */
extern const struct isa_opdef isa_ops[];
extern const unsigned isa_nops;
unsigned isa_row(unsigned fmt, unsigned op);

/* One decoded instruction. VOP1/VOP2/VOPC are kept in their VOP3 opcode
 * space (VOPC n, VOP2 0x100+n, VOP1 0x140+n) so that each operation has
 * one semantic whatever its encoding. Operands use the hardware's 9-bit
 * source numbers (VGPR n is 256+n; 255 is the literal). The decoder looks
 * up the row and resolves the float source modifiers into masks: a float
 * source's 32 bits (an f64's high dword, an f16's low half) are read as
 * (v & sand[i]) ^ sxor[i]; `mods` says whether any modifier or output
 * modifier is on, so a handler chooses its loop once per instruction. */
struct isa_insn {
	uint8_t fmt;
	uint8_t words;		/* 1..3 dwords, literal included */
	uint16_t op;
	uint16_t row;		/* isa_ops[row]; 0: not in the table */
	uint16_t dst;		/* SGPR number, or 256+VGPR for vector results */
	uint16_t sdst;		/* VOP3b / VOPC's carry or mask destination */
	uint16_t src[3];
	uint32_t lit;
	uint8_t abs, neg, omod, clamp, opsel, opsel_hi;
	/* VOP1/VOP2/VOPC with a DPP or SDWA dword (src0 250/249 in the
	 * encoding; src[0] then holds the real operand). abs/neg/clamp/omod
	 * above carry the dword's modifiers; fn is valu.c's isa_h_dpp or
	 * isa_h_sdwa, which runs the row's handler on the staged operands. */
	uint8_t ext;		/* 0, ISA_EXT_DPP, ISA_EXT_SDWA */
	uint8_t row_mask, bank_mask, bound_ctrl;	/* DPP */
	uint16_t dpp_ctrl;
	uint8_t sel[2], sext, dst_sel, dst_unused;	/* SDWA (sext: bit per source) */
	bool mods;		/* a float source or output modifier is on */
	/* Set by isa_kernel_prepare for the run loop (step.c), 0 elsewhere.
	 * plain: the handler leaves pc, state and yield alone (not SOPP but
	 * the no-ops, not s_setpc/s_swappc), so the loop goes on to the next
	 * slot without its checks. fold: how many one-dword no-op
	 * instructions (s_nop, s_waitcnt, ...) follow a plain one; the loop
	 * steps over them and counts them as executed, instead of calling
	 * their handler. end: the byte offset past the instruction; next: the
	 * slot after it and its fold no-ops. */
	uint8_t plain, fold;
	/* a store, atomic, LDS write, message or clock read: what makes a
	 * loop more than a spin (isa_spin); counted only in a watched run */
	uint8_t event;
	uint32_t sand[3], sxor[3];
	isa_handler *fn;	/* what runs it; NULL: not supported */
	/* memory fields */
	int32_t offset;		/* SMEM/FLAT/MUBUF offset, DS offset0, SOPP/SOPK simm16 */
	uint8_t offset1;	/* DS offset1 */
	uint8_t seg;		/* FLAT: 0 flat, 1 scratch, 2 global */
	uint8_t glc, slc, offen, idxen, imm, gds;
	uint8_t dmask, unorm, da;		/* MIMG (ssamp in saddr) */
	uint16_t addr, data, data1, saddr, srsrc, soffset; /* register numbers */
	uint32_t end;				/* with plain (above) */
	const struct isa_insn *next;
};

/* One page-walking, guarded view of GPU memory (guard.c for the
 * simulator; a plain one for the tests). Each returns 0 or -ISA_E_FAULT. */
struct isa_mem {
	/* n accesses of size bytes at addr[i]: reads fill buf (n*size
	 * bytes, in order), writes take it. */
	int (*access)(struct isa_mem *m, const uint64_t *addr, unsigned n, unsigned size,
		      bool write, void *buf);
	/* access with addr[i] = a + i * size, told so (a whole wave's dwords
	 * side by side: the addresses need not be built nor checked). NULL:
	 * the interpreter builds them and calls access. */
	int (*run)(struct isa_mem *m, uint64_t a, unsigned n, unsigned size, bool write,
		   void *buf);
	/* n atomic read-modify-writes of one kind (op: an ISA_AT_*), size 4
	 * or 8, in lane order: addr[i] with src[i] (and cmp[i] for CMPSWAP;
	 * cmp may be NULL otherwise); old[i] gets the memory's previous
	 * value. A fault stops at its lane, the lanes before it done. */
	int (*atomic)(struct isa_mem *m, const uint64_t *addr, unsigned n, unsigned size, int op,
		      const uint64_t *src, const uint64_t *cmp, uint64_t *old);
	/* A worker thread is done with the dispatch (dispatch.c calls it on
	 * each, before the dispatch returns): what it counted per thread goes
	 * to the shared counts. NULL: nothing to do. */
	void (*leave)(struct isa_mem *m);
};

enum isa_atomic {
	ISA_AT_SWAP, ISA_AT_CMPSWAP, ISA_AT_ADD, ISA_AT_SUB, ISA_AT_SMIN, ISA_AT_UMIN,
	ISA_AT_SMAX, ISA_AT_UMAX, ISA_AT_AND, ISA_AT_OR, ISA_AT_XOR, ISA_AT_INC, ISA_AT_DEC,
	/* the floating-point ones last (guard.c tells them by that) */
	ISA_AT_FADD32, ISA_AT_FADD64, ISA_AT_FMIN64, ISA_AT_FMAX64,
};

/* atomic.c: the new value an ISA_AT_* (not CMPSWAP) makes of old with src */
uint64_t isa_atomic_rmw(int op, unsigned size, uint64_t old, uint64_t src);

/* vmem.c: out's i-th 4 bytes = the 4 bytes at addr[i], i < n, every
 * address already checked (hardware gathers where the CPU has them). For
 * memory backends: call it inside the guard, as any other load. */
void isa_gather32(void *out, const uint64_t *addr, unsigned n);

/* What a wave sees of its dispatch. */
struct isa_env {
	struct isa_mem *mem;
	uint8_t *lds;		/* the workgroup's LDS */
	uint32_t lds_size;
	/* the wave's private memory, ISA_SCRATCH_WAVE(scratch_lane) bytes,
	 * interleaved as the hardware swizzles it: dword d of lane l at
	 * (d * ISA_LANES + l) * 4, so a wave's lanes at one offset are
	 * neighbours (vmem.c) */
	uint8_t *scratch;
	uint32_t scratch_lane;
	const uint8_t *code;	/* the kernel's code; pc is relative to it */
	size_t code_size;
	uint64_t code_vaddr;	/* s_getpc_b64 answers code_vaddr + pc */
	const struct isa_insn *prog;	/* decoded, one slot per dword (NULL: decode on the fly) */
	const uint32_t *stop;	/* non-zero: abort at the next instruction */
	/* s_sendmsg MSG_INTERRUPT: the host's interrupt handler, called on the
	 * wave's thread with M0 (the hostcall doorbell's event id); NULL: the
	 * message goes nowhere */
	void (*interrupt)(void *arg, uint32_t m0);
	void *interrupt_arg;
	/* the VGPR and AGPR rows the kernel has (rsrc1, rsrc3): what spin
	 * detection hashes */
	uint16_t nvgpr, nagpr;
};

enum isa_wave_state { W_RUN, W_BARRIER, W_DONE };

/*
 * Spin detection (step.c): a wave that comes back to a pc with every
 * register it has as it was there before, having stored nothing (no store,
 * atomic, LDS write or message, no clock read: w->events did not move),
 * will do the same again until another agent changes memory. The state is
 * hashed in two parts: the SGPRs and SCC (which tell most loops apart at
 * once, for 512 bytes) and, only when those repeat, the VGPRs and AGPRs the
 * kernel has. Kept in the wave between turns, so that a loop one
 * iteration a turn (s_sleep) is seen too.
 */
enum { SPIN_SEEN = 1, SPIN_SPUN = 2 };
struct isa_spin {
	uint64_t head, tail;	/* the pc anchored at; the jump's that came there */
	uint64_t shash, vhash;
	uint32_t events;	/* w->events when anchored */
	uint32_t turn_events;	/* w->events when the turn began */
	union {
		struct {
			uint8_t stage;	/* 0 no anchor, 1 SGPRs hashed, 2 VGPRs too */
			uint8_t flags;	/* SPIN_SEEN: has spun; SPIN_SPUN:
					 * repeats now */
			uint8_t tries;	/* anchors left this turn; 0: unwatched */
			uint8_t skip;	/* log2 of the turns left unwatched after
					 * one that found no spin */
			uint8_t wait;	/* those turns, counted down */
			uint8_t detected; /* times it began to spin this turn */
		};
		uint64_t word;	/* all of the above: cleared at once */
	};
};

struct isa_wave {
	uint32_t s[ISA_NSGPR];
	uint32_t v[ISA_NVGPR + ISA_VTMP][ISA_LANES];
	uint32_t acc[ISA_NAGPR][ISA_LANES];	/* AGPRs (v_accvgpr_read/write) */
	uint64_t pc;		/* byte offset into env->code */
	bool scc;
	uint8_t state;
	bool yield;		/* s_sleep, a clock read: the turn ends (dispatch.c) */
	uint64_t clock_pc;	/* pc past the wave's last clock read; 0: none */
	uint32_t id;		/* wave index in its workgroup */
	uint64_t insns;		/* instructions executed */
	/* isa_insn.event instructions run in watched turns (step.c); only
	 * its changes matter */
	uint32_t events;
	struct isa_spin spin;
};

/* A MUBUF lane's index (idxen: the first address VGPR) and offset (the
 * instruction's, plus offen: the next VGPR), as buffer addressing reads
 * them (vmem.c, image.c's format loads). */
static inline void isa_mubuf_lane(const struct isa_wave *w, const struct isa_insn *in,
				  unsigned l, uint64_t *idx, uint64_t *off)
{
	unsigned v = in->addr;

	*idx = in->idxen ? w->v[v++ & 0xff][l] : 0;
	*off = (uint32_t)in->offset + (in->offen ? (uint64_t)w->v[v & 0xff][l] : 0);
}

static inline uint64_t isa_exec(const struct isa_wave *w)
{
	return (uint64_t)w->s[ISA_EXEC_LO] | (uint64_t)w->s[ISA_EXEC_LO + 1] << 32;
}

static inline uint64_t isa_vcc(const struct isa_wave *w)
{
	return (uint64_t)w->s[ISA_VCC_LO] | (uint64_t)w->s[ISA_VCC_LO + 1] << 32;
}

/* decode.c: the instruction at code[0..len): 0 when its encoding parses
 * and its (format, opcode) has a row (in->fn NULL when the row is not run,
 * or refuses the operand form); -ISA_E_DECODE otherwise, with in->fmt and
 * in->op kept where the format was recognised. */
int isa_decode(const uint8_t *code, size_t len, struct isa_insn *out);
/* Is this decoded instruction one the semantics implement? */
bool isa_supported(const struct isa_insn *in);
/* Its mnemonic for messages ("v_pk_fma_f32"; "VOP3 opcode 0x1e4" for
 * one the table lacks). */
void isa_describe(const struct isa_insn *in, char *buf, size_t len);

/* step.c: runs one instruction: ISA_OK (pc advanced or branched), or an
 * error (pc left at the instruction). isa_exec_insn runs a decoded one
 * at the wave's pc. */
int isa_step(struct isa_wave *w, const struct isa_env *env);
/* Runs up to budget instructions while the wave runs (not ended, not at a
 * barrier, not yielding); 0 or the first error. */
int isa_run_wave(struct isa_wave *w, const struct isa_env *env, uint64_t budget);
/* The same, watching for a spin (isa_spin) at every arrival by a backward
 * jump; the run ends early at a repeat. */
int isa_run_wave_watch(struct isa_wave *w, const struct isa_env *env, uint64_t budget);
/* After a turn that a wave ends still running (at its quantum's end or
 * yielding, not at a barrier), whether to watch its next one
 * (w->spin.tries: 0 not). Never the first turn of a wave (setup clears
 * tries): a wave that ends within one turn pays nothing. Then every turn,
 * except for 2^skip turns (up to 64) after one that found the wave's loop
 * progressing or storing (step.c), so that a long loop that is no spin
 * pays for a watched turn in 64 at most. */
static inline void isa_spin_next(struct isa_wave *w)
{
	struct isa_spin *sp = &w->spin;

	sp->turn_events = w->events;
	sp->tries = 0;
	if (sp->wait) {
		sp->wait--;
		/* unwatched, a repeat could not be told from a change */
		sp->flags &= (uint8_t)~SPIN_SPUN;
		return;
	}
	sp->tries = 4;
}
/* After a watched turn (before isa_spin_next): is the wave spinning? Its
 * last arrival was a repeat, nothing in the turn was an event, and it is
 * still within the iteration (between the loop's head and its jump back:
 * a wave that left the loop forward, seen by no arrival since, is not). */
static inline bool isa_spin_calm(const struct isa_wave *w)
{
	const struct isa_spin *sp = &w->spin;

	return (sp->flags & SPIN_SPUN) && w->events == sp->turn_events && w->pc >= sp->head &&
	       w->pc <= sp->tail;
}
int isa_exec_insn(struct isa_wave *w, const struct isa_env *env, const struct isa_insn *in);

/* operand.c: scalar operand access: a 32/64-bit source (inline constants
 * as the operand size wants them; 64-bit float constants are doubles when
 * f64 is set), and SGPR writes (out of range: dropped). The _any forms
 * take every source; the inline ones below answer SGPRs, inline integers
 * and the literal in place (every instruction reads some) and call them
 * for the rest. */
uint32_t isa_sreg32_any(const struct isa_wave *w, const struct isa_insn *in, unsigned src);
uint64_t isa_sreg64_any(const struct isa_wave *w, const struct isa_insn *in, unsigned src, bool f64);

static inline uint32_t isa_sreg32(const struct isa_wave *w, const struct isa_insn *in,
				  unsigned src)
{
	if (src < ISA_NSGPR)
		return w->s[src];
	if (src <= 192)
		return src - 128;	/* 128..192: the integers 0..64 */
	if (src == 255)
		return in->lit;
	return isa_sreg32_any(w, in, src);
}

static inline uint64_t isa_sreg64(const struct isa_wave *w, const struct isa_insn *in,
				  unsigned src, bool f64)
{
	if (src < ISA_NSGPR - 1)
		return (uint64_t)w->s[src] | (uint64_t)w->s[src + 1] << 32;
	return isa_sreg64_any(w, in, src, f64);
}

static inline void isa_swrite32(struct isa_wave *w, unsigned dst, uint32_t v)
{
	if (dst < ISA_NSGPR)
		w->s[dst] = v;
}

static inline void isa_swrite64(struct isa_wave *w, unsigned dst, uint64_t v)
{
	if (dst >= ISA_NSGPR - 1)
		return;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* One 64-bit store. The pair's readers (isa_exec, isa_vcc, isa_sreg64)
	 * compile to one 64-bit load, which two 32-bit stores cannot forward
	 * to: the load then waits until both have left the store buffer, and
	 * on a loop's exec mask (written by s_andn2_b64, read by the branch
	 * and the next instruction) that wait was a tenth of its time. */
	memcpy(&w->s[dst], &v, sizeof(v));
#else
	w->s[dst] = (uint32_t)v;
	w->s[dst + 1] = (uint32_t)(v >> 32);
#endif
}

/* The handlers' explicitly written vector paths (operand.h), widest
 * first: a level is used when the CPU has it and isa_simd_limit allows it
 * (simd.c). Every path computes the same bits. */
enum isa_simd { ISA_SIMD_NONE, ISA_SIMD_AVX2, ISA_SIMD_AVX512 };

extern enum isa_simd isa_simd_level;
/* Sets the level to the lower of max and the CPU's; returns it. Not while
 * waves run (the simulator calls it at start-up, tests between cases). */
enum isa_simd isa_simd_limit(enum isa_simd max);
/* The widest the CPU (and the OS) gives. */
enum isa_simd isa_simd_cpu(void);

/* x86-64 with AVX-512 or AVX2 (and FMA, where the row's one operation is
 * an fma) runs the loops 16 or 8 lanes at a time; chosen once, when the
 * library loads. Only for loops whose arithmetic is one IEEE operation
 * per result, so that no contraction can change a bit. The AVX-512 clone
 * matters beside the AVX-512 paths: a 64-byte load of a VGPR that two
 * 32-byte stores have just written cannot take its data from them, and
 * waits until both have left the store buffer. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ISA_WIDE __attribute__((target_clones("avx512f", "avx2", "default")))
#define ISA_WIDE_FMA __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define ISA_WIDE
#define ISA_WIDE_FMA
#endif

/* Before a whole-wave loop (eight-lane steps, or 64 lanes the compiler
 * vectorises eight at a time): the steps in line. -O2 keeps the loop,
 * whose count and branch were a third of a short handler's instructions. */
#if defined(__GNUC__) && !defined(__clang__)
#define ISA_UNROLL _Pragma("GCC unroll 8")
#else
#define ISA_UNROLL
#endif

/* The handlers (named in ops.def), declared from the table. */
#define ROW(fmt, op, name, ty, fl, h) isa_handler isa_h_##h;
#include "ops.def"
#undef ROW
/* valu.c: a VOP1/VOP2/VOPC with a DPP or SDWA dword (bound at decode) */
isa_handler isa_h_dpp, isa_h_sdwa;
/* valu_wave.c: v_add_co_u32 and the v_addc_co_u32 after it that takes its
 * carry, run as one (bound by dispatch.c's marks on the first's slot,
 * whose end, fold and next are then the second's; the handler counts the
 * second in isa_wave.insns) */
isa_handler isa_h_carry_pair;

#endif
