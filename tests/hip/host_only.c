/* SPDX-License-Identifier: MIT */
/*
 * host_only: a HIP program in plain C, built with the C compiler and no fat
 * binary (so no __hipRegisterFatBinary): the allocation API only. Prints
 * "name=code" lines like edge_cases and always exits 0.
 */
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
	int count = -1;
	void *d = NULL, *m = NULL, *h = NULL;
	hipError_t e;

	printf("hipGetDeviceCount=%d\n", (int)hipGetDeviceCount(&count));
	printf("device_count=%d\n", count);
	e = hipMalloc(&d, 1 << 20);
	printf("hipMalloc=%d\n", (int)e);
	e = hipMallocManaged(&m, 1 << 20, hipMemAttachGlobal);
	printf("hipMallocManaged=%d\n", (int)e);
	if (e == hipSuccess)
		memset(m, 0x5a, 1 << 20);	/* managed memory is host-accessible */
	e = hipHostMalloc(&h, 1 << 20, hipHostMallocDefault);
	printf("hipHostMalloc=%d\n", (int)e);
	printf("hipFree_device=%d\n", (int)hipFree(d));
	printf("hipFree_managed=%d\n", (int)hipFree(m));
	printf("hipHostFree=%d\n", (int)hipHostFree(h));
	return 0;
}
