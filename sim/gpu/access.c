/* SPDX-License-Identifier: MIT */
/*
 * access.c - a GPU's side of an access: check the page table, raise a retry
 * fault, wait for the handler's answer, retry until served. Also the
 * counters and the test entry points of sim/hipsvm_sim.h built on it.
 */
#include "sim.h"

#include <unistd.h>

#define SIM_WAIT_SLICE_NS 10000000u	/* re-check of a waiting access */
#define SIM_RETRY_NS 50000000u		/* a fault not served by then is raised again */

static uint32_t wait_result(struct sim_gpu *g, uint64_t token, uint64_t timeout_ns)
{
	uint64_t deadline = sim_now_ns() + timeout_ns;
	uint32_t res = SIM_RES_NONE;

	for (;;) {
		uint32_t seq = __atomic_load_n(&g->done_seq, __ATOMIC_ACQUIRE);
		uint64_t now;
		bool found;

		__atomic_fetch_add(&g->done_waiters, 1, __ATOMIC_SEQ_CST);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		found = __atomic_load_n(&g->res[token % SIM_RES_SLOTS].token, __ATOMIC_ACQUIRE) == token;
		if (found)
			res = __atomic_load_n(&g->res[token % SIM_RES_SLOTS].result, __ATOMIC_RELAXED);
		now = sim_now_ns();
		if (!found && now < deadline)
			sim_futex_wait(&g->done_seq, seq,
				       deadline - now < SIM_WAIT_SLICE_NS ? deadline - now : SIM_WAIT_SLICE_NS);
		__atomic_fetch_sub(&g->done_waiters, 1, __ATOMIC_RELAXED);
		if (found || now >= deadline)
			return res;
	}
}

int sim_gpu_access_page(struct sim_gpu *g, uintptr_t addr, bool write, const uint32_t *stop)
{
	for (;;) {
		uint64_t token;
		uint32_t res;

		if (stop && __atomic_load_n(stop, __ATOMIC_RELAXED))
			return SIM_RES_NONE;
		if (sim_gpu_page_mapped(g, addr))
			return SIM_RES_PRESENT;
		token = __atomic_add_fetch(&g->next_token, 1, __ATOMIC_RELAXED);
		if (sim_gpu_raise(g, addr, write, sim.xnack, false, 0, token, NULL)) {
			usleep(50);	/* ring full: the GPU retries */
			continue;
		}
		res = wait_result(g, token, SIM_RETRY_NS);
		if (res == SIM_RES_MAPPED || res == SIM_RES_PRESENT || res == SIM_RES_REAL)
			return (int)res;
		/* dropped by the checkpoint, lost by a full soft ring, or slow:
		 * a retry fault is raised again with a new timestamp */
	}
}

SIM_API void hipsvmSimQuiesce(void)
{
	unsigned i;

	sim_init();
	for (i = 0; i < sim.ngpu; i++)
		sim_gpu_quiesce(sim.gpu[i]);
}

SIM_API int hipsvmSimIsMapped(int device, const void *ptr)
{
	struct sim_gpu *g;

	sim_init();
	g = sim_gpu(device);
	if (!g)
		return -EINVAL;
	return sim_gpu_page_mapped(g, (uintptr_t)ptr);
}

SIM_API hipError_t hipsvmSimAccess(int device, const void *ptr, size_t size, int write)
{
	uintptr_t p, end;
	struct sim_gpu *g;

	sim_init();
	g = sim_gpu(device);
	if (!g)
		return hipErrorInvalidDevice;
	if (!ptr || size == 0 || (uintptr_t)ptr + size < (uintptr_t)ptr)
		return hipErrorInvalidValue;
	end = (uintptr_t)ptr + size;
	for (p = (uintptr_t)ptr & ~(uintptr_t)(SIM_PAGE - 1); p < end; p += SIM_PAGE)
		if (sim_gpu_access_page(g, p, write != 0, NULL) == SIM_RES_REAL)
			return hipErrorIllegalAddress;
	return hipSuccess;
}

SIM_API int hipsvmSimGetStats(int device, struct hipsvm_sim_stats *out)
{
	struct sim_gpu *g;

	sim_init();
	g = sim_gpu(device);
	if (!g || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->faults_raised = __atomic_load_n(&g->raised, __ATOMIC_RELAXED);
	out->faults_handled = __atomic_load_n(&g->handled, __ATOMIC_RELAXED);
	out->faults_mapped = __atomic_load_n(&g->mapped, __ATOMIC_RELAXED);
	out->faults_dropped = __atomic_load_n(&g->dropped, __ATOMIC_RELAXED);
	out->faults_real = __atomic_load_n(&g->real, __ATOMIC_RELAXED);
	out->faults_stale_handled = __atomic_load_n(&g->stale, __ATOMIC_RELAXED);
	out->ring_overflows = __atomic_load_n(&g->overflows, __ATOMIC_RELAXED);
	out->drains = __atomic_load_n(&g->cp.stats.drains, __ATOMIC_RELAXED);
	out->drain_timeouts = __atomic_load_n(&g->cp.stats.drain_timeouts, __ATOMIC_RELAXED);
	out->sets = __atomic_load_n(&g->sets, __ATOMIC_RELAXED);
	out->clears = __atomic_load_n(&g->clears, __ATOMIC_RELAXED);
	pthread_mutex_lock(&g->pt_lock);
	out->pages_mapped = g->pages;
	out->last_set_ts = g->last_set_ts;
	pthread_mutex_unlock(&g->pt_lock);
	out->clock = sim_gpu_now(g);
	out->checkpoint_ts = hipsvm_cp_get(&g->cp);
	pthread_mutex_lock(&sim.mem_lock);
	out->mem_used = g->used;
	pthread_mutex_unlock(&sim.mem_lock);
	return 0;
}
