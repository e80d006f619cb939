// vector_add: three hipMalloc buffers, copy in, one kernel, copy back.
// The exit status depends on the results only with --verify (2 when wrong: the
// simulator runs the kernel, HIPSVM_SIM_EXEC=touch does not); API failures exit 1.
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                          \
	do {                                                                 \
		hipError_t e_ = (call);                                      \
		if (e_ != hipSuccess) {                                      \
			printf("%s=%d (%s)\n", #call, (int)e_, hipGetErrorString(e_)); \
			return 1;                                            \
		}                                                            \
	} while (0)

__global__ void vector_add(float *c, const float *a, const float *b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i];
}

int main(int argc, char **argv)
{
	const int n = 1 << 16;
	const size_t bytes = n * sizeof(float);
	bool verify = argc > 1 && !strcmp(argv[1], "--verify");
	/* Static: CHECK returns early on the real runtime without a GPU, and
	 * heap buffers would then leak (LeakSanitizer runs these programs). */
	static float a[1 << 16], b[1 << 16], c[1 << 16];
	float *da, *db, *dc;
	int bad = 0;

	for (int i = 0; i < n; i++) {
		a[i] = (float)i;
		b[i] = 2.0f * i;
		c[i] = -1.0f;
	}
	CHECK(hipMalloc(&da, bytes));
	CHECK(hipMalloc(&db, bytes));
	CHECK(hipMalloc(&dc, bytes));
	CHECK(hipMemcpy(da, a, bytes, hipMemcpyHostToDevice));
	CHECK(hipMemcpy(db, b, bytes, hipMemcpyHostToDevice));
	hipLaunchKernelGGL(vector_add, dim3((n + 255) / 256), dim3(256), 0, 0, dc, da, db, n);
	CHECK(hipGetLastError());
	CHECK(hipMemcpy(c, dc, bytes, hipMemcpyDeviceToHost));
	CHECK(hipDeviceSynchronize());
	for (int i = 0; i < n; i++)
		bad += c[i] != 3.0f * i;
	printf("c[0]=%g c[%d]=%g mismatches=%d\n", c[0], n - 1, c[n - 1], bad);
	CHECK(hipFree(da));
	CHECK(hipFree(db));
	CHECK(hipFree(dc));
	return verify && bad ? 2 : 0;
}
