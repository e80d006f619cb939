// SPDX-License-Identifier: MIT
// isa_calls.hip - built at -O0 (tests/hip/meson.build): every work-item id
// comes from a helper function call, locals live on the stack in scratch,
// constants are read PC-relatively from .rodata; plus a non-inlined
// recursive device function (the stack depth depends on the data) and a
// call through a function pointer. Each result against the CPU.
// Exit 0 right, 2 wrong, 1 a HIP error.
#include <hip/hip_runtime.h>
#include <stdio.h>

#define N 300

__device__ __noinline__ unsigned collatz_steps(unsigned long long x, unsigned depth)
{
	if (x <= 1 || depth >= 200)
		return 0;
	return 1 + collatz_steps(x & 1 ? 3 * x + 1 : x / 2, depth + 1);
}

__device__ __noinline__ int ackermann_small(int m, int n)
{
	if (m == 0)
		return n + 1;
	if (n == 0)
		return ackermann_small(m - 1, 1);
	return ackermann_small(m - 1, ackermann_small(m, n - 1));
}

__device__ __noinline__ float twice(float x) { return 2.0f * x; }
__device__ __noinline__ float halve(float x) { return 0.5f * x; }

__global__ void k_calls(unsigned *steps, int *ack, float *f, unsigned n)
{
	const float table[4] = { 1.5f, -2.25f, 8.0f, 0.125f };	// .rodata at -O0
	float (*op)(float) = threadIdx.x & 1 ? twice : halve;
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n) {
		steps[i] = collatz_steps(i + 1, 0);
		ack[i] = ackermann_small((int)(i % 3), (int)(i % 4));
		f[i] = op(table[i & 3]) + (float)i;
	}
}

static unsigned cpu_collatz(unsigned long long x, unsigned depth)
{
	return x <= 1 || depth >= 200 ? 0 : 1 + cpu_collatz(x & 1 ? 3 * x + 1 : x / 2, depth + 1);
}

static int cpu_ack(int m, int n)
{
	if (m == 0)
		return n + 1;
	if (n == 0)
		return cpu_ack(m - 1, 1);
	return cpu_ack(m - 1, cpu_ack(m, n - 1));
}

#define CHECK(x)                                                                   \
	do {                                                                       \
		hipError_t e_ = (x);                                               \
		if (e_ != hipSuccess) {                                            \
			printf("%s: %s\n", #x, hipGetErrorName(e_));               \
			return 1;                                                  \
		}                                                                  \
	} while (0)

int main(void)
{
	static const float table[4] = { 1.5f, -2.25f, 8.0f, 0.125f };
	unsigned steps[N], *dsteps;
	int ack[N], *dack, bad = 0;
	float f[N], *df;

	CHECK(hipMalloc(&dsteps, sizeof(steps)));
	CHECK(hipMalloc(&dack, sizeof(ack)));
	CHECK(hipMalloc(&df, sizeof(f)));
	hipLaunchKernelGGL(k_calls, dim3((N + 63) / 64), dim3(64), 0, 0, dsteps, dack, df, N);
	CHECK(hipGetLastError());
	CHECK(hipMemcpy(steps, dsteps, sizeof(steps), hipMemcpyDeviceToHost));
	CHECK(hipMemcpy(ack, dack, sizeof(ack), hipMemcpyDeviceToHost));
	CHECK(hipMemcpy(f, df, sizeof(f), hipMemcpyDeviceToHost));
	for (unsigned i = 0; i < N; i++) {
		float want = (i % 64) & 1 ? 2.0f * table[i & 3] : 0.5f * table[i & 3];

		if (steps[i] != cpu_collatz(i + 1, 0) || ack[i] != cpu_ack((int)(i % 3), (int)(i % 4)) ||
		    f[i] != want + (float)i) {
			if (bad++ < 5)
				printf("wrong at %u: %u %d %g\n", i, steps[i], ack[i], f[i]);
		}
	}
	printf("%s\n", bad ? "FAILED" : "ok");
	return bad ? 2 : 0;
}
