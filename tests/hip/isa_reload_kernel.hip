// isa_reload_kernel: the code object tests/hip/isa_reload.hip loads, built
// twice with --genco: RELOAD_VALUE 1 and 2 (the same kernel, the same size,
// one constant apart), so that an unloaded one's place is likely the next
// one's.
#include <hip/hip_runtime.h>
__device__ int marker[16];
extern "C" __global__ void put(int *out)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	out[i] = RELOAD_VALUE * 1000 + i + marker[0];
}
// no access to the image's variables: it can run after its module is gone
extern "C" __global__ void put_plain(int *out)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	out[i] = RELOAD_VALUE * 1000 + i;
}
