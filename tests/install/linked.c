/* SPDX-License-Identifier: MIT */
/*
 * linked.c - a HIP program linked with -lhipsvm from an installed prefix
 * (pkg-config hipsvm): the shim is in it without LD_PRELOAD. One managed
 * allocation, freed; exit 0 when both calls succeed.
 */
#include <hip/hip_runtime_api.h>
#include <stdio.h>

int main(void)
{
	void *p = NULL;
	hipError_t e = hipMallocManaged(&p, 1 << 20, hipMemAttachGlobal);

	if (e != hipSuccess) {
		fprintf(stderr, "hipMallocManaged: %d\n", (int)e);
		return 1;
	}
	e = hipFree(p);
	if (e != hipSuccess) {
		fprintf(stderr, "hipFree: %d\n", (int)e);
		return 1;
	}
	puts("linked: ok");
	return 0;
}
