/* SPDX-License-Identifier: MIT */
/*
 * dispatch.h - one kernel dispatch on the interpreter: the kernel
 * descriptor, the wave set-up it asks for, and workgroups on threads.
 *
 * isa_kernel_prepare decodes the whole kernel once; a kernel with an
 * instruction the interpreter lacks is refused there (its first such
 * instruction named in why), before anything runs, so the caller can fall
 * back. isa_dispatch_run runs every workgroup: up to `threads` threads
 * (started with spawn; the caller runs workgroups too) take workgroups in
 * turn; the waves of a workgroup run on one thread, switching at
 * s_barrier, s_sleep and clock reads (and every ISA_QUANTUM instructions, so
 * that a wave spinning on LDS cannot starve the others). A thread keeps one
 * workgroup at a time until one of its waves sleeps or reads a clock (or it
 * has run a million instructions a wave); then it takes more, and runs them
 * by turns, as a GPU's resident workgroups run at once (dispatch.c). The first error (a real fault) stops every thread
 * at its next instruction. Returns 0 or -ISA_E_*.
 */
#ifndef HIPSVM_SIM_ISA_DISPATCH_H
#define HIPSVM_SIM_ISA_DISPATCH_H

#include "isa.h"

#include <pthread.h>

#define ISA_QUANTUM 4096
/* A workgroup's LDS on gfx90a. */
#define ISA_LDS_MAX 65536u
/* The most scratch a wave can have on gfx90a: COMPUTE_TMPRING_SIZE.WAVESIZE
 * is 13 bits of 1 KiB. Per lane, ISA_SCRATCH_WAVE_MAX / 64. */
#define ISA_SCRATCH_WAVE_MAX (UINT64_C(8191) * 1024)
#define ISA_MAX_THREADS 8
/* The simulated device (sim_fill_props answers these): compute units, and
 * waves a CU holds (4 SIMDs of 8 waves on gfx90a; 2048 work-items). */
#define ISA_CUS 104
#define ISA_CU_WAVES 32
/* The most memory a dispatch's resident workgroups may hold, all workers
 * together (dispatch.c: their waves, LDS and scratch). */
#define ISA_RESIDENT_BYTES (UINT64_C(128) << 20)
/* The longest a worker defers to higher-priority dispatches (isa_dispatch's
 * defer), so that a high-priority kernel whose waiting workgroups fill the
 * device cannot hold a lower one back for ever. */
#define ISA_DEFER_MAX_NS (UINT64_C(10) * 1000000000)

/* kernel_code_properties bits (the user SGPRs, in this order) */
#define KCP_PRIVATE_SEGMENT_BUFFER 0x1	/* 4 SGPRs */
#define KCP_DISPATCH_PTR 0x2
#define KCP_QUEUE_PTR 0x4
#define KCP_KERNARG_PTR 0x8
#define KCP_DISPATCH_ID 0x10
#define KCP_FLAT_SCRATCH_INIT 0x20
#define KCP_PRIVATE_SEGMENT_SIZE 0x40	/* 1 SGPR */
#define KCP_WAVE32 0x400

struct isa_kernel {
	const uint8_t *code;
	size_t code_size;
	uint64_t code_vaddr;
	struct isa_insn *prog;		/* code_size / 4 slots */
	uint32_t lds_static;		/* group_segment_fixed_size */
	uint32_t scratch;		/* private_segment_fixed_size, per lane */
	uint32_t kernarg_size;
	uint32_t rsrc1, rsrc2, rsrc3;
	uint16_t props;
	unsigned nvgpr;			/* architectural VGPRs the kernel uses */
	unsigned nagpr;			/* AGPRs: past rsrc3's accum_offset */
	size_t entry;			/* the kernel's first instruction, in code */
	bool calls;			/* it reaches an s_swappc_b64 */
};

/* 0, or -ISA_E_DECODE (-ISA_E_NOMEM) with why filled ("v_pk_fma_f32 at
 * +0x40"; "s_swappc_b64 at +0x80: a call, ..."). */
int isa_kernel_prepare(struct isa_kernel *k, const uint8_t kd[64], const uint8_t *code,
		       size_t code_size, uint64_t code_vaddr, char *why, size_t whylen);
/* The same for a kernel whose entry is `entry` bytes into code (the whole
 * executable section, so that calls can leave the kernel's function). */
int isa_kernel_prepare_at(struct isa_kernel *k, const uint8_t kd[64], const uint8_t *code,
			  size_t code_size, uint64_t code_vaddr, size_t entry, char *why,
			  size_t whylen);
void isa_kernel_release(struct isa_kernel *k);

struct isa_dispatch {
	const struct isa_kernel *k;
	uint32_t grid[3];		/* work-items */
	uint32_t block[3];		/* work-group size */
	uint32_t dyn_lds;		/* dynamic shared memory */
	uint64_t kernarg;		/* the kernarg segment's address */
	uint64_t packet;		/* the dispatch packet's address */
	uint64_t queue;			/* a queue descriptor's address (zeroes) */
	struct isa_mem *mem;
	/* s_sendmsg MSG_INTERRUPT (isa_env.interrupt) */
	void (*interrupt)(void *arg, uint32_t m0);
	void *interrupt_arg;
	unsigned threads;
	/* runs fn(arg) on another thread (0 or an errno: fewer threads
	 * then), *job what join waits for; NULL: pthread_create and
	 * pthread_join (a caller that keeps threads between dispatches
	 * gives both) */
	int (*spawn)(void **job, void *(*fn)(void *), void *arg);
	void (*join)(void *job);
	/* Queue priority, as the hardware arbitrates its queues: while
	 * defer(prio_arg) answers true (a dispatch of higher priority on the
	 * same device has workgroups left to place) a worker that has no
	 * workgroup takes no new one, for at most ISA_DEFER_MAX_NS in all;
	 * the groups it runs go on. drained(prio_arg) is called when the
	 * last workgroup has been taken. NULL: no priorities. */
	bool (*defer)(void *arg);
	void (*drained)(void *arg);
	void *prio_arg;
	/* out */
	uint32_t stop;
	int err;
	uint64_t insns;			/* wave-instructions executed */
	uint64_t waves;
	uint64_t resident;		/* the most workgroups one thread held at once */
	uint64_t spins;			/* times a wave began to spin (isa_spin) */
	uint64_t pauses;		/* times a worker paused for spinning waves */
	/* internal */
	uint64_t next_group, ngroups;
	unsigned wpg, workers;		/* waves per group, worker threads */
};

/* Builds the 64-byte dispatch packet the kernel reads its sizes from. */
void isa_dispatch_packet(uint8_t pkt[64], const struct isa_dispatch *d);
int isa_dispatch_run(struct isa_dispatch *d);

#endif
