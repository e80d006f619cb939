// SPDX-License-Identifier: MIT
// isa_globals.hip - device variables live in the loaded code object: a
// __constant__ table the kernel reads, a __device__ variable the host writes
// (hipMemcpyToSymbol), the kernel updates and the host reads back
// (hipMemcpyFromSymbol, and through hipGetSymbolAddress), a pointer variable
// initialised to another variable's address (a relocation), a zeroed (bss)
// array, and a separate copy per device. Each result is compared with the
// CPU. Exit 0 right, 2 wrong, 1 a HIP error.
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <string.h>

#define N 256

__constant__ unsigned table[16] = { 3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3 };
__device__ unsigned counter = 7;
__device__ unsigned *counter_ptr = &counter;
__device__ unsigned zeroed[N];
__device__ double scale = 0.5;

__global__ void k_lookup(unsigned *out, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		out[i] = table[i & 15] * 1000u + table[(i * 7) & 15] + counter;
}

// every thread adds to counter through the pointer; bss slots get 1 + i
__global__ void k_update(unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n) {
		atomicAdd(counter_ptr, i);
		zeroed[i] += 1 + i;
	}
}

__global__ void k_scale(double *out, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		out[i] = scale * i;
}

#define CHECK(x)                                                                   \
	do {                                                                       \
		hipError_t e_ = (x);                                               \
		if (e_ != hipSuccess) {                                            \
			printf("%s: %s\n", #x, hipGetErrorName(e_));               \
			return 1;                                                  \
		}                                                                  \
	} while (0)

static const unsigned host_table[16] = { 3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3 };

static int bad;

static void expect(bool ok, const char *what)
{
	if (!ok) {
		printf("wrong: %s\n", what);
		bad++;
	}
}

static int run_on(int dev, unsigned start)
{
	unsigned *dout, out[N], c, z[N], *p, *addr;
	double *dd, d[N];
	size_t size;

	CHECK(hipSetDevice(dev));
	CHECK(hipMalloc(&dout, sizeof(out)));
	CHECK(hipMalloc(&dd, sizeof(d)));
	// the image's initial value, before anyone wrote it
	CHECK(hipMemcpyFromSymbol(&c, HIP_SYMBOL(counter), sizeof(c), 0, hipMemcpyDeviceToHost));
	expect(c == 7, "counter's initial value is the code object's");
	CHECK(hipGetSymbolSize(&size, HIP_SYMBOL(table)));
	expect(size == sizeof(host_table), "hipGetSymbolSize(table)");
	CHECK(hipMemcpyToSymbol(HIP_SYMBOL(counter), &start, sizeof(start), 0, hipMemcpyHostToDevice));
	hipLaunchKernelGGL(k_lookup, dim3(N / 64), dim3(64), 0, 0, dout, N);
	CHECK(hipGetLastError());
	CHECK(hipMemcpy(out, dout, sizeof(out), hipMemcpyDeviceToHost));
	for (unsigned i = 0; i < N; i++)
		if (out[i] != host_table[i & 15] * 1000u + host_table[(i * 7) & 15] + start) {
			expect(false, "k_lookup: table + counter");
			break;
		}
	hipLaunchKernelGGL(k_update, dim3(N / 64), dim3(64), 0, 0, N);
	hipLaunchKernelGGL(k_update, dim3(N / 64), dim3(64), 0, 0, N);
	CHECK(hipDeviceSynchronize());
	CHECK(hipMemcpyFromSymbol(&c, HIP_SYMBOL(counter), sizeof(c), 0, hipMemcpyDeviceToHost));
	expect(c == start + 2 * (N * (N - 1) / 2), "counter after two k_update");
	// the pointer variable holds counter's address in the image
	CHECK(hipGetSymbolAddress((void **)&addr, HIP_SYMBOL(counter)));
	CHECK(hipMemcpyFromSymbol(&p, HIP_SYMBOL(counter_ptr), sizeof(p), 0, hipMemcpyDeviceToHost));
	expect(p == addr, "counter_ptr == &counter (relocated)");
	CHECK(hipMemcpy(&c, addr, sizeof(c), hipMemcpyDeviceToHost));
	expect(c == start + N * (N - 1), "hipGetSymbolAddress reads the kernel's bytes");
	CHECK(hipMemcpyFromSymbol(z, HIP_SYMBOL(zeroed), sizeof(z), 0, hipMemcpyDeviceToHost));
	for (unsigned i = 0; i < N; i++)
		if (z[i] != 2 * (1 + i)) {
			expect(false, "bss array");
			break;
		}
	hipLaunchKernelGGL(k_scale, dim3(N / 64), dim3(64), 0, 0, dd, N);
	CHECK(hipMemcpy(d, dd, sizeof(d), hipMemcpyDeviceToHost));
	for (unsigned i = 0; i < N; i++)
		if (d[i] != 0.5 * i) {
			expect(false, "k_scale: double variable");
			break;
		}
	CHECK(hipFree(dout));
	CHECK(hipFree(dd));
	// the image is not the program's memory to free
	expect(hipFree(addr) == hipErrorInvalidValue, "hipFree of a variable's address refused");
	(void)hipGetLastError();
	return 0;
}

int main(void)
{
	int n = 0;
	unsigned c;

	CHECK(hipGetDeviceCount(&n));
	if (run_on(0, 100))
		return 1;
	if (n > 1) {
		if (run_on(1, 5000))
			return 1;
		// device 0's copy kept its own value
		CHECK(hipSetDevice(0));
		CHECK(hipMemcpyFromSymbol(&c, HIP_SYMBOL(counter), sizeof(c), 0,
					  hipMemcpyDeviceToHost));
		expect(c == 100 + N * (N - 1), "each device has its own copy");
	}
	printf("%s\n", bad ? "FAILED" : "ok");
	return bad ? 2 : 0;
}
