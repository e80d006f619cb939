/* SPDX-License-Identifier: MIT */
/*
 * agent.c - a GPU agent for tests and examples: a thread that keeps touching
 * a range from one GPU, as a long-running kernel would, so that a test can
 * unmap the range under it and watch the faults.
 */
#include "api/api.h"
#include "gpu/gpu.h"
#include "runtime/thread.h"
#include "hipsvm_sim.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

struct hipsvm_sim_agent {
	pthread_t thread;
	struct sim_gpu *gpu;
	uintptr_t start, end;
	bool write;
	uint32_t stop;
	struct hipsvm_sim_agent_result res;
};

static void *agent_main(void *arg)
{
	struct hipsvm_sim_agent *a = arg;

	while (!__atomic_load_n(&a->stop, __ATOMIC_RELAXED)) {
		uint64_t before = __atomic_load_n(&a->gpu->raised, __ATOMIC_RELAXED);
		uintptr_t p;

		for (p = a->start; p < a->end; p += SIM_PAGE) {
			int r = sim_gpu_access_page(a->gpu, p, a->write, &a->stop);

			if (r == SIM_RES_NONE)
				return NULL;	/* stopped while waiting */
			if (r == SIM_RES_REAL)
				a->res.real_faults++;
			a->res.accesses++;
		}
		a->res.rounds++;
		/* A round without a fault is a few lock round trips: let the
		 * other threads of a small machine run. */
		if (__atomic_load_n(&a->gpu->raised, __ATOMIC_RELAXED) == before)
			usleep(20);
	}
	return NULL;
}

SIM_API int hipsvmSimAgentStart(int device, void *ptr, size_t size, int write,
				struct hipsvm_sim_agent **out)
{
	struct hipsvm_sim_agent *a;
	int err;

	SIM_INIT_API();
	if (!sim_gpu(device) || !ptr || !size || !out)
		return -EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->gpu = sim_gpu(device);
	a->start = (uintptr_t)ptr & ~(uintptr_t)(SIM_PAGE - 1);
	a->end = (uintptr_t)ptr + size;
	a->write = write != 0;
	err = sim_thread_start(&a->thread, agent_main, a, "hipsvm-agent");
	if (err) {
		free(a);
		return -err;
	}
	*out = a;
	return 0;
}

SIM_API int hipsvmSimAgentStop(struct hipsvm_sim_agent *a, struct hipsvm_sim_agent_result *res)
{
	if (!a)
		return -EINVAL;
	__atomic_store_n(&a->stop, 1, __ATOMIC_RELAXED);
	pthread_join(a->thread, NULL);
	if (res)
		*res = a->res;
	free(a);
	return 0;
}
