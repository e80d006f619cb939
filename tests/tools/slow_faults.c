/* SPDX-License-Identifier: MIT */
/*
 * slow_faults.c - a program whose GPU faults are spread over time and which
 * never unmaps: for tools / trace_stress's check that hipsvm samples the fault
 * counters while a program runs (its fixed period), not only at exit and at
 * drains. Six rounds 50 ms apart, each faulting a fresh page of managed
 * memory on every GPU, so that sampling every 10 ms sees the counters change
 * more than once on a busy machine too (the examples now finish in tens of
 * milliseconds, too fast to tell a period from chance).
 */
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <time.h>

#include "hipsvm_sim.h"

#define ROUNDS 6

int main(void)
{
	const struct timespec gap = { 0, 50 * 1000 * 1000 };
	int ngpu = hipsvmSimGpuCount();
	char *p = NULL;

	if (ngpu <= 0 || hipMallocManaged((void **)&p, (size_t)ROUNDS * 4096, 1) != hipSuccess) {
		fprintf(stderr, "slow_faults: no simulated GPU or no managed memory\n");
		return 1;
	}
	for (int r = 0; r < ROUNDS; r++) {
		for (int d = 0; d < ngpu; d++)
			if (hipsvmSimAccess(d, p + (size_t)r * 4096, 1, 0) != hipSuccess) {
				fprintf(stderr, "slow_faults: access failed on GPU %d\n", d);
				return 1;
			}
		nanosleep(&gap, NULL);
	}
	/* exit without hipFree: no unmap, so no drain samples either */
	return 0;
}
