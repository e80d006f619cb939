/* SPDX-License-Identifier: MIT */
/*
 * run.h - what exec/ shares inside: the interpreter's memory backend on a
 * simulated GPU (guard.c), interpreted launches (run.c) and the buffer-touch
 * model (touch.c), between which run.c chooses.
 *
 * Locking: the prepared-kernel cache has its own mutex (a leaf), and so has
 * the helper pool. A dispatch runs on its stream's worker thread plus up to
 * seven helper threads (taken from the pool, pool.c); it
 * holds no simulator lock while it runs (the fault path takes pt_lock per
 * page, as any GPU access does).
 */
#ifndef HIPSVM_SIM_ISA_RUN_H
#define HIPSVM_SIM_ISA_RUN_H

#include "codeobj/codeobj.h"
#include "exec/exec.h"
#include "isa/dispatch.h"

#include <signal.h>

#define SIM_ISA_INTERNAL 4

struct sim_gpu;
struct sim_stream;

/* A struct isa_mem on one simulated GPU. */
struct sim_isa_mem {
	struct isa_mem ops;
	struct sim_gpu *gpu;
	const uint32_t *stop;
	int pid;
	/* the dispatch's own buffers (kernarg, packet, queue): plain memory */
	unsigned ninternal;
	uint64_t lo[SIM_ISA_INTERNAL], hi[SIM_ISA_INTERNAL];
	uint64_t ilo, ihi;	/* the lowest lo and the highest hi: one test for most accesses */
	uint64_t pages;		/* page walks made */
	uint64_t insns;		/* memory instructions (access and atomic calls) */
	uint64_t vm_calls;	/* process_vm_readv/writev calls */
	int direct;		/* copies under the guard: 0 not known yet, 1 yes, 2 no */
};

void sim_isa_mem_init(struct sim_isa_mem *m, struct sim_gpu *g, const uint32_t *stop);
void sim_isa_mem_internal(struct sim_isa_mem *m, const void *p, size_t n);
/* A thread that runs waves unblocks SIGSEGV/SIGBUS (the atomics' guard
 * needs them) and installs the guard's handler once; restore afterwards. */
void sim_isa_guard_unblock(sigset_t *saved);
void sim_isa_guard_restore(const sigset_t *saved);

/* Code of generation gen (hipsvm_kernel_info.gen) is gone: the prepared
 * kernels made from it are freed once no dispatch runs them (loader.c). */
void sim_isa_forget(uint64_t gen);

/* The interpreter's helper threads, kept between dispatches (pool.c):
 * isa_dispatch's spawn and join. */
int sim_isa_pool_spawn(void **job, void *(*fn)(void *), void *arg);
void sim_isa_pool_join(void *job);
uint64_t sim_isa_pool_created(void);	/* helpers made so far */

/*
 * Queues an interpreted launch of l (l->info not NULL) on stream s: true
 * when queued; false when the interpreter cannot run the kernel (no code,
 * no arguments, an instruction it lacks, out of memory), which is said once
 * per kernel on stderr: the launch then takes the buffer-touch model.
 */
bool sim_isa_enqueue(const struct sim_launch *l, struct sim_stream *s);
/* Queues the buffer-touch model of l on s; hipErrorOutOfMemory or success. */
hipError_t sim_touch_enqueue(const struct sim_launch *l, struct sim_stream *s);

#endif
