// bench_isa: the simulator's kernel interpreter, in wave-instructions per
// second. Runs three kernels (saxpy: streaming global memory; reduce: LDS and
// barriers; alu: arithmetic with no memory) on the simulator and reads its
// counters (hipsvmSimIsaStats). Run:
//   LD_LIBRARY_PATH=build/sim build/bench/bench_isa [repeats]
#include <hip/hip_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct isa_stats {
	unsigned long long dispatches, fallbacks, wave_insns, waves, ns, page_walks;
};
typedef int (*stats_fn)(struct isa_stats *);

__global__ void saxpy(float a, const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

__global__ void reduce(const int *in, int *out, int n)
{
	__shared__ int s[256];
	int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
	s[t] = i < n ? in[i] : 0;
	__syncthreads();
	for (int k = blockDim.x / 2; k > 0; k >>= 1) {
		if (t < k)
			s[t] += s[t + k];
		__syncthreads();
	}
	if (t == 0)
		out[blockIdx.x] = s[0];
}

__global__ void alu(float *out, int iters)
{
	float a = threadIdx.x, b = 1.0f;
	for (int k = 0; k < iters; k++) {
		a = a * 0.999f + b;
		b = b * 1.001f - 0.5f;
	}
	out[blockIdx.x * blockDim.x + threadIdx.x] = a + b;
}

#define CHECK(c) do { if ((c) != hipSuccess) { printf("%s failed\n", #c); return 1; } } while (0)

static stats_fn get_stats;

static int row(const char *name, void (*launch)(void *), void *arg, int reps)
{
	struct isa_stats a, b;
	struct timespec t0, t1, c0, c1;

	get_stats(&a);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
	for (int r = 0; r < reps; r++)
		launch(arg);
	CHECK(hipDeviceSynchronize());
	clock_gettime(CLOCK_MONOTONIC, &t1);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
	get_stats(&b);
	double wall = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	double cpu = (c1.tv_sec - c0.tv_sec) + (c1.tv_nsec - c0.tv_nsec) * 1e-9;
	double insns = (double)(b.wave_insns - a.wave_insns);
	// per CPU second: the figure that does not depend on how busy the machine is
	printf("%-7s %9.0f wave-insns  wall %6.3f s %7.2f M/s  cpu %6.3f s %7.2f M/s  (%llu dispatches, %llu fell back)\n",
	       name, insns, wall, insns / wall / 1e6, cpu, insns / cpu / 1e6,
	       b.dispatches - a.dispatches, b.fallbacks - a.fallbacks);
	return 0;
}

static const int n = 1 << 20;
static float *x, *y;
static int *in, *out;

static void l_saxpy(void *) { hipLaunchKernelGGL(saxpy, dim3(n / 256), dim3(256), 0, 0, 2.0f, x, y, n); }
static void l_reduce(void *) { hipLaunchKernelGGL(reduce, dim3(n / 256), dim3(256), 0, 0, in, out, n); }
static void l_alu(void *) { hipLaunchKernelGGL(alu, dim3(64), dim3(256), 0, 0, y, 1000); }

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 3;

	get_stats = (stats_fn)dlsym(RTLD_DEFAULT, "hipsvmSimIsaStats");
	if (!get_stats) {
		printf("not on the simulator (no hipsvmSimIsaStats)\n");
		return 1;
	}
	CHECK(hipMalloc(&x, n * sizeof(float)));
	CHECK(hipMalloc(&y, n * sizeof(float)));
	CHECK(hipMalloc(&in, n * sizeof(int)));
	CHECK(hipMalloc(&out, n * sizeof(int)));
	CHECK(hipMemset(x, 0, n * sizeof(float)));
	CHECK(hipMemset(y, 0, n * sizeof(float)));
	CHECK(hipMemset(in, 0, n * sizeof(int)));
	row("saxpy", l_saxpy, NULL, reps);
	row("reduce", l_reduce, NULL, reps);
	row("alu", l_alu, NULL, reps);
	hipFree(x); hipFree(y); hipFree(in); hipFree(out);
	return 0;
}
