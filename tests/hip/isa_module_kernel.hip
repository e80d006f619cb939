// isa_module_kernel: the code object tests/hip/isa_module.hip loads with hipModuleLoad
// (built with hipcc --genco).
#include <hip/hip_runtime.h>
extern "C" __global__ void scale2d(float *out, const float *in, float s, int w, int h)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x < w && y < h)
		out[y * w + x] = in[y * w + x] * s + (float)x;
}
