// oversubscribe: ask GPU 0 for twice its memory with hipMalloc.
//
// HIP answers hipErrorOutOfMemory once device memory is used up. With the routing
// policy "oversubscribe" the shim turns each hipMalloc that does not fit into managed
// memory instead (host_context, migrated on demand), so the program keeps going.
//
//   hipsvm run --policy oversubscribe --sim-mem 64M -- ./oversubscribe
//   hipsvm run --sim-mem 64M -- ./oversubscribe        (HIP's behaviour: fails at 100%)
//
// With the policy the report shows 8 allocations on GPU 0: 4 routed "as HIP" in
// device:0 and 4 "oversubscribed" in host_context. Without it, 4 allocations and a
// failed fifth (one HIP runtime error). Either way the program exits 0.
#include "example.h"

__global__ void first_touch(char *p, size_t n)
{
	size_t i = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * 4096;

	if (i < n)
		p[i] = 1;
}

int main(void)
{
	enum { MAX_CHUNKS = 8 };
	char *chunk[MAX_CHUNKS];
	size_t free_b = 0, total = 0, size, touch;
	int got = 0;

	CHECK(hipSetDevice(0));
	CHECK(hipMemGetInfo(&free_b, &total));
	size = total / 4;	// 8 chunks: twice the device's memory
	touch = size < (1u << 20) ? size : (1u << 20);
	printf("GPU 0 has %zu MiB (%zu MiB free); allocating %d x %zu MiB\n", total >> 20, free_b >> 20,
	       MAX_CHUNKS, size >> 20);
	for (got = 0; got < MAX_CHUNKS; got++) {
		hipError_t e = hipMalloc((void **)&chunk[got], size);

		if (e != hipSuccess) {
			printf("allocation %d failed with %s: the device is full (HIP's own behaviour;\n"
			       "try hipsvm run --policy oversubscribe)\n", got + 1, hipGetErrorName(e));
			(void)hipGetLastError();
			break;
		}
	}
	printf("%d of %d allocations succeeded (%zu MiB)\n", got, MAX_CHUNKS, (size >> 20) * (size_t)got);
	// Touch the first MiB of each (the whole range would only take longer).
	for (int i = 0; i < got; i++)
		hipLaunchKernelGGL(first_touch, dim3((unsigned)(touch / 4096 / 64 + 1)), dim3(64), 0, 0,
				   chunk[i], touch);
	CHECK(hipGetLastError());
	CHECK(hipDeviceSynchronize());
	// The kernel wrote 1 at the start of every page it touched.
	int bad = 0;
	for (int i = 0; i < got; i++) {
		char c = 0;

		for (size_t off = 0; off < touch; off += 4096) {
			CHECK(hipMemcpy(&c, chunk[i] + off, 1, hipMemcpyDeviceToHost));
			bad += c != 1;
		}
	}
	int status = note_results(bad);
	for (int i = 0; i < got; i++)
		CHECK(hipFree(chunk[i]));
	return status;
}
