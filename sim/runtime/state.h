/* SPDX-License-Identifier: MIT */
/*
 * state.h - the simulated runtime's process-wide state (state.c), its
 * one-time initialisation, and the locking rules every role keeps.
 *
 * Locking (the shim's munmap hook runs inside our munmap and
 * talks to our hook server, which needs our handler threads):
 *   - sim.map_lock (rwlock): the allocation map. Never held across mmap,
 *     munmap, madvise, a wait on a stream, or a call that takes a GPU lock.
 *   - gpu->pt_lock: one GPU's page table (the lazily mapped pages). Taken by
 *     the fault handler (for a pass of at most 32 IVs), the hook server and
 *     accessors; map_lock (read) is taken inside it, never the other way
 *     round.
 *   - gpu->prod_lock[ring]: serialises the producers of one ring (the
 *     hardware has one writer per ring) and keeps timestamps in ring order.
 *   - sim.vm_probe_lock (rwlock, a leaf): vmspan.c's probe of a hole holds
 *     it exclusively while its reservation stands; whoever asks whether the
 *     CPU maps a page (sim_vm_range_mapped) holds it shared, so that the
 *     reservation is never taken for the program's mapping.
 *   - the hook's range and log locks (hook_cmds.c): leaves.
 *   - stream/event/registry locks: leaves, never held while unmapping.
 * An API call that unmaps (hipFree) holds no lock at all while it does.
 */
#ifndef HIPSVM_SIM_RUNTIME_STATE_H
#define HIPSVM_SIM_RUNTIME_STATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "shared/proto.h"
#include "shim/clock.h"
#include "simcore/ctx_model.h"
#include "simcore/sim_options.h"

#define SIM_PAGE 4096u

struct sim_gpu;

struct sim_state {
	struct hipsvm_sim_options opt;
	unsigned ngpu;			/* visible devices (visible.c) */
	unsigned nphys;			/* simulated GPUs before the filters */
	int phys[HIPSVM_MAX_GPUS];	/* device -> physical index */
	struct sim_gpu *gpu[HIPSVM_MAX_GPUS];
	struct hipsvm_ctxset ctx;
	bool xnack, retry_cam, apu;
	/* the devices' target ID, "gfx90a:sramecc+:xnack+": gcnArchName and
	 * the code object choice (codeobj_target.h) both read it */
	char target[32];
	uint64_t ts_start;
	uint32_t ring_size;
	pthread_rwlock_t map_lock;
	pthread_rwlock_t vm_probe_lock;
	struct sim_alloc *map_root;	/* AVL tree by base (memory.c) */
	size_t nmap;
	/* device memory accounting (memory.c: sim_charge), under mem_lock */
	pthread_mutex_t mem_lock;
	size_t mem_capacity;		/* per GPU */
	size_t mem_used[HIPSVM_MAX_GPUS];
	char socket_name[HIPSVM_OPT_STR_MAX + 32];
	bool quiet;
	uint32_t kernel_notice;
	int pid;	/* getpid() at sim_init (a fork child's own: it inits again) */
};
extern struct sim_state sim;

/* Initialises the runtime once per process (again in a fork child). The
 * check is inline: after the first call an API body's entry is one load,
 * and does not go into state.c. */
extern int sim_inited;
void sim_init_once(void);
static inline void sim_init(void)
{
	if (!__atomic_load_n(&sim_inited, __ATOMIC_ACQUIRE))
		sim_init_once();
}
static inline struct sim_gpu *sim_gpu(int dev)
{
	return (dev >= 0 && (unsigned)dev < sim.ngpu) ? sim.gpu[dev] : NULL;
}
void sim_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int sim_current_device(void);
void sim_set_current_device(int dev);

static inline uint64_t sim_now_ns(void)
{
	return hipsvm_now_ns();
}

#endif
