// managed_saxpy: y = a*x + y on hipMallocManaged memory, read back on the host.
// Exit status depends on the results only with --verify (2 when wrong: the
// simulator runs the kernel, HIPSVM_SIM_EXEC=touch does not); API failures exit 1.
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <string.h>

#define CHECK(call)                                                          \
	do {                                                                 \
		hipError_t e_ = (call);                                      \
		if (e_ != hipSuccess) {                                      \
			printf("%s=%d (%s)\n", #call, (int)e_, hipGetErrorString(e_)); \
			return 1;                                            \
		}                                                            \
	} while (0)

__global__ void saxpy(float a, const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

int main(int argc, char **argv)
{
	const int n = 1 << 20;
	bool verify = argc > 1 && !strcmp(argv[1], "--verify");
	float *x, *y;
	int bad = 0;

	CHECK(hipMallocManaged(&x, n * sizeof(float), hipMemAttachGlobal));
	CHECK(hipMallocManaged(&y, n * sizeof(float), hipMemAttachGlobal));
	for (int i = 0; i < n; i++) {
		x[i] = 1.0f;
		y[i] = (float)i;
	}
	hipLaunchKernelGGL(saxpy, dim3((n + 255) / 256), dim3(256), 0, 0, 2.0f, x, y, n);
	CHECK(hipGetLastError());
	CHECK(hipDeviceSynchronize());
	for (int i = 0; i < n; i++)
		bad += y[i] != 2.0f + i;
	printf("y[0]=%g y[%d]=%g mismatches=%d\n", y[0], n - 1, y[n - 1], bad);
	CHECK(hipFree(x));
	CHECK(hipFree(y));
	return verify && bad ? 2 : 0;
}
