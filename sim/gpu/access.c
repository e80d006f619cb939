/* SPDX-License-Identifier: MIT */
/*
 * access.c - a GPU's side of an access: check the page table, raise a retry
 * fault, wait for the handler's answer, retry until served (the test
 * entry points built on it are sim/api/sim_ext.c's).
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
