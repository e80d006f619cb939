/* SPDX-License-Identifier: MIT */
/*
 * sim_ext.c - the simulator's own entry points of sim/hipsvm_sim.h that read
 * the runtime and its GPUs: the visible GPUs and their SVM order, the hook's
 * socket, page states, a synchronous GPU access, the fault and interpreter
 * counters. Tests and examples call them; a HIP program needs none.
 */
#include "sim.h"
#include "exec/exec.h"

#include <errno.h>
#include <string.h>

SIM_API int hipsvmSimGpuCount(void)
{
	SIM_INIT_API();
	return (int)sim.ngpu;
}

SIM_API const char *hipsvmSimSocketPath(void)
{
	SIM_INIT_API();
	return sim.socket_name;
}

SIM_API int hipsvmSimSvmOrder(int *out, int max)
{
	unsigned i;

	SIM_INIT_API();
	for (i = 0; i < sim.ctx.host.nsvm && (int)i < max; i++)
		out[i] = sim.ctx.host.svm_dev[i];
	return (int)i;
}

SIM_API void hipsvmSimQuiesce(void)
{
	unsigned i;

	SIM_INIT_API();
	for (i = 0; i < sim.ngpu; i++)
		sim_gpu_quiesce(sim.gpu[i]);
}

SIM_API int hipsvmSimIsMapped(int device, const void *ptr)
{
	struct sim_gpu *g;

	SIM_INIT_API();
	g = sim_gpu(device);
	if (!g)
		return -EINVAL;
	return sim_gpu_page_mapped(g, (uintptr_t)ptr);
}

SIM_API hipError_t hipsvmSimAccess(int device, const void *ptr, size_t size, int write)
{
	uintptr_t p, end;
	struct sim_gpu *g;

	SIM_INIT_API();
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

	SIM_INIT_API();
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

SIM_API int hipsvmSimIsaStats(struct hipsvm_sim_isa_stats *out)
{
	if (!out)
		return -1;
	sim_isa_stats(out);
	return 0;
}
