// managed_saxpy: y = a*x + y on managed memory (hipMallocManaged).
//
// Managed memory belongs to HIP's host_context, the context that spans every GPU.
// The GPU touches pages the host wrote, so each first touch is a retry page fault
// that the driver serves by migrating or mapping the page.
//
//   hipsvm run -- ./managed_saxpy
//
// The report shows 2 allocations and 2 frees in host_context, routed "as HIP", and
// faults raised and handled on GPU 0 (the current device); nothing dropped.
#include "example.h"

__global__ void saxpy(float a, const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = a * x[i] + y[i];
}

int main(void)
{
	const int n = 1 << 20;		// 4 MiB per vector
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
		bad += y[i] != 2.0f + (float)i;
	printf("saxpy over %d floats: y[1] = %g (expected 3)\n", n, y[1]);
	int status = note_results(bad);
	CHECK(hipFree(x));
	CHECK(hipFree(y));
	return status;
}
