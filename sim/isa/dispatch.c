/* SPDX-License-Identifier: MIT */
/*
 * dispatch.c - kernel descriptor, wave set-up, workgroups (dispatch.h).
 *
 * Kernel descriptor (64 bytes, code object v4): group_segment_fixed_size
 * at +0, private_segment_fixed_size +4, kernarg_size +8, the entry's offset
 * +16 (signed, from the descriptor), compute_pgm_rsrc3 +44, rsrc1 +48,
 * rsrc2 +52, kernel_code_properties +56 (u16).
 *
 * A wave starts with the user SGPRs the code properties enable, in their
 * fixed order, padded to rsrc2's USER_SGPR count; then the system SGPRs
 * rsrc2 enables: workgroup id x, y, z, workgroup info, the private segment
 * wave offset. v0 holds the work-item id, x | y << 10 | z << 20 (gfx90a
 * packs the three); lanes past the end of the workgroup are off in EXEC.
 */
#include "dispatch.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint32_t rd32le(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* A scalar source that is a known constant: the literal or an inline integer. */
static bool const_src(const struct isa_insn *in, unsigned src, uint32_t *v)
{
	if (src == 255)
		*v = in->lit;
	else if (src >= 128 && src <= 192)
		*v = src - 128;
	else if (src >= 193 && src <= 208)
		*v = (uint32_t)(192 - (int)src);
	else
		return false;
	return true;
}

/*
 * Where a call or jump can go, as lld links them: s_getpc_b64 s[n:n+1], then
 * s_add_u32 sn, sn, lo and s_addc_u32 sn+1, sn+1, hi (the callee's offset
 * from the end of the s_getpc), then s_swappc_b64 / s_setpc_b64 through
 * s[n:n+1]. A scan tracks that per register pair; any other write to the
 * pair forgets it.
 */
struct pcrel {
	uint64_t target[ISA_NSGPR];	/* after getpc: its result; when known: the target */
	uint32_t lo[ISA_NSGPR];		/* the s_add_u32's constant */
	uint8_t stage[ISA_NSGPR];	/* 0 unknown, 1 after getpc, 2 after add, 3 known */
};

static void pcrel_step(struct pcrel *r, const struct isa_insn *in, uint64_t next_vaddr)
{
	unsigned d = in->dst;
	uint32_t c;

	if (in->fmt == F_SOP1 && in->op == 0x1c && d + 1 < ISA_NSGPR) {	/* s_getpc_b64 */
		r->target[d] = next_vaddr;
		r->stage[d] = 1;
		r->stage[d + 1] = 0;
		return;
	}
	if (in->fmt == F_SOP2 && in->op == 0x00 && d < ISA_NSGPR && r->stage[d] == 1 &&
	    in->src[0] == d && const_src(in, in->src[1], &c)) {			/* s_add_u32 */
		r->lo[d] = c;
		r->stage[d] = 2;
		return;
	}
	if (in->fmt == F_SOP2 && in->op == 0x04 && d >= 1 && d < ISA_NSGPR &&
	    r->stage[d - 1] == 2 && in->src[0] == d && const_src(in, in->src[1], &c)) {
		uint64_t b = r->target[d - 1], lo = (b & 0xffffffffu) + r->lo[d - 1];

		/* s_addc_u32: the high half plus its constant and the carry */
		r->target[d - 1] = (lo & 0xffffffffu) | (((b >> 32) + c + (lo >> 32)) << 32);
		r->stage[d - 1] = 3;
		return;
	}
	/* any other scalar write to the pair forgets it */
	if ((in->fmt == F_SOP1 || in->fmt == F_SOP2 || in->fmt == F_SOPK || in->fmt == F_SMEM) &&
	    d < ISA_NSGPR && !(in->fmt == F_SOP1 && in->op == 0x1d)) {
		r->stage[d] = 0;
		if (d)
			r->stage[d - 1] = 0;
		if (d + 1 < ISA_NSGPR)
			r->stage[d + 1] = 0;
	}
}

static bool is_cond_branch(const struct isa_insn *in)
{
	return in->fmt == F_SOPP && ((in->op >= 0x04 && in->op <= 0x09) ||
				     (in->op >= 0x17 && in->op <= 0x1a));
}

static void describe_at(const struct isa_kernel *k, const struct isa_insn *in, bool decoded,
			size_t pc, unsigned flags, char *why, size_t whylen)
{
	char name[48];

	if (!why)
		return;
	if (decoded && in->fmt)
		isa_describe(in, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "word 0x%08x", rd32le(k->code + pc));
	if (pc >= k->entry)
		snprintf(why, whylen, "%s at +0x%zx%s", name, pc - k->entry,
			 flags & O_HOSTCALL ? ": a hostcall such as printf" : "");
	else
		snprintf(why, whylen, "%s at -0x%zx, in a function it calls%s", name, k->entry - pc,
			 flags & O_HOSTCALL ? ": a hostcall such as printf" : "");
}

/* Can the run loop (step.c) go on past this instruction unchecked? Not
 * after one that moves pc (branches, s_setpc_b64, s_swappc_b64) or stops
 * or yields the wave (s_endpgm, s_barrier, s_sleep; all SOPP; and the
 * clock reads s_memtime, s_memrealtime, salu.c). */
static bool is_plain(const struct isa_insn *in)
{
	if (in->fmt == F_SOPP)
		return in->fn == isa_h_nop;
	if (in->fmt == F_SMEM)
		return in->op != 0x24 && in->op != 0x25;
	return !(in->fmt == F_SOP1 && (in->op == 0x1d || in->op == 0x1e));
}

/* The run loop's marks (isa.h: end, plain, fold, next) on every prepared slot. A
 * folded no-op keeps its own slot, so a branch to it runs it as before. */
static void mark_runs(struct isa_kernel *k)
{
	size_t n = k->code_size / 4;

	if (k->code_size > UINT32_MAX)	/* end would not hold it: every slot checked */
		return;
	for (size_t s = 0; s < n; s++) {
		struct isa_insn *in = &k->prog[s];
		size_t j;

		if (!in->fn)
			continue;
		in->end = (uint32_t)(4 * (s + in->words));
		if (!(in->plain = is_plain(in)))
			continue;
		/* the slot past the last (index n) is always empty */
		for (j = s + in->words; in->fold < UINT8_MAX && k->prog[j].fn == isa_h_nop &&
					k->prog[j].words == 1; j++)
			in->fold++;
		in->next = &k->prog[j];
	}
	/* v_add_co_u32 straight before the v_addc_co_u32 that takes its carry
	 * (VCC, or in VOP3 the SGPR pair it wrote): one handler for both on the
	 * first's slot, which then ends where the second does. The second
	 * keeps its own slot, so a branch to it runs it alone. */
	for (size_t s = 0; s < n; s++) {
		struct isa_insn *in = &k->prog[s], *in2;

		if (in->fn != isa_h_carry || in->op != 0x119 || !in->plain || in->fold ||
		    s + in->words >= n)
			continue;
		in2 = &k->prog[s + in->words];
		if (in2->fn != isa_h_carry || in2->op != 0x11c || !in2->plain ||
		    (in2->fmt == F_VOP3 ? in2->src[2] : ISA_VCC_LO) !=
			    (in->fmt == F_VOP3 ? in->sdst : ISA_VCC_LO))
			continue;
		in->fn = isa_h_carry_pair;
		in->end = in2->end;
		in->fold = in2->fold;
		in->next = in2->next;
		in->event |= in2->event;
	}
}

int isa_kernel_prepare_at(struct isa_kernel *k, const uint8_t kd[64], const uint8_t *code,
			  size_t code_size, uint64_t code_vaddr, size_t entry, char *why,
			  size_t whylen)
{
	struct pcrel *pr = NULL;
	size_t *work = NULL, nwork = 0, cap = 0;
	uint16_t props;
	int ret = 0;

	memset(k, 0, sizeof(*k));
	if (why && whylen)
		why[0] = 0;
	k->lds_static = rd32le(kd);
	k->scratch = rd32le(kd + 4);
	k->kernarg_size = rd32le(kd + 8);
	k->rsrc3 = rd32le(kd + 44);
	k->rsrc1 = rd32le(kd + 48);
	k->rsrc2 = rd32le(kd + 52);
	memcpy(&props, kd + 56, 2);
	k->props = props;
	k->code = code;
	k->code_size = code_size & ~(size_t)3;
	k->code_vaddr = code_vaddr;
	k->entry = entry;
	/* gfx90a: VGPRs in granules of 8, AGPRs included */
	k->nvgpr = ((k->rsrc1 & 0x3f) + 1) * 8;
	if (k->nvgpr > ISA_NVGPR)
		k->nvgpr = ISA_NVGPR;
	/* gfx90a's unified file: the AGPRs start at accum_offset */
	if (k->nvgpr > ((k->rsrc3 & 0x3f) + 1) * 4)
		k->nagpr = k->nvgpr - ((k->rsrc3 & 0x3f) + 1) * 4;
	if (props & KCP_WAVE32) {
		if (why)
			snprintf(why, whylen, "wave32 code");
		return -ISA_E_DECODE;
	}
	if (entry % 4 || entry >= k->code_size) {
		if (why)
			snprintf(why, whylen, "an entry outside its code");
		return -ISA_E_DECODE;
	}
	k->prog = calloc(k->code_size / 4 + 1, sizeof(*k->prog));
	pr = malloc(sizeof(*pr));
	if (!k->prog || !pr) {
		if (why)
			snprintf(why, whylen, "out of memory");
		ret = -ISA_E_NOMEM;
		goto out;
	}
	/*
	 * Decoded from the entry, following branches and the calls whose
	 * targets are known (above): every instruction the kernel can reach
	 * that way must be one the semantics implement. Code reached otherwise
	 * (a call through a pointer) is decoded when it runs (step.c).
	 */
	for (size_t start = entry;;) {
		size_t pc = start;

		memset(pr->stage, 0, sizeof(pr->stage));
		while (pc < k->code_size && !k->prog[pc / 4].fn) {
			struct isa_insn in;
			int err = isa_decode(code + pc, k->code_size - pc, &in);
			unsigned flags = err ? 0 : isa_ops[in.row].flags;
			uint64_t next = pc + 4u * (err ? 1 : in.words);
			int64_t target = -1;

			if (err || !isa_supported(&in) || (flags & O_HOSTCALL)) {
				describe_at(k, &in, !err, pc, flags, why, whylen);
				ret = -ISA_E_DECODE;
				goto out;
			}
			k->prog[pc / 4] = in;
			if (in.fmt == F_SOPP && (in.op == 0x02 || is_cond_branch(&in)))
				target = (int64_t)next + 4 * (int64_t)(int16_t)in.offset;
			else if (in.fmt == F_SOP1 && (in.op == 0x1d || in.op == 0x1e) &&
				 in.src[0] < ISA_NSGPR && pr->stage[in.src[0]] == 3 &&
				 pr->target[in.src[0]] >= code_vaddr)
				target = (int64_t)(pr->target[in.src[0]] - code_vaddr);
			if (target >= 0 && (uint64_t)target < k->code_size && target % 4 == 0) {
				if (nwork == cap) {
					size_t *w = realloc(work, (cap = cap ? 2 * cap : 16) * sizeof(*w));

					if (!w) {
						ret = -ISA_E_NOMEM;
						goto out;
					}
					work = w;
				}
				work[nwork++] = (size_t)target;
			}
			pcrel_step(pr, &in, code_vaddr + next);
			if (in.fmt == F_SOP1 && in.op == 0x1e)
				k->calls = true;
			/* the end of a straight run: s_endpgm, s_branch, s_setpc_b64 */
			if ((in.fmt == F_SOPP && (in.op == 0x01 || in.op == 0x02)) ||
			    (in.fmt == F_SOP1 && in.op == 0x1d))
				break;
			pc = next;
		}
		if (!nwork)
			break;
		start = work[--nwork];
	}
	mark_runs(k);
out:
	free(work);
	free(pr);
	if (ret)
		isa_kernel_release(k);
	return ret;
}

int isa_kernel_prepare(struct isa_kernel *k, const uint8_t kd[64], const uint8_t *code,
		       size_t code_size, uint64_t code_vaddr, char *why, size_t whylen)
{
	return isa_kernel_prepare_at(k, kd, code, code_size, code_vaddr, 0, why, whylen);
}

void isa_kernel_release(struct isa_kernel *k)
{
	free(k->prog);
	k->prog = NULL;
}

void isa_dispatch_packet(uint8_t pkt[64], const struct isa_dispatch *d)
{
	uint16_t setup = 3, ws[3];
	uint32_t lds = d->k->lds_static + d->dyn_lds, priv = d->k->scratch;

	memset(pkt, 0, 64);
	for (int i = 0; i < 3; i++)
		ws[i] = (uint16_t)d->block[i];
	memcpy(pkt + 2, &setup, 2);
	memcpy(pkt + 4, ws, 6);
	memcpy(pkt + 12, d->grid, 12);
	memcpy(pkt + 24, &priv, 4);
	memcpy(pkt + 28, &lds, 4);
	memcpy(pkt + 40, &d->kernarg, 8);
}

/*
 * Wave arrays kept between dispatches, for any group size (ISA_WAVES_MAX
 * waves; the pages of waves never used are never touched): at 130 KiB a
 * wave they were a large malloc and free, with the heap's consolidation,
 * per worker per dispatch. Slots taken and given by atomic exchange, so a
 * fork child finds no lock held.
 */
#define ISA_WAVES_MAX 16
#define WAVE_CACHE ISA_MAX_THREADS
static struct isa_wave *wave_cache[WAVE_CACHE];

static struct isa_wave *waves_take(void)
{
	for (unsigned i = 0; i < WAVE_CACHE; i++) {
		struct isa_wave *p = __atomic_exchange_n(&wave_cache[i], NULL, __ATOMIC_ACQUIRE);

		if (p)
			return p;
	}
	/* C11's aligned_alloc wants a multiple of the alignment */
	return aligned_alloc(64, (ISA_WAVES_MAX * sizeof(struct isa_wave) + 63) & ~(size_t)63);
}

static void waves_give(struct isa_wave *p)
{
	for (unsigned i = 0; p && i < WAVE_CACHE; i++) {
		struct isa_wave *none = NULL;

		if (__atomic_compare_exchange_n(&wave_cache[i], &none, p, false, __ATOMIC_RELEASE,
						__ATOMIC_RELAXED))
			return;
	}
	free(p);
}

/*
 * A workgroup resident on a worker: its waves, LDS and scratch, and the
 * environment they run in. Buffers stay with the slot from one group to
 * the next; slot 0 is the worker's first (the cached wave array).
 */
struct slot {
	struct isa_wave *waves;
	uint8_t *lds;
	uint8_t *scratch;
	unsigned nwaves;
	unsigned turns;		/* since it was taken, or since it took another */
	struct isa_env env;
};

struct worker {
	struct isa_dispatch *d;
	/* slots[0, nslots) have buffers, the first ones hold the resident
	 * groups (worker_loop counts them); slots is &one until a second
	 * group is taken */
	struct slot *slots, one;
	unsigned nslots, cap;		/* cap: 0 until first needed */
	struct isa_wave *cached;	/* the first slot's (waves_take) */
	uint64_t insns, nwaves, most;
	uint64_t spins, pauses;
	uint64_t deferred;		/* ns waited for higher-priority dispatches (defer_wait) */
	/* the next pause while the resident groups spin: 0 a sched_yield,
	 * then nanoseconds of sleep (worker_pause); 0 again once one does not */
	uint32_t pause;
	unsigned calm;			/* resident groups in a row that returned T_SPIN */
	pthread_t t;
	void *job;			/* d->spawn's */
	bool started;
};

static void put64(struct isa_wave *w, unsigned *n, uint64_t v)
{
	if (*n + 1 < ISA_NSGPR) {
		w->s[*n] = (uint32_t)v;
		w->s[*n + 1] = (uint32_t)(v >> 32);
	}
	*n += 2;
}

static void *(*volatile clear_fn)(void *, int, size_t) = memset;

static void setup_wave(struct isa_dispatch *d, struct isa_wave *w, unsigned wi,
		       const uint32_t gid[3], const uint32_t gsize[3], uint64_t scratch_off)
{
	const struct isa_kernel *k = d->k;
	unsigned n = 0, user = (k->rsrc2 >> 1) & 0x1f, nthreads = gsize[0] * gsize[1] * gsize[2];
	uint64_t ex = 0;

	/* The registers the kernel has (v0 is written below), cleared seven
	 * rows at a time: the rows are contiguous, and a clear per row was 44
	 * instructions. Through clear_fn, not expanded by the compiler into
	 * rep stos (whose every element callgrind counts as an instruction):
	 * seven rows (1,792 bytes) stay under glibc's rep-stosb threshold
	 * (2 KiB), so its vector loop does them, 16 instructions a row. */
	memset(w->s, 0, sizeof(w->s));
	for (unsigned r = 1; r < k->nvgpr; r += 7)
		clear_fn(w->v[r], 0, (size_t)(k->nvgpr - r < 7 ? k->nvgpr - r : 7) * sizeof(w->v[0]));
	w->pc = k->entry;
	w->clock_pc = 0;
	w->insns = 0;
	w->spin.word = 0;
	w->scc = false;
	w->state = W_RUN;
	w->id = wi;
	if (k->props & KCP_PRIVATE_SEGMENT_BUFFER) {
		/* base (48 bits), stride 0, num_records, and swizzle off: the
		 * interpreter's own scratch (vmem.c), told by the base */
		w->s[n] = (uint32_t)ISA_SCRATCH_BASE;
		w->s[n + 1] = (uint32_t)(ISA_SCRATCH_BASE >> 32);
		w->s[n + 2] = 0xffffffffu;
		w->s[n + 3] = 0x00027000u;
		n += 4;
	}
	if (k->props & KCP_DISPATCH_PTR)
		put64(w, &n, d->packet);
	if (k->props & KCP_QUEUE_PTR)
		put64(w, &n, d->queue);
	if (k->props & KCP_KERNARG_PTR)
		put64(w, &n, d->kernarg);
	if (k->props & KCP_DISPATCH_ID)
		put64(w, &n, 0);
	if (k->props & KCP_FLAT_SCRATCH_INIT)
		put64(w, &n, scratch_off);
	if (k->props & KCP_PRIVATE_SEGMENT_SIZE)
		w->s[n++] = k->scratch;
	if (n < user)
		n = user;
	for (int i = 0; i < 3; i++)
		if (k->rsrc2 >> (7 + i) & 1 && n < ISA_NSGPR)
			w->s[n++] = gid[i];
	if (k->rsrc2 >> 10 & 1 && n < ISA_NSGPR)
		w->s[n++] = 0;		/* workgroup info */
	if (k->rsrc2 & 1 && n < ISA_NSGPR)
		w->s[n++] = (uint32_t)scratch_off;	/* private segment wave offset */
	/* the ids of the wave's first work-item, then counted up (no division per lane) */
	unsigned t = wi * ISA_LANES, x = t % gsize[0], y = t / gsize[0] % gsize[1];
	unsigned z = t / (gsize[0] * gsize[1]);

	if (x + ISA_LANES <= gsize[0] && t + ISA_LANES <= nthreads) {	/* one row: x counts */
		/* x + 63 < gsize[0] <= 1024: no carry into y's bits, so four
		 * lanes at a time are one vector add (the loop lane by lane was
		 * 117 instructions a wave) */
		typedef uint32_t lanes4 __attribute__((vector_size(16)));
		uint32_t base = x | y << 10 | z << 20;
		lanes4 ids = { base, base + 1, base + 2, base + 3 }, four = { 4, 4, 4, 4 };

		for (unsigned l = 0; l < ISA_LANES; l += 4) {
			memcpy(&w->v[0][l], &ids, sizeof(ids));
			ids += four;
		}
		ex = ~0ull;
	} else {
		memset(w->v[0], 0, sizeof(w->v[0]));	/* the lanes past the end too */
		for (unsigned l = 0; l < ISA_LANES && t + l < nthreads; l++) {
			w->v[0][l] = x | y << 10 | z << 20;
			ex |= 1ull << l;
			if (++x == gsize[0]) {
				x = 0;
				if (++y == gsize[1]) {
					y = 0;
					z++;
				}
			}
		}
	}
	isa_swrite64(w, ISA_EXEC_LO, ex);
}

/* The environment a slot's waves run in: the dispatch's, with the slot's
 * LDS (scratch is set per wave). Once per slot: it moves with the slot. */
static void slot_env(const struct isa_dispatch *d, struct slot *sl)
{
	const struct isa_kernel *k = d->k;

	sl->env = (struct isa_env){
		.mem = d->mem,
		.lds = sl->lds,
		.lds_size = k->lds_static + d->dyn_lds,
		.scratch_lane = k->scratch,
		.code = k->code,
		.code_size = k->code_size,
		.code_vaddr = k->code_vaddr,
		.prog = k->prog,
		.stop = &d->stop,
		.interrupt = d->interrupt,
		.interrupt_arg = d->interrupt_arg,
		.nvgpr = (uint16_t)k->nvgpr,
		.nagpr = (uint16_t)k->nagpr,
	};
}

/* Group g into slot sl, whose buffers and environment are there: its ids,
 * its LDS cleared and its waves set up. */
static void admit(struct worker *wk, struct slot *sl, uint64_t g)
{
	struct isa_dispatch *d = wk->d;
	uint32_t ng[3], gid[3], gsize[3];
	unsigned nwaves, i;

	for (i = 0; i < 3; i++)
		ng[i] = (d->grid[i] + d->block[i] - 1) / d->block[i];
	gid[0] = (uint32_t)(g % ng[0]);
	gid[1] = (uint32_t)(g / ng[0] % ng[1]);
	gid[2] = (uint32_t)(g / ((uint64_t)ng[0] * ng[1]));
	for (i = 0; i < 3; i++) {
		uint64_t start = (uint64_t)gid[i] * d->block[i];

		gsize[i] = d->grid[i] - start < d->block[i] ? (uint32_t)(d->grid[i] - start) : d->block[i];
	}
	nwaves = (gsize[0] * gsize[1] * gsize[2] + ISA_LANES - 1) / ISA_LANES;
	if (sl->env.lds_size)
		memset(sl->lds, 0, sl->env.lds_size);
	for (i = 0; i < nwaves; i++)
		setup_wave(d, &sl->waves[i], i, gid, gsize, 0);
	sl->nwaves = nwaves;
	sl->turns = 0;
	wk->nwaves += nwaves;
}

enum { T_DONE, T_RAN, T_WAIT, T_SPIN };

/*
 * Turns of a resident group: in each, every running wave runs a quantum
 * (less if it yields or parks), then the barrier is released once every
 * wave waits at it or has ended. Alone (the worker's only resident group)
 * it goes on turn after turn, as one group at a time always did; else it
 * returns after one. T_DONE: every wave ended; T_WAIT: a wave that still
 * runs ended its turn by yielding (s_sleep, a clock read: it waits for
 * time to pass or for another group), or the group has run ISA_PATIENCE
 * turns (worker_loop); T_SPIN: every running wave spins (isa_spin) and none
 * stored in the turn; T_RAN: the turn is over; or -ISA_E_*.
 */
#define ISA_PATIENCE 256

static int group_run(struct worker *wk, struct slot *sl, bool alone)
{
	/* locals: isa_run_wave could write anything, so fields would be
	 * loaded again after each call */
	const uint32_t *stop = sl->env.stop;
	struct isa_wave *ws = sl->waves;
	uint8_t *scratch = sl->scratch;
	size_t wave_scratch = ISA_SCRATCH_WAVE(sl->env.scratch_lane);
	unsigned i, n = sl->nwaves, turns = sl->turns;

	for (;;) {
		unsigned live = 0, calm = 0;
		bool spin = false, quiet = true;	/* quiet: no wave left the running */

		for (i = 0; i < n; i++) {
			struct isa_wave *w = &ws[i];
			bool watch = w->spin.tries != 0;
			int err;

			if (w->state != W_RUN)
				continue;
			sl->env.scratch = scratch ? scratch + i * wave_scratch : NULL;
			w->yield = false;
			err = watch ? isa_run_wave_watch(w, &sl->env, ISA_QUANTUM)
				    : isa_run_wave(w, &sl->env, ISA_QUANTUM);
			if (err) {
				wk->insns += w->insns;
				return err;
			}
			if (__atomic_load_n(stop, __ATOMIC_RELAXED))
				return -ISA_E_ABORT;
			if (w->state == W_RUN) {
				live++;
				spin |= w->yield;
				if (watch) {
					calm += isa_spin_calm(w);
					wk->spins += w->spin.detected;
					w->spin.detected = 0;
				}
				isa_spin_next(w);
			} else {
				/* it may have stored on its way to the barrier or
				 * its end, unwatched */
				quiet = false;
			}
		}
		if (!live) {
			/* every wave ended or waits at the barrier: release it */
			for (i = 0; i < n; i++)
				if (ws[i].state == W_BARRIER) {
					ws[i].state = W_RUN;
					live++;
				}
			if (!live) {
				uint64_t insns = 0;

				for (i = 0; i < n; i++)
					insns += ws[i].insns;
				wk->insns += insns;
				return T_DONE;
			}
		}
		/* every running wave spins and none stored: nothing this worker
		 * runs will change memory (worker_loop) */
		if (calm && calm == live && quiet) {
			sl->turns = turns + 1;
			return T_SPIN;
		}
		wk->pause = 0;
		if (spin || ++turns >= ISA_PATIENCE || !alone) {
			sl->turns = turns;
			return spin || turns >= ISA_PATIENCE ? T_WAIT : T_RAN;
		}
	}
}

/* The next group of the dispatch, if one is left and it is not stopped. */
static inline bool take(struct isa_dispatch *d, uint64_t *g)
{
	*g = __atomic_fetch_add(&d->next_group, 1, __ATOMIC_RELAXED);
	/* one worker alone takes the last group */
	if (__builtin_expect(*g + 1 == d->ngroups, 0) && d->drained)
		d->drained(d->prio_arg);
	return *g < d->ngroups && !__atomic_load_n(&d->stop, __ATOMIC_RELAXED);
}

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/*
 * A worker with no workgroup, before it takes one: while a dispatch of
 * higher priority on the device has workgroups to place, it waits (50 us
 * sleeps, the stop word looked at after each), as a lower-priority
 * hardware queue waits for the higher ones' dispatches; for at most
 * ISA_DEFER_MAX_NS over the whole dispatch.
 */
static __attribute__((noinline)) void defer_wait(struct worker *wk)
{
	struct isa_dispatch *d = wk->d;
	uint64_t t0;

	if (wk->deferred >= ISA_DEFER_MAX_NS || !d->defer(d->prio_arg))
		return;
	t0 = mono_ns();
	while (!__atomic_load_n(&d->stop, __ATOMIC_RELAXED) && d->defer(d->prio_arg)) {
		uint64_t now;

		nanosleep(&(struct timespec){ .tv_nsec = 50000 }, NULL);
		now = mono_ns();
		if (wk->deferred + (now - t0) >= ISA_DEFER_MAX_NS)
			break;
	}
	wk->deferred += mono_ns() - t0;
}

/*
 * How many groups one worker may hold at once. The device's limits, as the
 * hardware places groups on CUs: a SIMD holds 8 waves, fewer when their
 * VGPRs (AGPRs included) pass its 512 per lane; a CU 4 SIMDs, 64 KiB of LDS,
 * and 16 groups of more than one wave (their barriers; LLVM's
 * getMaxWorkGroupsPerCU says the same), the whole device ISA_CUS CUs,
 * shared among the workers. And memory: a resident group holds its waves
 * (struct isa_wave, 132,448 bytes each: the register files), LDS and
 * scratch, and the dispatch's groups together stay within
 * ISA_RESIDENT_BYTES (128 MiB: 1,013 single-wave groups; the pages of
 * registers a kernel never uses are never touched).
 */
static __attribute__((noinline)) unsigned resident_cap(const struct isa_dispatch *d)
{
	const struct isa_kernel *k = d->k;
	uint64_t lds = (uint64_t)k->lds_static + d->dyn_lds, per_cu, dev, mem, cap;
	uint64_t wpg = d->wpg, bytes;
	unsigned simd = k->nvgpr ? 512 / k->nvgpr : 8;

	if (simd > 8)
		simd = 8;
	per_cu = (uint64_t)ISA_CU_WAVES / 8 * simd / wpg;
	if (wpg > 1 && per_cu > 16)
		per_cu = 16;
	if (lds && per_cu > ISA_LDS_MAX / lds)
		per_cu = ISA_LDS_MAX / lds;
	dev = (per_cu ? per_cu : 1) * ISA_CUS;
	bytes = wpg * (sizeof(struct isa_wave) + ISA_SCRATCH_WAVE(k->scratch)) + lds;
	mem = ISA_RESIDENT_BYTES / bytes;
	cap = (dev < mem ? dev : mem) / d->workers;
	return cap ? (unsigned)(cap < UINT_MAX ? cap : UINT_MAX) : 1;
}

/* Buffers and the environment for a new slot: 0, or -1 when memory is short
 * (then the worker keeps the slots it has). */
static __attribute__((noinline)) int slot_alloc(struct worker *wk, struct slot *sl)
{
	const struct isa_kernel *k = wk->d->k;
	size_t wsize = ((size_t)wk->d->wpg * sizeof(struct isa_wave) + 63) & ~(size_t)63;

	memset(sl, 0, sizeof(*sl));
	sl->waves = aligned_alloc(64, wsize);
	sl->lds = malloc((size_t)k->lds_static + wk->d->dyn_lds + 16);
	sl->scratch = k->scratch ? calloc(wk->d->wpg, ISA_SCRATCH_WAVE(k->scratch)) : NULL;
	if (sl->waves && sl->lds && (!k->scratch || sl->scratch)) {
		slot_env(wk->d, sl);
		return 0;
	}
	free(sl->waves);
	free(sl->lds);
	free(sl->scratch);
	memset(sl, 0, sizeof(*sl));
	return -1;
}

/*
 * A slot for one more group resident on this worker, and the group (*g),
 * when its running group waits (worker_loop says when) and the limits
 * allow; NULL otherwise. Only a wait takes more, so a kernel that never
 * sleeps nor reads a clock (and whose groups end within ISA_PATIENCE
 * turns) runs one group at a time as before: the same cost, and no memory
 * beyond one group's. Out of line: worker_loop's one-group path stays
 * short.
 */
static __attribute__((noinline)) struct slot *take_more(struct worker *wk, unsigned nres,
							 uint64_t *g)
{
	struct isa_dispatch *d = wk->d;

	if (__atomic_load_n(&d->next_group, __ATOMIC_RELAXED) >= d->ngroups)
		return NULL;
	if (!wk->cap) {
		struct slot *s;

		wk->cap = resident_cap(d);
		if (wk->cap < 2 || !(s = calloc(wk->cap, sizeof(*s)))) {
			wk->cap = 1;
			return NULL;
		}
		s[0] = wk->one;
		wk->slots = s;
	}
	if (nres >= wk->cap)
		return NULL;
	if (nres == wk->nslots) {
		if (slot_alloc(wk, &wk->slots[nres])) {
			wk->cap = nres;	/* out of memory: as many as there are */
			return NULL;
		}
		wk->nslots++;
	}
	if (!take(d, g))
		return NULL;
	if (nres + 1 > wk->most)
		wk->most = nres + 1;
	return &wk->slots[nres];
}

/*
 * Every wave the worker runs spins on memory that only another thread can
 * change (the host, another GPU's worker, another worker of this
 * dispatch): a GPU would wait at no cost, and here each turn would burn a
 * host core that the thread changing the memory may need (2 cores, 5
 * spinners: hip-tests' Unit_threadfence_system). So the worker gives its
 * core up: a sched_yield first (a hand-off between threads that are both
 * running costs no sleep), then sleeps of 2 us doubling to 200 us. 200 us
 * bounds how late a spinning wave sees a change (one iteration after the
 * sleep) and how late a stop (d->stop, group_run) is seen; at that cap a
 * spinner costs its host about one iteration and a system call per 200 us
 * (under 5 % of a core). 2 us: the shortest sleep worth a system call; the
 * kernel's default timer slack (50 us) lengthens the short ones anyway. Any
 * turn that is not a spin puts the pause back to the sched_yield
 * (group_run).
 */
#define PAUSE_MIN_NS 2000u
#define PAUSE_MAX_NS 200000u

static __attribute__((noinline)) void worker_pause(struct worker *wk)
{
	wk->pauses++;
	if (!wk->pause) {
		sched_yield();
		wk->pause = PAUSE_MIN_NS;
		return;
	}
	nanosleep(&(struct timespec){ .tv_nsec = wk->pause }, NULL);
	wk->pause = wk->pause >= PAUSE_MAX_NS / 2 ? PAUSE_MAX_NS : 2 * wk->pause;
}

/*
 * The worker's groups, by turns. A group that yields waits on a clock or
 * on another group, as a GPU's resident groups do while the others run:
 * so one more is taken (take_more), up to the limits, and once none can
 * be, the turn goes to the next resident group. A group that used its
 * quantum also passes the turn on, so that one spinning on memory without
 * s_sleep cannot starve the group it waits for; and one that has run
 * ISA_PATIENCE turns (a million instructions a wave) without ending may be
 * such a spin on a group not yet started, so it too takes one more (again
 * after as many turns: groups that compute that long gain little from one
 * at a time, and a spin must not wait forever). A group that ends leaves
 * its slot (the last resident one moves there).
 */
static int worker_loop(struct worker *wk)
{
	unsigned cur = 0, nres = 0;	/* slots[0, nres) are resident */

	for (;;) {
		struct slot *sl;
		uint64_t g;

		if (!nres) {
			if (wk->d->defer)
				defer_wait(wk);
			if (!take(wk->d, &g))
				return 0;
			sl = &wk->slots[0];
			cur = 0;
		} else {
			int r = group_run(wk, &wk->slots[cur], nres == 1);

			if (r < 0)
				return r;
			if (r == T_DONE) {
				unsigned last = --nres;

				wk->calm = 0;

				if (cur != last) {
					struct slot t = wk->slots[cur];

					wk->slots[cur] = wk->slots[last];
					wk->slots[last] = t;
				}
				if (cur >= nres)
					cur = 0;
				continue;
			}
			if (r == T_SPIN &&
			    __atomic_load_n(&wk->d->next_group, __ATOMIC_RELAXED) >= wk->d->ngroups) {
				/* no group left that could be what they wait for:
				 * once all of them spin, the worker pauses */
				if (++wk->calm >= nres) {
					wk->calm = 0;
					worker_pause(wk);
				}
				if (++cur >= nres)
					cur = 0;
				continue;
			}
			wk->calm = 0;
			if (r != T_RAN)
				wk->slots[cur].turns = 0;
			if (r == T_RAN || !(sl = take_more(wk, nres, &g))) {
				if (++cur >= nres)
					cur = 0;
				continue;
			}
			cur = nres;
		}
		/* the one place a group is taken in: admit stays inline */
		admit(wk, sl, g);
		nres++;
	}
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	struct isa_dispatch *d = wk->d;
	int err = worker_loop(wk);

	if (d->mem->leave)
		d->mem->leave(d->mem);

	if (err) {
		int zero = 0;

		__atomic_compare_exchange_n(&d->err, &zero, err, false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED);
		__atomic_store_n(&d->stop, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

int isa_dispatch_run(struct isa_dispatch *d)
{
	const struct isa_kernel *k = d->k;
	unsigned nthreads = d->threads ? d->threads : 1, i;
	uint64_t threads_per_group = (uint64_t)d->block[0] * d->block[1] * d->block[2];
	unsigned waves = (unsigned)((threads_per_group + ISA_LANES - 1) / ISA_LANES);
	/* on the stack (ISA_MAX_THREADS of 208 bytes): the workers
	 * were a calloc and free per dispatch */
	struct worker wk[ISA_MAX_THREADS];

	d->err = 0;
	d->next_group = 0;
	d->ngroups = 1;
	for (i = 0; i < 3; i++) {
		if (!d->block[i] || !d->grid[i])
			return 0;
		d->ngroups *= (d->grid[i] + d->block[i] - 1) / d->block[i];
	}
	if (waves > ISA_WAVES_MAX)
		return -ISA_E_LIMIT;
	/* Refused before anything is allocated: a descriptor that claims
	 * 256 MiB of LDS or 4 GiB of scratch per lane would otherwise have
	 * every worker allocate (and clear) it. */
	if ((uint64_t)k->lds_static + d->dyn_lds > ISA_LDS_MAX)
		return -ISA_E_LDS;
	if ((uint64_t)k->scratch * ISA_LANES > ISA_SCRATCH_WAVE_MAX)
		return -ISA_E_SCRATCH;
	if (nthreads > ISA_MAX_THREADS)
		nthreads = ISA_MAX_THREADS;
	if (nthreads > d->ngroups)
		nthreads = (unsigned)d->ngroups;
	d->wpg = waves;
	d->workers = nthreads;
	memset(wk, 0, nthreads * sizeof(wk[0]));
	for (i = 0; i < nthreads; i++) {
		struct slot *s = &wk[i].one;

		wk[i].d = d;
		wk[i].slots = s;
		wk[i].nslots = 1;
		s->waves = wk[i].cached = waves_take();
		s->lds = malloc((size_t)k->lds_static + d->dyn_lds + 16);
		s->scratch = k->scratch ? calloc(waves, ISA_SCRATCH_WAVE(k->scratch)) : NULL;
		if (!s->waves || !s->lds || (k->scratch && !s->scratch)) {
			d->err = k->scratch && !s->scratch ? -ISA_E_SCRATCH : -ISA_E_NOMEM;
			goto out;
		}
		slot_env(d, s);
	}
	for (i = 1; i < nthreads; i++) {
		int e = d->spawn ? d->spawn(&wk[i].job, worker_main, &wk[i])
				 : pthread_create(&wk[i].t, NULL, worker_main, &wk[i]);

		wk[i].started = e == 0;
	}
	worker_main(&wk[0]);
	for (i = 1; i < nthreads; i++)
		if (wk[i].started && d->spawn)
			d->join(wk[i].job);
		else if (wk[i].started)
			pthread_join(wk[i].t, NULL);
out:
	for (i = 0; i < nthreads; i++) {
		d->insns += wk[i].insns;
		d->waves += wk[i].nwaves;
		d->spins += wk[i].spins;
		d->pauses += wk[i].pauses;
		if ((wk[i].most ? wk[i].most : wk[i].nwaves > 0) > d->resident)
			d->resident = wk[i].most ? wk[i].most : 1;
		/* the first slot's wave array is the cached one, wherever the
		 * slots' moves took it; the others are the slots' own */
		for (unsigned j = 0; j < wk[i].nslots; j++) {
			struct slot *s = &wk[i].slots[j];

			if (s->waves == wk[i].cached)
				waves_give(s->waves);
			else
				free(s->waves);
			free(s->lds);
			free(s->scratch);
		}
		if (wk[i].slots != &wk[i].one)
			free(wk[i].slots);
	}
	return d->err;
}
