/* SPDX-License-Identifier: MIT */
/*
 * hipsvm_sim.h - the simulated runtime's own entry points, for tests and
 * examples (docs/simulator.md). Programs that only use HIP need none of this.
 *
 * Include after <hip/hip_runtime_api.h>. Link with the simulator's
 * libamdhip64.so.5 (build/sim/).
 */
#ifndef HIPSVM_SIM_H
#define HIPSVM_SIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Per-GPU counters (hipsvmSimGetStats). */
struct hipsvm_sim_stats {
	uint64_t faults_raised;		/* IVs the GPU wrote for page faults */
	uint64_t faults_handled;	/* faults the checkpoint filter let through */
	uint64_t faults_mapped;		/* of those, faults that mapped a page */
	uint64_t faults_dropped;	/* dropped by the checkpoint (stale) */
	uint64_t faults_real;		/* real faults: the address is gone */
	uint64_t faults_stale_handled;	/* handled although at or before the last set
					 * checkpoint: must stay 0 */
	uint64_t ring_overflows;	/* IVs refused by a full ring (then retried) */
	uint64_t drains;
	uint64_t drain_timeouts;
	uint64_t sets;
	uint64_t clears;
	uint64_t pages_mapped;		/* pages mapped lazily on this GPU now */
	uint64_t clock;			/* the GPU's 48-bit clock now */
	uint64_t checkpoint_ts;		/* 0: none */
	uint64_t last_set_ts;		/* last checkpoint recorded by a set */
	uint64_t mem_used;		/* device memory charged to this GPU */
};

/* A GPU access to [ptr, ptr + size) from device, synchronous: every page not
 * mapped on that GPU raises a retry fault, and the GPU retries until the
 * fault is served. hipSuccess, hipErrorIllegalAddress on a real fault,
 * hipErrorInvalidDevice, hipErrorInvalidValue. */
hipError_t hipsvmSimAccess(int device, const void *ptr, size_t size, int write);

/* 0, or -EINVAL for a bad device or NULL. */
int hipsvmSimGetStats(int device, struct hipsvm_sim_stats *out);

/* Is the page holding ptr mapped in device's page table right now? 1, 0, or
 * -EINVAL for a bad device. */
int hipsvmSimIsMapped(int device, const void *ptr);

/* Number of GPUs the simulator runs, and the hook server's socket name
 * ("@name" for the abstract namespace; "" when the server is off). Both
 * initialise the runtime. */
int hipsvmSimGpuCount(void);
const char *hipsvmSimSocketPath(void);

/* host_context's SVM device order (svmAllocDevice_ after the rule that puts
 * a GPU without fine-grained system memory first; HIPSVM_SIM_FGS_MASK says
 * which GPUs have it). Number of devices written to out (at most max). */
int hipsvmSimSvmOrder(int *out, int max);

/* A GPU agent: a thread that keeps touching [ptr, ptr + size) from device,
 * page after page, round after round, until stopped. A real fault does not
 * stop it (it is counted and the agent moves on), so that a test can unmap
 * the range under it. */
struct hipsvm_sim_agent;
struct hipsvm_sim_agent_result {
	uint64_t rounds;		/* complete passes over the range */
	uint64_t accesses;		/* page accesses completed */
	uint64_t real_faults;		/* accesses that ended in a real fault */
};
int hipsvmSimAgentStart(int device, void *ptr, size_t size, int write,
			struct hipsvm_sim_agent **out);
/* Stops and joins the agent, fills res (may be NULL), frees it. */
int hipsvmSimAgentStop(struct hipsvm_sim_agent *a, struct hipsvm_sim_agent_result *res);

/* The pieces of [ptr, ptr + size) (rounded out to pages) that the CPU
 * maps, as a drain finds them, in address order: query 1 through the
 * kernel's PROCMAP_QUERY alone (-ENOSYS where the kernel does not answer
 * it), 0 through the bisection older kernels get (msync and a
 * MAP_FIXED_NOREPLACE probe). The first max pieces go to out as [lo, hi)
 * pairs (2 * max words); returns how many there were, or -errno. */
int hipsvmSimCpuMapped(const void *ptr, size_t size, int query, uintptr_t *out, int max);

/* Blocks until every GPU's rings are empty (faults in flight served). */
void hipsvmSimQuiesce(void);

/* For bench/bench_sim.c. Handler throughput: with the fault ring held, write
 * count retry faults for the page at addr, release the ring and time the
 * handler until it has processed them all (*ns). Drain latency: hold the
 * ring, write `pending` faults, release it and time hipsvm_cp_drain on that
 * GPU (*ns). 0 or -errno (-ENOSPC: more than the ring holds). */
int hipsvmSimBenchHandler(int device, const void *addr, unsigned count, uint64_t *ns);
int hipsvmSimBenchDrain(int device, const void *addr, unsigned pending, uint64_t *ns);

/* The kernel interpreter's counters since start (hipsvmSimIsaStats):
 * interpreted dispatches, launches that fell back to the buffer-touch
 * model, wave-instructions executed, waves run, nanoseconds spent in
 * interpreted dispatches, and page walks through the fault path. Fields
 * are only ever added at the end. */
struct hipsvm_sim_isa_stats {
	uint64_t dispatches;
	uint64_t fallbacks;
	uint64_t wave_insns;
	uint64_t waves;
	uint64_t ns;
	uint64_t page_walks;
	uint64_t mem_insns;	/* global memory instructions (loads, stores, atomics) */
	uint64_t vm_calls;	/* process_vm_readv/writev calls they made */
	uint64_t spins;		/* times a wave was seen to begin spinning on memory */
	uint64_t spin_pauses;	/* times a worker gave its core up for spinning waves */
};

/* The fields up to vm_calls (a caller's struct compiled before spins were
 * counted is that long); 0, or -1 for NULL. */
int hipsvmSimIsaStats(struct hipsvm_sim_isa_stats *out);
/* The first size bytes of the counters, so that a struct of any age is
 * filled no further than it reaches; 0, or -1 for NULL. */
int hipsvmSimIsaStatsSized(struct hipsvm_sim_isa_stats *out, size_t size);

#ifdef __cplusplus
}
#endif

#endif
