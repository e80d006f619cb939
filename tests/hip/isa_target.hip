// SPDX-License-Identifier: MIT
// isa_target.hip - built as a fat binary for several targets (tests/hip/meson.build:
// gfx1030 + gfx90a, and gfx90a:xnack- + gfx90a:xnack+). The kernel computes
// a table checked against the CPU and writes the target ID it was compiled
// for, so the program sees which code object the runtime chose. That ID
// must be compatible with the device's gcnArchName: the same processor, and
// an xnack feature, when the code object has one, equal to the device's
// mode. Argument "xnack+" or "xnack-": the mode the device must be in, and
// the code object must name it (the xnack± build).
// Exit 0 right, 2 wrong, 1 a HIP error.
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <string.h>

#define N 1000
#ifndef __amdgcn_target_id__	/* the host pass */
#define __amdgcn_target_id__ "host"
#endif

__global__ void k_target(char *id, unsigned *out, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i == 0) {
		const char t[] = __amdgcn_target_id__;

		for (unsigned j = 0; j < sizeof(t); j++)
			id[j] = t[j];
	}
	if (i < n)
		out[i] = i * 2654435761u ^ (i >> 3);
}

#define CHECK(x)                                                                   \
	do {                                                                       \
		hipError_t e_ = (x);                                               \
		if (e_ != hipSuccess) {                                            \
			printf("%s: %s\n", #x, hipGetErrorName(e_));               \
			return 1;                                                  \
		}                                                                  \
	} while (0)

int main(int argc, char **argv)
{
	const char *want = argc > 1 ? argv[1] : NULL;
	hipDeviceProp_t p;
	char id[64] = { 0 }, *did;
	unsigned *dout, out[N];
	const char *dev_x, *co_x;
	int bad = 0;

	CHECK(hipGetDeviceProperties(&p, 0));
	CHECK(hipMalloc(&did, sizeof(id)));
	CHECK(hipMalloc(&dout, sizeof(out)));
	CHECK(hipMemset(did, 0, sizeof(id)));
	hipLaunchKernelGGL(k_target, dim3((N + 255) / 256), dim3(256), 0, 0, did, dout, N);
	CHECK(hipGetLastError());
	CHECK(hipMemcpy(id, did, sizeof(id) - 1, hipMemcpyDeviceToHost));
	CHECK(hipMemcpy(out, dout, sizeof(out), hipMemcpyDeviceToHost));
	for (unsigned i = 0; i < N; i++)
		if (out[i] != (i * 2654435761u ^ (i >> 3)))
			bad++;
	dev_x = strstr(p.gcnArchName, ":xnack");
	co_x = strstr(id, ":xnack");
	printf("device %s, code object %s, %d wrong\n", p.gcnArchName, id, bad);
	if (strncmp(id, "gfx90a", 6) || (id[6] && id[6] != ':'))
		bad++;
	if (strncmp(p.gcnArchName, "gfx90a:sramecc+:xnack", 21) || !dev_x)
		bad++;
	if (co_x && (!dev_x || strcmp(co_x, dev_x)))
		bad++;
	if (want && (!co_x || strcmp(co_x + 1, want) || !dev_x || strcmp(dev_x + 1, want)))
		bad++;
	CHECK(hipFree(did));
	CHECK(hipFree(dout));
	return bad ? 2 : 0;
}
