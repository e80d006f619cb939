/* SPDX-License-Identifier: MIT */
/*
 * bench.c - entry points for bench/bench_sim.c that time the fault handler
 * and the drain without the producer in the way: faults are written while
 * the fault ring is held (disabled: the handler skips it), then released.
 */
#include "api/api.h"
#include "gpu/gpu.h"
#include "hipsvm_sim.h"

static struct hipsvm_ring *fault_ring(struct sim_gpu *g)
{
	return (!sim.retry_cam && g->irq.ih1) ? g->irq.ih1 : g->irq.ih0;
}

static int fill_held(struct sim_gpu *g, const void *addr, unsigned count)
{
	struct hipsvm_ring *r = fault_ring(g);
	unsigned i;

	if (count >= r->size / HIPSVM_IV_BYTES)
		return -ENOSPC;
	sim_gpu_quiesce(g);
	HIPSVM_STORE(&r->enabled, 0u);
	for (i = 0; i < count; i++) {
		if (sim_gpu_write_fault(g, (uintptr_t)addr, false, true, false, 0, 0, NULL)) {
			HIPSVM_STORE(&r->enabled, 1u);
			sim_gpu_kick(g);
			return -ENOSPC;
		}
	}
	return 0;
}

/* The GPU, with count faults held in its fault ring, or NULL (*err set). */
static struct sim_gpu *held_gpu(int device, const void *addr, unsigned count, uint64_t *ns,
				int *err)
{
	struct sim_gpu *g;

	SIM_INIT_API();
	g = sim_gpu(device);
	*err = !g || !ns ? -EINVAL : fill_held(g, addr, count);
	return *err ? NULL : g;
}

SIM_API int hipsvmSimBenchHandler(int device, const void *addr, unsigned count, uint64_t *ns)
{
	uint64_t t0;
	int err;
	struct sim_gpu *g = held_gpu(device, addr, count, ns, &err);

	if (!g)
		return err;
	t0 = sim_now_ns();
	HIPSVM_STORE(&fault_ring(g)->enabled, 1u);
	sim_gpu_kick(g);
	sim_gpu_quiesce(g);
	*ns = sim_now_ns() - t0;
	return 0;
}

SIM_API int hipsvmSimBenchDrain(int device, const void *addr, unsigned pending, uint64_t *ns)
{
	uint64_t t0;
	int err;
	struct sim_gpu *g = held_gpu(device, addr, pending, ns, &err);

	if (!g)
		return err;
	HIPSVM_STORE(&fault_ring(g)->enabled, 1u);
	t0 = sim_now_ns();
	sim_gpu_kick(g);
	err = hipsvm_cp_drain(&g->cp, &g->irq, 1000000000u);
	*ns = sim_now_ns() - t0;
	sim_gpu_quiesce(g);
	return err;
}
