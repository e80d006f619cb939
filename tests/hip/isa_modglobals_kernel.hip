// SPDX-License-Identifier: MIT
// isa_modglobals_kernel.hip - built with --genco: a code object whose kernel
// reads two module globals, for isa_modglobals.hip.
#include <hip/hip_runtime.h>

__constant__ int coef[4] = { 1, 2, 5, -1 };
__device__ int offset = 3;

extern "C" __global__ void k_poly(int *out, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n) {
		int x = (int)i + offset;

		out[i] = coef[0] + x * (coef[1] + x * (coef[2] + x * coef[3]));
	}
}
