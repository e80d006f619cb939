/* SPDX-License-Identifier: MIT */
/*
 * gpu.h - the simulated GPUs (gpu.c): clock, IH rings, page tables, the
 * fault handler, and a GPU's side of one access.
 */
#ifndef HIPSVM_SIM_GPU_H
#define HIPSVM_SIM_GPU_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "shared/checkpoint.h"
#include "shared/ring.h"
#include "runtime/thread.h"

#define SIM_RES_SLOTS 4096u

struct hipsvm_sim_stats;

enum sim_ring { SIM_IH0 = 0, SIM_IH1 = 1, SIM_SOFT = 2 };

enum sim_fault_result {
	SIM_RES_NONE = 0,
	SIM_RES_MAPPED,
	SIM_RES_PRESENT,	/* already mapped (a duplicate fault) */
	SIM_RES_DROPPED,
	SIM_RES_REAL,
};

struct sim_gpu;
struct sim_wake {
	struct hipsvm_ring *ring;
	struct sim_gpu *gpu;
};

struct sim_gpu {
	int index;
	struct hipsvm_ring rings[3];	/* ih0, ih1 (unused on an APU), ih_soft */
	struct hipsvm_gpu_irq irq;	/* points at rings[] */
	struct hipsvm_cp cp;		/* this process's checkpoint on this GPU */
	uint32_t *ringbuf[3];
	struct sim_wake wake[3];
	pthread_mutex_t prod_lock[3];
	uint64_t clock;			/* ticks since start; ts = start + clock */
	uint64_t next_token;
	struct sim_lock pt_lock;
	pthread_t handler;
	bool handler_started;
	uint32_t stop;
	uint32_t doorbell;		/* futex: bumped by producers */
	uint32_t sleeping;
	uint32_t done_seq;		/* futex: bumped after each pass */
	uint32_t done_waiters;
	struct {
		uint64_t token;
		uint32_t result;
	} res[SIM_RES_SLOTS];
	/* counters (relaxed atomics) */
	uint64_t raised, handled, mapped, dropped, real, stale, overflows;
	uint64_t sets, clears, pages;
	uint64_t last_set_ts;
};

uint64_t sim_gpu_now(struct sim_gpu *g);	/* the clock, without ticking */
/* Writes a fault IV (ticking the clock unless ts is given); 0 or -ENOSPC.
 * *ts_out gets the timestamp used. */
int sim_gpu_raise(struct sim_gpu *g, uintptr_t addr, bool write, bool retry,
		  bool have_ts, uint64_t ts, uint64_t token, uint64_t *ts_out);
/* The same without waking the handler (the caller kicks it later). */
int sim_gpu_write_fault(struct sim_gpu *g, uintptr_t addr, bool write, bool retry,
			bool have_ts, uint64_t ts, uint64_t token, uint64_t *ts_out);
/* The page-table side of an unmap: forget [start, end) on GPU g. */
/* Clears g's lazily mapped pages of [start, end), unless no page was mapped
 * on any GPU since the count was since (sim_gpu_map_events). */
void sim_gpu_unmap_range(struct sim_gpu *g, uintptr_t start, uintptr_t end, uint64_t since);
uint64_t sim_gpu_map_events(void);
/* Map the whole range on GPU g (prefetch, eager mappings). */
void sim_gpu_map_range(struct sim_gpu *g, uintptr_t start, uintptr_t end);
bool sim_gpu_page_mapped(struct sim_gpu *g, uintptr_t addr);
/* One synchronous GPU access to one page: SIM_RES_* (never NONE/DROPPED). */
int sim_gpu_access_page(struct sim_gpu *g, uintptr_t addr, bool write, const uint32_t *stop);
void sim_gpu_quiesce(struct sim_gpu *g);
void sim_gpu_kick(struct sim_gpu *g);	/* wake the handler (a ring was enabled) */
/* g's counters and state (hipsvmSimGetStats, the hook's stats request) */
void sim_gpu_stats(struct sim_gpu *g, struct hipsvm_sim_stats *out);
/* The hook's "set" on one GPU, atomically with respect to the fault handler
 * (under pt_lock, as the kernel's SVM lock): record the checkpoint and, for
 * a range, unmap it from the GPU. 1 and *ts when a checkpoint was recorded. */
int sim_gpu_set(struct sim_gpu *g, bool range, uintptr_t start, uintptr_t end, uint64_t *ts);
/* sim_gpu_set on every GPU of the mask gpus at once (the range looked up
 * once); the mask of those that recorded a checkpoint, ts[i] for each. */
uint64_t sim_gpus_set(uint64_t gpus, bool range, uintptr_t start, uintptr_t end, uint64_t *ts);

#endif
