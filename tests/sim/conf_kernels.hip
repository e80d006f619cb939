// conf_kernels: the code object (hipcc --genco) the conformance cases that
// need real kernels load with hipModuleLoad (tests/sim/conf_async.c).
#include <hip/hip_runtime.h>

// A kernel that runs until the host opens its gate: it stamps both counters,
// says it started, waits for gate[0] (or `limit` reference-clock ticks, so a
// broken test ends), and stamps both counters again. stamp: memtime and
// realtime before, then after.
extern "C" __global__ void gate(volatile int *g, unsigned long long *stamp,
				unsigned long long limit)
{
	unsigned long long t0 = __builtin_amdgcn_s_memtime();
	unsigned long long r0 = __builtin_amdgcn_s_memrealtime();

	g[1] = 1;
	while (!g[0] && __builtin_amdgcn_s_memrealtime() - r0 < limit)
		__builtin_amdgcn_s_sleep(10);
	stamp[2] = __builtin_amdgcn_s_memtime();
	stamp[3] = __builtin_amdgcn_s_memrealtime();
	stamp[0] = t0;
	stamp[1] = r0;
}

// Adds one to each of n ints.
extern "C" __global__ void inc(int *a, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] += 1;
}

// Adds one to each of n bytes (byte loads and stores, 16-bit adds: what
// hip-tests' Inc<uint8_t> compiles to).
extern "C" __global__ void inc8(unsigned char *a, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] = a[i] + 1;
}

// Sets n ints to v, grid-stride (hip-tests' VectorSet).
extern "C" __global__ void set32(int *a, int v, unsigned long n)
{
	for (unsigned long i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (unsigned long)blockDim.x * gridDim.x)
		a[i] = v;
}

// A device variable for the symbol copies (tests/sim/conf_graph.c).
extern "C" __device__ int graph_var[4];
__device__ int graph_var[4];

// At most 64 work-items a group (.max_flat_workgroup_size 64): a larger
// block is hipErrorLaunchFailure in ROCm 5.2.3 (tests/sim/conf_launch.c).
extern "C" __global__ void __launch_bounds__(64) bounded64(int *a)
{
	a[threadIdx.x] = (int)threadIdx.x;
}

// One of each float atomic of gfx90a's global memory (global_atomic_add_f64,
// _max_f64, _min_f64, _add_f32) and an integer one, each returning the old
// value into out (tests/sim/conf_fpatomic.c).
extern "C" __global__ void fp_atomics(double *d, float *f, int *i, double *out)
{
	out[0] = __builtin_amdgcn_global_atomic_fadd_f64(d, 10.0);
	out[1] = __builtin_amdgcn_global_atomic_fmax_f64(d + 1, 10.0);
	out[2] = __builtin_amdgcn_global_atomic_fmin_f64(d + 2, -10.0);
	out[3] = __builtin_amdgcn_global_atomic_fadd_f32(f, 10.0f);
	out[4] = atomicAdd(i, 1);
}
