/* SPDX-License-Identifier: MIT */
/*
 * sim_ext.c - the simulator's own entry points of sim/hipsvm_sim.h that read
 * the runtime and its GPUs: the visible GPUs and their SVM order, the hook's
 * socket, page states, a synchronous GPU access, the fault and interpreter
 * counters. Tests and examples call them; a HIP program needs none.
 */
#include "api/api.h"
#include "gpu/gpu.h"
#include "exec/exec.h"
#include "runtime/map.h"
#include "hipsvm_sim.h"

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

struct pieces {
	uintptr_t *out;
	int max, n;
};

static void add_piece(uintptr_t lo, uintptr_t hi, void *arg)
{
	struct pieces *p = arg;

	if (p->n < p->max) {
		p->out[2 * p->n] = lo;
		p->out[2 * p->n + 1] = hi;
	}
	p->n++;
}

SIM_API int hipsvmSimCpuMapped(const void *ptr, size_t size, int query, uintptr_t *out, int max)
{
	struct pieces p = { out, max, 0 };
	uintptr_t lo = (uintptr_t)ptr;
	int err = 0;

	SIM_INIT_API();
	if (!ptr || !size || lo + size < lo || max < 0 || (max && !out))
		return -EINVAL;
	if (query)
		err = sim_vm_query(lo, lo + size, add_piece, &p);
	else
		sim_vm_mapped_by(lo, lo + size, false, add_piece, &p);
	return err ? err : p.n;
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
	sim_gpu_stats(g, out);
	return 0;
}

SIM_API int hipsvmSimIsaStatsSized(struct hipsvm_sim_isa_stats *out, size_t size)
{
	struct hipsvm_sim_isa_stats all;

	if (!out)
		return -1;
	sim_isa_stats(&all);
	memcpy(out, &all, size < sizeof(all) ? size : sizeof(all));
	return 0;
}

SIM_API int hipsvmSimIsaStats(struct hipsvm_sim_isa_stats *out)
{
	return hipsvmSimIsaStatsSized(out, offsetof(struct hipsvm_sim_isa_stats, spins));
}
